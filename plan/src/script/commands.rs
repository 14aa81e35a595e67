//! The simple commands of a command line as Claude Code's permission rules
//! see them: every part of a list or pipeline (`&&`, `||`, `;`, `|`, `&`,
//! newlines), every command substitution (`$(...)`, backquotes), subshell
//! and group (`{ ...; }`), each with its leading reserved words (`if`,
//! `then`, `do`, `!`, ...), `NAME=value` assignments and process wrappers
//! (`env`, `timeout 5`, `nice -n 2`, `nohup`, ... from [`super::wrappers`])
//! removed; here-document bodies are data, not commands. Source: Claude
//! Code's permission documentation, *Bash* rules.

use std::ops::Range;

use super::Word;
use super::words::{Token, tokens};
use super::wrappers::{Wrapped, wrapped};

/// Deepest nesting of command substitutions read; a deeper one is one
/// command, as written (so a rule can still match its start).
const MAX_DEPTH: usize = 8;

/// Words that open or close a compound command or negate one: not the
/// command's name (`if git push; then ...`, `{ git push; }`, `! git push`).
const RESERVED: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time",
    "coproc",
];

/// The simple commands of `line`, each as its words (quotes removed)
/// joined by one space: `FOO=1 timeout 5 git push && echo "$(rm -rf x)"`
/// gives `git push`, `echo`, `rm -rf x`. A line that does not split (an
/// unbalanced quote, a here-document) is one command, as written.
pub fn sub_commands(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    collect(line, 0, &mut out);
    out
}

fn collect(line: &str, depth: usize, out: &mut Vec<String>) {
    if depth >= MAX_DEPTH {
        out.push(line.trim().to_owned());
        return;
    }
    let without_heredocs = strip_heredocs(line);
    let line: &str = &without_heredocs;
    let spans = substitutions(line);
    // The line with its substitutions cut out (their commands are
    // collected on their own).
    let mut outer = String::with_capacity(line.len());
    let mut at = 0;
    for (span, body) in spans {
        outer.push_str(&line[at..span.start]);
        collect(&line[body], depth + 1, out);
        at = span.end;
    }
    outer.push_str(&line[at..]);
    let line = outer.as_str();
    let Ok(tokens) = tokens(line, &|_| None) else {
        out.push(line.trim().to_owned());
        return;
    };
    let mut words: Vec<Word> = Vec::new();
    for token in &tokens {
        match token {
            Token::Word { .. } => words.extend(Word::of(token)),
            Token::Opaque(_) => {
                out.push(line.trim().to_owned());
                return;
            }
            Token::Separator | Token::Open | Token::Close | Token::Input => {
                push_command(&words, depth, out);
                words.clear();
            }
        }
    }
    push_command(&words, depth, out);
}

/// The shells whose `-c STRING` runs `STRING` as a command line.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "ash"];

/// `words` without leading reserved words, assignments and wrappers,
/// joined; nothing when no command is left.
fn push_command(words: &[Word], depth: usize, out: &mut Vec<String>) {
    let mut rest = words;
    loop {
        while let Some((first, tail)) = rest.split_first() {
            let assignment = first
                .text
                .split_once('=')
                .is_some_and(|(name, _)| super::valid_env_name(name));
            if !assignment && !RESERVED.contains(&first.text.as_str()) {
                break;
            }
            rest = tail;
        }
        let Some((program, args)) = rest.split_first() else {
            return;
        };
        let name = program.text.rsplit('/').next().unwrap_or_default();
        // What a shell or `eval` runs is a command line of its own.
        if SHELLS.contains(&name)
            && let Some(at) = args.iter().position(|w| w.text == "-c")
            && let Some(script) = args.get(at + 1)
        {
            collect(&script.text, depth + 1, out);
        }
        if name == "eval" {
            let line: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
            collect(&line.join(" "), depth + 1, out);
        }
        if name == "env" {
            match super::interp::env_command(args) {
                Ok((_, inner)) if !inner.is_empty() => {
                    rest = inner;
                    continue;
                }
                _ => break,
            }
        }
        match wrapped(&program.text, args) {
            Some(Wrapped::Command(inner)) if !inner.is_empty() => rest = inner,
            _ => break,
        }
    }
    // A program named by its path is matched by its name (`/usr/bin/git`
    // as `git`).
    let text: Vec<&str> = rest
        .iter()
        .enumerate()
        .map(|(i, w)| match i {
            0 => w.text.rsplit('/').next().unwrap_or_default(),
            _ => w.text.as_str(),
        })
        .filter(|t| !t.is_empty())
        .collect();
    if !text.is_empty() {
        out.push(text.join(" "));
    }
}

