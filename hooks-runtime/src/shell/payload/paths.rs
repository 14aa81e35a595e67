//! The affected paths of a tool call: [`affected_paths`].

use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use hooks_plan::{MAX_AFFECTED_PATH_CHARS, MAX_AFFECTED_PATHS, PathDiagnostic, PathDiagnosticKind};
use serde_json::Value;

use super::ToolPathSettings;

/// The affected paths of a tool call and the findings about them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AffectedPaths {
    /// The resolved paths, at most [`MAX_AFFECTED_PATHS`], without duplicates.
    pub paths: Vec<String>,
    /// One finding per path outside the root, too long, past the cap or
    /// holding a NUL byte.
    pub diagnostics: Vec<PathDiagnostic>,
}

/// The affected paths of one tool call's arguments as dispatch resolved
/// them (relative paths from `cwd`), handed to the payloads of the hooks
/// invoked on the same arguments from the same `cwd`, so that a call is
/// resolved once per event, not once per hook.
#[derive(Debug)]
pub(crate) struct Resolved {
    /// The directory relative paths were taken from.
    pub(crate) cwd: std::path::PathBuf,
    /// What [`affected_paths`] found.
    pub(crate) paths: AffectedPaths,
}

impl AffectedPaths {
    /// Why a tool that writes its paths (and may not leave the workspace
    /// root) is refused: the first finding, whatever its kind. A path
    /// outside the root is one the tool must not write; a path left out
    /// (too long, past the cap, holding a NUL byte) is one nobody checked,
    /// so it is refused too (a future kind as well: refusing fails closed).
    pub(crate) fn write_refusal(&self) -> Option<String> {
        let d = self.diagnostics.first()?;
        let pointer = &d.pointer;
        Some(match d.kind {
            PathDiagnosticKind::OutsideRoot => format!(
                "refused: the tool writes `{}` (at `{pointer}`), outside the workspace root, and its settings do not allow paths outside it",
                d.path
            ),
            PathDiagnosticKind::TooLong => format!(
                "refused: the tool writes a path (at `{pointer}`) longer than {MAX_AFFECTED_PATH_CHARS} characters, which is not checked against the workspace root"
            ),
            PathDiagnosticKind::TooMany => format!(
                "refused: the tool writes more than {MAX_AFFECTED_PATHS} paths (at `{pointer}`); those past the {MAX_AFFECTED_PATHS}th are not checked against the workspace root"
            ),
            PathDiagnosticKind::NulByte => format!(
                "refused: the tool writes a path holding a NUL byte (at `{pointer}`), which a program may read as another path than the one checked"
            ),
            PathDiagnosticKind::NotAPath => format!(
                "refused: the tool's argument at `{pointer}` should be a path and is {}, which is not checked against the workspace root",
                article(&d.path)
            ),
            _ => format!("refused: the tool writes a path (at `{pointer}`) that is not checked"),
        })
    }
}

/// Resolves the affected paths of a tool call: the values at
/// `settings.path_pointers` in `args`, relative ones joined to `cwd`, each
/// resolved against the real file system (`..` and the symlinks of every
/// component, see `resolve`).
///
/// A pointer is RFC 6901's, where a token `*` stands for every element of
/// an array or every value of an object (`/edits/*/path`: the `path` of
/// each edit); a pointer that selects nothing (a key the call does not
/// have) is no path. Each value selected must be a path (a string) or an
/// array of paths (a `*` over a single value takes that value); anything
/// else (a number, an object, `null`, an array inside the array) is
/// flagged [`PathDiagnosticKind::NotAPath`] at its own pointer. A path that resolves outside `root` is listed and
/// flagged [`PathDiagnosticKind::OutsideRoot`]; paths holding a NUL byte,
/// paths longer than 1024 characters once resolved and entries past the
/// 16th are left out and flagged. Every entry is looked at, whatever its
/// position.
pub fn affected_paths(
    args: &Value,
    settings: &ToolPathSettings,
    cwd: &Path,
    root: &Path,
) -> AffectedPaths {
    let root = resolve(root);
    let mut out = AffectedPaths::default();
    let mut selected = Vec::new();
    for pointer in &settings.path_pointers {
        selected.clear();
        select(args, pointer, String::new(), &mut selected);
        for (at, value) in selected.drain(..) {
            let at = at.unwrap_or_else(|| pointer.clone());
            match value {
                Value::String(p) => out.add(p, &at, cwd, &root),
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        match item {
                            Value::String(p) => out.add(p, &at, cwd, &root),
                            other => out.not_a_path(format!("{at}/{i}"), other),
                        }
                    }
                }
                other => out.not_a_path(at, other),
            }
        }
    }
    out
}

