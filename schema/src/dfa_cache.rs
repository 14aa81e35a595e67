//! The DFA cache: dense DFAs a process builds, kept in a directory and read
//! back by the next process that builds the same ones
//! ([`use_compile_cache`]'s `dfa/`). What makes `agent-hooks hook` (a
//! process per event) skip determinization on every call after the first
//! with the same patterns; the compiled-config cache beside it
//! (`crate::config_cache`) skips parsing and checking too.
//!
//! One file per DFA, named by the SHA-256 of what determines it (this
//! crate's version, the builder's settings, the search, the size limit
//! and the regexes): the DFA in `regex-automata`'s serialized form
//! (native byte order), or `ERR` and the reason when it could not be
//! built (over its size limit). A file that does not deserialize (another
//! `regex-automata` version or byte order, a torn write) is a miss and is
//! replaced; a directory that cannot be read or written is no cache.
//! Files are written to a temporary name and renamed, so readers never see
//! half a file. The cache trusts its directory as the config's own files
//! are trusted: keep it private to the user (it is created 0700).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use sha2::{Digest as _, Sha256};

use crate::automata::{OwnedDfa, PatternError, Search};

/// The builder's settings that shape a DFA beside its inputs; change it
/// with them (`build_dfa_within`).
const SETTINGS: &str = "dense; match_kind all; unicode_word_boundary; utf8 off; no captures; v1";

/// What a failed build's file starts with.
const FAILED: &[u8] = b"ERR\n";

/// The DFA directory and the compiled-config directory.
static DIRS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();

/// Keeps what this process compiles from now on under `dir` (each
/// directory created 0700 when missing) and takes what is already there
/// instead of compiling it again: every dense DFA (`dir/dfa`), for the
/// loader and the checks alike, and every config a [`Loader`](crate::Loader)
/// compiles from a file or text (`dir/config`: the validated config, its
/// warnings and the digests of the files it read, keyed by the digest of
/// its text, its name, the loader's directories and this build, so a warm
/// compile parses and checks nothing; docs/hook-command.md, "Latency").
/// Set once per process (what `agent-hooks hook` and `serve` do, with the
/// user's cache directory); returns `false` when a directory was already
/// set (the first one stays).
///
/// A directory that cannot be created, read or written makes every build
/// a plain build: the cache never fails a load.
pub fn use_compile_cache(dir: PathBuf) -> bool {
    DIRS.set((dir.join("dfa"), dir.join("config"))).is_ok()
}

/// The DFA directory [`use_compile_cache`] set, if any.
pub(crate) fn dir() -> Option<&'static Path> {
    DIRS.get().map(|(dfa, _)| dfa.as_path())
}

/// The compiled-config directory [`use_compile_cache`] set, if any.
pub(crate) fn config_dir() -> Option<&'static Path> {
    DIRS.get().map(|(_, config)| config.as_path())
}

/// The file of the DFA of `regexes`.
fn file_name(regexes: &[String], search: Search, limit: usize) -> String {
    let mut hash = Sha256::new();
    hash.update(env!("CARGO_PKG_VERSION").as_bytes());
    hash.update([0]);
    hash.update(SETTINGS.as_bytes());
    hash.update([0, u8::from(matches!(search, Search::Anchored))]);
    hash.update((limit as u64).to_le_bytes());
    for regex in regexes {
        hash.update((regex.len() as u64).to_le_bytes());
        hash.update(regex.as_bytes());
    }
    let digest = hash.finalize();
    let mut name = String::with_capacity(68);
    for byte in digest {
        name.push_str(&format!("{byte:02x}"));
    }
    name.push_str(".dfa");
    name
}

/// The DFA of `regexes` from `dir`, or `build`'s, written there for the
/// next process.
pub(crate) fn build_cached(
    dir: &Path,
    regexes: &[String],
    search: Search,
    limit: usize,
    build: impl FnOnce(&[String], Search, usize) -> Result<OwnedDfa, PatternError>,
) -> Result<OwnedDfa, PatternError> {
    let path = dir.join(file_name(regexes, search, limit));
    if let Some(cached) = read(&path, regexes) {
        return cached;
    }
    let built = build(regexes, search, limit);
    write(dir, &path, &built);
    built
}

