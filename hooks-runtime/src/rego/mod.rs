//! `policy` hooks' Rego policies, evaluated in process with `regorus`.
//!
//! A [`RegoPolicy`] is what the config says about one `policy` hook's
//! policy: the query, the Rego files (their text, as checked when the
//! config was built) and the policy's identity (a digest of the files,
//! [`hooks_plan::policy_digest`]). A `policy` hook runs through
//! the same pipeline as a `run` hook ([`ShellHook::invoke`](crate::ShellHook::invoke))
//! as target [`HookTarget::Policy`](crate::HookTarget::Policy): the
//! payload document a `run` hook would get on stdin is the policy's
//! `input`, and the query's value is read by the native output protocol as
//! a JSON value, like a `run` hook's stdout object; an undefined value is
//! `continue`. A failing
//! evaluation is a [`FailureKind::PolicyFailed`](crate::FailureKind::PolicyFailed)
//! failure under the hook's failure policy. Records carry the policy's
//! query and digest ([`PolicyIdentity`](crate::PolicyIdentity)).
//!
//! A policy is compiled once, on its first evaluation, and its clones share
//! the compiled engine: each evaluation takes an engine of the policy's
//! pool (a copy of the compiled one the first time it is needed, so that
//! concurrent hooks never share one engine's state) and puts it back. The
//! payload is the engine's `input` as a value and the query's value comes
//! back as one: nothing is serialized or parsed in between.

#[cfg(feature = "policy")]
mod child;
#[cfg(feature = "policy")]
mod input;
#[cfg(feature = "policy")]
mod thread;

use std::fmt;
use std::sync::Arc;
#[cfg(feature = "policy")]
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use hooks_plan::PolicySpec;
use hooks_plan::rego::PolicyError;
use serde_json::Value;

#[cfg(feature = "policy")]
pub use self::child::answer_policy_request;
#[cfg(feature = "policy")]
pub(crate) use self::child::policy_request;
#[cfg(feature = "policy")]
pub(crate) use self::input::Input;

/// Evaluation steps between two reads of the clock by the engine's
/// execution timer.
#[cfg(feature = "policy")]
const TIMER_CHECK_INTERVAL: std::num::NonZeroU32 = std::num::NonZeroU32::new(16).unwrap();

/// One `policy` hook's policy: query, Rego files and identity.
#[derive(Clone)]
pub struct RegoPolicy {
    query: Arc<str>,
    digest: Arc<str>,
    modules: Arc<[(Arc<str>, Arc<str>)]>,
    engines: Arc<Engines>,
}

/// A policy's compiled engine (or why it does not compile), and the idle
/// copies evaluations reuse.
#[derive(Default)]
struct Engines {
    #[cfg(feature = "policy")]
    compiled: OnceLock<Result<regorus::Engine, PolicyError>>,
    #[cfg(feature = "policy")]
    idle: Mutex<Vec<regorus::Engine>>,
}

/// Why a policy's query has no value ([`RegoPolicy::evaluate`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyEvalError {
    /// The policy does not compile (a table built from a checked config
    /// never has one).
    #[error("the policy does not compile: {0}")]
    Compile(#[source] PolicyError),
    /// Evaluating the query failed: a rule with conflicting values, a
    /// builtin's error.
    #[error("evaluating `{query}` failed: {message}")]
    Eval {
        /// The query evaluated.
        query: String,
        /// The engine's message.
        message: String,
    },
    /// This build of agent-hooks has no `policy` feature: nothing is
    /// evaluated (a table built by `hooks!` or `Table::load` never holds a
    /// policy then: both refuse a `policy` hook without the feature).
    #[error("this build of agent-hooks has no `policy` feature")]
    FeatureOff,
    /// The query's value has no JSON form.
    #[error("the value of `{query}` is not JSON: {message}")]
    NotJson {
        /// The query evaluated.
        query: String,
        /// Why the value does not serialize.
        message: String,
    },
    /// The evaluation did not end within its deadline (a `policy` hook's
    /// `timeout`).
    #[error("evaluating `{query}` did not end within {} ms", limit.as_millis())]
    TimedOut {
        /// The query evaluated.
        query: String,
        /// The deadline.
        limit: Duration,
    },
    /// The run was cancelled during the evaluation.
    #[error("cancelled while evaluating `{query}`")]
    Cancelled {
        /// The query evaluated.
        query: String,
    },
    /// No thread could be started to evaluate on.
    #[error("no thread to evaluate `{query}` on: {message}")]
    NoThread {
        /// The query to evaluate.
        query: String,
        /// The OS's reason.
        message: String,
    },
}

