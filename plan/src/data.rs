//! The dispatch plan's data: usable as `'static` data (what `hooks!`
//! generates) and as owned data (what [`lower`](super::lower) builds), behind
//! the same types.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::OnceLock;

use regex_automata::dfa::dense;
use serde::{Deserialize, Serialize};

use crate::capability::ActionKind;
use crate::lazy::LazySet;
use crate::limits::HttpProtocol;
use crate::patch::RequestPatch;
use crate::phase::{FailurePolicy, Mode, OutcomeKind, PayloadMode, Phase, Protocol};

/// Text of a plan, of flows, patches and context items: borrowed from
/// `'static` data (a table compiled by `hooks!`) or owned (built at run
/// time). Reads as `&str` through `Deref`; `String` and `&'static str` both
/// convert with `.into()`.
pub type Text = Cow<'static, str>;

/// A sequence in a plan: a `'static` slice (`hooks!`) or an owned vector
/// (the lowering). Dereferences to `[T]`; compares and prints as a slice,
/// whichever form it has.
pub enum List<T: 'static> {
    /// Generated static data.
    Static(&'static [T]),
    /// Built at run time.
    Owned(Vec<T>),
}

impl<T> List<T> {
    /// The empty list (no allocation, usable in `const` context).
    pub const EMPTY: List<T> = List::Static(&[]);
}

impl<T: Clone> Clone for List<T> {
    /// A static list stays borrowed; an owned one is copied.
    fn clone(&self) -> Self {
        match self {
            List::Static(s) => List::Static(s),
            List::Owned(v) => List::Owned(v.clone()),
        }
    }
}

impl<T> Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            List::Static(s) => s,
            List::Owned(v) => v,
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for List<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: PartialEq> PartialEq for List<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        List::Owned(iter.into_iter().collect())
    }
}

/// The role of a [`ContextItem`]. Hooks may only add `user`-role context:
/// they can inform the model, never speak as the system or the assistant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A user-role message.
    #[default]
    User,
}

/// A piece of context a hook adds for the model's next turn.
///
/// JSON form (also the native output protocol's `context_items` entries):
/// `{"role": "user", "content": "..."}`; any other role is rejected when
/// deserializing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextItem {
    /// Always [`Role::User`].
    pub role: Role,
    /// The text the model sees.
    pub content: Text,
}

impl ContextItem {
    /// A `user`-role item with `content`.
    pub fn user(content: impl Into<Text>) -> Self {
        ContextItem {
            role: Role::User,
            content: content.into(),
        }
    }

    /// A `user`-role item borrowing `content`, usable in `const` context
    /// (what `hooks!` emits for `inject` and `extra_context`).
    pub const fn user_static(content: &'static str) -> Self {
        ContextItem {
            role: Role::User,
            content: Cow::Borrowed(content),
        }
    }
}

/// A DFA serialized into the binary by `hooks!`, deserialized on first use,
/// with the regexes it was built from.
///
/// `bytes` must be the output of `DFA::to_bytes_little_endian` (or
/// `_big_endian`, matching the target) and start at a 4-byte aligned
/// address (`hooks!` embeds it in a `regex_automata::util::wire::AlignAs`).
/// Deserializing ([`dense::DFA::from_bytes`]) validates the bytes once and
/// never allocates; the result is kept in a [`OnceLock`]. Where the DFA
/// gives up (a Unicode word boundary on non-ASCII input) the `regexes`
/// decide, compiled once on first need ([`crate::automata::fallback`]).
#[derive(Debug)]
pub struct StaticDfa {
    bytes: &'static [u8],
    regexes: &'static [&'static str],
    dfa: OnceLock<dense::DFA<&'static [u32]>>,
    fallback: OnceLock<regex::bytes::RegexSet>,
}

impl StaticDfa {
    /// Wraps serialized, aligned DFA bytes (see the type's docs) and the
    /// regexes they were built from.
    pub const fn new(bytes: &'static [u8], regexes: &'static [&'static str]) -> StaticDfa {
        StaticDfa {
            bytes,
            regexes,
            dfa: OnceLock::new(),
            fallback: OnceLock::new(),
        }
    }

    /// The deserialized DFA.
    ///
    /// # Panics
    ///
    /// When the bytes are not a valid DFA for this target: `hooks!` and the
    /// runtime use the same `regex-automata` version (the workspace pins one),
    /// so this is a build bug, not a config error.
    pub fn get(&self) -> &dense::DFA<&'static [u32]> {
        self.dfa
            .get_or_init(|| match dense::DFA::from_bytes(self.bytes) {
                Ok((dfa, _)) => dfa,
                Err(e) => panic!("`hooks!` embedded a DFA this runtime cannot read: {e}"),
            })
    }
}

