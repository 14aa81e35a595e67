//! One Claude Code handler (a `command` or `http` hook of a matcher group)
//! → one converted hook: its program, environment, timeout, failure
//! policy and the `when` of its `if` rule (the rules are in the
//! [module docs](super)).

use std::collections::BTreeMap;

use hooks_schema::{FailurePolicy, Phase, Protocol};
use serde_json::{Map, Value};

use super::emit::{Converted, Pattern, Program, When};
use super::env::referenced_env;
use super::map::{Converter, HookCtx, id_fragment, type_name};
use super::matcher::ToolMatch;

/// The variable Claude Code sets to a plugin's directory.
const PLUGIN_ROOT: &str = "CLAUDE_PLUGIN_ROOT";

/// The longest timeout agent-hooks accepts, in milliseconds (10 minutes).
const MAX_TIMEOUT_MS: u64 = 600_000;

impl Converter<'_> {
    /// Converts one handler of a matcher group (`hook`, at `path`) into a
    /// hook, or records why it does not convert.
    pub(super) fn hook(&mut self, hook: &Value, path: &str, ctx: &HookCtx<'_>) {
        let Value::Object(hook) = hook else {
            self.warn(
                path,
                None,
                format!("skipped: expected a hook object, found {}", type_name(hook)),
            );
            return;
        };
        let dialect = self.options.dialect;
        let keys = dialect.handler();
        let convertible = if keys.http {
            "only `command` and `http` hooks convert"
        } else {
            "only `command` hooks convert"
        };
        let is_http = match hook.get("type").and_then(Value::as_str) {
            Some("command") => false,
            Some("http") if keys.http => true,
            Some(t @ ("prompt" | "agent")) => {
                self.warn(
                    path,
                    Some("type"),
                    format!("skipped: `type: \"{t}\"` hooks ask a model, and agent-hooks runs no model in hooks; {convertible}"),
                );
                return;
            }
            Some(t) => {
                self.warn(
                    path,
                    Some("type"),
                    format!("skipped: `type: \"{t}\"` hooks have no equivalent; {convertible}"),
                );
                return;
            }
            None => {
                self.warn(
                    path,
                    None,
                    format!(
                        "skipped: the hook has no `type` ({} requires one, e.g. `\"type\": \"command\"`)",
                        dialect.agent()
                    ),
                );
                return;
            }
        };
        // A key the dialect's handlers have; others are reported below.
        let field = |key: &str| hook.get(key).filter(|_| keys.reads(key, !is_http));
        // The first command key present (a per-platform override before the
        // plain command); agent-hooks runs on Unix.
        let command_key = keys
            .command
            .iter()
            .copied()
            .find(|k| hook.get(*k).and_then(Value::as_str).is_some())
            .unwrap_or(keys.command_name);
        let command = match hook.get(command_key).and_then(Value::as_str) {
            _ if is_http => String::new(),
            Some(c) if !c.trim().is_empty() => c.to_owned(),
            _ => {
                self.warn(
                    path,
                    Some(keys.command_name),
                    format!("skipped: the command hook has no `{}`", keys.command_name),
                );
                return;
            }
        };
        let routes_here = if is_http {
            hook.get("url")
                .and_then(Value::as_str)
                .is_some_and(|url| url.contains("/v1/hooks/"))
        } else {
            command.contains(" hook --agent ") || command.contains("/v1/hooks/")
        };
        if routes_here {
            // Importing it would run agent-hooks inside agent-hooks.
            self.warn(
                path,
                None,
                "skipped: an entry of `agent-hooks init` (it runs `agent-hooks hook` or calls an `agent-hooks serve`), not a hook to import".to_owned(),
            );
            return;
        }
        let name = field("name").and_then(Value::as_str);
        if !is_http && self.disabled.iter().any(|d| *d == name.unwrap_or(&command)) {
            self.warn(
                path,
                None,
                format!(
                    "skipped: `{}` is disabled in the agent's settings (`hooksConfig.disabled`)",
                    name.unwrap_or(&command)
                ),
            );
            return;
        }
        let program = match field("shell").and_then(Value::as_str) {
            _ if is_http => match self.http_action(hook, path) {
                Some(http) => http,
                None => return,
            },
            None | Some("sh") => Program::Shell(command.clone()),
            Some("bash") => {
                Program::Exec(vec!["bash".to_owned(), "-c".to_owned(), command.clone()])
            }
            Some(other) => {
                self.warn(
                    path,
                    Some("shell"),
                    format!(
                        "skipped: `shell: \"{other}\"` is not supported, expected `sh` or `bash`"
                    ),
                );
                return;
            }
        };
        let Some(timeout) = self.timeout(hook, path) else {
            return;
        };
        let failure_policy = self.failure_policy(field("onFailure"), path, ctx.phase);
        let (cwd, env_set) = if is_http {
            (None, BTreeMap::new())
        } else {
            let Some(extra) = self.exec_extras(hook, path) else {
                return;
            };
            extra
        };
        let tools = ctx.tools.clone();
        let mut when_parts: Vec<When> = ctx.outcome.cloned().into_iter().collect();
        if let Some(rule) = field("if") {
            // Claude Code evaluates `if` on tool events only; elsewhere a
            // hook with `if` never runs.
            if !Phase::from_name(ctx.phase).is_some_and(Phase::is_tool_phase) {
                self.warn(
                    path,
                    Some("if"),
                    format!("skipped: `if` filter {rule} on a hook of an event without a tool call; Claude Code never runs it"),
                );
                return;
            }
            let parsed = rule.as_str().map(hooks_schema::permission::parse);
            let Some(Ok(_)) = parsed else {
                let why = match parsed {
                    Some(Err(e)) => e.to_string(),
                    _ => "not a string".to_owned(),
                };
                self.warn(
                    path,
                    Some("if"),
                    format!("skipped: `if` filter {rule} is not a permission rule ({why}); Claude Code would not run the hook either"),
                );
                return;
            };
            let names = rule.as_str().and_then(hooks_schema::permission::tool_names);
            if names.is_some_and(|n| !n.iter().any(|t| tools.matches(t))) {
                self.warn(
                    path,
                    Some("if"),
                    format!("skipped: `if` filter {rule} names tools the group's matcher excludes, so the hook never runs"),
                );
                return;
            }
            when_parts.push(When::Permission {
                permission: rule.as_str().unwrap_or_default().to_owned(),
            });
        }
        let (background, failure_policy) = self.background(&field, path, ctx.phase, failure_policy);
        for key in self.lines.keys(path, hook) {
            let known = keys.reads(key, !is_http)
                || is_http && matches!(key, "url" | "headers" | "allowedEnvVars")
                || ctx.entry_matcher && key == "matcher";
            if !known && !key.starts_with("//") {
                self.warn(
                    path,
                    Some(key),
                    format!("ignored key `{key}`: agent-hooks has no equivalent"),
                );
            }
        }
        // The workspace root's variables the runtime sets for the protocol.
        let project_dir_vars = serde_json::from_value::<Protocol>(ctx.protocol.into())
            .map_or(&[][..], Protocol::project_dir_vars);
        let mut env_pass = referenced_env(&command, project_dir_vars);
        let mut env_set = env_set;
        let reads_plugin_root = dialect.has_plugins() && env_pass.iter().any(|n| n == PLUGIN_ROOT);
        if let Some(root) = &self.options.plugin_root {
            env_pass.retain(|n| n != PLUGIN_ROOT);
            env_set.insert(PLUGIN_ROOT.to_owned(), root.clone());
        }
        env_pass.retain(|n| !env_set.contains_key(n));
        let description = ctx
            .description
            .or_else(|| field("description").and_then(Value::as_str))
            .or_else(|| field("statusMessage").and_then(Value::as_str))
            .map(str::to_owned);
        // A handler's own name (Gemini CLI's `name`), else the group's base.
        let base = name
            .map(id_fragment)
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| ctx.base.to_owned());
        let counter = self.counters.entry(base.clone()).or_insert(0);
        *counter += 1;
        let id = format!("{base}-{counter}");
        if reads_plugin_root && self.options.plugin_root.is_none() {
            self.plugin_root_users.push(id.clone());
        }
        let include_tools = match tools {
            ToolMatch::Names(names) => names.into_iter().map(Pattern::Name).collect(),
            ToolMatch::Regex(regex) => vec![Pattern::Regex { regex }],
            _ => Vec::new(),
        };
        let when = match when_parts.len() {
            0 => None,
            1 => when_parts.pop(),
            _ => Some(When::All { all: when_parts }),
        };
        self.hooks.push(Converted {
            id,
            origin: ctx.origin.clone(),
            source: path.to_owned(),
            description,
            phase: ctx.phase,
            include_tools,
            when,
            program,
            env_pass,
            env_set,
            cwd,
            timeout,
            failure_policy,
            background,
            once: field("once") == Some(&Value::Bool(true)),
            protocol: ctx.protocol,
        });
    }

    /// The `http` action of a Claude Code HTTP hook (`None`, with a
    /// warning, when the hook is skipped): `url` as is (it must be an
    /// `http`/`https` URL with a host), `headers` with `$NAME` / `${NAME}`
    /// written `${NAME}`, `allowedEnvVars` as `env`. A reference to a
    /// variable `allowedEnvVars` does not list resolves to nothing in Claude
    /// Code: it is dropped, with a warning.
    fn http_action(&mut self, hook: &Map<String, Value>, path: &str) -> Option<Program> {
        let url = match hook.get("url").and_then(Value::as_str) {
            Some(url) => match hooks_schema::url_problem(url, hooks_schema::HttpProtocol::Claude) {
                None => url.to_owned(),
                Some(why) => {
                    self.warn(path, Some("url"), format!("skipped: {why}"));
                    return None;
                }
            },
            None => {
                self.warn(
                    path,
                    Some("url"),
                    "skipped: the HTTP hook has no `url`".to_owned(),
                );
                return None;
            }
        };
        let env: Vec<String> = match hook.get("allowedEnvVars") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(names)) => {
                let mut env = Vec::new();
                for name in names {
                    match name.as_str() {
                        Some(n) if hooks_schema::valid_env_name(n) => env.push(n.to_owned()),
                        _ => self.warn(
                            path,
                            Some("allowedEnvVars"),
                            format!("ignored `allowedEnvVars` entry {name}: not a variable name"),
                        ),
                    }
                }
                env
            }
            Some(other) => {
                self.warn(
                    path,
                    Some("allowedEnvVars"),
                    format!("ignored `allowedEnvVars` {other}: expected a list of variable names"),
                );
                Vec::new()
            }
        };
        let mut headers = BTreeMap::new();
        match hook.get("headers") {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                for (name, value) in map {
                    let Some(value) = value.as_str() else {
                        self.warn(
                            path,
                            Some("headers"),
                            format!("ignored header `{name}`: its value is not a string"),
                        );
                        continue;
                    };
                    let (value, dropped) = claude_header_value(value, &env);
                    for var in dropped {
                        self.warn(
                            path,
                            Some("headers"),
                            format!("header `{name}` references `{var}`, which `allowedEnvVars` does not list: Claude Code sends it empty, and so does the converted hook"),
                        );
                    }
                    headers.insert(name.clone(), value);
                }
            }
            Some(other) => {
                self.warn(
                    path,
                    Some("headers"),
                    format!(
                        "ignored `headers` {other}: expected a mapping of header names to values"
                    ),
                );
            }
        }
        Some(Program::Http { url, headers, env })
    }

    /// The failure policy of a hook with Claude Code's `onFailure` `value`
    /// on `phase`: `block` (fail closed) where the phase allows it, else
    /// `warn` (Claude Code's default, `continue`), with a warning when the
    /// value cannot be honoured.
    /// Whether the hook runs in the background (`async: true`): Claude
    /// Code's `async` and `asyncRewake` hooks, with a warning for what
    /// differs, except on `run_end` / `run_error`, where agent-hooks
    /// cancels a run's background hooks (the hook then runs in order, with
    /// a warning); and its failure policy (`warn` for a background hook,
    /// whose failure nothing waits for: an `onFailure: "block"` is warned
    /// about).
    fn background<'v>(
        &mut self,
        field: &dyn Fn(&str) -> Option<&'v Value>,
        path: &str,
        phase: &str,
        failure_policy: &'static str,
    ) -> (bool, &'static str) {
        let flag = |key| field(key).and_then(Value::as_bool) == Some(true);
        let (is_async, rewake) = (flag("async"), flag("asyncRewake"));
        let key = if is_async { "async" } else { "asyncRewake" };
        if !is_async && !rewake {
            return (false, failure_policy);
        }
        if !Phase::from_name(phase).is_some_and(|p| p.capabilities().background) {
            self.warn(
                path,
                Some(key),
                format!(
                    "`{key}: true` on `{phase}`: agent-hooks cancels a run's background hooks when the run ends, so the hook runs in order, before that"
                ),
            );
            return (false, failure_policy);
        }
        if is_async {
            self.warn(
                path,
                Some("async"),
                format!(
                    "`async: true`: runs in the background, and as in {} the agent does not wait; its `additionalContext` comes with the run's next event that takes context (not only on the next turn), and a decision it answers with is recorded as an `invalid_output` failure, not applied",
                    self.options.dialect.agent()
                ),
            );
        }
        if rewake {
            self.warn(
                path,
                Some("asyncRewake"),
                "`asyncRewake: true`: runs in the background (`async: true`), but agent-hooks wakes no idle model: an exit 2 is recorded as an `invalid_output` failure; its `additionalContext` comes with the run's next event that takes context".to_owned(),
            );
        }
        let warn = FailurePolicy::Warn.as_str();
        if failure_policy != warn {
            self.warn(
                path,
                Some("onFailure"),
                format!("`onFailure: \"{failure_policy}\"` cannot act on a background hook (nothing waits for it); the hook fails open with `failure_policy: warn`"),
            );
        }
        (true, warn)
    }

    fn failure_policy(&mut self, value: Option<&Value>, path: &str, phase: &str) -> &'static str {
        let warn = FailurePolicy::Warn.as_str();
        match value.map(|v| (v, v.as_str())) {
            None | Some((Value::Null, _)) | Some((_, Some("continue"))) => warn,
            Some((_, Some("block"))) => {
                let allowed = Phase::from_name(phase)
                    .is_some_and(|p| p.capabilities().allows_failure_policy(FailurePolicy::Block));
                if allowed {
                    FailurePolicy::Block.as_str()
                } else {
                    self.warn(
                        path,
                        Some("onFailure"),
                        format!("`onFailure: \"block\"` has no equivalent on `{phase}` (failure policy `block` skips a tool call); the hook fails open with `failure_policy: warn`"),
                    );
                    warn
                }
            }
            Some((other, _)) => {
                self.warn(
                    path,
                    Some("onFailure"),
                    format!("unknown `onFailure` {other}, expected `\"block\"` or `\"continue\"`; the hook fails open with `failure_policy: warn`"),
                );
                warn
            }
        }
    }

    /// A command handler's `cwd` and `env` where the dialect has them
    /// (VS Code, the Copilot CLI), after a warning for each command for
    /// another platform (`None`, with a warning, when the hook is skipped).
    fn exec_extras(
        &mut self,
        hook: &Map<String, Value>,
        path: &str,
    ) -> Option<(Option<String>, BTreeMap<String, String>)> {
        let keys = self.options.dialect.handler();
        for &key in keys.other_platforms {
            if hook.contains_key(key) {
                self.warn(
                    path,
                    Some(key),
                    format!("ignored key `{key}`: agent-hooks runs the Unix command"),
                );
            }
        }
        let field = |key: &str| hook.get(key).filter(|_| keys.exec.contains(&key));
        let cwd = match field("cwd") {
            None | Some(Value::Null) => None,
            Some(Value::String(dir)) if hooks_schema::cwd_problem(dir).is_none() => {
                Some(dir.clone())
            }
            Some(other) => {
                self.warn(
                    path,
                    Some("cwd"),
                    format!("skipped: `cwd` {other} must be a directory relative to the repository root that stays inside it"),
                );
                return None;
            }
        };
        let mut env = BTreeMap::new();
        match field("env") {
            None | Some(Value::Null) => {}
            Some(Value::Object(vars)) => {
                for (name, value) in vars {
                    match value.as_str() {
                        Some(v) if hooks_schema::valid_env_name(name) => {
                            env.insert(name.clone(), v.to_owned());
                        }
                        _ => {
                            self.warn(
                                path,
                                Some("env"),
                                format!("skipped: `env` entry `{name}` must be a string variable `[A-Za-z_][A-Za-z0-9_]*`"),
                            );
                            return None;
                        }
                    }
                }
            }
            Some(other) => {
                self.warn(
                    path,
                    Some("env"),
                    format!(
                        "skipped: `env` must be an object of variables, found {}",
                        type_name(other)
                    ),
                );
                return None;
            }
        }
        Some((cwd, env))
    }

    /// A handler's timeout (the dialect's key and unit: Claude Code's
    /// `timeout` in seconds, Gemini CLI's in milliseconds, ...) as an
    /// agent-hooks duration; `None` (with a warning) when the hook is
    /// skipped.
    fn timeout(&mut self, hook: &Map<String, Value>, path: &str) -> Option<String> {
        let keys = self.options.dialect.handler();
        let key = keys
            .timeout
            .iter()
            .copied()
            .find(|k| hook.contains_key(*k))
            .unwrap_or("timeout");
        let (unit, units) = if keys.timeout_unit_ms == 1 {
            ("ms", "milliseconds")
        } else {
            ("s", "seconds")
        };
        let millis = match hook.get(key) {
            None | Some(Value::Null) => keys.default_timeout_secs * 1000,
            Some(Value::Number(n)) => match n.as_f64() {
                Some(value) if value > 0.0 && value.is_finite() => {
                    let ms = (value * keys.timeout_unit_ms as f64).round();
                    if ms > MAX_TIMEOUT_MS as f64 {
                        self.warn(
                            path,
                            Some(key),
                            format!("`{key}` {n} {unit} is longer than agent-hooks' maximum of 10 minutes; clamped to `600s`"),
                        );
                        MAX_TIMEOUT_MS
                    } else {
                        // In range 0..=600_000 after the check above.
                        (ms as u64).max(1)
                    }
                }
                _ => {
                    self.warn(
                        path,
                        Some(key),
                        format!("skipped: `{key}` must be a positive number of {units}, found {n}"),
                    );
                    return None;
                }
            },
            Some(other) => {
                self.warn(
                    path,
                    Some(key),
                    format!(
                        "skipped: `{key}` must be a number of {units}, found {}",
                        type_name(other)
                    ),
                );
                return None;
            }
        };
        Some(duration_text(millis))
    }
}

