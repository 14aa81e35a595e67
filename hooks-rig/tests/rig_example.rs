//! The rig example as a user reads it: its transcript says what each rule
//! did in words (`rule block-rm-rf: skip (...)`), not in Rust `Debug` form
//! (`Applied(Skip)`), and it leaves no session directory in its workspace.

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/rig_agent.rs"]
mod rig_agent;

use std::sync::{Arc, Mutex};

#[tokio::test(flavor = "current_thread")]
async fn the_transcript_is_readable() {
    let lines = Arc::new(Mutex::new(Vec::new()));
    rig_agent::run(rig_agent::Out::into_lines(Arc::clone(&lines)))
        .await
        .expect("the example runs");
    let lines = lines.lock().expect("lines").clone();
    let text = lines.join("\n");
    assert!(
        lines
            .iter()
            .any(|l| l.trim_start().starts_with("rule block-rm-rf: skip (")),
        "{text}"
    );
    for debug in [
        "Applied(",
        "Audited(",
        "PatchRequest",
        "Some(",
        "Exited(",
        "Failed(",
    ] {
        assert!(!text.contains(debug), "`{debug}` in:\n{text}");
    }
}
