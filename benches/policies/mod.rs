//! Generated policies for the dispatch benchmarks: `N` `before_tool` rules
//! of one shape, and the events that hit or miss them.
//!
//! The YAML files beside this module (`<family>_<n>.yaml`) are what `hooks!`
//! compiles in the benches; they are this generator's output, checked by
//! `tests/bench_policies.rs` and rewritten with
//! `UPDATE_FIXTURES=1 cargo test --test bench_policies`. Any bench (the
//! interpreted engine, a hand-written peer) builds the same policy from
//! [`Family::yaml`] and the same events from [`Case`].

#![allow(dead_code, reason = "each bench uses a part of the generator")]

use serde_json::{Value, json};

/// Rule counts of the matrix.
pub(crate) const SIZES: [usize; 4] = [1, 10, 100, 1_000];

/// A family of `n` rules; rule `i` blocks only its own events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// Rule `i` on the exact tool `tool_<i>`.
    Exact,
    /// Rule `i` on the tool glob `mcp__s<i>__*`.
    Glob,
    /// Rule `i` on the tool regex `web_<i>_(get|post)`.
    Regex,
    /// Rule `i` on `bash` when `/command` matches `danger-<i>;`.
    When,
    /// Rule `i` of the shape of `Exact`, `Glob`, `Regex`, `When` in turn.
    Mixed,
}

impl Family {
    /// The families the dispatch matrix compiles.
    pub(crate) const MATRIX: [Family; 4] =
        [Family::Exact, Family::Glob, Family::Regex, Family::When];

    /// The file stem prefix (`exact`, `glob`, ...).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Family::Exact => "exact",
            Family::Glob => "glob",
            Family::Regex => "regex",
            Family::When => "when",
            Family::Mixed => "mixed",
        }
    }

    /// The file name of the policy of `n` rules.
    pub(crate) fn file(self, n: usize) -> String {
        format!("{}_{n}.yaml", self.name())
    }

    fn shape(self, i: usize) -> Family {
        match self {
            Family::Mixed => Family::MATRIX[i % Family::MATRIX.len()],
            other => other,
        }
    }

    /// The policy of `n` rules, as YAML.
    pub(crate) fn yaml(self, n: usize) -> String {
        let mut out = String::from("version: 1\nhooks:\n");
        for i in 0..n {
            let matcher = match self.shape(i) {
                Family::Exact => format!("    include_tools: [tool_{i}]\n"),
                Family::Glob => format!("    include_tools: [\"mcp__s{i}__*\"]\n"),
                Family::Regex => {
                    format!("    include_tools: [{{regex: \"web_{i}_(get|post)\"}}]\n")
                }
                Family::When | Family::Mixed => format!(
                    "    include_tools: [bash]\n    when: {{pointer: /command, matches: \"danger-{i};\"}}\n"
                ),
            };
            out.push_str(&format!(
                "  - id: rule-{i}\n    phase: before_tool\n{matcher}    block: {{reason: \"rule {i}\"}}\n"
            ));
        }
        out
    }
}

/// An event of the matrix: which family it runs against and whether the
/// last rule matches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Case {
    /// `bash` against rules on other exact tools: no rule matches.
    Miss,
    /// The exact tool of the last rule.
    Exact,
    /// A tool the last rule's glob matches.
    Glob,
    /// `bash` against tool globs: no rule matches.
    GlobMiss,
    /// A tool the last rule's regex matches.
    Regex,
    /// A `bash` command the last rule's `when` regex matches.
    When,
    /// A `bash` command no rule's `when` regex matches.
    WhenMiss,
}

impl Case {
    /// Every case of the matrix.
    pub(crate) const ALL: [Case; 7] = [
        Case::Miss,
        Case::Exact,
        Case::Glob,
        Case::GlobMiss,
        Case::Regex,
        Case::When,
        Case::WhenMiss,
    ];

    /// The case's name in bench ids.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Case::Miss => "miss",
            Case::Exact => "exact",
            Case::Glob => "glob",
            Case::GlobMiss => "glob_miss",
            Case::Regex => "regex",
            Case::When => "when",
            Case::WhenMiss => "when_miss",
        }
    }

    /// The family of rules the case runs against.
    pub(crate) fn family(self) -> Family {
        match self {
            Case::Miss | Case::Exact => Family::Exact,
            Case::Glob | Case::GlobMiss => Family::Glob,
            Case::Regex => Family::Regex,
            Case::When | Case::WhenMiss => Family::When,
        }
    }

    /// Whether the last of `n` rules blocks the event (else none does).
    pub(crate) fn hits(self) -> bool {
        !matches!(self, Case::Miss | Case::GlobMiss | Case::WhenMiss)
    }

    /// The `before_tool` event against `n` rules: tool name and arguments.
    pub(crate) fn event(self, n: usize) -> (String, Value) {
        let last = n - 1;
        let quiet = json!({"command": "cargo build --release --workspace"});
        match self {
            Case::Miss | Case::GlobMiss | Case::WhenMiss => ("bash".to_owned(), quiet),
            Case::Exact => (format!("tool_{last}"), quiet),
            Case::Glob => (format!("mcp__s{last}__read"), quiet),
            Case::Regex => (format!("web_{last}_get"), quiet),
            Case::When => (
                "bash".to_owned(),
                json!({"command": format!("echo danger-{last}; cargo build")}),
            ),
        }
    }
}
