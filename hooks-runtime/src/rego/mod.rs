//! `policy` hooks' Rego policies, evaluated in process with `regorus`.
//!
//! A [`RegoPolicy`] is what the config says about one `policy` hook's
//! policy: the query, the Rego files (their text, as checked when the
//! config was built) and the policy's identity (a digest of the files,
//! [`hooks_schema::policy::policy_digest`]). A `policy` hook runs through
//! the same pipeline as a `run` hook ([`ShellHook::invoke`](crate::ShellHook::invoke)):
//! the payload a `run` hook would get on stdin is the policy's `input`, and
//! the query's value is read by the native output protocol exactly like a
//! `run` hook's stdout object; an undefined value is `continue`. A failing
//! evaluation is a [`FailureKind::PolicyFailed`](crate::FailureKind::PolicyFailed)
//! failure under the hook's failure policy. Records carry the policy's
//! query and digest ([`PolicyIdentity`](crate::PolicyIdentity)).
//!
//! Engines are compiled once per process and policy (keyed by digest and
//! query) and cloned for each evaluation, so concurrent hooks never share
//! one engine's state.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, LazyLock, Mutex};

use hooks_schema::plan::PolicySpec;

/// Compiled engines by (digest, query).
type Engines = HashMap<(Arc<str>, Arc<str>), regorus::Engine>;

/// One `policy` hook's policy: query, Rego files and identity.
#[derive(Clone)]
pub struct RegoPolicy {
    query: Arc<str>,
    digest: Arc<str>,
    modules: Arc<[(Arc<str>, Arc<str>)]>,
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
        let digest =
            hooks_schema::policy::policy_digest(modules.iter().map(|(p, t)| (&**p, &**t))).into();
        RegoPolicy {
            query: query.into(),
            digest,
            modules,
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

    /// Evaluates the query with `input` (a JSON document: the hook
    /// payload). Returns the query's value as JSON text, or `None` when it
    /// is undefined.
    ///
    /// Synchronous and CPU-bound; a policy is a pure function of its input
    /// and files (no network, no file access by this engine's builtins).
    ///
    /// # Errors
    ///
    /// A message when the policy does not compile (a table built from a
    /// checked config never has one), the input is not JSON, or the
    /// evaluation fails (a rule with conflicting values, a builtin's error).
    pub fn evaluate(&self, input: &str) -> Result<Option<String>, String> {
        let mut engine = self.engine()?;
        let input = regorus::Value::from_json_str(input)
            .map_err(|e| format!("the payload is not JSON: {e}"))?;
        engine.set_input(input);
        let value = engine
            .eval_rule(self.query.to_string())
            .map_err(|e| format!("evaluating `{}` failed: {e}", self.query))?;
        if value == regorus::Value::Undefined {
            return Ok(None);
        }
        value
            .to_json_str()
            .map(Some)
            .map_err(|e| format!("the value of `{}` is not JSON: {e}", self.query))
    }

    /// A fresh copy of this policy's compiled engine (compiled on first use).
    fn engine(&self) -> Result<regorus::Engine, String> {
        static ENGINES: LazyLock<Mutex<Engines>> = LazyLock::new(Mutex::default);
        let key = (Arc::clone(&self.digest), Arc::clone(&self.query));
        if let Some(engine) = ENGINES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
        {
            return Ok(engine.clone());
        }
        let engine = hooks_schema::policy::compile_policy(
            self.modules.iter().map(|(p, t)| (&**p, &**t)),
            &self.query,
        )
        .map_err(|e| match e.file {
            Some(file) => format!(
                "the policy does not compile: {file}:{}:{}: {}",
                e.line, e.column, e.message
            ),
            None => format!("the policy does not compile: {}", e.message),
        })?;
        ENGINES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, engine.clone());
        Ok(engine)
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
