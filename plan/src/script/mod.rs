//! What a `run` hook's command runs: the script files of `sh hooks/guard.sh`,
//! `python3 check.py`, `cd hooks && bash -euo pipefail guard.sh`,
//! `env X=1 sh -c 'sh x.sh'`, `. lib.sh`, `python3 -m tool`, `BASH_ENV=lib.sh`,
//! `"$CLAUDE_PROJECT_DIR"/hooks/x.sh`, `nice -n 5 sh x.sh`, and what it
//! cannot name (`xargs sh`). One rule,
//! used by `check` (a warning when a script does not exist, another when it
//! cannot be determined), by trust (every file found is bound to the trusted
//! fingerprint) and by the shell runtime (a `spawn_failed` failure before
//! spawning when a script is missing, never the interpreter's own exit code,
//! which `sh` makes 2 — a deny — when it cannot open the file).

mod commands;
mod interp;
mod words;
mod wrappers;

pub use commands::{env_assignments, sub_commands};
use words::Token;

/// How deep `sh -c '…'` inside `sh -c '…'` is followed.
const MAX_DEPTH: usize = 4;

/// What kind of file a [`ScriptFile`] is, which decides whether the files
/// it sources are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScriptKind {
    /// Run by a shell (`sh F`, `bash F`) or sourced (`. F`, `source F`):
    /// its own `. file` / `source file` lines are followed.
    Shell,
    /// Run by another interpreter (`python3 F`, `node F`).
    Other,
    /// Run as a program (`./hook.sh`, `"$CLAUDE_PROJECT_DIR"/hooks/x.sh`):
    /// a shell script when its `#!` line names a shell, or it has none and
    /// ends in `.sh` / `.bash` ([`is_shell_script`]).
    Program,
}

/// A file a command runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptFile {
    /// The path, relative to the command's working directory unless
    /// absolute: a `cd dir` before it is joined in
    /// (`cd hooks && sh x.sh` gives `hooks/x.sh`), a variable the runtime
    /// sets is expanded.
    pub path: String,
    /// How it runs.
    pub kind: ScriptKind,
    /// The directory it runs in, relative to the command's working
    /// directory (`""`: that directory itself; `hooks` after `cd hooks`):
    /// where the relative paths it sources resolve.
    pub dir: String,
    /// In an exec-form `argv`, the index of the word that names it at the
    /// top level; `None` in shell form or inside `sh -c '…'`.
    pub word: Option<usize>,
}

impl ScriptFile {
    /// Whether the path reads as a file rather than a name an interpreter
    /// may look up on `PATH`: it contains `/` or ends in a script extension
    /// (`.sh`, `.py`, `.js`, ...). Only such a path is refused as missing
    /// before spawning.
    pub fn looks_like_file(&self) -> bool {
        const EXTENSIONS: &[&str] = &[
            ".sh", ".bash", ".zsh", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl",
        ];
        self.path.contains('/') || EXTENSIONS.iter().any(|e| self.path.ends_with(e))
    }
}

/// What a command runs, as far as this rule can tell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandScripts {
    /// The files it runs, sources or preloads, in the order named.
    pub files: Vec<ScriptFile>,
    /// `python -m` modules: the module name and the directory (relative to
    /// the working directory, `""` for itself) it runs in, where the module
    /// file is looked for.
    pub modules: Vec<(String, String)>,
    /// What cannot be determined, each a phrase naming it ("the program
    /// `$TOOL`", "the script `$DIR/x.sh`", "a here-document"); empty when
    /// every file the command runs is in `files` or `modules` (or it runs
    /// only programs found on `PATH` and inline code, which the config
    /// itself holds).
    pub unknown: Vec<String>,
}

/// The files `command` (shell form: what `sh -c` runs) runs. `var` gives
/// the value of each variable the runtime sets for the hook (its `env.set`,
/// `CLAUDE_PROJECT_DIR` for `protocol: claude`); every other expansion is
/// unknown.
pub fn shell_scripts(command: &str, var: &dyn Fn(&str) -> Option<String>) -> CommandScripts {
    let mut out = CommandScripts::default();
    shell(command, var, "", 0, &mut out);
    out
}

