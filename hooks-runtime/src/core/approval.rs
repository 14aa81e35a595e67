//! Asking someone: the [`Approver`] an agent supplies, and how a
//! [`ToolDecision::Ask`] or [`PermissionDecision::Ask`] is resolved with it
//! ([`Decided::resolve`]).
//!
//! Hooks answer `ask` (Claude Code `permissionDecision: "ask"` / `"defer"`,
//! the native `{"decision": "ask"}`, the declarative `ask:` action) when a
//! call needs a decision they will not take alone. Across hooks, deny
//! (`skip`) > ask > allow. The agent's approver — a person at a prompt, an
//! approval service — then decides. An agent without an approver refuses
//! the call with the hook's reason (fail closed) and the decision carries a
//! [`Diagnostic::NoApprover`] saying so.

use std::future::Future;
use std::pin::Pin;

use hooks_plan::Phase;
use serde_json::Value;

use crate::core::context::HookContext;
use crate::core::diagnostic::Diagnostic;
use crate::core::driver::{Decided, PermissionDecision, ToolCall, ToolDecision};
use crate::core::flow::{FlowKind, Text};
use crate::core::outcome::{ProvenanceList, note_deciders};
use crate::core::report::ReportList;

/// What an approver is asked: one tool call, and the hooks' reason.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApprovalRequest<'a> {
    /// `before_tool` or `permission_request`.
    pub phase: Phase,
    /// The tool's name.
    pub tool_name: &'a str,
    /// The call's id.
    pub call_id: &'a str,
    /// The arguments the call would run with (after the hooks' rewrites).
    pub args: &'a Value,
    /// Why a hook asked; `None` on a permission request no hook decided.
    pub reason: Option<&'a str>,
}

/// An approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run the call.
    Allow,
    /// Do not run it; the model is shown `reason`.
    Deny {
        /// What the model sees.
        reason: Text,
    },
}

/// The future an [`Approver`] returns (boxed: approvers are called once
/// per ask, never on the hot path).
pub type ApprovalFuture<'a> = Pin<Box<dyn Future<Output = Approval> + Send + 'a>>;

/// Who decides when a hook asks: a person (a terminal or UI prompt), an
/// external approval service, a policy of the agent's own.
///
/// A plain closure `Fn(&ApprovalRequest<'_>) -> Approval` is an approver.
///
/// # Cancel safety
///
/// The caller may drop the future (the run was cancelled); the approver
/// must then drop whatever prompt or request it has open.
pub trait Approver: Send + Sync {
    /// Decides on `request`.
    fn approve<'a>(
        &'a self,
        ctx: &'a HookContext,
        request: ApprovalRequest<'a>,
    ) -> ApprovalFuture<'a>;
}

impl<F> Approver for F
where
    F: Fn(&ApprovalRequest<'_>) -> Approval + Send + Sync,
{
    fn approve<'a>(
        &'a self,
        _ctx: &'a HookContext,
        request: ApprovalRequest<'a>,
    ) -> ApprovalFuture<'a> {
        let answer = self(&request);
        Box::pin(std::future::ready(answer))
    }
}

/// Asks `approver` (if any) about `call` with `args`; `Err(reason)` is the
/// refusal the model sees, with the diagnostic to add when there was no one
/// to ask.
async fn ask(
    ctx: &HookContext,
    approver: Option<&dyn Approver>,
    request: ApprovalRequest<'_>,
) -> Result<(), (Text, Option<Diagnostic>)> {
    let Some(approver) = approver else {
        let reason = request.reason.unwrap_or("the call needs approval");
        let refusal = format!(
            "{reason} (approval required; there is no approver, so the call is refused: fail closed)"
        );
        return Err((
            refusal.into(),
            Some(Diagnostic::NoApprover {
                tool: request.tool_name.to_owned(),
                reason: request.reason.map(str::to_owned),
            }),
        ));
    };
    match approver.approve(ctx, request).await {
        Approval::Allow => Ok(()),
        Approval::Deny { reason } => Err((reason, None)),
    }
}

/// Notes a refusal for lack of an approver: in the diagnostics and in the
/// report of every hook that asked, so whoever reads a hook's report sees
/// what became of its ask.
fn refused(
    provenance: &ProvenanceList,
    reports: &mut ReportList,
    diagnostics: &mut Vec<Diagnostic>,
    diagnostic: Option<Diagnostic>,
) {
    if let Some(diagnostic) = diagnostic {
        note_deciders(provenance, reports, diagnostics, FlowKind::Ask, diagnostic);
    }
}

impl<'a> Decided<ToolDecision<'a>> {
    /// Resolves a [`ToolDecision::Ask`] for `call` with `approver`:
    /// [`Approval::Allow`] becomes [`ToolDecision::Run`] with the
    /// (rewritten) arguments, [`Approval::Deny`] a [`ToolDecision::Skip`];
    /// with no approver the call is skipped with the hook's reason and a
    /// [`Diagnostic::NoApprover`] (fail closed). Other decisions are
    /// returned unchanged. `call.args` is ignored (the decision has the
    /// arguments).
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the approver's future (see [`Approver`]).
    pub async fn resolve(
        mut self,
        ctx: &HookContext,
        call: ToolCall<'_>,
        approver: Option<&dyn Approver>,
    ) -> Self {
        let ToolDecision::Ask { reason, args } = self.decision else {
            return self;
        };
        let request = ApprovalRequest {
            phase: Phase::BeforeTool,
            tool_name: call.tool_name,
            call_id: call.call_id,
            args: &args,
            reason: Some(&reason),
        };
        self.decision = match ask(ctx, approver, request).await {
            Ok(()) => ToolDecision::Run { args },
            Err((reason, diagnostic)) => {
                refused(
                    &self.provenance,
                    &mut self.reports,
                    &mut self.diagnostics,
                    diagnostic,
                );
                ToolDecision::Skip { reason, args }
            }
        };
        self
    }
}

impl<'a> Decided<PermissionDecision<'a>> {
    /// Resolves a [`PermissionDecision::Ask`] for `call` with `approver`:
    /// [`Approval::Allow`] becomes [`PermissionDecision::Allow`],
    /// [`Approval::Deny`] a [`PermissionDecision::Deny`]; with no approver
    /// the request is denied with a [`Diagnostic::NoApprover`] (fail
    /// closed). Other decisions are returned unchanged.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future drops the approver's future (see [`Approver`]).
    pub async fn resolve(
        mut self,
        ctx: &HookContext,
        call: ToolCall<'_>,
        approver: Option<&dyn Approver>,
    ) -> Self {
        let PermissionDecision::Ask { reason, args } = self.decision else {
            return self;
        };
        let request = ApprovalRequest {
            phase: Phase::PermissionRequest,
            tool_name: call.tool_name,
            call_id: call.call_id,
            args: &args,
            reason: reason.as_deref(),
        };
        self.decision = match ask(ctx, approver, request).await {
            Ok(()) => PermissionDecision::Allow { args },
            Err((reason, diagnostic)) => {
                refused(
                    &self.provenance,
                    &mut self.reports,
                    &mut self.diagnostics,
                    diagnostic,
                );
                PermissionDecision::Deny { reason }
            }
        };
        self
    }
}
