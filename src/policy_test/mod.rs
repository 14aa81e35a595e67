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

mod compare;
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
    /// Per hook, its records' statuses, in the order the hooks first wrote
    /// (a list, not a map: a hook id such as `token` is not a secret's key).
    pub records: Vec<HookRecords>,
}

/// The statuses of the records one hook wrote for an event, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HookRecords {
    /// The hook's id.
    pub hook: String,
    /// Its records' `status`es.
    pub statuses: Vec<String>,
}

impl Observed {
    /// The statuses of `hook`'s records (none: empty).
    pub fn statuses(&self, hook: &str) -> &[String] {
        self.records
            .iter()
            .find(|r| r.hook == hook)
            .map_or(&[], |r| &r.statuses)
    }
}

impl Observed {
    /// What `decided` (the driver's answer to `event`) and `records` (the
    /// record lines its hooks wrote, as JSON) come to.
    pub fn of(decided: &Decided<Decision<'_>>, event: &Value, records: &[Value]) -> Observed {
        let (decision, reason) = decided.decision.verdict();
        let mut records_by_hook: Vec<HookRecords> = Vec::new();
        for record in records {
            if let (Some(hook), Some(status)) = (
                record.get("hook_id").and_then(Value::as_str),
                record.get("status").and_then(Value::as_str),
            ) {
                let at = match records_by_hook.iter().position(|r| r.hook == hook) {
                    Some(at) => at,
                    None => {
                        records_by_hook.push(HookRecords {
                            hook: hook.to_owned(),
                            statuses: Vec::new(),
                        });
                        records_by_hook.len() - 1
                    }
                };
                records_by_hook[at].statuses.push(status.to_owned());
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
    /// `prompt`, `context`, `records` (named `field`, not `key`: the
    /// redaction of JSON output masks values under keys named `key`).
    pub field: &'static str,
    /// What the case expected (JSON for values and texts, `/…/` for a
    /// regular expression).
    pub expected: String,
    /// What the event came to (JSON).
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
    /// A case cannot be checked as written: no cases, two cases of one
    /// name, an unknown decision name, a regular expression that does not
    /// compile.
    #[error("`{path}`, case {case:?}: {message}")]
    Invalid {
        /// The file.
        path: String,
        /// The case's name (`""`: the file as a whole).
        case: String,
        /// What is wrong, and what was expected.
        message: String,
    },
}

impl Cases {
    /// Reads the cases of the YAML file `path` and checks that each can be
    /// compared ([`Cases::validate`]).
    ///
    /// # Errors
    ///
    /// [`PolicyTestError::Read`], [`PolicyTestError::Parse`] (unknown
    /// keys included, with line and column), [`PolicyTestError::Invalid`].
    pub fn load(path: &Path) -> Result<Cases, PolicyTestError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| PolicyTestError::Read {
            path: shown.clone(),
            source,
        })?;
        let cases: Cases = serde_saphyr::from_str(&text).map_err(|e| PolicyTestError::Parse {
            path: shown.clone(),
            message: e.to_string().trim_start_matches("error: ").to_owned(),
        })?;
        cases.validate(&shown)?;
        Ok(cases)
    }

    /// Checks, before anything runs, what would otherwise fail every run
    /// of the file: at least one case, unique names, known decision names
    /// ([`DECISION_NAMES`](crate::agent::DECISION_NAMES)), regular
    /// expressions that compile. `path` names the file in the error.
    ///
    /// # Errors
    ///
    /// [`PolicyTestError::Invalid`] for the first problem.
    pub fn validate(&self, path: &str) -> Result<(), PolicyTestError> {
        let invalid = |case: &str, message: String| PolicyTestError::Invalid {
            path: path.to_owned(),
            case: case.to_owned(),
            message,
        };
        if self.cases.is_empty() {
            return Err(invalid(
                "",
                "no cases: a file that tests nothing passes nothing".into(),
            ));
        }
        for (i, case) in self.cases.iter().enumerate() {
            if self.cases[..i].iter().any(|c| c.name == case.name) {
                return Err(invalid(&case.name, "a second case of this name".into()));
            }
            let expect = &case.expect;
            if let Some(d) = &expect.decision
                && !crate::agent::DECISION_NAMES.contains(&d.as_str())
            {
                let known = crate::agent::DECISION_NAMES.join(", ");
                return Err(invalid(
                    &case.name,
                    format!("unknown decision `{d}`, expected one of: {known}"),
                ));
            }
            let patterns = expect.reason.iter().chain(expect.context.iter().flatten());
            for pattern in patterns {
                if let Err(e) = regex::Regex::new(pattern) {
                    let e = e.to_string().replace('\n', " ");
                    return Err(invalid(
                        &case.name,
                        format!("`{pattern}` is not a regular expression: {e}"),
                    ));
                }
            }
        }
        Ok(())
    }
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
    /// Whether the case ran and met every expectation.
    pub passed: bool,
}

impl CaseResult {
    /// Whether the case ran and met every expectation.
    pub fn passed(&self) -> bool {
        self.passed
    }
}

/// The outcome of a case file.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// The name the report gives the suite (the config's).
    pub suite: String,
    /// How many cases passed.
    pub passed: usize,
    /// How many cases failed (or could not run).
    pub failed: usize,
    /// `SIGINT`, `SIGTERM` or `SIGHUP` when a signal stopped the run: the
    /// cases after the one it stopped were not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<&'static str>,
    /// One result per case run, in order.
    pub results: Vec<CaseResult>,
}

