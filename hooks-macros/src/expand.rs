//! Expansion: a lowered config ([`Plan`]) → the generated type and its
//! `static` dispatch table.
//!
//! The plan is quoted by [`crate::quote_plan`] into named `static` items
//! inside one `const _: () = {...}` block (so names never clash with the
//! caller's), and the table is a `static` built with the runtime's
//! `Table::from_plan`. All paths go through `<crate>::__private`.

use std::path::{Path, PathBuf};

use hooks_schema::plan::Plan;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use crate::quote_plan::{Gen, Quote};

/// The whole expansion for a parsed input: the type and table, or the
/// errors plus a stub type with an empty table.
pub(crate) fn input(input: crate::parse::Input, base_dir: &Path) -> TokenStream {
    let p = &input.krate;
    let loaded = crate::load::load(&input.source, base_dir);
    let (items, error) = match &loaded.plan {
        Ok(plan) => (table(p, plan), None),
        Err(e) => (empty_table(p, &loaded.display), Some(e.clone())),
    };
    let mut out = wrap(p, &input.name, &loaded.display, items, &loaded.tracked);
    if let Some(e) = error {
        out.extend(e.into_compile_error());
    }
    out.extend(warnings(input.source.literal().span(), &loaded.warnings));
    out
}

/// The `static` table of `plan`: its items, then `static __TABLE`.
///
/// `p` is the `__private` path of the runtime.
pub(crate) fn table(p: &TokenStream, plan: &Plan) -> TokenStream {
    let mut g = Gen::new(p);
    let plan = plan.quote(&mut g);
    let items = g.into_items();
    quote! {
        #(#items)*
        static __TABLE: #p::Table = #p::Table::from_plan(#plan);
    }
}

/// The generated type and its impls around `table_items` (which define
/// `static __TABLE`), plus an `include_bytes!` of each of `tracked`.
pub(crate) fn wrap(
    p: &TokenStream,
    name: &Ident,
    display: &str,
    table_items: TokenStream,
    tracked: &[PathBuf],
) -> TokenStream {
    let doc = format!(
        "Hooks compiled by `hooks!` from `{display}`: an `AgentHook` over a static dispatch table."
    );
    let include = tracked.iter().map(|path| {
        let path = path.to_string_lossy();
        quote!(
            const _: &[u8] = ::core::include_bytes!(#path);
        )
    });
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone)]
        pub struct #name {
            dispatcher: #p::Dispatcher,
        }

        const _: () = {
            #(#include)*
            #table_items

            impl #name {
                /// The hooks, without a shell runtime (`run` rules count as failed
                /// under their failure policy until one is bound).
                pub const fn new() -> Self {
                    #name { dispatcher: #p::Dispatcher::from_static(&__TABLE) }
                }

                /// A shell runtime over `executor` with this config's `limits`
                /// (`Table::shell_runtime`), to configure further and bind with
                /// `with_shell`.
                pub fn shell_runtime(executor: #p::Executor) -> #p::ShellRuntime {
                    __TABLE.shell_runtime(executor)
                }

                /// Binds the shell runtime `run` rules execute through (its
                /// limits apply; `shell_runtime` builds one with the config's).
                #[must_use]
                pub fn with_shell(self, shell: #p::Arc<#p::ShellRuntime>) -> Self {
                    #name { dispatcher: self.dispatcher.with_shell(shell) }
                }

                /// The static dispatch table.
                pub fn table() -> &'static #p::Table {
                    &__TABLE
                }

                /// The dispatcher (table and bound runtime).
                pub fn dispatcher(&self) -> &#p::Dispatcher {
                    &self.dispatcher
                }
            }

            impl ::core::default::Default for #name {
                fn default() -> Self {
                    #name::new()
                }
            }

            impl #p::AgentHook for #name {
                fn on_event<'a>(
                    &'a self,
                    ctx: &'a #p::HookContext,
                    event: #p::StepEvent<'a>,
                ) -> #p::HookFuture<'a> {
                    #p::AgentHook::on_event(&self.dispatcher, ctx, event)
                }

                fn fold_into<'a>(
                    &'a self,
                    ctx: &'a #p::HookContext,
                    fold: &'a mut #p::Fold<'_>,
                ) -> #p::FoldStep<'a> {
                    #p::AgentHook::fold_into(&self.dispatcher, ctx, fold)
                }

                fn observes(&self, kind: #p::StepEventKind) -> bool {
                    #p::AgentHook::observes(&self.dispatcher, kind)
                }

                fn config_plan(&self) -> ::core::option::Option<&#p::Plan> {
                    #p::AgentHook::config_plan(&self.dispatcher)
                }
            }
        };
    }
}

/// The items of an empty table (what is emitted beside a compile error).
pub(crate) fn empty_table(p: &TokenStream, display: &str) -> TokenStream {
    quote! {
        static __TABLE: #p::Table = #p::Table::empty(#display);
    }
}

/// One compiler warning per rendered finding in `warnings`, at `span`:
/// a `#[deprecated]` constant whose note is the finding, used once so that
/// rustc reports it (stable Rust has no proc-macro warning API).
pub(crate) fn warnings(span: Span, warnings: &[String]) -> TokenStream {
    if warnings.is_empty() {
        return TokenStream::new();
    }
    let items = warnings.iter().enumerate().map(|(i, text)| {
        let name = format_ident!("HOOKS_CONFIG_WARNING_{}", i, span = span);
        let note = format!("\n{text}");
        quote_spanned! {span=>
            #[deprecated(note = #note)]
            const #name: () = ();
            const _: () = #name;
        }
    });
    quote! {
        const _: () = {
            #(#items)*
        };
    }
}
