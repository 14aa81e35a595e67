//! Quoting a [`Plan`] as `static` data: the lowering's own value, written
//! out as the runtime's own types (the way `sqlx-macros-core` quotes the
//! `Migration`s `sqlx_core` resolved).
//!
//! Every list becomes a named `static` array, every automaton a serialized
//! DFA embedded with `u32` alignment for both byte orders (once per distinct
//! DFA), every other value a constant expression. All paths go through
//! `<crate>::__private`.
//!
//! # One list per type, checked by the compiler
//!
//! The plan's structs and enums are quoted by impls that `quote_structs!`
//! and `quote_enums!` generate from one list of each type's fields and
//! variants. A generated impl destructures exhaustively (`let Rule { id,
//! phase, .. } = self` without `..`, a `match` without `_`), so a field or
//! variant added to a plan type does not compile here until it is added to
//! its list, and from then on it is quoted like the others. Field-less enums
//! (`Phase`, `Mode`, ...) need no list: a variant is quoted by its name (the
//! derived `Debug`), and a cast to `isize` stops compiling if a variant
//! gains a field. Hand-written are only the types whose static form differs
//! from their owned one: [`List`], `Cow<[T]>` and [`Params`] (a named
//! static array), [`Text`] (`Cow::Borrowed`), [`History`] (only
//! `keep_last` comes from a config), [`Dfa`] (embedded bytes, or a lazy
//! group's regexes), numbers (suffixed literals, floats bit-exact),
//! `Option`, pairs and arrays.
//!
//! Why not a derive on the plan types (`databake`'s `Bake`, say): its
//! `bake(&self, &CrateEnv)` has no state to name `static`s and embed each
//! DFA once, it writes every path from a crate path fixed at the derive
//! (ours go through the caller's `$crate::__private`, `tests/hygiene`), and
//! it would add a second derive stack (syn 2, synstructure) to the crate
//! every runtime build compiles. The lists here cost a line per type and no
//! dependency.

use std::borrow::Cow;
use std::collections::HashMap;

use hooks_schema::plan::{
    ActionSpec, Bits, ContextItem, Dfa, Gate, History, HttpSpec, Json, Layer, List, Params,
    PatternGroup, PermissionRule, PhaseIndex, Plan, PolicyModule, PolicySpec, Pred, ProgramSpec,
    RequestPatch, RewriteStep, Role, Rule, RunSpec, Scope, ScopeKind, Specifier, Switches, Test,
    Text, ToolChoice, ToolPaths, ToolSchema, ToolSet,
};
use hooks_schema::{
    FailurePolicy, HttpProtocol, Limits, Mode, OutcomeKind, PayloadMode, Phase, Protocol,
};
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

/// Collects the `static` items a quoted plan refers to; `p` is the
/// `__private` path.
pub(crate) struct Gen {
    p: TokenStream,
    items: Vec<TokenStream>,
    next: usize,
    /// The `StaticDfa` already emitted for each DFA (by its little-endian
    /// bytes and its regexes): a DFA the plan holds twice (a rule's own and
    /// its phase index's, or one regex on several rules) is embedded once.
    dfas: HashMap<(Vec<u8>, Vec<String>), Ident>,
}

impl Gen {
    pub(crate) fn new(p: &TokenStream) -> Gen {
        Gen {
            p: p.clone(),
            items: Vec::new(),
            next: 0,
            dfas: HashMap::new(),
        }
    }

    /// The items generated so far.
    pub(crate) fn into_items(self) -> Vec<TokenStream> {
        self.items
    }

    fn name(&mut self, prefix: &str) -> Ident {
        self.next += 1;
        format_ident!("__{}{}", prefix, self.next)
    }
}

/// A plan value that can be written as a constant expression.
pub(crate) trait Quote {
    /// The type of the value, as a path through `p`.
    fn ty(p: &TokenStream) -> TokenStream;
    /// The value as a constant expression (new statics go into `g`).
    fn quote(&self, g: &mut Gen) -> TokenStream;
}

