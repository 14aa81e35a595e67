//! A `policy` hook's evaluation: in process, on a thread of its own with
//! the hook's deadline ([`Call::evaluate`]), or, under a memory cap with a
//! policy process set, in a child process like a `run` hook
//! ([`Call::evaluate_in_child`]). With the `policy` feature only.

use super::call::{Call, Outcome};
use super::spec::ProcessTarget;
use crate::rego::{PolicyEvalError, RegoPolicy};
use crate::shell::payload::BuiltPayload;
use crate::shell::protocol;
use crate::{ExecStatus, FailureKind};

impl<'a> Call<'a> {
    /// The process `policy` hooks evaluate in, when they do not evaluate
    /// in process: the runtime's policy process, when it has one and a
    /// memory cap ([`ShellRuntime::with_policy_process`](crate::ShellRuntime::with_policy_process)).
    pub(super) fn policy_process(&self) -> Option<&'a ProcessTarget> {
        self.rt.limits.memory_bytes?;
        self.rt.policy_process.as_ref()
    }

    /// Evaluates a `policy` hook's Rego `policy` with the payload document
    /// of `built` as `input` (a value: nothing is serialized; a payload
    /// over the stdin cap is the elided envelope, as a `run` hook's stdin
    /// would be). The query's value is read by the native protocol as a
    /// JSON value (undefined: `continue`), capped like a process's stdout
    /// (its JSON text's length); a failed evaluation is a `policy_failed`
    /// failure. The evaluation has the spec's timeout as its deadline
    /// (`timed_out`) and ends when the session is cancelled (`cancelled`),
    /// off the async runtime (see `RegoPolicy::evaluate_within`). With the
    /// `policy` feature only.
    ///
    /// Cancel safety: dropping the future abandons the evaluation.
    #[cfg(feature = "policy")]
    pub(super) async fn evaluate(
        &mut self,
        policy: &RegoPolicy,
        built: BuiltPayload<regorus::Value>,
    ) -> Outcome {
        let evaluated = policy
            .evaluate_within(built.document, self.remaining(), self.cancel)
            .await;
        let value = match evaluated {
            Err(e) => {
                let kind = match e {
                    PolicyEvalError::TimedOut { .. } => FailureKind::TimedOut,
                    PolicyEvalError::Cancelled { .. } => FailureKind::Cancelled,
                    PolicyEvalError::NoThread { .. } => FailureKind::SpawnFailed,
                    _ => FailureKind::PolicyFailed,
                };
                return Outcome::Failed(kind, e.to_string());
            }
            Ok(value) => value,
        };
        // The value is capped like a process's stdout.
        let cap = self.rt.limits.stdout_cap;
        if let Some(len) = value.as_ref().map(protocol::json_len)
            && len > cap
        {
            return Outcome::Failed(
                FailureKind::OutputTooLarge,
                format!("stdout was {len} bytes, over the cap of {cap} bytes"),
            );
        }
        self.read_decision(protocol::native::read_value(self.phase, value))
    }

    /// Evaluates `policy` in `process` (the runtime's policy process)
    /// with the payload document of `built` (JSON text) as `input`: the
    /// request ([`answer_policy_request`](crate::answer_policy_request))
    /// goes to the process's stdin, and the process runs as a one-shot
    /// `run` hook does: under the memory cap, killed at the hook's
    /// deadline (`timed_out`) or on cancellation (`cancelled`), its
    /// process group reaped. Exit 0: its stdout is the query's value,
    /// read as [`Call::evaluate`] reads it (nothing: undefined); another
    /// exit is a `policy_failed` failure with the process's message; a
    /// signal (an allocation over the cap aborts the process) is
    /// `signalled`, with a note naming the cap ([`Call::note_memory_limit`]).
    ///
    /// Cancel safety: as [`Call::spawn`].
    pub(super) async fn evaluate_in_child(
        &mut self,
        policy: &RegoPolicy,
        process: &ProcessTarget,
        built: BuiltPayload,
    ) -> Outcome {
        let built = BuiltPayload {
            document: crate::rego::policy_request(policy, &built.document),
            ..built
        };
        let out = self.spawn(process, built).await;
        match out.status {
            ExecStatus::Failed(f) => Outcome::Failed(f.kind, f.detail),
            ExecStatus::Exited(0) => {
                self.read_decision(protocol::native::read_output(self.phase, &out.stdout))
            }
            ExecStatus::Exited(code) => {
                let message = String::from_utf8_lossy(&out.stderr.bytes);
                Outcome::Failed(
                    FailureKind::PolicyFailed,
                    format!(
                        "the policy process exited with code {code}: {}",
                        message.trim()
                    ),
                )
            }
        }
    }
}
