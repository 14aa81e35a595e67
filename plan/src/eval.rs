//! Matching without allocation: tool names, pointers, predicates; and the
//! one JSON rewrite of `rewrite` actions.

use serde_json::Value;

use crate::automata::{Search, try_is_match};
use crate::data::{
    ActionSpec, Dfa, Json, PermissionRule, Pred, RewriteStep, Rule, Scope, ScopeKind, Specifier,
    Test, Text, ToolSet,
};
use crate::phase::{OutcomeKind, Phase};
use crate::scope::Admission;

impl Dfa {
    /// Whether the DFA matches `haystack`: the regex crate's answer on every
    /// string. Never allocates where the DFA decides; where it gives up (a
    /// Unicode word boundary on non-ASCII input) its fallback decides.
    pub fn is_match(&self, haystack: &str, search: Search) -> bool {
        let decided = match self {
            Dfa::Static(s) => try_is_match(s.get(), haystack, search),
            Dfa::Owned(d) => try_is_match(&d.dfa, haystack, search),
            Dfa::LazyStatic(l) => Some(l.is_match(haystack, search)),
            Dfa::Lazy(l) => Some(l.is_match(haystack, search)),
        };
        decided.unwrap_or_else(|| self.fallback(search).is_match(haystack.as_bytes()))
    }
}

impl ToolSet {
    /// Whether `name` equals one of the exact names or matches the DFA.
    pub fn matches(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
            || self
                .dfa
                .as_ref()
                .is_some_and(|d| d.is_match(name, Search::Anchored))
    }
}

/// What `when` pointers address on an event.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    /// A JSON value (tool arguments or result, request, response).
    Json(&'a Value),
    /// A text (prompt, delta, reasoning, assistant text, output, error):
    /// the empty pointer `""` addresses it; no other pointer resolves.
    Text(&'a str),
    /// Nothing (`run_start`).
    None,
}

/// The event facts a rule is matched against: its phase, its tool (tool
/// phases), what its pointers address and, on `after_tool`, the outcome.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The event's phase.
    pub phase: Phase,
    /// The tool's name on tool phases.
    pub tool: Option<&'a str>,
    /// What `when` pointers address.
    pub subject: Subject<'a>,
    /// The tool call's arguments on tool phases (`subject: args` and
    /// permission rules address them; on `before_tool` they are also the
    /// subject).
    pub args: Option<&'a Value>,
    /// The tool's outcome (`after_tool`).
    pub outcome: Option<OutcomeKind>,
    /// The session's active scopes and the `once` rules admitted on this
    /// event ([`Admission`]); `None` (an event judged alone, as `explain`
    /// does): no scope is active and `once` rules have not run yet.
    pub admission: Option<Admission<'a>>,
}

