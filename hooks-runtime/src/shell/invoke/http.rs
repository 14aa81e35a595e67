//! The exchange of an `http` hook: [`Call::post`] → [`Call::read_answer`],
//! in place of [`Call::spawn`] → [`Call::parse_output`] for a process.

use hooks_schema::HttpProtocol;

use super::call::{Call, Outcome};
use crate::core::report::StreamSize;
use crate::http::{self, Answer, opa};
use crate::shell::payload::BuiltPayload;
use crate::shell::records::HttpExchange;
use crate::{Captured, ExecOutcome, ExecStatus, FailureKind, HttpTarget, StepEvent};

impl Call<'_> {
    /// POSTs the payload `built` to `target` (wrapped as `{"input": ...}`
    /// under `protocol: opa`) with its headers resolved, under the spec's
    /// timeout and the session's cancellation token; the body is capped at
    /// the stdout cap. Returns the answer or the failure.
    ///
    /// Cancel safety: dropping the future drops the request.
    pub(super) async fn post(
        &mut self,
        target: &HttpTarget,
        built: BuiltPayload,
    ) -> Result<Answer, (FailureKind, String)> {
        let headers = target.resolved_headers().map_err(|e| {
            (
                FailureKind::SpawnFailed,
                format!("the request could not be prepared: {e}"),
            )
        })?;
        let body = match target.protocol {
            HttpProtocol::Opa => {
                opa::request(&built.stdin).map_err(|e| (FailureKind::SpawnFailed, e))?
            }
            HttpProtocol::Native | HttpProtocol::Claude => built.stdin,
        };
        http::post(
            &target.url,
            &headers,
            target.follow_redirects,
            body,
            self.spec.timeout,
            self.rt.limits.stdout_cap,
            &self.rt.cancel,
        )
        .await
    }

    /// Reads the server's answer: a failure stays one; a status other than
    /// 2xx is an `http_status` failure (a 3xx names `follow_redirects`); a
    /// 2xx body goes through the spec's protocol like a process's stdout
    /// with exit code 0 (under `protocol: opa`, the answer's `result`,
    /// empty when undefined). Keeps status, body size and OPA's decision id
    /// for the record.
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
        let stdout = match target.protocol {
            HttpProtocol::Opa if answer.body.truncated => answer.body,
            HttpProtocol::Opa => match opa::answer(&answer.body.bytes) {
                Ok(opa) => {
                    exchange.decision_id = opa.decision_id;
                    let len = opa.output.len() as u64;
                    Captured {
                        bytes: opa.output,
                        total_len: len,
                        truncated: false,
                    }
                }
                Err(detail) => return Outcome::Failed(FailureKind::InvalidOutput, detail),
            },
            HttpProtocol::Native | HttpProtocol::Claude => answer.body,
        };
        let out = ExecOutcome {
            status: ExecStatus::Exited(0),
            stdout,
            stderr: Captured::default(),
            elapsed: std::time::Duration::ZERO,
            pid: None,
        };
        self.parse_output(event, out)
    }
}
