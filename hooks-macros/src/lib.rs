//! The proc-macro behind `agent_hooks::hooks!` (use it through the facade,
//! which passes its own path as the first tokens; see `agent_hooks::hooks`).
//!
//! `hooks!` reads a YAML hook config, validates it with `hooks-schema` (the
//! same code path as the CLI and the runtime loader) and emits a named type
//! implementing `AgentHook` over a `static` dispatch table:
//!
//! - `hooks!("hooks.yaml")` — a file, **relative to the directory of the
//!   source file that calls `hooks!`** (found with `Span::local_file`; when
//!   the compiler cannot say, `CARGO_MANIFEST_DIR`). Absolute paths are
//!   refused. The type is named `Hooks`.
//! - `hooks!(name = GuardHooks, "hooks.yaml")` — the same, naming the type.
//! - `hooks!(inline = r#"version: 1 ..."#)` / `hooks!(name = T, inline = "...")`
//!   — the YAML in the source itself (diagnostics name it `<inline>`).
//!
//! Every diagnostic of the config becomes a compile error spanned on the
//! literal, carrying `file:line:col` and a snippet; the type is still emitted
//! (with an empty table) so that no other error follows. The file is
//! `include_bytes!`-ed, so editing it rebuilds the crate.
//!
//! Warnings and notes of a valid config become compiler warnings: stable
//! Rust has no proc-macro warning API, so each is the note of a generated
//! `#[deprecated]` constant that the expansion uses, spanned on the
//! literal; rustc prints `use of deprecated constant ...` followed by the
//! rendered finding (`#![deny(warnings)]` turns them into errors).
//!
//! The crate is a thin shim: [`parse`](crate) reads the input, `load` the
//! config, `expand` generates the code.

use std::path::{Path, PathBuf};

mod expand;
mod load;
mod parse;
mod quote_plan;
mod watch;

/// Expands `hooks!`. Input: `CRATE_PRIVATE_PATH ; INPUT` (see the crate docs).
#[proc_macro]
pub fn hooks_impl(input: proc_macro::TokenStream) -> proc_macro::TokenStream {
    match syn::parse::<parse::Input>(input) {
        Ok(input) => {
            let base = base_dir(&input.source);
            expand::input(input, &base).into()
        }
        Err(e) => e.into_compile_error().into(),
    }
}

/// The directory relative config paths are resolved against: that of the
/// file holding the path literal, else `CARGO_MANIFEST_DIR`, else `.`.
fn base_dir(source: &parse::Source) -> PathBuf {
    let from_span = source
        .literal()
        .span()
        .unwrap()
        .local_file()
        .and_then(|file| {
            let file = if file.is_absolute() {
                file
            } else {
                std::env::current_dir().ok()?.join(file)
            };
            file.parent().map(Path::to_path_buf)
        });
    from_span
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("."))
}

#[cfg(test)]
mod tests;
