//! The per-phase rules of the generated JSON Schema that the config
//! types' `JsonSchema` impls add (`if`/`then` from the capability table),
//! and the schema of a `when` predicate. `crate::schema` assembles the
//! whole document from the types.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::{Value, json};

use crate::capability::{ActionKind, Capabilities, phases_where};
use crate::config::ACTION_KEYS;
use crate::phase::{FailurePolicy, OutcomeKind, Phase};

/// The per-phase rules of the hook schema, derived from the capability
/// table: for each restricted key (an action, a tool filter, failure policy
/// `block`, `outcome` leaves in `when`), `(key, schema the key must match on
/// the phases that do not allow it, whether a phase allows it)`.
fn phase_rules(generator: &mut SchemaGenerator) -> Vec<(&'static str, Value, PhaseTest)> {
    let mut rules: Vec<(&'static str, Value, PhaseTest)> = ActionKind::ALL
        .into_iter()
        .filter(|a| !phases_where(|c| !c.actions.contains(*a)).is_empty())
        .map(|a| {
            let allowed: PhaseTest = Box::new(move |c| c.actions.contains(a));
            (a.as_str(), json!(false), allowed)
        })
        .collect();
    for key in TOOL_FILTER_KEYS {
        rules.push((key, json!(false), Box::new(|c| c.tool)));
    }
    rules.push((
        "failure_policy",
        json!({"not": {"const": FailurePolicy::Block.as_str()}}),
        Box::new(|c| c.block_policy),
    ));
    let without_outcome = generator
        .subschema_for::<PredicateWithoutOutcome>()
        .to_value();
    rules.push(("when", without_outcome, Box::new(|c| c.outcome)));
    rules.push(("async", json!({"const": false}), Box::new(|c| c.background)));
    rules
}

/// Whether a phase (given by its capabilities) allows something.
type PhaseTest = Box<dyn Fn(&Capabilities) -> bool>;

/// The keys of a hook that filter tools (allowed where [`Capabilities::tool`]).
pub(crate) const TOOL_FILTER_KEYS: [&str; 2] = ["include_tools", "exclude_tools"];

/// Adds "exactly one action", the per-phase rules, "no `parallel` beside
/// a rewrite" and "`async` only on `run`, `http` and `policy`, with failure
/// policy `ignore` or `warn`" to the hook schema.
pub(crate) fn add_hook_rules(schema: &mut Schema, generator: &mut SchemaGenerator) {
    let one_of: Vec<Value> = ACTION_KEYS
        .iter()
        .map(|k| json!({"required": [k]}))
        .collect();
    // Each rule fires only for a *known* phase outside the allowed set, so an
    // unknown phase is reported once (by the `phase` enum), not once per rule.
    let mut rules: Vec<Value> = phase_rules(generator)
        .into_iter()
        .map(|(key, then, allowed)| {
            let others: Vec<&str> = phases_where(|c| !allowed(c))
                .into_iter()
                .map(Phase::as_str)
                .collect();
            json!({
                "if": {"required": ["phase"], "properties": {"phase": {"enum": others}}},
                "then": {"properties": {key: then}}
            })
        })
        .collect();
    // `parallel: true` beside an action that chains (`rewrite`).
    for action in ActionKind::ALL.into_iter().filter(|a| a.chains()) {
        rules.push(json!({
            "if": {"required": [action.as_str()]},
            "then": {"properties": {"parallel": {"const": false}}}
        }));
    }
    // `async: true` beside an action that decides at once.
    for action in ActionKind::ALL.into_iter().filter(|a| !a.background()) {
        rules.push(json!({
            "if": {"required": [action.as_str()]},
            "then": {"properties": {"async": {"const": false}}}
        }));
    }
    // `async: true` with a failure policy that acts on the event.
    let background_policies: Vec<&str> = FailurePolicy::ALL
        .into_iter()
        .filter(|p| p.is_background())
        .map(FailurePolicy::as_str)
        .collect();
    rules.push(json!({
        "if": {"required": ["async"], "properties": {"async": {"const": true}}},
        "then": {"properties": {"failure_policy": {"enum": background_policies}}}
    }));
    schema.insert("oneOf".into(), Value::Array(one_of));
    schema.insert("allOf".into(), Value::Array(rules));
}

/// A `when` predicate of a phase other than `after_tool` (no `outcome` leaves).
struct PredicateWithoutOutcome;

impl JsonSchema for PredicateWithoutOutcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PredicateWithoutOutcome".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        predicate_schema(generator, false)
    }
}

