//! Walk helpers: typed accessors that report a wrong type, unknown keys,
//! missing keys and unknown enum values, and the words messages are made of.

use serde_json::{Map, Value};

use super::{At, Checker};
use crate::automata::escape_token;
use crate::automata::{self, Search};
use crate::diagnostic::Layer;
use crate::duration::{Duration, DurationError};

/// How a finding names the kind of value it found: `a string`, `a list`, ...
pub(super) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// The pointer of `key` inside the mapping at `pointer`.
pub(super) fn child(pointer: &str, key: &str) -> String {
    format!("{pointer}/{}", escape_token(key))
}

/// The last token of `pointer` (the key a finding is about).
pub(super) fn last_key(pointer: &str) -> &str {
    pointer.rsplit('/').next().unwrap_or("")
}

/// `` `a`, `b`, `c` ``.
pub(super) fn quoted_list<S: AsRef<str>>(items: &[S]) -> String {
    items
        .iter()
        .map(|s| format!("`{}`", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Levenshtein distance, for "did you mean" hints.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// "did you mean `x`?" for the candidate closest to `word`, if close enough.
pub(super) fn suggest<S: AsRef<str>>(word: &str, candidates: &[S]) -> Option<String> {
    let lower = word.to_lowercase();
    candidates
        .iter()
        .map(|c| (distance(&lower, c.as_ref()), c.as_ref()))
        .filter(|(d, c)| *d <= 2.max(c.len() / 4) && *d < c.len())
        .min()
        .map(|(_, c)| format!("did you mean `{c}`?"))
}

/// Hints for keys written the way other runtimes spell them.
fn foreign_key_hint(key: &str) -> Option<String> {
    let hint = match key {
        "matcher" | "tools" | "tool" => {
            "tool filters are `include_tools: [...]` / `exclude_tools: [...]`"
        }
        "type" | "hooks" => "a hook is one mapping with `id`, `phase` and one action key",
        "event" | "on" => "the event is `phase:`",
        "if" | "condition" | "match" => "conditions go under `when:`",
        "timeout" => "`timeout` belongs inside `run:`",
        "args" => "exec-form arguments are `argv:` inside `run:`",
        _ => return None,
    };
    Some(hint.to_owned())
}

impl Checker<'_> {
    /// Reports a pattern (`what` `shown`, compiled to `regex`) whose DFA
    /// would exceed [`automata::DFA_SIZE_LIMIT`]: `hooks!` and the loader
    /// build that DFA, so this is a config error, located here rather than
    /// at build time.
    pub(super) fn fits_a_dfa(
        &mut self,
        p: &str,
        what: &str,
        shown: &str,
        regex: &str,
        search: Search,
    ) {
        if let Err(e) = self.dfas.build(regex, search) {
            self.report(
                p,
                At::Value,
                Layer::Semantic,
                "pattern-too-large",
                format!("{what} `{shown}` cannot be compiled into a matcher: {e}"),
                Some(format!(
                    "patterns are compiled into DFAs of at most {} MiB; bounded repetitions after a class (`[ab]{{16}}`) or of `\\w`/`.` multiply the size: simplify the pattern",
                    automata::DFA_SIZE_LIMIT >> 20
                )),
            );
        }
    }

    pub(super) fn type_error(
        &mut self,
        pointer: &str,
        what: &str,
        found: &Value,
        hint: Option<String>,
    ) {
        let key = last_key(pointer);
        let subject = if key.is_empty() || key.bytes().all(|b| b.is_ascii_digit()) {
            String::new()
        } else {
            format!("`{key}`: ")
        };
        self.report(
            pointer,
            At::Value,
            Layer::Schema,
            "wrong-type",
            format!("{subject}expected {what}, found {}", kind_of(found)),
            hint,
        );
    }

    /// Reports the keys of `map` that are not in `allowed`.
    pub(super) fn unknown_keys<S: AsRef<str>>(
        &mut self,
        pointer: &str,
        map: &Map<String, Value>,
        allowed: &[S],
        what: &str,
    ) {
        for key in map.keys() {
            if !allowed.iter().any(|a| a.as_ref() == key) {
                let hint = suggest(key, allowed).or_else(|| foreign_key_hint(key));
                self.report(
                    &child(pointer, key),
                    At::Key,
                    Layer::Schema,
                    "unknown-key",
                    format!(
                        "unknown key `{key}` in {what}, expected one of: {}",
                        quoted_list(allowed)
                    ),
                    hint,
                );
            }
        }
    }

    pub(super) fn missing(&mut self, pointer: &str, key: &str, what: &str, hint: Option<String>) {
        self.report(
            pointer,
            At::Value,
            Layer::Schema,
            "missing-key",
            format!("missing key `{key}` in {what}"),
            hint,
        );
    }

    pub(super) fn object<'v>(
        &mut self,
        pointer: &str,
        v: &'v Value,
        what: &str,
    ) -> Option<&'v Map<String, Value>> {
        match v {
            Value::Object(m) => Some(m),
            other => {
                self.type_error(pointer, what, other, None);
                None
            }
        }
    }

    pub(super) fn string<'v>(&mut self, pointer: &str, v: &'v Value) -> Option<&'v str> {
        match v {
            Value::String(s) => Some(s),
            other => {
                self.type_error(pointer, "a string", other, None);
                None
            }
        }
    }

    pub(super) fn nonempty_string<'v>(&mut self, pointer: &str, v: &'v Value) -> Option<&'v str> {
        let s = self.string(pointer, v)?;
        if s.is_empty() {
            self.report(
                pointer,
                At::Value,
                Layer::Schema,
                "empty-string",
                format!("`{}` must not be empty", last_key(pointer)),
                None,
            );
            return None;
        }
        Some(s)
    }

    pub(super) fn boolean(&mut self, pointer: &str, v: &Value) {
        if !v.is_boolean() {
            self.type_error(pointer, "`true` or `false`", v, None);
        }
    }

    /// Checks the booleans among `keys` of the mapping `m` at `pointer`.
    pub(super) fn booleans(&mut self, pointer: &str, m: &Map<String, Value>, keys: &[&str]) {
        for key in keys {
            if let Some(b) = m.get(*key) {
                self.boolean(&child(pointer, key), b);
            }
        }
    }

    pub(super) fn array<'v>(
        &mut self,
        pointer: &str,
        v: &'v Value,
        what: &str,
    ) -> Option<&'v Vec<Value>> {
        match v {
            Value::Array(a) => Some(a),
            other => {
                self.type_error(pointer, what, other, None);
                None
            }
        }
    }

    pub(super) fn string_list(&mut self, p: &str, v: &Value, non_empty: bool) {
        if let Some(items) = self.array(p, v, "a list of strings") {
            if non_empty && items.is_empty() {
                self.report(
                    p,
                    At::Value,
                    Layer::Schema,
                    "empty-list",
                    format!("`{}` must not be empty", last_key(p)),
                    None,
                );
            }
            for (i, item) in items.iter().enumerate() {
                self.string(&format!("{p}/{i}"), item);
            }
        }
    }

    /// The string `v` if it is one of `allowed`; otherwise reports `code`.
    pub(super) fn enum_value<S: AsRef<str>>(
        &mut self,
        pointer: &str,
        v: &Value,
        what: &str,
        allowed: &[S],
        code: &str,
    ) -> Option<String> {
        let s = self.string(pointer, v)?;
        if allowed.iter().any(|a| a.as_ref() == s) {
            return Some(s.to_owned());
        }
        let hint = suggest(s, allowed);
        self.report(
            pointer,
            At::Value,
            Layer::Schema,
            code,
            format!(
                "unknown {what} `{s}`, expected one of: {}",
                quoted_list(allowed)
            ),
            hint,
        );
        None
    }

    /// `enum_value` on `key` of the mapping `m` at `pointer`, when present.
    pub(super) fn enum_key(
        &mut self,
        pointer: &str,
        m: &Map<String, Value>,
        key: &str,
        what: &str,
        allowed: &[&str],
        code: &str,
    ) -> Option<String> {
        let v = m.get(key)?;
        self.enum_value(&child(pointer, key), v, what, allowed, code)
    }

    pub(super) fn integer(&mut self, pointer: &str, v: &Value, (min, max): (u64, u64)) {
        match v.as_u64() {
            Some(n) if (min..=max).contains(&n) => {}
            Some(n) => self.report(
                pointer,
                At::Value,
                Layer::Schema,
                "out-of-range",
                format!(
                    "`{}` is {n}, expected between {min} and {max}",
                    last_key(pointer)
                ),
                None,
            ),
            None => self.type_error(pointer, "a non-negative integer", v, None),
        }
    }

    pub(super) fn duration(&mut self, pointer: &str, v: &Value) {
        match v {
            Value::String(s) => match Duration::parse(s) {
                Ok(_) => {}
                Err(e @ DurationError::Syntax(_)) => self.report(
                    pointer,
                    At::Value,
                    Layer::Schema,
                    "invalid-duration",
                    e.to_string(),
                    None,
                ),
                Err(e) => self.report(
                    pointer,
                    At::Value,
                    Layer::Schema,
                    "duration-out-of-bounds",
                    e.to_string(),
                    None,
                ),
            },
            Value::Number(n) => self.report(
                pointer,
                At::Value,
                Layer::Schema,
                "bare-number-duration",
                format!("`{}`: a bare number is not a duration", last_key(pointer)),
                Some(format!("write the unit: `{n}ms`, `{n}s` or `{n}m`")),
            ),
            other => self.type_error(
                pointer,
                "a duration string such as `500ms`, `5s` or `2m`",
                other,
                None,
            ),
        }
    }

    /// A JSON pointer (the rule is [`automata::pointer_tokens`]).
    pub(super) fn pointer_value(&mut self, pointer: &str, v: &Value) {
        if let Some(p) = self.string(pointer, v)
            && let Err(problem) = automata::pointer_tokens(p)
        {
            let hint = (!p.starts_with('/')).then(|| format!("write `/{p}`"));
            self.report(
                pointer,
                At::Value,
                Layer::Schema,
                "invalid-pointer",
                problem.to_string(),
                hint,
            );
        }
    }
}