/// A DFA built by the lowering ([`crate::automata`]), with the regexes it
/// was built from and, when it [may give up](crate::automata::may_give_up),
/// the fallback matcher that decides instead (checked with the DFA, so a
/// pattern the fallback cannot take is a lowering error, not a run-time
/// one, and built on first need: [`crate::automata::check_fallback`]).
#[derive(Debug, Clone)]
pub struct BuiltDfa {
    /// The automaton.
    pub dfa: dense::DFA<Vec<u32>>,
    /// The regexes, one per pattern of the DFA.
    pub regexes: Vec<String>,
    fallback: OnceLock<regex::bytes::RegexSet>,
}

impl BuiltDfa {
    /// Pairs `dfa` with the `regexes` it was built from, searched as `search`.
    ///
    /// # Errors
    ///
    /// [`PatternError::Fallback`](crate::automata::PatternError::Fallback),
    /// as [`crate::automata::check_fallback`], for a DFA that may give up.
    pub fn new(
        dfa: dense::DFA<Vec<u32>>,
        regexes: Vec<String>,
        search: crate::automata::Search,
    ) -> Result<BuiltDfa, crate::automata::PatternError> {
        if crate::automata::may_give_up(&regexes) {
            crate::automata::check_fallback(&regexes, search)?;
        }
        Ok(BuiltDfa {
            dfa,
            regexes,
            fallback: OnceLock::new(),
        })
    }
}

/// A compiled glob or regex (or a group of them): a dense DFA embedded
/// ([`StaticDfa`]) or built by the lowering ([`BuiltDfa`]), or, where a
/// dense DFA would cost too much to build, a lazily built one ([`LazySet`]).
/// Decides every input: where the automaton gives up, the regex crate does
/// ([`Dfa::is_match`]).
///
/// Two DFAs are equal when their serialized forms (native byte order) and
/// their regexes are: a static table and a loaded table of one config
/// compare equal.
pub enum Dfa {
    /// Embedded by `hooks!`.
    Static(&'static StaticDfa),
    /// Built at run time (or in the macro, before it is serialized).
    Owned(Box<BuiltDfa>),
    /// Patterns too costly to determinize, embedded by `hooks!` and
    /// compiled on first use ([`LazySet`]).
    LazyStatic(&'static LazySet),
    /// Patterns too costly to determinize, compiled by the lowering.
    Lazy(Box<LazySet>),
}

impl Dfa {
    /// The DFA serialized in the target's byte order (what `hooks!` embeds).
    pub fn to_native_bytes(&self) -> Cow<'_, [u8]> {
        match self {
            Dfa::Static(s) => Cow::Borrowed(s.bytes),
            Dfa::Owned(d) => {
                let (bytes, pad) = d.dfa.to_bytes_native_endian();
                Cow::Owned(bytes[pad..].to_vec())
            }
            // No dense automaton: nothing to embed.
            Dfa::LazyStatic(_) | Dfa::Lazy(_) => Cow::Borrowed(&[]),
        }
    }

    /// The lazily built matcher, when the patterns have no dense DFA.
    pub fn lazy(&self) -> Option<&LazySet> {
        match self {
            Dfa::LazyStatic(l) => Some(l),
            Dfa::Lazy(l) => Some(l),
            Dfa::Static(_) | Dfa::Owned(_) => None,
        }
    }

    /// The regexes the DFA was built from, one per pattern.
    pub fn regexes(&self) -> Vec<&str> {
        match self {
            Dfa::Static(s) => s.regexes.to_vec(),
            Dfa::Owned(d) => d.regexes.iter().map(String::as_str).collect(),
            Dfa::LazyStatic(l) => l.regexes().iter().map(|r| &**r).collect(),
            Dfa::Lazy(l) => l.regexes().iter().map(|r| &**r).collect(),
        }
    }

    /// The matcher that decides where the DFA gives up.
    ///
    /// # Panics
    ///
    /// For an embedded DFA whose regexes the regex crate does not compile:
    /// the lowering compiled the same regexes with the same crate when
    /// `hooks!` ran, so this is a build bug, not a config error.
    /// For a [`Dfa::Lazy`] / [`Dfa::LazyStatic`] (it never gives up: callers
    /// ask [`Dfa::lazy`] first), a bug.
    pub(crate) fn fallback(&self, search: crate::automata::Search) -> &regex::bytes::RegexSet {
        match self {
            Dfa::LazyStatic(_) | Dfa::Lazy(_) => {
                unreachable!("a lazy matcher decides every input itself")
            }
            Dfa::Static(s) => s.fallback.get_or_init(|| {
                crate::automata::fallback(s.regexes, search).unwrap_or_else(|e| {
                    panic!("`hooks!` embedded a pattern this runtime cannot compile: {e}")
                })
            }),
            // Checked with the DFA when it may give up (the only DFAs that
            // do, `BuiltDfa::new`), built on first need.
            Dfa::Owned(d) => d.fallback.get_or_init(|| {
                crate::automata::fallback(&d.regexes, search)
                    .unwrap_or_else(|e| panic!("a lowered pattern no longer compiles: {e}"))
            }),
        }
    }
}

impl fmt::Debug for Dfa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.lazy() {
            Some(l) => write!(f, "Dfa({l:?})"),
            None => write!(f, "Dfa({} bytes)", self.to_native_bytes().len()),
        }
    }
}