/// The cached build at `path`, or `None` when there is none usable.
fn read(path: &Path, regexes: &[String]) -> Option<Result<OwnedDfa, PatternError>> {
    let bytes = std::fs::read(path).ok()?;
    if let Some(reason) = bytes.strip_prefix(FAILED) {
        return Some(Err(PatternError::Dfa {
            regexes: regexes.to_vec(),
            reason: String::from_utf8_lossy(reason).into_owned(),
        }));
    }
    // `from_bytes` needs 4-byte alignment: copy into an aligned window.
    let mut buffer = vec![0u8; bytes.len() + 3];
    let offset = buffer.as_ptr().align_offset(4);
    let window = buffer.get_mut(offset..offset + bytes.len())?;
    window.copy_from_slice(&bytes);
    let (dfa, _) = regex_automata::dfa::dense::DFA::from_bytes(window).ok()?;
    Some(Ok(dfa.to_owned()))
}

/// Writes `built` to `path` through a temporary file in `dir`; errors
/// are ignored (the next process builds again).
fn write(dir: &Path, path: &Path, built: &Result<OwnedDfa, PatternError>) {
    let bytes = match built {
        Ok(dfa) => {
            let (bytes, pad) = dfa.to_bytes_native_endian();
            bytes[pad..].to_vec()
        }
        Err(PatternError::Dfa { reason, .. }) => [FAILED, reason.as_bytes()].concat(),
        // Not a determinization's result: nothing to keep.
        Err(_) => return,
    };
    write_private(dir, path, &bytes);
}

/// Writes `bytes` to `path` in `dir` (created 0700 when missing) through
/// a temporary file renamed over it, so readers never see half a file;
/// errors are ignored (the next process compiles again).
pub(crate) fn write_private(dir: &Path, path: &Path, bytes: &[u8]) {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    if builder.create(dir).is_err() {
        return;
    }
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    let written = std::fs::File::create(&temporary)
        .and_then(|mut file| file.write_all(bytes))
        .and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regexes(list: &[&str]) -> Vec<String> {
        list.iter().map(|r| (*r).to_owned()).collect()
    }

    #[test]
    fn a_cached_dfa_matches_as_the_built_one_and_skips_the_build() {
        let dir = std::env::temp_dir().join(format!("dfa-cache-test-{}", std::process::id()));
        let patterns = regexes(&[r"\brm\s+-rf\b", r"git\s+push"]);
        let build =
            |r: &[String], s: Search, l: usize| crate::automata::determinize_for_tests(r, s, l);
        let first =
            build_cached(&dir, &patterns, Search::Unanchored, 1 << 20, build).expect("built");
        let files = std::fs::read_dir(&dir).expect("cache dir").count();
        assert_eq!(files, 1);
        let second = build_cached(&dir, &patterns, Search::Unanchored, 1 << 20, |_, _, _| {
            panic!("a cached DFA is not built again")
        })
        .expect("cached");
        assert_eq!(
            first.to_bytes_native_endian(),
            second.to_bytes_native_endian()
        );
        // Another search or limit is another DFA.
        assert_ne!(
            file_name(&patterns, Search::Anchored, 1 << 20),
            file_name(&patterns, Search::Unanchored, 1 << 20)
        );
        // A torn file is a miss, rebuilt and replaced.
        let path = dir.join(file_name(&patterns, Search::Unanchored, 1 << 20));
        std::fs::write(&path, b"garbage").expect("tear");
        let rebuilt =
            build_cached(&dir, &patterns, Search::Unanchored, 1 << 20, build).expect("rebuilt");
        assert_eq!(
            first.to_bytes_native_endian(),
            rebuilt.to_bytes_native_endian()
        );
        // A failed build is kept with its reason.
        let huge = regexes(&[r"\w{50}"]);
        let failed = build_cached(&dir, &huge, Search::Unanchored, 1_000, build).unwrap_err();
        let again = build_cached(&dir, &huge, Search::Unanchored, 1_000, |_, _, _| {
            panic!("a failed build is not tried again")
        })
        .unwrap_err();
        assert_eq!(failed.to_string(), again.to_string());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
