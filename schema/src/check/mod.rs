//! Layer 3 (and the friendly half of layer 2): a walk over the parsed
//! document that reports every problem with a precise pointer and a
//! rustc-style message.
//!
//! Structural findings (unknown key, wrong type, unknown enum value, missing
//! key) carry [`Layer::Schema`]: the generated JSON Schema rejects the same
//! documents, and the loader drops its generic message when this walk
//! reported the same spot. Rules JSON Schema cannot express (unique ids,
//! regexes and globs that compile, duration bounds) carry [`Layer::Semantic`].
//!
//! Each check is a small named method of [`Checker`], grouped by what it
//! checks: `walk` (typed accessors and reporting), `settings` (the top
//! level, `defaults`, `limits`, `tool_settings`), `hook` (a hook's common
//! keys and the per-phase rules), `action` (the bodies of `block`,
//! `terminate`, `inject`, `patch`, `rewrite`), `run` (`run` and its `env`),
//! `predicate` (`when` and tool-name patterns), `catalogue` (the
//! `catalogue:` key, and a valid config checked against a tool catalogue). Keys and enum values come
//! from the config types (`names`); what a phase allows comes from the
//! capability table ([`crate::capability`]).
//!
//! Every finding goes through [`Checker::report`] (an error) or
//! [`Checker::lint`] (a [`Layer::Lint`] warning or note); both locate it the
//! same way. The lints (`lint*`) run on the typed config once it is valid:
//! they flag configs that load but likely do not do what was meant.

mod action;
mod catalogue;
mod hook;
mod http;
mod layer;
mod lint;
mod lint_stack;
#[cfg(test)]
mod lint_tests;
mod lint_when;
mod names;
mod policy;
mod predicate;
mod run;
mod settings;
mod stack_file;
#[cfg(test)]
mod tests;
mod walk;

pub use lint_stack::{check_stack, check_stack_texts, stack_findings};
pub use run::{cwd_problem, valid_env_name};
pub use stack_file::{StackEntry, read_stack_file};

use crate::diagnostic::{Diagnostic, Layer, Severity};
use crate::plan::DfaCache;
use crate::yaml::Positions;

/// The walk's state: where the document came from and what it found.
pub(crate) struct Checker<'a> {
    file: &'a str,
    positions: &'a Positions,
    pub(crate) out: Vec<Diagnostic>,
    /// The DFAs built while checking that patterns fit one, for the lowering.
    pub(crate) dfas: DfaCache,
}

/// Whether a finding points at a mapping key or at its value.
#[derive(Clone, Copy)]
enum At {
    Key,
    Value,
}

impl<'a> Checker<'a> {
    pub(crate) fn new(file: &'a str, positions: &'a Positions) -> Checker<'a> {
        Checker {
            file,
            positions,
            out: Vec::new(),
            dfas: DfaCache::default(),
        }
    }

    /// Reports an error at `pointer`.
    fn report(
        &mut self,
        pointer: &str,
        at: At,
        layer: Layer,
        code: &str,
        message: String,
        hint: Option<String>,
    ) {
        let diagnostic = self.located(pointer, at, layer, code, message);
        self.out.push(diagnostic.with_hint_opt(hint));
    }

    /// Reports a lint finding (a warning or a note) at `pointer`.
    fn lint(
        &mut self,
        severity: Severity,
        pointer: &str,
        at: At,
        code: &str,
        message: String,
        hint: String,
    ) {
        let diagnostic = self.located(pointer, at, Layer::Lint, code, message);
        self.out
            .push(diagnostic.with_severity(severity).with_hint(hint));
    }

    /// A diagnostic at the key or value of `pointer`.
    fn located(
        &self,
        pointer: &str,
        at: At,
        layer: Layer,
        code: &str,
        message: String,
    ) -> Diagnostic {
        let pos = self.place(pointer, at);
        Diagnostic::new(
            self.file, pos.line, pos.column, pointer, layer, code, message,
        )
    }

    /// Where the key or value of `pointer` starts.
    fn place(&self, pointer: &str, at: At) -> crate::yaml::Pos {
        match at {
            At::Key => self.positions.key_pos(pointer),
            At::Value => self.positions.value_pos(pointer),
        }
    }
}