impl PartialEq for Dfa {
    fn eq(&self, other: &Self) -> bool {
        self.lazy().is_some() == other.lazy().is_some()
            && self.to_native_bytes() == other.to_native_bytes()
            && self.regexes() == other.regexes()
    }
}

/// Tool-name patterns: exact names compared as strings, the rest in one
/// anchored DFA (`hooks_schema::automata::tool_matcher`).
#[derive(Debug, PartialEq)]
pub struct ToolSet {
    /// Exact names.
    pub names: List<Text>,
    /// The other patterns, if any.
    pub dfa: Option<Dfa>,
}

/// A JSON literal of a config (`equals:` values, `rewrite` `set` values,
/// `additional_params`), stored so that `equals` compares without allocating.
///
/// Numbers keep serde_json's three representations, and equality follows
/// `serde_json::Value`'s: `1` (an unsigned integer) is not `1.0` (a float).
/// Serializes as the JSON it stands for.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A non-negative integer.
    U64(u64),
    /// A negative integer.
    I64(i64),
    /// A number with a fraction or exponent.
    F64(f64),
    /// A string.
    Str(Text),
    /// An array.
    Array(List<Json>),
    /// An object, keys in the config's order.
    Object(List<(Text, Json)>),
}

/// A `when` predicate: `all` / `any` / `not` over leaf tests (docs/config.md's
/// *Keys of a hook* lists the leaves and how each one matches).
#[derive(Debug, PartialEq)]
pub enum Pred {
    /// All hold (true when empty).
    All(List<Pred>),
    /// At least one holds (false when empty).
    Any(List<Pred>),
    /// Exactly one predicate, negated.
    Not(List<Pred>),
    /// A test on the value at an RFC 6901 pointer, pre-split into unescaped tokens.
    Arg {
        /// The pointer addresses the tool call's arguments ([`Facts::args`](crate::Facts::args),
        /// `subject: args` on `after_tool`) instead of the phase's subject.
        args: bool,
        /// The reference tokens (`~0`/`~1` already unescaped).
        pointer: List<Text>,
        /// The test.
        test: Test,
    },
    /// The tool's outcome is of this kind (`after_tool`).
    Outcome(OutcomeKind),
    /// A Claude Code permission rule (`Bash(git push *)`) on the tool call.
    Permission(PermissionRule),
}

/// A Claude Code permission rule, compiled: `Tool`, `Tool(specifier)`,
/// `mcp__server__tool` (source: Claude Code's permission documentation;
/// docs/config.md's *Permission rules* gives the semantics).
#[derive(Debug, PartialEq)]
pub struct PermissionRule {
    /// The rule as written, for messages and explanations.
    pub rule: Text,
    /// The tool names the rule applies to, matched whole.
    pub tools: Dfa,
    /// What the specifier tests; `None`: every call of the tools.
    pub specifier: Option<Specifier>,
}

/// What a permission rule's specifier tests, each with an anchored DFA.
#[derive(Debug, PartialEq)]
pub enum Specifier {
    /// `Bash(...)`: some simple command of the `command` argument
    /// ([`sub_commands`](crate::script::sub_commands)).
    Command(Dfa),
    /// `Read(...)`, `Edit(...)`: the path at `file_path`, `notebook_path`
    /// or `path`.
    Path(Dfa),
    /// `WebFetch(domain:...)`: the host of the URL at `url`.
    Domain(Dfa),
    /// Any other tool: the string at this argument (`Agent(x)`:
    /// `subagent_type`, `Skill(x)`: `skill`).
    Field {
        /// The argument's name.
        name: Text,
        /// The pattern.
        dfa: Dfa,
    },
}

