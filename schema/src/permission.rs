//! Claude Code's permission-rule syntax (`Bash(git push *)`,
//! `Read(./.env)`, `WebFetch(domain:example.com)`, `mcp__github__*`) read
//! into the regexes a [`PermissionRule`](hooks_plan::PermissionRule) is
//! compiled from. Source: Claude Code's permission documentation
//! (*Permission rule syntax*); docs/config.md's *Permission rules* states what
//! is kept and what differs.

use regex_syntax::escape;

/// What a rule's specifier tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecifierKind {
    /// Some simple command of the `command` argument (`Bash`).
    Command,
    /// The path at `file_path`, `notebook_path` or `path` (`Read`, `Edit`,
    /// ...).
    Path,
    /// The host of the URL at `url` (`WebFetch(domain:...)`).
    Domain,
    /// The string at this argument (`Agent(x)`: `subagent_type`).
    Field(&'static str),
}

/// A permission rule read: the regex of the tool names it applies to and,
/// with a specifier, what it tests and the regex; both end with `$`, to
/// be searched anchored at the start (so they match whole strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedRule {
    /// Matches each tool name the rule applies to.
    pub tools: String,
    /// What the specifier tests and its regex.
    pub specifier: Option<(SpecifierKind, String)>,
}

/// The tools a rule of each tool name applies to, and what its specifier
/// tests: `Edit` rules apply to every tool that edits files, `Read` rules
/// to those that read them (Claude Code: "Edit rules apply to all built-in
/// tools that edit files", Read rules "to all built-in tools that read
/// files like Grep and Glob").
const TOOLS: &[(&str, &[&str], SpecifierKind)] = &[
    ("Bash", &["Bash"], SpecifierKind::Command),
    (
        "Edit",
        &["Edit", "Write", "MultiEdit", "NotebookEdit"],
        SpecifierKind::Path,
    ),
    ("Write", &["Write"], SpecifierKind::Path),
    ("MultiEdit", &["MultiEdit"], SpecifierKind::Path),
    ("NotebookEdit", &["NotebookEdit"], SpecifierKind::Path),
    ("Read", &["Read", "Glob", "Grep"], SpecifierKind::Path),
    ("Glob", &["Glob"], SpecifierKind::Path),
    ("Grep", &["Grep"], SpecifierKind::Path),
    ("WebFetch", &["WebFetch"], SpecifierKind::Domain),
    (
        "Agent",
        &["Agent", "Task"],
        SpecifierKind::Field("subagent_type"),
    ),
    (
        "Task",
        &["Agent", "Task"],
        SpecifierKind::Field("subagent_type"),
    ),
    ("Skill", &["Skill"], SpecifierKind::Field("skill")),
];

