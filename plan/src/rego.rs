//! Compiling a `policy` hook's Rego modules (regorus): one function for
//! `check`, `hooks!` and the runtime ([`compile_policy`], behind the
//! `policy` feature), and why a policy does not compile ([`PolicyError`]).

/// Why a policy does not compile: the file (as written) and the 1-based
/// line and column when the engine located it, and its message. Shown as
/// `FILE:LINE:COLUMN: MESSAGE`, or the message alone when no file is known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PolicyError {
    /// The file the error is in, when known.
    pub file: Option<String>,
    /// 1-based line, when known.
    pub line: usize,
    /// 1-based column, when known.
    pub column: usize,
    /// The engine's message (lowercase first letter, no location prefix).
    pub message: String,
}

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}:{}:{}: {}", self.line, self.column, self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A `regorus` engine with `modules` (path as written, text) loaded, checked
/// that some module declares the package of `query`
/// (`data.<package>.<rule>`). What `check` and `hooks!` run on every policy
/// hook, and what the runtime evaluates with.
///
/// # Errors
///
/// [`PolicyError`] for the first module that does not parse (located in
/// it), when no module declares the query's package, or when none defines
/// its rule (an undefined rule fails every event at run time).
#[cfg(feature = "policy")]
pub fn compile_policy<'a>(
    modules: impl IntoIterator<Item = (&'a str, &'a str)>,
    query: &str,
) -> Result<regorus::Engine, PolicyError> {
    let mut engine = regorus::Engine::new();
    let mut packages = Vec::new();
    let mut paths = Vec::new();
    for (path, text) in modules {
        match engine.add_policy(path.to_owned(), text.to_owned()) {
            Ok(package) => {
                packages.push(package);
                paths.push(path);
            }
            Err(e) => return Err(parse_error(path, &e.to_string())),
        }
    }
    let package = query.rsplit_once('.').map_or(query, |(package, _)| package);
    let declared = packages
        .iter()
        .any(|p| package == p || package.starts_with(&format!("{p}.")));
    if !declared {
        return Err(PolicyError {
            file: None,
            line: 0,
            column: 0,
            message: format!(
                "no policy file declares the package of query `{query}` (declared: {})",
                if packages.is_empty() {
                    "none".to_owned()
                } else {
                    packages
                        .iter()
                        .map(|p| format!("`{}`", p.trim_start_matches("data.")))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
        });
    }
    // The rule itself: declared under some module's package (a rule head
    // may be a path, `tools.decision := ...` in `package agent`), or the
    // query names a package (OPA answers with its rules).
    let defined = packages.iter().zip(&paths).any(|(p, path)| {
        if p == query || p.starts_with(&format!("{query}.")) {
            return true;
        }
        query
            .strip_prefix(p.as_str())
            .and_then(|rest| rest.strip_prefix('.'))
            .is_some_and(|rule| {
                engine
                    .has_declared_rule_rooted_at(path, rule)
                    .unwrap_or(false)
            })
    });
    if !defined {
        let (package, rule) = query.rsplit_once('.').unwrap_or(("data", query));
        return Err(PolicyError {
            file: None,
            line: 0,
            column: 0,
            message: format!(
                "no policy file defines the rule `{rule}` of query `{query}`: under `{}` it is always undefined, so the hook would never decide",
                package.trim_start_matches("data.")
            ),
        });
    }
    Ok(engine)
}

/// A `regorus` error for `path`, split into its location (the
/// `--> path:LINE:COL` line) and its message (the `error: ...` line); the
/// whole text, at 1:1, when it has neither.
#[cfg(feature = "policy")]
fn parse_error(path: &str, text: &str) -> PolicyError {
    let location = text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("-->")?.trim();
        let rest = rest.strip_prefix(path)?.strip_prefix(':')?;
        let (line, column) = rest.split_once(':')?;
        Some((line.trim().parse().ok()?, column.trim().parse().ok()?))
    });
    let message = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("error:").map(str::trim))
        .filter(|m| !m.is_empty())
        .map_or_else(|| text.trim().to_owned(), str::to_owned);
    let (line, column) = location.unwrap_or((1, 1));
    PolicyError {
        file: Some(path.to_owned()),
        line,
        column,
        message,
    }
}