/// `millis` as `"Ns"` (whole seconds) or `"Nms"`.
fn duration_text(millis: u64) -> String {
    if millis.is_multiple_of(1000) {
        format!("{}s", millis / 1000)
    } else {
        format!("{millis}ms")
    }
}

/// A Claude Code header value with its `$NAME` and `${NAME}` references
/// written as agent-hooks' `${NAME}`; references to variables not in `env`
/// are dropped (Claude Code resolves them to nothing) and returned.
fn claude_header_value(value: &str, env: &[String]) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut dropped = Vec::new();
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], &inner[end + 1..]),
                None => ("", after),
            },
            None => {
                let end = after
                    .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if name.is_empty() || !hooks_schema::valid_env_name(name) {
            out.push('$');
            rest = after;
            continue;
        }
        if env.iter().any(|e| e == name) {
            out.push_str(&format!("${{{name}}}"));
        } else {
            dropped.push(name.to_owned());
        }
        rest = tail;
    }
    out.push_str(rest);
    (out, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_use_the_largest_exact_unit() {
        assert_eq!(duration_text(60_000), "60s");
        assert_eq!(duration_text(600_000), "600s");
        assert_eq!(duration_text(1_500), "1500ms");
    }

    #[test]
    fn claude_header_references_become_braced_and_unlisted_ones_drop() {
        let env = vec!["TOKEN".to_owned()];
        assert_eq!(
            claude_header_value("Bearer $TOKEN/${TOKEN} $5 ${NOPE}!", &env),
            (
                "Bearer ${TOKEN}/${TOKEN} $5 !".to_owned(),
                vec!["NOPE".to_owned()]
            )
        );
    }
}
