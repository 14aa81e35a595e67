//! HTML escaping for the session report: the five characters of HTML's
//! syntax become character references, and control characters (which a
//! browser would drop or turn into U+FFFD) and bidirectional controls
//! (which would reverse the text after them) become visible `\u{..}` text.
//! No crate of the tree escapes HTML; this is all the report needs, since
//! it writes text only into element content and quoted attribute values.

use agent_hooks::policy_test::is_bidi_control;

/// `text` escaped for element content or a double-quoted attribute value:
/// `&`, `<`, `>`, `"` and `'` as character references, control characters
/// other than newline and tab as `\u{1b}`-style text.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() || is_bidi_control(c) => {
                out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape_html;

    #[test]
    fn escapes_the_five_characters() {
        assert_eq!(
            escape_html(r#"<a href="x">Tom & Jerry's</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
        );
    }

    #[test]
    fn control_characters_become_visible_text() {
        assert_eq!(escape_html("a\u{1b}[31mb\u{0}c"), "a\\u{1b}[31mb\\u{0}c");
        assert_eq!(escape_html("line\n\tnext\r"), "line\n\tnext\\u{d}");
        assert_eq!(escape_html("\u{85}"), "\\u{85}");
    }

    #[test]
    fn bidirectional_controls_become_visible_text() {
        assert_eq!(escape_html("ba\u{202e}hs"), "ba\\u{202e}hs");
        assert_eq!(
            escape_html("\u{2066}x\u{2069}\u{200f}"),
            "\\u{2066}x\\u{2069}\\u{200f}"
        );
    }

    #[test]
    fn leaves_other_text_alone() {
        assert_eq!(escape_html("été ✓ plain"), "été ✓ plain");
    }
}
