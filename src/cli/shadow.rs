//! Shadow mode in `test` and `replay` (docs/cli.md, *Shadow mode*): when
//! a loaded config is in `mode: shadow`, its hooks run in the enforced
//! pass in `mode: audit` (recorded, never taking effect), and every event
//! is also folded through a second, *what-if* stack in which the shadow
//! configs are enforced. The commands then report, per event, what the
//! shadow configs would have changed against the enforced result.
//!
//! The what-if stack holds every config of the command, each lowered
//! again ([`Compiled::enforced_plan`]): the shadow ones with their hooks'
//! own modes, the others as loaded. It is bound like the enforced stack
//! (same `run` rules, same session directory, the same cancellation
//! tokens: a signal stops both) with its records in a file of its own
//! that no command shows: the run's records stay the enforced pass's.
//! Its run context is its own (its `once` marks, stop resumes and
//! background context are not the enforced run's), and in `replay` it
//! follows its own decisions: the `after_tool` of a call only it stopped
//! is not driven through it, one it rewrote carries its arguments.
//!
//! The what-if pass runs the event's hooks a second time: `run` hooks
//! execute twice in `test` and in `replay --exec` (a dry-run replay runs
//! none). With no config in shadow nothing of it is built or run.

use std::collections::BTreeMap;
use std::path::Path;

use hooks_runtime::{HookContext, OwnedEvent, Table};
use hooks_schema::Compiled;
use serde::Serialize;
use serde_json::Value;

use crate::cli::calls::Calls;
use crate::cli::drive::{Applied, Bound, RunRules, drive};
use crate::cli::{EXIT_FINDINGS, EXIT_USAGE, warn};

/// The what-if pass's records file, in the command's session directory:
/// written by the runtime, shown by no command.
pub(crate) const WHAT_IF_RECORDS: &str = "what-if-records.jsonl";

/// A config in `mode: shadow`, named as its hooks' reports name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ShadowConfig {
    /// The config file.
    pub(crate) config: String,
    /// Its layer.
    pub(crate) layer: String,
}

/// The tables of the what-if stack, before binding.
#[derive(Debug)]
pub(crate) struct WhatIfTables {
    tables: Vec<Table>,
    configs: Vec<ShadowConfig>,
}

impl WhatIfTables {
    /// The what-if tables of `compiled` (the command's configs, as
    /// loaded); `Ok(None)`, having built nothing, when none is in
    /// `mode: shadow`. `Err` is the exit code, after a warning:
    /// [`EXIT_FINDINGS`] when a config no longer lowers (a policy file
    /// gone since loading).
    pub(crate) fn of(compiled: &[Compiled]) -> Result<Option<WhatIfTables>, u8> {
        if !compiled.iter().any(|c| c.plan.shadow) {
            return Ok(None);
        }
        let workspace = std::env::current_dir().map_err(|e| {
            warn(&format!("error: cannot read the current directory: {e}"));
            EXIT_USAGE
        })?;
        let mut tables = Vec::with_capacity(compiled.len());
        for c in compiled {
            let plan = c.enforced_plan(&workspace).map_err(|e| {
                warn(&e.to_string());
                EXIT_FINDINGS
            })?;
            tables.push(Table::from_plan(plan));
        }
        let configs = compiled
            .iter()
            .filter(|c| c.plan.shadow)
            .map(|c| ShadowConfig {
                config: c.plan.source.to_string(),
                layer: c.plan.layer.to_string(),
            })
            .collect();
        Ok(Some(WhatIfTables { tables, configs }))
    }

    /// Binds the tables beside `enforced` ([`Bound::beside`]): in `dir`,
    /// the session directory, with `run` as the enforced pass runs `run`
    /// rules. `Err` is the exit code, after a warning.
    pub(crate) fn bind(self, enforced: &Bound, dir: &Path, run: RunRules) -> Result<WhatIf, u8> {
        let bound = enforced
            .beside(self.tables, dir, run, WHAT_IF_RECORDS)
            .map_err(|e| {
                warn(&format!("error: {e}"));
                EXIT_USAGE
            })?;
        Ok(WhatIf {
            bound,
            configs: self.configs,
        })
    }
}

/// The what-if stack, bound.
pub(crate) struct WhatIf {
    bound: Bound,
    configs: Vec<ShadowConfig>,
}

/// One run of the what-if pass: its own run context and the calls it
/// stopped or rewrote.
#[derive(Debug)]
pub(crate) struct WhatIfRun {
    run: HookContext,
    calls: Calls,
}

