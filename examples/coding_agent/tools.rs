//! The real tools, run in the temporary workspace: `bash` through the
//! shared shell [`Executor`](agent_hooks::shell::Executor), `read_file`
//! and `write_file` confined to the workspace root.

use std::io;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use agent_hooks::shell::{ExecRequest, ExecStatus};
use agent_hooks::{ToolFailure, ToolOutcome};
use serde_json::{Value, json};

use super::Agent;

impl Agent<'_> {
    /// Runs one tool for real.
    pub(super) async fn run_tool(&self, tool: &str, args: &Value) -> (Value, ToolOutcome) {
        match tool {
            "bash" => {
                let command = args["command"].as_str().unwrap_or_default();
                let mut req = ExecRequest::shell(command);
                req.timeout = Duration::from_millis(args["timeout_ms"].as_u64().unwrap_or(10_000));
                req.stdout_cap = 64 << 10;
                req.stderr_cap = 64 << 10;
                let out = self.executor.run(&req, self.shell.cancel_token()).await;
                let mut output = String::from_utf8_lossy(&out.stdout.bytes).into_owned();
                output.push_str(&String::from_utf8_lossy(&out.stderr.bytes));
                let outcome = ToolOutcome::from(&out);
                let result = match out.status {
                    ExecStatus::Exited(code) => json!({"exit_code": code, "output": output}),
                    _ => json!({"error": outcome.message(), "output": output}),
                };
                (result, outcome)
            }
            "read_file" | "write_file" => {
                let Some(path) = args["path"].as_str().and_then(|p| self.confine(p)) else {
                    return (
                        json!({"error": "the path must be relative and stay inside the workspace"}),
                        ToolOutcome::failed(ToolFailure::Denied),
                    );
                };
                if tool == "read_file" {
                    match std::fs::read(&path) {
                        Ok(bytes) => {
                            let max = args["max_bytes"]
                                .as_u64()
                                .map_or(bytes.len(), |m| usize::try_from(m).unwrap_or(usize::MAX));
                            let kept = &bytes[..bytes.len().min(max)];
                            (
                                json!({"content": String::from_utf8_lossy(kept), "bytes": kept.len(), "truncated": kept.len() < bytes.len()}),
                                ToolOutcome::Success,
                            )
                        }
                        Err(err) => io_failure(&err),
                    }
                } else {
                    let content = args["content"].as_str().unwrap_or_default();
                    let written = path
                        .parent()
                        .map_or(Ok(()), std::fs::create_dir_all)
                        .and_then(|()| std::fs::write(&path, content));
                    match written {
                        Ok(()) => (
                            json!({"path": args["path"], "bytes_written": content.len()}),
                            ToolOutcome::Success,
                        ),
                        Err(err) => io_failure(&err),
                    }
                }
            }
            other => (
                json!({"error": format!("unknown tool `{other}`")}),
                ToolOutcome::failed(ToolFailure::NotFound),
            ),
        }
    }

    /// `path` inside the workspace, or `None` when it is absolute or climbs
    /// out with `..`.
    fn confine(&self, path: &str) -> Option<PathBuf> {
        let p = Path::new(path);
        p.components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
            .then(|| self.root.join(p))
    }
}

fn io_failure(err: &io::Error) -> (Value, ToolOutcome) {
    let failure = match err.kind() {
        io::ErrorKind::NotFound => ToolFailure::NotFound,
        io::ErrorKind::PermissionDenied => ToolFailure::Denied,
        _ => ToolFailure::Error,
    };
    (
        json!({"error": err.to_string()}),
        ToolOutcome::failed(failure),
    )
}
