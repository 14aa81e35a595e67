//! The tool calls of one replayed run as a stack decided them: which calls
//! its `before_tool` hooks stopped (their recorded `after_tool` event did
//! not happen) and which they ran with rewritten arguments (their
//! `after_tool` event carries them). `replay` keeps one for the enforced
//! pass and, in shadow mode, one for the what-if pass
//! ([`crate::cli::shadow`]), which can stop or rewrite other calls.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use hooks_runtime::OwnedEvent;
use serde_json::Value;

use crate::cli::drive::Applied;

/// The calls one run's stack stopped or rewrote.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    stopped: HashSet<String>,
    rewritten: HashMap<String, Value>,
}

impl Calls {
    /// `event` as this run drives it: `None` for the `after_tool` of a
    /// call it stopped (not replayed); the `after_tool` of a call it
    /// rewrote with the arguments the tool ran with ([`with_args`]); any
    /// other event as recorded.
    pub(crate) fn event<'e>(&self, event: &'e OwnedEvent) -> Option<Cow<'e, OwnedEvent>> {
        let OwnedEvent::AfterTool { call_id, .. } = event else {
            return Some(Cow::Borrowed(event));
        };
        if self.stopped.contains(call_id.as_str()) {
            return None;
        }
        Some(match self.rewritten.get(call_id.as_str()) {
            Some(args) => Cow::Owned(with_args(event, args.clone())),
            None => Cow::Borrowed(event),
        })
    }

    /// Notes what the stack decided on `event` (as recorded): a
    /// `before_tool` it did not `run` stops the call; one it ran with
    /// rewritten arguments rewrites it.
    pub(crate) fn decided(&mut self, event: &OwnedEvent, applied: &Applied) {
        if let OwnedEvent::BeforeTool { call_id, .. } = event {
            if applied.verdict.decision != "run" {
                self.stopped.insert(call_id.clone());
            } else if let Some(args) = &applied.outcome.args {
                self.rewritten.insert(call_id.clone(), args.clone());
            }
        }
    }
}

/// `event` (an `after_tool`) with `args` as the arguments the tool ran with
/// and its recorded ones as `original_args`.
fn with_args(event: &OwnedEvent, args: Value) -> OwnedEvent {
    let mut event = event.clone();
    if let OwnedEvent::AfterTool {
        args: ran,
        original_args,
        ..
    } = &mut event
    {
        let recorded = std::mem::replace(ran, args);
        original_args.get_or_insert(recorded);
    }
    event
}
