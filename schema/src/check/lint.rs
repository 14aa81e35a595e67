//! Lints: findings about a config that loads but likely does not do what
//! was meant. They run on the typed config once every error check passed,
//! hold with or without a tool catalogue, and report warnings and notes
//! ([`Checker::lint`]), never errors.
//!
//! | code | severity | finding |
//! | --- | --- | --- |
//! | `shadowed-rule` | warning | an earlier unconditional `block` / `terminate` in the same phase ends every event the rule would see |
//! | `always-false-when` | warning | a `when`, or a part of one, that no event satisfies ([`lint_when`](super::lint_when)) |
//! | `unreferenced-disabled` | note | an `enabled: false` hook whose id appears nowhere else in the file |
//! | `scope-never-active` | warning | a scoped hook on a phase where its scope is never active (`run_start`; `user_prompt` for a skill) |
//!
//! What "referenced" means: the config language has no references between
//! hooks (no ordering or dependency keys), so a disabled hook is referenced
//! when its id appears, as a whole word, anywhere else in the config text —
//! a comment such as `# force-read-first: enable once reads are cached`,
//! another hook's `description` or reason. A disabled hook nobody mentions
//! is likely left over; one you keep on purpose says why next to it.

use std::collections::HashMap;

use super::{At, Checker};
use crate::config::{Action, Config, Hook, ToolPattern};
use crate::diagnostic::Severity;
use crate::phase::{Mode, Phase};

impl Checker<'_> {
    /// Runs every lint over `config` (which passed validation), parsed
    /// from `source`.
    pub(crate) fn lint_config(&mut self, config: &Config, source: &str) {
        self.lint_shadowed(config);
        self.lint_always_false(config);
        self.lint_unreferenced_disabled(config, source);
        self.lint_scope_never_active(config);
    }

    /// `scope-never-active`: a scoped hook on a phase where its scope
    /// cannot be active — `run_start` (nothing has started yet) and, for a
    /// skill, `user_prompt` (a new user turn ends every skill before its
    /// hooks run).
    fn lint_scope_never_active(&mut self, config: &Config) {
        for (i, hook) in config.hooks.iter().enumerate() {
            let kind = match &hook.scope {
                Some(crate::HookScope::Subagent { .. }) => "subagent",
                Some(crate::HookScope::Skill { .. }) => "skill",
                None => continue,
            };
            let never = match hook.phase {
                Phase::RunStart => "nothing has started when a run starts",
                Phase::UserPrompt if kind == "skill" => {
                    "a new user turn ends every skill before its `user_prompt` hooks run"
                }
                _ => continue,
            };
            self.lint(
                Severity::Warning,
                &format!("/hooks/{i}/scope"),
                At::Key,
                "scope-never-active",
                format!(
                    "hook `{}` never runs: its {kind} scope is never active on `{}` ({never})",
                    hook.id, hook.phase
                ),
                "remove `scope`, or move the hook to a phase its scope is active on".to_owned(),
            );
        }
    }

    /// `unreferenced-disabled`: see the module docs for "referenced".
    fn lint_unreferenced_disabled(&mut self, config: &Config, source: &str) {
        if config.hooks.iter().all(|h| h.enabled) {
            return;
        }
        let mut words: HashMap<&str, usize> = HashMap::new();
        for word in source
            .split(|c: char| {
                !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
            })
            .filter(|w| !w.is_empty())
        {
            *words.entry(word).or_default() += 1;
        }
        for (i, hook) in config.hooks.iter().enumerate() {
            // Its own `id:` is one mention.
            if !hook.enabled && words.get(hook.id.as_str()).copied().unwrap_or(0) < 2 {
                self.lint(
                    Severity::Note,
                    &format!("/hooks/{i}/enabled"),
                    At::Value,
                    "unreferenced-disabled",
                    format!(
                        "hook `{}` is disabled and mentioned nowhere else in this config",
                        hook.id
                    ),
                    format!(
                        "remove it, or say why it is kept in a comment naming `{}`",
                        hook.id
                    ),
                );
            }
        }
    }

    /// `shadowed-rule`: a rule declared after an unconditional terminal rule
    /// (`block` or `terminate`, no `when`, enabled, `mode: enforce`) of the
    /// same phase whose tools are a superset of its own never runs: the
    /// terminal rule ends the chain first. Only phases whose hooks run one
    /// after the other ([`Phase::is_mutating`](crate::Phase::is_mutating))
    /// are considered; on observe-only phases hooks may run concurrently.
    fn lint_shadowed(&mut self, config: &Config) {
        // (index, hook) of the terminal rules seen so far.
        let mut terminal: Vec<(usize, &Hook)> = Vec::new();
        for (i, hook) in config.hooks.iter().enumerate() {
            if hook.enabled && hook.phase.is_mutating() {
                let shadow = terminal
                    .iter()
                    .find(|(_, t)| t.phase == hook.phase && covers(t, hook));
                if let Some(&(j, earlier)) = shadow {
                    self.report_shadowed(i, hook, j, earlier);
                }
            }
            if is_unconditional_terminal(hook) {
                terminal.push((i, hook));
            }
        }
    }

    fn report_shadowed(&mut self, i: usize, hook: &Hook, j: usize, earlier: &Hook) {
        let at = format!("/hooks/{j}/id");
        let line = self.place(&at, At::Value).line;
        let action = earlier.action.kind().as_str();
        let narrower = if hook.phase.is_tool_phase() {
            " or narrower `include_tools`"
        } else {
            ""
        };
        self.lint(
            Severity::Warning,
            &format!("/hooks/{i}/id"),
            At::Value,
            "shadowed-rule",
            format!(
                "hook `{}` never runs: the earlier hook `{}` (line {line}) unconditionally ends every `{}` event it matches with `{action}`",
                hook.id, earlier.id, hook.phase
            ),
            format!(
                "move `{}` before `{}`, give `{}` a `when`{narrower}, or remove `{}`",
                hook.id, earlier.id, earlier.id, hook.id
            ),
        );
    }
}

/// An enabled, enforcing `block` or `terminate` without a `when`, a
/// `scope` (it holds only while its subagent or skill is active) or `once`
/// (it holds for one event).
fn is_unconditional_terminal(hook: &Hook) -> bool {
    matches!(hook.action, Action::Block(_) | Action::Terminate(_))
        && hook.when.is_none()
        && hook.scope.is_none()
        && !hook.once
        && hook.enabled
        && hook.mode == Mode::Enforce
}

/// Whether every tool `later` can match is matched by `earlier`, as far as
/// can be told without comparing patterns: no include list (every tool) or a
/// `*` covers everything; otherwise each of `later`'s include patterns must
/// appear, written the same, in `earlier`'s list. `earlier`'s excludes must
/// all be excludes of `later` too.
fn covers(earlier: &Hook, later: &Hook) -> bool {
    let includes = earlier.include_tools.is_empty()
        || earlier.include_tools.iter().any(is_everything)
        || !later.include_tools.is_empty()
            && later
                .include_tools
                .iter()
                .all(|p| earlier.include_tools.contains(p));
    includes
        && earlier
            .exclude_tools
            .iter()
            .all(|p| later.exclude_tools.contains(p))
}

/// The glob `*`: every tool name.
fn is_everything(pattern: &ToolPattern) -> bool {
    matches!(pattern, ToolPattern::Glob(g) if g == "*")
}
