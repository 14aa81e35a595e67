//! What only the configs of one stack together can tell (docs/fleet.md,
//! *Layers*):
//!
//! - `managed-not-granted`: in a stack of several configs, only a stack
//!   file entry (`{config, layer: managed}`) puts a config in the managed
//!   layer; a config's own `layer: managed` does not.
//! - `duplicate-id-in-stack`: records, reports and provenance name hooks by
//!   id, so an id defined in two configs is as much an error as one defined
//!   twice in one file (the runtime refuses it too: `HookStack::try_push`);
//!   `managed-hook-redefined` when one of them is the managed layer's.
//! - `layer-rank-mismatch`, `layer-rank-taken`: a named layer has one rank,
//!   and a rank one layer.
//! - The managed layer's switches (`managed:`): `managed-switches-twice`,
//!   `http-url-outside-allowlist`, `header-env-outside-allowlist`, the
//!   warning `shadow-switches`, and the warnings
//!   `not-loaded-managed-only` and `hooks-disabled`.

use std::collections::HashMap;

use serde_json::Value;

use super::{At, Checker};
use crate::config::{LayerKey, Managed};
use crate::diagnostic::{Diagnostic, Diagnostics, Layer, Severity};
use crate::yaml;

/// One parsed config of the stack.
struct Member<'a> {
    file: &'a str,
    value: Value,
    positions: yaml::Positions,
    /// Its layer (`project` when it declares none).
    layer: hooks_plan::Layer,
    /// The layer its stack file entry gives, if any.
    given: Option<hooks_plan::Layer>,
}

impl Member<'_> {
    fn is_managed(&self) -> bool {
        self.layer.is_managed()
    }

    fn hooks(&self) -> impl Iterator<Item = (usize, &Value)> + '_ {
        self.value
            .get("hooks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
    }
}

/// The layer `value` declares (`LayerKey`, as the loader reads it),
/// `project` by default; one the config's own check refuses counts as
/// `project` here.
fn declared_layer(value: &Value) -> hooks_plan::Layer {
    value
        .get("layer")
        .and_then(|v| serde_json::from_value::<LayerKey>(v.clone()).ok())
        .map_or(hooks_plan::Layer::PROJECT, |key| key.layer())
}

/// The findings of the configs of one stack, `(file, source, layer)` in
/// the order they were given (`layer`: what a stack file gives a config
/// that declares none), beyond each config's own checks; a config that
/// does not parse is skipped (checking it on its own reports why). Each is
/// located in the config it is about and names the other file (and line).
///
/// This is what `agent-hooks check --stack STACK.yaml` (and `check` of
/// several files with `--stack`) adds to the per-file checks.
pub fn stack_findings(configs: &[(&str, &str, Option<&LayerKey>)]) -> Vec<Diagnostic> {
    let members: Vec<Member<'_>> = configs
        .iter()
        .filter_map(|&(file, source, given)| {
            let (value, positions) = yaml::parse(source, file).ok()?;
            let layer = match given {
                Some(key) if value.get("layer").is_none() => key.layer(),
                _ => declared_layer(&value),
            };
            Some(Member {
                file,
                value,
                positions,
                layer,
                given: given.map(LayerKey::layer),
            })
        })
        .collect();
    let mut out = Vec::new();
    for member in &members {
        let Some(given) = &member.given else {
            continue;
        };
        if member.layer.name != given.name {
            let mut checker = Checker::new(member.file, &member.positions);
            checker.report(
                "/layer",
                At::Value,
                Layer::Semantic,
                "layer-differs-from-stack",
                format!(
                    "this config declares layer `{}`, its stack file gives `{}`",
                    member.layer.name, given.name
                ),
                Some("drop one of the two".to_owned()),
            );
            out.append(&mut checker.out);
        }
    }
    // The managed layer is granted by the stack file, which the
    // administrator owns, not claimed by a config: a project config that
    // declares `layer: managed` must not outrank the administrator's.
    if members.len() > 1 {
        for member in &members {
            if member.is_managed() && member.given.as_ref().is_none_or(|g| !g.is_managed()) {
                let mut checker = Checker::new(member.file, &member.positions);
                checker.report(
                    "/layer",
                    At::Value,
                    Layer::Semantic,
                    "managed-not-granted",
                    "only a stack file puts a config of a stack in the managed layer".to_owned(),
                    Some("list it in the administrator's stack file as `{ config: FILE, layer: managed }`".to_owned()),
                );
                out.append(&mut checker.out);
            }
        }
    }
    duplicate_ids(&members, &mut out);
    layer_ranks(&members, &mut out);
    switches(&members, &mut out);
    out
}