impl WhatIfRun {
    /// A what-if run with `run` as its context: a context of its own (the
    /// same identity as the enforced run's, another scratchpad).
    pub(crate) fn new(run: HookContext) -> WhatIfRun {
        WhatIfRun {
            run,
            calls: Calls::default(),
        }
    }

    /// The run's id.
    pub(crate) fn run_id(&self) -> &str {
        self.run.run_id()
    }
}

/// One difference between the enforced result of an event and the
/// what-if one.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Change {
    /// What differs: `decision`, `args`, `result`, `prompt`, `model`,
    /// `context` or `patch`.
    pub(crate) field: &'static str,
    /// The enforced value (`decision`: `{decision, reason}`; a value no
    /// hook rewrote: the event's).
    pub(crate) enforced: Value,
    /// The value had the shadow configs been enforced.
    pub(crate) shadow: Value,
    /// The shadow configs whose hooks the what-if pass consulted on the
    /// event (all of them when none was: the difference then comes from
    /// an earlier event or a `run` hook that answered otherwise the second
    /// time).
    pub(crate) configs: Vec<ShadowConfig>,
}

impl Change {
    /// The human line: `shadow (layer L, config C) would change: decision
    /// run → skip ("reason")`.
    pub(crate) fn line(&self) -> String {
        let names: Vec<String> = self
            .configs
            .iter()
            .map(|c| format!("layer {}, config {}", c.layer, c.config))
            .collect();
        let show = |v: &Value| match self.field {
            "decision" => {
                let decision = v["decision"].as_str().unwrap_or_default();
                match v["reason"].as_str() {
                    Some(reason) => format!("{decision} ({reason:?})"),
                    None => decision.to_owned(),
                }
            }
            _ => serde_json::to_string(v).unwrap_or_default(),
        };
        format!(
            "shadow ({}) would change: {} {} → {}",
            names.join("; "),
            self.field,
            show(&self.enforced),
            show(&self.shadow)
        )
    }
}

impl WhatIf {
    /// The configs in shadow.
    pub(crate) fn configs(&self) -> &[ShadowConfig] {
        &self.configs
    }

    /// The what-if binding (its background hooks, workers, run ends).
    pub(crate) fn bound(&self) -> &Bound {
        &self.bound
    }

    /// Drives `event` (as recorded) through the what-if stack at turn
    /// `turn` of `run`, as that run drives it ([`Calls::event`]), and
    /// returns its differences from `enforced`, the enforced pass's
    /// decision on `driven` (the event as it drove it); `None` when the
    /// what-if run stopped the event's call (the event does not happen
    /// there). A `run_end` or `run_error` ends the what-if run's
    /// background hooks, as the enforced pass does.
    ///
    /// # Cancel safety
    ///
    /// As [`drive`].
    pub(crate) async fn follow(
        &self,
        run: &mut WhatIfRun,
        turn: u32,
        event: &OwnedEvent,
        driven: &OwnedEvent,
        enforced: &Applied,
    ) -> Option<Vec<Change>> {
        let what_if = run.calls.event(event)?;
        let ctx = run.run.for_turn(turn);
        let shadow = drive(self.bound.stack_for(&what_if), &ctx, &what_if).await;
        run.calls.decided(event, &shadow);
        if matches!(
            *what_if,
            OwnedEvent::RunEnd { .. } | OwnedEvent::RunError { .. }
        ) {
            self.bound.end_run(run.run_id()).await;
        }
        Some(self.changes(driven, enforced, &what_if, &shadow))
    }

    /// The differences between `enforced` (the decision on `driven`) and
    /// `shadow` (the what-if decision on `what_if`), in a fixed order.
    fn changes(
        &self,
        driven: &OwnedEvent,
        enforced: &Applied,
        what_if: &OwnedEvent,
        shadow: &Applied,
    ) -> Vec<Change> {
        let changed = Fields::of(driven, enforced).differences(Fields::of(what_if, shadow));
        if changed.is_empty() {
            return Vec::new();
        }
        let consulted: Vec<ShadowConfig> = self
            .configs
            .iter()
            .filter(|c| {
                shadow
                    .outcome
                    .reports
                    .iter()
                    .any(|r| r.hook.source() == Some(c.config.as_str()))
            })
            .cloned()
            .collect();
        let configs = if consulted.is_empty() {
            self.configs.clone()
        } else {
            consulted
        };
        changed
            .into_iter()
            .map(|(field, enforced, shadow)| Change {
                field,
                enforced,
                shadow,
                configs: configs.clone(),
            })
            .collect()
    }
}

