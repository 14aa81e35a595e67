//! stdin/stdout/stderr handling of the shell executor with real processes:
//! payloads a hook never reads, output written before stdin is read, caps,
//! byte-exact round trips.

use std::time::Duration;

use hooks_runtime::{CancellationToken, ExecRequest, ExecStatus, Executor};

fn workspace() -> (tempfile::TempDir, Executor) {
    let dir = tempfile::tempdir().expect("temporary workspace");
    let executor = Executor::new(dir.path()).expect("executor over the workspace");
    (dir, executor)
}

const TWO_MB: usize = 2 * 1024 * 1024;

#[tokio::test]
async fn large_payload_to_a_hook_that_exits_without_reading_stdin() {
    let (_dir, executor) = workspace();
    for (command, code) in [("exit 3", 3), ("sleep 0.2; exit 0", 0)] {
        let mut req = ExecRequest::shell(command);
        req.stdin = Some(vec![b'x'; TWO_MB]);
        req.timeout = Duration::from_secs(10);
        let outcome = executor.run(&req, &CancellationToken::new()).await;
        assert_eq!(outcome.status, ExecStatus::Exited(code), "{command}");
        assert_eq!(outcome.stderr.bytes, b"", "{command}");
    }
}

#[tokio::test]
async fn hook_writing_a_megabyte_before_reading_stdin_does_not_deadlock() {
    let (_dir, executor) = workspace();
    let mut req = ExecRequest::shell("head -c 1048576 /dev/zero | tr '\\0' a; wc -c | tr -d ' '");
    req.stdin = Some(vec![b'x'; TWO_MB]);
    req.timeout = Duration::from_secs(10);
    req.stdout_cap = TWO_MB;
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    let (head, tail) = outcome.stdout.bytes.split_at(1_048_576);
    assert!(head.iter().all(|&b| b == b'a'));
    // The payload plus the newline the executor appends.
    assert_eq!(tail, format!("{}\n", TWO_MB + 1).as_bytes());
    assert!(!outcome.stdout.truncated);
}

#[tokio::test]
async fn payload_round_trips_byte_for_byte_with_one_newline() {
    let (_dir, executor) = workspace();
    let payload = "{\"text\":\"h\u{e9}llo \u{2713} \u{65e5}\u{672c} \\u0000\"}".as_bytes();
    let mut req = ExecRequest::exec(["cat"]);
    req.stdin = Some(payload.to_vec());
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    let mut expected = payload.to_vec();
    expected.push(b'\n');
    assert_eq!(outcome.stdout.bytes, expected);
}

/// Payloads up to `PIPE_BUF` with their newline are written into the pipe
/// before the spawn, larger ones after it: both read the same.
#[tokio::test]
async fn payloads_either_side_of_the_prefilled_size_round_trip() {
    let (_dir, executor) = workspace();
    for len in [0, 1, 4094, 4095, 4096, 65_535, 65_536, 200_000] {
        let payload: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        let mut req = ExecRequest::exec(["cat"]);
        req.stdin = Some(payload.clone());
        req.stdout_cap = 256 * 1024;
        let outcome = executor.run(&req, &CancellationToken::new()).await;
        assert_eq!(outcome.status, ExecStatus::Exited(0), "{len} bytes");
        let mut expected = payload;
        expected.push(b'\n');
        assert!(outcome.stdout.bytes == expected, "{len} bytes");
    }
}

#[tokio::test]
async fn no_payload_means_stdin_is_empty() {
    let (_dir, executor) = workspace();
    let outcome = executor
        .run(
            &ExecRequest::shell("wc -c | tr -d ' '"),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, b"0\n");
}

#[tokio::test]
async fn caps_apply_per_stream_with_true_counts() {
    let (_dir, executor) = workspace();
    let mut req = ExecRequest::shell("printf 0123456789; printf abcdef >&2");
    req.stdout_cap = 4;
    req.stderr_cap = 6;
    let outcome = executor.run(&req, &CancellationToken::new()).await;
    assert_eq!(outcome.status, ExecStatus::Exited(0));
    assert_eq!(outcome.stdout.bytes, b"0123");
    assert_eq!(outcome.stdout.total_len, 10);
    assert!(outcome.stdout.truncated);
    assert_eq!(outcome.stderr.bytes, b"abcdef");
    assert_eq!(outcome.stderr.total_len, 6);
    assert!(!outcome.stderr.truncated);
}
