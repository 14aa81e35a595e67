//! The affected paths of a tool call: [`affected_paths`].

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

use hooks_plan::{MAX_AFFECTED_PATH_CHARS, MAX_AFFECTED_PATHS, PathDiagnostic, PathDiagnosticKind};
use serde_json::Value;

use super::ToolPathSettings;

/// The affected paths of a tool call and the findings about them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AffectedPaths {
    /// The resolved paths, at most [`MAX_AFFECTED_PATHS`], without duplicates.
    pub paths: Vec<String>,
    /// One finding per path outside the root, too long or past the cap.
    pub diagnostics: Vec<PathDiagnostic>,
}

/// Resolves the affected paths of a tool call: the strings (or arrays of
/// strings) at `settings.path_pointers` in `args`, relative ones joined to
/// `cwd`, each resolved against the real file system (`..` and
/// the symlinks of every component). A path that resolves outside `root` is
/// listed and flagged [`PathDiagnosticKind::OutsideRoot`]; paths longer than
/// 1024 characters and entries past the 16th are left out and flagged.
pub fn affected_paths(
    args: &Value,
    settings: &ToolPathSettings,
    cwd: &Path,
    root: &Path,
) -> AffectedPaths {
    let root = resolve(root);
    let mut out = AffectedPaths::default();
    for pointer in &settings.path_pointers {
        let raw: Vec<&str> = match args.pointer(pointer) {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for p in raw {
            let resolved = resolve(&cwd.join(p));
            let s = resolved.to_string_lossy().into_owned();
            let finding = |kind| PathDiagnostic {
                kind,
                pointer: pointer.clone(),
                path: s.chars().take(MAX_AFFECTED_PATH_CHARS).collect(),
            };
            if s.chars().count() > MAX_AFFECTED_PATH_CHARS {
                out.diagnostics.push(finding(PathDiagnosticKind::TooLong));
                continue;
            }
            if out.paths.contains(&s) {
                continue;
            }
            if out.paths.len() == MAX_AFFECTED_PATHS {
                out.diagnostics.push(finding(PathDiagnosticKind::TooMany));
                continue;
            }
            if !resolved.starts_with(&root) {
                out.diagnostics
                    .push(finding(PathDiagnosticKind::OutsideRoot));
            }
            out.paths.push(s);
        }
    }
    out
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
        _ => format!(
            "affected path `{path}` at `{pointer}` is past the first {MAX_AFFECTED_PATHS}: left out"
        ),
    }
}

/// Most symlinks [`resolve`] follows for one path (Linux's limit).
const MAX_SYMLINKS: usize = 40;

/// Resolves an absolute `path` as the OS would open it: `.` dropped, each
/// symlink (in any component, dangling or not) replaced by its target, `..`
/// taken against what the path resolved to so far; the components that do
/// not exist are kept as written (a `..` after one removes it). After
/// [`MAX_SYMLINKS`] symlinks the rest is appended lexically. A snapshot: the
/// file system may change afterwards.
pub(crate) fn resolve(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    let mut todo: VecDeque<OsString> = VecDeque::new();
    push_front(&mut todo, path);
    let mut followed = 0;
    while let Some(part) = todo.pop_front() {
        if part == ".." {
            out.pop();
            continue;
        }
        let next = out.join(&part);
        let link = (followed < MAX_SYMLINKS)
            .then(|| std::fs::read_link(&next).ok())
            .flatten();
        match link {
            Some(target) => {
                followed += 1;
                if target.is_absolute() {
                    out = PathBuf::from("/");
                }
                push_front(&mut todo, &target);
            }
            None => out = next,
        }
    }
    out
}

/// Puts the normal and `..` components of `path` in front of `todo`.
fn push_front(todo: &mut VecDeque<OsString>, path: &Path) {
    for c in path.components().rev() {
        match c {
            Component::Normal(part) => todo.push_front(part.to_owned()),
            Component::ParentDir => todo.push_front("..".into()),
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
}