/// The variables an environment file sets, in order: each line `export
/// NAME=VALUE` or `NAME=VALUE` (several per line allowed), quotes removed
/// and `$NAME` / `${NAME}` expanded from the variables set earlier in the
/// file, then `var` (the agent's environment). What cannot be read that
/// way — another command, a value with a command substitution or an
/// unknown variable, an unbalanced quote — is skipped and named in the
/// second list (line numbers from 1). The format of Claude Code's
/// `CLAUDE_ENV_FILE`, which Claude Code sources in its shell.
pub fn env_assignments(
    text: &str,
    var: &dyn Fn(&str) -> Option<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let (mut set, mut skipped): (Vec<(String, String)>, Vec<String>) = (Vec::new(), Vec::new());
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // `$'...'` (ANSI-C quoting) and a leading `~` (tilde expansion)
        // are what a shell would rewrite and this reading would not.
        if line.contains("$'") || line.contains("=~") {
            skipped.push(format!(
                "line {}: `$'...'` or `~` expansion is not read",
                n + 1
            ));
            continue;
        }
        let lookup = |name: &str| {
            set.iter()
                .rev()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
                .or_else(|| var(name))
        };
        let Ok(tokens) = tokens(line, &lookup) else {
            skipped.push(format!("line {}: unbalanced quotes", n + 1));
            continue;
        };
        let mut words = tokens.iter().filter_map(|t| match t {
            Token::Word { text, exact } => Some((text, *exact)),
            _ => None,
        });
        let mut first = words.next();
        if first.is_some_and(|(w, _)| w == "export") {
            first = words.next();
        }
        let line_set: Option<Vec<(String, String)>> = first
            .into_iter()
            .chain(words)
            .map(|(word, exact)| {
                let (name, value) = word.split_once('=')?;
                (exact && super::valid_env_name(name)).then(|| (name.to_owned(), value.to_owned()))
            })
            .collect();
        match line_set {
            Some(pairs) if tokens.iter().all(|t| matches!(t, Token::Word { .. })) => {
                set.extend(pairs);
            }
            _ => skipped.push(format!(
                "line {}: not `export NAME=VALUE` with a known value",
                n + 1
            )),
        }
    }
    (set, skipped)
}

/// `text` with its here-documents' bodies removed, and the `<<WORD` /
/// `<<-WORD` redirections that start them (a here-string `<<<WORD` keeps
/// its word as an argument): a body is data fed to the command, whatever
/// it looks like. A body without its closing line runs to the end.
fn strip_heredocs(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("<<") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut pending: Vec<(String, bool)> = Vec::new();
    for line in text.split_inclusive('\n') {
        if let Some((delimiter, tabs)) = pending.first() {
            let body = line.trim_end_matches('\n');
            let body = if *tabs {
                body.trim_start_matches('\t')
            } else {
                body
            };
            if body == delimiter {
                pending.remove(0);
            }
            continue;
        }
        out.push_str(&heredoc_operators(line, &mut pending));
    }
    std::borrow::Cow::Owned(out)
}