/// The test of a [`Pred::Arg`] leaf.
#[derive(Debug, PartialEq)]
pub enum Test {
    /// The value is a string in which the regex finds a match (unanchored).
    Matches(Dfa),
    /// The value is a string matched entirely by the glob.
    Glob(Dfa),
    /// The value equals the literal.
    Equals(Json),
    /// The pointer resolves (`true`) or does not (`false`).
    Exists(bool),
}

/// A `rewrite` step; pointers pre-split.
#[derive(Debug, PartialEq)]
pub enum RewriteStep {
    /// Set the value at the pointer (creating the last key of an object).
    Set {
        /// The reference tokens.
        pointer: List<Text>,
        /// The new value.
        value: Json,
    },
    /// Remove the value at the pointer (nothing happens when absent).
    Remove {
        /// The reference tokens.
        pointer: List<Text>,
    },
}

/// What a `run` action executes.
#[derive(Debug, PartialEq)]
pub enum ProgramSpec {
    /// `command:` (shell form, `sh -c`).
    Shell(Text),
    /// `argv:` (exec form).
    Exec(List<Text>),
}

/// A `run` action, with the config's defaults applied.
#[derive(Debug, PartialEq)]
pub struct RunSpec {
    /// The command.
    pub program: ProgramSpec,
    /// Working directory relative to the workspace root.
    pub cwd: Option<Text>,
    /// `env.pass`.
    pub pass: List<Text>,
    /// `env.set`, in key order.
    pub set: List<(Text, Text)>,
    /// Effective timeout in milliseconds.
    pub timeout_ms: u64,
    /// Effective payload mode.
    pub payload: PayloadMode,
    /// Protocol.
    pub protocol: Protocol,
    /// `Some(pool size)` for a persistent worker (`worker: true`), `None`
    /// for one process per event.
    pub worker: Option<u32>,
}

/// An `http` action, with the config's defaults applied.
#[derive(Debug, PartialEq)]
pub struct HttpSpec {
    /// The URL POSTed to (checked: `http`/`https`, a host).
    pub url: Text,
    /// Header names and value templates (`${NAME}` references), in name order.
    pub headers: List<(Text, Text)>,
    /// The variables header values may reference; their values are secrets.
    pub env: List<Text>,
    /// Effective timeout in milliseconds.
    pub timeout_ms: u64,
    /// Effective payload mode.
    pub payload: PayloadMode,
    /// Protocol.
    pub protocol: HttpProtocol,
    /// Whether redirects are followed.
    pub follow_redirects: bool,
}

/// One Rego file of a `policy` action, as read when the config was checked.
#[derive(Debug, PartialEq)]
pub struct PolicyModule {
    /// The path as written in the config (relative to the workspace root).
    pub path: Text,
    /// The file's text.
    pub source: Text,
}

/// A `policy` action: the Rego files and the query, with the policy's
/// identity.
#[derive(Debug, PartialEq)]
pub struct PolicySpec {
    /// `data.<package>.<rule>`.
    pub query: Text,
    /// The files, in declared order.
    pub modules: List<PolicyModule>,
    /// The policy's identity: `sha256:` and the hex SHA-256 of its files
    /// ([`policy_digest`](crate::policy_digest)).
    pub digest: Text,
    /// Deadline of one evaluation, in milliseconds.
    pub timeout_ms: u64,
}

/// A rule's action.
#[derive(Debug, PartialEq)]
pub enum ActionSpec {
    /// `run`: through the shared shell runtime.
    Run(RunSpec),
    /// `http`: POSTed through the shared shell runtime's HTTP client.
    Http(HttpSpec),
    /// `block: {reason}`: the tool does not run.
    Block(Text),
    /// `patch`: a request patch.
    Patch(RequestPatch),
    /// `rewrite`: the tool's arguments or result.
    Rewrite(List<RewriteStep>),
    /// `inject: {content}`: one `user` item, kept as a list so a flow can
    /// borrow it.
    Inject(List<ContextItem>),
    /// `terminate: {reason}`: end the run.
    Terminate(Text),
    /// `ask: {reason}`: the agent's approver decides.
    Ask(Text),
    /// `allow: {}`: the permission is granted (the reason, if any, for records).
    Allow(Option<Text>),
    /// `policy`: a Rego policy evaluated in process on the payload.
    Policy(PolicySpec),
    /// `select_model: {model}`: the agent switches to this model instead.
    SelectModel(Text),
}

