//! The script a `run` hook runs, and the check that it exists.
//!
//! A hook whose script is missing fails at run time (the interpreter exits
//! with an error, `sh` even with status 2, which Claude Code's protocol reads
//! as a block): [`missing_scripts`] finds those hooks before anything runs,
//! and `agent-hooks check` and `hooks!` report each as a warning.

use std::path::{Path, PathBuf};

use crate::config::{Action, Config, Program};
use crate::diagnostic::{Diagnostic, Layer, Severity};
use crate::load::Compiled;

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
    script_index(argv).map(|i| argv[i].as_str())
}

/// The index in `argv` of the script [`script_of`] names.
fn script_index(argv: &[String]) -> Option<usize> {
    let program = argv.first()?;
    let name = program.rsplit('/').next().unwrap_or(program);
    if SCRIPT_INTERPRETERS.contains(&name) {
        let arg = argv.get(1)?;
        return (!arg.is_empty() && !arg.starts_with('-')).then_some(1);
    }
    program.contains('/').then_some(0)
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
    /// JSON pointer of what names the script: the `argv` element
    /// (`/hooks/2/run/argv/1`) or the `command`.
    pub pointer: String,
    /// The script as written.
    pub script: String,
    /// Where it was looked for, relative to the workspace root: the hook's
    /// `cwd` joined with the script (the script itself when absolute).
    pub looked_at: PathBuf,
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
        let (words, exec) = match &run.program {
            Program::Exec(argv) => (argv.clone(), true),
            Program::Shell(command) => match simple_words(command) {
                Some(words) => (words, false),
                None => continue,
            },
        };
        let Some(index) = script_index(&words) else {
            continue;
        };
        let script = words[index].as_str();
        let pointer = if exec {
            format!("/hooks/{i}/run/argv/{index}")
        } else {
            format!("/hooks/{i}/run/command")
        };
        let relative = match &run.cwd {
            Some(cwd) => Path::new(cwd).join(script),
            None => PathBuf::from(script),
        };
        if !workspace.join(&relative).is_file() {
            out.push(MissingScript {
                hook: i,
                pointer,
                script: script.to_owned(),
                looked_at: relative,
            });
        }
    }
    out
}

/// Code of the [`script_warnings`] finding.
pub const MISSING_SCRIPT: &str = "missing-script";

/// [`missing_scripts`] as warnings located in `source` (the config text
/// `config` was loaded from; `file` names it), one `missing-script` finding
/// per hook. Warnings, not errors: a script may be created before the agent
/// runs, and the workspace an embedding agent uses may differ from the one
/// checked here.
pub fn script_warnings(
    source: &str,
    file: &str,
    config: &Config,
    workspace: &Path,
) -> Vec<Diagnostic> {
    let missing = missing_scripts(config, workspace);
    if missing.is_empty() {
        return Vec::new();
    }
    let Ok((_, positions)) = crate::yaml::parse(source, file) else {
        return Vec::new(); // not the text `config` came from
    };
    missing
        .into_iter()
        .map(|m| {
            let pos = positions.value_pos(&m.pointer);
            let id = &config.hooks[m.hook].id;
            Diagnostic::new(
                file,
                pos.line,
                pos.column,
                &m.pointer,
                Layer::Lint,
                MISSING_SCRIPT,
                format!(
                    "hook `{id}` runs the script `{}`, which does not exist in the workspace (looked for `{}`)",
                    m.script,
                    m.looked_at.display()
                ),
            )
            .with_severity(Severity::Warning)
            .with_hint(
                "scripts resolve against the workspace root (joined with `run.cwd`); at run time a missing script is a `spawn_failed` failure under the hook's failure policy",
            )
        })
        .collect()
}

/// Adds the [`script_warnings`] of `compiled` (loaded from `source`, named
/// `file`) against `workspace` to its warnings, keeping them in position
/// order. What `agent-hooks check` (workspace: `--workspace`, else the
/// current directory, as `test` runs hooks) and `hooks!` (the package root)
/// run after [`compile_str`](crate::compile_str).
pub fn add_script_warnings(compiled: &mut Compiled, source: &str, file: &str, workspace: &Path) {
    let found = script_warnings(source, file, &compiled.config, workspace);
    if found.is_empty() {
        return;
    }
    compiled.warnings.extend(found);
    compiled.warnings.sort_by_key(|d| (d.line, d.column));
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

    #[test]
    fn missing_scripts_are_located_on_what_names_them() {
        let dir = tempfile::tempdir().expect("a temp dir");
        std::fs::create_dir_all(dir.path().join("tools/hooks")).expect("creatable");
        std::fs::write(dir.path().join("tools/hooks/ok.py"), "").expect("writable");
        std::fs::write(dir.path().join("present.sh"), "").expect("writable");
        let source = r#"version: 1
hooks:
  - id: typo
    phase: before_tool
    run: { command: sh hooks/gaurd.sh }
  - id: in-cwd
    phase: after_tool
    run: { argv: [python3, hooks/ok.py], cwd: tools }
  - id: missing-in-cwd
    phase: after_tool
    run:
      argv: [python3, hooks/missing.py]
      cwd: tools
  - id: program
    phase: stop
    run: { argv: [./nope.sh] }
  - id: present
    phase: stop
    run: { command: sh present.sh }
  - id: inline
    phase: stop
    run: { argv: [bash, -c, "exit 0"] }
  - id: expanded
    phase: stop
    run: { command: "sh $ROOT/x.sh" }
  - id: off
    phase: stop
    enabled: false
    run: { command: sh off.sh }
"#;
        let config = crate::load_str(source, "h.yaml").expect("valid");
        let found: Vec<(String, usize, String)> =
            script_warnings(source, "h.yaml", &config, dir.path())
                .into_iter()
                .map(|d| (d.pointer, d.line, d.code))
                .collect();
        assert_eq!(
            found,
            [
                (
                    "/hooks/0/run/command".to_owned(),
                    5,
                    MISSING_SCRIPT.to_owned()
                ),
                (
                    "/hooks/2/run/argv/1".to_owned(),
                    12,
                    MISSING_SCRIPT.to_owned()
                ),
                (
                    "/hooks/3/run/argv/0".to_owned(),
                    16,
                    MISSING_SCRIPT.to_owned()
                ),
            ]
        );
        let missing = missing_scripts(&config, dir.path());
        assert_eq!(missing[1].looked_at, Path::new("tools/hooks/missing.py"));
        assert!(script_warnings(source, "h.yaml", &config, &dir.path().join("tools")).len() > 3);
    }
}
