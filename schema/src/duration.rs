//! Durations written with a unit: `500ms`, `5s`, `2m`.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The regular expression (JSON Schema `pattern`) of a valid duration:
/// digits followed by `ms`, `s` or `m`, with the value between 1 ms and
/// 10 minutes (`1ms`..`600000ms`, `1s`..`600s`, `1m`..`10m`; leading zeros
/// allowed). [`Duration::parse`] accepts exactly the strings it matches.
pub const DURATION_PATTERN: &str = "^(0*([1-9][0-9]{0,4}|[1-5][0-9]{5}|600000)ms|0*([1-9][0-9]?|[1-5][0-9]{2}|600)s|0*([1-9]|10)m)$";

/// A duration from a config, kept in whole milliseconds.
///
/// Written as a string of digits followed by a unit: `ms` (milliseconds), `s`
/// (seconds) or `m` (minutes), e.g. `"500ms"`, `"5s"`, `"2m"`. A bare number
/// (`600`) is rejected because its unit would be a guess. Values must lie in
/// [`Duration::MIN`]..=[`Duration::MAX`] (1 ms to 10 minutes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration {
    millis: u64,
}

/// Why a duration string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DurationError {
    /// The text is not digits followed by `ms`, `s` or `m`.
    #[error(
        "invalid duration `{0}`, expected digits followed by a unit: `ms`, `s` or `m` (e.g. `500ms`, `5s`, `2m`)"
    )]
    Syntax(String),
    /// The value is below 1 ms or above 10 minutes.
    #[error("duration `{0}` is out of bounds, expected between `1ms` and `10m`")]
    OutOfBounds(String),
}

impl Duration {
    /// The shortest accepted duration: 1 ms.
    pub const MIN: Duration = Duration { millis: 1 };
    /// The longest accepted duration: 10 minutes (600 000 ms).
    pub const MAX: Duration = Duration { millis: 600_000 };

    /// A duration of `millis` milliseconds, or `None` outside 1 ms..=10 min.
    pub const fn from_millis(millis: u64) -> Option<Duration> {
        if millis >= Self::MIN.millis && millis <= Self::MAX.millis {
            Some(Duration { millis })
        } else {
            None
        }
    }

    /// The duration in milliseconds.
    pub const fn as_millis(self) -> u64 {
        self.millis
    }

    /// The duration as a [`std::time::Duration`].
    pub const fn to_std(self) -> std::time::Duration {
        std::time::Duration::from_millis(self.millis)
    }

    /// Parses `"500ms"`, `"5s"` or `"2m"`.
    ///
    /// # Errors
    ///
    /// [`DurationError::Syntax`] when the text is not digits followed by `ms`,
    /// `s` or `m`; [`DurationError::OutOfBounds`] when the value is outside
    /// 1 ms..=10 min.
    pub fn parse(text: &str) -> Result<Duration, DurationError> {
        let syntax = || DurationError::Syntax(text.to_owned());
        let (digits, factor) = if let Some(d) = text.strip_suffix("ms") {
            (d, 1)
        } else if let Some(d) = text.strip_suffix('s') {
            (d, 1_000)
        } else if let Some(d) = text.strip_suffix('m') {
            (d, 60_000)
        } else {
            return Err(syntax());
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(syntax());
        }
        let millis = digits
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(factor))
            .ok_or_else(|| DurationError::OutOfBounds(text.to_owned()))?;
        Duration::from_millis(millis).ok_or_else(|| DurationError::OutOfBounds(text.to_owned()))
    }
}

impl fmt::Display for Duration {
    /// The shortest exact spelling: `2m`, `5s` or `500ms`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.millis.is_multiple_of(60_000) {
            write!(f, "{}m", self.millis / 60_000)
        } else if self.millis.is_multiple_of(1_000) {
            write!(f, "{}s", self.millis / 1_000)
        } else {
            write!(f, "{}ms", self.millis)
        }
    }
}

impl std::str::FromStr for Duration {
    type Err = DurationError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Duration::parse(s)
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Duration;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration string such as `500ms`, `5s` or `2m`")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Duration, E> {
                Duration::parse(v).map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visitor)
    }
}

impl JsonSchema for Duration {
    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": "Duration",
            "description": "A duration: digits followed by a unit, `ms` (milliseconds), `s` (seconds) or `m` (minutes). Between `1ms` and `10m`. A bare number is an error.",
            "type": "string",
            "pattern": DURATION_PATTERN,
            "examples": ["500ms", "5s", "2m"]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(Duration::parse("500ms").unwrap().as_millis(), 500);
        assert_eq!(Duration::parse("5s").unwrap().as_millis(), 5_000);
        assert_eq!(Duration::parse("2m").unwrap().as_millis(), 120_000);
        assert_eq!(Duration::parse("10m").unwrap(), Duration::MAX);
        assert_eq!(Duration::parse("1ms").unwrap(), Duration::MIN);
    }

    #[test]
    fn rejects_bad_syntax_and_bounds() {
        for bad in ["", "600", "5 s", "5h", "-1s", "1.5s", "ms", "s5"] {
            assert!(
                matches!(Duration::parse(bad), Err(DurationError::Syntax(_))),
                "{bad}"
            );
        }
        for out in ["0ms", "0s", "11m", "600001ms", "99999999999999999999m"] {
            assert!(
                matches!(Duration::parse(out), Err(DurationError::OutOfBounds(_))),
                "{out}"
            );
        }
    }

    #[test]
    fn display_round_trips() {
        for text in ["1ms", "1500ms", "5s", "2m", "90s"] {
            assert_eq!(Duration::parse(text).unwrap().to_string(), text);
        }
    }
}