/// Appends to `out` each value `pointer` selects in `value` (a `*` token
/// standing for every element or value of what precedes it), with its
/// concrete pointer: `prefix` and the rest of the way, or `None` when the
/// pointer has no `*` (it is its own concrete pointer). A `*` over a value
/// that is neither an array nor an object selects that value itself, at
/// the pointer up to the `*`.
fn select<'v>(
    value: &'v Value,
    pointer: &str,
    prefix: String,
    out: &mut Vec<(Option<String>, &'v Value)>,
) {
    let Some((head, tail)) = split_at_wildcard(pointer) else {
        if let Some(found) = value.pointer(pointer) {
            let at = (!prefix.is_empty()).then(|| prefix + pointer);
            out.push((at, found));
        }
        return;
    };
    let Some(container) = value.pointer(head) else {
        return;
    };
    let at = prefix + head;
    match container {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                select(item, tail, format!("{at}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let key = hooks_plan::automata::escape_token(key);
                select(item, tail, format!("{at}/{key}"), out);
            }
        }
        other => out.push((Some(at), other)),
    }
}

/// `pointer` split around its first `*` token: the pointer before it and
/// the one after it (`/a/*/b` → `/a`, `/b`; `/a/*` → `/a`, ``); `None`
/// without one (`/a*` has none: `*` is a token only when alone).
fn split_at_wildcard(pointer: &str) -> Option<(&str, &str)> {
    let mut start = 0;
    while let Some(found) = pointer[start..].find("/*") {
        let at = start + found;
        let tail = &pointer[at + 2..];
        if tail.is_empty() || tail.starts_with('/') {
            return Some((&pointer[..at], tail));
        }
        start = at + 2;
    }
    None
}

impl AffectedPaths {
    /// Resolves path `p` (found at `pointer`) and lists it, or flags it.
    fn add(&mut self, p: &str, pointer: &str, cwd: &Path, root: &Path) {
        let cut = |s: &str| s.chars().take(MAX_AFFECTED_PATH_CHARS).collect::<String>();
        if p.contains('\0') {
            // Resolving it would check a path no program opens.
            self.diagnostics.push(PathDiagnostic {
                kind: PathDiagnosticKind::NulByte,
                pointer: pointer.to_owned(),
                path: cut(p),
            });
            return;
        }
        let resolved = resolve(&cwd.join(p));
        let s = resolved.to_string_lossy().into_owned();
        let finding = |kind| PathDiagnostic {
            kind,
            pointer: pointer.to_owned(),
            path: cut(&s),
        };
        if s.chars().count() > MAX_AFFECTED_PATH_CHARS {
            self.diagnostics.push(finding(PathDiagnosticKind::TooLong));
            return;
        }
        if self.paths.contains(&s) {
            return;
        }
        if self.paths.len() == MAX_AFFECTED_PATHS {
            self.diagnostics.push(finding(PathDiagnosticKind::TooMany));
            return;
        }
        if !resolved.starts_with(root) {
            self.diagnostics
                .push(finding(PathDiagnosticKind::OutsideRoot));
        }
        self.paths.push(s);
    }