/// The schema of a `when` predicate; `outcome` leaves only if `with_outcome`.
pub(crate) fn predicate_schema(generator: &mut SchemaGenerator, with_outcome: bool) -> Schema {
    let this = if with_outcome {
        generator.subschema_for::<crate::config::Predicate>()
    } else {
        generator.subschema_for::<PredicateWithoutOutcome>()
    }
    .to_value();
    let pointer = json!({
        "type": "string",
        "pattern": crate::POINTER_PATTERN,
        "description": "RFC 6901 JSON pointer into the event's subject: the arguments (`before_tool`), the result (`after_tool`), the one `subject` names, e.g. `/command`.",
        "examples": ["/command", "/path"]
    });
    let subject = json!({
        "enum": ["args", "result"],
        "description": "What `pointer` addresses where an event carries more than one subject: `args`, the tool call's arguments (on `after_tool`, whose default is the result), or `result`."
    });
    let leaf = |key: &str, schema: Value| {
        json!({
            "type": "object",
            "properties": {"subject": subject.clone(), "pointer": pointer.clone(), key: schema},
            "required": ["pointer", key],
            "additionalProperties": false
        })
    };
    let mut branches = vec![
        json!({"type": "object", "properties": {"all": {"type": "array", "items": this.clone(), "description": "All of these predicates hold (true when empty)."}}, "required": ["all"], "additionalProperties": false}),
        json!({"type": "object", "properties": {"any": {"type": "array", "items": this.clone(), "description": "At least one of these predicates holds (false when empty)."}}, "required": ["any"], "additionalProperties": false}),
        json!({"type": "object", "properties": {"not": {"allOf": [this], "description": "This predicate does not hold."}}, "required": ["not"], "additionalProperties": false}),
        leaf(
            "matches",
            json!({"type": "string", "description": "A regular expression (Rust `regex` syntax) searched for in the string at `pointer` (unanchored: use `^`/`$` to anchor).", "examples": ["\\brm\\s+-rf\\b"]}),
        ),
        leaf(
            "glob",
            json!({"type": "string", "description": "A glob that must match the whole string at `pointer`.", "examples": ["*.env"]}),
        ),
        leaf(
            "equals",
            json!({"description": "The value at `pointer` equals this JSON value."}),
        ),
        leaf(
            "exists",
            json!({"type": "boolean", "description": "`true`: the pointer resolves; `false`: it does not."}),
        ),
    ];
    branches.push(json!({"type": "object", "properties": {"permission": {"type": "string", "description": "A Claude Code permission rule on the tool call (tool phases): `Tool`, `Tool(specifier)`, `Bash(git push *)` (some simple command of the line), `Edit(src/**)`, `WebFetch(domain:example.com)`, `mcp__server__*`.", "examples": ["Bash(git push *)"]}}, "required": ["permission"], "additionalProperties": false}));
    if with_outcome {
        let outcome = generator.subschema_for::<OutcomeKind>().to_value();
        let mut outcome_prop = json!({"description": "The tool's outcome (`after_tool` only): `success`, `timeout`, `not_found`, `denied` or `error`."});
        if let (Value::Object(o), Value::Object(r)) = (&mut outcome_prop, outcome) {
            o.extend(r);
        }
        branches.push(json!({"type": "object", "properties": {"outcome": outcome_prop}, "required": ["outcome"], "additionalProperties": false}));
    }
    let description = if with_outcome {
        "A predicate: `all`/`any`/`not` over predicates, a test `{pointer, matches|glob|equals|exists}` on the event's arguments or result (`subject: args` for the arguments on `after_tool`), a Claude Code `{permission: RULE}`, or (on `after_tool`) `{outcome: ...}`."
    } else {
        "A predicate: `all`/`any`/`not` over predicates, a test `{pointer, matches|glob|equals|exists}` on the event's subject, or a Claude Code `{permission: RULE}` (`outcome` is only available on `after_tool`)."
    };
    let value = json!({
        "description": description,
        "type": "object",
        "oneOf": branches,
        "examples": [{"pointer": "/command", "matches": "\\brm\\s+-rf\\b"}]
    });
    Schema::try_from(value).unwrap_or_default()
}
