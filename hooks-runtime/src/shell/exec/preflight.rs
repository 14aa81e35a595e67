//! Checks done before anything is spawned: the working directory and the
//! request's shape.

use std::io;
use std::path::{Path, PathBuf};

use super::command::{CommandForm, ExecRequest};

/// A request refused before spawning anything.
///
/// [`Executor::new`](super::Executor::new) returns the workspace-root
/// variants; [`Executor::run`](super::Executor::run) reports the others as an
/// [`ExecFailure`](super::ExecFailure) of kind
/// [`SpawnFailed`](crate::FailureKind::SpawnFailed) whose detail is this
/// error's message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PreflightError {
    /// The workspace root does not exist or cannot be canonicalized.
    #[error("cannot resolve the workspace root `{}`: {source}", path.display())]
    WorkspaceRoot {
        /// The root as given.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The workspace root is not a directory.
    #[error("the workspace root `{}` is not a directory", path.display())]
    RootNotDirectory {
        /// The canonical root.
        path: PathBuf,
    },
    /// The working directory does not exist or cannot be canonicalized.
    #[error("cannot resolve the working directory `{}`: {source}", path.display())]
    Cwd {
        /// The cwd joined to the workspace root, before canonicalization.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: io::Error,
    },
    /// The canonical working directory lies outside the workspace root
    /// (directly, through `..`, or through a symlink).
    #[error(
        "the working directory `{}` is outside the workspace root `{}`",
        cwd.display(),
        root.display()
    )]
    CwdOutsideRoot {
        /// The canonical cwd.
        cwd: PathBuf,
        /// The canonical workspace root.
        root: PathBuf,
    },
    /// The working directory is not a directory.
    #[error("the working directory `{}` is not a directory", cwd.display())]
    CwdNotDirectory {
        /// The canonical cwd.
        cwd: PathBuf,
    },
    /// An exec-form request with an empty `argv`.
    #[error("exec-form `argv` is empty, expected at least the program to run")]
    EmptyArgv,
    /// An environment name in `pass` or `set` is not a valid variable name.
    #[error("invalid environment variable name `{name}`, expected `[A-Za-z_][A-Za-z0-9_]*`")]
    InvalidEnvName {
        /// The offending name.
        name: String,
    },
    /// A value in `set` contains a NUL byte.
    #[error("the value of environment variable `{name}` contains a NUL byte")]
    InvalidEnvValue {
        /// The variable's name.
        name: String,
    },
}

#[cfg(test)]
impl PartialEq for PreflightError {
    fn eq(&self, other: &Self) -> bool {
        self.to_string() == other.to_string()
    }
}

/// Canonicalizes `root` and checks that it is a directory.
pub(crate) fn canonical_root(root: &Path) -> Result<PathBuf, PreflightError> {
    let canonical = root
        .canonicalize()
        .map_err(|source| PreflightError::WorkspaceRoot {
            path: root.to_path_buf(),
            source,
        })?;
    if !canonical.is_dir() {
        return Err(PreflightError::RootNotDirectory { path: canonical });
    }
    Ok(canonical)
}

/// Resolves the request's cwd against the canonical `root` and checks
/// containment after canonicalization.
pub(crate) fn resolve_cwd(root: &Path, cwd: Option<&Path>) -> Result<PathBuf, PreflightError> {
    let Some(cwd) = cwd else {
        return Ok(root.to_path_buf());
    };
    let joined = root.join(cwd);
    let canonical = joined
        .canonicalize()
        .map_err(|source| PreflightError::Cwd {
            path: joined.clone(),
            source,
        })?;
    if !canonical.starts_with(root) {
        return Err(PreflightError::CwdOutsideRoot {
            cwd: canonical,
            root: root.to_path_buf(),
        });
    }
    if !canonical.is_dir() {
        return Err(PreflightError::CwdNotDirectory { cwd: canonical });
    }
    Ok(canonical)
}

/// The detail of a `spawn_failed` failure when `form` runs a script file
/// ([`hooks_plan::script`]: one that reads as a file, `sh hooks/x.sh`,
/// `cd d && ./x.sh`) and that file does not exist relative to `cwd`;
/// `None` otherwise.
///
/// Checked before spawning a hook: an interpreter that cannot open its
/// script exits with a code of its own (`sh` with 2, which the protocols
/// read as a deny), so the hook's failure policy would never see it.
#[cfg(test)]
pub(crate) fn missing_script(form: &CommandForm, cwd: &Path) -> Option<String> {
    script_of(form, &|_| None)?.missing_in(cwd)
}