/// The files exec-form `argv` runs (see [`shell_scripts`]; the words are
/// taken as they are, no variable is expanded).
pub fn exec_scripts<S: AsRef<str>>(
    argv: &[S],
    var: &dyn Fn(&str) -> Option<String>,
) -> CommandScripts {
    let words: Vec<Word> = argv
        .iter()
        .enumerate()
        .map(|(i, w)| Word {
            text: w.as_ref().to_owned(),
            exact: true,
            index: Some(i),
        })
        .collect();
    let mut out = CommandScripts::default();
    let mut cwd = Some(String::new());
    Walk {
        var,
        depth: 0,
        out: &mut out,
    }
    .simple(&words, &mut cwd);
    out
}

/// The files a shell script's text `source` sources (`. file`,
/// `source file`, on a line of their own or after `;`, `&&`, `then`, ...),
/// paths relative to the working directory the script runs in; `unknown`
/// names a sourced path that cannot be determined. Lines that do not split
/// (a here-document's body, an unbalanced quote) are skipped unless they
/// source something.
pub fn sourced_files(source: &str, var: &dyn Fn(&str) -> Option<String>) -> CommandScripts {
    let mut out = CommandScripts::default();
    for line in source.lines() {
        let Ok(tokens) = words::tokens(line, var) else {
            let trimmed = line.trim_start();
            if trimmed.starts_with(". ") || trimmed.starts_with("source ") {
                out.unknown
                    .push(format!("the file sourced by `{}`", trimmed));
            }
            continue;
        };
        for command in tokens.split(|t| matches!(t, Token::Separator | Token::Open | Token::Close))
        {
            let mut words = command
                .iter()
                .filter_map(Word::of)
                .skip_while(|w| w.exact && is_reserved(&w.text));
            let Some(first) = words.next() else { continue };
            if first.exact && matches!(first.text.as_str(), "." | "source") {
                match words.next() {
                    Some(w) if w.exact => out.files.push(ScriptFile {
                        path: w.text,
                        kind: ScriptKind::Shell,
                        dir: String::new(),
                        word: None,
                    }),
                    Some(w) => out.unknown.push(format!("the sourced file `{}`", w.text)),
                    None => {}
                }
            }
        }
    }
    out
}

/// Whether a file run as a program is a shell script whose sources are
/// followed: its `#!` line names `sh`, `bash`, `zsh`, `dash` or `ksh`
/// (also through `env`), or it has no `#!` line and `path` ends in `.sh`
/// or `.bash`.
pub fn is_shell_script(path: &str, bytes: &[u8]) -> bool {
    let Some(line) = bytes.strip_prefix(b"#!") else {
        return path.ends_with(".sh") || path.ends_with(".bash");
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    line.split_whitespace()
        .filter(|w| !w.starts_with('-'))
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .find(|w| *w != "env")
        .is_some_and(|w| interp::SHELLS.contains(&w))
}

/// One word of a simple command.
#[derive(Debug, Clone)]
struct Word {
    text: String,
    exact: bool,
    /// The index in an exec-form `argv` (top level only).
    index: Option<usize>,
}

impl Word {
    fn of(token: &Token) -> Option<Word> {
        match token {
            Token::Word { text, exact } => Some(Word {
                text: text.clone(),
                exact: *exact,
                index: None,
            }),
            _ => None,
        }
    }
}

/// Walks `command` (shell text), starting in `cwd` (relative to the hook's
/// working directory).
fn shell(
    command: &str,
    var: &dyn Fn(&str) -> Option<String>,
    cwd: &str,
    depth: usize,
    out: &mut CommandScripts,
) {
    if depth > MAX_DEPTH {
        out.unknown.push("commands nested too deep".to_owned());
        return;
    }
    let tokens = match words::tokens(command, var) {
        Ok(tokens) => tokens,
        Err(words::Unbalanced) => {
            out.unknown
                .push("a command with unbalanced quotes".to_owned());
            return;
        }
    };
    let mut walk = Walk { var, depth, out };
    let mut cwd = Some(cwd.to_owned());
    // The working directories to return to when a subshell ends.
    let mut outer: Vec<Option<String>> = Vec::new();
    let mut command: Vec<&Token> = Vec::new();
    for token in &tokens {
        match token {
            Token::Word { .. } | Token::Input => {
                command.push(token);
                continue;
            }
            Token::Opaque(what) => walk.out.unknown.push((*what).to_owned()),
            Token::Separator | Token::Open | Token::Close => {}
        }
        walk.command(&command, &mut cwd);
        command.clear();
        match token {
            Token::Open => outer.push(cwd.clone()),
            Token::Close => cwd = outer.pop().unwrap_or(None),
            _ => {}
        }
    }
    walk.command(&command, &mut cwd);
}

/// The state of one walk over commands.
struct Walk<'a> {
    var: &'a dyn Fn(&str) -> Option<String>,
    depth: usize,
    out: &'a mut CommandScripts,
}

