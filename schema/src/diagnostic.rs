//! Located findings: what every layer of validation reports.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Which validation layer produced a [`Diagnostic`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Layer {
    /// The file could not be read.
    Io,
    /// The text is not a well-formed YAML document within the parser budgets.
    Syntax,
    /// The document does not match the config JSON Schema (wrong key, type or value).
    Schema,
    /// A rule the JSON Schema cannot express (unique ids, regexes that compile, ...).
    Semantic,
    /// A valid config that likely does not do what was meant (a rule no call
    /// can reach, a condition that is always false, ...): warnings and notes.
    Lint,
}

impl Layer {
    /// The snake_case name used in JSON output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Layer::Io => "io",
            Layer::Syntax => "syntax",
            Layer::Schema => "schema",
            Layer::Semantic => "semantic",
            Layer::Lint => "lint",
        }
    }
}

/// How serious a [`Diagnostic`] is.
///
/// An error makes the config invalid: [`compile_str`](crate::compile_str)
/// returns `Err`, `hooks!` fails the build, `agent-hooks check` exits 1. A
/// warning (a config that likely does not do what was meant) and a note (a
/// remark, such as a rule nothing uses) leave it valid: they travel in
/// [`Compiled::warnings`](crate::Compiled::warnings), and only `agent-hooks
/// check --deny-warnings` turns warnings (not notes) into a failure.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Severity {
    /// The config is invalid.
    #[default]
    Error,
    /// The config is valid but likely wrong.
    Warning,
    /// A remark about a valid config.
    Note,
}

impl Severity {
    /// The lowercase name shown in rendered diagnostics (`error[code]:`) and
    /// used in JSON output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding in a config, located by file, line, column and JSON pointer.
///
/// Messages follow rustc's style: lowercase, no trailing period, identifiers
/// in backticks, valid alternatives listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The file name as given to the loader (shown as is).
    pub file: String,
    /// 1-based line of the offending key or value.
    pub line: usize,
    /// 1-based column (in characters) of the offending key or value.
    pub column: usize,
    /// RFC 6901 JSON pointer to the offending node; `""` is the document root.
    pub pointer: String,
    /// The validation layer that found it.
    pub layer: Layer,
    /// Error, warning or note ([`Diagnostic::new`] makes an error).
    pub severity: Severity,
    /// Stable short identifier of the rule, e.g. `unknown-phase`.
    pub code: String,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when there is something useful to say.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error without a hint (see [`Diagnostic::with_severity`]).
    pub fn new(
        file: &str,
        line: usize,
        column: usize,
        pointer: &str,
        layer: Layer,
        code: &str,
        message: String,
    ) -> Diagnostic {
        Diagnostic {
            file: file.to_owned(),
            line: line.max(1),
            column: column.max(1),
            pointer: pointer.to_owned(),
            layer,
            severity: Severity::Error,
            code: code.to_owned(),
            message,
            hint: None,
        }
    }

    /// The same diagnostic with `severity`.
    pub fn with_severity(mut self, severity: Severity) -> Diagnostic {
        self.severity = severity;
        self
    }

    /// Whether this is an error (the config is invalid).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The same diagnostic with `hint`.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    pub(crate) fn with_hint_opt(mut self, hint: Option<String>) -> Diagnostic {
        self.hint = hint;
        self
    }

    /// Renders the diagnostic rustc-style. The first line is
    /// `FILE:LINE:COL: SEVERITY[CODE]: MESSAGE` (`error`, `warning` or `note`); when `source` (the config text)
    /// is given, a snippet of the offending line with a caret follows, then
    /// the JSON pointer and the hint:
    ///
    /// ```text
    /// hooks.yaml:4:12: error[unknown-phase]: unknown phase `PreToolCall`, expected one of: ...
    ///   |
    /// 4 |     phase: PreToolCall
    ///   |            ^^^^^^^^^^^
    ///   = at: /hooks/0/phase
    ///   = hint: Claude Code's `PreToolUse` is `before_tool`
    /// ```
    pub fn render(&self, source: Option<&str>) -> String {
        let mut out = self.headline();
        let line_text = source.and_then(|s| s.lines().nth(self.line.saturating_sub(1)));
        let number = self.line.to_string();
        let gutter = " ".repeat(number.len());
        if let Some(text) = line_text {
            let text = text.trim_end_matches('\r');
            let shown: String = text
                .chars()
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            let start = self.column.saturating_sub(1).min(shown.chars().count());
            let rest: String = shown.chars().skip(start).collect();
            let width = token_width(&rest);
            out.push_str(&format!(
                "\n{gutter} |\n{number} | {shown}\n{gutter} | {}{}",
                " ".repeat(start),
                "^".repeat(width)
            ));
        }
        if !self.pointer.is_empty() {
            out.push_str(&format!("\n{gutter} = at: {}", self.pointer));
        }
        if let Some(hint) = &self.hint {
            out.push_str(&format!("\n{gutter} = hint: {hint}"));
        }
        out
    }
}

