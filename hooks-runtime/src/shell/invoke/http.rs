//! The exchange of an `http` hook: [`Call::post`] → [`Call::read_answer`],
//! in place of [`Call::spawn`] → [`Call::read_exit`] for a process.

use hooks_plan::{HttpProtocol, Protocol};

use super::call::{Call, Outcome};
use crate::core::report::StreamSize;
use crate::http::{self, Answer, Headers, HttpTarget, opa};
use crate::shell::payload::BuiltPayload;
use crate::shell::protocol;
use crate::shell::records::HttpExchange;
use crate::{FailureKind, StepEvent};

impl Call<'_> {
    /// POSTs the payload `built` to `target` (wrapped as `{"input": ...}`
    /// under `protocol: opa`) with its headers resolved (prepared once
    /// when no value references a variable), under the spec's
    /// timeout and the session's cancellation token; the body is capped at
    /// the stdout cap. Under the managed layer's switches
    /// ([`ShellRuntime::with_switches`](crate::ShellRuntime::with_switches)),
    /// a target they refuse sends nothing, and a redirect to a URL they
    /// refuse is not followed (`not_allowed`). Returns the answer or the
    /// failure.
    ///
    /// Cancel safety: dropping the future drops the request.
    pub(super) async fn post(
        &mut self,
        target: &HttpTarget,
        built: BuiltPayload,
    ) -> Result<Answer, (FailureKind, String)> {
        let switches = self.rt.switches.as_deref();
        if let Some(refusal) = switches.and_then(|s| target.refusal(s)) {
            return Err((FailureKind::NotAllowed, refusal));
        }
        let prepared = self.cache.http(target);
        // Headers without `${VAR}` are prepared once; others resolved now.
        let resolved = match prepared.headers() {
            Some(_) => None,
            None => Some(target.resolved_headers().map_err(|e| {
                (
                    FailureKind::SpawnFailed,
                    format!("the request could not be prepared: {e}"),
                )
            })?),
        };
        let headers = match (prepared.headers(), &resolved) {
            (Some(map), _) => Headers::Prepared(map),
            (None, resolved) => Headers::Resolved(resolved.as_deref().unwrap_or_default()),
        };
        let body = match target.protocol {
            HttpProtocol::Opa => opa::request(&built.document),
            HttpProtocol::Native | HttpProtocol::Claude => built.document,
        };
        http::post(
            target,
            prepared,
            headers,
            body,
            self.remaining(),
            self.rt.limits.stdout_cap,
            self.cancel,
            switches,
        )
        .await
    }

    /// Reads the server's answer: a failure stays one; a status other than
    /// 2xx is an `http_status` failure (a 3xx names `follow_redirects`); a
    /// 2xx body is the hook's output document, read by the spec's protocol
    /// (under `protocol: opa`, the answer's `result` is read as a JSON
    /// value, undefined: `continue`). Keeps status, body size and OPA's
    /// decision id for the record. Returns the decision, its flow
    /// redacted, or the failure.
    pub(super) fn read_answer(
        &mut self,
        event: &StepEvent<'_>,
        target: &HttpTarget,
        answer: Result<Answer, (FailureKind, String)>,
    ) -> Outcome {
        let answer = match answer {
            Ok(answer) => answer,
            Err((kind, detail)) => return Outcome::Failed(kind, detail),
        };
        let exchange = self.http.insert(HttpExchange {
            status: answer.status,
            body: StreamSize::from(&answer.body),
            decision_id: None,
        });
        if !(200..300).contains(&answer.status) {
            let hint = if (300..400).contains(&answer.status) {
                " (a redirect; it is followed only with `follow_redirects: true`)"
            } else {
                ""
            };
            return Outcome::Failed(
                FailureKind::HttpStatus,
                format!("the server answered with status {}{hint}", answer.status),
            );
        }
        let body = &answer.body;
        let parsed = match (target.protocol, self.spec.protocol) {
            (HttpProtocol::Opa, _) if !body.truncated => match opa::answer(&body.bytes) {
                Ok(opa) => {
                    exchange.decision_id = opa.decision_id;
                    protocol::native::read_value(self.phase, opa.result)
                }
                Err(detail) => return Outcome::Failed(FailureKind::InvalidOutput, detail),
            },
            (_, Protocol::Native) => protocol::native::read_output(self.phase, body),
            (_, Protocol::Claude | Protocol::Codex) => {
                protocol::claude::read_output(event, body, &self.spec.id)
            }
            (_, Protocol::Gemini) => protocol::gemini::read_output(event, body, &self.spec.id),
            (_, Protocol::Copilot) => protocol::copilot::read_output(event, body, &self.spec.id),
        };
        self.read_decision(parsed)
    }
}