/// The script files a command runs (see `missing_script`): found once per
/// command, checked on every run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Script {
    /// The program (`argv[0]`, or the shell command).
    program: String,
    /// The scripts' paths as found (relative to the working directory
    /// unless absolute).
    paths: Vec<String>,
}

/// The scripts `form` runs that read as files; `None` when there are none.
/// `var` gives the variables the runtime sets for the hook.
pub(crate) fn script_of(
    form: &CommandForm,
    var: &dyn Fn(&str) -> Option<String>,
) -> Option<Script> {
    let (found, program) = match form {
        CommandForm::Exec(argv) => (
            hooks_plan::script::exec_scripts(argv, var),
            argv.first()?.clone(),
        ),
        CommandForm::Shell(command) => (
            hooks_plan::script::shell_scripts(command, var),
            "sh".to_owned(),
        ),
    };
    let paths: Vec<String> = found
        .files
        .into_iter()
        .filter(hooks_plan::script::ScriptFile::looks_like_file)
        .map(|f| f.path)
        .collect();
    (!paths.is_empty()).then_some(Script { program, paths })
}

impl Script {
    /// The failure's detail when a script does not exist relative to
    /// `cwd`; `None` when they all do.
    pub(crate) fn missing_in(&self, cwd: &Path) -> Option<String> {
        let missing = self.paths.iter().find(|p| !cwd.join(p).exists())?;
        Some(format!(
            "the script `{missing}` that `{}` should run does not exist in `{}`",
            self.program,
            cwd.display()
        ))
    }
}

/// Checks the request's shape (not its cwd or environment).
pub(crate) fn check_form(req: &ExecRequest) -> Result<(), PreflightError> {
    match &req.form {
        CommandForm::Exec(argv) if argv.is_empty() => Err(PreflightError::EmptyArgv),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cwd_containment() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical_root(dir.path()).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("file"), b"").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();

        assert_eq!(resolve_cwd(&root, None).unwrap(), root);
        assert_eq!(
            resolve_cwd(&root, Some(Path::new("sub"))).unwrap(),
            root.join("sub")
        );
        assert_eq!(
            resolve_cwd(&root, Some(&root.join("sub/.."))).unwrap(),
            root
        );
        assert!(matches!(
            resolve_cwd(&root, Some(Path::new(".."))),
            Err(PreflightError::CwdOutsideRoot { .. })
        ));
        assert!(matches!(
            resolve_cwd(&root, Some(Path::new("escape"))),
            Err(PreflightError::CwdOutsideRoot { .. })
        ));
        assert!(matches!(
            resolve_cwd(&root, Some(Path::new("/"))),
            Err(PreflightError::CwdOutsideRoot { .. })
        ));
        assert!(matches!(
            resolve_cwd(&root, Some(Path::new("missing"))),
            Err(PreflightError::Cwd { .. })
        ));
        assert!(matches!(
            resolve_cwd(&root, Some(Path::new("file"))),
            Err(PreflightError::CwdNotDirectory { .. })
        ));
    }

    #[test]
    fn root_must_exist_and_be_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), b"").unwrap();
        assert!(matches!(
            canonical_root(&dir.path().join("missing")),
            Err(PreflightError::WorkspaceRoot { .. })
        ));
        assert!(matches!(
            canonical_root(&dir.path().join("file")),
            Err(PreflightError::RootNotDirectory { .. })
        ));
    }

    #[test]
    fn a_missing_script_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("there.sh"), b"exit 0\n").unwrap();
        let exec = |a: &[&str]| CommandForm::Exec(a.iter().map(|s| (*s).to_owned()).collect());
        assert_eq!(missing_script(&exec(&["sh", "there.sh"]), dir.path()), None);
        let detail = missing_script(&exec(&["sh", "hooks/gaurd.sh"]), dir.path()).unwrap();
        assert!(detail.contains("`hooks/gaurd.sh`"), "{detail}");
        let shell = CommandForm::Shell("python3 missing.py --x".into());
        assert!(missing_script(&shell, dir.path()).is_some());
        let expanded = CommandForm::Shell("sh \"$DIR\"/missing.sh".into());
        assert_eq!(missing_script(&expanded, dir.path()), None);
    }

    #[test]
    fn empty_argv_is_refused() {
        assert_eq!(
            check_form(&ExecRequest::exec(Vec::<String>::new())),
            Err(PreflightError::EmptyArgv)
        );
        assert_eq!(check_form(&ExecRequest::exec(["true"])), Ok(()));
    }
}
