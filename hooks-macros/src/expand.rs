//! Expansion: a validated config → the generated type and its `static`
//! dispatch table.
//!
//! Every list becomes a named `static` array inside one `const _: () = {...}`
//! block (so names never clash with the caller's), every automaton a
//! serialized DFA embedded with `u32` alignment for both endiannesses, and the
//! table a `static` built with the runtime's `Table::from_static`. All paths
//! go through `<crate>::__private`.

use std::path::Path;

use hooks_schema::automata::{self, OwnedDfa};
use hooks_schema::{
    Action, ArgTest, Config, FailurePolicy, Hook, Mode, OutcomeKind, PayloadMode, Phase, Predicate,
    Program, Protocol, RewriteOp, ToolChoice, ToolChoiceMode, ToolPattern,
};
use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote};
use serde_json::Value;
use syn::Ident;

/// Generates statics; `p` is the `__private` path.
struct Gen {
    p: TokenStream,
    items: Vec<TokenStream>,
    next: usize,
}

impl Gen {
    fn name(&mut self, prefix: &str) -> Ident {
        self.next += 1;
        format_ident!("__{}{}", prefix, self.next)
    }

    /// `List::Static(&NAME)` over a new `static NAME: [ty; n]`.
    fn list(&mut self, ty: TokenStream, elems: Vec<TokenStream>) -> TokenStream {
        let p = self.p.clone();
        if elems.is_empty() {
            return quote!(#p::List::EMPTY);
        }
        let name = self.name("L");
        let n = elems.len();
        self.items.push(quote! {
            static #name: [#ty; #n] = [#(#elems),*];
        });
        quote!(#p::List::Static(&#name))
    }

    fn text(&self, s: &str) -> TokenStream {
        let p = &self.p;
        quote!(#p::Cow::Borrowed(#s))
    }

    fn texts(&mut self, items: &[String]) -> TokenStream {
        let p = self.p.clone();
        let elems = items.iter().map(|s| self.text(s)).collect();
        self.list(quote!(#p::Cow<'static, str>), elems)
    }

    /// A static list of `user`-role context items.
    fn context_items(&mut self, items: &[String]) -> TokenStream {
        let p = self.p.clone();
        let elems = items
            .iter()
            .map(|s| quote!(#p::ContextItem::user_static(#s)))
            .collect();
        self.list(quote!(#p::ContextItem), elems)
    }

    fn dfa(&mut self, dfa: &OwnedDfa) -> TokenStream {
        let p = self.p.clone();
        let bytes = self.name("B");
        let name = self.name("D");
        let (le, le_pad) = dfa.to_bytes_little_endian();
        let (be, be_pad) = dfa.to_bytes_big_endian();
        let (le, be) = (&le[le_pad..], &be[be_pad..]);
        let (le_n, be_n) = (le.len(), be.len());
        let (le, be) = (Literal::byte_string(le), Literal::byte_string(be));
        self.items.push(quote! {
            #[cfg(target_endian = "little")]
            static #bytes: #p::AlignAs<[u8; #le_n], u32> = #p::AlignAs { _align: [], bytes: *#le };
            #[cfg(target_endian = "big")]
            static #bytes: #p::AlignAs<[u8; #be_n], u32> = #p::AlignAs { _align: [], bytes: *#be };
            static #name: #p::StaticDfa = #p::StaticDfa::new(&#bytes.bytes);
        });
        quote!(#p::Dfa::Static(&#name))
    }

    fn pointer(&mut self, pointer: &str) -> Result<TokenStream, String> {
        let tokens = automata::pointer_tokens(pointer)?;
        Ok(self.texts(&tokens))
    }

    fn tool_set(&mut self, patterns: &[ToolPattern]) -> Result<TokenStream, String> {
        if patterns.is_empty() {
            return Ok(quote!(::core::option::Option::None));
        }
        let p = self.p.clone();
        let m = automata::tool_matcher(patterns)?;
        let names = self.texts(&m.names);
        let dfa = match &m.dfa {
            Some(d) => {
                let d = self.dfa(d);
                quote!(::core::option::Option::Some(#d))
            }
            None => quote!(::core::option::Option::None),
        };
        Ok(quote!(::core::option::Option::Some(#p::ToolSet { names: #names, dfa: #dfa })))
    }

    fn json(&mut self, v: &Value) -> TokenStream {
        let p = self.p.clone();
        match v {
            Value::Null => quote!(#p::Json::Null),
            Value::Bool(b) => quote!(#p::Json::Bool(#b)),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    let u = Literal::u64_suffixed(u);
                    quote!(#p::Json::U64(#u))
                } else if let Some(i) = n.as_i64() {
                    let abs = Literal::i128_suffixed(i128::from(i).abs());
                    quote!(#p::Json::I64((-#abs) as i64))
                } else {
                    let bits = Literal::u64_suffixed(n.as_f64().unwrap_or(f64::NAN).to_bits());
                    quote!(#p::Json::F64(f64::from_bits(#bits)))
                }
            }
            Value::String(s) => {
                let t = self.text(s);
                quote!(#p::Json::Str(#t))
            }
            Value::Array(items) => {
                let elems = items.iter().map(|x| self.json(x)).collect();
                let l = self.list(quote!(#p::Json), elems);
                quote!(#p::Json::Array(#l))
            }
            Value::Object(map) => {
                let elems = map
                    .iter()
                    .map(|(k, x)| {
                        let k = self.text(k);
                        let x = self.json(x);
                        quote!((#k, #x))
                    })
                    .collect();
                let l = self.list(quote!((#p::Cow<'static, str>, #p::Json)), elems);
                quote!(#p::Json::Object(#l))
            }
        }
    }

    fn pred(&mut self, pred: &Predicate) -> Result<TokenStream, String> {
        let p = self.p.clone();
        Ok(match pred {
            Predicate::All(items) | Predicate::Any(items) => {
                let elems = items
                    .iter()
                    .map(|x| self.pred(x))
                    .collect::<Result<_, _>>()?;
                let l = self.list(quote!(#p::Pred), elems);
                if matches!(pred, Predicate::All(_)) {
                    quote!(#p::Pred::All(#l))
                } else {
                    quote!(#p::Pred::Any(#l))
                }
            }
            Predicate::Not(inner) => {
                let inner = self.pred(inner)?;
                let l = self.list(quote!(#p::Pred), vec![inner]);
                quote!(#p::Pred::Not(#l))
            }
            Predicate::Outcome(kind) => {
                let k = outcome(*kind);
                quote!(#p::Pred::Outcome(#p::OutcomeKind::#k))
            }
            Predicate::Arg { pointer, test } => {
                let ptr = self.pointer(pointer)?;
                let test = match test {
                    ArgTest::Matches(re) => {
                        let d = self.dfa(&automata::search_dfa(re)?);
                        quote!(#p::Test::Matches(#d))
                    }
                    ArgTest::Glob(g) => {
                        let d = self.dfa(&automata::glob_dfa(g)?);
                        quote!(#p::Test::Glob(#d))
                    }
                    ArgTest::Equals(v) => {
                        let j = self.json(v);
                        quote!(#p::Test::Equals(#j))
                    }
                    ArgTest::Exists(b) => quote!(#p::Test::Exists(#b)),
                };
                quote!(#p::Pred::Arg { pointer: #ptr, test: #test })
            }
        })
    }

    fn opt_text(&self, s: Option<&str>) -> TokenStream {
        match s {
            Some(s) => {
                let t = self.text(s);
                quote!(::core::option::Option::Some(#t))
            }
            None => quote!(::core::option::Option::None),
        }
    }

    fn action(&mut self, config: &Config, hook: &Hook) -> Result<TokenStream, String> {
        let p = self.p.clone();
        Ok(match hook.action() {
            Action::Block(r) => {
                let t = self.text(&r.reason);
                quote!(#p::ActionSpec::Block(#t))
            }
            Action::Terminate(r) => {
                let t = self.text(&r.reason);
                quote!(#p::ActionSpec::Terminate(#t))
            }
            Action::Inject(i) => {
                let items = self.context_items(std::slice::from_ref(&i.content));
                quote!(#p::ActionSpec::Inject(#items))
            }
            Action::Rewrite(ops) => {
                let mut elems = Vec::new();
                for op in ops {
                    elems.push(match op {
                        RewriteOp::Set { pointer, value } => {
                            let ptr = self.pointer(pointer)?;
                            let v = self.json(value);
                            quote!(#p::RewriteStep::Set { pointer: #ptr, value: #v })
                        }
                        RewriteOp::Remove { pointer } => {
                            let ptr = self.pointer(pointer)?;
                            quote!(#p::RewriteStep::Remove { pointer: #ptr })
                        }
                    });
                }
                let l = self.list(quote!(#p::RewriteStep), elems);
                quote!(#p::ActionSpec::Rewrite(#l))
            }
            Action::Patch(patch) => {
                let preamble = self.opt_text(patch.preamble.as_deref());
                let temperature = match patch.temperature {
                    Some(t) => {
                        let bits = Literal::u64_suffixed(t.to_bits());
                        quote!(::core::option::Option::Some(f64::from_bits(#bits)))
                    }
                    None => quote!(::core::option::Option::None),
                };
                let max_tokens = match patch.max_tokens {
                    Some(m) => {
                        let m = Literal::u64_suffixed(m);
                        quote!(::core::option::Option::Some(#m))
                    }
                    None => quote!(::core::option::Option::None),
                };
                let tool_choice = match &patch.tool_choice {
                    None => quote!(::core::option::Option::None),
                    Some(ToolChoice::Mode(ToolChoiceMode::Auto)) => {
                        quote!(::core::option::Option::Some(#p::ToolChoiceSpec::Auto))
                    }
                    Some(ToolChoice::Mode(ToolChoiceMode::None)) => {
                        quote!(::core::option::Option::Some(#p::ToolChoiceSpec::None))
                    }
                    Some(ToolChoice::Mode(ToolChoiceMode::Required)) => {
                        quote!(::core::option::Option::Some(#p::ToolChoiceSpec::Required))
                    }
                    Some(ToolChoice::Tools(t)) => {
                        let l = self.texts(&t.tools);
                        quote!(::core::option::Option::Some(#p::ToolChoiceSpec::Tools(#l)))
                    }
                };
                let keep_last = match patch.history {
                    Some(h) => {
                        let n = h.keep_last;
                        quote!(::core::option::Option::Some(#n))
                    }
                    None => quote!(::core::option::Option::None),
                };
                let active_tools = match &patch.effective_active_tools() {
                    Some(t) => {
                        let l = self.texts(t);
                        quote!(::core::option::Option::Some(#l))
                    }
                    None => quote!(::core::option::Option::None),
                };
                let params = patch
                    .additional_params
                    .iter()
                    .flatten()
                    .map(|(k, v)| {
                        let k = self.text(k);
                        let v = self.json(v);
                        quote!((#k, #v))
                    })
                    .collect();
                let params = self.list(quote!((#p::Cow<'static, str>, #p::Json)), params);
                let extra = self.context_items(&patch.extra_context);
                quote!(#p::ActionSpec::Patch(#p::PatchSpec {
                    preamble: #preamble,
                    temperature: #temperature,
                    max_tokens: #max_tokens,
                    tool_choice: #tool_choice,
                    keep_last: #keep_last,
                    active_tools: #active_tools,
                    additional_params: #params,
                    extra_context: #extra,
                }))
            }
            Action::Run(run) => {
                let program = match &run.program {
                    Program::Shell(c) => {
                        let t = self.text(c);
                        quote!(#p::ProgramSpec::Shell(#t))
                    }
                    Program::Exec(argv) => {
                        let l = self.texts(argv);
                        quote!(#p::ProgramSpec::Exec(#l))
                    }
                };
                let cwd = self.opt_text(run.cwd.as_deref());
                let pass = self.texts(&run.env.pass);
                let set = run
                    .env
                    .set
                    .iter()
                    .map(|(k, v)| {
                        let k = self.text(k);
                        let v = self.text(v);
                        quote!((#k, #v))
                    })
                    .collect();
                let set = self.list(quote!((#p::Cow<'static, str>, #p::Cow<'static, str>)), set);
                let timeout = Literal::u64_suffixed(config.timeout(run).as_millis());
                let payload = match config.payload(run) {
                    PayloadMode::Full => quote!(#p::PayloadMode::Full),
                    PayloadMode::Redacted => quote!(#p::PayloadMode::Redacted),
                };
                let protocol = match run.protocol {
                    Protocol::Native => quote!(#p::Protocol::Native),
                    Protocol::Claude => quote!(#p::Protocol::Claude),
                };
                quote!(#p::ActionSpec::Run(#p::RunSpec {
                    program: #program,
                    cwd: #cwd,
                    pass: #pass,
                    set: #set,
                    timeout_ms: #timeout,
                    payload: #payload,
                    protocol: #protocol,
                }))
            }
        })
    }

    fn rule(&mut self, config: &Config, hook: &Hook) -> Result<TokenStream, String> {
        let p = self.p.clone();
        let id = self.text(&hook.id);
        let phase = phase(hook.phase);
        let enabled = hook.enabled;
        let mode = match hook.mode {
            Mode::Enforce => quote!(#p::Mode::Enforce),
            Mode::Audit => quote!(#p::Mode::Audit),
        };
        let policy = match config.failure_policy(hook) {
            FailurePolicy::Ignore => quote!(#p::FailurePolicy::Ignore),
            FailurePolicy::Warn => quote!(#p::FailurePolicy::Warn),
            FailurePolicy::Block => quote!(#p::FailurePolicy::Block),
            FailurePolicy::Fail => quote!(#p::FailurePolicy::Fail),
        };
        let tui = hook.show_in_tui;
        let none = quote!(::core::option::Option::None);
        let tool_phase = hook.phase.is_tool_phase();
        let include = if tool_phase {
            self.tool_set(&hook.include_tools)?
        } else {
            none.clone()
        };
        let exclude = if tool_phase {
            self.tool_set(&hook.exclude_tools)?
        } else {
            none.clone()
        };
        let when = match &hook.when {
            Some(w) => {
                let w = self.pred(w)?;
                quote!(::core::option::Option::Some(#w))
            }
            None => none,
        };
        let action = self.action(config, hook)?;
        Ok(quote!(#p::Rule {
            id: #id,
            phase: #p::Phase::#phase,
            enabled: #enabled,
            mode: #mode,
            failure_policy: #policy,
            show_in_tui: #tui,
            include: #include,
            exclude: #exclude,
            when: #when,
            action: #action,
        }))
    }
}

fn phase(phase: Phase) -> Ident {
    let camel: String = phase
        .as_str()
        .split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect();
    Ident::new(&camel, Span::call_site())
}

fn outcome(kind: OutcomeKind) -> Ident {
    Ident::new(
        match kind {
            OutcomeKind::Success => "Success",
            OutcomeKind::Timeout => "Timeout",
            OutcomeKind::NotFound => "NotFound",
            OutcomeKind::Denied => "Denied",
            OutcomeKind::Error => "Error",
        },
        Span::call_site(),
    )
}

/// The `static` table of `config` (its items, then the table's path
/// expression `&__TABLE`), or the first hook whose pattern fails to compile.
///
/// `p` is the `__private` path of the runtime, `display` the config's name.
pub(crate) fn table(
    p: &TokenStream,
    config: &Config,
    display: &str,
) -> Result<TokenStream, (String, String)> {
    let mut g = Gen {
        p: p.clone(),
        items: Vec::new(),
        next: 0,
    };
    let mut rules = Vec::with_capacity(config.hooks.len());
    let mut phases: [Vec<u32>; 15] = Default::default();
    for (i, hook) in config.hooks.iter().enumerate() {
        rules.push(g.rule(config, hook).map_err(|e| (hook.id.clone(), e))?);
        if hook.enabled {
            let index = Phase::ALL
                .iter()
                .position(|x| *x == hook.phase)
                .unwrap_or(0);
            phases[index].push(u32::try_from(i).unwrap_or(u32::MAX));
        }
    }
    let n_rules = rules.len();
    let phases = phases.iter().map(|list| {
        let l = list.iter().map(|i| Literal::u32_suffixed(*i));
        quote!(&[#(#l),*])
    });
    let tool_paths: Vec<TokenStream> = config
        .tool_settings
        .iter()
        .map(|(tool, s)| {
            let tool = g.text(tool);
            let ptrs = g.texts(&s.path_pointers);
            let abs = s.allow_absolute_paths;
            let writes = s.writes;
            quote!(#p::ToolPaths { tool: #tool, path_pointers: #ptrs, allow_absolute: #abs, writes: #writes })
        })
        .collect();
    let n_paths = tool_paths.len();
    let l = &config.limits;
    let (a, b, c, d) = (
        l.max_stop_resumes_per_turn,
        Literal::u64_suffixed(l.max_output_bytes),
        Literal::u64_suffixed(l.max_context_bytes),
        Literal::u64_suffixed(l.max_payload_bytes),
    );
    let items = g.items;
    Ok(quote! {
        #(#items)*
        static __RULES: [#p::Rule; #n_rules] = [#(#rules),*];
        static __TOOL_PATHS: [#p::ToolPaths; #n_paths] = [#(#tool_paths),*];
        static __TABLE: #p::Table = #p::Table::from_static(
            #display,
            &__RULES,
            [#(#phases),*],
            &__TOOL_PATHS,
            #p::Limits {
                max_stop_resumes_per_turn: #a,
                max_output_bytes: #b,
                max_context_bytes: #c,
                max_payload_bytes: #d,
            },
        );
    })
}

/// The generated type and its impls around `table_items` (which define
/// `static __TABLE`), plus an `include_bytes!` of `tracked`.
pub(crate) fn wrap(
    p: &TokenStream,
    name: &Ident,
    display: &str,
    table_items: TokenStream,
    tracked: Option<&Path>,
) -> TokenStream {
    let doc = format!(
        "Hooks compiled by `hooks!` from `{display}`: an `AgentHook` over a static dispatch table."
    );
    let include = tracked.map(|path| {
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

                fn fold_event<'a>(
                    &'a self,
                    ctx: &'a #p::HookContext,
                    event: #p::StepEvent<'a>,
                ) -> ::core::option::Option<#p::OutcomeFuture<'a>> {
                    #p::AgentHook::fold_event(&self.dispatcher, ctx, event)
                }

                fn observes(&self, kind: #p::StepEventKind) -> bool {
                    #p::AgentHook::observes(&self.dispatcher, kind)
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