    /// Flags `value`, found at `pointer` where a path was expected.
    fn not_a_path(&mut self, pointer: String, value: &Value) {
        let kind = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        self.diagnostics.push(PathDiagnostic {
            kind: PathDiagnosticKind::NotAPath,
            pointer,
            path: kind.to_owned(),
        });
    }
}

/// The operator's text for a path finding.
pub(super) fn describe(d: &PathDiagnostic) -> String {
    let (pointer, path) = (&d.pointer, &d.path);
    match d.kind {
        PathDiagnosticKind::OutsideRoot => {
            format!("affected path at `{pointer}` resolves to `{path}`, outside the workspace root")
        }
        PathDiagnosticKind::TooLong => format!(
            "affected path at `{pointer}` is longer than {MAX_AFFECTED_PATH_CHARS} characters: left out"
        ),
        PathDiagnosticKind::NulByte => format!(
            "affected path `{}` at `{pointer}` holds a NUL byte: left out",
            path.replace('\0', "\\0")
        ),
        PathDiagnosticKind::NotAPath => format!(
            "affected path at `{pointer}` is {}, not a path: left out",
            article(path)
        ),
        _ => format!(
            "affected path `{path}` at `{pointer}` is past the first {MAX_AFFECTED_PATHS}: left out"
        ),
    }
}

/// A JSON type's name (`not_a_path`'s `path`) with its article.
fn article(kind: &str) -> String {
    match kind {
        "null" => "`null`".to_owned(),
        "array" | "object" => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

/// Most symlinks [`resolve`] follows for one path (Linux's limit).
const MAX_SYMLINKS: usize = 40;

/// Linux's `PATH_MAX`, NUL included: the OS refuses a longer path
/// (`ENAMETOOLONG`) without looking at any of its components.
const PATH_MAX: usize = 4096;

/// Resolves an absolute `path` as the OS would open it: `.` dropped, each
/// symlink (in any component, dangling or not) replaced by its target, `..`
/// taken against what the path resolved to so far; the components that do
/// not exist are kept as written (a `..` after one removes it). After
/// [`MAX_SYMLINKS`] symlinks the rest is appended lexically. A snapshot: the
/// file system may change afterwards.
///
/// Linear in the length of the path and of the links followed: the result
/// grows and shrinks in place, and a component is looked up (one
/// `readlink`) only while the path so far is shorter than `PATH_MAX` (the
/// OS looks nothing up in a longer one either) and exists (below a missing
/// directory nothing does, until a `..` climbs back out of it).
pub(crate) fn resolve(path: &Path) -> PathBuf {
    resolve_counting(path).0
}

/// [`resolve`], and the number of bytes of path it handed to `readlink`
/// (the work it did besides copying components).
fn resolve_counting(path: &Path) -> (PathBuf, usize) {
    let mut out = PathBuf::from("/");
    // Components still to take, the next one last.
    let mut todo: Vec<OsString> = Vec::new();
    push_front(&mut todo, path);
    let (mut followed, mut looked_up) = (0, 0);
    // Components of `out`, and the depth from which they do not exist.
    let (mut depth, mut missing_from) = (0usize, usize::MAX);
    while let Some(part) = todo.pop() {
        if part == ".." {
            if out.pop() {
                depth -= 1;
            }
            if depth < missing_from {
                missing_from = usize::MAX;
            }
            continue;
        }
        out.push(&part);
        depth += 1;
        let len = out.as_os_str().len();
        if followed == MAX_SYMLINKS || len >= PATH_MAX || depth > missing_from {
            continue;
        }
        looked_up += len;
        match std::fs::read_link(&out) {
            Ok(target) => {
                followed += 1;
                out.pop();
                depth -= 1;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                    depth = 0;
                }
                push_front(&mut todo, &target);
            }
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                missing_from = missing_from.min(depth);
            }
            // Not a link (`EINVAL`), or not readable: kept as written.
            Err(_) => {}
        }
    }
    (out, looked_up)
}