impl Report {
    /// Whether every case ran and passed.
    pub fn passed(&self) -> bool {
        self.failed == 0 && self.interrupted.is_none()
    }

    /// How many cases failed.
    pub fn failures(&self) -> usize {
        self.failed
    }

    /// The report as JUnit XML (one `testsuite`, a `testcase` per case, a
    /// `failure` naming each difference), as CI systems read it.
    pub fn junit(&self) -> String {
        junit::render(self)
    }
}

impl fmt::Display for Report {
    /// One line per case (`ok` / `FAILED`), then each failed case's
    /// differences (`field: expected X` over `got Y`), and a summary line.
    /// Control characters in names and texts are shown escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.results {
            let status = if r.passed { "ok" } else { "FAILED" };
            writeln!(f, "case {} ... {status}", printable(&r.name))?;
        }
        for r in self.results.iter().filter(|r| !r.passed) {
            writeln!(f, "\n--- {}", printable(&r.name))?;
            if let Some(e) = &r.error {
                writeln!(f, "  error: {}", printable(e))?;
            }
            for d in &r.differences {
                writeln!(f, "  {}: expected {}", d.field, printable(&d.expected))?;
                let pad = " ".repeat(d.field.len());
                writeln!(f, "  {pad}  got      {}", printable(&d.observed))?;
            }
        }
        if let Some(signal) = self.interrupted {
            writeln!(
                f,
                "\ninterrupted by {signal}: the case it stopped and the ones after it are not reported"
            )?;
        }
        write!(
            f,
            "\n{}: {} passed, {} failed",
            printable(&self.suite),
            self.passed,
            self.failed
        )
    }
}

/// `text` with its control characters (but tab and newline) and its
/// bidirectional controls escaped, so a name cannot move the terminal's
/// cursor, reverse the text after it or break an XML file.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| (c.is_control() && c != '\t' && c != '\n') || is_bidi_control(c);
    if !text.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(text);
    }
    text.chars()
        .map(|c| match c {
            c if hidden(c) => c.escape_default().to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// Whether `c` is a Unicode bidirectional control (marks, embeddings,
/// overrides, isolates): shown raw, one could reverse how the rest of a
/// line reads. Every report escapes them (the policy tests' and the CLI's
/// HTML session report).
pub fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Runs `cases` through `stack`, each case's event as the first of a run
/// of its own, and compares what each came to with its `expect`.
/// `records` returns the record lines written since its last call (a
/// record writer's file, read on: `tests/policy_tests.rs` in the
/// repository), or nothing when the stack writes none — cases that expect
/// `records` then fail.
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
    run_with(suite, stack, cases, |_| std::future::ready(Some(records()))).await
}

/// [`run`] with `after`, awaited after each case's decision with the
/// case's run context: it may wait for the run's background hooks (`async:
/// true`) before returning the records written since its last call, or
/// return `None` to stop (an interrupted run: [`Report::interrupted`] is
/// the caller's to set; the cases after it are not run).
///
/// # Cancel safety
///
/// As [`run`].
pub async fn run_with<F, Fut>(suite: &str, stack: &HookStack, cases: &Cases, mut after: F) -> Report
where
    F: FnMut(&HookContext) -> Fut,
    Fut: std::future::Future<Output = Option<Vec<Value>>>,
{
    let mut results = Vec::with_capacity(cases.cases.len());
    for case in &cases.cases {
        let start = Instant::now();
        let outcome = match read_event_line(&case.event.to_string()) {
            Err(e) => Err(format!("the event cannot be read: {e}")),
            Ok((event, identity)) => {
                let ctx = identity.apply(HookContext::new(format!("policy-test {}", case.name)));
                let decided = decide(stack, &ctx, &event).await;
                let elapsed = start.elapsed();
                match after(&ctx).await {
                    Some(records) => Ok((Observed::of(&decided, &case.event, &records), elapsed)),
                    None => break,
                }
            }
        };
        let result = match outcome {
            Ok((observed, elapsed)) => {
                let differences = case.expect.compare(&observed);
                CaseResult {
                    name: case.name.clone(),
                    passed: differences.is_empty(),
                    differences,
                    observed: Some(observed),
                    error: None,
                    elapsed_ms: duration_ms(elapsed),
                }
            }
            Err(error) => CaseResult {
                name: case.name.clone(),
                observed: None,
                differences: Vec::new(),
                error: Some(error),
                elapsed_ms: duration_ms(start.elapsed()),
                passed: false,
            },
        };
        results.push(result);
    }
    let failed = results.iter().filter(|r| !r.passed).count();
    Report {
        suite: suite.to_owned(),
        passed: results.len() - failed,
        failed,
        interrupted: None,
        results,
    }
}

fn duration_ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
