//! The policies the dispatch benches compile (`benches/policies/*.yaml`)
//! are the generator's output (`benches/policies/mod.rs`); the dispatch
//! matrix checks that each loads and decides as intended.
//! `UPDATE_FIXTURES=1 cargo test --test bench_policies` rewrites them.

#[path = "../benches/policies/mod.rs"]
mod policies;

use policies::{Family, SIZES};

#[test]
fn committed_policies_are_the_generators_output() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/policies");
    let update = std::env::var_os("UPDATE_FIXTURES").is_some();
    let families = Family::MATRIX.into_iter().chain([Family::Mixed]);
    for family in families {
        for n in SIZES {
            let path = dir.join(family.file(n));
            let yaml = family.yaml(n);
            if update {
                std::fs::write(&path, &yaml).expect("the policy writes");
            }
            let committed = std::fs::read_to_string(&path).expect("the policy reads");
            assert!(
                committed == yaml,
                "{} is stale: run `UPDATE_FIXTURES=1 cargo test --test bench_policies`",
                path.display()
            );
        }
    }
}
