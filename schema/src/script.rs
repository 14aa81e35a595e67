//! The script an interpreter command runs: `sh hooks/guard.sh`,
//! `python3 check.py`, `uv run tool.py`. One rule, used by `check` (a
//! warning when the script does not exist) and by the shell runtime (a
//! `spawn_failed` failure before spawning, never the interpreter's own
//! exit code, which `sh` makes 2 — a deny — when it cannot open the file).

use std::path::{Path, PathBuf};

use crate::config::{Action, Config, Program};
use crate::diagnostic::{Diagnostic, Layer, Severity};
use crate::load::Compiled;
use crate::yaml::Anchor;
pub use hooks_plan::{script_path, shell_words};

/// The script a `run` hook names (see [`hook_scripts`]); a
/// [`MissingScript`] when it does not exist.
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

/// The enabled `run` hooks of `config` whose script — [`script_path`] of
/// the argv (of a shell-form `command` only when [`shell_words`] splits it,
/// such as `sh hooks/guard.sh`), or the program itself when it is a
/// relative or absolute path such as `./hook.sh` — does not exist as a file, resolved as the shell
/// runtime resolves it: relative to `workspace` joined with the hook's
/// `run.cwd`. Absolute script paths are checked as they are. Reads the file
/// system (one `stat` per script); never fails.
pub fn missing_scripts(config: &Config, workspace: &Path) -> Vec<MissingScript> {
    hook_scripts(config)
        .into_iter()
        .filter(|s| !workspace.join(&s.looked_at).is_file())
        .collect()
}

/// The script of every enabled `run` hook of `config` that names one (the
/// rule of [`missing_scripts`]), whether it exists or not, in hook order.
/// Does not touch the file system.
pub fn hook_scripts(config: &Config) -> Vec<MissingScript> {
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
            Program::Shell(command) => match shell_words(command) {
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
        out.push(MissingScript {
            hook: i,
            pointer,
            script: script.to_owned(),
            looked_at: relative,
        });
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
            let id = &config.hooks[m.hook].id;
            positions
                .error_at(
                    file,
                    &m.pointer,
                    Anchor::Value,
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

/// Code of the [`cwd_warnings`] finding.
pub const CWD_ESCAPES_WORKSPACE: &str = "cwd-escapes-workspace";

/// A warning per enabled `run` hook whose `run.cwd` exists under
/// `workspace` but resolves (symlinks followed) outside it: the shell
/// runtime canonicalizes the working directory and refuses one outside the
/// workspace root (a `spawn_failed` failure), so the hook could never run.
/// Located on the `cwd` value in `source` (`file` names it). Warnings, not
/// errors, like [`script_warnings`]: they depend on the file system of the
/// workspace checked. A `cwd` that is outside as written is already an
/// error of the config itself (`cwd-outside-workspace`).
pub fn cwd_warnings(
    source: &str,
    file: &str,
    config: &Config,
    workspace: &Path,
) -> Vec<Diagnostic> {
    let Ok(root) = workspace.canonicalize() else {
        return Vec::new();
    };
    let escaping: Vec<(usize, &str, PathBuf)> = config
        .hooks
        .iter()
        .enumerate()
        .filter(|(_, hook)| hook.enabled)
        .filter_map(|(i, hook)| match hook.action() {
            Action::Run(run) => run.cwd.as_deref().map(|cwd| (i, cwd)),
            _ => None,
        })
        .filter_map(|(i, cwd)| {
            let resolved = root.join(cwd).canonicalize().ok()?;
            (!resolved.starts_with(&root)).then_some((i, cwd, resolved))
        })
        .collect();
    if escaping.is_empty() {
        return Vec::new();
    }
    let Ok((_, positions)) = crate::yaml::parse(source, file) else {
        return Vec::new();
    };
    escaping
        .into_iter()
        .map(|(i, cwd, resolved)| {
            let id = &config.hooks[i].id;
            positions
                .error_at(
                    file,
                    &format!("/hooks/{i}/run/cwd"),
                    Anchor::Value,
                    Layer::Lint,
                    CWD_ESCAPES_WORKSPACE,
                    format!(
                        "hook `{id}`: `cwd` `{cwd}` resolves to `{}`, outside the workspace root `{}` (through a symlink)",
                        resolved.display(),
                        root.display()
                    ),
                )
                .with_severity(Severity::Warning)
                .with_hint(
                    "the runtime resolves symlinks and refuses a working directory outside the workspace root: the hook fails as `spawn_failed` under its failure policy",
                )
        })
        .collect()
}

/// Adds the [`script_warnings`] and [`cwd_warnings`] of `compiled` (loaded
/// from `source`, named `file`) against `workspace` to its warnings,
/// keeping them in position order. What `agent-hooks check` (workspace: `--workspace`, else the
/// current directory, as `test` runs hooks) and `hooks!` (the package root)
/// run after [`compile_str`](crate::compile_str).
pub fn add_script_warnings(compiled: &mut Compiled, source: &str, file: &str, workspace: &Path) {
    let mut found = script_warnings(source, file, &compiled.config, workspace);
    found.extend(cwd_warnings(source, file, &compiled.config, workspace));
    if found.is_empty() {
        return;
    }
    compiled.warnings.extend(found);
    compiled.warnings.sort_by_key(|d| (d.line, d.column));
}

/// The index in `argv` of the script [`missing_scripts`] checks: the one
/// [`script_path`] names, else the program when it is a path (`./hook.sh`;
/// a bare name such as `jq` is looked up on `PATH`).
fn script_index(argv: &[String]) -> Option<usize> {
    if let Some(script) = script_path(argv) {
        return argv.iter().position(|a| std::ptr::eq(a.as_str(), script));
    }
    argv.first().filter(|p| p.contains('/')).map(|_| 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreters_name_their_script() {
        assert_eq!(
            script_path(&["sh", "hooks/guard.sh"]),
            Some("hooks/guard.sh")
        );
        assert_eq!(
            script_path(&["/usr/bin/python3", "check.py"]),
            Some("check.py")
        );
        assert_eq!(script_path(&["bash", "-x", "run.sh"]), Some("run.sh"));
        assert_eq!(script_path(&["uv", "run", "--quiet", "a/b"]), Some("a/b"));
        assert_eq!(script_path(&["node", "x.mjs", "arg"]), Some("x.mjs"));
    }

    #[test]
    fn inline_code_and_other_programs_name_none() {
        assert_eq!(script_path(&["sh", "-c", "x.sh"]), None);
        assert_eq!(script_path(&["python3", "-m", "tool.py"]), None);
        assert_eq!(script_path(&["python3", "-W", "ignore"]), None);
        assert_eq!(script_path(&["uv", "pip", "x.py"]), None);
        assert_eq!(script_path(&["jq", "f.sh"]), None);
        assert_eq!(script_path(&["sh"]), None);
        assert_eq!(script_path::<&str>(&[]), None);
    }

    #[test]
    fn only_simple_commands_are_split() {
        assert_eq!(
            shell_words("sh 'hooks/my guard.sh' x"),
            Some(vec!["sh".into(), "hooks/my guard.sh".into(), "x".into()])
        );
        assert_eq!(shell_words("sh \"$CLAUDE_PROJECT_DIR\"/x.sh"), None);
        assert_eq!(shell_words("sh x.sh | tee log"), None);
        assert_eq!(shell_words("FOO=1 sh x.sh"), None);
        assert_eq!(shell_words("sh 'unbalanced"), None);
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
