//! Splitting a shell command into words and operators as `sh` would, with
//! the variables the runtime sets expanded, and every word that the shell
//! would turn into something this rule cannot know marked inexact.

/// One token of a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    /// A word after quote removal. `exact: false` when the shell would
    /// expand part of it into something unknown here (an unset or
    /// unknown variable, a command substitution, a glob, `~`).
    Word { text: String, exact: bool },
    /// `&&`, `||`, `;`, `|`, `&` or a newline: the next simple command.
    Separator,
    /// A redirection of the command's input from a file (`<`).
    Input,
    /// `(`: a subshell starts (a `cd` inside does not reach past it).
    Open,
    /// `)`: it ends.
    Close,
    /// Something no simple command explains: a here-document.
    Opaque(&'static str),
}

/// Why a line could not be split: unbalanced quotes or a backslash at the
/// end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unbalanced;

/// The tokens of `line` (one or more lines of shell). `var` gives the value
/// of a variable the runtime sets (`None`: unknown). A `#` at the start of
/// a word starts a comment up to the end of the line.
pub(super) fn tokens(
    line: &str,
    var: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Token>, Unbalanced> {
    let mut out = Vec::new();
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let mut word = String::new();
    let mut exact = true;
    let mut in_word = false;
    let flush = |out: &mut Vec<Token>, word: &mut String, exact: &mut bool, in_word: &mut bool| {
        if *in_word {
            out.push(Token::Word {
                text: std::mem::take(word),
                exact: *exact,
            });
        }
        *exact = true;
        *in_word = false;
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' => {
                flush(&mut out, &mut word, &mut exact, &mut in_word);
                i += 1;
            }
            '\n' | ';' => {
                flush(&mut out, &mut word, &mut exact, &mut in_word);
                out.push(Token::Separator);
                i += 1;
            }
            '#' if !in_word => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '&' | '|' => {
                // `2>&1` and `>&2` are redirections, handled with `>`.
                flush(&mut out, &mut word, &mut exact, &mut in_word);
                out.push(Token::Separator);
                i += 1;
                if chars.get(i) == Some(&c) {
                    i += 1;
                }
            }
            '(' | ')' => {
                flush(&mut out, &mut word, &mut exact, &mut in_word);
                out.push(if c == '(' { Token::Open } else { Token::Close });
                i += 1;
            }
            '<' | '>' => {
                // A leading file descriptor number belongs to the
                // redirection, not to a word.
                if in_word && word.chars().all(|d| d.is_ascii_digit()) && exact {
                    word.clear();
                    in_word = false;
                }
                flush(&mut out, &mut word, &mut exact, &mut in_word);
                if c == '<' && chars.get(i + 1) == Some(&'<') {
                    out.push(Token::Opaque("a here-document"));
                    return Ok(out);
                }
                i += 1;
                while matches!(chars.get(i), Some('>' | '&' | '|')) {
                    i += 1;
                }
                // `>&2`, `2>&1`: the target is a descriptor, no word.
                if chars.get(i - 1) == Some(&'&') {
                    while matches!(chars.get(i), Some(d) if d.is_ascii_digit() || *d == '-') {
                        i += 1;
                    }
                    continue;
                }
                if c == '<' {
                    out.push(Token::Input);
                }
                // The target word is read next and dropped for output.
                while matches!(chars.get(i), Some(' ' | '\t')) {
                    i += 1;
                }
                let (mut text, mut exact_target) = (String::new(), true);
                let start = i;
                i = read_word(&chars, i, var, &mut text, &mut exact_target)?;
                if c == '<' && i > start {
                    out.push(Token::Word {
                        text,
                        exact: exact_target,
                    });
                }
            }
            _ => {
                in_word = true;
                i = read_word(&chars, i, var, &mut word, &mut exact)?;
            }
        }
    }
    flush(&mut out, &mut word, &mut exact, &mut in_word);
    Ok(out)
}