/// `line` with each here-document operator and its delimiter word removed
/// (outside quotes); the delimiters (unquoted, and whether `<<-` strips
/// tabs) are added to `pending`, in order.
fn heredoc_operators(line: &str, pending: &mut Vec<(String, bool)>) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let (mut i, mut quote) = (0, None::<char>);
    while i < chars.len() {
        let c = chars[i];
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => {
                out.push(c);
                if let Some(&next) = chars.get(i + 1) {
                    out.push(next);
                }
                i += 2;
                continue;
            }
            (None, '<') if chars.get(i + 1) == Some(&'<') && chars.get(i + 2) != Some(&'<') => {
                let mut j = i + 2;
                let tabs = chars.get(j) == Some(&'-');
                if tabs {
                    j += 1;
                }
                while matches!(chars.get(j), Some(' ' | '\t')) {
                    j += 1;
                }
                let mut word = String::new();
                while let Some(&w) = chars.get(j) {
                    if " \t\n;&|<>()".contains(w) {
                        break;
                    }
                    if w != '\'' && w != '"' && w != '\\' {
                        word.push(w);
                    }
                    j += 1;
                }
                pending.push((word, tabs));
                out.push(' ');
                i = j;
                continue;
            }
            _ => {}
        }
        if quote.is_none() && c == '<' && chars.get(i + 1) == Some(&'<') {
            // `<<<`: a here-string; its word stays an argument.
            out.push(' ');
            i += 3;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// The command substitutions of `line` at its top level, `$(...)`
/// (balanced, outside single quotes) and `` `...` ``: each as the byte
/// range it spans and the range of its body.
fn substitutions(line: &str) -> Vec<(Range<usize>, Range<usize>)> {
    let bytes = line.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut single) = (0, false);
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if !single => i += 1,
            b'\'' => single = !single,
            b'$' if !single && bytes.get(i + 1) == Some(&b'(') => {
                let start = i + 2;
                let mut depth = 1usize;
                let mut j = start;
                while j < bytes.len() && depth > 0 {
                    match bytes[j] {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                let end = if depth == 0 { j - 1 } else { j };
                out.push((i..j, start..end));
                i = j;
                continue;
            }
            b'`' if !single => {
                let start = i + 1;
                let end = line[start..].find('`').map_or(line.len(), |n| start + n);
                let next = (end + 1).min(line.len());
                out.push((i..next, start..end));
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::sub_commands;

    #[test]
    fn env_files_read_as_a_shell_would_set_them() {
        let text = "export A=1\nB='two words'\n# a comment\n\nexport C=\"$A-$HOME\" D=${B}\nexport E=$(date)\nrm -rf x\nexport F=\"unclosed\n";
        let (set, skipped) =
            super::env_assignments(text, &|n| (n == "HOME").then(|| "/h".to_owned()));
        let set: Vec<(&str, &str)> = set.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(
            set,
            [
                ("A", "1"),
                ("B", "two words"),
                ("C", "1-/h"),
                ("D", "two words")
            ]
        );
        assert_eq!(skipped.len(), 3, "{skipped:?}");
        assert!(skipped[0].starts_with("line 6"), "{skipped:?}");
    }

    #[test]
    fn lists_pipelines_and_substitutions_split_into_simple_commands() {
        let cases: &[(&str, &[&str])] = &[
            ("git push origin main", &["git push origin main"]),
            ("ls && git push", &["ls", "git push"]),
            ("a || b; c | d |& e & f", &["a", "b", "c", "d", "e", "f"]),
            ("a\nb", &["a", "b"]),
            ("FOO=bar BAZ=1 git push", &["git push"]),
            ("timeout 5 nice -n 2 nohup git push", &["git push"]),
            (
                "echo $(git push) `rm -rf x`",
                &["git push", "rm -rf x", "echo"],
            ),
            (
                "echo \"$(FOO=1 git push --force)\"",
                &["git push --force", "echo"],
            ),
            ("echo '$(git push)'", &["echo $(git push)"]),
            ("(cd x && git push)", &["cd x", "git push"]),
            ("g'i't \"push\"", &["git push"]),
            ("FOO=1", &[]),
            ("echo 'unbalanced", &["echo 'unbalanced"]),
            // Here-document bodies are data; the commands around them count.
            (
                "cat > n <<'EOF'\nhi\nEOF\ngit push --force",
                &["cat", "git push --force"],
            ),
            (
                "git commit -F - <<'EOF' && git push origin main\nmsg\nEOF",
                &["git commit -F -", "git push origin main"],
            ),
            ("cat <<EOF | git push\nx\nEOF", &["cat", "git push"]),
            ("cat <<-X\n\tgit push\n\tX\nls", &["cat", "ls"]),
            ("git push <<<'x'", &["git push x"]),
            // Reserved words, groups, functions and `env` are not the command.
            ("{ git push; }", &["git push"]),
            ("if true; then git push; fi", &["true", "git push"]),
            ("while git push; do :; done", &["git push", ":"]),
            (
                "for b in a c; do git push; done",
                &["for b in a c", "git push"],
            ),
            ("! git push", &["git push"]),
            ("time ! git push", &["git push"]),
            ("f() { git push; }; f", &["f", "git push", "f"]),
            ("env FOO=1 git push", &["git push"]),
            ("env -i git push", &["git push"]),
            (
                "bash -c 'git push --force'",
                &["git push --force", "bash -c git push --force"],
            ),
            ("eval git push", &["git push", "eval git push"]),
            ("/usr/bin/git push", &["git push"]),
        ];
        for (line, want) in cases {
            assert_eq!(sub_commands(line), *want, "{line}");
        }
    }
}
