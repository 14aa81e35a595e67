//! The files a `run` hook runs ([`hooks_plan::script`] reads its command):
//! `check`'s warnings when a script does not exist or cannot be
//! determined, and the files trust binds ([`hook_bindings`]).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use crate::config::{Action, Config, Program, Run};
use crate::diagnostic::{Diagnostic, Layer, Severity};
use crate::load::Compiled;
use crate::yaml::Anchor;
use hooks_plan::script::{self, CommandScripts, ScriptKind};

/// How deep sourced files are followed (a script sourcing a file sourcing
/// a file ...).
const MAX_SOURCE_DEPTH: usize = 8;

/// The script a `run` hook names (see [`hook_scripts`]); a
/// [`MissingScript`] when it does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingScript {
    /// The hook's index in [`Config::hooks`].
    pub hook: usize,
    /// JSON pointer of what names the script: the `argv` element
    /// (`/hooks/2/run/argv/1`) or the `command`.
    pub pointer: String,
    /// The script as written (a `cd` before it joined, a variable the
    /// runtime sets expanded).
    pub script: String,
    /// Where it was looked for, relative to the workspace root: the hook's
    /// `cwd` joined with the script (the script itself when absolute).
    pub looked_at: PathBuf,
}

/// The enabled `run` hooks of `config` whose script — a file
/// [`hooks_plan::script`] finds in the command that reads as a file (it
/// contains `/` or ends in a script extension: `sh hooks/guard.sh`,
/// `cd hooks && ./guard.sh`, `"$CLAUDE_PROJECT_DIR"/hooks/x.sh`) — does not
/// exist as a file, resolved as the shell runtime resolves it: relative to
/// `workspace` joined with the hook's `run.cwd`. Absolute script paths are
/// checked as they are. Reads the file system (one `stat` per script);
/// never fails.
pub fn missing_scripts(config: &Config, workspace: &Path) -> Vec<MissingScript> {
    hook_scripts(config, workspace)
        .into_iter()
        .filter(|s| !workspace.join(&s.looked_at).is_file())
        .collect()
}

/// The scripts of every enabled `run` hook of `config` that read as files
/// (the rule of [`missing_scripts`]), whether they exist or not, in hook
/// order; `workspace` is the value of `CLAUDE_PROJECT_DIR` for
/// `protocol: claude` hooks. Does not touch the file system.
pub fn hook_scripts(config: &Config, workspace: &Path) -> Vec<MissingScript> {
    let mut out = Vec::new();
    for (i, run) in enabled_runs(config) {
        let found = command_scripts(run, workspace);
        for file in found.files.iter().filter(|f| f.looks_like_file()) {
            let pointer = match (&run.program, file.word) {
                (Program::Exec(_), Some(w)) => format!("/hooks/{i}/run/argv/{w}"),
                (Program::Exec(_), None) => format!("/hooks/{i}/run/argv"),
                (Program::Shell(_), _) => format!("/hooks/{i}/run/command"),
            };
            out.push(MissingScript {
                hook: i,
                pointer,
                script: file.path.clone(),
                looked_at: under_cwd(run, &file.path),
            });
        }
    }
    out
}

/// The files one enabled `run` hook runs, as trust binds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookBinding {
    /// The hook's index in [`Config::hooks`].
    pub hook: usize,
    /// Every file it runs: its scripts, the files a shell script among them
    /// sources (`. file`, `source file`, followed to a depth of 8), the
    /// file of a `python -m` module found in its directory; absolute
    /// (lexically normal), once each, in the order found.
    pub files: Vec<BoundFile>,
    /// What it runs that cannot be determined, each a phrase naming it
    /// (empty when every file is bound).
    pub unbound: Vec<String>,
}

/// A file a hook runs and the digest of its bytes as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundFile {
    /// Absolute, lexically normal (`a/./b` is `a/b`).
    pub path: PathBuf,
    /// [`hooks_plan::file_digest`] of the bytes read; `None` when the file
    /// could not be read (it does not exist).
    pub digest: Option<String>,
}

