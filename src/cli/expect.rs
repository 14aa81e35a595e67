//! `agent-hooks test CONFIG --expect CASES.yaml [--junit FILE]`: policy
//! tests. Each case's event runs through the config as `test --event` runs
//! one (the same binding: `run` hooks for real, the current directory as
//! workspace root, records in a private session directory), each as the
//! first event of a run of its own, and what it came to is compared with
//! the case's `expect` ([`agent_hooks::policy_test`]).
//!
//! Prints one line per case and a diff per failed one (`--format json`:
//! the report as JSON); `--junit FILE` writes the JUnit XML for CI.
//! Everything printed and written passes through the redaction function.
//!
//! Exit codes: 0 when every case passes, 1 when one fails or the config
//! has findings, 2 when the config, the cases or the JUnit file cannot be
//! read or written, 130 / 143 / 129 after SIGINT / SIGTERM / SIGHUP.

use std::path::Path;

use agent_hooks::policy_test::{self, Cases};
use hooks_runtime::HookContext;

use crate::Format;
use crate::cli::drive::{RunRules, Source, bind, load, tables};
use crate::cli::{
    EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, Ran, emit_json, emit_redacted, run_interruptible, warn,
};

/// Runs `agent-hooks test --expect`; returns the exit code.
pub(crate) fn run(source: Source<'_>, cases: &Path, junit: Option<&Path>, format: Format) -> u8 {
    let compiled = match load(source) {
        Ok(loaded) => loaded,
        Err(e) => {
            warn(&e.message);
            return e.code;
        }
    };
    let cases = match Cases::load(cases) {
        Ok(cases) => cases,
        Err(e) => {
            warn(&format!("error: {e}"));
            return EXIT_USAGE;
        }
    };
    let (_session, bound, runtime) = match bind(tables(compiled), RunRules::Execute) {
        Ok(bound) => bound,
        Err(code) => return code,
    };
    let suite = source.name();
    let bound = &bound;
    // After each case: its background hooks end (their records shown, as
    // with `test --event`), then its records are read; a first signal
    // stops the run there.
    let after = |ctx: &HookContext| {
        let run_id = ctx.run_id().to_owned();
        async move {
            bound.settle(&run_id).await;
            let records = bound.take_records();
            (!bound.run_cancelled()).then_some(records)
        }
    };
    let work = policy_test::run_with(&suite, bound.stack(), &cases, after);
    let (mut report, interrupted) = match run_interruptible(&runtime, bound.cancels(), work) {
        Ok(Ran::Done(report)) => (report, None),
        Ok(Ran::Interrupted(i)) => match i.partial {
            Some(report) => (report, Some((i.signal, i.code))),
            None => return i.code,
        },
        Err(code) => return code,
    };
    runtime.block_on(bound.shutdown_workers());
    report.interrupted = interrupted.map(|(signal, _)| signal);
    // The report first: a JUnit file that cannot be written loses nothing.
    match format {
        Format::Json => emit_json(&report),
        Format::Human => emit_redacted(&report.to_string()),
    }
    if let Some(path) = junit
        && let Err(e) = std::fs::write(path, report.junit())
    {
        warn(&format!("error: cannot write `{}`: {e}", path.display()));
        return EXIT_USAGE;
    }
    if let Some((_, code)) = interrupted {
        return code;
    }
    if report.passed() {
        EXIT_OK
    } else {
        EXIT_FINDINGS
    }
}
