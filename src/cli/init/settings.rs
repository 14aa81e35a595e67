//! The agents' hook settings as JSON: which events each agent has, what an
//! entry routing one to agent-hooks looks like, and merging it in and out
//! (the rules are in the [module docs](super)).

use std::path::Path;

use serde_json::{Map, Value, json};

use super::{InitAgent, parse_settings, sibling};

/// How an agent's settings file lists its hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Claude Code, Codex and Gemini CLI: `hooks.<Event>` is a list of
    /// groups `{matcher?, hooks: [entry, ...]}`.
    Grouped,
    /// GitHub Copilot: `{version: 1, hooks: {<event>: [entry, ...]}}`.
    Flat,
}

/// Where `init` routes an agent's events.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Route<'a> {
    /// To `program hook --agent <agent> [--stack STACK] CONFIG...`.
    Command {
        /// The command that runs agent-hooks.
        program: &'a str,
        /// The hook configs (absolute paths).
        configs: &'a [std::path::PathBuf],
        /// A stack file (an absolute path), if any.
        stack: Option<&'a std::path::Path>,
    },
    /// To an `agent-hooks serve` at `base`.
    Url {
        /// The server's base URL.
        base: &'a str,
        /// The environment variable holding the bearer token.
        token_env: Option<&'a str>,
    },
}

/// One agent's side of `init`.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// The agent's name as `hook --agent` takes it.
    pub(crate) agent: &'static str,
    /// The agent's hook event names, each routed once.
    pub(crate) events: Vec<&'static str>,
    /// The settings file's shape.
    pub(crate) layout: Layout,
}

impl Target {
    /// The target of `agent`: Claude Code's events come from the one table
    /// the protocols and `import` read ([`hooks_schema::CLAUDE_CODE_EVENTS`]).
    pub(crate) fn new(agent: InitAgent) -> Target {
        let (name, events, layout): (_, Vec<&'static str>, _) = match agent {
            InitAgent::Claude => {
                let mut events: Vec<&'static str> = Vec::new();
                for (name, _) in hooks_schema::CLAUDE_CODE_EVENTS {
                    if !events.contains(&name) {
                        events.push(name);
                    }
                }
                ("claude", events, Layout::Grouped)
            }
            InitAgent::Codex => (
                "codex",
                agent_hooks::agent::codex::EVENTS.to_vec(),
                Layout::Grouped,
            ),
            // The events the engine reads, but not `AfterModel` (fired for
            // every streamed chunk: a process per chunk) nor
            // `BeforeToolSelection` (`before_completion` again, for the same
            // model call: `BeforeModel`'s request override carries the tool
            // choice).
            InitAgent::Gemini => (
                "gemini",
                agent_hooks::agent::gemini::EVENTS
                    .iter()
                    .map(|(gemini, _)| *gemini)
                    .filter(|e| !matches!(*e, "AfterModel" | "BeforeToolSelection"))
                    .collect(),
                Layout::Grouped,
            ),
            InitAgent::Copilot => (
                "copilot",
                agent_hooks::agent::copilot::EVENTS
                    .iter()
                    .map(|(camel, _, _)| *camel)
                    .collect(),
                Layout::Flat,
            ),
        };
        Target {
            agent: name,
            events,
            layout,
        }
    }

