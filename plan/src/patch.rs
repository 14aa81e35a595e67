//! `RequestPatch`: changes `before_completion` hooks make to a completion
//! request, and the field-by-field merge rules when several hooks patch one
//! request (the table on [`RequestPatch`]).

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::data::{ContextItem, Json, Text};

/// Keys under which a completion request carries its message history,
/// tried in this order by `patch: {history: {keep_last: N}}`.
pub const HISTORY_KEYS: [&str; 3] = ["messages", "chat_history", "history"];

/// Changes to a completion request, asked for by a `before_completion` hook
/// with the runtime's `Flow::PatchRequest` (`hooks-runtime`).
///
/// Every field is optional (or empty) and means "leave as is" when unset.
/// Several hooks' patches merge in declared order:
///
/// | field | merge rule |
/// | --- | --- |
/// | `model`, `preamble`, `temperature`, `max_tokens`, `tool_choice`, `history` | last writer wins; a diagnostic (the runtime's `Diagnostic::Conflict`) when two hooks set it differently |
/// | `active_tools` | set intersection (narrowing composes as narrowing); a diagnostic (`Diagnostic::EmptyActiveTools`) when it becomes empty |
/// | `additional_params` | shallow JSON object merge, later keys win |
/// | `extra_context` | appended in order |
///
/// After the merge, a `tool_choice` naming a tool that `active_tools`
/// removed fails closed (`Diagnostic::ToolChoiceRemoved`), and an empty
/// merged patch counts as `Continue`.
///
/// JSON form: an object with the fields below, unset ones omitted; unknown
/// keys are rejected.
///
/// # Allocation
///
/// Texts and lists are `Cow<'static, _>` and `additional_params` is a
/// [`Params`] list of [`Json`] values: a table compiled by `hooks!` holds
/// its `patch` rules' patches as `'static` data of this very type, so
/// returning one clones borrowed slices and allocates nothing;
/// `history: {keep_last: N}` travels as [`History::KeepLast`] (applied by
/// the agent to its own messages). Merging a second hook's `active_tools`
/// that removes a tool, a second hook's `extra_context` or a second hook's
/// `additional_params` allocates the merged list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestPatch {
    /// The model the request goes to, replacing the request's (the
    /// provider's model name, or the label the agent registered it under:
    /// rig's `ModelRef`). The agent applies it as it selects models: a
    /// provider JSON request gets it as its `model`
    /// ([`RequestPatch::apply_model`]); the rig adapter selects it in
    /// `on_model_select`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<Text>,
    /// The system preamble, replacing the request's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preamble: Option<Text>,
    /// The sampling temperature (provider scale, usually 0.0 to 2.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens the model may generate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Which tool the model must, may or may not call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// The message history: the last N messages kept, or a replacement
    /// list (see [`History`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<History>,
    /// The names of the tools the model may call; narrows the request's
    /// tools (a name the request does not offer adds nothing). Treated as a
    /// set: order is kept from the first hook, duplicates are ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_tools: Option<Cow<'static, [Text]>>,
    /// Provider-specific request parameters, shallow-merged into the
    /// request's (top-level keys replaced).
    #[serde(default, skip_serializing_if = "Params::is_empty")]
    pub additional_params: Params,
    /// Context items appended to the request, in order.
    #[serde(default, skip_serializing_if = "<[ContextItem]>::is_empty")]
    pub extra_context: Cow<'static, [ContextItem]>,
}

impl RequestPatch {
    /// Whether the patch changes nothing (every field unset or empty).
    pub fn is_empty(&self) -> bool {
        self.model.is_none()
            && self.preamble.is_none()
            && self.temperature.is_none()
            && self.max_tokens.is_none()
            && self.tool_choice.is_none()
            && self.history.is_none()
            && self.active_tools.is_none()
            && self.additional_params.is_empty()
            && self.extra_context.is_empty()
    }

    /// Whether `active_tools` (when set) lets the model call `tool`.
    pub fn allows_tool(&self, tool: &str) -> bool {
        self.active_tools
            .as_ref()
            .is_none_or(|tools| tools.iter().any(|t| t == tool))
    }