/// A resolved pointer target.
#[derive(Debug, Clone, Copy)]
enum Target<'a> {
    Json(&'a Value),
    Text(&'a str),
}

/// An RFC 6901 array index: `0` or digits without a leading zero. `-` (past
/// the end) and anything else resolve to nothing.
fn array_index(token: &str) -> Option<usize> {
    let bytes = token.as_bytes();
    if bytes.is_empty() || (bytes.len() > 1 && bytes[0] == b'0') {
        return None;
    }
    if !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    token.parse().ok()
}

/// Resolves pre-split `tokens` against `value` (RFC 6901 section 4).
pub fn resolve<'v>(value: &'v Value, tokens: &[Text]) -> Option<&'v Value> {
    let mut cur = value;
    for token in tokens {
        cur = match cur {
            Value::Object(map) => map.get(&**token)?,
            Value::Array(items) => items.get(array_index(token)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn target<'a>(subject: Subject<'a>, tokens: &[Text]) -> Option<Target<'a>> {
    match subject {
        Subject::Json(v) => resolve(v, tokens).map(Target::Json),
        Subject::Text(t) if tokens.is_empty() => Some(Target::Text(t)),
        Subject::Text(_) | Subject::None => None,
    }
}

impl Json {
    /// Whether `value` equals this literal, as `serde_json::Value`'s `==`
    /// decides. Never allocates.
    pub fn eq_value(&self, value: &Value) -> bool {
        match (self, value) {
            (Json::Null, Value::Null) => true,
            (Json::Bool(a), Value::Bool(b)) => a == b,
            (Json::U64(a), Value::Number(n)) => n.is_u64() && n.as_u64() == Some(*a),
            (Json::I64(a), Value::Number(n)) => n.is_i64() && !n.is_u64() && n.as_i64() == Some(*a),
            (Json::F64(a), Value::Number(n)) => n.is_f64() && n.as_f64() == Some(*a),
            (Json::Str(a), Value::String(b)) => **a == **b,
            (Json::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.eq_value(y))
            }
            (Json::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, x)| b.get(&**k).is_some_and(|y| x.eq_value(y)))
            }
            _ => false,
        }
    }

    /// The literal of a `serde_json::Value` (owned lists; a float that
    /// JSON cannot hold does not occur in a `Value`).
    pub fn from_value(value: Value) -> Json {
        match value {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => Json::U64(u),
                (None, Some(i)) => Json::I64(i),
                (None, None) => Json::F64(n.as_f64().unwrap_or(0.0)),
            },
            Value::String(s) => Json::Str(s.into()),
            Value::Array(items) => Json::Array(items.into_iter().map(Json::from_value).collect()),
            Value::Object(entries) => Json::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (Text::from(k), Json::from_value(v)))
                    .collect(),
            ),
        }
    }

    /// The literal as a `serde_json::Value` (allocates).
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::U64(n) => Value::from(*n),
            Json::I64(n) => Value::from(*n),
            Json::F64(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Json::Str(s) => Value::String(s.to_string()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }

    fn eq_text(&self, text: &str) -> bool {
        matches!(self, Json::Str(s) if **s == *text)
    }
}

impl Pred {
    /// Whether evaluating the predicate reads the event's payload: a
    /// pointer (on the subject or the tool call's arguments) or a
    /// permission rule's specifier. An `outcome` test reads only the
    /// outcome's kind.
    pub fn reads_payload(&self) -> bool {
        match self {
            Pred::All(items) | Pred::Any(items) | Pred::Not(items) => {
                items.iter().any(Pred::reads_payload)
            }
            Pred::Arg { .. } => true,
            Pred::Outcome(_) => false,
            Pred::Permission(rule) => rule.specifier.is_some(),
        }
    }

    /// Evaluates the predicate on an event's facts. Never allocates.
    pub fn eval(&self, facts: &Facts<'_>) -> bool {
        match self {
            Pred::All(items) => items.iter().all(|p| p.eval(facts)),
            Pred::Any(items) => items.iter().any(|p| p.eval(facts)),
            Pred::Not(items) => !items.iter().all(|p| p.eval(facts)),
            Pred::Outcome(kind) => facts.outcome == Some(*kind),
            Pred::Permission(rule) => rule.matches(facts.tool, facts.args),
            Pred::Arg {
                args,
                pointer,
                test,
            } => {
                let subject = match (*args, facts.args) {
                    (false, _) => facts.subject,
                    (true, Some(v)) => Subject::Json(v),
                    (true, None) => Subject::None,
                };
                let found = target(subject, pointer);
                match test {
                    Test::Exists(want) => found.is_some() == *want,
                    Test::Equals(lit) => match found {
                        Some(Target::Json(v)) => lit.eq_value(v),
                        Some(Target::Text(t)) => lit.eq_text(t),
                        None => false,
                    },
                    Test::Matches(dfa) => {
                        text_of(found).is_some_and(|s| dfa.is_match(s, Search::Unanchored))
                    }
                    Test::Glob(dfa) => {
                        text_of(found).is_some_and(|s| dfa.is_match(s, Search::Anchored))
                    }
                }
            }
        }
    }
}