    /// The entry that routes `event` along `route`: `program hook --agent
    /// <agent> CONFIG...` (each word quoted for a POSIX shell), or to
    /// `base/v1/hooks/<agent>` of an `agent-hooks serve` (Claude Code's own
    /// `type: http` hook, for the other agents a `curl` command: they have
    /// no HTTP hooks), with the bearer token read from `token_env` when
    /// given. Copilot's entries name their event (`--event`, `?event=`):
    /// the Copilot CLI's payloads do not (src/agent/copilot.rs).
    pub(crate) fn entry(&self, route: &Route<'_>, event: &str) -> Value {
        let named = self.layout == Layout::Flat;
        match route {
            Route::Command {
                program,
                configs,
                stack,
            } => {
                let mut command = format!("{} hook --agent {}", shell_quote(program), self.agent);
                if named {
                    command.push_str(&format!(" --event {}", shell_quote(event)));
                }
                if let Some(stack) = stack {
                    command.push_str(" --stack ");
                    command.push_str(&shell_quote(&stack.display().to_string()));
                }
                for config in *configs {
                    command.push(' ');
                    command.push_str(&shell_quote(&config.display().to_string()));
                }
                self.command_value(command)
            }
            Route::Url { base, token_env } => {
                let mut url = format!("{}/v1/hooks/{}", base.trim_end_matches('/'), self.agent);
                if named {
                    url.push_str("?event=");
                    url.push_str(event);
                }
                if self.agent == "claude" {
                    let mut entry = json!({"type": "http", "url": url});
                    if let Some(name) = token_env {
                        entry["headers"] = json!({"Authorization": format!("Bearer ${name}")});
                        entry["allowedEnvVars"] = json!([name]);
                    }
                    return entry;
                }
                let mut command = String::from(
                    "curl -sS --fail-with-body --max-time 30 -H 'Content-Type: application/json'",
                );
                if let Some(name) = token_env {
                    command.push_str(&format!(" -H \"Authorization: Bearer ${name}\""));
                }
                // Always quoted: the closing quote is how `is_ours` recognises
                // the entry (a URL is never followed by `'` in a user's
                // command).
                command.push_str(" --data-binary @- '");
                command.push_str(&url.replace('\'', r"'\''"));
                command.push('\'');
                self.command_value(command)
            }
        }
    }

    fn command_value(&self, command: String) -> Value {
        match (self.layout, self.agent) {
            (Layout::Flat, _) => json!({"type": "command", "bash": command, "timeoutSec": 30}),
            (Layout::Grouped, "gemini") => {
                json!({"type": "command", "command": command, "name": "agent-hooks"})
            }
            (Layout::Grouped, _) => json!({"type": "command", "command": command}),
        }
    }

    /// Whether `entry` is one of ours (see the module docs).
    fn is_ours(&self, entry: &Value) -> bool {
        let command = entry
            .get("command")
            .or_else(|| entry.get("bash"))
            .and_then(Value::as_str);
        if let Some(command) = command {
            return command.contains(&format!(" hook --agent {}", self.agent))
                || command.contains(&format!("/v1/hooks/{}'", self.agent))
                || command.contains(&format!("/v1/hooks/{}?event=", self.agent));
        }
        entry
            .get("url")
            .and_then(Value::as_str)
            .is_some_and(|url| url.ends_with(&format!("/v1/hooks/{}", self.agent)))
    }

    /// Adds the entry of `route` for every event of `settings`, or
    /// replaces our entry where one is there already.
    ///
    /// # Errors
    /// `hooks` or an event's list is not of the layout's JSON type.
    fn merge_in(&self, settings: &mut Map<String, Value>, route: &Route<'_>) -> Result<(), String> {
        if self.layout == Layout::Flat && !settings.contains_key("version") {
            settings.insert("version".into(), json!(1));
        }
        let hooks = settings
            .entry("hooks")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
            .ok_or("`hooks` is not a JSON object")?;
        for event in &self.events {
            let entry = &self.entry(route, event);
            let list = hooks
                .entry(*event)
                .or_insert_with(|| Value::Array(Vec::new()))
                .as_array_mut()
                .ok_or_else(|| format!("`hooks.{event}` is not a JSON array"))?;
            let mut found = false;
            for slot in self.entries_mut(list) {
                if self.is_ours(slot) {
                    *slot = entry.clone();
                    found = true;
                }
            }
            if !found {
                list.push(match self.layout {
                    Layout::Grouped => json!({"hooks": [entry]}),
                    Layout::Flat => entry.clone(),
                });
            }
        }
        Ok(())
    }

