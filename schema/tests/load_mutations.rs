//! Property tests: the config loader (`compile_str`, which runs `load_str`'s
//! checks and then the lowering) never panics on mutations of the real configs —
//! `examples/hooks.yaml` and the corpus in `tests/configs/` — with bytes
//! flipped, inserted or deleted, lines dropped, duplicated, swapped or
//! re-indented, and the result cut short. A rejected document always
//! carries at least one located finding.

use proptest::prelude::*;

/// The real configs, relative to the workspace root.
const CONFIGS: &[&str] = &[
    "examples/hooks.yaml",
    "tests/configs/full.yaml",
    "tests/configs/hundred.yaml",
];

fn configs() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    CONFIGS
        .iter()
        .map(|p| std::fs::read_to_string(root.join(p)).expect("a real config"))
        .collect()
}

/// Bytes YAML gives meaning to, and bytes that break UTF-8.
const SPECIAL: &[u8] = b":-[]{}&*!|>'\"#%@`,?\t\n \\\x00\xff\xc3";

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the byte at (position modulo length).
    Set(usize, u8),
    Insert(usize, u8),
    Delete(usize),
    DropLine(usize),
    DuplicateLine(usize),
    SwapLines(usize, usize),
    Indent(usize, usize),
    Truncate(usize),
}

fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![3 => prop::sample::select(SPECIAL.to_vec()), 1 => any::<u8>()]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => (any::<usize>(), byte()).prop_map(|(p, b)| Mutation::Set(p, b)),
        3 => (any::<usize>(), byte()).prop_map(|(p, b)| Mutation::Insert(p, b)),
        3 => any::<usize>().prop_map(Mutation::Delete),
        2 => any::<usize>().prop_map(Mutation::DropLine),
        2 => any::<usize>().prop_map(Mutation::DuplicateLine),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        2 => (any::<usize>(), 0usize..5).prop_map(|(l, n)| Mutation::Indent(l, n)),
        1 => any::<usize>().prop_map(Mutation::Truncate),
    ]
}

fn apply(doc: &mut Vec<u8>, m: &Mutation) {
    let len = doc.len().max(1);
    let mut lines: Vec<Vec<u8>> = doc.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    let n = lines.len();
    let relines = |lines: Vec<Vec<u8>>| lines.join(&b'\n');
    match *m {
        Mutation::Set(p, b) if !doc.is_empty() => doc[p % len] = b,
        Mutation::Insert(p, b) => doc.insert(p % (doc.len() + 1), b),
        Mutation::Delete(p) if !doc.is_empty() => {
            doc.remove(p % len);
        }
        Mutation::DropLine(l) => {
            lines.remove(l % n);
            *doc = relines(lines);
        }
        Mutation::DuplicateLine(l) => {
            let line = lines[l % n].clone();
            lines.insert(l % n, line);
            *doc = relines(lines);
        }
        Mutation::SwapLines(a, b) => {
            lines.swap(a % n, b % n);
            *doc = relines(lines);
        }
        Mutation::Indent(l, k) => {
            let line = &mut lines[l % n];
            line.splice(0..0, std::iter::repeat_n(b' ', k));
            *doc = relines(lines);
        }
        Mutation::Truncate(p) => doc.truncate(p % len),
        _ => {}
    }
}

/// Compiles `source` (`compile_str` runs `load_str`'s checks, then the
/// lowering); a panic fails the property, a rejection must name at least
/// one finding with a line and column.
fn compiles_or_reports(source: &str) -> Result<(), TestCaseError> {
    if let Err(diags) = hooks_schema::compile_str(source, "mutated.yaml") {
        prop_assert!(!diags.is_empty());
        for d in diags.iter() {
            prop_assert!(d.line >= 1 && d.column >= 1, "{}", d);
            // Rendering with the source snippet must not panic either
            // (columns past a multi-byte character, lines past the end).
            let _ = d.render(Some(source));
        }
    }
    Ok(())
}

thread_local! {
    static CONFIG_TEXTS: Vec<String> = configs();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn mutated_real_configs_never_panic_the_loader(
        which in 0..CONFIGS.len(),
        mutations in prop::collection::vec(mutation(), 1..8),
    ) {
        let mut doc = CONFIG_TEXTS.with(|c| c[which].clone().into_bytes());
        for m in &mutations {
            apply(&mut doc, m);
        }
        // The loader takes text: invalid UTF-8 is decoded lossily, as a
        // caller reading a file with `from_utf8_lossy` would.
        compiles_or_reports(&String::from_utf8_lossy(&doc))?;
    }
}

/// The unmutated configs load, so the mutations start from valid documents
/// (and a mutation that breaks nothing still exercises the full pipeline).
#[test]
fn the_real_configs_load_unmutated() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for (path, text) in CONFIGS.iter().zip(configs()) {
        // A `catalogue:` path resolves next to the config, as `check` does.
        let dir = root.join(path).parent().map(std::path::Path::to_owned);
        // `policy` files resolve against the workspace: the repository root.
        let mut loader = hooks_schema::Loader::new()
            .base_dir(dir.unwrap_or_default())
            .workspace(&root);
        if let Err(diags) = loader.compile_str(&text, path) {
            panic!("{path}: {diags:?}");
        }
    }
}
