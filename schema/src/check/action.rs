//! The bodies of the declarative actions: `block`/`terminate`/`ask` (`reason`), `allow`,
//! `inject` (`content`), `patch` (a request patch) and `rewrite` (steps).

use serde_json::{Map, Value};

use super::names::VOCABULARY;
use super::walk::{child, quoted_list};
use super::{At, Checker};
use crate::capability::ActionKind;
use crate::diagnostic::Layer;

impl Checker<'_> {
    /// The body of action `action` at `ap`.
    pub(super) fn action_body(&mut self, ap: &str, action: ActionKind, body: &Value) {
        match action {
            ActionKind::Run => self.run(ap, body),
            ActionKind::Http => self.http(ap, body),
            ActionKind::Block | ActionKind::Terminate | ActionKind::Ask => {
                self.reason(ap, body, VOCABULARY.reason, action);
            }
            ActionKind::Inject => self.reason(ap, body, VOCABULARY.inject, action),
            ActionKind::Patch => self.patch(ap, body),
            ActionKind::Rewrite => self.rewrite(ap, body),
            ActionKind::Allow => self.grant(ap, body),
            ActionKind::Policy => self.policy(ap, body),
            ActionKind::SelectModel => self.reason(ap, body, VOCABULARY.select_model, action),
        }
    }

    /// `allow: {}` or `allow: {reason: ...}`.
    fn grant(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping `{}` or `{reason: ...}`") else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.grant, "`allow`");
        if let Some(r) = m.get("reason") {
            self.nonempty_string(&child(p, "reason"), r);
        }
    }

    /// A one-key mapping `{reason: ...}` / `{content: ...}` with a non-empty string.
    fn reason(&mut self, p: &str, v: &Value, keys: &[&str], action: ActionKind) {
        let action = action.as_str();
        let key = keys.first().copied().unwrap_or_default();
        let shape = format!("a mapping `{{{key}: ...}}`");
        let Value::Object(m) = v else {
            let hint = v
                .as_str()
                .map(|s| format!("write `{action}: {{ {key}: \"{s}\" }}`"));
            self.type_error(p, &shape, v, hint);
            return;
        };
        self.unknown_keys(p, m, keys, &format!("`{action}`"));
        match m.get(key) {
            None => self.missing(p, key, &format!("`{action}`"), None),
            Some(r) => {
                self.nonempty_string(&child(p, key), r);
            }
        }
    }

    fn patch(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a request patch mapping") else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.patch, "`patch`");
        if m.is_empty() {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "empty-patch",
                format!(
                    "empty `patch`, expected at least one of: {}",
                    quoted_list(VOCABULARY.patch)
                ),
                None,
            );
        }
        if let Some(x) = m.get("model") {
            self.nonempty_string(&child(p, "model"), x);
        }
        if let Some(x) = m.get("preamble") {
            self.string(&child(p, "preamble"), x);
        }
        if let Some(x) = m.get("temperature") {
            self.temperature(&child(p, "temperature"), x);
        }
        if let Some(x) = m.get("max_tokens") {
            let range = VOCABULARY.int_range("RequestPatch", "max_tokens");
            self.integer(&child(p, "max_tokens"), x, range);
        }
        if let Some(x) = m.get("tool_choice") {
            self.tool_choice(&child(p, "tool_choice"), x);
        }
        if let Some(x) = m.get("history") {
            self.history(&child(p, "history"), x);
        }
        if let Some(x) = m.get("active_tools") {
            self.string_list(&child(p, "active_tools"), x, false);
        }
        if let Some(x) = m.get("additional_params") {
            self.object(&child(p, "additional_params"), x, "a mapping");
        }
        if let Some(x) = m.get("extra_context") {
            self.string_list(&child(p, "extra_context"), x, true);
        }
    }

    fn temperature(&mut self, tp: &str, x: &Value) {
        let (min, max) = VOCABULARY.float_range("RequestPatch", "temperature");
        match x.as_f64() {
            Some(t) if (min..=max).contains(&t) => {}
            Some(t) => self.report(
                tp,
                At::Value,
                Layer::Schema,
                "out-of-range",
                format!("`temperature` is {t}, expected between {min:.1} and {max:.1}"),
                None,
            ),
            None => self.type_error(tp, "a number", x, None),
        }
    }

    fn tool_choice(&mut self, tp: &str, x: &Value) {
        match x {
            Value::String(_) => {
                self.enum_value(
                    tp,
                    x,
                    "tool choice",
                    VOCABULARY.tool_choices,
                    "unknown-tool-choice",
                );
            }
            Value::Object(tc) => {
                self.unknown_keys(tp, tc, VOCABULARY.specific_tools, "`tool_choice`");
                match tc.get("tools") {
                    None => self.missing(tp, "tools", "`tool_choice`", None),
                    Some(t) => self.string_list(&child(tp, "tools"), t, true),
                }
            }
            other => self.type_error(
                tp,
                &format!(
                    "{} or `{{tools: [...]}}`",
                    quoted_list(VOCABULARY.tool_choices)
                ),
                other,
                None,
            ),
        }
    }

    fn history(&mut self, hp: &str, x: &Value) {
        let Some(h) = self.object(hp, x, "a mapping `{keep_last: N}`") else {
            return;
        };
        self.unknown_keys(hp, h, VOCABULARY.history, "`history`");
        match h.get("keep_last") {
            None => self.missing(hp, "keep_last", "`history`", None),
            Some(k) => {
                let range = VOCABULARY.int_range("HistoryPatch", "keep_last");
                self.integer(&child(hp, "keep_last"), k, range);
            }
        }
    }

    fn rewrite(&mut self, p: &str, v: &Value) {
        let Some(ops) = self.array(p, v, "a list of `{op, pointer, value}` steps") else {
            return;
        };
        if ops.is_empty() {
            self.report(
                p,
                At::Value,
                Layer::Schema,
                "empty-list",
                "`rewrite` must not be empty".to_owned(),
                None,
            );
        }
        for (i, op) in ops.iter().enumerate() {
            let op_p = format!("{p}/{i}");
            if let Some(m) = self.object(&op_p, op, "a mapping `{op, pointer, value}`") {
                self.rewrite_step(&op_p, m);
            }
        }
    }

    /// One `rewrite` step: a known `op` and exactly the keys its shape has.
    fn rewrite_step(&mut self, op_p: &str, m: &Map<String, Value>) {
        let tag = VOCABULARY.rewrite_tag.as_str();
        self.unknown_keys(op_p, m, &VOCABULARY.rewrite_keys(), "a rewrite step");
        let ops = VOCABULARY.rewrite_op_names();
        let kind = match m.get(tag) {
            None => {
                self.missing(
                    op_p,
                    tag,
                    "a rewrite step",
                    Some(format!("expected one of: {}", quoted_list(&ops))),
                );
                None
            }
            Some(k) => self.enum_value(
                &child(op_p, tag),
                k,
                "rewrite op",
                &ops,
                "unknown-rewrite-op",
            ),
        };
        match m.get("pointer") {
            None => self.missing(op_p, "pointer", "a rewrite step", None),
            Some(pv) => self.pointer_value(&child(op_p, "pointer"), pv),
        }
        let Some(shape) = kind.and_then(|k| VOCABULARY.rewrite_ops.iter().find(|v| v.tag == k))
        else {
            return;
        };
        for key in VOCABULARY.rewrite_keys() {
            if key == tag || key == "pointer" {
                continue;
            }
            let has = shape.keys.iter().any(|k| k == key);
            let required = shape.required.iter().any(|k| k == key);
            match (m.contains_key(key), has, required) {
                (false, _, true) => {
                    self.missing(op_p, key, &format!("a `{}` step", shape.tag), None);
                }
                (true, false, _) => self.report(
                    &child(op_p, key),
                    At::Key,
                    Layer::Schema,
                    &format!("{key}-on-{}", shape.tag),
                    format!("a `{}` step takes no `{key}`", shape.tag),
                    None,
                ),
                _ => {}
            }
        }
    }
}