    /// Removes our entries, then groups and event lists left empty by it.
    fn merge_out(&self, settings: &mut Map<String, Value>) {
        let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
            return;
        };
        hooks.retain(|_, list| {
            let Some(items) = list.as_array_mut() else {
                return true;
            };
            let before = items.len();
            items.retain_mut(|item| match self.layout {
                Layout::Flat => !self.is_ours(item),
                Layout::Grouped => {
                    let Some(inner) = item.get_mut("hooks").and_then(Value::as_array_mut) else {
                        return true;
                    };
                    let had = inner.len();
                    inner.retain(|e| !self.is_ours(e));
                    !(inner.is_empty() && had > 0)
                }
            });
            !(items.is_empty() && before > 0)
        });
    }

    /// The entries of one event's list, whatever the layout.
    fn entries_mut<'a>(&self, list: &'a mut [Value]) -> Vec<&'a mut Value> {
        match self.layout {
            Layout::Flat => list.iter_mut().collect(),
            Layout::Grouped => list
                .iter_mut()
                .filter_map(|group| group.get_mut("hooks").and_then(Value::as_array_mut))
                .flat_map(|inner| inner.iter_mut())
                .collect(),
        }
    }
}

/// `text` as one word of a POSIX shell command: unchanged when it holds
/// only characters no shell treats specially, else in single quotes.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+=:,@%".contains(&b));
    if plain {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

/// What `init` remembers about a file it changed (`<file>.agent-hooks.state`).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct State {
    /// Whether the file existed before the first `init`.
    existed: bool,
    /// `sha256:` and the hex digest of the bytes `init` last wrote.
    written: String,
}

/// Renders settings as Claude Code and the others write them: two-space
/// indented JSON and a final newline.
fn render(settings: &Map<String, Value>) -> Result<String, String> {
    let mut text = serde_json::to_string_pretty(settings).map_err(|e| e.to_string())?;
    text.push('\n');
    Ok(text)
}

/// `init`: merges `entry` into the settings at `path` (created with its
/// directories when missing), keeping a backup of the original.
///
/// # Errors
/// The file cannot be read or written, or is not a settings object.
pub(crate) fn install(
    target: &Target,
    path: &Path,
    route: &Route<'_>,
    moved: &[String],
) -> Result<String, String> {
    let shown = path.display();
    let original = match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(format!("cannot read {shown}: {err}")),
    };
    let text = match &original {
        Some(bytes) => std::str::from_utf8(bytes)
            .map_err(|_| format!("{shown}: not UTF-8 (nothing was changed)"))?,
        None => "",
    };
    let mut settings = parse_settings(path, text)?;
    super::import::take_out(&mut settings, moved);
    target.merge_in(&mut settings, route)?;
    let rendered = render(&settings)?;
    if original.as_deref() == Some(rendered.as_bytes()) {
        return Ok(format!(
            "{shown}: already routes {} events to agent-hooks",
            target.agent
        ));
    }
    let backup = sibling(path, ".agent-hooks.bak");
    let state_path = sibling(path, ".agent-hooks.state");
    let existed = match read_state(&state_path)? {
        Some(state) => state.existed,
        None => {
            if let Some(bytes) = &original {
                std::fs::write(&backup, bytes)
                    .map_err(|e| format!("cannot write {}: {e}", backup.display()))?;
            }
            original.is_some()
        }
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    write_atomic(path, rendered.as_bytes())?;
    let state = State {
        existed,
        written: digest(rendered.as_bytes()),
    };
    let state_text = serde_json::to_string(&state).map_err(|e| e.to_string())?;
    std::fs::write(&state_path, state_text)
        .map_err(|e| format!("cannot write {}: {e}", state_path.display()))?;
    Ok(format!(
        "{shown}: {} {} events routed to agent-hooks{}",
        target.events.len(),
        target.agent,
        if existed {
            format!(" (original kept in {})", backup.display())
        } else {
            String::new()
        }
    ))
}

