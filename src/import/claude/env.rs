//! The environment variables a hook's command reads, so the converted hook
//! passes them through (`env.pass`) as the agent's environment did.

use std::collections::BTreeSet;

/// Upper-case environment variables `command` reads and does not assign,
/// outside the runtime's base environment and `set_by_runtime` (the
/// workspace root's variables of the hook's protocol, such as
/// `CLAUDE_PROJECT_DIR`), sorted.
pub(super) fn referenced_env(command: &str, set_by_runtime: &[&str]) -> Vec<String> {
    let bytes = command.as_bytes();
    let is_start = |b: u8| b.is_ascii_uppercase() || b == b'_';
    let is_cont = |b: u8| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_';
    let name_at = |i: usize| {
        let mut j = i;
        if j < bytes.len() && is_start(bytes[j]) {
            j += 1;
            while j < bytes.len() && is_cont(bytes[j]) {
                j += 1;
            }
        }
        (j > i).then(|| (command[i..j].to_owned(), j))
    };
    let mut read = BTreeSet::new();
    let mut assigned = BTreeSet::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = if bytes[i] == b'$' {
            Some(if bytes.get(i + 1) == Some(&b'{') {
                i + 2
            } else {
                i + 1
            })
        } else if bytes[i..].starts_with(b"process.env.") {
            Some(i + "process.env.".len())
        } else {
            None
        };
        if let Some(s) = start
            && let Some((name, end)) = name_at(s)
        {
            read.insert(name);
            i = end;
            continue;
        }
        // `NAME=` at a word start is an assignment by the command itself.
        if (i == 0 || !is_cont(bytes[i - 1]) && bytes[i - 1] != b'$' && bytes[i - 1] != b'.')
            && let Some((name, end)) = name_at(i)
        {
            let before = command[..i].trim_end();
            let loop_or_read = before.ends_with("for") || before.ends_with("read");
            if loop_or_read || (bytes.get(end) == Some(&b'=') && bytes.get(end + 1) != Some(&b'='))
            {
                assigned.insert(name);
            }
            i = end;
            continue;
        }
        i += 1;
    }
    read.into_iter()
        .filter(|n| {
            !assigned.contains(n)
                && !hooks_runtime::BASE_ENV.contains(&n.as_str())
                && !hooks_runtime::NEVER_INHERITED.contains(&n.as_str())
                && !set_by_runtime.contains(&n.as_str())
                && !SHELL_VARIABLES.contains(&n.as_str())
        })
        .collect()
}

/// Variables the shell itself sets: never worth passing.
const SHELL_VARIABLES: &[&str] = &[
    "BASHPID",
    "BASH_SOURCE",
    "BASH_VERSION",
    "EUID",
    "HOSTNAME",
    "IFS",
    "LINENO",
    "OLDPWD",
    "OPTARG",
    "OPTIND",
    "PIPESTATUS",
    "PPID",
    "PWD",
    "RANDOM",
    "REPLY",
    "SECONDS",
    "UID",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_references_skip_assignments_and_base() {
        assert_eq!(
            referenced_env(
                r#"FOO=1 "${CLAUDE_PLUGIN_ROOT}/x" $HOME $BAR ${BAZ:-q} $lower process.env.QUX $FOO; for _V in a; do echo "$_V ${PIPESTATUS[0]}"; done"#,
                &[hooks_runtime::CLAUDE_PROJECT_DIR]
            ),
            vec!["BAR", "BAZ", "CLAUDE_PLUGIN_ROOT", "QUX"]
        );
        let claude = hooks_schema::Protocol::Claude.project_dir_vars();
        assert!(referenced_env(r#""$CLAUDE_PROJECT_DIR"/hook.sh"#, claude).is_empty());
        assert_eq!(
            referenced_env(r#""$GEMINI_PROJECT_DIR"/hook.sh"#, claude),
            ["GEMINI_PROJECT_DIR"]
        );
    }
}