    /// The fields this patch sets, in [`PatchField::ALL`] order.
    pub fn fields(&self) -> impl Iterator<Item = PatchField> + '_ {
        PatchField::ALL
            .into_iter()
            .filter(move |field| self.sets(*field))
    }

    /// Sets the request's `model` (a provider JSON request object) to the
    /// patch's, when the patch sets one. Returns whether the request
    /// changed; a request that is not an object is left as is.
    pub fn apply_model(&self, request: &mut Value) -> bool {
        match (&self.model, request.as_object_mut()) {
            (Some(model), Some(object)) => {
                let new = Value::from(&**model);
                object.insert("model".to_owned(), new.clone()) != Some(new)
            }
            _ => false,
        }
    }

    /// Whether this patch sets `field`.
    pub fn sets(&self, field: PatchField) -> bool {
        match field {
            PatchField::Model => self.model.is_some(),
            PatchField::Preamble => self.preamble.is_some(),
            PatchField::Temperature => self.temperature.is_some(),
            PatchField::MaxTokens => self.max_tokens.is_some(),
            PatchField::ToolChoice => self.tool_choice.is_some(),
            PatchField::History => self.history.is_some(),
            PatchField::ActiveTools => self.active_tools.is_some(),
            PatchField::AdditionalParams => !self.additional_params.is_empty(),
            PatchField::ExtraContext => !self.extra_context.is_empty(),
        }
    }
}

/// The `additional_params` of a [`RequestPatch`]: provider request
/// parameters by name, in insertion order, each name once.
///
/// Borrowed from `'static` data in a table compiled by `hooks!`
/// ([`Params::from_static`]), owned otherwise. JSON form: an object
/// (`{"top_p": 0.9}`); values are [`Json`] ([`Json::to_value`] gives the
/// `serde_json::Value`, [`Params::to_map`] the whole object).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params(Cow<'static, [(Text, Json)]>);

impl Params {
    /// No parameters (usable in `const` context; no allocation).
    pub const fn new() -> Params {
        Params(Cow::Borrowed(&[]))
    }

    /// Parameters borrowed from `'static` data (what `hooks!` emits). The
    /// names must be distinct.
    pub const fn from_static(params: &'static [(Text, Json)]) -> Params {
        Params(Cow::Borrowed(params))
    }