impl Walk<'_> {
    /// One simple command's tokens (words, and `<` where the input is
    /// redirected).
    fn command(&mut self, tokens: &[&Token], cwd: &mut Option<String>) {
        let words: Vec<Word> = tokens.iter().filter_map(|t| Word::of(t)).collect();
        if tokens.contains(&&Token::Input) {
            // `sh < file` runs the file; other input is data.
            let program = words
                .first()
                .map(|w| w.text.rsplit('/').next().unwrap_or(""));
            if program.is_some_and(|p| interp::SHELLS.contains(&p) || interp::is_interpreter(p)) {
                self.out
                    .unknown
                    .push("a script redirected into an interpreter".to_owned());
                return;
            }
        }
        self.simple(&words, cwd);
    }

    /// One simple command `words`, run in `cwd` (`None`: a `cd` this rule
    /// could not follow); a `cd` updates it.
    fn simple(&mut self, words: &[Word], cwd: &mut Option<String>) {
        // Assignments before the program (`FOO=1 sh x.sh`) do not change
        // what runs (a `PATH=` one aside, which this rule does not model),
        // nor do reserved words (`then sh x.sh`, `{ sh x.sh; }`).
        let start = words
            .iter()
            .position(|w| !(is_assignment(&w.text) || w.exact && is_reserved(&w.text)))
            .unwrap_or(words.len());
        for assignment in &words[..start] {
            self.startup_file(assignment, cwd);
        }
        let words = &words[start..];
        let Some((program, args)) = words.split_first() else {
            return;
        };
        if !program.exact {
            self.out
                .unknown
                .push(format!("the program `{}`", program.text));
            return;
        }
        if let Some(wrapped) = wrappers::wrapped(&program.text, args) {
            match wrapped {
                wrappers::Wrapped::Command(rest) => self.simple(rest, cwd),
                wrappers::Wrapped::Nothing => {}
                wrappers::Wrapped::Unknown(why) => self.out.unknown.push(why),
            }
            return;
        }
        let name = program.text.rsplit('/').next().unwrap_or_default();
        match name {
            "cd" if program.text == "cd" => {
                *cwd = match args.first() {
                    Some(dir) if dir.exact && args.len() == 1 && dir.text != "-" => {
                        cwd.as_ref().map(|c| join(c, &dir.text))
                    }
                    _ => None,
                };
            }
            "." | "source" if program.text == name => {
                if let Some(file) = args.first() {
                    self.file(file, ScriptKind::Shell, cwd);
                }
            }
            "env" => {
                let rest = interp::env_command(args);
                match rest {
                    Ok((dir, rest)) => {
                        for assignment in &args[..args.len() - rest.len()] {
                            if is_assignment(&assignment.text) {
                                self.startup_file(assignment, cwd);
                            }
                        }
                        let mut inner = match dir {
                            Some(dir) if dir.exact => cwd.as_ref().map(|c| join(c, &dir.text)),
                            Some(_) => None,
                            None => cwd.clone(),
                        };
                        self.simple(rest, &mut inner);
                    }
                    Err(why) => self.out.unknown.push(why),
                }
            }
            _ if interp::SHELLS.contains(&name) => match interp::shell_args(args) {
                interp::Runs::Code(code) => {
                    if code.exact {
                        let here = cwd.clone();
                        match here {
                            Some(here) => {
                                shell(&code.text, self.var, &here, self.depth + 1, self.out)
                            }
                            None => self.out.unknown.push(format!(
                                "what `{}` runs after a `cd` that cannot be followed",
                                program.text
                            )),
                        }
                    } else {
                        self.out
                            .unknown
                            .push(format!("the code `{}` runs", program.text));
                    }
                }
                runs => self.runs(program, runs, ScriptKind::Shell, cwd),
            },
            _ if interp::is_interpreter(name) => {
                let runs = interp::interpreter_args(name, args);
                if let interp::Runs::Delegate(rest) = runs {
                    self.simple(rest, cwd);
                } else {
                    self.runs(program, runs, ScriptKind::Other, cwd);
                }
            }
            _ if program.text.contains('/') => self.file(program, ScriptKind::Program, cwd),
            // A program found on `PATH` (or a builtin): not the
            // workspace's to bind.
            _ => {}
        }
    }

    /// Records what an interpreter's arguments say it runs.
    fn runs(
        &mut self,
        program: &Word,
        runs: interp::Runs<'_>,
        kind: ScriptKind,
        cwd: &Option<String>,
    ) {
        match runs {
            interp::Runs::Script { script, preloads } => {
                for preload in preloads {
                    self.file(&preload, kind, cwd);
                }
                self.file(script, kind, cwd);
            }
            interp::Runs::Inline { preloads } => {
                for preload in preloads {
                    self.file(&preload, kind, cwd);
                }
            }
            interp::Runs::Module(module) => match (module.exact, cwd) {
                (true, Some(dir)) => self.out.modules.push((module.text.clone(), dir.clone())),
                _ => self
                    .out
                    .unknown
                    .push(format!("the module `{}`", module.text)),
            },
            interp::Runs::Stdin => self.out.unknown.push(format!(
                "the script `{}` reads from its input",
                program.text
            )),
            interp::Runs::Code(_) | interp::Runs::Delegate(_) => {}
            interp::Runs::Unknown(why) => self.out.unknown.push(why),
        }
    }

    /// A `BASH_ENV=FILE` assignment in the command: bash sources FILE
    /// before it runs a non-interactive shell (a script, `bash -c`), so
    /// FILE runs with the command whatever its program; a value with an
    /// expansion is unknown. (The runtime never passes a `BASH_ENV` of its
    /// own: `env.pass` and `env.set` drop it.)
    fn startup_file(&mut self, assignment: &Word, cwd: &Option<String>) {
        let Some(value) = assignment.text.strip_prefix("BASH_ENV=") else {
            return;
        };
        if value.is_empty() {
            return;
        }
        let file = Word {
            text: value.to_owned(),
            exact: assignment.exact,
            index: None,
        };
        self.file(&file, ScriptKind::Shell, cwd);
    }

    /// Records `word` as a file of `kind` run in `cwd`.
    fn file(&mut self, word: &Word, kind: ScriptKind, cwd: &Option<String>) {
        match cwd {
            Some(dir) if word.exact => self.out.files.push(ScriptFile {
                path: join(dir, &word.text),
                kind,
                dir: dir.clone(),
                word: word.index.filter(|_| self.depth == 0),
            }),
            Some(_) => self.out.unknown.push(format!("the script `{}`", word.text)),
            None => self.out.unknown.push(format!(
                "the script `{}` after a `cd` that cannot be followed",
                word.text
            )),
        }
    }
}

/// `dir` joined with `path` (`path` itself when absolute or `dir` empty).
fn join(dir: &str, path: &str) -> String {
    let path = path
        .strip_prefix("./")
        .filter(|_| !dir.is_empty())
        .unwrap_or(path);
    if dir.is_empty() || path.starts_with('/') {
        path.to_owned()
    } else if dir.ends_with('/') {
        format!("{dir}{path}")
    } else {
        format!("{dir}/{path}")
    }
}

/// Whether `word` is a reserved word that may start a command before
/// another command (`if`, `then`, `{`, `!`, ...).
fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "if" | "then" | "else" | "elif" | "do" | "while" | "until" | "{" | "!"
    )
}

/// Whether `word` is a shell assignment `NAME=value`.
fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(name, _)| valid_env_name(name))
}

/// Whether `name` is a valid environment variable name for `env.pass` /
/// `env.set`: `[A-Za-z_][A-Za-z0-9_]*` (`ENV_NAME_PATTERN` in `hooks-schema`, the JSON Schema's spelling).
pub fn valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests;