impl PermissionRule {
    /// Whether the rule matches a call of `tool` with `args` (Claude Code's
    /// semantics, docs/config.md's *Permission rules*): the tool is one the rule
    /// names and, with a specifier, the specifier matches — for `Bash`, some
    /// simple command of `command`. Allocates only to split a `Bash`
    /// command into its simple commands.
    pub fn matches(&self, tool: Option<&str>, args: Option<&Value>) -> bool {
        if !tool.is_some_and(|t| self.tools.is_match(t, Search::Anchored)) {
            return false;
        }
        let Some(specifier) = &self.specifier else {
            return true;
        };
        let text = |key: &str| args.and_then(|a| a.get(key)).and_then(Value::as_str);
        let whole = |dfa: &Dfa, s: &str| dfa.is_match(s, Search::Anchored);
        match specifier {
            Specifier::Command(dfa) => text("command").is_some_and(|c| {
                crate::script::sub_commands(c)
                    .iter()
                    .any(|part| whole(dfa, part))
            }),
            Specifier::Path(dfa) => ["file_path", "notebook_path", "path"]
                .into_iter()
                .filter_map(text)
                .any(|p| whole(dfa, &normalized(p))),
            Specifier::Domain(dfa) => text("url")
                .and_then(url_host)
                .is_some_and(|h| whole(dfa, h.trim_end_matches('.'))),
            Specifier::Field { name, dfa } => text(name).is_some_and(|s| whole(dfa, s)),
        }
    }
}

/// The host of `url`, lowercased and percent-decoded, read leniently as a
/// browser would: surrounding blanks ignored, `https:example.com` read as
/// `https://example.com` (the WHATWG URL standard's reading of a special
/// scheme without slashes); `None` when there is no host.
fn url_host(url: &str) -> Option<String> {
    let url = url.trim_matches(|c: char| c.is_ascii_whitespace() || c.is_ascii_control());
    let fixed;
    let url = match url.split_once(':') {
        Some((scheme, rest))
            if !rest.starts_with("//")
                && ["http", "https", "ws", "wss", "ftp"]
                    .contains(&scheme.to_ascii_lowercase().as_str()) =>
        {
            fixed = format!("{scheme}://{}", rest.trim_start_matches('/'));
            fixed.as_str()
        }
        _ => url,
    };
    // The authority, percent-decoded before the host is read.
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let authority = percent_encoding::percent_decode_str(authority).decode_utf8_lossy();
    let url = format!("{scheme}://{authority}{tail}");
    let host = url.parse::<http::Uri>().ok()?.host()?.to_ascii_lowercase();
    Some(host)
}

/// `path` with `//`, `.` and `..` resolved lexically (`/tmp/../etc//passwd`
/// is `/etc/passwd`; a `..` above the root stays at the root, one above
/// the start of a relative path is kept); borrowed when there is nothing
/// to resolve.
fn normalized(path: &str) -> std::borrow::Cow<'_, str> {
    let clean = !path.contains("//") && !path.split('/').any(|part| part == "." || part == "..");
    if clean {
        return std::borrow::Cow::Borrowed(path);
    }
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                _ if absolute => {}
                _ => parts.push(".."),
            },
            other => parts.push(other),
        }
    }
    let joined = parts.join("/");
    std::borrow::Cow::Owned(if absolute {
        format!("/{joined}")
    } else {
        joined
    })
}

fn text_of(target: Option<Target<'_>>) -> Option<&str> {
    match target? {
        Target::Json(Value::String(s)) => Some(s),
        Target::Json(_) => None,
        Target::Text(t) => Some(t),
    }
}

/// Why a rule does not apply to an event: the first condition that failed,
/// in the order dispatch tests them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mismatch {
    /// The event is of another phase.
    Phase,
    /// The rule is disabled.
    Disabled,
    /// The tool matches `exclude_tools`.
    Excluded,
    /// The tool does not match `include_tools`.
    NotIncluded,
    /// `when` does not hold.
    When,
    /// The rule's `scope` is not active in the session.
    OutOfScope,
    /// A `once` rule that already ran in the session (or that a concurrent
    /// event of the session claimed).
    Spent,
}

