//! The transcript: one line per consulted hook of each folded event, the
//! tool results in brief, and the closing summary.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::Duration;

use agent_hooks::Decided;
use agent_hooks::report::Verdict;
use serde_json::Value;

use super::{Agent, Summary};

impl Agent<'_> {
    /// Prints the reports of one folded event (one line per consulted
    /// hook, its diagnostics below it) and counts them.
    pub(super) fn report<D>(&mut self, decided: &Decided<D>, elapsed: Duration) -> io::Result<()> {
        self.summary.events += 1;
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        if decided.reports.is_empty() {
            writeln!(self.out, "      hooks: none ({:.1} ms)", ms(elapsed))?;
        }
        for r in &decided.reports {
            self.summary.hooks_fired += 1;
            self.summary.hook_time += r.elapsed;
            self.summary.audited += u32::from(matches!(r.verdict, Verdict::Audited(_)));
            let mut line = format!("      hook {:<26} {}", r.hook.as_str(), r.verdict);
            if let Some(failure) = r.failure {
                self.summary.failures += 1;
                write!(line, " after failing: {failure}").ok();
            }
            if let Some(message) = &r.message {
                write!(line, ": {message}").ok();
            }
            writeln!(self.out, "{line} ({:.1} ms)", ms(r.elapsed))?;
            for diagnostic in &r.diagnostics {
                writeln!(self.out, "        diagnostic: {diagnostic}")?;
            }
        }
        // Diagnostics of the fold itself (about no single hook call).
        for diagnostic in decided
            .diagnostics
            .iter()
            .filter(|d| !decided.reports.iter().any(|r| r.diagnostics.contains(d)))
        {
            writeln!(self.out, "      diagnostic: {diagnostic}")?;
        }
        if !decided.reports.is_empty() {
            writeln!(self.out, "      event folded in {:.1} ms", ms(elapsed))?;
        }
        Ok(())
    }
}

/// A tool result in one short line.
pub(super) fn brief(result: &Value) -> String {
    let text = result.to_string();
    if text.chars().count() > 100 {
        let mut short: String = text.chars().take(100).collect();
        short.push('…');
        short
    } else {
        text
    }
}

pub(super) fn print_summary(out: &mut dyn Write, s: &Summary) -> io::Result<()> {
    writeln!(out)?;
    writeln!(out, "summary")?;
    writeln!(out, "  events            {}", s.events)?;
    writeln!(out, "  hooks fired       {}", s.hooks_fired)?;
    writeln!(out, "  tool calls run    {}", s.tools_run)?;
    writeln!(out, "  blocked           {}", s.blocked)?;
    writeln!(out, "  rewritten         {}", s.rewritten)?;
    writeln!(out, "  patched requests  {}", s.patched)?;
    writeln!(out, "  injected context  {}", s.injected)?;
    writeln!(out, "  audited           {}", s.audited)?;
    writeln!(out, "  stop resumes      {}", s.resumes)?;
    writeln!(out, "  capped stops      {}", s.capped_stops)?;
    writeln!(out, "  hook failures     {}", s.failures)?;
    writeln!(
        out,
        "  time in hooks     {:.1} ms",
        s.hook_time.as_secs_f64() * 1000.0
    )?;
    writeln!(
        out,
        "  audit log         {} lines (.agent/audit.jsonl in the workspace)",
        s.audit_log_lines
    )?;
    writeln!(out, "  records           {}", s.records_path.display())?;
    Ok(())
}