impl Diagnostic {
    /// `FILE:LINE:COL: SEVERITY[CODE]: MESSAGE`, the first line of both renderings.
    fn headline(&self) -> String {
        format!(
            "{}:{}:{}: {}[{}]: {}",
            self.file, self.line, self.column, self.severity, self.code, self.message
        )
    }
}

/// Width of the token starting a line remainder (at least 1).
fn token_width(rest: &str) -> usize {
    let mut chars = rest.chars();
    let width = match chars.next() {
        Some(q @ ('"' | '\'')) => {
            let inner = chars.take_while(|&c| c != q).count();
            inner + 2
        }
        Some(_) => rest
            .chars()
            .take_while(|&c| !c.is_whitespace() && c != ':' && c != ',' && c != '}' && c != ']')
            .count(),
        None => 1,
    };
    width.clamp(1, rest.chars().count().max(1))
}

impl fmt::Display for Diagnostic {
    /// The first line of [`Diagnostic::render`] plus the hint, without a snippet.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.headline())?;
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

/// Every finding of one load, sorted by position. Never empty. When a
/// loader returns it as `Err`, at least one finding is an error; warnings
/// and notes found beside the errors are included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    /// Wraps `diagnostics`, sorted by line and column, or `None` when empty.
    pub fn from_vec(mut diagnostics: Vec<Diagnostic>) -> Option<Diagnostics> {
        if diagnostics.is_empty() {
            return None;
        }
        diagnostics.sort_by(|a, b| {
            (a.line, a.column, &a.pointer, &a.code).cmp(&(b.line, b.column, &b.pointer, &b.code))
        });
        diagnostics.dedup();
        Some(Diagnostics(diagnostics))
    }

    /// A single diagnostic.
    pub fn single(diagnostic: Diagnostic) -> Diagnostics {
        Diagnostics(vec![diagnostic])
    }

    /// The diagnostics, in position order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.0.iter()
    }

    /// How many diagnostics there are (at least 1).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always `false`: a `Diagnostics` holds at least one finding.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first diagnostic in position order.
    pub fn first(&self) -> &Diagnostic {
        // Invariant: constructed non-empty.
        &self.0[0]
    }

    /// The diagnostics as a slice.
    pub fn as_slice(&self) -> &[Diagnostic] {
        &self.0
    }

    /// Whether any diagnostic is an error (see [`Severity`]).
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    /// Renders every diagnostic with [`Diagnostic::render`], separated by blank lines.
    pub fn render(&self, source: Option<&str>) -> String {
        self.0
            .iter()
            .map(|d| d.render(source))
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for Diagnostics {
    /// One line per diagnostic (see [`Diagnostic`]'s `Display`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostics {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_puts_location_on_first_line_and_carets_under_token() {
        let d = Diagnostic::new(
            "h.yaml",
            2,
            12,
            "/hooks/0/phase",
            Layer::Schema,
            "unknown-phase",
            "unknown phase `PreToolCall`".to_owned(),
        )
        .with_hint("use `before_tool`");
        let text = d.render(Some("hooks:\n    phase: PreToolCall\n"));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "h.yaml:2:12: error[unknown-phase]: unknown phase `PreToolCall`"
        );
        assert_eq!(lines[2], "2 |     phase: PreToolCall");
        assert_eq!(lines[3], "  |            ^^^^^^^^^^^");
        assert_eq!(lines[4], "  = at: /hooks/0/phase");
        assert_eq!(lines[5], "  = hint: use `before_tool`");
    }

    #[test]
    fn diagnostics_sort_by_position() {
        let mk = |line| Diagnostic::new("f", line, 1, "", Layer::Semantic, "x", "m".to_owned());
        let all = Diagnostics::from_vec(vec![mk(3), mk(1), mk(2)]).unwrap();
        let lines: Vec<usize> = all.iter().map(|d| d.line).collect();
        assert_eq!(lines, [1, 2, 3]);
        assert!(Diagnostics::from_vec(Vec::new()).is_none());
    }
}
