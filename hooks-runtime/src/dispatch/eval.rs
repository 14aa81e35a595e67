//! Matching without allocation: tool names, pointers, predicates.

use hooks_schema::automata::{Search, is_match};
use serde_json::Value;

use super::data::{Dfa, Json, Pred, Rule, Test, Text, ToolSet};
use crate::event::StepEvent;

impl Dfa {
    /// Whether the DFA matches `haystack`. Never allocates.
    pub(crate) fn is_match(&self, haystack: &str, search: Search) -> bool {
        match self {
            Dfa::Static(s) => is_match(s.get(), haystack, search),
            Dfa::Owned(d) => is_match(d, haystack, search),
        }
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

/// A resolved pointer target.
#[derive(Debug, Clone, Copy)]
enum Target<'a> {
    Json(&'a Value),
    Text(&'a str),
}

/// The value `when` pointers address on `event` (see the module docs).
pub fn subject<'a>(event: &StepEvent<'a>) -> Subject<'a> {
    match *event {
        StepEvent::RunStart => Subject::None,
        StepEvent::UserPrompt { prompt } => Subject::Text(prompt),
        StepEvent::BeforeCompletion { request } => Subject::Json(request),
        StepEvent::AfterCompletion { response } | StepEvent::StreamFinish { response } => {
            Subject::Json(response)
        }
        StepEvent::TextDelta { delta } | StepEvent::ToolCallDelta { delta, .. } => {
            Subject::Text(delta)
        }
        StepEvent::AfterReasoning { reasoning } => Subject::Text(reasoning),
        StepEvent::AfterAssistant { text } | StepEvent::Stop { text, .. } => Subject::Text(text),
        StepEvent::BeforeTool { args, .. } => Subject::Json(args),
        StepEvent::AfterTool { result, .. } => Subject::Json(result),
        StepEvent::InvalidToolCall { raw_args, .. } => Subject::Text(raw_args),
        StepEvent::RunEnd { output } => Subject::Text(output),
        StepEvent::RunError { error } => Subject::Text(error),
    }
}

/// An RFC 6901 array index: `0` or digits without a leading zero. `-` (past
/// the end) and anything else resolve to nothing.
pub(crate) fn array_index(token: &str) -> Option<usize> {
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
    /// Evaluates the predicate on `event`. Never allocates.
    pub(crate) fn eval(&self, event: &StepEvent<'_>) -> bool {
        self.eval_on(subject(event), event)
    }

    fn eval_on(&self, subject: Subject<'_>, event: &StepEvent<'_>) -> bool {
        match self {
            Pred::All(items) => items.iter().all(|p| p.eval_on(subject, event)),
            Pred::Any(items) => items.iter().any(|p| p.eval_on(subject, event)),
            Pred::Not(items) => !items.iter().all(|p| p.eval_on(subject, event)),
            Pred::Outcome(kind) => match event {
                StepEvent::AfterTool { outcome, .. } => outcome.kind() == *kind,
                _ => false,
            },
            Pred::Arg { pointer, test } => {
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

fn text_of(target: Option<Target<'_>>) -> Option<&str> {
    match target? {
        Target::Json(Value::String(s)) => Some(s),
        Target::Json(_) => None,
        Target::Text(t) => Some(t),
    }
}

impl Rule {
    /// Whether this rule applies to `event`: same phase, enabled, the tool
    /// included and not excluded (tool phases), and `when` holds. Never
    /// allocates.
    pub fn matches(&self, event: &StepEvent<'_>) -> bool {
        if !self.enabled || event.kind() != self.phase {
            return false;
        }
        if let Some(tool) = event.tool_name() {
            if self.include.as_ref().is_some_and(|set| !set.matches(tool)) {
                return false;
            }
            if self.exclude.as_ref().is_some_and(|set| set.matches(tool)) {
                return false;
            }
        }
        self.when.as_ref().is_none_or(|p| p.eval(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::data::List;

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
}
