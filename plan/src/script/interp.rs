//! Interpreter command lines: each interpreter's own options, read the way
//! the interpreter reads them (`bash -e F` runs `F` with `-e` set; `node -e
//! CODE` runs inline code), and the wrappers that run another command
//! (`env`, `uv run`; the others are in `wrappers`).

use super::Word;

/// Shells, by file name: `-c` makes the first operand inline code, `-s` or
/// no operand reads the script from the input, `-o` / `-O` take a value.
pub(super) const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"];

/// What an interpreter's arguments say it runs.
#[derive(Debug)]
pub(super) enum Runs<'a> {
    /// A script file, after files it preloads (`node -r ./x.js`).
    Script {
        script: &'a Word,
        preloads: Vec<Word>,
    },
    /// Inline code the config holds (`python3 -c`, `node -e`), after files
    /// it preloads.
    Inline { preloads: Vec<Word> },
    /// A shell's `-c` code: followed as a command of its own.
    Code(&'a Word),
    /// `python -m module`.
    Module(Word),
    /// The script comes from the input (the payload): nothing to bind.
    Stdin,
    /// `uv run python …`: another command line to read.
    Delegate(&'a [Word]),
    /// What cannot be determined.
    Unknown(String),
}

/// One interpreter's options: short letters (clustered like `-Bc` when
/// `cluster`), and long options.
struct Options {
    names: &'static [&'static str],
    /// Letters whose value is inline code (the rest of the cluster or the
    /// next word).
    code: &'static str,
    /// Letters whose value is a module to run (`python -m`).
    module: &'static str,
    /// Letters whose value is a module or file loaded first (`-r`, `-M`).
    preload: &'static str,
    /// Letters that take a value (the rest of the cluster or the next word).
    value: &'static str,
    /// Letters whose optional value is the rest of the cluster (`perl -i.bak`).
    attached: &'static str,
    /// Letters that change the directory scripts resolve against.
    chdir: &'static str,
    cluster: bool,
    long_code: &'static [&'static str],
    long_preload: &'static [&'static str],
    long_value: &'static [&'static str],
}

const INTERPRETERS: &[Options] = &[
    Options {
        names: &["python", "python3", "python2", "pypy", "pypy3"],
        code: "c",
        module: "m",
        preload: "",
        value: "WX",
        attached: "",
        chdir: "",
        cluster: true,
        long_code: &[],
        long_preload: &[],
        long_value: &["--check-hash-based-pycs"],
    },
    Options {
        names: &["node", "nodejs", "bun", "deno"],
        code: "ep",
        module: "",
        preload: "r",
        value: "",
        attached: "",
        chdir: "",
        cluster: false,
        long_code: &["--eval", "--print"],
        long_preload: &["--require", "--import", "--loader", "--experimental-loader"],
        long_value: &["--input-type", "--conditions", "--env-file"],
    },
    Options {
        names: &["ruby"],
        code: "e",
        module: "",
        preload: "r",
        value: "IE",
        attached: "0iKTWxF",
        chdir: "C",
        cluster: true,
        long_code: &[],
        long_preload: &[],
        long_value: &["--encoding", "--external-encoding", "--internal-encoding"],
    },
    Options {
        names: &["perl"],
        code: "eE",
        module: "",
        preload: "Mm",
        value: "I",
        attached: "0ilxCdDVF",
        chdir: "",
        cluster: true,
        long_code: &[],
        long_preload: &[],
        long_value: &[],
    },
];

/// `uv run` options that take a value as the next word.
const UV_RUN_VALUES: &[&str] = &[
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "-w",
    "--project",
    "--package",
    "--extra",
    "--group",
    "--env-file",
    "--index",
    "--default-index",
    "--index-url",
    "--extra-index-url",
    "--find-links",
    "-f",
];