/// Reads one word from `chars[i..]` into `word` (quotes removed, known
/// variables expanded; `exact` cleared for what the shell would expand
/// otherwise) up to a blank or an operator; returns the index after it.
fn read_word(
    chars: &[char],
    mut i: usize,
    var: &dyn Fn(&str) -> Option<String>,
    word: &mut String,
    exact: &mut bool,
) -> Result<usize, Unbalanced> {
    let mut any = false;
    while let Some(&c) = chars.get(i) {
        match c {
            ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
            '\'' => {
                let end = chars[i + 1..]
                    .iter()
                    .position(|&q| q == '\'')
                    .ok_or(Unbalanced)?;
                word.extend(&chars[i + 1..i + 1 + end]);
                i += end + 2;
            }
            '"' => {
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(Unbalanced),
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some('\\') => {
                            match chars.get(i + 1) {
                                Some(&e @ ('"' | '\\' | '$' | '`')) => word.push(e),
                                Some('\n') => {}
                                Some(&e) => {
                                    word.push('\\');
                                    word.push(e);
                                }
                                None => return Err(Unbalanced),
                            }
                            i += 2;
                        }
                        Some('$') => i = dollar(chars, i, var, word, exact),
                        Some('`') => {
                            *exact = false;
                            i += 1;
                        }
                        Some(&o) => {
                            word.push(o);
                            i += 1;
                        }
                    }
                }
            }
            '\\' => {
                match chars.get(i + 1) {
                    Some('\n') => {}
                    Some(&e) => word.push(e),
                    None => return Err(Unbalanced),
                }
                i += 2;
            }
            '$' => i = dollar(chars, i, var, word, exact),
            '[' => {
                // A bracket expression only with a `]` later in the word
                // (`[` and `[[` alone are the test commands).
                let closes = chars[i + 1..]
                    .iter()
                    .take_while(|c| !" \t\n;&|()<>".contains(**c))
                    .any(|c| *c == ']');
                *exact &= !closes;
                word.push(c);
                i += 1;
            }
            '`' | '*' | '?' => {
                *exact = false;
                word.push(c);
                i += 1;
            }
            '~' if !any => {
                *exact = false;
                word.push(c);
                i += 1;
            }
            _ => {
                word.push(c);
                i += 1;
            }
        }
        any = true;
    }
    Ok(i)
}

/// Expands the `$` at `chars[i]`: `$NAME` and `${NAME}` with `var`'s value,
/// anything else (`$(...)`, `$1`, `${X:-y}`, an unknown variable) clears
/// `exact`. Returns the index after the expansion.
fn dollar(
    chars: &[char],
    i: usize,
    var: &dyn Fn(&str) -> Option<String>,
    word: &mut String,
    exact: &mut bool,
) -> usize {
    let name_char = |c: &char| c.is_ascii_alphanumeric() || *c == '_';
    let (name, end) = match chars.get(i + 1) {
        Some('{') => {
            let close = chars[i + 2..].iter().position(|&c| c == '}');
            match close {
                Some(n) => (
                    chars[i + 2..i + 2 + n].iter().collect::<String>(),
                    i + 3 + n,
                ),
                None => {
                    *exact = false;
                    return chars.len();
                }
            }
        }
        Some(c) if c.is_ascii_alphabetic() || *c == '_' => {
            let n = chars[i + 1..].iter().take_while(|c| name_char(c)).count();
            (chars[i + 1..i + 1 + n].iter().collect(), i + 1 + n)
        }
        Some('(') => {
            // A command substitution: skip to its balanced end.
            *exact = false;
            let mut depth = 0usize;
            let mut j = i + 1;
            while let Some(&c) = chars.get(j) {
                j += 1;
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            return j;
        }
        Some(c) if c.is_ascii_digit() || "@*#?$!-".contains(*c) => {
            *exact = false;
            return i + 2;
        }
        _ => {
            word.push('$');
            return i + 1;
        }
    };
    let valid = !name.is_empty() && name.chars().all(|c| name_char(&c));
    match var(&name).filter(|_| valid) {
        Some(value) => word.push_str(&value),
        None => {
            *exact = false;
            word.push('$');
            word.push_str(&name);
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<(String, bool)> {
        let var = |n: &str| (n == "ROOT").then(|| "/w".to_owned());
        tokens(line, &var)
            .unwrap()
            .into_iter()
            .filter_map(|t| match t {
                Token::Word { text, exact } => Some((text, exact)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn quotes_variables_and_redirections() {
        assert_eq!(
            words(r#"sh "$ROOT"/x.sh 'a b' 2>/dev/null >&2"#),
            [
                ("sh".into(), true),
                ("/w/x.sh".into(), true),
                ("a b".into(), true)
            ]
        );
        assert_eq!(words("sh ${ROOT}/y.sh")[1], ("/w/y.sh".into(), true));
        assert!(!words("sh $HOME/x.sh")[1].1);
        assert!(!words("sh \"$(dirname \"$0\")\"/x.sh")[1].1);
        assert!(!words("sh *.sh")[1].1);
        assert_eq!(words("echo a # sh x.sh").len(), 2);
        assert!(tokens("sh 'open", &|_| None).is_err());
    }
}
