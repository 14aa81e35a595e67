//! The compiled-config cache (`use_compile_cache`): a warm compile gives
//! exactly the cold compile's plan and warnings without parsing or
//! checking, and anything the result depends on (the text, a Rego or
//! catalogue file it read) makes it compile again. Its own test binary:
//! the cache is switched on per process.

use std::path::{Path, PathBuf};

use hooks_schema::Loader;

/// The cache directory of this test binary (the switch is per process),
/// and the lock each test holds, so entries are counted one test at a
/// time.
fn cache() -> (&'static Path, std::sync::MutexGuard<'static, ()>) {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let guard = LOCK
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("cache dir");
        assert!(hooks_schema::use_compile_cache(dir.path().to_owned()));
        dir
    });
    (dir.path(), guard)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn compile(path: &Path) -> hooks_schema::Compiled {
    Loader::new()
        .workspace(root())
        .compile_file(path)
        .unwrap_or_else(|d| panic!("{}: {d}", path.display()))
}

/// The single entry file for `dir`'s configs written by the cache.
fn entries(cache: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(cache.join("config"))
        .map(|d| d.map(|e| e.expect("entry").path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn a_warm_compile_is_the_cold_one_and_changes_compile_again() {
    let (cache, _lock) = cache();
    // Every config of the repository that compiles: cold, then warm.
    let mut configs = vec![
        root().join("examples/hooks.yaml"),
        root().join("tests/configs/full.yaml"),
        root().join("tests/configs/hundred.yaml"),
        root().join("tests/configs/contains_globs.yaml"),
        root().join("tests/configs/workers.yaml"),
    ];
    for agent in ["claude", "copilot", "gemini"] {
        configs.push(root().join(format!("tests/configs/agent/{agent}.yaml")));
    }
    // Past the DFA budgets (some patterns matched lazily): the warm
    // lowering makes the same choices as the cold one.
    let work = tempfile::tempdir().expect("workspace");
    let mut big = String::from("version: 1\nhooks:\n");
    for i in 0..160 {
        big.push_str(&format!(
            "  - {{ id: r{i}, phase: before_tool, when: {{ pointer: /command, matches: 'a{i}.{{10}}$' }}, block: {{ reason: r }} }}\n"
        ));
    }
    let big_path = work.path().join("big.yaml");
    std::fs::write(&big_path, big).expect("big config");
    configs.push(big_path);
    for path in &configs {
        let before = entries(cache).len();
        let cold = compile(path);
        assert_eq!(entries(cache).len(), before + 1, "{}", path.display());
        let warm = compile(path);
        assert_eq!(entries(cache).len(), before + 1, "{}", path.display());
        assert_eq!(warm.plan, cold.plan, "{}", path.display());
        assert_eq!(warm.warnings, cold.warnings, "{}", path.display());
        assert_eq!(warm.config, cold.config, "{}", path.display());
    }

    // A warm compile takes the entry, not the text: an entry edited in
    // place is what the next compile returns.
    let work = tempfile::tempdir().expect("workspace");
    let config = work.path().join("hooks.yaml");
    std::fs::write(
        &config,
        "version: 1\nhooks:\n  - { id: a, phase: before_tool, block: { reason: cold } }\n",
    )
    .expect("config");
    let cold = compile(&config);
    let entry = entries(cache)
        .into_iter()
        .find(|e| std::fs::read_to_string(e).is_ok_and(|t| t.contains(r#""reason":"cold""#)))
        .expect("the entry of the new config");
    let text = std::fs::read_to_string(&entry).expect("entry");
    std::fs::write(
        &entry,
        text.replace(r#""reason":"cold""#, r#""reason":"warm""#),
    )
    .expect("edit the entry");
    let warm = compile(&config);
    assert_ne!(warm.plan, cold.plan, "the warm compile read the entry");
    assert!(format!("{:?}", warm.plan.rules[0].action).contains("warm"));

    // Another text is another entry.
    std::fs::write(
        &config,
        "version: 1\nhooks:\n  - { id: a, phase: before_tool, block: { reason: other } }\n",
    )
    .expect("config");
    assert!(format!("{:?}", compile(&config).plan.rules[0].action).contains("other"));

    // A torn entry is a miss, compiled again.
    std::fs::write(&entry, b"{").expect("tear");
    std::fs::write(
        &config,
        "version: 1\nhooks:\n  - { id: a, phase: before_tool, block: { reason: cold } }\n",
    )
    .expect("config");
    assert_eq!(compile(&config).plan, cold.plan);
}

#[test]
fn a_changed_rego_file_compiles_again() {
    let (_cache, _lock) = cache();
    let work = tempfile::tempdir().expect("workspace");
    std::fs::write(
        work.path().join("p.rego"),
        "package p\nimport rego.v1\ndeny contains \"one\" if { true }\n",
    )
    .expect("rego");
    let config = work.path().join("hooks.yaml");
    std::fs::write(
        &config,
        "version: 1\nhooks:\n  - id: p\n    phase: before_tool\n    policy: { rego: [p.rego], query: data.p.deny }\n",
    )
    .expect("config");
    let compile = || {
        Loader::new()
            .workspace(work.path())
            .compile_file(&config)
            .unwrap_or_else(|d| panic!("{d}"))
    };
    let first = compile();
    assert!(format!("{:?}", first.plan).contains("\\\"one\\\""));
    assert_eq!(format!("{:?}", compile().plan), format!("{:?}", first.plan));
    std::fs::write(
        work.path().join("p.rego"),
        "package p\nimport rego.v1\ndeny contains \"two\" if { true }\n",
    )
    .expect("rego");
    let second = compile();
    assert!(
        format!("{:?}", second.plan).contains("\\\"two\\\""),
        "the new Rego text is compiled: {:?}",
        second.plan
    );
    // A Rego file that no longer compiles is the cold compile's located
    // error, not a stale plan.
    std::fs::write(
        work.path().join("p.rego"),
        "package p\ndeny contains if {\n",
    )
    .expect("rego");
    let error = Loader::new()
        .workspace(work.path())
        .compile_file(&config)
        .expect_err("a syntax error");
    assert!(error.to_string().contains("p.rego"), "{error}");
}