/// Puts the normal and `..` components of `path` in front of `todo` (whose
/// next component is its last).
fn push_front(todo: &mut Vec<OsString>, path: &Path) {
    for c in path.components().rev() {
        match c {
            Component::Normal(part) => todo.push(part.to_owned()),
            Component::ParentDir => todo.push("..".into()),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn settings(pointers: &[&str], writes: bool) -> ToolPathSettings {
        ToolPathSettings {
            path_pointers: pointers.iter().map(|p| (*p).to_owned()).collect(),
            allow_absolute: false,
            writes,
        }
    }

    /// A canonical temporary workspace root.
    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn dot_dot_out_of_the_root_is_resolved_and_flagged() {
        let (_dir, root) = workspace();
        let cwd = root.join("sub");
        std::fs::create_dir(&cwd).unwrap();
        let args = json!({"path": "../../etc/passwd"});
        let got = affected_paths(&args, &settings(&["/path"], false), &cwd, &root);
        let want = root.parent().unwrap().join("etc/passwd");
        assert_eq!(got.paths, vec![want.to_string_lossy().into_owned()]);
        assert_eq!(
            got.diagnostics,
            vec![PathDiagnostic {
                kind: PathDiagnosticKind::OutsideRoot,
                pointer: "/path".into(),
                path: want.to_string_lossy().into_owned(),
            }]
        );
    }

    #[test]
    fn a_symlinked_parent_is_resolved_and_flagged() {
        let (_dir, root) = workspace();
        std::os::unix::fs::symlink("/etc", root.join("linkdir")).unwrap();
        // Also through a relative link and a link chain.
        std::fs::create_dir(root.join("d")).unwrap();
        std::os::unix::fs::symlink("../linkdir", root.join("d/up")).unwrap();
        let args = json!({"paths": ["linkdir/passwd", "d/up/hosts", "d/../linkdir/x/../y"]});
        let got = affected_paths(&args, &settings(&["/paths"], false), &root, &root);
        assert_eq!(got.paths, ["/etc/passwd", "/etc/hosts", "/etc/y"]);
        assert_eq!(got.diagnostics.len(), 3, "{:?}", got.diagnostics);
        assert!(
            got.diagnostics
                .iter()
                .all(|d| d.kind == PathDiagnosticKind::OutsideRoot)
        );
    }

    #[test]
    fn a_dangling_symlink_resolves_to_its_target() {
        let (_dir, root) = workspace();
        let outside = tempfile::tempdir().unwrap();
        let target = outside.path().canonicalize().unwrap().join("new.txt");
        std::os::unix::fs::symlink(&target, root.join("out")).unwrap();
        let got = affected_paths(&json!({"p": "out"}), &settings(&["/p"], true), &root, &root);
        assert_eq!(got.paths, vec![target.to_string_lossy().into_owned()]);
        assert_eq!(got.diagnostics[0].kind, PathDiagnosticKind::OutsideRoot);
    }

    #[test]
    fn an_absolute_path_inside_the_root_is_kept_unflagged() {
        let (_dir, root) = workspace();
        std::fs::create_dir(root.join("src")).unwrap();
        std::os::unix::fs::symlink("src", root.join("alias")).unwrap();
        let abs = root.join("src/lib.rs").to_string_lossy().into_owned();
        let via_link = root.join("alias/lib.rs").to_string_lossy().into_owned();
        let args = json!({"paths": [abs, via_link, "src/./new/../lib.rs", "c"]});
        let got = affected_paths(&args, &settings(&["/paths"], true), &root, &root);
        let p = |s: &str| root.join(s).to_string_lossy().into_owned();
        assert_eq!(got.paths, vec![p("src/lib.rs"), p("c")]);
        assert!(got.diagnostics.is_empty(), "{:?}", got.diagnostics);
    }

    #[test]
    fn paths_past_the_cap_or_too_long_are_left_out_and_flagged() {
        // Every entry is looked at: the 17th and later are flagged.
        let (_dir, root) = workspace();
        let many = json!({"paths": (0..20).map(|i| format!("f{i}")).collect::<Vec<_>>()});
        let got = affected_paths(&many, &settings(&["/paths"], false), &root, &root);
        assert_eq!(got.paths.len(), MAX_AFFECTED_PATHS);
        assert_eq!(got.diagnostics.len(), 4);
        assert!(
            got.diagnostics
                .iter()
                .all(|d| d.kind == PathDiagnosticKind::TooMany)
        );
        let long = json!({"p": "x".repeat(2000)});
        let got = affected_paths(&long, &settings(&["/p"], false), &root, &root);
        assert!(got.paths.is_empty());
        assert_eq!(got.diagnostics[0].kind, PathDiagnosticKind::TooLong);
    }

    #[test]
    fn a_path_with_a_nul_byte_is_left_out_and_flagged() {
        let (_dir, root) = workspace();
        let cwd = root.join("sub");
        std::fs::create_dir(&cwd).unwrap();
        // Lexically `/etc/passwd\0/../..` is `/`: the path would resolve
        // inside the root, while a C program opens `/etc/passwd`.
        let sneaky = format!("/etc/passwd\0/../..{}/a", cwd.display());
        let got = affected_paths(&json!({"p": sneaky}), &settings(&["/p"], true), &cwd, &root);
        assert!(got.paths.is_empty(), "{:?}", got.paths);
        assert_eq!(got.diagnostics.len(), 1);
        assert_eq!(got.diagnostics[0].kind, PathDiagnosticKind::NulByte);
        assert_eq!(got.diagnostics[0].path, sneaky);
        assert!(got.write_refusal().unwrap().contains("NUL byte"));
        assert!(!describe(&got.diagnostics[0]).contains('\0'));
    }

    #[test]
    fn every_finding_refuses_a_write() {
        let (_dir, root) = workspace();
        let inside = affected_paths(&json!({"p": "a"}), &settings(&["/p"], true), &root, &root);
        assert_eq!(inside.write_refusal(), None);
        let outside = format!("{}/{}", root.parent().unwrap().display(), "x".repeat(1100));
        let long = affected_paths(
            &json!({"p": outside}),
            &settings(&["/p"], true),
            &root,
            &root,
        );
        assert_eq!(long.diagnostics[0].kind, PathDiagnosticKind::TooLong);
        assert!(long.write_refusal().unwrap().contains("longer than 1024"));
        let mut many: Vec<String> = (0..16).map(|i| format!("f{i}")).collect();
        many.push("/etc/passwd".into());
        let many = affected_paths(&json!({"p": many}), &settings(&["/p"], true), &root, &root);
        assert_eq!(many.diagnostics[0].kind, PathDiagnosticKind::TooMany);
        assert!(many.write_refusal().unwrap().contains("more than 16 paths"));
    }

    #[test]
    fn resolution_is_linear_in_the_number_of_components() {
        let (_dir, root) = workspace();
        std::fs::create_dir(root.join("d")).unwrap();
        // 200 KB, 100,000 components under the root: a walk that copies
        // and looks up the whole path so far at each component is
        // quadratic (seconds here); a generous bound, in case the count
        // below misses work.
        let flat = root.join("a/".repeat(100_000));
        let started = std::time::Instant::now();
        let (resolved, looked_up) = resolve_counting(&flat);
        let spent = started.elapsed();
        assert_eq!(resolved, flat);
        assert!(spent < std::time::Duration::from_secs(2), "{spent:?}");
        assert!(
            looked_up < 2 * PATH_MAX,
            "a missing `a` ends the lookups: {looked_up}"
        );
        // Staying in an existing directory (`d/..`), climbing into missing
        // ones and back out, growing past `PATH_MAX`: at most one lookup
        // per component, each of a path shorter than `PATH_MAX`.
        let mut mixed = root.clone().into_os_string();
        for i in 0..40_000 {
            mixed.push(["/d/..", "/m/x", "/..", "/..", "/..", "/d"][i % 6]);
        }
        let (resolved, looked_up) = resolve_counting(Path::new(&mixed));
        assert!(resolved.starts_with(root.parent().unwrap()));
        assert!(looked_up <= 60_000 * PATH_MAX, "{looked_up} bytes");
    }

    #[test]
    fn a_star_token_selects_every_element_or_value() {
        let (_dir, root) = workspace();
        let args = json!({
            "edits": [{"path": "a"}, {"path": "/etc/passwd"}, {"other": 1}],
            "files": {"x": "b", "y~/z": "/etc/hosts"},
            "one": "c",
        });
        let pointers = ["/edits/*/path", "/files/*", "/one/*", "/absent/*/path"];
        let got = affected_paths(&args, &settings(&pointers, true), &root, &root);
        let p = |s: &str| root.join(s).to_string_lossy().into_owned();
        assert_eq!(
            got.paths,
            [
                p("a"),
                "/etc/passwd".into(),
                p("b"),
                "/etc/hosts".into(),
                p("c")
            ]
        );
        let at: Vec<(&str, PathDiagnosticKind)> = got
            .diagnostics
            .iter()
            .map(|d| (d.pointer.as_str(), d.kind))
            .collect();
        // The concrete pointer of each finding, its key escaped.
        assert_eq!(
            at,
            [
                ("/edits/1/path", PathDiagnosticKind::OutsideRoot),
                ("/files/y~0~1z", PathDiagnosticKind::OutsideRoot),
            ]
        );
        assert!(got.write_refusal().unwrap().contains("/edits/1/path"));
        // `*` only alone is a token: `/a*` is the key `a*`.
        let literal = affected_paths(
            &json!({"a*": "/etc/x", "a": ["/etc/y"]}),
            &settings(&["/a*"], true),
            &root,
            &root,
        );
        assert_eq!(literal.paths, ["/etc/x"]);
        assert_eq!(split_at_wildcard("/a/*"), Some(("/a", "")));
        assert_eq!(split_at_wildcard("/a*/b/*/c/*"), Some(("/a*/b", "/c/*")));
        assert_eq!(split_at_wildcard("/a/*b"), None);
    }

    #[test]
    fn a_value_that_is_not_a_path_is_flagged_and_refuses_a_write() {
        let (_dir, root) = workspace();
        let cases = [
            (json!({"p": 7}), "/p", "number"),
            (json!({"p": {"path": "/etc/passwd"}}), "/p", "object"),
            (json!({"p": null}), "/p", "null"),
            (json!({"p": ["a", ["/etc/passwd"]]}), "/p/1", "array"),
            (json!({"p": ["a", false]}), "/p/1", "boolean"),
            (
                json!({"e": [{"p": ["/etc/passwd"]}, {"p": {}}]}),
                "/e/1/p",
                "object",
            ),
        ];
        for (args, pointer, kind) in cases {
            let pointers = ["/p", "/e/*/p"];
            let got = affected_paths(&args, &settings(&pointers, true), &root, &root);
            let flagged: Vec<&PathDiagnostic> = got
                .diagnostics
                .iter()
                .filter(|d| d.kind == PathDiagnosticKind::NotAPath)
                .collect();
            assert_eq!(flagged.len(), 1, "{args}: {:?}", got.diagnostics);
            assert_eq!(
                (flagged[0].pointer.as_str(), flagged[0].path.as_str()),
                (pointer, kind)
            );
            let refusal = got.write_refusal().unwrap();
            assert!(refusal.starts_with("refused"), "{refusal}");
            assert!(describe(flagged[0]).contains("not a path"));
        }
        // A key the call does not have is no path.
        let absent = affected_paths(&json!({"q": 1}), &settings(&["/p"], true), &root, &root);
        assert_eq!(absent, AffectedPaths::default());
    }
}