/// What every enabled `run` hook of `config` runs, resolved against the
/// workspace root `workspace` (absolute) and the hook's `run.cwd`, each
/// file read once (the digest is of the bytes that were examined for
/// `source` lines). Variables the runtime sets are expanded: the hook's
/// `env.set`, and `CLAUDE_PROJECT_DIR` (the workspace root) for
/// `protocol: claude` unless `env.set` names it.
pub fn hook_bindings(config: &Config, workspace: &Path) -> Vec<HookBinding> {
    let mut out = Vec::new();
    for (i, run) in enabled_runs(config) {
        let var = runtime_var(run, workspace);
        let found = command_scripts(run, workspace);
        let cwd = normal(&workspace.join(run.cwd.as_deref().unwrap_or("")));
        let mut binding = HookBinding {
            hook: i,
            files: Vec::new(),
            unbound: found.unknown.clone(),
        };
        let mut seen = BTreeSet::new();
        for file in &found.files {
            let dir = normal(&cwd.join(&file.dir));
            let path = normal(&cwd.join(&file.path));
            let path = path.to_string_lossy();
            bind(&dir, &path, file.kind, &var, 0, &mut seen, &mut binding);
        }
        for (module, dir) in &found.modules {
            let dir = cwd.join(dir);
            let base = dir.join(module.replace('.', "/"));
            let candidates = [base.with_extension("py"), base.join("__main__.py")];
            match candidates.iter().find(|c| c.is_file()) {
                Some(path) => bind(
                    &dir,
                    &path.to_string_lossy(),
                    ScriptKind::Other,
                    &var,
                    0,
                    &mut seen,
                    &mut binding,
                ),
                None => binding.unbound.push(format!(
                    "the module `{module}` (not found in `{}`; an installed module is not bound)",
                    dir.display()
                )),
            }
        }
        out.push(binding);
    }
    out
}

/// Reads `path` (relative to `dir`), binds it, and follows the files it
/// sources when it is a shell script.
fn bind(
    dir: &Path,
    path: &str,
    kind: ScriptKind,
    var: &dyn Fn(&str) -> Option<String>,
    depth: usize,
    seen: &mut BTreeSet<PathBuf>,
    binding: &mut HookBinding,
) {
    let full = normal(&dir.join(path));
    if !seen.insert(full.clone()) {
        return;
    }
    let bytes = std::fs::read(&full).ok();
    binding.files.push(BoundFile {
        path: full,
        digest: bytes.as_deref().map(hooks_plan::file_digest),
    });
    let Some(bytes) = bytes else { return };
    let shell = match kind {
        ScriptKind::Shell => true,
        ScriptKind::Program => script::is_shell_script(path, &bytes),
        ScriptKind::Other => false,
    };
    if !shell {
        return;
    }
    if depth >= MAX_SOURCE_DEPTH {
        binding.unbound.push(format!(
            "files sourced deeper than {MAX_SOURCE_DEPTH} levels"
        ));
        return;
    }
    let sourced = script::sourced_files(&String::from_utf8_lossy(&bytes), var);
    binding.unbound.extend(
        sourced
            .unknown
            .into_iter()
            .map(|u| format!("{u} in `{path}`")),
    );
    // A sourced file runs in the same shell: relative paths resolve
    // against the directory the script runs in.
    for file in sourced.files {
        bind(
            dir,
            &file.path,
            ScriptKind::Shell,
            var,
            depth + 1,
            seen,
            binding,
        );
    }
}

/// The enabled `run` hooks of `config`, with their index.
fn enabled_runs(config: &Config) -> impl Iterator<Item = (usize, &Run)> {
    config.hooks.iter().enumerate().filter_map(|(i, hook)| {
        let Action::Run(run) = hook.action() else {
            return None;
        };
        hook.enabled.then_some((i, run))
    })
}

/// What `run`'s command runs ([`hooks_plan::script`]).
fn command_scripts(run: &Run, workspace: &Path) -> CommandScripts {
    let var = runtime_var(run, workspace);
    match &run.program {
        Program::Exec(argv) => script::exec_scripts(argv, &var),
        Program::Shell(command) => script::shell_scripts(command, &var),
    }
}

/// The variables the runtime sets for `run`: its `env.set`, and
/// `CLAUDE_PROJECT_DIR` (the workspace root) for `protocol: claude`.
fn runtime_var<'a>(run: &'a Run, workspace: &'a Path) -> impl Fn(&str) -> Option<String> + 'a {
    move |name| {
        if let Some(value) = run.env.set.get(name) {
            return Some(value.clone());
        }
        run.protocol
            .project_dir_vars()
            .contains(&name)
            .then(|| workspace.to_string_lossy().into_owned())
    }
}

