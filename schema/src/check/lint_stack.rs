//! `duplicate-id-in-stack`: configs loaded into one stack share hook ids.
//!
//! Each config checks that its own ids are unique (`duplicate-id`); when
//! several configs are pushed into one `HookStack`, records, reports and
//! provenance name hooks by id, so an id defined in two of them is as much
//! an error as one defined twice in one file. The runtime refuses it too
//! (`HookStack::try_push`).

use std::collections::HashMap;

use serde_json::Value;

use super::{At, Checker};
use crate::diagnostic::{Diagnostic, Layer};
use crate::yaml;

/// Errors for every hook id that more than one of `configs` defines, each
/// located on the later definition and naming the file (and line) of the
/// first. `configs` are `(file, source)` pairs in stack order; a config that
/// does not parse is skipped (checking it on its own reports why).
///
/// This is what `agent-hooks check --stack A.yaml B.yaml` adds to the
/// per-file checks.
pub fn duplicate_ids_in_stack(configs: &[(&str, &str)]) -> Vec<Diagnostic> {
    // Id -> (config index, file, line) of its first definition.
    let mut first: HashMap<String, (usize, &str, usize)> = HashMap::new();
    let mut out = Vec::new();
    for (n, &(file, source)) in configs.iter().enumerate() {
        let Ok((value, positions)) = yaml::parse(source, file) else {
            continue;
        };
        let mut checker = Checker::new(file, &positions);
        let hooks = value.get("hooks").and_then(Value::as_array);
        for (i, hook) in hooks.into_iter().flatten().enumerate() {
            let Some(id) = hook.get("id").and_then(Value::as_str) else {
                continue;
            };
            let pointer = format!("/hooks/{i}/id");
            let line = checker.place(&pointer, At::Value).line;
            match first.get(id) {
                Some(&(m, earlier, earlier_line)) if m != n => checker.report(
                    &pointer,
                    At::Value,
                    Layer::Semantic,
                    "duplicate-id-in-stack",
                    format!(
                        "hook id `{id}` is also defined in `{earlier}` (line {earlier_line}), loaded into the same stack"
                    ),
                    Some(
                        "ids must be unique across the configs of one stack (records and reports name hooks by id): rename one of them"
                            .to_owned(),
                    ),
                ),
                Some(_) => {}
                None => {
                    first.insert(id.to_owned(), (n, file, line));
                }
            }
        }
        out.append(&mut checker.out);
    }
    out
}
