//! The script a `run` hook runs, and the check that it exists.
//!
//! A hook whose script is missing fails at run time (the interpreter exits
//! with an error, `sh` even with status 2, which Claude Code's protocol reads
//! as a block): [`missing_scripts`] finds those hooks before anything runs,
//! and `agent-hooks check` and `hooks!` report each as a warning.

use std::path::Path;

use crate::config::{Action, Config, Program};

/// Interpreters whose first non-option argument is the script they run.
pub const SCRIPT_INTERPRETERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "python", "python3", "node", "ruby", "perl",
];

/// The script file `argv` names, if it names one: the program itself when
/// it is a relative path (`./hook.sh`, `scripts/check.py`; a bare name such
/// as `jq` is looked up on `PATH` and is not a script here), or the first
/// argument of an interpreter in [`SCRIPT_INTERPRETERS`] (`sh FILE`,
/// `bash FILE`, `python3 FILE`, also spelled with a path such as
/// `/usr/bin/python3`) unless it is an option (`bash -c ...`,
/// `python3 -m ...`: no file). Absolute paths are returned too.
pub fn script_of(argv: &[String]) -> Option<&str> {
    let program = argv.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    if SCRIPT_INTERPRETERS.contains(&name) {
        return argv
            .get(1)
            .map(String::as_str)
            .filter(|arg| !arg.is_empty() && !arg.starts_with('-'));
    }
    program.contains('/').then_some(program.as_str())
}

/// The argv of a shell-form `command` whose words need no shell to read: no
/// expansion, redirection, pipe, list or glob character. `None` when the
/// shell would do more than split words and strip quotes.
fn simple_words(command: &str) -> Option<Vec<String>> {
    const SHELL_SYNTAX: &[char] = &[
        '$', '`', '|', '&', ';', '<', '>', '(', ')', '*', '?', '[', '{', '~', '\n', '#', '\\',
    ];
    if command.contains(SHELL_SYNTAX) {
        return None;
    }
    shlex::split(command)
}

/// A hook whose script does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingScript {
    /// The hook's index in [`Config::hooks`].
    pub hook: usize,
    /// JSON pointer of the `argv` or `command` naming the script
    /// (`/hooks/2/run/argv`).
    pub pointer: String,
    /// The script as written.
    pub script: String,
    /// Where it was looked for: the workspace root joined with the hook's
    /// `cwd` and the script.
    pub looked_at: std::path::PathBuf,
}

/// The enabled `run` hooks of `config` whose script ([`script_of`], for a
/// shell-form `command` only when it is plain words such as
/// `sh hooks/guard.sh`) does not exist as a file, resolved as the shell
/// runtime resolves it: relative to `workspace` joined with the hook's
/// `run.cwd`. Absolute script paths are checked as they are. Reads the file
/// system (one `stat` per script); never fails.
pub fn missing_scripts(config: &Config, workspace: &Path) -> Vec<MissingScript> {
    let mut out = Vec::new();
    for (i, hook) in config.hooks.iter().enumerate() {
        let Action::Run(run) = hook.action() else {
            continue;
        };
        if !hook.enabled {
            continue;
        }
        let (words, key) = match &run.program {
            Program::Exec(argv) => (argv.clone(), "argv"),
            Program::Shell(command) => match simple_words(command) {
                Some(words) => (words, "command"),
                None => continue,
            },
        };
        let Some(script) = script_of(&words) else {
            continue;
        };
        let dir = match &run.cwd {
            Some(cwd) => workspace.join(cwd),
            None => workspace.to_path_buf(),
        };
        let path = dir.join(script);
        if !path.is_file() {
            out.push(MissingScript {
                hook: i,
                pointer: format!("/hooks/{i}/run/{key}"),
                script: script.to_owned(),
                looked_at: path,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[test]
    fn the_script_of_each_argv_shape() {
        for (words, script) in [
            (&["./hook.sh"][..], Some("./hook.sh")),
            (&["scripts/check.py", "--fast"], Some("scripts/check.py")),
            (&["jq", ".x"], None),
            (&["sh", "hooks/guard.sh"], Some("hooks/guard.sh")),
            (&["bash", "-c", "echo hi"], None),
            (&["python3", "missing.py", "a"], Some("missing.py")),
            (&["/usr/bin/python3", "x.py"], Some("x.py")),
            (&["python3", "-m", "tool"], None),
            (&["node"], None),
            (&["/opt/bin/tool"], Some("/opt/bin/tool")),
        ] {
            assert_eq!(script_of(&argv(words)), script, "{words:?}");
        }
    }

    #[test]
    fn shell_form_is_read_only_when_it_is_plain_words() {
        assert_eq!(
            simple_words("sh 'hooks/my guard.sh'"),
            Some(argv(&["sh", "hooks/my guard.sh"]))
        );
        for command in [
            "sh $DIR/guard.sh",
            "python3 x.py | tee log",
            "cd a && ./b.sh",
            "./b.sh > out",
        ] {
            assert_eq!(simple_words(command), None, "{command}");
        }
    }
}