/// `path` under the hook's `cwd` (relative to the workspace root).
fn under_cwd(run: &Run, path: &str) -> PathBuf {
    match &run.cwd {
        Some(cwd) => Path::new(cwd).join(path),
        None => PathBuf::from(path),
    }
}

/// `path` without `.` components, and `..` applied lexically.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push(c);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Code of the finding for a `run` hook whose files trust cannot all bind.
pub const UNBOUND_SCRIPT: &str = "unbound-script";

/// One `unbound-script` warning per enabled `run` hook of `compiled`
/// (loaded from `source`, named `file`) that runs something
/// [`hook_bindings`] cannot determine, naming it; added to its warnings in
/// position order. What `agent-hooks check` and `agent-hooks trust` show
/// (`trust --strict` refuses such a config): trust cannot bind what it
/// cannot name.
pub fn add_binding_warnings(compiled: &mut Compiled, source: &str, file: &str, workspace: &Path) {
    let workspace = std::path::absolute(workspace).unwrap_or_else(|_| workspace.to_path_buf());
    let unbound: Vec<HookBinding> = hook_bindings(&compiled.config, &workspace)
        .into_iter()
        .filter(|b| !b.unbound.is_empty())
        .collect();
    if unbound.is_empty() {
        return;
    }
    let Ok((_, positions)) = crate::yaml::parse(source, file) else {
        return;
    };
    for binding in unbound {
        let id = &compiled.config.hooks[binding.hook].id;
        let Action::Run(run) = compiled.config.hooks[binding.hook].action() else {
            continue;
        };
        let pointer = match run.program {
            Program::Exec(_) => format!("/hooks/{}/run/argv", binding.hook),
            Program::Shell(_) => format!("/hooks/{}/run/command", binding.hook),
        };
        compiled.warnings.push(
            positions
                .error_at(
                    file,
                    &pointer,
                    Anchor::Value,
                    Layer::Lint,
                    UNBOUND_SCRIPT,
                    format!(
                        "hook `{id}` runs what trust cannot bind: {}",
                        binding.unbound.join("; ")
                    ),
                )
                .with_severity(Severity::Warning)
                .with_hint(
                    "trust binds the files a command names literally or through variables the runtime sets (`env.set`, `CLAUDE_PROJECT_DIR` for `protocol: claude`); an edit to anything else runs without asking again, and `agent-hooks trust --strict` refuses the config",
                ),
        );
    }
    compiled.warnings.sort_by_key(|d| (d.line, d.column));
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn bindings_name_what_they_cannot_bind() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let ws = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(ws.join("hooks")).expect("mkdir");
        std::fs::write(
            ws.join("hooks/x.sh"),
            "#!/bin/bash\n. \"$CLAUDE_PROJECT_DIR\"/hooks/lib.sh\n. \"$(dirname \"$0\")\"/dyn.sh\n",
        )
        .expect("script");
        std::fs::write(ws.join("hooks/lib.sh"), "true\n").expect("lib");
        let source = r#"version: 1
hooks:
  - id: claude
    phase: stop
    run: { command: '"$CLAUDE_PROJECT_DIR"/hooks/x.sh', protocol: claude }
  - id: module
    phase: stop
    run: { command: python3 -m not_here }
  - id: native
    phase: stop
    run: { command: '"$CLAUDE_PROJECT_DIR"/hooks/x.sh' }
"#;
        let config = crate::load_str(source, "h.yaml").expect("valid");
        let bindings = hook_bindings(&config, &ws);
        let files: Vec<&Path> = bindings[0].files.iter().map(|f| f.path.as_path()).collect();
        assert_eq!(files, [ws.join("hooks/x.sh"), ws.join("hooks/lib.sh")]);
        assert!(bindings[0].files.iter().all(|f| f.digest.is_some()));
        assert_eq!(bindings[0].unbound.len(), 1, "{:?}", bindings[0].unbound);
        assert!(bindings[0].unbound[0].contains("x.sh"));
        assert!(bindings[1].unbound[0].contains("the module `not_here`"));
        // Only `protocol: claude` hooks get CLAUDE_PROJECT_DIR.
        assert!(bindings[2].files.is_empty());
        assert!(bindings[2].unbound[0].contains("$CLAUDE_PROJECT_DIR"));
    }
}
