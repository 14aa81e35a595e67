//! `init --import OUT.yaml`: the hooks already in the agent's settings move
//! into a config of their own (through `agent-hooks import`), which the
//! routed events run after the configs given, so every hook runs in one
//! fixed order and each can be turned off by its id. What does not convert
//! stays in the settings (each with the importer's warning), so nothing is
//! lost; `init --uninstall` on an untouched file brings the original back
//! byte for byte, the moved hooks with it.

use std::path::{Path, PathBuf};

use agent_hooks::import::claude::{Dialect, ImportError, ImportOptions, import_with};
use serde_json::{Map, Value};

use super::InitAgent;
use crate::cli::warn;

/// What `--import` did.
#[derive(Debug)]
pub(crate) struct Moved {
    /// The config written, when some hook converted.
    pub(crate) config: Option<PathBuf>,
    /// The settings entries it holds (`hooks.PreToolUse[0].hooks[1]`).
    pub(crate) sources: Vec<String>,
    /// What to tell the user.
    pub(crate) message: String,
}

/// Converts the hooks of `settings` (the agent's settings file) into a new
/// config at `out`.
///
/// # Errors
///
/// `out` exists already, the settings cannot be read or are not a
/// settings object, the agent keeps its hooks in files of their own
/// (Copilot), or `out` cannot be written.
pub(crate) fn into_config(agent: InitAgent, settings: &Path, out: &Path) -> Result<Moved, String> {
    let dialect = match agent {
        InitAgent::Claude => Dialect::ClaudeCode,
        InitAgent::Codex => Dialect::Codex,
        InitAgent::Gemini => Dialect::Gemini,
        InitAgent::Copilot => {
            return Err(
                "`--import` reads the hooks of the settings file `init` edits; Copilot's live in files of their own under `.github/hooks/`: convert each with `agent-hooks import copilot FILE` and remove it"
                    .into(),
            );
        }
    };
    if out.exists() {
        return Err(format!(
            "{} exists: `--import` writes a new config and never overwrites one",
            out.display()
        ));
    }
    let name = settings.display().to_string();
    let nothing = |why: &str| Moved {
        config: None,
        sources: Vec::new(),
        message: format!("{name}: {why}: nothing imported"),
    };
    let text = match std::fs::read_to_string(settings) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(nothing("no such file"));
        }
        Err(err) => return Err(format!("cannot read {name}: {err}")),
    };
    // A settings file keeps its hooks under `hooks` (events at the top
    // level are a plugin's `hooks.json` form, which no settings file is).
    let has_hooks = serde_json::from_str::<Value>(&text)
        .ok()
        .is_some_and(|v| v.get("hooks").is_some());
    if !has_hooks {
        return Ok(nothing("no `hooks`"));
    }
    let imported = match import_with(&text, &name, &ImportOptions::new(dialect)) {
        Ok(imported) => imported,
        Err(ImportError::NoHooksKey) => return Ok(nothing("no hooks")),
        Err(ImportError::NothingConvertible { warnings }) => {
            for w in &warnings {
                warn(&format!("warning: {name}: {w}"));
            }
            return Ok(nothing("no hook converts (they stay in the settings)"));
        }
        Err(err) => return Err(format!("cannot import {name}: {err}")),
    };
    for w in &imported.warnings {
        warn(&format!("warning: {name}: {w}"));
    }
    let mut yaml = imported.to_yaml();
    if !yaml.ends_with('\n') {
        yaml.push('\n');
    }
    let shown = out.display().to_string();
    if let Err(diags) = hooks_schema::load_str(&yaml, &shown) {
        return Err(format!(
            "the converted config does not pass `check` (an importer bug, please report it): {diags}"
        ));
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(out)
        .and_then(|mut file| std::io::Write::write_all(&mut file, yaml.as_bytes()))
        .map_err(|e| format!("cannot write {shown}: {e}"))?;
    let kept = if imported.warnings.is_empty() {
        String::new()
    } else {
        format!(
            "; what did not convert stays in {name} ({} warning(s))",
            imported.warnings.len()
        )
    };
    Ok(Moved {
        config: Some(out.to_owned()),
        sources: imported.sources().map(str::to_owned).collect(),
        message: format!("moved {} hook(s) into {shown}{kept}", imported.len()),
    })
}

/// One entry `--import` moved: its event, its index in the event's list
/// and, for a handler of a matcher group, its index in the group's `hooks`.
fn parse_source(source: &str) -> Option<(&str, usize, Option<usize>)> {
    let rest = source.strip_prefix("hooks.")?;
    let (event, rest) = rest.split_once('[')?;
    let (group, rest) = rest.split_once(']')?;
    let group = group.parse().ok()?;
    let handler = match rest.strip_prefix(".hooks[") {
        Some(inner) => Some(inner.strip_suffix(']')?.parse().ok()?),
        None if rest.is_empty() => None,
        None => return None,
    };
    Some((event, group, handler))
}

/// Removes the entries `sources` names ([`Moved::sources`]) from
/// `settings`, then the matcher groups and event lists left empty by it
/// (a group or list that was empty before stays).
pub(crate) fn take_out(settings: &mut Map<String, Value>, sources: &[String]) {
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
        return;
    };
    let mut by_event: std::collections::BTreeMap<&str, Vec<(usize, Option<usize>)>> =
        std::collections::BTreeMap::new();
    for (event, group, handler) in sources.iter().filter_map(|s| parse_source(s)) {
        by_event.entry(event).or_default().push((group, handler));
    }
    for (event, mut entries) in by_event {
        let Some(list) = hooks.get_mut(event).and_then(Value::as_array_mut) else {
            continue;
        };
        // Last first, so the indices of the entries still to go hold.
        entries.sort_unstable_by(|a, b| b.cmp(a));
        let mut groups = Vec::new();
        for (group, handler) in entries {
            match handler {
                None => groups.push(group),
                Some(h) => {
                    let inner = list
                        .get_mut(group)
                        .and_then(|g| g.get_mut("hooks"))
                        .and_then(Value::as_array_mut);
                    if let Some(inner) = inner
                        && h < inner.len()
                    {
                        inner.remove(h);
                        if inner.is_empty() {
                            groups.push(group);
                        }
                    }
                }
            }
        }
        groups.sort_unstable_by(|a, b| b.cmp(a));
        groups.dedup();
        for group in groups {
            if group < list.len() {
                list.remove(group);
            }
        }
        if list.is_empty() {
            hooks.remove(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_moved_entries_and_what_they_emptied_go() {
        let mut settings = json!({"hooks": {
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"command": "a"}, {"command": "b"}]},
                {"matcher": "Edit", "hooks": [{"command": "c"}]}
            ],
            "Stop": [{"hooks": [{"command": "d"}]}],
            "preToolUse": [{"bash": "e"}, {"bash": "f"}]
        }, "permissions": {}})
        .as_object()
        .cloned()
        .unwrap_or_default();
        let moved = [
            "hooks.PreToolUse[0].hooks[1]",
            "hooks.PreToolUse[1].hooks[0]",
            "hooks.Stop[0].hooks[0]",
            "hooks.preToolUse[0]",
        ]
        .map(str::to_owned);
        take_out(&mut settings, &moved);
        assert_eq!(
            Value::Object(settings),
            json!({"hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"command": "a"}]}],
                "preToolUse": [{"bash": "f"}]
            }, "permissions": {}})
        );
        assert_eq!(parse_source("hooks.X[2].hooks[3]"), Some(("X", 2, Some(3))));
        assert_eq!(parse_source("hooks.X[2]"), Some(("X", 2, None)));
        assert_eq!(parse_source("X[2]"), None);
    }
}
