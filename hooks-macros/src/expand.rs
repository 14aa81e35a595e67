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
    if let crate::parse::Source::Stack(lit) = &input.source {
        return stack(p, &input.name, lit, base_dir);
    }
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
    let include = includes(tracked);
    let impls = forwarding(
        p,
        name,
        &format_ident!("dispatcher"),
        quote! {
            fn config_plan(&self) -> ::core::option::Option<&#p::Plan> {
                #p::AgentHook::config_plan(&self.dispatcher)
            }
        },
    );
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone)]
        pub struct #name {
            dispatcher: #p::Dispatcher,
        }

        const _: () = {
            #include
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

            #impls
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

/// The expansion of `hooks!(stack = "FILE")`: one static table per config
/// of the stack file that the managed layer's switches let run, and a type
/// holding them in a `HookStack` (which runs them by layer); or the errors
/// and a type with an empty stack.
fn stack(p: &TokenStream, name: &Ident, lit: &syn::LitStr, base_dir: &Path) -> TokenStream {
    let loaded = match crate::load::load_stack(lit, base_dir) {
        Ok(loaded) => loaded,
        Err(e) => {
            let mut out = stack_type(p, name, &lit.value(), &[], &[]);
            out.extend(e.into_compile_error());
            return out;
        }
    };
    let mut errors: Option<syn::Error> = None;
    let mut plans = Vec::new();
    let mut tracked = Vec::new();
    let mut warned = Vec::new();
    for one in loaded {
        tracked.extend(one.tracked);
        warned.extend(one.warnings);
        match one.plan {
            Ok(plan) => plans.push(plan),
            Err(e) => match &mut errors {
                None => errors = Some(e),
                Some(all) => all.combine(e),
            },
        }
    }
    // The managed layer's switches leave configs out at build time.
    let switches = plans
        .iter()
        .find_map(|plan| plan.switches_in_force().cloned());
    plans.retain(|plan| switches.as_ref().is_none_or(|s| s.runs(&plan.layer)));
    let tables: Vec<TokenStream> = plans
        .iter()
        .map(|plan| {
            let items = table(p, plan);
            quote!({
                #items
                &__TABLE
            })
        })
        .collect();
    let mut out = stack_type(p, name, &lit.value(), &tables, &tracked);
    if let Some(e) = errors {
        out.extend(e.into_compile_error());
    }
    out.extend(warnings(lit.span(), &warned));
    out
}

/// The type of `hooks!(stack = ...)` over `tables` (each a block that
/// evaluates to a `&'static Table`), plus an `include_bytes!` of each of
/// `tracked`.
fn stack_type(
    p: &TokenStream,
    name: &Ident,
    display: &str,
    tables: &[TokenStream],
    tracked: &[PathBuf],
) -> TokenStream {
    let doc = format!(
        "Hooks compiled by `hooks!` from the stack file `{display}`: an `AgentHook` over one static dispatch table per config, run by layer."
    );
    let count = tables.len();
    let include = includes(tracked);
    let impls = forwarding(
        p,
        name,
        &format_ident!("stack"),
        quote! {
            fn as_stack(&self) -> ::core::option::Option<&#p::HookStack> {
                ::core::option::Option::Some(&self.stack)
            }
        },
    );
    quote! {
        #[doc = #doc]
        #[derive(Debug, Clone)]
        pub struct #name {
            stack: #p::HookStack,
        }

        const _: () = {
            #include

            static __TABLES: [&#p::Table; #count] = [#(#tables),*];

            impl #name {
                /// The hooks, without a shell runtime (`run` rules count as
                /// failed under their failure policy until one is bound).
                pub fn new() -> Self {
                    #name::bound(::core::option::Option::None)
                }

                fn bound(shell: ::core::option::Option<#p::Arc<#p::ShellRuntime>>) -> Self {
                    let mut stack = #p::HookStack::new();
                    for table in __TABLES {
                        let mut dispatcher = #p::Dispatcher::from_static(table);
                        if let ::core::option::Option::Some(shell) = &shell {
                            dispatcher = dispatcher.with_shell(#p::Arc::clone(shell));
                        }
                        stack.push(table.source(), dispatcher);
                    }
                    #name { stack }
                }

                /// A shell runtime over `executor` with the limits of the
                /// stack's first config (`Table::shell_runtime`) and the
                /// managed layer's switches, to configure further and bind
                /// with `with_shell`.
                pub fn shell_runtime(executor: #p::Executor) -> #p::ShellRuntime {
                    #p::stack_shell_runtime(&__TABLES, executor)
                }

                /// Binds the shell runtime every config's `run`, `http` and
                /// `policy` hooks execute through.
                #[must_use]
                pub fn with_shell(self, shell: #p::Arc<#p::ShellRuntime>) -> Self {
                    #name::bound(::core::option::Option::Some(shell))
                }

                /// The static dispatch tables, in the order the stack file
                /// lists them (the stack runs them by layer).
                pub fn tables() -> &'static [&'static #p::Table] {
                    &__TABLES
                }

                /// The stack of the tables' dispatchers.
                pub fn stack(&self) -> &#p::HookStack {
                    &self.stack
                }
            }

            #impls
        };
    }
}

/// `Default` (`new`) and `AgentHook` for the generated type `name`,
/// forwarding to its field `inner`, plus the trait methods in `extra`.
fn forwarding(p: &TokenStream, name: &Ident, inner: &Ident, extra: TokenStream) -> TokenStream {
    quote! {
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
                #p::AgentHook::on_event(&self.#inner, ctx, event)
            }

            fn fold_into<'a>(
                &'a self,
                ctx: &'a #p::HookContext,
                fold: &'a mut #p::Fold<'_>,
            ) -> #p::FoldStep<'a> {
                #p::AgentHook::fold_into(&self.#inner, ctx, fold)
            }

            fn observes(&self, kind: #p::StepEventKind) -> bool {
                #p::AgentHook::observes(&self.#inner, kind)
            }

            fn reads_payload(&self, kind: #p::StepEventKind) -> bool {
                #p::AgentHook::reads_payload(&self.#inner, kind)
            }

            fn decide_now(&self, event: &#p::StepEvent<'_>) -> ::core::option::Option<#p::Flow> {
                #p::AgentHook::decide_now(&self.#inner, event)
            }

            #extra
        }
    }
}

/// An `include_bytes!` of each of `tracked`: editing one rebuilds the
/// crate.
fn includes(tracked: &[PathBuf]) -> TokenStream {
    tracked
        .iter()
        .map(|path| {
            let path = path.to_string_lossy();
            quote!(
                const _: &[u8] = ::core::include_bytes!(#path);
            )
        })
        .collect()
}
