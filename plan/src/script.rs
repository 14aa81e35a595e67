//! The script an interpreter command runs: `sh hooks/guard.sh`,
//! `python3 check.py`, `uv run tool.py`. One rule, used by `check` (a
//! warning when the script does not exist) and by the shell runtime (a
//! `spawn_failed` failure before spawning, never the interpreter's own
//! exit code, which `sh` makes 2 — a deny — when it cannot open the file).

/// Programs whose first non-option argument is a script file, by file
/// name (`/usr/bin/python3` counts as `python3`). `uv` needs `run` first.
const INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "node", "ruby", "perl", "uv",
];

/// Options after which no script file follows (the code comes inline, from
/// a module or from stdin).
const INLINE_OPTIONS: &[&str] = &["-c", "-m", "-e", "-E", "--eval", "-p", "--print", "-s", "-"];

/// File name endings a script argument has, when it is not a path with `/`.
const SCRIPT_EXTENSIONS: &[&str] = &[
    ".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl",
];

/// The script file `argv` runs, when `argv[0]` is an interpreter (`sh`,
/// `bash`, `zsh`, `dash`, `ksh`, `python`, `python3`, `node`, `ruby`,
/// `perl`, `uv run`; by file name) and its first non-option argument looks
/// like a file: it contains `/` or ends in a script extension (`.sh`,
/// `.py`, `.js`, `.rb`, `.pl`, ...). `None` otherwise, and when an option
/// says the code comes inline (`-c`, `-m`, `-e`, `-`): the rule errs
/// towards not naming a script, so it never refuses a command that would
/// have run.
///
/// The path is as written: relative paths resolve against the command's
/// working directory.
pub fn script_path<S: AsRef<str>>(argv: &[S]) -> Option<&str> {
    let (program, rest) = argv.split_first()?;
    let name = program.as_ref().rsplit('/').next().unwrap_or_default();
    if !INTERPRETERS.contains(&name) {
        return None;
    }
    let mut rest = rest.iter().map(AsRef::as_ref);
    if name == "uv" && rest.next() != Some("run") {
        return None;
    }
    let candidate = rest.find(|a| !a.starts_with('-') || INLINE_OPTIONS.contains(a))?;
    if INLINE_OPTIONS.contains(&candidate) {
        return None;
    }
    let looks_like_file =
        candidate.contains('/') || SCRIPT_EXTENSIONS.iter().any(|e| candidate.ends_with(e));
    looks_like_file.then_some(candidate)
}

/// The words of a shell-form `command` when it is one simple command that
/// [`script_path`] can judge: split as `sh` would split it (quotes
/// honoured), and `None` when any word holds something the shell would
/// expand or interpret (`$`, backquotes, globs, `~`, redirections, pipes,
/// `;`, `&`, parentheses, an assignment before the program), or the quoting
/// is unbalanced.
pub fn shell_words(command: &str) -> Option<Vec<String>> {
    const SPECIAL: &[char] = &[
        '$', '`', '*', '?', '[', '~', '<', '>', '|', ';', '&', '(', ')', '{', '}', '\n', '\\',
    ];
    if command.contains(SPECIAL) {
        return None;
    }
    let words = shlex::split(command)?;
    if words.first().is_none_or(|w| w.contains('=')) {
        return None;
    }
    Some(words)
}

/// Whether `name` is a valid environment variable name for `env.pass` /
/// `env.set`: `[A-Za-z_][A-Za-z0-9_]*` (`ENV_NAME_PATTERN` in `hooks-schema`, the JSON Schema's spelling).
pub fn valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}
