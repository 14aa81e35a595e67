//! Policy tests: a file of cases, each an event and what a hook config is
//! expected to decide on it, run through the real runtime. `agent-hooks
//! test CONFIG --expect CASES.yaml` runs them from the command line (a diff
//! per mismatch, exit 1 when one fails, `--junit FILE` for CI); [`run`]
//! runs them on any [`HookStack`] from `cargo test`, so a `hooks!` table is
//! tested with the same file. docs/cli.md's *Policy tests* and docs/policy-tests.md show the format.
//!
//! ```yaml
//! cases:
//!   - name: rm -rf is refused
//!     event: { phase: before_tool, tool_name: bash, call_id: c1, args: { command: "rm -rf /" } }
//!     expect:
//!       decision: skip          # the decision's name (`test`'s verdict)
//!       reason: "rm -rf"        # a regex searched in its reason
//!       fired: [block-rm-rf]    # the hooks consulted, in declared order
//! ```
//!
//! Each case runs as the first event of a run of its own (a fresh
//! [`HookContext`], with the event's `session_id`, `cwd`, ... applied).
//! Only the keys a case's `expect` gives are compared.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::{Duration, Instant};

use hooks_runtime::{Decided, HookContext, HookStack};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent::{Decision, decide};
use crate::replay::read_event_line;

mod junit;

/// A policy test file: `cases:`, a list of [`Case`]s.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Cases {
    /// The cases, run in order.
    pub cases: Vec<Case>,
}

/// One case: a name, an event of our event format (as `test --event`
/// reads it) and what is expected of it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Case {
    /// What the case checks, as reports name it.
    pub name: String,
    /// The event (`phase` and its fields; `session_id`, `cwd`,
    /// `transcript_path`, `permission_mode` set the run's identity).
    pub event: Value,
    /// What is expected; an empty `expect` only checks the event runs.
    #[serde(default)]
    pub expect: Expect,
}

/// What a case expects. Only the keys given are compared.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Expect {
    /// The decision's name ([`Decision::verdict`]): `run`, `skip`, `ask`,
    /// `allow`, `deny`, `submit`, `drop`, `stop`, `resume`, `capped`,
    /// `select`, `block`, `fail`, `retry`, `repair`, `compact`,
    /// `terminate`, `continue`.
    pub decision: Option<String>,
    /// A regular expression (Rust `regex` syntax) searched for in the
    /// decision's reason; a decision without one does not match.
    pub reason: Option<String>,
    /// The ids of the hooks consulted, in declared order (exactly).
    pub fired: Option<Vec<String>>,
    /// The tool arguments the agent gets (before_tool, permission_request,
    /// a repair): the rewritten ones, or the event's when no hook rewrote
    /// them.
    pub args: Option<Value>,
    /// The tool result the model gets (after_tool), likewise.
    pub result: Option<Value>,
    /// The prompt the model gets (user_prompt), likewise.
    pub prompt: Option<String>,
    /// One regular expression per context item added for the model, in
    /// order: as many items as expressions, each searched in its item.
    pub context: Option<Vec<String>>,
    /// Per hook id, the status of each record it wrote (`ok`, `decision`,
    /// `audited`, `failed`, ...), in the order written. Needs a record
    /// writer: `agent-hooks test --expect` has one; [`run`] compares what
    /// its `records` argument returns.
    pub records: Option<BTreeMap<String, Vec<String>>>,
}

/// What one case's event came to, in the terms of [`Expect`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Observed {
    /// The decision's name.
    pub decision: String,
    /// Its reason, if any.
    pub reason: Option<String>,
    /// The hooks consulted, in the order of their reports.
    pub fired: Vec<String>,
    /// The arguments the agent gets (the event's when not rewritten), on
    /// the phases that carry them.
    pub args: Option<Value>,
    /// The result the model gets, on `after_tool`.
    pub result: Option<Value>,
    /// The prompt the model gets, on `user_prompt`.
    pub prompt: Option<String>,
    /// The context items' texts.
    pub context: Vec<String>,
    /// Per hook id, its records' statuses.
    pub records: BTreeMap<String, Vec<String>>,
}

impl Observed {
    /// What `decided` (the driver's answer to `event`) and `records` (the
    /// record lines its hooks wrote, as JSON) come to.
    pub fn of(decided: &Decided<Decision<'_>>, event: &Value, records: &[Value]) -> Observed {
        let (decision, reason) = decided.decision.verdict();
        let mut records_by_hook: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for record in records {
            if let (Some(hook), Some(status)) = (
                record.get("hook_id").and_then(Value::as_str),
                record.get("status").and_then(Value::as_str),
            ) {
                records_by_hook
                    .entry(hook.to_owned())
                    .or_default()
                    .push(status.to_owned());
            }
        }
        let (args, result, prompt) = effective(&decided.decision, event);
        Observed {
            decision: decision.to_owned(),
            reason: reason.map(str::to_owned),
            fired: decided
                .reports
                .iter()
                .map(|r| r.hook.as_str().to_owned())
                .collect(),
            args,
            result,
            prompt,
            context: decided
                .context
                .iter()
                .map(|c| c.content.to_string())
                .collect(),
            records: records_by_hook,
        }
    }
}