/// What is compared of one decision, field by field, in a fixed order:
/// each value, and whether a hook set it (a rewrite) or it is the
/// event's own.
struct Fields([(&'static str, Value, bool); 8]);

impl Fields {
    fn of(event: &OwnedEvent, applied: &Applied) -> Fields {
        let event = serde_json::to_value(event).unwrap_or_default();
        let o = &applied.outcome;
        // A value no hook rewrote is the event's.
        let rewritten = |value: Option<Value>, key: &str| match value {
            Some(v) => (v, true),
            None => (event.get(key).cloned().unwrap_or_default(), false),
        };
        let (args, args_set) = rewritten(o.args.clone(), "args");
        let (result, result_set) = rewritten(o.result.clone(), "result");
        let (prompt, prompt_set) = rewritten(o.prompt.clone().map(Value::from), "prompt");
        let model = o.model.clone().map(Value::from);
        let model_set = model.is_some();
        Fields([
            ("decision", value(&applied.verdict), true),
            ("args", args, args_set),
            ("result", result, result_set),
            ("prompt", prompt, prompt_set),
            ("model", model.unwrap_or_default(), model_set),
            ("context", value(&o.context), true),
            ("patch", value(&o.patch), true),
            // Only the names: the values hooks set may be secrets.
            ("env", value(&o.env), true),
        ])
    }

    /// The fields that differ, as `(field, self's, other's)`. A value
    /// neither decision set is not compared: the two passes' events may
    /// differ (an `after_tool` carries each pass's own arguments) without
    /// this event's hooks changing anything.
    fn differences(self, other: Fields) -> Vec<(&'static str, Value, Value)> {
        self.0
            .into_iter()
            .zip(other.0)
            .filter(|((_, x, x_set), (_, y, y_set))| (*x_set || *y_set) && x != y)
            .map(|((field, x, _), (_, y, _))| (field, x, y))
            .collect()
    }
}

/// `v` as JSON (`null` should it not serialize).
fn value(v: &impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or_default()
}

/// What `replay` reports of the shadow configs: the events they would
/// change, with the changes.
#[derive(Debug, Default, Serialize)]
pub(crate) struct ShadowSummary {
    /// The configs in `mode: shadow`.
    pub(crate) configs: Vec<ShadowConfig>,
    /// Events the shadow configs would change.
    pub(crate) changed: usize,
    /// Changes per field (`decision`, `args`, ...).
    pub(crate) by_field: BTreeMap<&'static str, usize>,
    /// The events they would change, in the order replayed.
    pub(crate) events: Vec<ShadowEvent>,
}

/// One event the shadow configs would change.
#[derive(Debug, Serialize)]
pub(crate) struct ShadowEvent {
    /// The input file.
    pub(crate) file: String,
    /// The event's position among the file's events, from 1 (`0`: the
    /// `run_end` that ended an interrupted run).
    pub(crate) event: usize,
    /// Its phase.
    pub(crate) phase: &'static str,
    /// The tool, on tool phases.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool: Option<String>,
    /// What would change.
    pub(crate) changes: Vec<Change>,
}

impl ShadowSummary {
    /// A summary of the configs `what_if` holds in shadow, with no event.
    pub(crate) fn new(what_if: &WhatIf) -> ShadowSummary {
        ShadowSummary {
            configs: what_if.configs().to_vec(),
            ..ShadowSummary::default()
        }
    }

    /// Counts `changes` of event `event` (from 1) of `file`, if any.
    pub(crate) fn add(
        &mut self,
        file: &str,
        event: usize,
        driven: &OwnedEvent,
        changes: &[Change],
    ) {
        if changes.is_empty() {
            return;
        }
        self.changed += 1;
        for c in changes {
            *self.by_field.entry(c.field).or_default() += 1;
        }
        self.events.push(ShadowEvent {
            file: file.to_owned(),
            event,
            phase: driven.kind().as_str(),
            tool: driven.as_step().tool_name().map(str::to_owned),
            changes: changes.to_vec(),
        });
    }

    /// The human lines: the count, then one line per change.
    pub(crate) fn human(&self, out: &mut String) {
        let configs: Vec<String> = self
            .configs
            .iter()
            .map(|c| format!("{} (layer {})", c.config, c.layer))
            .collect();
        out.push_str(&format!(
            "shadow: {} event{} would change ({})\n",
            self.changed,
            if self.changed == 1 { "" } else { "s" },
            configs.join(", ")
        ));
        for e in &self.events {
            let tool = e
                .tool
                .as_deref()
                .map(|t| format!(" {t}"))
                .unwrap_or_default();
            for c in &e.changes {
                out.push_str(&format!(
                    "  {} event {} ({}{tool}): {}\n",
                    e.file,
                    e.event,
                    e.phase,
                    c.line()
                ));
            }
        }
    }
}
