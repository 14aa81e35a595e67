//! Every relative link in README.md and docs/*.md resolves: the file (or
//! folder) exists and, for a `#anchor`, a heading of that Markdown file
//! has that anchor under GitHub's rules. External `http(s)` links are not
//! fetched (the tests use no network).

#[path = "common/markdown.rs"]
mod markdown;

use markdown::{anchor, anchors, guide_files, links, read, resolve};

#[test]
fn every_relative_link_of_the_guide_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in guide_files() {
        let text = read(&file);
        for (line, target) in links(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, fragment) = match target.split_once('#') {
                Some((path, fragment)) => (path, Some(fragment)),
                None => (target.as_str(), None),
            };
            let (shown, heading_text) = if path.is_empty() {
                (file.clone(), text.clone())
            } else {
                let resolved = resolve(&file, path);
                if !resolved.exists() {
                    broken.push(format!("{file}:{line}: `{target}`: no such file"));
                    continue;
                }
                let is_markdown = resolved.extension().is_some_and(|x| x == "md");
                let body = if is_markdown && fragment.is_some() {
                    std::fs::read_to_string(&resolved).unwrap_or_default()
                } else {
                    String::new()
                };
                (resolved.display().to_string(), body)
            };
            if let Some(fragment) = fragment
                && !anchors(&heading_text).iter().any(|a| a == fragment)
            {
                broken.push(format!(
                    "{file}:{line}: `{target}`: no heading of {shown} has the anchor `#{fragment}`"
                ));
            }
        }
    }
    assert!(checked > 50, "only {checked} relative links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_follow_githubs_rules() {
    assert_eq!(
        anchor("Embedding `hooks!` in your own agent loop"),
        "embedding-hooks-in-your-own-agent-loop"
    );
    assert_eq!(
        anchor("Policy tests: `test --expect`"),
        "policy-tests-test---expect"
    );
    assert_eq!(
        anchor("Checking a config against the agent's tools"),
        "checking-a-config-against-the-agents-tools"
    );
    assert_eq!(
        anchors("# A\n```\n# not a heading\n```\n## A\n### B_c\n"),
        ["a", "a-1", "b_c"]
    );
}

#[test]
fn links_in_code_are_not_links() {
    let text = "see [a](a.md) and `[b](b.md)`\n```\n[c](c.md)\n```\n";
    let found: Vec<String> = links(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, ["a.md"]);
}