impl Rule {
    /// Whether matching or answering an event reads the event's payload
    /// (its pointer subject: a request, a response, arguments, a result,
    /// a text; or the tool call's arguments): its `when` does
    /// ([`Pred::reads_payload`]), or its action does (`run`, `http` and
    /// `policy` receive the payload, `rewrite` edits it). Tool names,
    /// scopes and the outcome's kind are not the payload.
    pub fn reads_payload(&self) -> bool {
        !self.action.is_declarative()
            || matches!(self.action, ActionSpec::Rewrite(_))
            || self.when.as_ref().is_some_and(Pred::reads_payload)
    }

    /// Whether this rule applies to an event: same phase, enabled, the tool
    /// included and not excluded (tool phases), and `when` holds. Never
    /// allocates.
    pub fn matches(&self, facts: &Facts<'_>) -> bool {
        self.mismatch(facts).is_none()
    }

    /// The first condition that keeps this rule from applying, or `None`
    /// when it applies. Never allocates.
    pub fn mismatch(&self, facts: &Facts<'_>) -> Option<Mismatch> {
        if facts.phase != self.phase {
            return Some(Mismatch::Phase);
        }
        if !self.enabled {
            return Some(Mismatch::Disabled);
        }
        if let Some(tool) = facts.tool {
            if self.exclude.as_ref().is_some_and(|set| set.matches(tool)) {
                return Some(Mismatch::Excluded);
            }
            if self.include.as_ref().is_some_and(|set| !set.matches(tool)) {
                return Some(Mismatch::NotIncluded);
            }
        }
        if let Some(scope) = &self.scope
            && !in_scope(scope, facts)
        {
            return Some(Mismatch::OutOfScope);
        }
        if let Some(p) = &self.when
            && !p.eval(facts)
        {
            return Some(Mismatch::When);
        }
        match facts.admission {
            Some(a) if self.once && !a.once.contains(&self.id) => Some(Mismatch::Spent),
            _ => None,
        }
    }
}

/// Whether `scope` holds on an event: on a subagent's own `subagent_start`
/// and `subagent_stop`, whether it is that subagent's type (another
/// subagent starting or stopping meanwhile is not in its scope); elsewhere,
/// whether the session has it active ([`Admission`]).
fn in_scope(scope: &Scope, facts: &Facts<'_>) -> bool {
    match (scope.kind, facts.phase, facts.subject) {
        (
            ScopeKind::Subagent,
            Phase::SubagentStart | Phase::SubagentStop,
            Subject::Text(agent_type),
        ) => *scope.name == *agent_type,
        _ => facts.admission.is_some_and(|a| a.scopes.is_active(scope)),
    }
}

