//! A hook's common keys (`id`, `phase`, tool filters, failure policy,
//! `mode`, flags), "exactly one action", and the per-phase rules, read from
//! the capability table.

use serde_json::{Map, Value};

use super::names::VOCABULARY;
use super::run::valid_id;
use super::settings::{policies_allowed, policy};
use super::walk::{child, quoted_list, suggest};
use super::{At, Checker};
use crate::capability::{ActionKind, describe_phases};
use crate::config::schema_rules::TOOL_FILTER_KEYS;
use crate::diagnostic::Layer;
use crate::phase::{FailurePolicy, Phase};

/// Claude Code (and other runtimes') event names and their canonical phases.
const FOREIGN_PHASES: &[(&str, &str)] = &[
    ("pretooluse", "before_tool"),
    ("pretoolcall", "before_tool"),
    ("beforetoolcall", "before_tool"),
    ("prenodeexecute", "before_tool"),
    ("posttooluse", "after_tool"),
    ("posttoolcall", "after_tool"),
    ("posttoolusefailure", "after_tool"),
    ("postnodeexecute", "after_tool"),
    ("userpromptsubmit", "user_prompt"),
    ("sessionstart", "run_start"),
    ("graphstart", "run_start"),
    ("sessionend", "run_end"),
    ("graphcomplete", "run_end"),
    ("grapherror", "run_error"),
    ("subagentstop", "stop"),
];

fn phase_list() -> String {
    quoted_list(&Phase::ALL.map(Phase::as_str))
}

/// A valid id close to `s`: lowercase, other characters as `-`.
fn suggest_id(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let t = out.trim_matches('-');
    if t.is_empty() {
        "hook".to_owned()
    } else {
        t.to_owned()
    }
}

/// The hint for action `action` written on phase `phase`, where it is not allowed.
fn action_hint(action: ActionKind, phase: Phase) -> Option<String> {
    match (action, phase) {
        (ActionKind::Block, Phase::AfterTool) => Some(
            "the tool already ran; use `rewrite` to change its result or `inject` to add context"
                .to_owned(),
        ),
        (ActionKind::Block, _) => Some("use `terminate` to end the run".to_owned()),
        _ => None,
    }
}

