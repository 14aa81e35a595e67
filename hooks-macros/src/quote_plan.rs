//! Quoting a [`Plan`] as `static` data: the lowering's own value, written
//! out as the runtime's own types (the way `sqlx-macros-core` quotes the
//! `Migration`s `sqlx_core` resolved).
//!
//! Every struct is destructured exhaustively, so a field added to the plan
//! does not compile here until it is quoted. Every list becomes a named
//! `static` array, every automaton a serialized DFA embedded with `u32`
//! alignment for both byte orders. All paths go through `<crate>::__private`.

use hooks_schema::plan::{
    ActionSpec, Bits, ContextItem, Dfa, Gate, HttpSpec, Json, List, PatchSpec, PatternGroup,
    PhaseIndex, Plan, PolicyModule, PolicySpec, Pred, ProgramSpec, RewriteStep, Role, Rule,
    RunSpec, Test, Text, ToolChoiceSpec, ToolPaths, ToolSchema, ToolSet,
};
use hooks_schema::{
    FailurePolicy, HttpProtocol, Limits, Mode, OutcomeKind, PayloadMode, Phase, Protocol,
};
use std::collections::HashMap;

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

impl<T: Quote> Quote for List<T> {
    fn ty(p: &TokenStream) -> TokenStream {
        let t = T::ty(p);
        quote!(#p::List<#t>)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        if self.is_empty() {
            return quote!(#p::List::EMPTY);
        }
        let elems: Vec<TokenStream> = self.iter().map(|e| e.quote(g)).collect();
        let name = g.name("L");
        let n = elems.len();
        let ty = T::ty(&p);
        g.items.push(quote! {
            static #name: [#ty; #n] = [#(#elems),*];
        });
        quote!(#p::List::Static(&#name))
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

impl Quote for bool {
    fn ty(_: &TokenStream) -> TokenStream {
        quote!(bool)
    }
    fn quote(&self, _: &mut Gen) -> TokenStream {
        quote!(#self)
    }
}

impl Quote for u32 {
    fn ty(_: &TokenStream) -> TokenStream {
        quote!(u32)
    }
    fn quote(&self, _: &mut Gen) -> TokenStream {
        let n = Literal::u32_suffixed(*self);
        quote!(#n)
    }
}

impl Quote for u64 {
    fn ty(_: &TokenStream) -> TokenStream {
        quote!(u64)
    }
    fn quote(&self, _: &mut Gen) -> TokenStream {
        let n = Literal::u64_suffixed(*self);
        quote!(#n)
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

/// Quotes a field-less enum value as `#p::Type::Variant`, with the variant
/// named from the value's serde (snake_case) name.
fn unit_variant(p: &TokenStream, ty: &str, snake: &str) -> TokenStream {
    let ty = Ident::new(ty, Span::call_site());
    let variant = Ident::new(&camel(snake), Span::call_site());
    quote!(#p::#ty::#variant)
}

fn camel(snake: &str) -> String {
    snake
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The serde name of a unit variant (`"before_tool"`).
fn serde_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        _ => String::new(),
    }
}

macro_rules! quote_unit_enum {
    ($($ty:ident),*) => {$(
        impl Quote for $ty {
            fn ty(p: &TokenStream) -> TokenStream {
                quote!(#p::$ty)
            }
            fn quote(&self, g: &mut Gen) -> TokenStream {
                unit_variant(&g.p, stringify!($ty), &serde_name(self))
            }
        }
    )*};
}

quote_unit_enum!(
    Phase,
    Mode,
    FailurePolicy,
    PayloadMode,
    Protocol,
    HttpProtocol,
    OutcomeKind,
    Role
);

impl Quote for Dfa {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Dfa)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
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

impl Quote for ToolSet {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::ToolSet)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let ToolSet { names, dfa } = self;
        let (names, dfa) = (names.quote(g), dfa.quote(g));
        quote!(#p::ToolSet { names: #names, dfa: #dfa })
    }
}

impl Quote for Json {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Json)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match self {
            Json::Null => quote!(#p::Json::Null),
            Json::Bool(b) => quote!(#p::Json::Bool(#b)),
            Json::U64(u) => {
                let u = u.quote(g);
                quote!(#p::Json::U64(#u))
            }
            Json::I64(i) => {
                let abs = Literal::i128_suffixed(i128::from(*i).abs());
                quote!(#p::Json::I64((-#abs) as i64))
            }
            Json::F64(f) => {
                let f = f.quote(g);
                quote!(#p::Json::F64(#f))
            }
            Json::Str(s) => {
                let s = s.quote(g);
                quote!(#p::Json::Str(#s))
            }
            Json::Array(items) => {
                let l = items.quote(g);
                quote!(#p::Json::Array(#l))
            }
            Json::Object(entries) => {
                let l = entries.quote(g);
                quote!(#p::Json::Object(#l))
            }
        }
    }
}

impl Quote for Pred {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Pred)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match self {
            Pred::All(items) => {
                let l = items.quote(g);
                quote!(#p::Pred::All(#l))
            }
            Pred::Any(items) => {
                let l = items.quote(g);
                quote!(#p::Pred::Any(#l))
            }
            Pred::Not(items) => {
                let l = items.quote(g);
                quote!(#p::Pred::Not(#l))
            }
            Pred::Arg { pointer, test } => {
                let (pointer, test) = (pointer.quote(g), test.quote(g));
                quote!(#p::Pred::Arg { pointer: #pointer, test: #test })
            }
            Pred::Outcome(kind) => {
                let k = kind.quote(g);
                quote!(#p::Pred::Outcome(#k))
            }
        }
    }
}

impl Quote for Test {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Test)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match self {
            Test::Matches(d) => {
                let d = d.quote(g);
                quote!(#p::Test::Matches(#d))
            }
            Test::Glob(d) => {
                let d = d.quote(g);
                quote!(#p::Test::Glob(#d))
            }
            Test::Equals(v) => {
                let v = v.quote(g);
                quote!(#p::Test::Equals(#v))
            }
            Test::Exists(b) => quote!(#p::Test::Exists(#b)),
        }
    }
}

impl Quote for RewriteStep {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::RewriteStep)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match self {
            RewriteStep::Set { pointer, value } => {
                let (pointer, value) = (pointer.quote(g), value.quote(g));
                quote!(#p::RewriteStep::Set { pointer: #pointer, value: #value })
            }
            RewriteStep::Remove { pointer } => {
                let pointer = pointer.quote(g);
                quote!(#p::RewriteStep::Remove { pointer: #pointer })
            }
        }
    }
}

impl Quote for ToolChoiceSpec {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::ToolChoiceSpec)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match self {
            ToolChoiceSpec::Auto => quote!(#p::ToolChoiceSpec::Auto),
            ToolChoiceSpec::None => quote!(#p::ToolChoiceSpec::None),
            ToolChoiceSpec::Required => quote!(#p::ToolChoiceSpec::Required),
            ToolChoiceSpec::Tools(tools) => {
                let l = tools.quote(g);
                quote!(#p::ToolChoiceSpec::Tools(#l))
            }
        }
    }
}

impl Quote for ContextItem {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::ContextItem)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let ContextItem { role, content } = self;
        let (role, content) = (role.quote(g), content.quote(g));
        quote!(#p::ContextItem { role: #role, content: #content })
    }
}

impl Quote for PatchSpec {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::PatchSpec)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let PatchSpec {
            preamble,
            temperature,
            max_tokens,
            tool_choice,
            keep_last,
            active_tools,
            additional_params,
            extra_context,
        } = self;
        let preamble = preamble.quote(g);
        let temperature = temperature.quote(g);
        let max_tokens = max_tokens.quote(g);
        let tool_choice = tool_choice.quote(g);
        let keep_last = keep_last.quote(g);
        let active_tools = active_tools.quote(g);
        let additional_params = additional_params.quote(g);
        let extra_context = extra_context.quote(g);
        quote!(#p::PatchSpec {
            preamble: #preamble,
            temperature: #temperature,
            max_tokens: #max_tokens,
            tool_choice: #tool_choice,
            keep_last: #keep_last,
            active_tools: #active_tools,
            additional_params: #additional_params,
            extra_context: #extra_context,
        })
    }
}

impl Quote for ProgramSpec {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::ProgramSpec)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match self {
            ProgramSpec::Shell(c) => {
                let c = c.quote(g);
                quote!(#p::ProgramSpec::Shell(#c))
            }
            ProgramSpec::Exec(argv) => {
                let l = argv.quote(g);
                quote!(#p::ProgramSpec::Exec(#l))
            }
        }
    }
}

impl Quote for RunSpec {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::RunSpec)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let RunSpec {
            program,
            cwd,
            pass,
            set,
            timeout_ms,
            payload,
            protocol,
            worker,
        } = self;
        let program = program.quote(g);
        let cwd = cwd.quote(g);
        let pass = pass.quote(g);
        let set = set.quote(g);
        let timeout_ms = timeout_ms.quote(g);
        let payload = payload.quote(g);
        let protocol = protocol.quote(g);
        let worker = worker.quote(g);
        quote!(#p::RunSpec {
            program: #program,
            cwd: #cwd,
            pass: #pass,
            set: #set,
            timeout_ms: #timeout_ms,
            payload: #payload,
            protocol: #protocol,
            worker: #worker,
        })
    }
}

impl Quote for HttpSpec {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::HttpSpec)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let HttpSpec {
            url,
            headers,
            env,
            timeout_ms,
            payload,
            protocol,
            follow_redirects,
        } = self;
        let url = url.quote(g);
        let headers = headers.quote(g);
        let env = env.quote(g);
        let timeout_ms = timeout_ms.quote(g);
        let payload = payload.quote(g);
        let protocol = protocol.quote(g);
        let follow_redirects = follow_redirects.quote(g);
        quote!(#p::HttpSpec {
            url: #url,
            headers: #headers,
            env: #env,
            timeout_ms: #timeout_ms,
            payload: #payload,
            protocol: #protocol,
            follow_redirects: #follow_redirects,
        })
    }
}

impl Quote for PolicyModule {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::PolicyModule)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let PolicyModule { path, source } = self;
        let path = path.quote(g);
        let source = source.quote(g);
        quote!(#p::PolicyModule {
            path: #path,
            source: #source,
        })
    }
}

impl Quote for PolicySpec {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::PolicySpec)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let PolicySpec {
            query,
            modules,
            digest,
        } = self;
        let query = query.quote(g);
        let modules = modules.quote(g);
        let digest = digest.quote(g);
        quote!(#p::PolicySpec {
            query: #query,
            modules: #modules,
            digest: #digest,
        })
    }
}

impl Quote for ActionSpec {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::ActionSpec)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        match self {
            ActionSpec::Run(run) => {
                let r = run.quote(g);
                quote!(#p::ActionSpec::Run(#r))
            }
            ActionSpec::Http(http) => {
                let h = http.quote(g);
                quote!(#p::ActionSpec::Http(#h))
            }
            ActionSpec::Block(reason) => {
                let r = reason.quote(g);
                quote!(#p::ActionSpec::Block(#r))
            }
            ActionSpec::Patch(patch) => {
                let x = patch.quote(g);
                quote!(#p::ActionSpec::Patch(#x))
            }
            ActionSpec::Rewrite(steps) => {
                let l = steps.quote(g);
                quote!(#p::ActionSpec::Rewrite(#l))
            }
            ActionSpec::Inject(items) => {
                let l = items.quote(g);
                quote!(#p::ActionSpec::Inject(#l))
            }
            ActionSpec::Terminate(reason) => {
                let r = reason.quote(g);
                quote!(#p::ActionSpec::Terminate(#r))
            }
            ActionSpec::Ask(reason) => {
                let r = reason.quote(g);
                quote!(#p::ActionSpec::Ask(#r))
            }
            ActionSpec::Allow(reason) => {
                let r = reason.quote(g);
                quote!(#p::ActionSpec::Allow(#r))
            }
            ActionSpec::Policy(policy) => {
                let x = policy.quote(g);
                quote!(#p::ActionSpec::Policy(#x))
            }
        }
    }
}

impl Quote for Rule {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Rule)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let Rule {
            id,
            phase,
            enabled,
            mode,
            failure_policy,
            show_in_tui,
            include,
            exclude,
            when,
            action,
        } = self;
        let id = id.quote(g);
        let phase = phase.quote(g);
        let enabled = enabled.quote(g);
        let mode = mode.quote(g);
        let failure_policy = failure_policy.quote(g);
        let show_in_tui = show_in_tui.quote(g);
        let include = include.quote(g);
        let exclude = exclude.quote(g);
        let when = when.quote(g);
        let action = action.quote(g);
        quote!(#p::Rule {
            id: #id,
            phase: #phase,
            enabled: #enabled,
            mode: #mode,
            failure_policy: #failure_policy,
            show_in_tui: #show_in_tui,
            include: #include,
            exclude: #exclude,
            when: #when,
            action: #action,
        })
    }
}

impl Quote for ToolPaths {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::ToolPaths)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let ToolPaths {
            tool,
            path_pointers,
            allow_absolute,
            writes,
        } = self;
        let tool = tool.quote(g);
        let path_pointers = path_pointers.quote(g);
        let allow_absolute = allow_absolute.quote(g);
        let writes = writes.quote(g);
        quote!(#p::ToolPaths {
            tool: #tool,
            path_pointers: #path_pointers,
            allow_absolute: #allow_absolute,
            writes: #writes,
        })
    }
}

impl Quote for ToolSchema {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::ToolSchema)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let ToolSchema {
            tool,
            input,
            result,
        } = self;
        let tool = tool.quote(g);
        let input = input.quote(g);
        let result = result.quote(g);
        quote!(#p::ToolSchema {
            tool: #tool,
            input: #input,
            result: #result,
        })
    }
}

impl Quote for Limits {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Limits)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let Limits {
            max_stop_resumes_per_turn,
            max_output_bytes,
            max_context_bytes,
            max_payload_bytes,
        } = self;
        let a = max_stop_resumes_per_turn.quote(g);
        let b = max_output_bytes.quote(g);
        let c = max_context_bytes.quote(g);
        let d = max_payload_bytes.quote(g);
        quote!(#p::Limits {
            max_stop_resumes_per_turn: #a,
            max_output_bytes: #b,
            max_context_bytes: #c,
            max_payload_bytes: #d,
        })
    }
}

impl Quote for Bits {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Bits)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let Bits { offset, words } = self;
        let (offset, words) = (offset.quote(g), words.quote(g));
        quote!(#p::Bits { offset: #offset, words: #words })
    }
}

impl Quote for PatternGroup {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::PatternGroup)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let PatternGroup {
            dfa,
            anchored,
            positions,
        } = self;
        let (dfa, anchored, positions) = (dfa.quote(g), anchored.quote(g), positions.quote(g));
        quote!(#p::PatternGroup { dfa: #dfa, anchored: #anchored, positions: #positions })
    }
}