/// Whether `name` (a file name) is an interpreter this rule reads the
/// options of, besides the shells; `uv` counts (`uv run`).
pub(super) fn is_interpreter(name: &str) -> bool {
    name == "uv" || options(name).is_some()
}

fn options(name: &str) -> Option<&'static Options> {
    // `python3.12` is `python3`.
    let base = name
        .split_once('.')
        .filter(|(b, v)| b.starts_with("python") && v.chars().all(|c| c.is_ascii_digit()))
        .map_or(name, |(b, _)| b);
    INTERPRETERS.iter().find(|o| o.names.contains(&base))
}

/// A shell's arguments (`sh`, `bash`, ...; `bash -euo pipefail F`,
/// `sh -ec CODE`, `bash --norc F`).
pub(super) fn shell_args(args: &[Word]) -> Runs<'_> {
    let (mut inline, mut stdin) = (false, false);
    let mut preloads = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let t = arg.text.as_str();
        if !arg.exact && (t.starts_with('-') || t.starts_with('+')) {
            return Runs::Unknown(format!("the shell option `{t}`"));
        }
        if t == "--" || t == "-" {
            stdin |= t == "-";
            i += 1;
            break;
        }
        if t.starts_with("--") {
            if t == "--rcfile" || t == "--init-file" {
                preloads.extend(args.get(i + 1).cloned());
                i += 1;
            }
            i += 1;
            continue;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            for c in t[1..].chars() {
                match c {
                    'c' => inline = true,
                    's' => stdin = true,
                    'o' | 'O' => i += 1,
                    _ => {}
                }
            }
            i += 1;
            continue;
        }
        break;
    }
    let operand = args.get(i);
    if inline {
        return match operand {
            Some(code) => Runs::Code(code),
            None => Runs::Unknown("a shell's `-c` without code".to_owned()),
        };
    }
    match operand {
        Some(script) if !stdin => Runs::Script { script, preloads },
        _ => Runs::Stdin,
    }
}

/// The arguments of interpreter `name` (see [`is_interpreter`]).
pub(super) fn interpreter_args<'a>(name: &str, args: &'a [Word]) -> Runs<'a> {
    if name == "uv" {
        return uv_args(args);
    }
    let Some(o) = options(name) else {
        return Runs::Unknown(format!("the arguments of `{name}`"));
    };
    let mut preloads = Vec::new();
    let mut inline = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let t = arg.text.as_str();
        if t == "-" {
            return Runs::Stdin;
        }
        if t == "--" {
            i += 1;
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (key, attached) = match long.split_once('=') {
                Some((k, v)) => (k, Some(v)),
                None => (long, None),
            };
            let key = format!("--{key}");
            let is = |list: &[&str]| list.contains(&key.as_str());
            let takes = is(o.long_code) || is(o.long_preload) || is(o.long_value);
            let value = match attached {
                Some(v) => Some(Word {
                    text: v.to_owned(),
                    exact: arg.exact,
                    index: None,
                }),
                None if takes => {
                    i += 1;
                    args.get(i).cloned()
                }
                None => None,
            };
            inline |= is(o.long_code);
            if is(o.long_preload) {
                preloads.extend(value.filter(is_path));
            }
            i += 1;
            continue;
        }
        if !(t.starts_with('-') && t.len() > 1) {
            break;
        }
        let body = &t[1..];
        let mut chars = body.char_indices().peekable();
        while let Some((k, c)) = chars.next() {
            let rest = &body[k + c.len_utf8()..];
            let mut value = || {
                if rest.is_empty() {
                    i += 1;
                    args.get(i).cloned()
                } else {
                    Some(Word {
                        text: rest.to_owned(),
                        exact: arg.exact,
                        index: None,
                    })
                }
            };
            if o.code.contains(c) {
                inline = true;
                value();
                break;
            }
            if o.module.contains(c) {
                return match value() {
                    Some(module) => Runs::Module(module),
                    None => Runs::Unknown(format!("`{name} -{c}` without a module")),
                };
            }
            if o.preload.contains(c) {
                preloads.extend(value().filter(is_path));
                break;
            }
            if o.value.contains(c) {
                value();
                break;
            }
            if o.chdir.contains(c) {
                return Runs::Unknown(format!("the directory `{name} -{c}` changes to"));
            }
            if !o.cluster {
                break;
            }
            if o.attached.contains(c) {
                // Its value runs up to the next letter (`-l0e`, `-i.bak`).
                while chars.next_if(|(_, v)| !v.is_ascii_alphabetic()).is_some() {}
            }
        }
        i += 1;
    }
    if inline {
        return Runs::Inline { preloads };
    }
    match args.get(i) {
        Some(script) => Runs::Script { script, preloads },
        None => Runs::Stdin,
    }
}