/// The tools whose rules take a specifier, for messages.
pub fn tools_with_specifiers() -> String {
    TOOLS
        .iter()
        .map(|(t, ..)| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The tool names a rule applies to, when they can be listed (not for
/// `mcp__server__*` or a whole server); `None` also for a rule that does
/// not read. `Edit(...)` gives `Edit`, `Write`, `MultiEdit`,
/// `NotebookEdit`.
pub fn tool_names(rule: &str) -> Option<Vec<&'static str>> {
    let tool = rule.trim().split('(').next()?;
    TOOLS
        .iter()
        .find(|(t, ..)| *t == tool)
        .map(|(_, names, _)| names.to_vec())
}

/// Why a permission rule does not read (shown in `invalid-permission-rule`
/// errors and in `import claude`'s warnings).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// `Bash)`.
    #[error("a `)` without its `(`")]
    UnopenedParenthesis,
    /// `Bash(git push`.
    #[error("the specifier does not end the rule with `)`: expected `Tool(specifier)`")]
    UnclosedSpecifier,
    /// `(x)`, or an empty rule.
    #[error("no tool name: expected `Tool` or `Tool(specifier)`")]
    NoTool,
    /// `Bash()`.
    #[error("`{tool}()` has an empty specifier: write `{tool}` for every call")]
    EmptySpecifier {
        /// The rule's tool.
        tool: String,
    },
    /// `WebSearch(rust)`: the tool's rules take no specifier.
    #[error(
        "`{tool}` rules take no specifier; the tools whose rules do: {}",
        tools_with_specifiers()
    )]
    NoSpecifier {
        /// The rule's tool.
        tool: String,
    },
    /// `WebFetch(example.com)`.
    #[error("a `WebFetch` specifier names a domain: `WebFetch(domain:{specifier})`")]
    NotADomainSpecifier {
        /// The specifier as written.
        specifier: String,
    },
    /// `WebFetch(domain:)`.
    #[error("`domain:` names no domain")]
    NoDomain,
    /// `WebFetch(domain:a/b)`.
    #[error("`{host}` is not a domain (expected `example.com` or `*.example.com`)")]
    NotADomain {
        /// The host as written (lowercased).
        host: String,
    },
    /// `mcp__a b`.
    #[error("`{tool}`: expected `mcp__SERVER__TOOL`")]
    BadMcpServer {
        /// The tool name.
        tool: String,
    },
    /// `mcp__gh__a b`.
    #[error("`{tool}`: an MCP tool name is `mcp__SERVER__TOOL` or `mcp__SERVER__*`")]
    BadMcpTool {
        /// The tool name.
        tool: String,
    },
    /// `Ba sh`, `Bash*`.
    #[error(
        "`{tool}` is not a tool name (letters, digits, `_`, `-`; a wildcard only in `mcp__SERVER__*`)"
    )]
    BadToolName {
        /// The tool name.
        tool: String,
    },
}

/// Reads `rule`.
///
/// # Errors
///
/// [`RuleError`], for a located error: an empty rule or specifier, an
/// unbalanced parenthesis, a tool name with characters no tool name has
/// (`*` only as `mcp__server__*`), a specifier on a tool that takes none,
/// a `WebFetch` specifier without `domain:`.
pub fn parse(rule: &str) -> Result<ParsedRule, RuleError> {
    let rule = rule.trim();
    let (tool, specifier) = match rule.split_once('(') {
        None if rule.contains(')') => return Err(RuleError::UnopenedParenthesis),
        None => (rule, None),
        Some((tool, rest)) => {
            let Some(spec) = rest.strip_suffix(')') else {
                return Err(RuleError::UnclosedSpecifier);
            };
            (tool, Some(spec))
        }
    };
    if tool.is_empty() {
        return Err(RuleError::NoTool);
    }
    // Tool names match without case: `Bash(...)` also names an agent's
    // own `bash` tool.
    let tools = format!("(?i:{})$", tool_regex(tool)?);
    let Some(spec) = specifier else {
        return Ok(ParsedRule {
            tools,
            specifier: None,
        });
    };
    if spec.trim().is_empty() {
        return Err(RuleError::EmptySpecifier {
            tool: tool.to_owned(),
        });
    }
    if spec == "*" {
        return Ok(ParsedRule {
            tools,
            specifier: None,
        });
    }
    let Some((_, _, kind)) = TOOLS.iter().find(|(t, ..)| *t == tool) else {
        return Err(RuleError::NoSpecifier {
            tool: tool.to_owned(),
        });
    };
    let regex = match kind {
        SpecifierKind::Command | SpecifierKind::Field(_) => command_regex(spec),
        SpecifierKind::Path => path_regex(spec),
        SpecifierKind::Domain => {
            let Some(host) = spec.strip_prefix("domain:") else {
                return Err(RuleError::NotADomainSpecifier {
                    specifier: spec.to_owned(),
                });
            };
            domain_regex(host)?
        }
    };
    Ok(ParsedRule {
        tools,
        specifier: Some((*kind, format!("(?:{regex})$"))),
    })
}