impl Quote for Gate {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Gate)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let Gate { pointer, groups } = self;
        let (pointer, groups) = (pointer.quote(g), groups.quote(g));
        quote!(#p::Gate { pointer: #pointer, groups: #groups })
    }
}

impl Quote for PhaseIndex {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::PhaseIndex)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let PhaseIndex {
            any_tool,
            tools,
            tool_patterns,
            ungated,
            gates,
        } = self;
        let any_tool = any_tool.quote(g);
        let tools = tools.quote(g);
        let tool_patterns = tool_patterns.quote(g);
        let ungated = ungated.quote(g);
        let gates = gates.quote(g);
        quote!(#p::PhaseIndex {
            any_tool: #any_tool,
            tools: #tools,
            tool_patterns: #tool_patterns,
            ungated: #ungated,
            gates: #gates,
        })
    }
}

impl Quote for Plan {
    fn ty(p: &TokenStream) -> TokenStream {
        quote!(#p::Plan)
    }
    fn quote(&self, g: &mut Gen) -> TokenStream {
        let p = g.p.clone();
        let Plan {
            source,
            rules,
            phases,
            index,
            tool_paths,
            tool_schemas,
            limits,
        } = self;
        let source = source.quote(g);
        let rules = rules.quote(g);
        let phases: Vec<TokenStream> = phases.iter().map(|l| l.quote(g)).collect();
        let index: Vec<TokenStream> = index.iter().map(|i| i.quote(g)).collect();
        let tool_paths = tool_paths.quote(g);
        let tool_schemas = tool_schemas.quote(g);
        let limits = limits.quote(g);
        quote!(#p::Plan {
            source: #source,
            rules: #rules,
            phases: [#(#phases),*],
            index: [#(#index),*],
            tool_paths: #tool_paths,
            tool_schemas: #tool_schemas,
            limits: #limits,
        })
    }
}
