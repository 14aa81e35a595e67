//! The dispatch table's data: usable as `'static` data (what `hooks!`
//! generates) and as owned data (what the loader builds), behind the same
//! types and the same matching code.

use std::borrow::Cow;
use std::ops::Deref;
use std::sync::OnceLock;

use hooks_schema::{FailurePolicy, Mode, OutcomeKind, PayloadMode, Phase, Protocol};
use regex_automata::dfa::dense;

use crate::flow::ContextItem;
use crate::hook::HookId;

/// Text of a table: borrowed from the binary (`hooks!`) or owned (loader);
/// the same type flows carry, so a static table's text moves into a
/// [`Flow`](crate::Flow) without copying.
pub use crate::flow::Text;

/// A sequence in a table: a `'static` slice (`hooks!`) or an owned vector
/// (loader). Dereferences to `[T]`.
#[derive(Debug)]
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

impl<T: Clone> List<T> {
    /// The list as a `Cow`: borrowed when static (no allocation), an owned
    /// copy when built at run time.
    pub fn to_cow(&self) -> Cow<'static, [T]> {
        match self {
            List::Static(s) => Cow::Borrowed(s),
            List::Owned(v) => Cow::Owned(v.clone()),
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

/// A DFA serialized into the binary by `hooks!`, deserialized on first use.
///
/// `bytes` must be the output of `DFA::to_bytes_little_endian` (or
/// `_big_endian`, matching the target) and start at a 4-byte aligned
/// address (`hooks!` embeds it in a `regex_automata::util::wire::AlignAs`).
/// Deserializing ([`dense::DFA::from_bytes`]) validates the bytes once and
/// never allocates; the result is kept in a [`OnceLock`].
#[derive(Debug)]
pub struct StaticDfa {
    bytes: &'static [u8],
    dfa: OnceLock<dense::DFA<&'static [u32]>>,
}

impl StaticDfa {
    /// Wraps serialized, aligned DFA bytes (see the type's docs).
    pub const fn new(bytes: &'static [u8]) -> StaticDfa {
        StaticDfa {
            bytes,
            dfa: OnceLock::new(),
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

/// A compiled glob or regex: embedded ([`StaticDfa`]) or built at run time.
#[derive(Debug)]
pub enum Dfa {
    /// Embedded by `hooks!`.
    Static(&'static StaticDfa),
    /// Built by the loader with [`hooks_schema::automata`].
    Owned(Box<dense::DFA<Vec<u32>>>),
}

/// Tool-name patterns: exact names compared as strings, the rest in one
/// anchored DFA ([`hooks_schema::automata::tool_matcher`]).
#[derive(Debug)]
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
#[derive(Debug)]
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

/// A `when` predicate (DESIGN.md section 3).
#[derive(Debug)]
pub enum Pred {
    /// All hold (true when empty).
    All(List<Pred>),
    /// At least one holds (false when empty).
    Any(List<Pred>),
    /// Exactly one predicate, negated.
    Not(List<Pred>),
    /// A test on the value at an RFC 6901 pointer, pre-split into unescaped tokens.
    Arg {
        /// The reference tokens (`~0`/`~1` already unescaped).
        pointer: List<Text>,
        /// The test.
        test: Test,
    },
    /// The tool's outcome is of this kind (`after_tool`).
    Outcome(OutcomeKind),
}

/// The test of a [`Pred::Arg`] leaf.
#[derive(Debug)]
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
#[derive(Debug)]
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

/// `tool_choice` of a `patch`.
#[derive(Debug)]
pub enum ToolChoiceSpec {
    /// `auto`.
    Auto,
    /// `none`.
    None,
    /// `required`.
    Required,
    /// `{tools: [...]}`: one of these tools. One tool becomes
    /// `ToolChoice::Tool`; several become `required`, and the table's
    /// [`PatchSpec::active_tools`] is already narrowed to them
    /// (`hooks_schema::RequestPatch::effective_active_tools`).
    Tools(List<Text>),
}

/// A `patch` action (the config's `RequestPatch`).
#[derive(Debug)]
pub struct PatchSpec {
    /// `preamble`.
    pub preamble: Option<Text>,
    /// `temperature`.
    pub temperature: Option<f64>,
    /// `max_tokens`.
    pub max_tokens: Option<u64>,
    /// `tool_choice`.
    pub tool_choice: Option<ToolChoiceSpec>,
    /// `history.keep_last`: keep the last N messages of the request's history.
    pub keep_last: Option<u32>,
    /// `active_tools`, narrowed by a several-tool `tool_choice` when the
    /// table was built.
    pub active_tools: Option<List<Text>>,
    /// `additional_params`.
    pub additional_params: List<(Text, Json)>,
    /// `extra_context`: `user`-role context items.
    pub extra_context: List<ContextItem>,
}

/// What a `run` action executes.
#[derive(Debug)]
pub enum ProgramSpec {
    /// `command:` (shell form, `sh -c`).
    Shell(Text),
    /// `argv:` (exec form).
    Exec(List<Text>),
}

/// A `run` action, with the config's defaults applied.
#[derive(Debug)]
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
}

/// A rule's action.
#[derive(Debug)]
pub enum ActionSpec {
    /// `run`: through the shared shell runtime.
    Run(RunSpec),
    /// `block: {reason}` → `Flow::Skip`.
    Block(Text),
    /// `patch` → `Flow::PatchRequest`.
    Patch(PatchSpec),
    /// `rewrite` → `Flow::RewriteArgs` / `Flow::RewriteResult`.
    Rewrite(List<RewriteStep>),
    /// `inject: {content}` → `Flow::InjectContext` (one `user` item, kept
    /// as a list so the flow can borrow it).
    Inject(List<ContextItem>),
    /// `terminate: {reason}` → `Flow::Terminate`.
    Terminate(Text),
}

impl ActionSpec {
    /// The action's config key.
    pub const fn name(&self) -> &'static str {
        match self {
            ActionSpec::Run(_) => "run",
            ActionSpec::Block(_) => "block",
            ActionSpec::Patch(_) => "patch",
            ActionSpec::Rewrite(_) => "rewrite",
            ActionSpec::Inject(_) => "inject",
            ActionSpec::Terminate(_) => "terminate",
        }
    }
}

/// One compiled hook (rule) of a config.
#[derive(Debug)]
pub struct Rule {
    /// The hook's id.
    pub id: Text,
    /// Its phase.
    pub phase: Phase,
    /// Whether it is dispatched (a disabled rule stays in the table).
    pub enabled: bool,
    /// `enforce` or `audit`.
    pub mode: Mode,
    /// Effective failure policy (hook, else defaults, else the phase's).
    pub failure_policy: FailurePolicy,
    /// Whether activity events are emitted (`run` actions).
    pub show_in_tui: bool,
    /// `include_tools`; `None` = every tool.
    pub include: Option<ToolSet>,
    /// `exclude_tools`; wins over `include`.
    pub exclude: Option<ToolSet>,
    /// `when`.
    pub when: Option<Pred>,
    /// The action.
    pub action: ActionSpec,
}

/// A `tool_settings` entry: how one tool's arguments relate to files.
#[derive(Debug)]
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

/// A compiled hook config: rules in declared order, and per phase the indices
/// of its enabled rules, so that "no hook for this phase" is one check.
///
/// Build one with `hooks!` (static) or [`Table::load`] /
/// [`Table::from_config`] (run time); both decide identically. See the
/// [module docs](crate::dispatch) for how events are dispatched.
#[derive(Debug)]
pub struct Table {
    pub(crate) source: Text,
    pub(crate) rules: List<Rule>,
    pub(crate) phases: [List<u32>; 15],
    pub(crate) tool_paths: List<ToolPaths>,
    pub(crate) limits: hooks_schema::Limits,
    pub(crate) ids: OnceLock<Box<[HookId]>>,
}

impl Table {
    /// A table from generated static data (what `hooks!` emits).
    ///
    /// `phases[p]` lists, for the phase at index `p` of
    /// [`Phase::ALL`], the indices into `rules` of its *enabled* rules in
    /// declared order.
    pub const fn from_static(
        source: &'static str,
        rules: &'static [Rule],
        phases: [&'static [u32]; 15],
        tool_paths: &'static [ToolPaths],
        limits: hooks_schema::Limits,
    ) -> Table {
        let [
            p0,
            p1,
            p2,
            p3,
            p4,
            p5,
            p6,
            p7,
            p8,
            p9,
            p10,
            p11,
            p12,
            p13,
            p14,
        ] = phases;
        Table {
            source: Cow::Borrowed(source),
            rules: List::Static(rules),
            phases: [
                List::Static(p0),
                List::Static(p1),
                List::Static(p2),
                List::Static(p3),
                List::Static(p4),
                List::Static(p5),
                List::Static(p6),
                List::Static(p7),
                List::Static(p8),
                List::Static(p9),
                List::Static(p10),
                List::Static(p11),
                List::Static(p12),
                List::Static(p13),
                List::Static(p14),
            ],
            tool_paths: List::Static(tool_paths),
            limits,
            ids: OnceLock::new(),
        }
    }

    /// An empty table (what `hooks!` emits beside a compile error).
    pub const fn empty(source: &'static str) -> Table {
        Table::from_static(source, &[], [&[]; 15], &[], DEFAULT_LIMITS)
    }

    /// The config's file name (or `<inline>`), as given to the loader.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Every rule, enabled or not, in declared order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The indices of the enabled rules of `phase`, in declared order.
    pub fn rules_for(&self, phase: Phase) -> &[u32] {
        &self.phases[phase_index(phase)]
    }

    /// Whether some enabled rule has this phase.
    pub fn has_rules_for(&self, phase: Phase) -> bool {
        !self.phases[phase_index(phase)].is_empty()
    }

    /// The config's `limits`.
    pub fn limits(&self) -> &hooks_schema::Limits {
        &self.limits
    }

    /// The `tool_settings` of `tool`, if the config has some.
    pub fn tool_paths(&self, tool: &str) -> Option<&ToolPaths> {
        self.tool_paths.iter().find(|t| t.tool == tool)
    }

    /// Hook ids for provenance, built once (one allocation per rule, on the
    /// first event that a rule answers).
    pub(crate) fn hook_ids(&self) -> &[HookId] {
        self.ids
            .get_or_init(|| self.rules.iter().map(|r| HookId::new(&*r.id)).collect())
    }
}

/// The config language's default `limits` (what an empty table carries).
pub const DEFAULT_LIMITS: hooks_schema::Limits = hooks_schema::Limits::DEFAULT;

/// Index of `phase` in [`Phase::ALL`] (and in a table's per-phase lists).
pub const fn phase_index(phase: Phase) -> usize {
    match phase {
        Phase::RunStart => 0,
        Phase::UserPrompt => 1,
        Phase::BeforeCompletion => 2,
        Phase::AfterCompletion => 3,
        Phase::TextDelta => 4,
        Phase::ToolCallDelta => 5,
        Phase::StreamFinish => 6,
        Phase::AfterReasoning => 7,
        Phase::AfterAssistant => 8,
        Phase::BeforeTool => 9,
        Phase::AfterTool => 10,
        Phase::InvalidToolCall => 11,
        Phase::Stop => 12,
        Phase::RunEnd => 13,
        Phase::RunError => 14,
    }
}
