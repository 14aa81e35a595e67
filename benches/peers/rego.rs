//! The policy as Rego, evaluated by `regorus` (the workspace's version and
//! features): what a user picking an OPA-style policy engine runs. Each
//! rule becomes one `deny contains "<reason>" if { ... }` definition per
//! tool pattern (exact names compared, globs by `glob.match` without
//! delimiters, regexes anchored by `regex.match`), its `when` leaves
//! inline (`any` / `not` as helper rules). The engine is prepared once
//! (policy added and parsed, the rule evaluated once); per event the input
//! (`{"phase", "tool", "args"}`) is built and set and `data.hooks.deny`
//! evaluated.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Decision, Rules, Tool, When};

/// The Rego package of the generated policy.
const QUERY: &str = "data.hooks.deny";

/// A Rego string literal for `text`.
fn quote(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

/// `input.args` at `pointer` (a JSON pointer into the arguments).
fn path(pointer: &str) -> String {
    let mut out = String::from("input.args");
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        write!(out, "[{}]", quote(&token)).expect("writing to a string");
    }
    out
}

/// The Rego source of `rules`.
pub(crate) fn source(rules: &Rules) -> String {
    let mut helpers = String::new();
    let mut next = 0;
    let mut out = String::from("package hooks\n\nimport rego.v1\n");
    for rule in &rules.0 {
        let mut conditions = vec![format!("input.phase == {}", quote("before_tool"))];
        if let Some(when) = &rule.when {
            conditions.extend(body(when, &mut helpers, &mut next));
        }
        let tools: Vec<Option<String>> = if rule.tools.is_empty() {
            vec![None]
        } else {
            rule.tools.iter().map(|t| Some(tool(t))).collect()
        };
        for tool in tools {
            write!(
                out,
                "\n# {}\ndeny contains {} if {{\n",
                rule.id,
                quote(&rule.reason)
            )
            .expect("writing to a string");
            for line in tool.iter().chain(&conditions) {
                writeln!(out, "\t{line}").expect("writing to a string");
            }
            out.push_str("}\n");
        }
    }
    out + &helpers
}

fn tool(tool: &Tool) -> String {
    match tool {
        Tool::Exact(name) => format!("input.tool == {}", quote(name)),
        Tool::Glob(glob) => format!("glob.match({}, null, input.tool)", quote(glob)),
        Tool::Regex(regex) => format!(
            "regex.match({}, input.tool)",
            quote(&format!("^(?:{regex})$"))
        ),
    }
}

/// The body lines that hold when `when` does; `any` and `not` go through
/// a helper rule appended to `helpers`.
fn body(when: &When, helpers: &mut String, next: &mut usize) -> Vec<String> {
    match when {
        When::Matches { pointer, regex } => {
            vec![format!("regex.match({}, {})", quote(regex), path(pointer))]
        }
        When::Glob { pointer, glob } => {
            vec![format!(
                "glob.match({}, null, {})",
                quote(glob),
                path(pointer)
            )]
        }
        When::All(items) => items.iter().flat_map(|w| body(w, helpers, next)).collect(),
        When::Any(items) => {
            let name = helper(next);
            for item in items {
                let lines = body(item, helpers, next);
                writeln!(helpers, "\n{name} if {{\n\t{}\n}}", lines.join("\n\t"))
                    .expect("writing to a string");
            }
            vec![name]
        }
        When::Not(inner) => {
            let name = helper(next);
            let lines = body(inner, helpers, next);
            writeln!(
                helpers,
                "\n{name}_holds if {{\n\t{}\n}}",
                lines.join("\n\t")
            )
            .expect("writing to a string");
            vec![format!("not {name}_holds")]
        }
    }
}

fn helper(next: &mut usize) -> String {
    *next += 1;
    format!("when_{next}")
}

/// The prepared engine.
pub(crate) struct Rego {
    engine: regorus::Engine,
}

impl Rego {
    /// An engine holding `rules` as Rego, prepared (parsed, analysed) by
    /// one evaluation.
    ///
    /// # Panics
    ///
    /// When regorus refuses the generated policy.
    pub(crate) fn new(rules: &Rules) -> Rego {
        let mut engine = regorus::Engine::new();
        engine
            .add_policy("hooks.rego".to_owned(), source(rules))
            .expect("the generated Rego parses");
        engine.set_input(regorus::Value::new_object());
        engine
            .eval_rule(QUERY.to_owned())
            .expect("the generated Rego evaluates");
        Rego { engine }
    }

    /// Decides one `before_tool` event: the input set, the rule evaluated;
    /// blocked with the first reason of the `deny` set, if any.
    ///
    /// # Panics
    ///
    /// When the evaluation fails.
    pub(crate) fn decide(&mut self, tool: &str, args: &Value) -> Decision {
        let mut input = regorus::Value::new_object();
        let object = input.as_object_mut().expect("a new object");
        object.insert("phase".into(), "before_tool".into());
        object.insert("tool".into(), tool.into());
        object.insert("args".into(), regorus::Value::from(args.clone()));
        self.engine.set_input(input);
        let deny = self
            .engine
            .eval_rule(QUERY.to_owned())
            .expect("the policy evaluates");
        match deny {
            regorus::Value::Set(reasons) => reasons
                .iter()
                .next()
                .map(|r| r.as_string().expect("a reason is a string").to_string()),
            _ => None,
        }
    }
}