/// `init --uninstall` (see the module docs).
///
/// # Errors
/// The file cannot be read or written, or is not a settings object.
pub(crate) fn uninstall(target: &Target, path: &Path) -> Result<String, String> {
    let shown = path.display();
    let backup = sibling(path, ".agent-hooks.bak");
    let state_path = sibling(path, ".agent-hooks.state");
    let current = match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(err) => return Err(format!("cannot read {shown}: {err}")),
    };
    let state = read_state(&state_path)?;
    let untouched = match (&state, &current) {
        (Some(state), Some(bytes)) => digest(bytes) == state.written,
        _ => false,
    };
    if let (true, Some(state)) = (untouched, &state) {
        if state.existed {
            let bytes = std::fs::read(&backup)
                .map_err(|e| format!("cannot read the backup {}: {e}", backup.display()))?;
            write_atomic(path, &bytes)?;
            remove(&backup)?;
        } else {
            remove(path)?;
        }
        remove(&state_path)?;
        return Ok(format!("{shown}: restored as it was before `init`"));
    }
    let Some(bytes) = current else {
        return Ok(format!("{shown}: no such file, nothing to undo"));
    };
    let text = std::str::from_utf8(&bytes).map_err(|_| format!("{shown}: not UTF-8"))?;
    let mut settings = parse_settings(path, text)?;
    target.merge_out(&mut settings);
    let rendered = render(&settings)?;
    if rendered.as_bytes() != bytes.as_slice() {
        write_atomic(path, rendered.as_bytes())?;
    }
    remove(&state_path)?;
    let kept = if backup.exists() {
        format!(
            "; the original from before `init` is in {}",
            backup.display()
        )
    } else {
        String::new()
    };
    Ok(format!(
        "{shown}: edited since `init`: only agent-hooks' entries were removed{kept}"
    ))
}

/// `sha256:` and the hex SHA-256 of `bytes`.
fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    let mut out = String::from("sha256:");
    for byte in sha2::Sha256::digest(bytes) {
        out.push_str(&format!("{byte:02x}"));
    }
    out
}

fn read_state(path: &Path) -> Result<Option<State>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| format!("{}: {e}", path.display())),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(format!("cannot read {}: {err}", path.display())),
    }
}

/// Writes `bytes` to a temporary file beside `path`, then renames it over
/// `path` (an agent reading its settings meanwhile sees the old or the new
/// file, never half of one).
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let temp = sibling(path, ".agent-hooks.tmp");
    std::fs::write(&temp, bytes).map_err(|e| format!("cannot write {}: {e}", temp.display()))?;
    std::fs::rename(&temp, path).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn remove(path: &Path) -> Result<(), String> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(format!("cannot remove {}: {err}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_keeps_plain_words_and_quotes_the_rest() {
        assert_eq!(shell_quote("/usr/bin/agent-hooks"), "/usr/bin/agent-hooks");
        assert_eq!(shell_quote("/a b/c"), "'/a b/c'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    #[test]
    fn merge_in_twice_is_merge_in_once_and_merge_out_undoes_it() {
        let target = Target::new(InitAgent::Claude);
        let mut settings = Map::new();
        settings.insert(
            "hooks".into(),
            json!({"Stop": [{"hooks": [{"type": "command", "command": "mine.sh"}]}]}),
        );
        let before = settings.clone();
        let configs = ["/c.yaml".into()];
        let route = Route::Command {
            program: "/bin/agent-hooks",
            configs: &configs,
            stack: None,
        };
        target.merge_in(&mut settings, &route).expect("merge");
        let once = settings.clone();
        target.merge_in(&mut settings, &route).expect("merge");
        assert_eq!(settings, once);
        let stop = &settings["hooks"]["Stop"];
        assert_eq!(stop.as_array().map(Vec::len), Some(2), "{stop}");
        assert_eq!(stop[0]["hooks"][0]["command"], "mine.sh");
        target.merge_out(&mut settings);
        assert_eq!(settings, before);
    }

    #[test]
    fn copilot_entries_are_flat_and_versioned() {
        let target = Target::new(InitAgent::Copilot);
        let mut settings = Map::new();
        let route = Route::Url {
            base: "http://127.0.0.1:8080/",
            token_env: Some("HOOKS_TOKEN"),
        };
        target.merge_in(&mut settings, &route).expect("merge");
        assert_eq!(settings["version"], 1);
        let bash = settings["hooks"]["preToolUse"][0]["bash"]
            .as_str()
            .expect("bash");
        assert!(
            bash.ends_with("'http://127.0.0.1:8080/v1/hooks/copilot?event=preToolUse'"),
            "{bash}"
        );
        assert!(target.is_ours(&settings["hooks"]["preToolUse"][0]));
        let once = settings.clone();
        target.merge_in(&mut settings, &route).expect("merge");
        assert_eq!(settings, once);
        target.merge_out(&mut settings);
        assert_eq!(settings["hooks"], json!({}));
    }
}
