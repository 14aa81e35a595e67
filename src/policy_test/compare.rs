//! [`Expect::compare`]: the keys a case gives against what its event came
//! to, each difference rendered as JSON (texts quoted, so a trailing blank
//! or an empty list shows) or `/…/` for a regular expression.

use serde_json::Value;

use super::{Difference, Expect, Observed};

impl Expect {
    /// The keys of `self` that `observed` does not meet, in key order.
    /// Regular expressions are searched unanchored; [`Cases::validate`](super::Cases::validate)
    /// checked that they compile (one that does not never matches).
    pub fn compare(&self, observed: &Observed) -> Vec<Difference> {
        let mut out = Vec::new();
        let mut differ = |field, expected: String, observed: String| {
            out.push(Difference {
                field,
                expected,
                observed,
            });
        };
        if let Some(d) = &self.decision
            && *d != observed.decision
        {
            differ("decision", d.clone(), observed.decision.clone());
        }
        if let Some(pattern) = &self.reason
            && !searches(pattern, observed.reason.as_deref())
        {
            differ("reason", slashed(pattern), json(&observed.reason));
        }
        if let Some(fired) = &self.fired
            && *fired != observed.fired
        {
            differ("fired", json(fired), json(&observed.fired));
        }
        for (field, expected, got) in [
            ("args", &self.args, &observed.args),
            ("result", &self.result, &observed.result),
        ] {
            if let Some(want) = expected
                && Some(want) != got.as_ref()
            {
                differ(field, json(want), json(got));
            }
        }
        if let Some(want) = &self.prompt
            && Some(want) != observed.prompt.as_ref()
        {
            differ("prompt", json(want), json(&observed.prompt));
        }
        if let Some(patterns) = &self.context {
            let fits = patterns.len() == observed.context.len()
                && patterns
                    .iter()
                    .zip(&observed.context)
                    .all(|(p, item)| searches(p, Some(item)));
            if !fits {
                let shown: Vec<String> = patterns.iter().map(|p| slashed(p)).collect();
                differ(
                    "context",
                    format!("[{}]", shown.join(", ")),
                    json(&observed.context),
                );
            }
        }
        if let Some(records) = &self.records {
            let differs = records
                .iter()
                .any(|(hook, want)| observed.statuses(hook) != want.as_slice());
            if differs {
                let got: Vec<String> = records
                    .keys()
                    .map(|hook| format!("{hook} → {}", json(&observed.statuses(hook))))
                    .collect();
                let want: Vec<String> = records
                    .iter()
                    .map(|(hook, statuses)| format!("{hook} → {}", json(statuses)))
                    .collect();
                differ("records", want.join("; "), got.join("; "));
            }
        }
        out
    }
}

/// `value` as compact JSON (`null` for none).
fn json<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| Value::Null.to_string())
}

fn slashed(pattern: &str) -> String {
    format!("/{pattern}/")
}

/// Whether `pattern` is found in `text` (`None`, or a pattern that does
/// not compile: never).
fn searches(pattern: &str, text: Option<&str>) -> bool {
    regex::Regex::new(pattern).is_ok_and(|re| text.is_some_and(|t| re.is_match(t)))
}
