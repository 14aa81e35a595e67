//! Running the hook: [`Call::build_payload`], then its target: a process
//! ([`Call::spawn`] → [`Call::read_exit`]) or a policy
//! ([`Call::evaluate`]); an `http` hook's exchange is in `http.rs`.

use std::borrow::Cow;
use std::path::Path;

use hooks_plan::Protocol;

use super::call::{Call, Outcome};
use super::redact_flow::redact_flow;
use super::spec::{HookTarget, ProcessTarget};
use crate::core::report::OutputSizes;
use crate::shell::exec::Launch;
use crate::shell::payload::{self, BuiltPayload, PAYLOAD_REF_ENV, PayloadInput, Render, SpillFile};
use crate::shell::protocol::{self, ProtocolDecision, ProtocolFailure};
use crate::{CommandForm, ExecOutcome, ExecRequest, ExecStatus, FailureKind, Flow, StepEvent};

impl Call<'_> {
    /// Builds the payload of `event` (cwd, payload mode, protocol,
    /// affected paths, spill to the session directory) rendered by
    /// `render` for the target, and keeps its notes as redacted
    /// diagnostics and its path findings for the record. Returns the
    /// payload; or, in place of running the target, the outcome of a call
    /// refused before it runs ([`BuiltPayload::refusal`], see
    /// [`Call::refuse`]) or the failure (`spawn_failed` and its detail)
    /// when the payload cannot be prepared.
    pub(super) fn build_payload<R: Render>(
        &mut self,
        event: &StepEvent<'_>,
        render: &R,
    ) -> Result<BuiltPayload<R::Output>, Box<Outcome>> {
        let (spec, rt) = (self.spec, self.rt);
        let root = rt.executor.workspace_root();
        let cwd = self.cwd();
        let input = PayloadInput {
            hook_id: &spec.id,
            ctx: self.ctx,
            cwd: &cwd,
            mode: spec.payload,
            protocol: spec.protocol,
            tool_paths: self.tools.paths,
            secrets: &self.secrets,
            // Only a process reads its payload from a file.
            session_dir: rt
                .session_dir
                .as_deref()
                .filter(|_| matches!(spec.target, HookTarget::Process(_))),
            root,
            limits: rt.limits.payload,
        };
        match payload::build_as(event, &input, render, self.tools.resolved) {
            Err(err) => Err(Box::new(Outcome::Failed(
                FailureKind::SpawnFailed,
                format!("the payload could not be prepared: {err}"),
            ))),
            Ok(mut built) => {
                let notes: Vec<String> = built.diagnostics.iter().map(|d| self.redact(d)).collect();
                self.diagnostics.extend(notes);
                self.path_diagnostics.clone_from(&built.path_diagnostics);
                match built.refusal.take() {
                    // A write outside the workspace root: refused unrun.
                    Some(reason) => Err(Box::new(self.refuse(&reason))),
                    None => Ok(built),
                }
            }
        }
    }

    /// The hook's working directory: a process's `cwd` joined to the
    /// workspace root and canonicalized, else the root (borrowed).
    fn cwd(&self) -> Cow<'_, Path> {
        let root = self.rt.executor.workspace_root();
        self.spec
            .process()
            .and_then(|p| p.cwd.as_ref())
            .and_then(|c| root.join(c).canonicalize().ok())
            .map_or(Cow::Borrowed(root), Cow::Owned)
    }

    /// The outcome of a call refused before spawning
    /// ([`BuiltPayload::refusal`]): a `skip` with `reason` as if the hook
    /// had answered it (redacted), so the mode and the record treat it alike.
    pub(super) fn refuse(&self, reason: &str) -> Outcome {
        let reason = self.redact(reason);
        Outcome::Decided(ProtocolDecision::flow(Flow::skip(reason)))
    }

    /// Fails the call before spawning, so the hook's failure policy
    /// decides, not the interpreter's exit code: `script_changed` when a
    /// file the hook was trusted with (a table loaded at run time) no
    /// longer has the trusted bytes, `spawn_failed` when the command runs
    /// a script that does not exist (`preflight::missing_script`).
    ///
    /// The files are hashed here, just before the spawn: a file swapped
    /// between this check and the interpreter opening it (a window of one
    /// spawn) is not caught. A worker's pins are checked before every
    /// request; whether its script exists, only before its pool starts a
    /// process ([`Call::missing_script`], passed to the pool): a running
    /// worker does not open it again.
    pub(super) fn check_script(&self) -> Result<(), (FailureKind, String)> {
        let Some(process) = self.spec.process() else {
            return Ok(()); // an `http` or `policy` hook runs no script
        };
        if let Some(pin) = self.cache.changed_pin() {
            return Err((
                FailureKind::ScriptChanged,
                format!(
                    "`{}` changed since its config was trusted; the hook was not run (review it, then run `agent-hooks trust` on the config)",
                    pin.path.display()
                ),
            ));
        }
        match process.worker {
            Some(_) => Ok(()),
            None => self
                .missing_script(process)
                .map_or(Ok(()), |detail| Err((FailureKind::SpawnFailed, detail))),
        }
    }

    /// Why `process` cannot start: the script its command runs does not
    /// exist (`preflight::missing_script`); `None` when it can.
    fn missing_script(&self, process: &ProcessTarget) -> Option<String> {
        let root = self.rt.executor.workspace_root();
        let project_dir = self.spec.protocol.project_dir_vars();
        let var = |name: &str| {
            if let Some((_, v)) = process.env.set.iter().find(|(k, _)| k == name) {
                return Some(v.clone());
            }
            project_dir
                .contains(&name)
                .then(|| root.to_string_lossy().into_owned())
        };
        self.cache.script(process, &var)?.missing_in(&self.cwd())
    }

    /// Runs `process` through the session's executor with `built` on
    /// stdin, under the session's cancellation token (a worker hook sends
    /// it as one request to its pool instead, see
    /// [`ProcessTarget::worker`]), then removes the
    /// payload-ref file (a failure to is a diagnostic). Keeps the output
    /// sizes for the record and report; returns what the executor saw.
    ///
    /// Cancel safety: the payload-ref file lives across the await, so
    /// dropping the future removes it (and the executor kills the group).
    pub(super) async fn spawn(
        &mut self,
        process: &ProcessTarget,
        built: BuiltPayload,
    ) -> ExecOutcome {
        let stdin = built.document;
        let spill = built.spill;
        let env_file = self.env_file(process);
        let out = match process.worker {
            Some(size) => {
                let deadline = self.deadline;
                let pool = self.rt.worker_pool(&self.spec.id, size, || {
                    self.exec_request(process, Vec::new(), None)
                });
                let cap = self.rt.limits.stdout_cap;
                let missing = || self.missing_script(process);
                let request = pool.request(&self.rt.executor, &stdin, deadline, cap, &missing);
                // The pool ends its requests when the runtime is cancelled;
                // a background call's own token ends this one too (the
                // dropped request kills its process, see `request`).
                tokio::select! {
                    biased;
                    () = self.cancel.cancelled() => cancelled_request(&self.spec.id),
                    out = request => out,
                }
            }
            None if spill.is_none() && env_file.is_none() => {
                // The command is built once and respawned.
                let launch = Launch {
                    stdin: Some(&stdin),
                    timeout: self.remaining(),
                    stdout_cap: self.rt.limits.stdout_cap,
                    stderr_cap: self.rt.limits.stderr_cap,
                };
                let shape = || self.exec_request(process, Vec::new(), None);
                let (executor, cancel) = (&self.rt.executor, self.cancel);
                executor
                    .run_prepared(&self.cache.process, shape, launch, cancel)
                    .await
            }
            None => {
                // The payload-ref file's (and the env file's) path is in
                // the environment.
                let mut req = self.exec_request(process, stdin, spill.as_ref());
                if let Some(file) = &env_file {
                    req.env.set.push((
                        super::env_file::CLAUDE_ENV_FILE.to_owned(),
                        file.path().to_string_lossy().into_owned(),
                    ));
                }
                self.rt.executor.run(&req, self.cancel).await
            }
        };
        self.output = Some(OutputSizes::from(&out));
        if let Some(file) = env_file {
            self.read_env_file(file);
        }
        if let Some(spill) = spill {
            self.remove_spill(spill);
        }
        out
    }

    /// The executor request of `process`: command, cwd, env (plus
    /// [`CLAUDE_PROJECT_DIR`] for `protocol: claude` unless `env.set` names
    /// it, and [`PAYLOAD_REF_ENV`] when the payload spilled), timeout,
    /// output caps and `stdin`.
    fn exec_request(
        &self,
        process: &ProcessTarget,
        stdin: Vec<u8>,
        spill: Option<&SpillFile>,
    ) -> ExecRequest {
        let (spec, limits) = (self.spec, &self.rt.limits);
        let mut req = ExecRequest::new(process.form.clone());
        req.cwd = process.cwd.clone();
        req.env = process.env.clone();
        req.timeout = self.remaining();
        req.stdout_cap = limits.stdout_cap;
        req.stderr_cap = limits.stderr_cap;
        req.memory_limit = limits.memory_bytes;
        for name in spec.protocol.project_dir_vars() {
            if !req.env.set.iter().any(|(k, _)| k == name) {
                // Claude Code's and Gemini CLI's scripts locate themselves
                // with it.
                let root = self.rt.executor.workspace_root();
                req.env
                    .set
                    .push(((*name).to_owned(), root.to_string_lossy().into_owned()));
            }
        }
        if let Some(spill) = spill {
            req.env.set.push((
                PAYLOAD_REF_ENV.to_owned(),
                spill.path().to_string_lossy().into_owned(),
            ));
        }
        req.stdin = Some(stdin);
        req
    }

    /// `outcome` with a note naming the memory cap when the hook is a
    /// process (one-shot or worker, or a policy in the policy process) that ran under one
    /// ([`HookLimits::memory_bytes`](super::HookLimits::memory_bytes)) and
    /// ended with a nonzero exit or a signal: an allocation over the cap
    /// fails, and that is how a process usually ends then (the runtime
    /// cannot tell it from another failure).
    pub(super) fn note_memory_limit(&self, outcome: Outcome) -> Outcome {
        let process = self.spec.process();
        // A policy evaluated in the policy process runs under the cap too.
        #[cfg(feature = "policy")]
        let process = process.or_else(|| {
            matches!(self.spec.target, HookTarget::Policy(_))
                .then(|| self.policy_process())
                .flatten()
        });
        let (Some(process), Some(bytes)) = (process, self.rt.limits.memory_bytes) else {
            return outcome;
        };
        let restart = if process.worker.is_some() {
            "; the worker is restarted for the next request"
        } else {
            ""
        };
        match outcome {
            Outcome::Failed(kind @ (FailureKind::NonzeroExit | FailureKind::Signalled), detail) => {
                Outcome::Failed(
                    kind,
                    format!(
                        "{detail} (the hook runs under `limits.max_hook_memory_bytes` of {bytes} bytes: \
                         an allocation over it fails, which ends a process this way{restart})"
                    ),
                )
            }
            outcome => outcome,
        }
    }

    /// Removes the payload-ref file; a failure becomes a diagnostic.
    fn remove_spill(&mut self, spill: SpillFile) {
        let path = spill.path().to_path_buf();
        if let Err(err) = spill.remove() {
            let message = self.redact(&format!(
                "cannot remove the payload-ref file `{}` of hook `{}`: {err}",
                path.display(),
                self.spec.id
            ));
            self.diagnostics.push(message);
        }
    }

    /// Reads the executor's outcome of `process`: an executor failure, or
    /// exit 126/127 of a shell-form command (the shell could not run it),
    /// is a failure; otherwise the exit code, stdout and stderr go through
    /// the spec's protocol. Returns the decision, its flow redacted
    /// ([`redact_flow`]) before the context cap counts it, or the
    /// protocol's failure.
    pub(super) fn read_exit(
        &self,
        event: &StepEvent<'_>,
        process: &ProcessTarget,
        out: ExecOutcome,
    ) -> Outcome {
        let spec = self.spec;
        let code = match out.status {
            // The executor's detail names no argument (they may hold
            // secrets); the program comes from the config and is what a
            // user has to fix.
            ExecStatus::Failed(f) => {
                let detail = match &process.form {
                    CommandForm::Exec(argv) if f.kind == FailureKind::SpawnFailed => {
                        match argv.first() {
                            Some(program) => format!("program `{program}`: {}", f.detail),
                            None => f.detail,
                        }
                    }
                    _ => f.detail,
                };
                return Outcome::Failed(f.kind, detail);
            }
            // An exec-form command under a memory cap runs through the
            // cap's shell wrapper too.
            ExecStatus::Exited(code @ (126 | 127))
                if matches!(process.form, CommandForm::Shell(_))
                    || self.rt.limits.memory_bytes.is_some() =>
            {
                let why = if code == 127 {
                    "command not found"
                } else {
                    "not executable"
                };
                return Outcome::Failed(
                    FailureKind::SpawnFailed,
                    format!(
                        "the shell could not run the command (exit code {code}: {why}){}",
                        shell_complaint(&out.stderr.bytes)
                    ),
                );
            }
            ExecStatus::Exited(code) => code,
        };
        let parsed = match spec.protocol {
            Protocol::Native => {
                protocol::native::parse(self.phase, code, &out.stdout, &out.stderr, &spec.id)
            }
            Protocol::Claude | Protocol::Codex => {
                protocol::claude::parse(event, code, &out.stdout, &out.stderr, &spec.id)
            }
            Protocol::Gemini => {
                protocol::gemini::parse(event, code, &out.stdout, &out.stderr, &spec.id)
            }
            Protocol::Copilot => {
                protocol::copilot::parse(event, code, &out.stdout, &out.stderr, &spec.id)
            }
        };
        self.read_decision(parsed)
    }

    /// The outcome of a parsed output: the decision with every text it
    /// carries redacted, or the protocol's failure.
    pub(super) fn read_decision(
        &self,
        parsed: Result<ProtocolDecision, ProtocolFailure>,
    ) -> Outcome {
        match parsed {
            // Every text the hook's output put in the flow reaches the model
            // or the records: redact it here, before the context byte cap
            // counts it.
            Ok(mut decision) => {
                decision.flow = redact_flow(decision.flow, &self.secrets);
                if let Some(args) = decision.args.take()
                    && let Flow::RewriteArgs(args) =
                        redact_flow(Flow::RewriteArgs(args), &self.secrets)
                {
                    decision.args = Some(args);
                }
                if !decision.context.is_empty() {
                    let beside = Flow::InjectContext(std::mem::take(&mut decision.context).into());
                    if let Flow::InjectContext(items) = redact_flow(beside, &self.secrets) {
                        decision.context = items.into_vec();
                    }
                }
                Outcome::Decided(decision)
            }
            Err(ProtocolFailure { kind, detail, .. }) => Outcome::Failed(kind, detail),
        }
    }
}

/// `: ` and the last line the shell wrote to stderr when it could not run
/// a command (`sh: 1: deploy-check: not found`: it names the missing
/// command), cut to 200 characters; empty when it wrote nothing.
fn shell_complaint(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    match text.lines().map(str::trim).rfind(|l| !l.is_empty()) {
        Some(line) => format!(": {}", line.chars().take(200).collect::<String>()),
        None => String::new(),
    }
}

/// The outcome of a worker request of hook `hook` ended by the call's
/// cancellation (its process is killed when the request is dropped).
fn cancelled_request(hook: &str) -> ExecOutcome {
    ExecOutcome {
        status: ExecStatus::Failed(crate::ExecFailure::new(
            FailureKind::Cancelled,
            format!("cancelled while worker `{hook}` handled a request"),
        )),
        stdout: crate::Captured::default(),
        stderr: crate::Captured::default(),
        elapsed: std::time::Duration::ZERO,
        pid: None,
    }
}