/// [`stack_findings`] on the configs of a stack file's `entries`, each
/// read from its path: the warnings (and notes) when there is no error.
/// To check the text that is compiled, compile with
/// [`Loader::compile_stack`](crate::Loader::compile_stack), which reads
/// each file once, or pass the texts read to [`check_stack_texts`].
///
/// # Errors
///
/// [`Diagnostics`] with every error, located in the configs, or a config
/// that cannot be read.
pub fn check_stack(entries: &[super::StackEntry]) -> Result<Vec<Diagnostic>, Diagnostics> {
    let mut texts = Vec::with_capacity(entries.len());
    for e in entries {
        // A config that cannot be read is an error here too: it must not
        // drop out of the checks.
        texts.push(crate::load::read_config(&e.config)?);
    }
    check_stack_texts(entries, &texts)
}

/// [`stack_findings`] on the configs of `entries` as `texts` (one per
/// entry, in order: the text that was read and compiled): the warnings
/// (and notes) when there is no error.
///
/// # Errors
///
/// [`Diagnostics`] with every error, located in the configs.
pub fn check_stack_texts(
    entries: &[super::StackEntry],
    texts: &[String],
) -> Result<Vec<Diagnostic>, Diagnostics> {
    let files: Vec<String> = entries
        .iter()
        .map(|e| e.config.display().to_string())
        .collect();
    let configs: Vec<(&str, &str, Option<&LayerKey>)> = files
        .iter()
        .zip(texts)
        .zip(entries)
        .map(|((file, text), e)| (file.as_str(), text.as_str(), e.layer.as_ref()))
        .collect();
    let (errors, others): (Vec<Diagnostic>, Vec<Diagnostic>) = stack_findings(&configs)
        .into_iter()
        .partition(Diagnostic::is_error);
    match Diagnostics::from_vec(errors) {
        Some(errors) => Err(errors),
        None => Ok(others),
    }
}

