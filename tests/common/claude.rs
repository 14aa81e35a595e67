//! Helpers shared by the `import claude` tests (`import_claude*.rs`): the
//! project's own settings fixtures, the shared corpus of real settings files
//! and what each of them is recorded to give, and loading and reading the
//! converted config. Include with `#[path = "common/claude.rs"] mod claude;`
//! beside `#[path = "common/real.rs"] mod real;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::path::{Path, PathBuf};

use hooks_schema::{Action, Config, Program};

pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The project's own settings fixtures, relative to `tests/fixtures/claude/`.
pub(crate) const FIXTURES: [&str; 5] = [
    "commented-settings.json",
    "mcp-and-sessions.json",
    "only-unmapped.json",
    "plugin/hooks/hooks.json",
    "plugin-unwrapped/hooks/hooks.json",
];

/// The name (relative to the workspace root, as the CLI is run) and text of
/// one of [`FIXTURES`].
pub(crate) fn fixture(file: &str) -> (String, String) {
    let name = format!("tests/fixtures/claude/{file}");
    let text = std::fs::read_to_string(root().join(&name)).expect("the fixture is readable");
    (name, text)
}

/// The real settings files (`claude-settings/` of the shared real-world
/// inputs), if present; otherwise a visible skip line ([`crate::real::dir`]).
pub(crate) fn real_settings_dir() -> Option<PathBuf> {
    crate::real::dir("claude-settings")
}

pub(crate) fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

/// The display name and text of a real settings file.
pub(crate) fn real(dir: &Path, file: &str) -> (String, String) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).expect("the real settings file is readable");
    (path.display().to_string(), text)
}

/// What each real settings file gives: (hooks converted, warnings), or the
/// start of the refusal.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Expected {
    Imported { hooks: usize, warnings: usize },
    Refused(&'static str),
}

pub(crate) const REAL: [(&str, Expected); 17] = {
    use Expected::Imported;
    [
        (
            "ChrisWiles__claude-code-showcase__settings.json",
            Imported {
                hooks: 6,
                warnings: 0,
            },
        ),
        (
            "Dicklesworthstone__mcp_agent_mail__settings.json",
            Imported {
                hooks: 6,
                warnings: 0,
            },
        ),
        (
            "PostHog__posthog__settings.json",
            Imported {
                hooks: 3,
                warnings: 1,
            },
        ),
        (
            "affaan-m__everything-claude-code__hooks.json",
            Imported {
                hooks: 28,
                warnings: 10,
            },
        ),
        (
            "anthropics__claude-plugins-official__hookify-hooks.json",
            Imported {
                hooks: 4,
                warnings: 1,
            },
        ),
        (
            "anthropics__claude-plugins-official__security-guidance-hooks.json",
            Imported {
                hooks: 9,
                warnings: 7,
            },
        ),
        (
            "backnotprop__plannotator__hooks.json",
            Imported {
                hooks: 1,
                warnings: 1,
            },
        ),
        (
            "carlrannaberg__claudekit__example-with-comments.json",
            Imported {
                hooks: 10,
                warnings: 2,
            },
        ),
        (
            "carlrannaberg__claudekit__settings.json",
            Imported {
                hooks: 19,
                warnings: 0,
            },
        ),
        (
            "karanb192__claude-code-hooks__nerf-receipts-hooks.json",
            Imported {
                hooks: 6,
                warnings: 5,
            },
        ),
        (
            "karanb192__claude-code-hooks__notify-permission-hooks.json",
            Imported {
                hooks: 1,
                warnings: 1,
            },
        ),
        (
            "oven-sh__bun__settings.json",
            Imported {
                hooks: 2,
                warnings: 0,
            },
        ),
        (
            // A plugin `hooks.json` without the `hooks` wrapper.
            "ramirlm__ramir-cc-marketplace__hooks.json",
            Imported {
                hooks: 9,
                warnings: 1,
            },
        ),
        (
            "ruvnet__claude-flow__settings.json",
            Imported {
                hooks: 11,
                warnings: 4,
            },
        ),
        (
            "thedotmack__claude-mem__codex-hooks.json",
            Imported {
                hooks: 5,
                warnings: 7,
            },
        ),
        (
            "thedotmack__claude-mem__hooks.json",
            Imported {
                hooks: 6,
                warnings: 6,
            },
        ),
        (
            "yurukusa__claude-code-hooks__hooks.json",
            Imported {
                hooks: 16,
                warnings: 1,
            },
        ),
    ]
};

pub(crate) fn load(text: &str, name: &str) -> Config {
    match hooks_schema::load_str(text, name) {
        Ok(config) => config,
        Err(diags) => panic!(
            "{name}: the imported config does not check clean:\n{}\n--- config ---\n{text}",
            diags
                .iter()
                .map(|d| d.render(Some(text)))
                .collect::<Vec<_>>()
                .join("\n")
        ),
    }
}

pub(crate) fn run_of(hook: &hooks_schema::Hook) -> &hooks_schema::Run {
    match hook.action() {
        Action::Run(run) => run,
        other => panic!(
            "`{}`: expected a run action, found {}",
            hook.id,
            other.name()
        ),
    }
}

/// The command text a converted hook runs (shell form, or `bash -c` exec form).
pub(crate) fn command_of(hook: &hooks_schema::Hook) -> String {
    match &run_of(hook).program {
        Program::Shell(c) => c.clone(),
        Program::Exec(argv) => {
            assert_eq!(
                &argv[..2],
                ["bash", "-c"],
                "`{}`: exec form is `bash -c`",
                hook.id
            );
            argv[2].clone()
        }
    }
}

pub(crate) fn settings(hooks: &str) -> String {
    format!("{{\"hooks\": {hooks}}}")
}
