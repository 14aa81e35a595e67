//! An interpreted hook engine, written the way run-time-config hook systems
//! are: the config kept as a `serde_json::Value`, each hook a
//! `Box<dyn Hook>` holding its tool patterns as a `Vec<regex::Regex>` and
//! its `when` as JSON, interpreted on every event. It is the baseline the
//! compiled and loaded tables are measured against; it understands the
//! subset of the config language the generated policies use (`include_tools`
//! globs and regexes, `when` with `matches` / `glob` / `all` / `any` / `not`,
//! `block`).

#![allow(dead_code, reason = "each bench uses a part of the engine")]

use regex::Regex;
use serde_json::Value;

/// What a hook decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Let the call through.
    Continue,
    /// Block it, with the reason.
    Block(String),
}

/// An event, as such engines receive it.
#[derive(Debug)]
pub(crate) struct Event<'a> {
    /// The phase's name.
    pub(crate) phase: &'a str,
    /// The tool's name.
    pub(crate) tool: &'a str,
    /// The tool's arguments.
    pub(crate) args: &'a Value,
}

/// A hook of the engine.
pub(crate) trait Hook {
    /// Answers one event.
    fn on_event(&self, event: &Event<'_>) -> Decision;
}

/// A config hook: its JSON, its tool regexes, its `when` regexes compiled
/// once (by pointer and pattern text).
struct ConfigHook {
    config: Value,
    tools: Vec<Regex>,
    regexes: Vec<(String, Regex)>,
}

impl ConfigHook {
    fn eval(&self, when: &Value, args: &Value) -> bool {
        if let Some(items) = when.get("all").and_then(Value::as_array) {
            return items.iter().all(|w| self.eval(w, args));
        }
        if let Some(items) = when.get("any").and_then(Value::as_array) {
            return items.iter().any(|w| self.eval(w, args));
        }
        if let Some(inner) = when.get("not") {
            return !self.eval(inner, args);
        }
        let pointer = when.get("pointer").and_then(Value::as_str).unwrap_or("");
        let Some(text) = args.pointer(pointer).and_then(Value::as_str) else {
            return false;
        };
        let pattern = when
            .get("matches")
            .or_else(|| when.get("glob"))
            .and_then(Value::as_str)
            .unwrap_or("");
        self.regexes
            .iter()
            .find(|(p, _)| p == pattern)
            .is_some_and(|(_, re)| re.is_match(text))
    }
}

impl Hook for ConfigHook {
    fn on_event(&self, event: &Event<'_>) -> Decision {
        if self.config["phase"].as_str() != Some(event.phase) {
            return Decision::Continue;
        }
        if !self.tools.is_empty() && !self.tools.iter().any(|re| re.is_match(event.tool)) {
            return Decision::Continue;
        }
        if let Some(when) = self.config.get("when")
            && !self.eval(when, event.args)
        {
            return Decision::Continue;
        }
        match self.config.pointer("/block/reason").and_then(Value::as_str) {
            Some(reason) => Decision::Block(reason.to_owned()),
            None => Decision::Continue,
        }
    }
}

/// A glob as an anchored regex (`*` and `?` only, what the policies use).
fn glob_regex(glob: &str) -> String {
    let mut out = String::from("^");
    for c in glob.chars() {
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            c => out.push_str(&regex::escape(&c.to_string())),
        }
    }
    out.push('$');
    out
}

fn when_regexes(when: &Value, out: &mut Vec<(String, Regex)>) {
    for key in ["all", "any"] {
        for w in when
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            when_regexes(w, out);
        }
    }
    if let Some(inner) = when.get("not") {
        when_regexes(inner, out);
    }
    if let Some(re) = when.get("matches").and_then(Value::as_str) {
        out.push((
            re.to_owned(),
            Regex::new(re).expect("the policy's regex compiles"),
        ));
    }
    if let Some(g) = when.get("glob").and_then(Value::as_str) {
        out.push((
            g.to_owned(),
            Regex::new(&glob_regex(g)).expect("the glob compiles"),
        ));
    }
}

/// The engine: its hooks, in declared order.
pub(crate) struct Engine {
    hooks: Vec<Box<dyn Hook>>,
}

impl Engine {
    /// Loads a YAML config.
    ///
    /// # Panics
    ///
    /// When the YAML is not a config of the supported subset.
    pub(crate) fn load(yaml: &str) -> Engine {
        let config: Value = serde_saphyr::from_str(yaml).expect("the policy parses");
        let hooks = config["hooks"]
            .as_array()
            .expect("the policy has hooks")
            .iter()
            .map(|hook| {
                let tools = hook["include_tools"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|t| match t {
                        Value::String(glob) => Regex::new(&glob_regex(glob)),
                        other => {
                            Regex::new(&format!("^(?:{})$", other["regex"].as_str().unwrap_or("")))
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .expect("the tool patterns compile");
                let mut regexes = Vec::new();
                if let Some(when) = hook.get("when") {
                    when_regexes(when, &mut regexes);
                }
                Box::new(ConfigHook {
                    config: hook.clone(),
                    tools,
                    regexes,
                }) as Box<dyn Hook>
            })
            .collect();
        Engine { hooks }
    }

    /// Runs every hook on `event` in order; the first block wins.
    pub(crate) fn dispatch(&self, event: &Event<'_>) -> Decision {
        for hook in &self.hooks {
            let decision = hook.on_event(event);
            if decision != Decision::Continue {
                return decision;
            }
        }
        Decision::Continue
    }
}