/// `duplicate-id-in-stack` and `managed-hook-redefined`.
fn duplicate_ids(members: &[Member<'_>], out: &mut Vec<Diagnostic>) {
    // Id -> (member index, line) of its first definition, the managed
    // layer's first.
    let mut first: HashMap<&str, (usize, usize)> = HashMap::new();
    let mut order: Vec<usize> = (0..members.len()).collect();
    order.sort_by_key(|&n| !members[n].is_managed());
    for n in order {
        let member = &members[n];
        let mut checker = Checker::new(member.file, &member.positions);
        for (i, hook) in member.hooks() {
            let Some(id) = hook.get("id").and_then(Value::as_str) else {
                continue;
            };
            let pointer = format!("/hooks/{i}/id");
            let line = checker.place(&pointer, At::Value).line;
            match first.get(id) {
                Some(&(m, _)) if m == n => {}
                Some(&(m, earlier_line)) if members[m].is_managed() => checker.report(
                    &pointer,
                    At::Value,
                    Layer::Semantic,
                    "managed-hook-redefined",
                    format!(
                        "hook id `{id}` is the managed layer's (`{}`, line {earlier_line}): another layer cannot redefine, disable or shadow it",
                        members[m].file
                    ),
                    Some("rename this hook; the managed hook runs whatever this config says".to_owned()),
                ),
                Some(&(m, earlier_line)) => checker.report(
                    &pointer,
                    At::Value,
                    Layer::Semantic,
                    "duplicate-id-in-stack",
                    format!(
                        "hook id `{id}` is also defined in `{}` (line {earlier_line}), loaded into the same stack",
                        members[m].file
                    ),
                    Some(
                        "ids must be unique across the configs of one stack (records and reports name hooks by id): rename one of them"
                            .to_owned(),
                    ),
                ),
                None => {
                    first.insert(id, (n, line));
                }
            }
        }
        out.append(&mut checker.out);
    }
}

/// `layer-rank-mismatch` (one name, two ranks) and `layer-rank-taken`
/// (one rank, two names).
fn layer_ranks(members: &[Member<'_>], out: &mut Vec<Diagnostic>) {
    let mut by_name: HashMap<&str, (u16, &str)> = HashMap::new();
    let mut by_rank: HashMap<u16, (&str, &str)> = HashMap::new();
    for member in members {
        let (name, rank) = (&*member.layer.name, member.layer.rank);
        let mut checker = Checker::new(member.file, &member.positions);
        match by_name.get(name) {
            Some(&(other, file)) if other != rank => checker.report(
                "/layer/rank",
                At::Value,
                Layer::Semantic,
                "layer-rank-mismatch",
                format!("layer `{name}` has rank {other} in `{file}`: one layer has one rank"),
                None,
            ),
            Some(_) => {}
            None => {
                by_name.insert(name, (rank, member.file));
            }
        }
        match by_rank.get(&rank) {
            Some(&(other, file)) if other != name => checker.report(
                "/layer/rank",
                At::Value,
                Layer::Semantic,
                "layer-rank-taken",
                format!(
                    "rank {rank} is layer `{other}`'s (`{file}`): two layers of one rank would have no order"
                ),
                Some("pick another rank".to_owned()),
            ),
            Some(_) => {}
            None => {
                by_rank.insert(rank, (name, member.file));
            }
        }
        out.append(&mut checker.out);
    }
}

/// The managed layer's switches, checked against every config.
fn switches(members: &[Member<'_>], out: &mut Vec<Diagnostic>) {
    let mut set: Option<(&Member<'_>, Managed)> = None;
    for member in members.iter().filter(|m| m.is_managed()) {
        let Some(value) = member.value.get("managed") else {
            continue;
        };
        if member.value.get("mode").and_then(Value::as_str) == Some("shadow") {
            let mut checker = Checker::new(member.file, &member.positions);
            checker.lint(
                Severity::Warning,
                "/managed",
                At::Key,
                "shadow-switches",
                "this config is in `mode: shadow`: its switches are not applied".to_owned(),
                "enforce the config (drop `mode: shadow`) to apply them".to_owned(),
            );
            out.append(&mut checker.out);
            continue;
        }
        let Ok(managed) = serde_json::from_value::<Managed>(value.clone()) else {
            continue; // the config's own check says why
        };
        match &set {
            Some((first, _)) => {
                let mut checker = Checker::new(member.file, &member.positions);
                checker.report(
                    "/managed",
                    At::Key,
                    Layer::Semantic,
                    "managed-switches-twice",
                    format!(
                        "the managed layer's switches are already set in `{}`: one managed config sets them",
                        first.file
                    ),
                    None,
                );
                out.append(&mut checker.out);
            }
            None => set = Some((member, managed)),
        }
    }
    let Some((owner, managed)) = set else {
        return;
    };
    let switches = managed.switches();
    if managed.disable_all_hooks {
        let mut checker = Checker::new(owner.file, &owner.positions);
        checker.lint(
            Severity::Warning,
            "/managed/disable_all_hooks",
            At::Key,
            "hooks-disabled",
            "no hook of this stack runs, this config's included (`disable_all_hooks`)".to_owned(),
            "remove the switch to run hooks again".to_owned(),
        );
        out.append(&mut checker.out);
    }
    for member in members {
        let mut checker = Checker::new(member.file, &member.positions);
        if managed.managed_hooks_only && !member.is_managed() && member.hooks().next().is_some() {
            checker.lint(
                Severity::Warning,
                "/hooks",
                At::Key,
                "not-loaded-managed-only",
                format!(
                    "this config's hooks do not run: the managed layer (`{}`) allows only its own (`managed_hooks_only`)",
                    owner.file
                ),
                "ask the administrator to move the hooks into the managed layer".to_owned(),
            );
        }
        for (i, hook) in member.hooks() {
            let Some(http) = hook.get("http") else {
                continue;
            };
            if let Some(url) = http.get("url").and_then(Value::as_str)
                && !switches.url_allowed(url)
            {
                checker.report(
                    &format!("/hooks/{i}/http/url"),
                    At::Value,
                    Layer::Semantic,
                    "http-url-outside-allowlist",
                    format!(
                        "`{}` is not in the managed layer's `allowed_http_urls` (`{}`)",
                        shown_url(url),
                        owner.file
                    ),
                    Some(
                        "call an allowed URL, or ask the administrator to allow this one"
                            .to_owned(),
                    ),
                );
            }
            let env = http.get("env").and_then(Value::as_array);
            for (j, name) in env.into_iter().flatten().enumerate() {
                let Some(name) = name.as_str() else { continue };
                if !switches.header_env_allowed(name) {
                    checker.report(
                        &format!("/hooks/{i}/http/env/{j}"),
                        At::Value,
                        Layer::Semantic,
                        "header-env-outside-allowlist",
                        format!(
                            "`{name}` is not in the managed layer's `allowed_header_env` (`{}`): headers cannot read it",
                            owner.file
                        ),
                        None,
                    );
                }
            }
        }
        out.append(&mut checker.out);
    }
}

/// `url` without its query and fragment (`?…` marks a query left out):
/// they may carry credentials, and a message quotes the URL.
fn shown_url(url: &str) -> String {
    match url.find(['?', '#']) {
        Some(at) if url[at..].starts_with('?') => format!("{}?…", &url[..at]),
        Some(at) => url[..at].to_owned(),
        None => url.to_owned(),
    }
}
