//! The shared shell executor.
//!
//! [`Executor::run`] runs one [`ExecRequest`] — shell form (`/bin/sh -c`) or
//! exec form (argv, no shell) — inside the workspace root, with an allowlisted
//! environment, in its own process group, with bounded output capture, a
//! deadline on the parent's clock, and cancellation; it returns an
//! [`ExecOutcome`] whose failures are the named [`FailureKind`]s. Hooks and an
//! agent's own bash tool use the same path.

mod command;
mod env;
mod executor;
mod group;
mod outcome;
pub(crate) mod preflight;
mod prepared;
mod read;
pub(crate) mod worker;

pub use command::{CommandForm, EnvSpec, ExecRequest};
pub use env::{BASE_ENV, NEVER_INHERITED};
pub use executor::Executor;
pub(crate) use executor::Launch;
pub use outcome::{Captured, ExecFailure, ExecOutcome, ExecStatus};
pub use preflight::PreflightError;
pub(crate) use prepared::Prepared;
pub use tokio_util::sync::CancellationToken;
