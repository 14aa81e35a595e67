//! Every `yaml` code block of README.md and docs/*.md that is a hook config
//! passes `agent-hooks check`, so the guide shows configs that work.
//!
//! - A block with top-level `version:` and `hooks:` is checked as it is.
//! - A block that is a list of hooks (`- id: ...`, indented or not) is
//!   checked inside `version: 1` / `hooks:`.
//! - Every other `yaml` block must be listed in [`NOT_CONFIGS`] with what
//!   it is; a listed block that no longer exists fails the test too.
//! - A block deliberately invalid is marked by a `<!-- invalid -->` line
//!   right before its fence, listed in [`INVALID`], and must fail `check`.
//!
//! Each block is written to `hooks.yaml` in a temporary directory that
//! also holds [`STUB_FILES`], and checked from the package root as the
//! workspace (`check --workspace ROOT`), so the Rego files the guide names
//! (`examples/policies/fleet.rego`) are the repository's own. A script a
//! `run` hook names and the repository lacks is a `missing-script`
//! warning, which passes: the guide's scripts are the reader's.

use std::process::Command;

#[path = "common/markdown.rs"]
mod markdown;

use markdown::{Block, blocks, guide_files, read, root};

/// `yaml` blocks that are not hook configs: (file, first line, what it is).
const NOT_CONFIGS: &[(&str, &str, &str)] = &[
    (
        "docs/catalogue.md",
        "catalogue: tools.catalogue.json",
        "the `catalogue:` key alone",
    ),
    (
        "docs/catalogue.md",
        "# yaml-language-server: $schema=./tools.schema.json",
        "a modeline and the start of a config, no hooks",
    ),
    (
        "docs/cli.md",
        "cases:",
        "a policy test cases file (test --expect)",
    ),
    ("docs/config.md", "catalogue:", "the `catalogue:` key alone"),
    (
        "docs/fleet.md",
        "# hooks.stack.yaml: paths relative to this file",
        "a stack file (its configs are the reader's)",
    ),
    (
        "docs/policy-tests.md",
        "cases:",
        "a policy test cases file (test --expect)",
    ),
    (
        "docs/policy-tests.md",
        "name: hook policy",
        "a GitHub Actions workflow",
    ),
];

/// Blocks marked `<!-- invalid -->`: (file, first line, why).
const INVALID: &[(&str, &str, &str)] = &[];

/// Files beside each checked block: (path, contents, why).
const STUB_FILES: &[(&str, &str, &str)] = &[
    (
        "schemas/bash.result.json",
        r#"{"type": "object"}"#,
        "docs/catalogue.md's inline catalogue names a result schema file of the reader's",
    ),
    (
        "schemas/read_file.input.json",
        r#"{"type": "object", "properties": {"path": {"type": "string"}}}"#,
        "docs/catalogue.md's inline catalogue names an input schema file of the reader's",
    ),
];

const MARKER: &str = "<!-- invalid -->";

fn first_line(block: &Block) -> &str {
    block.body.lines().next().unwrap_or_default().trim()
}

/// The first line that is neither blank nor a comment.
fn first_content(block: &Block) -> &str {
    block
        .body
        .lines()
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .unwrap_or_default()
}

/// The config to check for `block`, or `None` when it is not a hook config.
fn config_of(block: &Block) -> Option<String> {
    let top = |key: &str| block.body.lines().any(|l| l.starts_with(key));
    if top("version:") && top("hooks:") {
        return Some(format!("{}\n", block.body));
    }
    let first = first_content(block);
    if first.trim_start().starts_with("- id:") {
        let indent = if first.starts_with(' ') { "" } else { "  " };
        let hooks: Vec<String> = block.body.lines().map(|l| format!("{indent}{l}")).collect();
        return Some(format!("version: 1\nhooks:\n{}\n", hooks.join("\n")));
    }
    None
}

/// Runs `agent-hooks check` on `config`; its exit code and output.
fn check(config: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (path, contents, _) in STUB_FILES {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("a stub directory");
        std::fs::write(&path, contents).expect("a stub file");
    }
    let file = dir.path().join("hooks.yaml");
    std::fs::write(&file, config).expect("the config is written");
    let out = Command::new(env!("CARGO_BIN_EXE_agent-hooks"))
        .current_dir(root())
        .arg("check")
        .arg("--workspace")
        .arg(root())
        .arg(&file)
        .output()
        .expect("the agent-hooks binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn every_config_in_the_guide_passes_check() {
    let mut failures = Vec::new();
    let mut checked = Vec::new();
    let mut not_configs = Vec::new();
    let mut invalid = Vec::new();
    for file in guide_files() {
        for block in blocks(&read(&file)) {
            let tag = block.info.split([',', ' ']).next().unwrap_or_default();
            if tag != "yaml" && tag != "yml" {
                continue;
            }
            let place = format!("{file}:{}", block.line);
            let key = (file.clone(), first_line(&block).to_owned());
            let Some(config) = config_of(&block) else {
                if !NOT_CONFIGS
                    .iter()
                    .any(|(f, first, _)| (*f, *first) == (key.0.as_str(), key.1.as_str()))
                {
                    failures.push(format!(
                        "{place}: a `yaml` block that is no hook config and not in NOT_CONFIGS (first line `{}`)",
                        key.1
                    ));
                }
                not_configs.push(key);
                continue;
            };
            let (code, output) = check(&config);
            if block.before == MARKER {
                if !INVALID
                    .iter()
                    .any(|(f, first, _)| (*f, *first) == (key.0.as_str(), key.1.as_str()))
                {
                    failures.push(format!("{place}: marked invalid but not in INVALID"));
                }
                if code != Some(1) {
                    failures.push(format!(
                        "{place}: marked invalid, but `check` exited {code:?}:\n{output}"
                    ));
                }
                invalid.push(key);
            } else if code != Some(0) {
                failures.push(format!("{place}: `check` exited {code:?}:\n{output}"));
            } else {
                checked.push(place);
            }
        }
    }
    for (file, first, what) in NOT_CONFIGS {
        if !not_configs.contains(&((*file).to_owned(), (*first).to_owned())) {
            failures.push(format!(
                "NOT_CONFIGS lists a block that is gone: {file}, `{first}` ({what})"
            ));
        }
    }
    for (file, first, why) in INVALID {
        if !invalid.contains(&((*file).to_owned(), (*first).to_owned())) {
            failures.push(format!(
                "INVALID lists a block that is gone or unmarked: {file}, `{first}` ({why})"
            ));
        }
    }
    println!("checked {} configs: {}", checked.len(), checked.join(", "));
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(checked.len() >= 10, "only {} configs found", checked.len());
}

#[test]
fn a_list_of_hooks_is_checked_inside_a_config() {
    let block = Block {
        info: "yaml".to_owned(),
        line: 1,
        body: "- id: a\n  phase: before_tool\n  block: { reason: no }".to_owned(),
        before: String::new(),
    };
    let config = config_of(&block).expect("a list of hooks is a config");
    assert_eq!(
        config,
        "version: 1\nhooks:\n  - id: a\n    phase: before_tool\n    block: { reason: no }\n"
    );
    let (code, output) = check(&config);
    assert_eq!(code, Some(0), "{output}");
    let broken = config.replace("before_tool", "befor_tool");
    let (code, output) = check(&broken);
    assert_eq!(code, Some(1), "{output}");
}
