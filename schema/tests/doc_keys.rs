//! The *Keys of a hook* table of `docs/config.md` names every key of a hook (the
//! actions in its `action` row), and its `limits` paragraph every limit, as
//! the generated JSON Schema has them, so a new key cannot go undocumented.

use serde_json::Value;

fn config_chapter() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/config.md"))
        .expect("docs/config.md is readable")
}

/// The property names of definition `name` of the config schema.
fn properties(name: &str) -> Vec<String> {
    let schema = hooks_schema::config_schema();
    let Some(Value::Object(props)) = schema.pointer(&format!("/$defs/{name}/properties")) else {
        panic!("no `{name}` properties in the schema");
    };
    props.keys().cloned().collect()
}

#[test]
fn the_keys_table_names_every_hook_key() {
    let chapter = config_chapter();
    let start = chapter.find("### Keys of a hook").expect("the keys table");
    let table = &chapter[start..];
    let table = &table[..table.find("\n\nTop level").unwrap_or(table.len())];
    let mut named = Vec::new();
    for row in table.lines().filter(|l| l.starts_with("| ")) {
        let first = row
            .trim_matches('|')
            .split(" | ")
            .next()
            .unwrap_or_default();
        named.extend(first.split('`').skip(1).step_by(2).map(str::to_owned));
        if first.trim() == "action" {
            named.extend(hooks_schema::ACTION_KEYS.iter().map(|k| (*k).to_owned()));
        }
    }
    for key in properties("Hook") {
        assert!(
            named.contains(&key),
            "`{key}` is not in docs/config.md's keys table"
        );
    }
}

#[test]
fn the_config_chapter_names_every_limit() {
    let chapter = config_chapter();
    for key in properties("Limits") {
        assert!(
            chapter.contains(&format!("`{key}`")),
            "`limits.{key}` is not in docs/config.md"
        );
    }
}