/// `Quote` for plan structs, from the list of each one's fields.
macro_rules! quote_structs {
    ($($ty:ident { $($field:ident),* $(,)? })*) => {$(
        impl Quote for $ty {
            fn ty(p: &TokenStream) -> TokenStream {
                quote!(#p::$ty)
            }
            fn quote(&self, g: &mut Gen) -> TokenStream {
                let $ty { $($field),* } = self;
                $(let $field = $field.quote(g);)*
                let p = &g.p;
                quote!(#p::$ty { $($field: #$field),* })
            }
        }
    )*};
}

/// `Quote` for plan enums, from the list of each one's variants (unit,
/// tuple with a name per field, or struct).
macro_rules! quote_enums {
    ($($ty:ident {
        $($variant:ident $(( $($t:ident),* ))? $({ $($f:ident),* })?),* $(,)?
    })*) => {$(
        impl Quote for $ty {
            fn ty(p: &TokenStream) -> TokenStream {
                quote!(#p::$ty)
            }
            fn quote(&self, g: &mut Gen) -> TokenStream {
                match self {$(
                    $ty::$variant $(( $($t),* ))? $({ $($f),* })? => {
                        $($(let $t = $t.quote(g);)*)?
                        $($(let $f = $f.quote(g);)*)?
                        let p = &g.p;
                        quote!(#p::$ty::$variant $(( $(#$t),* ))? $({ $($f: #$f),* })?)
                    }
                )*}
            }
        }
    )*};
}

/// `Quote` for field-less enums: `#p::Type::Variant`, the variant named by
/// its derived `Debug`.
macro_rules! quote_unit_enums {
    ($($ty:ident),* $(,)?) => {$(
        // Compiles only while every variant of the enum is field-less.
        const _: fn($ty) -> isize = |v| v as isize;

        impl Quote for $ty {
            fn ty(p: &TokenStream) -> TokenStream {
                quote!(#p::$ty)
            }
            fn quote(&self, g: &mut Gen) -> TokenStream {
                let p = &g.p;
                let variant = Ident::new(&format!("{self:?}"), Span::call_site());
                quote!(#p::$ty::#variant)
            }
        }
    )*};
}

quote_structs! {
    Plan { source, rules, phases, index, tool_paths, tool_schemas, limits, layer, shadow, switches }
    Layer { name, rank }
    Switches { disable_all_hooks, managed_hooks_only, allowed_http_urls, allowed_header_env }
    Rule {
        id, phase, enabled, mode, failure_policy, show_in_tui, parallel, background, include,
        exclude, when, scope, once, action
    }
    Scope { kind, name }
    ToolSet { names, dfa }
    RunSpec { program, cwd, pass, set, timeout_ms, payload, protocol, worker }
    HttpSpec { url, headers, env, timeout_ms, payload, protocol, follow_redirects }
    PolicySpec { query, modules, digest, timeout_ms }
    PolicyModule { path, source }
    RequestPatch {
        model, preamble, temperature, max_tokens, tool_choice, history, active_tools,
        additional_params, extra_context
    }
    ContextItem { role, content }
    ToolPaths { tool, path_pointers, allow_absolute, writes }
    ToolSchema { tool, input, result }
    Limits {
        max_stop_resumes_per_turn, max_output_bytes, max_context_bytes, max_payload_bytes,
        max_concurrent_hooks, max_concurrent_hooks_per_event, max_hook_memory_bytes,
        max_async_hooks, max_async_queued, max_async_deliveries_per_turn
    }
    PhaseIndex { any_tool, tools, tool_patterns, ungated, gates }
    Bits { offset, words }
    PatternGroup { dfa, anchored, positions }
    Gate { pointer, groups }
    PermissionRule { rule, tools, specifier }
}

quote_enums! {
    ActionSpec {
        Run(v), Http(v), Block(v), Patch(v), Rewrite(v), Inject(v), Terminate(v), Ask(v),
        Allow(v), Policy(v), SelectModel(v)
    }
    ProgramSpec { Shell(v), Exec(v) }
    ToolChoice { Auto, None, Required, Tool(v) }
    RewriteStep { Set { pointer, value }, Remove { pointer } }
    Pred { All(v), Any(v), Not(v), Arg { args, pointer, test }, Outcome(v), Permission(v) }
    Specifier { Command(v), Path(v), Domain(v), Field { name, dfa } }
    Test { Matches(v), Glob(v), Equals(v), Exists(v) }
    Json { Null, Bool(v), U64(v), I64(v), F64(v), Str(v), Array(v), Object(v) }
}

quote_unit_enums!(
    Phase,
    Mode,
    FailurePolicy,
    PayloadMode,
    Protocol,
    HttpProtocol,
    OutcomeKind,
    Role,
    ScopeKind
);

impl<T: Quote> Quote for List<T> {
    fn ty(p: &TokenStream) -> TokenStream {
        let t = T::ty(p);
        quote!(#p::List<#t>)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match static_array(g, self.iter()) {
            Some(name) => quote!(#p::List::Static(&#name)),
            None => quote!(#p::List::EMPTY),
        }
    }
}

/// A named static array of `items`, its elements of type `T`; `None` when
/// there are none.
fn static_array<'a, T: Quote + 'a>(
    g: &mut Gen,
    items: impl IntoIterator<Item = &'a T>,
) -> Option<Ident> {
    let elems: Vec<TokenStream> = items.into_iter().map(|e| e.quote(g)).collect();
    if elems.is_empty() {
        return None;
    }
    let name = g.name("L");
    let n = elems.len();
    let ty = T::ty(&g.p);
    g.items.push(quote! {
        static #name: [#ty; #n] = [#(#elems),*];
    });
    Some(name)
}

impl<T: Quote + Clone> Quote for Cow<'static, [T]> {
    fn ty(p: &TokenStream) -> TokenStream {
        let t = T::ty(p);
        quote!(#p::Cow<'static, [#t]>)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match static_array(g, self.iter()) {
            Some(name) => quote!(#p::Cow::Borrowed(&#name)),
            None => quote!(#p::Cow::Borrowed(&[])),
        }
    }
}

impl Quote for Params {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Params)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let entries: Vec<(Text, Json)> = self
            .iter()
            .map(|(k, v)| (Text::from(k.to_owned()), v.clone()))
            .collect();
        match static_array(g, entries.iter()) {
            Some(name) => quote!(#p::Params::from_static(&#name)),
            None => quote!(#p::Params::new()),
        }
    }
}

impl Quote for History {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::History)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = &g.p;
        match self {
            History::KeepLast { keep_last } => {
                let n = Literal::u64_suffixed(*keep_last);
                quote!(#p::History::KeepLast { keep_last: #n })
            }
            // Messages are provider JSON a hook answers with, never config.
            History::Replace(_) => quote!(::core::compile_error!(
                "`hooks!` internal error: the lowering returned a replacement history"
            )),
        }
    }
}

impl Quote for Text {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Cow<'static, str>)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = &g.p;
        let s: &str = self;
        quote!(#p::Cow::Borrowed(#s))
    }
}

impl Quote for Dfa {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Dfa)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        if let Dfa::Lazy(lazy) = self {
            let name = g.name("L");
            let regexes = lazy.regexes().iter().map(|r| &**r);
            g.items.push(quote! {
                static #name: #p::LazySet = #p::LazySet::new_static(&[#(#p::Cow::Borrowed(#regexes)),*]);
            });
            return quote!(#p::Dfa::LazyStatic(&#name));
        }
        let Dfa::Owned(dfa) = self else {
            return quote!(::core::compile_error!(
                "`hooks!` internal error: the lowering returned an embedded DFA"
            ));
        };
        let (le, le_pad) = dfa.dfa.to_bytes_little_endian();
        let key = (le[le_pad..].to_vec(), dfa.regexes.clone());
        if let Some(name) = g.dfas.get(&key) {
            return quote!(#p::Dfa::Static(&#name));
        }
        let bytes = g.name("B");
        let name = g.name("D");
        g.dfas.insert(key, name.clone());
        let regexes = &dfa.regexes;
        let (be, be_pad) = dfa.dfa.to_bytes_big_endian();
        let (le, be) = (&le[le_pad..], &be[be_pad..]);
        let (le_n, be_n) = (le.len(), be.len());
        let (le, be) = (Literal::byte_string(le), Literal::byte_string(be));
        g.items.push(quote! {
            #[cfg(target_endian = "little")]
            static #bytes: #p::AlignAs<[u8; #le_n], u32> = #p::AlignAs { _align: [], bytes: *#le };
            #[cfg(target_endian = "big")]
            static #bytes: #p::AlignAs<[u8; #be_n], u32> = #p::AlignAs { _align: [], bytes: *#be };
            static #name: #p::StaticDfa = #p::StaticDfa::new(&#bytes.bytes, &[#(#regexes),*]);
        });
        quote!(#p::Dfa::Static(&#name))
    }
}

impl<T: Quote> Quote for Option<T> {
    fn ty(p: &TokenStream) -> TokenStream {
        let t = T::ty(p);
        quote!(::core::option::Option<#t>)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        match self {
            Some(v) => {
                let v = v.quote(g);
                quote!(::core::option::Option::Some(#v))
            }
            None => quote!(::core::option::Option::None),
        }
    }
}

impl<A: Quote, B: Quote> Quote for (A, B) {
    fn ty(p: &TokenStream) -> TokenStream {
        let (a, b) = (A::ty(p), B::ty(p));
        quote!((#a, #b))
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let (a, b) = (self.0.quote(g), self.1.quote(g));
        quote!((#a, #b))
    }
}

impl<T: Quote, const N: usize> Quote for [T; N] {
    fn ty(p: &TokenStream) -> TokenStream {
        let t = T::ty(p);
        quote!([#t; #N])
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let elems: Vec<TokenStream> = self.iter().map(|e| e.quote(g)).collect();
        quote!([#(#elems),*])
    }
}

/// `Quote` for primitives written as themselves (`true`) or as a suffixed
/// literal (`3u32`).
macro_rules! quote_primitives {
    ($($ty:ident => |$v:ident| $lit:expr),* $(,)?) => {$(
        impl Quote for $ty {
            fn ty(_: &TokenStream) -> TokenStream {
                quote!($ty)
            }
            fn quote(&self, _: &mut Gen) -> TokenStream {
                let $v = *self;
                let lit = $lit;
                quote!(#lit)
            }
        }
    )*};
}

quote_primitives!(
    bool => |v| v,
    u16 => |v| Literal::u16_suffixed(v),
    u32 => |v| Literal::u32_suffixed(v),
    u64 => |v| Literal::u64_suffixed(v),
);

impl Quote for i64 {
    fn ty(_: &TokenStream) -> TokenStream {
        quote!(i64)
    }
    fn quote(&self, _: &mut Gen) -> TokenStream {
        // A negative literal is two tokens, and `-9223372036854775808i64`
        // overflows before the minus applies: negate an `i128`, then cast.
        let abs = Literal::i128_suffixed(i128::from(*self).abs());
        if *self < 0 {
            quote!((-#abs) as i64)
        } else {
            quote!(#abs as i64)
        }
    }
}

impl Quote for f64 {
    fn ty(_: &TokenStream) -> TokenStream {
        quote!(f64)
    }
    fn quote(&self, _: &mut Gen) -> TokenStream {
        // Bit-exact, NaN and signed zero included.
        let bits = Literal::u64_suffixed(self.to_bits());
        quote!(f64::from_bits(#bits))
    }
}
