//! Subcommands of the `agent-hooks` binary, one module each.

pub(crate) mod check;
pub(crate) mod explain;
pub(crate) mod import;
pub(crate) mod replay;
pub(crate) mod schema;
pub(crate) mod test;

/// Exit code: everything checked out.
pub(crate) const EXIT_OK: u8 = 0;
/// Exit code: the input has findings (diagnostics, blocked events).
pub(crate) const EXIT_FINDINGS: u8 = 1;
/// Exit code: usage or I/O error.
pub(crate) const EXIT_USAGE: u8 = 2;

/// Writes `text` and a newline to stdout. A closed stdout (`agent-hooks check
/// ... | head`) is not an error worth a panic: the write is dropped.
pub(crate) fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
}