impl ActionSpec {
    /// Whether the action is declarative: its flow follows from the config
    /// alone (everything but `run`, `http` and `policy`, which read the
    /// payload or ask a process or a server).
    pub const fn is_declarative(&self) -> bool {
        !matches!(
            self,
            ActionSpec::Run(_) | ActionSpec::Http(_) | ActionSpec::Policy(_)
        )
    }

    /// The action's config key.
    pub const fn name(&self) -> &'static str {
        self.kind().as_str()
    }

    /// The action's kind.
    pub const fn kind(&self) -> ActionKind {
        match self {
            ActionSpec::Run(_) => ActionKind::Run,
            ActionSpec::Http(_) => ActionKind::Http,
            ActionSpec::Block(_) => ActionKind::Block,
            ActionSpec::Patch(_) => ActionKind::Patch,
            ActionSpec::Rewrite(_) => ActionKind::Rewrite,
            ActionSpec::Inject(_) => ActionKind::Inject,
            ActionSpec::Terminate(_) => ActionKind::Terminate,
            ActionSpec::Ask(_) => ActionKind::Ask,
            ActionSpec::Allow(_) => ActionKind::Allow,
            ActionSpec::Policy(_) => ActionKind::Policy,
            ActionSpec::SelectModel(_) => ActionKind::SelectModel,
        }
    }
}

/// One compiled hook (rule) of a config.
#[derive(Debug, PartialEq)]
pub struct Rule {
    /// The hook's id.
    pub id: Text,
    /// Its phase.
    pub phase: Phase,
    /// Whether it is dispatched (a disabled rule stays in the plan).
    pub enabled: bool,
    /// `enforce` or `audit`.
    pub mode: Mode,
    /// Effective failure policy (hook, else defaults, else the phase's).
    pub failure_policy: FailurePolicy,
    /// Whether activity events are emitted (`run` actions).
    pub show_in_tui: bool,
    /// `parallel`: on a mutating phase, this rule and the matching rules
    /// next to it that are `parallel` too start at once and fold in
    /// declared order (docs/config.md's *Parallel hooks*); its answers must not
    /// chain ([`FlowKind::chains`](crate::FlowKind::chains)). No effect on
    /// an observe-only phase, whose rules always run concurrently.
    pub parallel: bool,
    /// `async`: a background hook. The agent does not wait for it: a
    /// `run`, `http` or `policy` rule whose context is delivered with a
    /// later event of the run that takes context, cancelled when the run
    /// ends (docs/config.md's *Background hooks*). Never in a parallel group.
    pub background: bool,
    /// `include_tools`; `None` = every tool.
    pub include: Option<ToolSet>,
    /// `exclude_tools`; wins over `include`.
    pub exclude: Option<ToolSet>,
    /// `when`.
    pub when: Option<Pred>,
    /// `scope`: the subagent or skill the rule is limited to (it matches
    /// only while that scope is active in the session); `None`: always.
    pub scope: Option<Scope>,
    /// `once`: the rule runs at most once per session.
    pub once: bool,
    /// The action.
    pub action: ActionSpec,
}

/// What a scoped rule is limited to (`scope: {subagent: NAME}` or
/// `scope: {skill: NAME}`): it matches only while a subagent of that type
/// runs (from its `subagent_start` to its `subagent_stop`, both included)
/// or while that skill is active (from the `after_tool` of the `Skill`
/// tool call that loaded it to the next user prompt or the end of the
/// run). docs/config.md's *Scoped and one-shot hooks* states the lifetimes.
#[derive(Debug, PartialEq)]
pub struct Scope {
    /// A subagent or a skill.
    pub kind: ScopeKind,
    /// The subagent's type (Claude Code's `agent_type`) or the skill's
    /// name (the `skill` argument of the `Skill` tool), compared exactly.
    pub name: Text,
}

/// The kind of a [`Scope`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeKind {
    /// A subagent, by type.
    Subagent,
    /// A skill, by name.
    Skill,
}

/// A `tool_settings` entry: how one tool's arguments relate to files.
#[derive(Debug, PartialEq)]
pub struct ToolPaths {
    /// The exact tool name.
    pub tool: Text,
    /// Pointers to path arguments.
    pub path_pointers: List<Text>,
    /// `allow_absolute_paths`.
    pub allow_absolute: bool,
    /// `writes`.
    pub writes: bool,
}