impl RegoPolicy {
    /// A policy of `modules` (path as written, Rego text), in order, whose
    /// decision is the value of `query` (`data.<package>.<rule>`).
    pub fn new<P: Into<Arc<str>>, T: Into<Arc<str>>>(
        query: impl Into<Arc<str>>,
        modules: impl IntoIterator<Item = (P, T)>,
    ) -> RegoPolicy {
        let modules: Arc<[(Arc<str>, Arc<str>)]> = modules
            .into_iter()
            .map(|(p, t)| (p.into(), t.into()))
            .collect();
        let digest = hooks_plan::policy_digest(modules.iter().map(|(p, t)| (&**p, &**t))).into();
        RegoPolicy {
            query: query.into(),
            digest,
            modules,
            engines: Arc::default(),
        }
    }

    /// The policy of a plan's `policy` action.
    pub fn from_spec(spec: &PolicySpec) -> RegoPolicy {
        RegoPolicy {
            query: Arc::from(&*spec.query),
            digest: Arc::from(&*spec.digest),
            modules: spec
                .modules
                .iter()
                .map(|m| (Arc::from(&*m.path), Arc::from(&*m.source)))
                .collect(),
            engines: Arc::default(),
        }
    }

    /// The query, e.g. `data.agent.tools.decision`.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// The policy's identity: `sha256:` and the hex digest of its files.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// Evaluates the query with `input` (the hook payload) as the policy's
    /// `input`. Returns the query's value, or `None` when it is undefined.
    ///
    /// Synchronous and CPU-bound; a policy is a pure function of its input
    /// and files (no network, no file access by this engine's builtins).
    ///
    /// # Errors
    ///
    /// [`PolicyEvalError::Compile`] when the policy does not compile (a
    /// table built from a checked config never has one),
    /// [`PolicyEvalError::Eval`] when the evaluation fails (a rule with
    /// conflicting values, a builtin's error), [`PolicyEvalError::NotJson`]
    /// when its value has no JSON form.
    #[cfg(feature = "policy")]
    pub fn evaluate(&self, input: Value) -> Result<Option<Value>, PolicyEvalError> {
        self.evaluate_input(regorus::Value::from(input))
    }

