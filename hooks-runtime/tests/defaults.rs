//! The runtime's defaults are the config language's: a shell hook, an
//! executor request and a shell runtime built without a config get the same
//! timeout and caps as a config that leaves them out.

use std::time::Duration;

use hooks_runtime::{CommandForm, ExecRequest, Executor, HookLimits, ShellHookSpec, ShellRuntime};
use hooks_schema::{Defaults, Limits, Phase};

#[test]
fn default_timeouts_are_the_configs_30_seconds() {
    let config = Defaults::DEFAULT_TIMEOUT.to_std();
    assert_eq!(config, Duration::from_secs(30));
    let spec = ShellHookSpec::new("h", Phase::Stop, CommandForm::Shell("true".to_owned()));
    assert_eq!(spec.timeout, config);
    let req = ExecRequest::new(CommandForm::Shell("true".to_owned()));
    assert_eq!(req.timeout, config);
    assert_eq!(ExecRequest::DEFAULT_TIMEOUT, config);
}

#[test]
fn default_limits_are_the_configs() {
    let limits = HookLimits::default();
    assert_eq!(limits, HookLimits::from(&Limits::DEFAULT));
    assert_eq!(limits.max_context_bytes, 64 << 10);
    assert_eq!(limits.stdout_cap, 1 << 20);
    assert_eq!(limits.stderr_cap, 1 << 20);
    assert_eq!(limits.payload.stdin_cap, 1 << 20);
    assert_eq!(limits.max_concurrent_hooks, 32);
    assert_eq!(limits.max_concurrent_hooks_per_event, 8);
    assert_eq!(limits.memory_bytes, None);
    assert_eq!(
        ExecRequest::new(CommandForm::Exec(vec![])).memory_limit,
        None
    );
    assert_eq!(
        hooks_runtime::HookStack::new().stop_cap(),
        Limits::DEFAULT.max_stop_resumes_per_turn
    );
    assert_eq!(ExecRequest::DEFAULT_CAP, limits.stdout_cap);
    let root = tempfile::tempdir().expect("workspace root");
    let runtime = ShellRuntime::new(Executor::new(root.path()).expect("executor"));
    assert_eq!(*runtime.limits(), limits);
}
