//! Merging several hooks' request patches field by field (the merge rules
//! listed on [`RequestPatch`]), recording who set what.

use std::borrow::Cow;

use crate::core::diagnostic::Diagnostic;
use crate::core::flow::Text;
use crate::core::id::HookId;
use crate::core::outcome::{Change, Provenance, ProvenanceList};
use crate::core::patch::{PatchField, RequestPatch, ToolChoice};

/// The running merge of several hooks' patches, with who set what.
#[derive(Debug, Default)]
pub(crate) struct PatchMerge {
    pub(crate) patch: RequestPatch,
    /// Last hook that set each last-writer-wins field, by `PatchField as usize`.
    setters: [Option<HookId>; 6],
}

fn slot(field: PatchField) -> usize {
    match field {
        PatchField::Preamble => 0,
        PatchField::Temperature => 1,
        PatchField::MaxTokens => 2,
        PatchField::ToolChoice => 3,
        PatchField::Model => 4,
        _ => 5,
    }
}

impl PatchMerge {
    /// Merges `incoming`, from `hook`, into the running patch, recording
    /// provenance.
    pub(crate) fn merge(
        &mut self,
        hook: &HookId,
        incoming: RequestPatch,
        provenance: &mut ProvenanceList,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        self.merge_attributed(&|_| hook.clone(), incoming, Some(provenance), diagnostics);
    }

    /// Merges `incoming` into the running patch, each field attributed to
    /// `who(field)` in diagnostics and in `provenance` (when given: a folded
    /// outcome brings its own provenance).
    pub(crate) fn merge_attributed(
        &mut self,
        who: &dyn Fn(PatchField) -> HookId,
        incoming: RequestPatch,
        mut provenance: Option<&mut ProvenanceList>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        let RequestPatch {
            model,
            preamble,
            temperature,
            max_tokens,
            tool_choice,
            history,
            active_tools,
            additional_params,
            extra_context,
        } = incoming;
        let mut record = |hook: &HookId, change: Change| {
            if let Some(provenance) = provenance.as_deref_mut() {
                provenance.push(Provenance {
                    hook: hook.clone(),
                    change,
                });
            }
        };
        let mut lww = |field: PatchField,
                       differs: bool,
                       setters: &mut [Option<HookId>; 6],
                       record: &mut dyn FnMut(&HookId, Change)| {
            let hook = who(field);
            let previous = setters[slot(field)].replace(hook.clone());
            if let Some(first) = previous
                && differs
            {
                diagnostics.push(Diagnostic::Conflict {
                    field,
                    first,
                    second: hook.clone(),
                });
            }
            record(&hook, Change::SetField(field));
        };
        if let Some(value) = model {
            let differs = self.patch.model.as_ref() != Some(&value);
            lww(PatchField::Model, differs, &mut self.setters, &mut record);
            self.patch.model = Some(value);
        }
        if let Some(value) = preamble {
            let differs = self.patch.preamble.as_ref() != Some(&value);
            lww(
                PatchField::Preamble,
                differs,
                &mut self.setters,
                &mut record,
            );
            self.patch.preamble = Some(value);
        }
        if let Some(value) = temperature {
            let differs = self.patch.temperature != Some(value);
            lww(
                PatchField::Temperature,
                differs,
                &mut self.setters,
                &mut record,
            );
            self.patch.temperature = Some(value);
        }
        if let Some(value) = max_tokens {
            let differs = self.patch.max_tokens != Some(value);
            lww(
                PatchField::MaxTokens,
                differs,
                &mut self.setters,
                &mut record,
            );
            self.patch.max_tokens = Some(value);
        }
        if let Some(value) = tool_choice {
            let differs = self.patch.tool_choice.as_ref() != Some(&value);
            lww(
                PatchField::ToolChoice,
                differs,
                &mut self.setters,
                &mut record,
            );
            self.patch.tool_choice = Some(value);
        }
        if let Some(value) = history {
            let differs = self.patch.history.as_ref() != Some(&value);
            lww(PatchField::History, differs, &mut self.setters, &mut record);
            self.patch.history = Some(value);
        }
        if let Some(tools) = active_tools {
            let hook = who(PatchField::ActiveTools);
            let was_empty = self
                .patch
                .active_tools
                .as_ref()
                .is_some_and(|t| t.is_empty());
            let merged = match self.patch.active_tools.take() {
                None => dedup(tools),
                Some(current) if current.iter().all(|tool| tools.contains(tool)) => current,
                Some(current) => Cow::Owned(
                    current
                        .iter()
                        .filter(|tool| tools.contains(tool))
                        .cloned()
                        .collect(),
                ),
            };
            let now_empty = merged.is_empty();
            self.patch.active_tools = Some(merged);
            record(&hook, Change::SetField(PatchField::ActiveTools));
            if now_empty && !was_empty {
                diagnostics.push(Diagnostic::EmptyActiveTools { hook });
            }
        }
        if !additional_params.is_empty() {
            let hook = who(PatchField::AdditionalParams);
            for (key, _) in additional_params.entries() {
                record(&hook, Change::SetParam(key.clone()));
            }
            self.patch.additional_params.merge(additional_params);
        }
        if !extra_context.is_empty() {
            let hook = who(PatchField::ExtraContext);
            record(
                &hook,
                Change::AppendedContext {
                    items: extra_context.len(),
                },
            );
            if self.patch.extra_context.is_empty() {
                self.patch.extra_context = extra_context;
            } else {
                let merged = self.patch.extra_context.to_mut();
                merged.extend(extra_context.iter().cloned());
            }
        }
    }

    /// The merged patch, or the fail-closed diagnostic when `tool_choice`
    /// names a tool that `active_tools` removed.
    pub(crate) fn finish(self) -> Result<RequestPatch, Diagnostic> {
        if let Some(tool) = self.patch.tool_choice.as_ref().and_then(ToolChoice::tool)
            && !self.patch.allows_tool(tool)
        {
            return Err(Diagnostic::ToolChoiceRemoved {
                tool: tool.to_owned(),
                hook: self.setters[slot(PatchField::ToolChoice)].clone(),
            });
        }
        Ok(self.patch)
    }
}

/// `tools` without repeated names (first occurrence kept); borrowed as
/// given when it has none.
fn dedup(tools: Cow<'static, [Text]>) -> Cow<'static, [Text]> {
    let repeats = tools
        .iter()
        .enumerate()
        .any(|(i, tool)| tools[..i].contains(tool));
    if !repeats {
        return tools;
    }
    let mut out: Vec<Text> = Vec::with_capacity(tools.len());
    for tool in tools.iter() {
        if !out.contains(tool) {
            out.push(tool.clone());
        }
    }
    Cow::Owned(out)
}