/// A preloaded module that is a path (`./setup.js`), not a name the
/// interpreter finds among installed libraries.
fn is_path(w: &Word) -> bool {
    w.text.contains('/') || w.text.starts_with('.')
}

/// `uv run [options] …`: a script, another interpreter's command line, or
/// a tool from an environment (nothing to bind). Other `uv` commands run
/// no script of the workspace.
fn uv_args(args: &[Word]) -> Runs<'_> {
    if args.first().map(|w| w.text.as_str()) != Some("run") {
        return Runs::Inline {
            preloads: Vec::new(),
        };
    }
    let mut i = 1;
    while let Some(arg) = args.get(i) {
        let t = arg.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if t == "-m" || t == "--module" {
            return match args.get(i + 1) {
                Some(m) => Runs::Module(m.clone()),
                None => Runs::Unknown("`uv run -m` without a module".to_owned()),
            };
        }
        if t == "--directory" {
            return Runs::Unknown("the directory `uv run --directory` changes to".to_owned());
        }
        if !t.starts_with('-') {
            break;
        }
        if UV_RUN_VALUES.contains(&t) {
            i += 1;
        }
        i += 1;
    }
    let Some(first) = args.get(i) else {
        return Runs::Stdin;
    };
    let name = first.text.rsplit('/').next().unwrap_or_default();
    if first.exact && (SHELLS.contains(&name) || is_interpreter(name)) && !first.text.contains('/')
    {
        return Runs::Delegate(&args[i..]);
    }
    let script_like = first.text.contains('/')
        || [".py", ".pyw"].iter().any(|e| first.text.ends_with(e))
        || !first.exact;
    if script_like {
        Runs::Script {
            script: first,
            preloads: Vec::new(),
        }
    } else {
        // A tool installed in the environment (`uv run ruff`).
        Runs::Inline {
            preloads: Vec::new(),
        }
    }
}

/// `env`'s own options skipped: the directory it changes to (`-C DIR`),
/// and the command it runs (after its assignments).
///
/// # Errors
///
/// A phrase naming what cannot be followed (`env -S`).
pub(super) fn env_command(args: &[Word]) -> Result<(Option<Word>, &[Word]), String> {
    let mut dir = None;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let t = arg.text.as_str();
        match t {
            "--" => {
                i += 1;
                break;
            }
            "-u" | "--unset" => i += 2,
            "-C" | "--chdir" => {
                dir = args.get(i + 1).cloned();
                i += 2;
            }
            "-S" | "--split-string" => return Err("the command `env -S` splits".to_owned()),
            _ if t.starts_with("--chdir=") => {
                dir = Some(Word {
                    text: t["--chdir=".len()..].to_owned(),
                    exact: arg.exact,
                    index: None,
                });
                i += 1;
            }
            _ if t.starts_with("-S") || t.starts_with("--split-string=") => {
                return Err("the command `env -S` splits".to_owned());
            }
            _ if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    let rest = &args[i.min(args.len())..];
    let skip = rest
        .iter()
        .take_while(|w| super::is_assignment(&w.text))
        .count();
    Ok((dir, &rest[skip..]))
}
