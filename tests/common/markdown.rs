//! The guide's Markdown files (README.md and docs/*.md) as the doc tests
//! read them: fenced code blocks, links and GitHub's heading anchors.
//! Include with `#[path = "common/markdown.rs"] mod markdown;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::path::{Path, PathBuf};

/// The package root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, sorted, as paths relative to the root.
pub(crate) fn guide_files() -> Vec<String> {
    let mut files = vec!["README.md".to_owned()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ is readable")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            let name = p.file_name().expect("a file name").to_string_lossy();
            format!("docs/{name}")
        })
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The text of `file`, relative to the root.
pub(crate) fn read(file: &str) -> String {
    std::fs::read_to_string(root().join(file)).unwrap_or_else(|e| panic!("cannot read {file}: {e}"))
}

/// A fenced code block.
pub(crate) struct Block {
    /// The info string after the opening fence (`yaml`, `rust,ignore`, ...).
    pub(crate) info: String,
    /// 1-based line of the opening fence.
    pub(crate) line: usize,
    /// The lines between the fences.
    pub(crate) body: String,
    /// The last non-blank line before the fence (a marker comment, say).
    pub(crate) before: String,
}

/// The fenced code blocks of `text`, in order.
pub(crate) fn blocks(text: &str) -> Vec<Block> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            let start = i;
            let mut end = i + 1;
            while end < lines.len() && !lines[end].trim_start().starts_with("```") {
                end += 1;
            }
            let before = lines[..start]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .map_or_else(String::new, |l| l.trim().to_owned());
            out.push(Block {
                info: info.trim().to_owned(),
                line: start + 1,
                body: lines[start + 1..end.min(lines.len())].join("\n"),
                before,
            });
            i = end + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// The lines of `text` outside fenced code blocks, with their 1-based numbers.
pub(crate) fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// `line` without its inline code spans (`` `...` ``), so that a link
/// written as code is not taken for a link.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    let mut code = false;
    for c in line.chars() {
        if c == '`' {
            code = !code;
        } else if !code {
            out.push(c);
        }
    }
    out
}

/// The targets of the inline links `[text](target)` on the prose lines of
/// `text`, with their line numbers.
pub(crate) fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (number, line) in prose(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after
                .find(|c: char| c == ')' || c.is_whitespace())
                .unwrap_or(after.len());
            out.push((number, after[..end].to_owned()));
            rest = &after[end..];
        }
    }
    out
}

/// GitHub's anchor of a heading: lowercase, spaces to `-`, every character
/// but letters, digits, `-` and `_` dropped.
pub(crate) fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of every heading of `text`, a repeated one suffixed `-1`,
/// `-2`, ... as GitHub does.
pub(crate) fn anchors(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (_, line) in prose(text) {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = anchor(&line[hashes..]);
        let mut slug = base.clone();
        let mut n = 0;
        while out.contains(&slug) {
            n += 1;
            slug = format!("{base}-{n}");
        }
        out.push(slug);
    }
    out
}

/// `target` (a link's path part) resolved against the directory of `file`.
pub(crate) fn resolve(file: &str, target: &str) -> PathBuf {
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    root().join(dir).join(target)
}