/// The regex of the tool names `tool` applies to.
fn tool_regex(tool: &str) -> Result<String, RuleError> {
    let valid = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
    };
    if let Some(rest) = tool.strip_prefix("mcp__") {
        let (server, name) = rest.split_once("__").unwrap_or((rest, "*"));
        if !valid(server) {
            return Err(RuleError::BadMcpServer {
                tool: tool.to_owned(),
            });
        }
        return match name {
            "*" => Ok(format!("mcp__{}__.*", escape(server))),
            n if valid(n) => Ok(escape(tool)),
            _ => Err(RuleError::BadMcpTool {
                tool: tool.to_owned(),
            }),
        };
    }
    if !valid(tool) {
        return Err(RuleError::BadToolName {
            tool: tool.to_owned(),
        });
    }
    Ok(match TOOLS.iter().find(|(t, ..)| *t == tool) {
        Some((_, names, _)) => format!(
            "(?:{})",
            names
                .iter()
                .map(|n| escape(n))
                .collect::<Vec<_>>()
                .join("|")
        ),
        None => escape(tool),
    })
}

/// A `Bash` specifier: `*` spans any characters, spaces included; a
/// trailing ` *` or `:*` also matches the command without arguments
/// (`Bash(ls *)` matches `ls` and `ls -la`, not `lsof`).
fn command_regex(spec: &str) -> String {
    let (body, trailing) = match spec.strip_suffix(" *").or_else(|| spec.strip_suffix(":*")) {
        Some(body) => (body, true),
        None => (spec, false),
    };
    let mut out = body.split('*').map(escape).collect::<Vec<_>>().join(".*");
    if trailing {
        out.push_str("(?: .*)?");
    }
    out
}

/// A path specifier, as a gitignore pattern: `//p` from the filesystem
/// root; `~/p`, `/p` (the project's root), `./p` and `p` match the path
/// anywhere below a directory (the home and project directories are
/// known only where the hook runs, so these match more, never less);
/// `*` and `?` stay within one path segment, `**` spans segments, a
/// trailing `/` matches everything below.
fn path_regex(spec: &str) -> String {
    let (absolute, body) = if let Some(rest) = spec.strip_prefix("//") {
        (true, rest)
    } else {
        let rest = spec
            .strip_prefix("~/")
            .or_else(|| spec.strip_prefix("./"))
            .or_else(|| spec.strip_prefix('/'))
            .unwrap_or(spec);
        (false, rest)
    };
    let mut out = String::from(if absolute { "/" } else { "(?:.*/)?" });
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                if chars.get(i + 2) == Some(&'/') {
                    out.push_str("(?:.*/)?");
                    i += 3;
                } else {
                    out.push_str(".*");
                    i += 2;
                }
                continue;
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            c => out.push_str(&escape(&c.to_string())),
        }
        i += 1;
    }
    if body.ends_with('/') {
        out.push_str(".*");
    }
    out
}

/// A `domain:` specifier: the host, matched without case; `*.example.com`
/// matches its subdomains.
fn domain_regex(host: &str) -> Result<String, RuleError> {
    let host = host.trim().to_ascii_lowercase();
    if host.is_empty() {
        return Err(RuleError::NoDomain);
    }
    let (sub, rest) = match host.strip_prefix("*.") {
        Some(rest) => ("(?:[^.]+\\.)+", rest),
        None => ("", host.as_str()),
    };
    if rest.contains(['/', ':', '*']) {
        return Err(RuleError::NotADomain { host });
    }
    Ok(format!("{sub}{}", escape(rest)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_rules_say_what_is_wrong() {
        for (rule, says) in [
            ("", "no tool name"),
            ("Bash(git push", "does not end"),
            ("Bash)", "without its"),
            ("Bash()", "empty specifier"),
            ("WebSearch(rust)", "take no specifier"),
            ("WebFetch(example.com)", "domain:"),
            ("Ba sh", "not a tool name"),
            ("Bash*", "not a tool name"),
            ("mcp__gh__a b", "MCP tool name"),
        ] {
            let err = parse(rule).expect_err(rule).to_string();
            assert!(err.contains(says), "{rule}: {err}");
        }
    }
}