/// The arguments, result and prompt the agent gets from `decision` on
/// `event`.
fn effective(
    decision: &Decision<'_>,
    event: &Value,
) -> (Option<Value>, Option<Value>, Option<String>) {
    use hooks_runtime::{InvalidCallDecision, PermissionDecision, PromptDecision, ToolDecision};
    let given = |key: &str| event.get(key).cloned();
    match decision {
        Decision::Tool(
            ToolDecision::Run { args }
            | ToolDecision::Skip { args, .. }
            | ToolDecision::Ask { args, .. },
        )
        | Decision::Permission(
            PermissionDecision::Allow { args } | PermissionDecision::Ask { args, .. },
        ) => (Some(args.clone().into_owned()), None, None),
        Decision::InvalidCall(InvalidCallDecision::Repair { args, .. }) => {
            (args.clone(), None, None)
        }
        Decision::AfterTool(d) => (given("args"), Some(d.result.clone().into_owned()), None),
        Decision::Prompt(PromptDecision::Send { prompt }) => (None, None, Some(prompt.to_string())),
        _ => (given("args"), given("result"), None),
    }
}

/// One difference between a case's [`Expect`] and what it [`Observed`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Difference {
    /// The `expect` key: `decision`, `reason`, `fired`, `args`, `result`,
    /// `prompt`, `context`, `records`.
    pub key: &'static str,
    /// What the case expected, as written (JSON for values).
    pub expected: String,
    /// What the event came to.
    pub observed: String,
}

/// A case file that cannot be read, or a case that cannot run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyTestError {
    /// The file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a list of cases (the YAML parser's message, with
    /// its line and column).
    #[error("`{path}` is not a policy test file: {message}")]
    Parse {
        /// The file.
        path: String,
        /// What the parser said.
        message: String,
    },
}

impl Cases {
    /// Reads the cases of the YAML file `path`.
    ///
    /// # Errors
    ///
    /// [`PolicyTestError::Read`], [`PolicyTestError::Parse`] (unknown
    /// keys included).
    pub fn load(path: &Path) -> Result<Cases, PolicyTestError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| PolicyTestError::Read {
            path: shown.clone(),
            source,
        })?;
        serde_saphyr::from_str(&text).map_err(|e| PolicyTestError::Parse {
            path: shown,
            message: e.to_string(),
        })
    }
}

impl Expect {
    /// The keys of `self` that `observed` does not meet, in key order; a
    /// regular expression that does not compile is a difference of its key
    /// (`expected` names the error).
    pub fn compare(&self, observed: &Observed) -> Vec<Difference> {
        let mut out = Vec::new();
        let mut differ = |key, expected: String, observed: String| {
            out.push(Difference {
                key,
                expected,
                observed,
            });
        };
        let json = |v: &Value| v.to_string();
        if let Some(d) = &self.decision
            && *d != observed.decision
        {
            differ("decision", d.clone(), observed.decision.clone());
        }
        if let Some(pattern) = &self.reason {
            let shown = observed
                .reason
                .clone()
                .unwrap_or_else(|| "(no reason)".to_owned());
            match searches(pattern, observed.reason.as_deref()) {
                Ok(true) => {}
                Ok(false) => differ("reason", format!("/{pattern}/"), shown),
                Err(e) => differ("reason", format!("/{pattern}/ (invalid: {e})"), shown),
            }
        }
        if let Some(fired) = &self.fired
            && *fired != observed.fired
        {
            differ("fired", fired.join(", "), observed.fired.join(", "));
        }
        for (key, expected, got) in [
            ("args", &self.args, &observed.args),
            ("result", &self.result, &observed.result),
        ] {
            if let Some(want) = expected
                && Some(want) != got.as_ref()
            {
                differ(
                    key,
                    json(want),
                    got.as_ref().map_or("(none)".to_owned(), json),
                );
            }
        }
        if let Some(want) = &self.prompt
            && Some(want) != observed.prompt.as_ref()
        {
            let got = observed
                .prompt
                .clone()
                .unwrap_or_else(|| "(none)".to_owned());
            differ("prompt", want.clone(), got);
        }
        if let Some(patterns) = &self.context {
            let fits = patterns.len() == observed.context.len()
                && patterns
                    .iter()
                    .zip(&observed.context)
                    .all(|(p, item)| searches(p, Some(item)).unwrap_or(false));
            if !fits {
                let shown: Vec<String> = patterns.iter().map(|p| format!("/{p}/")).collect();
                differ(
                    "context",
                    shown.join(", "),
                    format!("{:?}", observed.context),
                );
            }
        }
        if let Some(records) = &self.records {
            let none = Vec::new();
            let got: BTreeMap<&String, &Vec<String>> = records
                .keys()
                .map(|hook| (hook, observed.records.get(hook).unwrap_or(&none)))
                .collect();
            let want: BTreeMap<&String, &Vec<String>> = records.iter().collect();
            if got != want {
                differ("records", format!("{want:?}"), format!("{got:?}"));
            }
        }
        out
    }
}

