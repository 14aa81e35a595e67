//! [`Plan`]: a config lowered for dispatch, the rules (`data`) and the
//! per-phase index over them (`index`) together, and [`Cursor`], the walk
//! over the rules of one phase that match an event.

use std::borrow::Cow;

use crate::data::{List, Rule, Text, ToolPaths};
use crate::eval::Facts;
use crate::index::{PhaseIndex, Words, candidates_into, next_set};
use crate::layer::{Layer, Switches};
use crate::limits::Limits;
use crate::phase::Phase;

/// A config lowered for dispatch: rules in declared order with defaults
/// applied, and per phase the indices of its enabled rules, so that "no hook
/// for this phase" is one check.
///
/// Built once by `lower` (owned); `hooks!` quotes that same
/// value as `static` data. Both forms compare equal with `==` for one config.
#[derive(Debug, PartialEq)]
pub struct Plan {
    /// The config's name in diagnostics (its path, or `<inline>`).
    pub source: Text,
    /// Every rule, enabled or not, in declared order.
    pub rules: List<Rule>,
    /// For the phase at index `p` of [`Phase::ALL`] ([`Phase::index`]),
    /// the indices into `rules` of its *enabled* rules in declared order.
    pub phases: [List<u32>; Phase::COUNT],
    /// For the phase at index `p`, the index of its enabled rules by tool
    /// and by `when` leaf, over their positions in `phases[p]`.
    pub index: [PhaseIndex; Phase::COUNT],
    /// `tool_settings`, in key order.
    pub tool_paths: List<ToolPaths>,
    /// The tool catalogue the config was checked against, in name order
    /// (empty without one): what rewrites are validated against at run time.
    pub tool_schemas: List<ToolSchema>,
    /// The config's `limits`.
    pub limits: Limits,
    /// The config's layer (`layer`; [`Layer::PROJECT`] when it declares none).
    pub layer: Layer,
    /// Whether the config is in `mode: shadow`: its rules were lowered in
    /// `mode: audit` (evaluated and recorded, never enforced).
    pub shadow: bool,
    /// The managed layer's switches (`managed:`); `None` elsewhere.
    pub switches: Option<Switches>,
}

/// One catalogue tool's JSON Schemas, as JSON text (compiled into
/// validators by the runtime, once, when first needed).
#[derive(Debug, PartialEq)]
pub struct ToolSchema {
    /// The exact tool name.
    pub tool: Text,
    /// The schema of its arguments.
    pub input: Text,
    /// The schema of its result, when the catalogue gives one.
    pub result: Option<Text>,
}

impl Plan {
    /// A plan with no rules (what `hooks!` emits beside a compile error).
    pub const fn empty(source: &'static str) -> Plan {
        Plan {
            source: Cow::Borrowed(source),
            rules: List::EMPTY,
            phases: [const { List::EMPTY }; Phase::COUNT],
            index: [const { PhaseIndex::EMPTY }; Phase::COUNT],
            tool_paths: List::EMPTY,
            tool_schemas: List::EMPTY,
            limits: Limits::DEFAULT,
            layer: Layer::PROJECT,
            shadow: false,
            switches: None,
        }
    }

    /// The indices of the enabled rules of `phase`, in declared order.
    pub fn rules_for(&self, phase: Phase) -> &[u32] {
        &self.phases[phase.index()]
    }

    /// Whether an enabled rule of `phase` reads the event's payload
    /// ([`Rule::reads_payload`]); `false` when the phase has no rules, or
    /// when they all decide from the phase, the tool's name, scopes and
    /// the outcome's kind alone. Walks the phase's rules: cache the answer.
    pub fn reads_payload(&self, phase: Phase) -> bool {
        self.rules_for(phase)
            .iter()
            .any(|&i| self.rules.get(i as usize).is_none_or(Rule::reads_payload))
    }

    /// The managed layer's switches this config sets and that apply: those
    /// of a config in the managed layer, unless it is in `mode: shadow`
    /// (a shadow config's switches are reported by `check`, never applied).
    pub fn switches_in_force(&self) -> Option<&Switches> {
        self.switches
            .as_ref()
            .filter(|_| self.layer.is_managed() && !self.shadow)
    }

    /// The `tool_settings` of `tool`, if the config has some.
    pub fn tool_paths(&self, tool: &str) -> Option<&ToolPaths> {
        self.tool_paths.iter().find(|t| t.tool == tool)
    }
}

/// The most rules a phase may have for [`Cursor`] to test each in turn
/// instead of building the index's candidate set (`benches/dispatch_matrix`
/// at one rule: the candidate set is most of a miss's cost).
const SCAN_MAX: usize = 4;

/// Walks the rules of one phase that match an event, in declared order,
/// visiting only the index's candidates (a phase of up to four rules
/// is scanned rule by rule: building the candidate set costs more
/// than testing a few rules). Never allocates for phases of up to 1,024
/// enabled rules.
///
/// Each call to [`Cursor::next`] is given the event's facts as they are
/// now: after a rule was returned (and its flow maybe rewrote the event)
/// the candidates are computed again, so every rule is judged on the event
/// as the rules before it left it, as in a rule-by-rule loop.
#[derive(Debug)]
pub struct Cursor<'p> {
    plan: &'p Plan,
    phase: Phase,
    next: usize,
    /// The candidates for the facts last given, when `fresh`.
    words: Words,
    fresh: bool,
}

impl<'p> Cursor<'p> {
    /// A cursor over the enabled rules of `phase`.
    pub fn new(plan: &'p Plan, phase: Phase) -> Cursor<'p> {
        Cursor {
            plan,
            phase,
            next: 0,
            words: Words::new(),
            fresh: false,
        }
    }

    /// The index into [`Plan::rules`] of the next rule that matches `facts`
    /// (which must be of this cursor's phase), or `None` when no later rule
    /// does.
    pub fn next(&mut self, facts: &Facts<'_>) -> Option<u32> {
        let positions = self.plan.rules_for(self.phase);
        if positions.len() <= SCAN_MAX {
            // The index only narrows what `matches` decides.
            while let Some(&i) = positions.get(self.next) {
                self.next += 1;
                if self.plan.rules[i as usize].matches(facts) {
                    return Some(i);
                }
            }
            return None;
        }
        let index = &self.plan.index[self.phase.index()];
        if !self.fresh {
            candidates_into(index, positions.len(), facts, &mut self.words);
            self.fresh = true;
        }
        while let Some(pos) = next_set(&self.words, self.next) {
            self.next = pos + 1;
            let Some(&i) = positions.get(pos) else {
                break;
            };
            if self.plan.rules[i as usize].matches(facts) {
                // The caller may rewrite the event before asking again.
                self.fresh = false;
                return Some(i);
            }
        }
        self.next = positions.len();
        None
    }
}

impl Plan {
    /// The indices into [`Plan::rules`] of the enabled rules that match
    /// `facts`, in declared order, each judged on `facts` as given. Never
    /// allocates for phases of up to 1,024 enabled rules.
    pub fn matching<'p, 'e>(&'p self, facts: Facts<'e>) -> impl Iterator<Item = u32> + use<'p, 'e> {
        let mut cursor = Cursor::new(self, facts.phase);
        std::iter::from_fn(move || cursor.next(&facts))
    }
}