    /// [`RegoPolicy::evaluate`] of an input already in `regorus`'s form
    /// (a payload rendered by [`Input`]), with a deadline: what a `policy`
    /// hook runs.
    ///
    /// The evaluation runs on a thread of its own (an idle one of an
    /// earlier evaluation when there is one), so the caller's async
    /// runtime keeps running (other hooks' deadlines, signal handlers) and
    /// this future ends at `limit` or when `cancel` fires, whatever the
    /// policy does. The engine's execution timer stops the interpreter at
    /// `limit` too (it is checked between evaluation steps); a single
    /// builtin call that builds a huge value (`numbers.range(1, 1e8)`)
    /// is not interrupted: its thread runs it to the end and its result
    /// is dropped. Memory is not bounded here (regorus bounds it only with
    /// its own global allocator, which a library cannot impose): a
    /// runtime with a memory cap and a policy process evaluates there
    /// instead ([`ShellRuntime::with_policy_process`](crate::ShellRuntime::with_policy_process)).
    ///
    /// # Errors
    ///
    /// As [`RegoPolicy::evaluate`], and [`PolicyEvalError::TimedOut`],
    /// [`PolicyEvalError::Cancelled`], [`PolicyEvalError::NoThread`].
    ///
    /// # Cancel safety
    ///
    /// Dropping the future abandons the evaluation: its thread ends at
    /// the engine's timer (or the builtin's end) and puts the engine back.
    #[cfg(feature = "policy")]
    pub(crate) async fn evaluate_within(
        &self,
        input: regorus::Value,
        limit: Duration,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<Option<Value>, PolicyEvalError> {
        let mut engine = self.engine()?;
        engine.set_execution_timer_config(regorus::utils::limits::ExecutionTimerConfig {
            limit,
            check_interval: TIMER_CHECK_INTERVAL,
        });
        let (send, answer) = tokio::sync::oneshot::channel();
        let policy = self.clone();
        thread::spawn(move || {
            // The receiver may be gone (timed out, cancelled).
            let _ = send.send(policy.run(engine, input));
        })
        .map_err(|e| PolicyEvalError::NoThread {
            query: self.query.to_string(),
            message: e.to_string(),
        })?;
        let query = || self.query.to_string();
        tokio::select! {
            value = answer => value.unwrap_or_else(|_| Err(PolicyEvalError::Eval {
                query: query(),
                message: "the evaluation panicked".to_owned(),
            })),
            () = tokio::time::sleep(limit) => Err(PolicyEvalError::TimedOut { query: query(), limit }),
            () = cancel.cancelled() => Err(PolicyEvalError::Cancelled { query: query() }),
        }
    }

    /// [`RegoPolicy::evaluate`] of an input already in `regorus`'s form,
    /// on the caller's thread, without a deadline.
    #[cfg(feature = "policy")]
    pub(crate) fn evaluate_input(
        &self,
        input: regorus::Value,
    ) -> Result<Option<Value>, PolicyEvalError> {
        let mut engine = self.engine()?;
        // An engine back from a hook's evaluation keeps that deadline.
        engine.clear_execution_timer_config();
        self.run(engine, input)
    }

    /// Evaluates the query on `engine` with `input`, puts the engine back
    /// and reads the value.
    #[cfg(feature = "policy")]
    fn run(
        &self,
        mut engine: regorus::Engine,
        input: regorus::Value,
    ) -> Result<Option<Value>, PolicyEvalError> {
        engine.set_input(input);
        let value = engine.eval_rule(self.query.to_string());
        self.engines
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(engine);
        let value = value.map_err(|e| match e.downcast_ref::<regorus::LimitError>() {
            Some(regorus::LimitError::TimeLimitExceeded { limit, .. }) => {
                PolicyEvalError::TimedOut {
                    query: self.query.to_string(),
                    limit: *limit,
                }
            }
            _ => PolicyEvalError::Eval {
                query: self.query.to_string(),
                message: e.to_string(),
            },
        })?;
        if value == regorus::Value::Undefined {
            return Ok(None);
        }
        serde_json::to_value(&value)
            .map(Some)
            .map_err(|e| PolicyEvalError::NotJson {
                query: self.query.to_string(),
                message: e.to_string(),
            })
    }

    /// Without the `policy` feature nothing is evaluated.
    ///
    /// # Errors
    ///
    /// Always [`PolicyEvalError::FeatureOff`].
    #[cfg(not(feature = "policy"))]
    pub fn evaluate(&self, input: Value) -> Result<Option<Value>, PolicyEvalError> {
        let _ = (input, &self.engines);
        Err(PolicyEvalError::FeatureOff)
    }

    /// An idle engine of this policy, or a copy of its compiled engine
    /// (compiled on first use).
    #[cfg(feature = "policy")]
    fn engine(&self) -> Result<regorus::Engine, PolicyEvalError> {
        if let Some(engine) = self
            .engines
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
        {
            return Ok(engine);
        }
        self.engines
            .compiled
            .get_or_init(|| {
                hooks_plan::rego::compile_policy(
                    self.modules.iter().map(|(p, t)| (&**p, &**t)),
                    &self.query,
                )
            })
            .clone()
            .map_err(PolicyEvalError::Compile)
    }
}

impl PartialEq for RegoPolicy {
    /// Two policies are equal when they have the same query and files.
    fn eq(&self, other: &RegoPolicy) -> bool {
        self.query == other.query && self.digest == other.digest
    }
}

impl fmt::Debug for RegoPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegoPolicy")
            .field("query", &self.query)
            .field("digest", &self.digest)
            .field(
                "files",
                &self.modules.iter().map(|(p, _)| &**p).collect::<Vec<_>>(),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(query: &str, text: &str) -> RegoPolicy {
        RegoPolicy::new(query, [("p.rego", text)])
    }

    #[test]
    fn a_failed_evaluation_says_which_step_failed() {
        let undeclared = policy("data.other.d", "package agent\nd := 1\n");
        let err = undeclared.evaluate(json!({})).unwrap_err();
        assert!(
            matches!(&err, PolicyEvalError::Compile(e) if e.file.is_none()),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "the policy does not compile: no policy file declares the package of query `data.other.d` (declared: `agent`)"
        );

        let broken = policy("data.agent.d", "package agent\nd := {\n");
        let err = broken.evaluate(json!({})).unwrap_err();
        let PolicyEvalError::Compile(located) = &err else {
            panic!("{err:?}");
        };
        assert_eq!(located.file.as_deref(), Some("p.rego"));
        let prefix = format!(
            "the policy does not compile: p.rego:{}:{}: ",
            located.line, located.column
        );
        assert!(err.to_string().starts_with(&prefix), "{err}");

        let conflict = policy(
            "data.agent.d",
            "package agent\nd := 1 if input.x == 1\nd := 2 if input.x == 1\n",
        );
        assert_eq!(conflict.evaluate(json!({"x": 2})), Ok(None));
        let err = conflict.evaluate(json!({"x": 1})).unwrap_err();
        assert!(
            matches!(&err, PolicyEvalError::Eval { query, .. } if query == "data.agent.d"),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("evaluating `data.agent.d` failed: "),
            "{err}"
        );
    }
}