/// Whether `pattern` is found in `text` (`None`: never).
fn searches(pattern: &str, text: Option<&str>) -> Result<bool, regex::Error> {
    let re = regex::Regex::new(pattern)?;
    Ok(text.is_some_and(|t| re.is_match(t)))
}

/// The outcome of one case.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct CaseResult {
    /// The case's name.
    pub name: String,
    /// What it observed (`None` when its event could not be read).
    pub observed: Option<Observed>,
    /// Where it differs from what was expected; empty when it passed.
    pub differences: Vec<Difference>,
    /// Why the case could not run (an event that is not one).
    pub error: Option<String>,
    /// How long its event took, in milliseconds.
    pub elapsed_ms: f64,
}

impl CaseResult {
    /// Whether the case ran and met every expectation.
    pub fn passed(&self) -> bool {
        self.error.is_none() && self.differences.is_empty()
    }
}

/// The outcome of a case file.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// The name the report gives the suite (the case file's).
    pub suite: String,
    /// One result per case, in order.
    pub results: Vec<CaseResult>,
}

impl Report {
    /// Whether every case passed.
    pub fn passed(&self) -> bool {
        self.results.iter().all(CaseResult::passed)
    }

    /// How many cases failed.
    pub fn failures(&self) -> usize {
        self.results.iter().filter(|r| !r.passed()).count()
    }

    /// The report as JUnit XML (one `testsuite`, a `testcase` per case, a
    /// `failure` naming each difference), as CI systems read it.
    pub fn junit(&self) -> String {
        junit::render(self)
    }
}

impl fmt::Display for Report {
    /// One line per case (`ok` / `FAILED`), then each failed case's
    /// differences as `key: expected X, got Y`, and a summary line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.results {
            let status = if r.passed() { "ok" } else { "FAILED" };
            writeln!(f, "case {} ... {status}", r.name)?;
        }
        for r in self.results.iter().filter(|r| !r.passed()) {
            writeln!(f, "\n--- {}", r.name)?;
            if let Some(e) = &r.error {
                writeln!(f, "  error: {e}")?;
            }
            for d in &r.differences {
                writeln!(f, "  {}: expected {}", d.key, d.expected)?;
                writeln!(f, "  {}  got      {}", " ".repeat(d.key.len()), d.observed)?;
            }
        }
        let failed = self.failures();
        write!(
            f,
            "\n{}: {} passed, {failed} failed",
            self.suite,
            self.results.len() - failed
        )
    }
}

/// Runs `cases` through `stack`, each case's event as the first of a run
/// of its own, and compares what each came to with its `expect`.
/// `records` returns the record lines written since its last call (a
/// record writer's file, read on), or nothing when the stack writes none.
///
/// # Cancel safety
///
/// As the driver methods: dropping the future kills the running hook's
/// process group; the cases before it are lost.
pub async fn run(
    suite: &str,
    stack: &HookStack,
    cases: &Cases,
    mut records: impl FnMut() -> Vec<Value>,
) -> Report {
    let mut results = Vec::with_capacity(cases.cases.len());
    for case in &cases.cases {
        let start = Instant::now();
        let outcome = match read_event_line(&case.event.to_string()) {
            Err(e) => Err(format!("the event is not one: {e}")),
            Ok((event, identity)) => {
                let ctx = identity.apply(HookContext::new(format!("policy-test {}", case.name)));
                let decided = decide(stack, &ctx, &event).await;
                Ok(Observed::of(&decided, &case.event, &records()))
            }
        };
        let elapsed_ms = duration_ms(start.elapsed());
        results.push(match outcome {
            Ok(observed) => CaseResult {
                name: case.name.clone(),
                differences: case.expect.compare(&observed),
                observed: Some(observed),
                error: None,
                elapsed_ms,
            },
            Err(error) => CaseResult {
                name: case.name.clone(),
                observed: None,
                differences: Vec::new(),
                error: Some(error),
                elapsed_ms,
            },
        });
    }
    Report {
        suite: suite.to_owned(),
        results,
    }
}

fn duration_ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