    /// Parameters from names and values; a later name replaces an earlier
    /// one.
    pub fn from_entries(entries: impl IntoIterator<Item = (Text, Json)>) -> Params {
        let mut params = Params::new();
        for (k, v) in entries {
            params.insert(k, v);
        }
        params
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The parameters in order, as names and values.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Json)> + '_ {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    /// The names and values as stored (a name of `'static` data clones
    /// without allocating).
    pub fn entries(&self) -> &[(Text, Json)] {
        &self.0
    }

    /// The names in order.
    pub fn keys(&self) -> impl Iterator<Item = &str> + '_ {
        self.0.iter().map(|(k, _)| &**k)
    }

    /// The value of parameter `name`.
    pub fn get(&self, name: &str) -> Option<&Json> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// Sets parameter `name` (replacing its value in place, or appending).
    pub fn insert(&mut self, name: impl Into<Text>, value: impl Into<Json>) {
        let (name, value) = (name.into(), value.into());
        let params = self.0.to_mut();
        match params.iter_mut().find(|(k, _)| *k == name) {
            Some((_, v)) => *v = value,
            None => params.push((name, value)),
        }
    }

    /// The shallow merge of `later` into these: its values replace those of
    /// the same name (the merge rule of `additional_params`). Takes
    /// `later`'s list as is when these are empty (no allocation).
    pub fn merge(&mut self, later: Params) {
        if self.is_empty() {
            *self = later;
            return;
        }
        for (k, v) in later.0.into_owned() {
            self.insert(k, v);
        }
    }

    /// Applies `f` to every value (owning the list first).
    pub fn map_values(&mut self, mut f: impl FnMut(&mut Json)) {
        for (_, v) in self.0.to_mut() {
            f(v);
        }
    }

    /// The parameters as a JSON object (allocates).
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter()
            .map(|(k, v)| (k.to_owned(), v.to_value()))
            .collect()
    }
}

impl<K: Into<Text>> FromIterator<(K, Value)> for Params {
    /// Later pairs replace earlier ones of the same name.
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        Params::from_entries(
            iter.into_iter()
                .map(|(k, v)| (k.into(), Json::from_value(v))),
        )
    }
}

impl From<Map<String, Value>> for Params {
    fn from(map: Map<String, Value>) -> Self {
        map.into_iter().collect()
    }
}

impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for Params {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Map::<String, Value>::deserialize(deserializer)?.into())
    }
}

/// The `history` of a [`RequestPatch`].
///
/// JSON form: `{"keep_last": N}` for [`History::KeepLast`] (the config
/// language's `patch: {history: {keep_last: N}}`), a list of messages for
/// [`History::Replace`] (a shell hook's output, provider JSON form).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum History {
    /// Keep only the last N messages of the request's history.
    KeepLast {
        /// How many messages to keep (from the end).
        keep_last: u64,
    },
    /// Send these messages instead of the request's history.
    Replace(Vec<Value>),
}

impl History {
    /// Applies the change to `messages` in place: drops all but the last N,
    /// or replaces them.
    pub fn apply(&self, messages: &mut Vec<Value>) {
        match self {
            History::KeepLast { keep_last } => {
                let keep = usize::try_from(*keep_last).unwrap_or(usize::MAX);
                let drop = messages.len().saturating_sub(keep);
                messages.drain(..drop);
            }
            History::Replace(replacement) => messages.clone_from(replacement),
        }
    }

    /// Applies the change to a provider request object: to the first of
    /// [`HISTORY_KEYS`] that holds an array
    /// (a [`History::Replace`] sets `messages` when none does). Returns
    /// whether the request changed.
    pub fn apply_to_request(&self, request: &mut Value) -> bool {
        let key = HISTORY_KEYS
            .iter()
            .copied()
            .find(|k| request.get(*k).is_some_and(Value::is_array));
        match (key, request.as_object_mut()) {
            (Some(key), Some(object)) => match object.get_mut(key) {
                Some(Value::Array(messages)) => {
                    let before = messages.clone();
                    self.apply(messages);
                    *messages != before
                }
                _ => false,
            },
            (None, Some(object)) => match self {
                History::Replace(replacement) => {
                    object.insert("messages".to_owned(), Value::Array(replacement.clone()));
                    true
                }
                History::KeepLast { .. } => false,
            },
            (_, None) => false,
        }
    }
}

/// A field of [`RequestPatch`], named in provenance and diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatchField {
    /// `model` (last writer wins).
    Model,
    /// `preamble` (last writer wins).
    Preamble,
    /// `temperature` (last writer wins).
    Temperature,
    /// `max_tokens` (last writer wins).
    MaxTokens,
    /// `tool_choice` (last writer wins).
    ToolChoice,
    /// `history` (last writer wins).
    History,
    /// `active_tools` (intersection).
    ActiveTools,
    /// `additional_params` (shallow merge).
    AdditionalParams,
    /// `extra_context` (appended).
    ExtraContext,
}

impl PatchField {
    /// Every field, in declaration order.
    pub const ALL: [PatchField; 9] = [
        PatchField::Model,
        PatchField::Preamble,
        PatchField::Temperature,
        PatchField::MaxTokens,
        PatchField::ToolChoice,
        PatchField::History,
        PatchField::ActiveTools,
        PatchField::AdditionalParams,
        PatchField::ExtraContext,
    ];

    /// The field's name in the patch's JSON form.
    pub const fn as_str(self) -> &'static str {
        match self {
            PatchField::Model => "model",
            PatchField::Preamble => "preamble",
            PatchField::Temperature => "temperature",
            PatchField::MaxTokens => "max_tokens",
            PatchField::ToolChoice => "tool_choice",
            PatchField::History => "history",
            PatchField::ActiveTools => "active_tools",
            PatchField::AdditionalParams => "additional_params",
            PatchField::ExtraContext => "extra_context",
        }
    }
}

impl fmt::Display for PatchField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which tool the model must, may or may not call.
///
/// JSON form: the string `"auto"`, `"none"`, `"required"`, or any other
/// string naming one tool (so a tool literally named `auto`, `none` or
/// `required` cannot be forced; none of the common providers allow such
/// names either).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ToolChoice {
    /// The model decides.
    Auto,
    /// The model must not call tools.
    None,
    /// The model must call some tool.
    Required,
    /// The model must call this tool.
    Tool(Text),
}

impl ToolChoice {
    /// Parses the JSON form's string (never fails: an unknown word names a tool).
    pub fn from_name(name: &str) -> Self {
        match name {
            "auto" => ToolChoice::Auto,
            "none" => ToolChoice::None,
            "required" => ToolChoice::Required,
            tool => ToolChoice::Tool(tool.to_owned().into()),
        }
    }

    /// The JSON form's string.
    pub fn as_str(&self) -> &str {
        match self {
            ToolChoice::Auto => "auto",
            ToolChoice::None => "none",
            ToolChoice::Required => "required",
            ToolChoice::Tool(tool) => tool,
        }
    }

    /// The tool this choice forces, if it names one.
    pub fn tool(&self) -> Option<&str> {
        match self {
            ToolChoice::Tool(tool) => Some(tool),
            _ => None,
        }
    }
}

impl fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if name.is_empty() {
            return Err(serde::de::Error::custom(
                "empty `tool_choice`, expected one of: `auto`, `none`, `required`, or a tool name",
            ));
        }
        Ok(ToolChoice::from_name(&name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_choice_round_trips_its_string_form() {
        for (text, choice) in [
            ("auto", ToolChoice::Auto),
            ("none", ToolChoice::None),
            ("required", ToolChoice::Required),
            ("bash", ToolChoice::Tool("bash".into())),
        ] {
            let parsed: ToolChoice = serde_json::from_value(Value::from(text)).expect(text);
            assert_eq!(parsed, choice);
            assert_eq!(
                serde_json::to_value(&parsed).expect("ser"),
                Value::from(text)
            );
        }
        let err = serde_json::from_value::<ToolChoice>(Value::from("")).expect_err("empty");
        assert!(err.to_string().contains("empty `tool_choice`"), "{err}");
    }

    #[test]
    fn patch_json_omits_unset_fields_and_rejects_unknown_ones() {
        let patch = RequestPatch {
            max_tokens: Some(10),
            ..RequestPatch::default()
        };
        assert_eq!(
            serde_json::to_value(&patch).expect("ser"),
            serde_json::json!({"max_tokens": 10})
        );
        assert!(RequestPatch::default().is_empty());
        assert!(!patch.is_empty());
        assert_eq!(patch.fields().collect::<Vec<_>>(), [PatchField::MaxTokens]);
        let err = serde_json::from_value::<RequestPatch>(serde_json::json!({"max_token": 1}))
            .expect_err("typo rejected");
        assert!(
            err.to_string().contains("unknown field `max_token`"),
            "{err}"
        );
    }

    #[test]
    fn a_patch_sets_the_requests_model() {
        let patch: RequestPatch =
            serde_json::from_value(serde_json::json!({"model": "claude-haiku-4-5"})).expect("de");
        assert_eq!(patch.fields().collect::<Vec<_>>(), [PatchField::Model]);
        let mut request = serde_json::json!({"model": "claude-opus-4-1", "messages": []});
        assert!(patch.apply_model(&mut request));
        assert_eq!(request["model"], "claude-haiku-4-5");
        assert!(!patch.apply_model(&mut request), "already that model");
        assert!(!RequestPatch::default().apply_model(&mut request));
    }

    #[test]
    fn keep_last_trims_the_request_history() {
        let history = History::KeepLast { keep_last: 2 };
        let mut request = serde_json::json!({"chat_history": [1, 2, 3]});
        assert!(history.apply_to_request(&mut request));
        assert_eq!(request, serde_json::json!({"chat_history": [2, 3]}));
        assert!(
            !history.apply_to_request(&mut request),
            "already short enough"
        );
    }

    #[test]
    fn params_merge_shallowly_keep_order_and_round_trip_as_an_object() {
        static STATIC: [(Text, Json); 2] = [
            (Cow::Borrowed("top_p"), Json::F64(0.9)),
            (Cow::Borrowed("seed"), Json::U64(7)),
        ];
        let mut params = Params::from_static(&STATIC);
        params.merge(
            [("seed", Value::from(8)), ("stop", serde_json::json!(["x"]))]
                .into_iter()
                .collect(),
        );
        assert_eq!(params.keys().collect::<Vec<_>>(), ["top_p", "seed", "stop"]);
        assert_eq!(params.get("seed"), Some(&Json::U64(8)));
        let json = serde_json::to_value(&params).expect("ser");
        assert_eq!(
            json,
            serde_json::json!({"top_p": 0.9, "seed": 8, "stop": ["x"]})
        );
        let back: Params = serde_json::from_value(json).expect("de");
        assert_eq!(back, params);
        let mut empty = Params::new();
        empty.merge(Params::from_static(&STATIC));
        assert!(
            matches!(empty.0, Cow::Borrowed(_)),
            "merging into nothing keeps the static list"
        );
        assert!(serde_json::from_value::<Params>(serde_json::json!([1])).is_err());
    }
}