/// Applies `steps` to a copy of `value`, in order.
///
/// `set` replaces the value at the pointer, adds the last key of an object,
/// replaces an array element or appends (`-`); a missing parent leaves the
/// value unchanged. `set` at `""` replaces the whole value. `remove` deletes
/// an object key or array element; nothing happens when it is absent.
pub fn rewrite(value: &Value, steps: &[RewriteStep]) -> Value {
    let mut out = value.clone();
    for step in steps {
        match step {
            RewriteStep::Set { pointer, value } => {
                let Some((last, parents)) = pointer.split_last() else {
                    out = value.to_value();
                    continue;
                };
                if let Some(parent) = walk_mut(&mut out, parents) {
                    match parent {
                        Value::Object(map) => {
                            map.insert(last.to_string(), value.to_value());
                        }
                        Value::Array(items) if &**last == "-" => items.push(value.to_value()),
                        Value::Array(items) => {
                            if let Some(slot) = array_index(last).and_then(|i| items.get_mut(i)) {
                                *slot = value.to_value();
                            }
                        }
                        _ => {}
                    }
                }
            }
            RewriteStep::Remove { pointer } => {
                let Some((last, parents)) = pointer.split_last() else {
                    continue;
                };
                match walk_mut(&mut out, parents) {
                    Some(Value::Object(map)) => {
                        map.remove(&**last);
                    }
                    Some(Value::Array(items)) => {
                        if let Some(i) = array_index(last).filter(|i| *i < items.len()) {
                            items.remove(i);
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn walk_mut<'v>(value: &'v mut Value, tokens: &[Text]) -> Option<&'v mut Value> {
    let mut cur = value;
    for token in tokens {
        cur = match cur {
            Value::Object(map) => map.get_mut(&**token)?,
            Value::Array(items) => items.get_mut(array_index(token)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

impl From<Value> for Json {
    fn from(value: Value) -> Self {
        Json::from_value(value)
    }
}

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => serializer.serialize_unit(),
            Json::Bool(b) => serializer.serialize_bool(*b),
            Json::U64(n) => serializer.serialize_u64(*n),
            Json::I64(n) => serializer.serialize_i64(*n),
            Json::F64(f) => serializer.serialize_f64(*f),
            Json::Str(s) => serializer.serialize_str(s),
            Json::Array(items) => serializer.collect_seq(items.iter()),
            Json::Object(entries) => serializer.collect_map(entries.iter().map(|(k, v)| (&**k, v))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::List;

    #[test]
    fn pointers_follow_rfc_6901_indices() {
        let v = serde_json::json!({"a": [10, 20], "": {"x": 1}});
        let t = |s: &[&str]| -> Vec<Text> { s.iter().map(|x| Text::from(x.to_string())).collect() };
        assert_eq!(resolve(&v, &t(&["a", "1"])), Some(&serde_json::json!(20)));
        assert_eq!(resolve(&v, &t(&["a", "01"])), None);
        assert_eq!(resolve(&v, &t(&["a", "-"])), None);
        assert_eq!(resolve(&v, &t(&["", "x"])), Some(&serde_json::json!(1)));
        assert_eq!(resolve(&v, &t(&[])), Some(&v));
    }

    #[test]
    fn json_literals_compare_like_serde_json() {
        let lit = Json::Object(List::Owned(vec![
            ("n".into(), Json::U64(1)),
            (
                "s".into(),
                Json::Array(List::Owned(vec![Json::Str("x".into()), Json::Null])),
            ),
        ]));
        assert!(lit.eq_value(&serde_json::json!({"s": ["x", null], "n": 1})));
        assert!(!lit.eq_value(&serde_json::json!({"s": ["x", null], "n": 1.0})));
        assert!(!lit.eq_value(&serde_json::json!({"s": ["x", null], "n": 1, "m": 2})));
        assert_eq!(
            lit.to_value(),
            serde_json::json!({"n": 1, "s": ["x", null]})
        );
        assert!(Json::I64(-3).eq_value(&serde_json::json!(-3)));
        assert!(Json::F64(0.5).eq_value(&serde_json::json!(0.5)));
    }

    fn ptr(s: &[&str]) -> List<Text> {
        List::Owned(s.iter().map(|x| Text::from(x.to_string())).collect())
    }

    #[test]
    fn rewrite_sets_and_removes() {
        let v = serde_json::json!({"command": "ls", "env": {"TOKEN": "x"}, "a": [1, 2]});
        let steps = [
            RewriteStep::Set {
                pointer: ptr(&["command"]),
                value: Json::Str("ls -la".into()),
            },
            RewriteStep::Remove {
                pointer: ptr(&["env", "TOKEN"]),
            },
            RewriteStep::Set {
                pointer: ptr(&["a", "-"]),
                value: Json::U64(3),
            },
            RewriteStep::Set {
                pointer: ptr(&["a", "0"]),
                value: Json::Null,
            },
            RewriteStep::Set {
                pointer: ptr(&["missing", "x"]),
                value: Json::Null,
            },
            RewriteStep::Remove {
                pointer: ptr(&["a", "9"]),
            },
        ];
        assert_eq!(
            rewrite(&v, &steps),
            serde_json::json!({"command": "ls -la", "env": {}, "a": [null, 2, 3]})
        );
        assert_eq!(
            rewrite(
                &v,
                &[RewriteStep::Set {
                    pointer: ptr(&[]),
                    value: Json::Bool(true)
                }]
            ),
            serde_json::json!(true)
        );
    }
}