impl Checker<'_> {
    pub(super) fn check_hook(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a hook mapping with `id`, `phase` and an action") else {
            return;
        };
        let id = m.get("id").and_then(Value::as_str).unwrap_or("?");
        let what = format!("hook `{id}`");
        self.unknown_keys(p, m, VOCABULARY.hook, &what);
        self.hook_id(p, m);
        if let Some(d) = m.get("description") {
            self.string(&child(p, "description"), d);
        }
        let phase = self.hook_phase(p, m, &what);
        self.tool_filters(p, m, phase);
        if let Some(w) = m.get("when") {
            self.predicate(&child(p, "when"), w, phase, 0);
        }
        let actions = self.one_action(p, m, &what);
        for &action in &actions {
            let ap = child(p, action.as_str());
            if let Some(ph) = phase {
                self.action_allowed(&ap, action, ph);
            }
            self.action_body(&ap, action, &m[action.as_str()]);
        }
        if let Some(f) = m.get("failure_policy") {
            self.failure_policy(&child(p, "failure_policy"), f, phase);
        }
        self.enum_key(p, m, "mode", "mode", VOCABULARY.modes, "unknown-mode");
        self.booleans(
            p,
            m,
            &["enabled", "show_in_tui", "parallel", "async", "once"],
        );
        if let Some(scope) = m.get("scope") {
            self.scope(&child(p, "scope"), scope);
        }
        self.parallel(p, m, &actions, &what);
        self.permission_grant(p, m, &actions, &what);
        self.background(p, m, &actions, phase, &what);
    }

    /// `scope`: a mapping with exactly one of `subagent` and `skill`, a
    /// name that is not empty.
    fn scope(&mut self, p: &str, v: &Value) {
        const KINDS: [&str; 2] = ["subagent", "skill"];
        let what = "a scope mapping, `{subagent: NAME}` or `{skill: NAME}`";
        let Some(m) = self.object(p, v, what) else {
            return;
        };
        self.unknown_keys(p, m, &KINDS, "`scope`");
        let kinds: Vec<&str> = KINDS.into_iter().filter(|k| m.contains_key(*k)).collect();
        // An unknown key was reported already (with a suggestion).
        let unknown = m.keys().any(|k| !KINDS.contains(&k.as_str()));
        if kinds.len() > 1 || (kinds.is_empty() && !unknown) {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "invalid-scope",
                format!(
                    "`scope` names exactly one of `subagent` or `skill`, found {}",
                    if kinds.is_empty() {
                        "neither".to_owned()
                    } else {
                        quoted_list(&kinds)
                    }
                ),
                Some("write `scope: {subagent: NAME}` or `scope: {skill: NAME}`".to_owned()),
            );
        }
        for kind in kinds {
            let at = child(p, kind);
            if self
                .nonempty_string(&at, &m[kind])
                .is_some_and(|name| name.trim().is_empty())
            {
                let message = format!("the {kind} name `{}` is only blanks", m[kind]);
                self.report(&at, At::Value, Layer::Schema, "empty-string", message, None);
            }
        }
    }

    /// `async: true` only on a hook whose action may run in the background
    /// ([`ActionKind::background`]: `run`, `http`, `policy`), on a phase
    /// that allows it ([`Capabilities::background`](crate::capability::Capabilities::background):
    /// not where the run ends), with failure policy `ignore` or `warn`: the
    /// agent does not wait for the hook, so it cannot decide, block or end
    /// the run.
    fn background(
        &mut self,
        p: &str,
        m: &Map<String, Value>,
        actions: &[ActionKind],
        phase: Option<Phase>,
        what: &str,
    ) {
        if m.get("async") != Some(&Value::Bool(true)) {
            return;
        }
        let ap = child(p, "async");
        for action in actions.iter().filter(|a| !a.background()) {
            self.report(
                &ap,
                At::Value,
                Layer::Schema,
                "async-decision",
                format!(
                    "{what} cannot be `async: true`: its action `{}` decides at once, and the agent does not wait for a background hook's decision",
                    action.as_str()
                ),
                Some(
                    "remove `async`; only `run`, `http` and `policy` hooks run in the background, and what they return is context for a later event"
                        .to_owned(),
                ),
            );
        }
        if let Some(ph) = phase.filter(|ph| !ph.capabilities().background) {
            self.report(
                &ap,
                At::Value,
                Layer::Schema,
                "async-phase",
                format!(
                    "{what} cannot be `async: true` on `{ph}`: the run ends with this event, so its background hooks are cancelled and nothing could receive what the hook returns"
                ),
                Some(format!(
                    "remove `async`: `{ph}` hooks run before the run's background hooks are cancelled"
                )),
            );
        }
        if let Some(name) = m.get("failure_policy").and_then(Value::as_str)
            && policy(name).is_some_and(|chosen| !chosen.is_background())
        {
            self.report(
                &child(p, "failure_policy"),
                At::Value,
                Layer::Schema,
                "async-failure-policy",
                format!(
                    "{what} is `async: true`, so failure policy `{name}` cannot act (the agent does not wait for the hook), expected one of: {}",
                    quoted_list(&policies_allowed(FailurePolicy::is_background))
                ),
                Some("remove `async` to have the hook gate the event".to_owned()),
            );
        }
    }

    /// No `permission` rule in the `when` of an `allow` hook: a rule holds
    /// when *some* simple command of a line matches, and a path pattern
    /// relative to the project matches below any directory (docs/config.md's
    /// *Permission rules*), both right for a filter that runs a hook or
    /// denies, both too wide to grant (Claude Code's own allow rules need
    /// every part of a compound command to match).
    fn permission_grant(
        &mut self,
        p: &str,
        m: &Map<String, Value>,
        actions: &[ActionKind],
        what: &str,
    ) {
        fn has_permission(v: &Value) -> bool {
            match v {
                Value::Object(m) => m.contains_key("permission") || m.values().any(has_permission),
                Value::Array(items) => items.iter().any(has_permission),
                _ => false,
            }
        }
        if !actions.contains(&ActionKind::Allow) || !m.get("when").is_some_and(has_permission) {
            return;
        }
        self.report(
            &child(p, "when"),
            At::Key,
            Layer::Semantic,
            "permission-in-allow",
            format!(
                "{what} grants with `allow` on a `permission` rule, which holds when any simple command of the line matches (and a project-relative path below any directory): it would grant `npm test && curl ... | sh` for `Bash(npm test *)`"
            ),
            Some("use `permission` to deny, ask or run a hook; grant with `pointer` tests that match the whole value".to_owned()),
        );
    }

    /// `parallel: true` only on a hook whose action does not chain
    /// ([`ActionKind::chains`]): the hooks after a rewrite must see its
    /// value, so they cannot start before it ends.
    fn parallel(&mut self, p: &str, m: &Map<String, Value>, actions: &[ActionKind], what: &str) {
        if m.get("parallel") != Some(&Value::Bool(true)) {
            return;
        }
        for action in actions.iter().filter(|a| a.chains()) {
            self.report(
                &child(p, "parallel"),
                At::Value,
                Layer::Schema,
                "parallel-rewrite",
                format!(
                    "{what} cannot be `parallel: true`: its action `{}` rewrites what the hooks after it see, so they cannot start before it ends",
                    action.as_str()
                ),
                Some(
                    "remove `parallel`; only hooks that do not rewrite (gates, context, patches) can run at once"
                        .to_owned(),
                ),
            );
        }
    }

    fn hook_id(&mut self, p: &str, m: &Map<String, Value>) {
        let Some(v) = m.get("id") else {
            self.missing(
                p,
                "id",
                "a hook",
                Some("every hook needs a unique `id` such as `block-rm-rf`".to_owned()),
            );
            return;
        };
        if let Some(s) = self.string(&child(p, "id"), v)
            && !valid_id(s)
        {
            self.report(
                &child(p, "id"),
                At::Value,
                Layer::Schema,
                "invalid-id",
                format!(
                    "invalid hook id `{s}`, expected lowercase letters, digits, `_` and `-` only"
                ),
                Some(format!("try `{}`", suggest_id(s))),
            );
        }
    }

    fn hook_phase(&mut self, p: &str, m: &Map<String, Value>, what: &str) -> Option<Phase> {
        match m.get("phase") {
            None => {
                self.missing(
                    p,
                    "phase",
                    what,
                    Some(format!("expected one of: {}", phase_list())),
                );
                None
            }
            Some(v) => self.phase(&child(p, "phase"), v),
        }
    }

    fn phase(&mut self, p: &str, v: &Value) -> Option<Phase> {
        let s = self.string(p, v)?;
        if let Some(ph) = Phase::from_name(s) {
            return Some(ph);
        }
        let normalized: String = s
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_lowercase();
        let names = Phase::ALL.map(Phase::as_str);
        let hint = FOREIGN_PHASES
            .iter()
            .find(|(n, _)| *n == normalized)
            .map(|(_, ours)| format!("did you mean `{ours}`? other runtimes' event names map to phases: `PreToolUse` -> `before_tool`, `PostToolUse` -> `after_tool`, `UserPromptSubmit` -> `user_prompt`, `SessionStart` -> `run_start`, `SessionEnd` -> `run_end`, `Stop` -> `stop`"))
            .or_else(|| {
                Phase::ALL
                    .iter()
                    .find(|p| p.as_str().replace('_', "") == normalized)
                    .map(|p| format!("did you mean `{p}`?"))
            })
            .or_else(|| suggest(s, &names));
        self.report(
            p,
            At::Value,
            Layer::Schema,
            "unknown-phase",
            format!("unknown phase `{s}`, expected one of: {}", phase_list()),
            hint,
        );
        None
    }

    /// `include_tools` / `exclude_tools`: only where the phase concerns a tool.
    fn tool_filters(&mut self, p: &str, m: &Map<String, Value>, phase: Option<Phase>) {
        for key in TOOL_FILTER_KEYS {
            let Some(v) = m.get(key) else {
                continue;
            };
            let kp = child(p, key);
            if let Some(ph) = phase.filter(|ph| !ph.capabilities().tool) {
                self.report(
                    &kp,
                    At::Key,
                    Layer::Schema,
                    "tool-filter-on-non-tool-phase",
                    format!(
                        "`{key}` is only allowed on {}, found on `{ph}`",
                        describe_phases(|c| c.tool)
                    ),
                    None,
                );
            }
            self.tool_patterns(&kp, v);
        }
    }

    /// Exactly one action key; returns the action keys present.
    fn one_action(&mut self, p: &str, m: &Map<String, Value>, what: &str) -> Vec<ActionKind> {
        let all = ActionKind::ALL.map(ActionKind::as_str);
        let actions: Vec<ActionKind> = ActionKind::ALL
            .into_iter()
            .filter(|a| m.contains_key(a.as_str()))
            .collect();
        match actions.as_slice() {
            [] => self.report(
                p,
                At::Value,
                Layer::Schema,
                "missing-action",
                format!(
                    "{what} has no action, expected exactly one of: {}",
                    quoted_list(&all)
                ),
                None,
            ),
            [_] => {}
            [first, rest @ ..] => {
                for extra in rest {
                    self.report(
                        &child(p, extra.as_str()),
                        At::Key,
                        Layer::Schema,
                        "multiple-actions",
                        format!(
                            "{what} has more than one action: `{}` and `{}`, expected exactly one of: {}",
                            first.as_str(),
                            extra.as_str(),
                            quoted_list(&all)
                        ),
                        Some("split it into two hooks; they run in declared order".to_owned()),
                    );
                }
            }
        }
        actions
    }

    /// The action is one the phase allows.
    fn action_allowed(&mut self, ap: &str, action: ActionKind, ph: Phase) {
        if action.allowed_on(ph) {
            return;
        }
        self.report(
            ap,
            At::Key,
            Layer::Schema,
            "action-not-allowed",
            format!(
                "action `{}` is only allowed on {}, found on `{ph}`",
                action.as_str(),
                describe_phases(|c| c.actions.contains(action))
            ),
            action_hint(action, ph),
        );
    }

    /// A hook's `failure_policy`: a known policy the phase allows.
    fn failure_policy(&mut self, fp: &str, f: &Value, phase: Option<Phase>) {
        let Some(name) = self.enum_value(
            fp,
            f,
            "failure policy",
            VOCABULARY.failure_policies,
            "unknown-failure-policy",
        ) else {
            return;
        };
        let (Some(ph), Some(chosen)) = (phase, policy(&name)) else {
            return;
        };
        let caps = ph.capabilities();
        if caps.allows_failure_policy(chosen) {
            return;
        }
        let hint = (chosen == FailurePolicy::Block)
            .then(|| "`block` skips a tool call; there is none to skip here".to_owned());
        self.report(
            fp,
            At::Value,
            Layer::Schema,
            &format!("{name}-policy-not-allowed"),
            format!(
                "failure policy `{name}` is only allowed on {} hooks, found on `{ph}`, expected one of: {}",
                describe_phases(|c| c.allows_failure_policy(chosen)),
                quoted_list(&policies_allowed(|p| caps.allows_failure_policy(p)))
            ),
            hint,
        );
    }
}
