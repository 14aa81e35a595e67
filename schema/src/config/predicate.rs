//! `when` predicates: the typed [`Predicate`] and its one-mapping serde form.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::phase::OutcomeKind;

/// A `when` predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// All of these hold (true when empty).
    All(Vec<Predicate>),
    /// At least one of these holds (false when empty).
    Any(Vec<Predicate>),
    /// This does not hold.
    Not(Box<Predicate>),
    /// A test on the value at an RFC 6901 pointer into the event's subject
    /// (the phase's, or the one `subject` names).
    Arg {
        /// What the pointer addresses: `None` for the phase's subject (the
        /// capability table's [`SubjectKind`](crate::SubjectKind)), `args`
        /// for the tool call's arguments on `after_tool`.
        subject: Option<PointerSubject>,
        /// The pointer, e.g. `/command`.
        pointer: String,
        /// The test.
        test: ArgTest,
    },
    /// The tool's outcome (`after_tool` only).
    Outcome(OutcomeKind),
    /// A Claude Code permission rule on the tool call, e.g.
    /// `Bash(git push *)` (tool phases; docs/config.md's *Permission rules*).
    Permission(String),
}

/// What a `pointer` test addresses, where a phase's events carry more than
/// one subject (`after_tool`: the result, and the call's arguments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PointerSubject {
    /// The tool call's arguments.
    Args,
    /// The tool's result.
    Result,
}

impl PointerSubject {
    /// The capability table's name for this subject.
    pub const fn kind(self) -> crate::SubjectKind {
        match self {
            PointerSubject::Args => crate::SubjectKind::Args,
            PointerSubject::Result => crate::SubjectKind::Result,
        }
    }
}

/// Whether a `pointer` test with `subject` addresses the tool call's
/// arguments on `phase` where they are not the phase's subject (`subject:
/// args` on `after_tool`): its plan leaf reads [`Facts::args`](hooks_plan::Facts::args).
pub(crate) fn addresses_args(subject: Option<PointerSubject>, phase: crate::Phase) -> bool {
    subject == Some(PointerSubject::Args)
        && phase.capabilities().subject != crate::SubjectKind::Args
}

/// A test on the value at a pointer.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgTest {
    /// The value is a string in which this regex finds a match (unanchored search).
    Matches(String),
    /// The value is a string matched entirely by this glob.
    Glob(String),
    /// The value equals this JSON value.
    Equals(Value),
    /// The pointer resolves (`true`) or does not (`false`).
    Exists(bool),
}

/// The serde form of a predicate: one mapping with the keys of one variant.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPredicate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    all: Option<Vec<Predicate>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    any: Option<Vec<Predicate>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    not: Option<Box<Predicate>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    subject: Option<PointerSubject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pointer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    matches: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    glob: Option<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    equals: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exists: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    outcome: Option<OutcomeKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    permission: Option<String>,
}

/// Deserializes a present value (even `null`) as `Some`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl TryFrom<RawPredicate> for Predicate {
    type Error = String;
    fn try_from(r: RawPredicate) -> Result<Predicate, String> {
        let tests = [
            r.matches.clone().map(ArgTest::Matches),
            r.glob.clone().map(ArgTest::Glob),
            r.equals.clone().map(ArgTest::Equals),
            r.exists.map(ArgTest::Exists),
        ];
        let n_tests = tests.iter().flatten().count();
        let shapes = usize::from(r.all.is_some())
            + usize::from(r.any.is_some())
            + usize::from(r.not.is_some())
            + usize::from(r.outcome.is_some())
            + usize::from(r.permission.is_some())
            + usize::from(r.pointer.is_some() || n_tests > 0 || r.subject.is_some());
        if shapes != 1 {
            return Err(
                "a predicate needs exactly one of `all`, `any`, `not`, `pointer`, `outcome` or `permission`"
                    .to_owned(),
            );
        }
        if let Some(rule) = r.permission {
            return Ok(Predicate::Permission(rule));
        }
        if let Some(v) = r.all {
            return Ok(Predicate::All(v));
        }
        if let Some(v) = r.any {
            return Ok(Predicate::Any(v));
        }
        if let Some(v) = r.not {
            return Ok(Predicate::Not(v));
        }
        if let Some(o) = r.outcome {
            return Ok(Predicate::Outcome(o));
        }
        let pointer = r.pointer.ok_or("a test needs a `pointer`")?;
        if n_tests != 1 {
            return Err("a `pointer` predicate needs exactly one of `matches`, `glob`, `equals` or `exists`".to_owned());
        }
        let test = tests.into_iter().flatten().next().ok_or("missing test")?;
        Ok(Predicate::Arg {
            subject: r.subject,
            pointer,
            test,
        })
    }
}

impl From<&Predicate> for RawPredicate {
    fn from(p: &Predicate) -> RawPredicate {
        let mut r = RawPredicate::default();
        match p {
            Predicate::All(v) => r.all = Some(v.clone()),
            Predicate::Any(v) => r.any = Some(v.clone()),
            Predicate::Not(v) => r.not = Some(v.clone()),
            Predicate::Outcome(o) => r.outcome = Some(*o),
            Predicate::Permission(rule) => r.permission = Some(rule.clone()),
            Predicate::Arg {
                subject,
                pointer,
                test,
            } => {
                r.subject = *subject;
                r.pointer = Some(pointer.clone());
                match test {
                    ArgTest::Matches(s) => r.matches = Some(s.clone()),
                    ArgTest::Glob(s) => r.glob = Some(s.clone()),
                    ArgTest::Equals(v) => r.equals = Some(v.clone()),
                    ArgTest::Exists(b) => r.exists = Some(*b),
                }
            }
        }
        r
    }
}

impl Serialize for Predicate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RawPredicate::from(self).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Predicate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Predicate::try_from(RawPredicate::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Predicate {
    fn schema_name() -> Cow<'static, str> {
        "Predicate".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        super::schema_rules::predicate_schema(generator, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::tests::load;

    #[test]
    fn predicates_keep_their_shape() {
        let hooks = "  - id: p\n    phase: after_tool\n    when:\n      all:\n        - { outcome: denied }\n        - not: { pointer: /x, equals: null }\n        - any: [{ pointer: /y, exists: false }, { pointer: /z, glob: \"*.rs\" }, { pointer: /c, matches: \"^a\" }]\n    inject: { content: c }\n";
        let c = load(hooks, "");
        let Some(Predicate::All(parts)) = &c.hooks[0].when else {
            panic!()
        };
        assert_eq!(parts[0], Predicate::Outcome(OutcomeKind::Denied));
        assert_eq!(
            parts[1],
            Predicate::Not(Box::new(Predicate::Arg {
                subject: None,
                pointer: "/x".to_owned(),
                test: ArgTest::Equals(Value::Null)
            }))
        );
        let Predicate::Any(any) = &parts[2] else {
            panic!()
        };
        assert_eq!(any.len(), 3);
    }
}
