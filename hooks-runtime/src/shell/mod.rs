//! Shell hooks: the shared executor ([`exec`]) and the hook layer on top of
//! it — the payload a hook reads, the output protocols it answers in, the
//! failure policies applied to what goes wrong, the records written and the
//! redaction every user-visible text passes through. [`invoke`] runs one hook
//! as a short pipeline of these steps.
//!
//! Depends on the core (events, flows, reports), the HTTP client
//! ([`crate::http`]) and the Rego engine ([`crate::rego`]), never on the
//! dispatch table.

pub(crate) mod activity;
pub(crate) mod exec;
pub(crate) mod invoke;
pub(crate) mod payload;
pub(crate) mod policy;
pub(crate) mod protocol;
pub(crate) mod records;
pub(crate) mod redact;
