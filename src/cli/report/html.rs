//! Renders a [`SessionReport`] as one HTML page: a summary (plain tables,
//! readable without JavaScript), then the timeline, one `<section>` per
//! event with its hooks, their latencies as bars and what they changed.
//! The inline script only filters (by hook, decision and phase, and with a
//! config in shadow by whether the shadow configs would change the event,
//! also from the page's `#filter=KEY:VALUE,...` fragment or `?filter=`
//! query).
//!
//! Every text goes through [`text`] or [`json`]: redacted by the project's
//! redaction function, then escaped ([`escape_html`]). The page names no
//! resource: its Content-Security-Policy forbids loading any.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use hooks_runtime::{SecretSet, redact_json, redact_sensitive_text};
use serde_json::Value;

use super::escape::escape_html;
use super::{EventRow, HookRow, SessionReport};
use crate::cli::shadow::Change;

/// The page's styles.
const STYLE: &str = include_str!("page.css");
/// The page's filter script.
const SCRIPT: &str = include_str!("page.js");

/// `s` redacted, then escaped for HTML.
fn text(s: &str) -> String {
    escape_html(&redact_sensitive_text(s, &SecretSet::new()))
}

/// `value` redacted ([`redact_json`]: credential-like keys masked, every
/// string redacted) as pretty JSON, escaped.
fn json(value: &Value) -> String {
    // Every string is redacted as a value, before serialization: redacting
    // the JSON text again would run across its escaped newlines.
    let value = redact_json(value, &SecretSet::new());
    escape_html(&serde_json::to_string_pretty(&value).unwrap_or_default())
}

/// Per-hook figures of the summary.
#[derive(Default)]
struct HookTotals {
    source: Option<String>,
    layer: Option<String>,
    consulted: usize,
    failures: usize,
    total_ms: f64,
    max_ms: f64,
    verdicts: BTreeMap<String, usize>,
}

/// The page.
pub(super) fn render(r: &SessionReport) -> String {
    let mut out = String::with_capacity(4096 + r.events.len() * 1024);
    let title = format!("agent-hooks {}: {}", r.command, r.config);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        text(&title),
        text(&title)
    );
    summary(&mut out, r);
    filters(&mut out, r);
    let scale = r
        .events
        .iter()
        .flat_map(|e| e.hooks.iter().map(|h| h.elapsed_ms))
        .fold(0.0_f64, f64::max);
    out.push_str("<h2>Timeline</h2>\n<ol id=\"timeline\" class=\"timeline\">\n");
    for (n, event) in r.events.iter().enumerate() {
        event_section(&mut out, r, n + 1, event, scale);
    }
    out.push_str("</ol>\n");
    let _ = write!(out, "<script>\n{SCRIPT}</script>\n</body>\n</html>\n");
    out
}

/// The summary: inputs, counts per phase, per decision and per hook.
fn summary(out: &mut String, r: &SessionReport) {
    out.push_str("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"facts\">\n");
    let _ = writeln!(
        out,
        "<tr><th>config</th><td><code>{}</code></td></tr>",
        text(&r.config)
    );
    for input in &r.inputs {
        let _ = writeln!(
            out,
            "<tr><th>input</th><td><code>{}</code></td></tr>",
            text(input)
        );
    }
    let hooks: usize = r.events.iter().map(|e| e.hooks.len()).sum();
    let _ = writeln!(
        out,
        "<tr><th>events</th><td id=\"event-count\">{}</td></tr>\n\
         <tr><th>hooks consulted</th><td>{hooks}</td></tr>\n\
         <tr><th><code>run</code> hooks</th><td>{}</td></tr>\n</table>",
        r.events.len(),
        if r.exec {
            "executed"
        } else {
            "not executed (dry run: counted as &ldquo;would run&rdquo;)"
        }
    );
    if let Some(configs) = &r.shadow {
        let names: Vec<String> = configs
            .iter()
            .map(|c| {
                format!(
                    "<code>{}</code> (layer {})",
                    text(&c.config),
                    text(&c.layer)
                )
            })
            .collect();
        let changed = r.events.iter().filter(|e| !e.shadow.is_empty()).count();
        let _ = writeln!(
            out,
            "<table class=\"facts\" id=\"shadow-summary\">\n\
             <tr><th>in shadow</th><td>{}</td></tr>\n\
             <tr><th>events the shadow configs would change</th><td id=\"shadow-count\">{changed}</td></tr>\n</table>",
            names.join(", ")
        );
    }
    for note in &r.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", text(note));
    }
    let mut phases: BTreeMap<&str, usize> = BTreeMap::new();
    let mut decisions: BTreeMap<&str, usize> = BTreeMap::new();
    let mut per_hook: BTreeMap<&str, HookTotals> = BTreeMap::new();
    for e in &r.events {
        *phases.entry(&e.phase).or_default() += 1;
        *decisions.entry(&e.decision).or_default() += 1;
        for h in &e.hooks {
            let t = per_hook.entry(&h.id).or_default();
            t.source.clone_from(&h.source);
            t.layer.clone_from(&h.layer);
            t.consulted += 1;
            t.failures += usize::from(h.failure.is_some());
            t.total_ms += h.elapsed_ms;
            t.max_ms = t.max_ms.max(h.elapsed_ms);
            // A dry run's `run` hook did not run: its verdict says so
            // here as in the timeline.
            let verdict = if h.would_run {
                format!("{} (would run)", h.verdict)
            } else {
                h.verdict.clone()
            };
            *t.verdicts.entry(verdict).or_default() += 1;
        }
    }
    out.push_str("<div class=\"counts\">\n");
    count_table(out, "phase", "by-phase", &phases);
    count_table(out, "decision", "by-decision", &decisions);
    out.push_str(
        "</div>\n<table id=\"by-hook\" class=\"hooks-summary\">\n<caption>Hooks</caption>\n\
         <tr><th>hook</th><th>layer</th><th>config file</th><th>consulted</th><th>verdicts</th>\
         <th>failures</th><th>total ms</th><th>max ms</th></tr>\n",
    );
    for (id, t) in &per_hook {
        let verdicts: Vec<String> = t
            .verdicts
            .iter()
            .map(|(v, n)| format!("{} &times;{n}", text(v)))
            .collect();
        let _ = writeln!(
            out,
            "<tr data-hook=\"{id}\"><td><code>{id}</code></td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td></tr>",
            t.layer.as_deref().map(text).unwrap_or_default(),
            t.source.as_deref().map(text).unwrap_or_default(),
            t.consulted,
            verdicts.join(", "),
            t.failures,
            t.total_ms,
            t.max_ms,
            id = text(id),
        );
    }
    if per_hook.is_empty() {
        out.push_str("<tr><td colspan=\"8\">no hook was consulted</td></tr>\n");
    }
    out.push_str("</table>\n</section>\n");
}

/// A two-column table of counts.
fn count_table(out: &mut String, what: &str, id: &str, counts: &BTreeMap<&str, usize>) {
    let _ = writeln!(
        out,
        "<table id=\"{id}\"><tr><th>{what}</th><th>events</th></tr>"
    );
    for (name, n) in counts {
        let _ = writeln!(out, "<tr><td>{}</td><td>{n}</td></tr>", text(name));
    }
    out.push_str("</table>\n");
}

/// The filter controls: hidden until the script shows them (without
/// JavaScript they would do nothing).
fn filters(out: &mut String, r: &SessionReport) {
    let mut hooks = std::collections::BTreeSet::new();
    let mut decisions = std::collections::BTreeSet::new();
    let mut phases = std::collections::BTreeSet::new();
    for e in &r.events {
        decisions.insert(e.decision.as_str());
        phases.insert(e.phase.as_str());
        hooks.extend(e.hooks.iter().map(|h| h.id.as_str()));
    }
    out.push_str("<form id=\"filters\" class=\"filters\" hidden>\n");
    for (key, values) in [
        ("hook", &hooks),
        ("decision", &decisions),
        ("phase", &phases),
    ] {
        let _ = write!(
            out,
            "<label>{key} <select id=\"filter-{key}\" data-key=\"{key}\">\
             <option value=\"\">any</option>"
        );
        for v in values {
            let _ = write!(out, "<option value=\"{v}\">{v}</option>", v = text(v));
        }
        out.push_str("</select></label>\n");
    }
    if r.shadow.is_some() {
        out.push_str(
            "<label>shadow <select id=\"filter-shadow\" data-key=\"shadow\">\
             <option value=\"\">any</option><option value=\"change\">would change</option>\
             <option value=\"none\">no change</option></select></label>\n",
        );
    }
    out.push_str("<span class=\"shown\"><span id=\"shown-count\"></span> shown</span>\n</form>\n");
}

/// One event of the timeline.
fn event_section(out: &mut String, r: &SessionReport, n: usize, e: &EventRow, scale: f64) {
    // With a config in shadow: whether it would change the event.
    let shadow = match (&r.shadow, e.shadow.is_empty()) {
        (None, _) => "",
        (Some(_), true) => " data-shadow=\"none\"",
        (Some(_), false) => " data-shadow=\"change\"",
    };
    let _ = write!(
        out,
        "<li class=\"event decision-{d}\" id=\"event-{n}\" data-phase=\"{p}\" data-decision=\"{d}\"{shadow}>\n\
         <div class=\"event-head\"><span class=\"n\">#{n}</span> <span class=\"phase\">{p}</span>",
        p = text(&e.phase),
        d = text(&e.decision),
    );
    if let Some(tool) = &e.tool {
        let _ = write!(out, " <code class=\"tool\">{}</code>", text(tool));
    }
    let _ = write!(
        out,
        " &rarr; <span class=\"decision\">{}</span>",
        text(&e.decision)
    );
    if let Some(reason) = &e.reason {
        let _ = write!(out, " <span class=\"reason\">{}</span>", text(reason));
    }
    if r.inputs.len() > 1
        && let Some(input) = r.inputs.get(e.input)
    {
        let _ = write!(out, " <span class=\"input\">{}</span>", text(input));
    }
    if !e.shadow.is_empty() {
        out.push_str(" <span class=\"shadow-marker\">shadow would change</span>");
    }
    out.push_str("</div>\n");
    if e.hooks.is_empty() {
        out.push_str("<p class=\"none\">no hook consulted</p>\n");
    } else {
        hook_table(out, &e.hooks, scale);
    }
    changes(out, e);
    shadow_changes(out, &e.shadow);
    let _ = writeln!(
        out,
        "<details class=\"input-event\"><summary>event</summary><pre>{}</pre></details>",
        json(&e.event)
    );
    out.push_str("</li>\n");
}

/// The hooks consulted for one event, with their latency bars.
fn hook_table(out: &mut String, hooks: &[HookRow], scale: f64) {
    out.push_str(
        "<table class=\"hooks\"><tr><th>hook</th>\
         <th title=\"the hook's layer and the config file it comes from\">layer</th><th>verdict</th>\
         <th>failure</th><th>latency</th><th>message</th></tr>\n",
    );
    for h in hooks {
        let width = if scale > 0.0 {
            (h.elapsed_ms / scale * 100.0).clamp(0.0, 100.0)
        } else {
            0.0
        };
        let layer = match (&h.layer, &h.source) {
            (Some(layer), Some(file)) => {
                format!("{} <span class=\"file\">{}</span>", text(layer), text(file))
            }
            (Some(layer), None) => text(layer),
            (None, Some(file)) => format!("<span class=\"file\">{}</span>", text(file)),
            (None, None) => "<span class=\"file\">(built in code)</span>".to_owned(),
        };
        let verdict = if h.would_run {
            format!("{} <small>(would run)</small>", text(&h.verdict))
        } else {
            text(&h.verdict)
        };
        let failure = h
            .failure
            .as_ref()
            .map(|(kind, policy)| {
                format!(
                    "<span class=\"failure\">{}</span> <small>policy {}</small>",
                    text(kind),
                    text(policy)
                )
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<tr class=\"hook\" data-hook=\"{id}\"><td><code>{id}</code></td><td class=\"layer\">{layer}</td>\
             <td class=\"verdict\">{verdict}</td><td>{failure}</td>\
             <td class=\"latency\"><span class=\"bar\" style=\"width:{width:.1}%\"></span>\
             <span class=\"ms\">{ms:.3} ms</span></td><td class=\"message\">{message}</td></tr>",
            id = text(&h.id),
            ms = h.elapsed_ms,
            message = h.message.as_deref().map(text).unwrap_or_default(),
        );
    }
    out.push_str("</table>\n");
}

/// What the hooks changed: provenance, rewrites (before and after),
/// context, the request patch, diagnostics and records.
fn changes(out: &mut String, e: &EventRow) {
    if !e.changes.is_empty() {
        out.push_str("<ul class=\"provenance\">\n");
        for c in &e.changes {
            let _ = writeln!(
                out,
                "<li><code>{}</code> {}</li>",
                text(&c.hook),
                json(&c.change)
            );
        }
        out.push_str("</ul>\n");
    }
    for (what, before, after) in &e.rewrites {
        let _ = write!(
            out,
            "<div class=\"rewrite\"><div class=\"what\">{what} rewritten</div>"
        );
        if let Some(before) = before {
            let _ = write!(
                out,
                "<div><div class=\"label\">before</div><pre class=\"before\">{}</pre></div>",
                json(before)
            );
        }
        let _ = writeln!(
            out,
            "<div><div class=\"label\">after</div><pre class=\"after\">{}</pre></div></div>",
            json(after)
        );
    }
    for item in &e.context {
        let _ = writeln!(
            out,
            "<div class=\"context\"><div class=\"label\">context injected</div><pre>{}</pre></div>",
            json(item)
        );
    }
    if let Some(patch) = &e.patch {
        let _ = writeln!(
            out,
            "<div class=\"patch\"><div class=\"label\">request patch</div><pre>{}</pre></div>",
            json(patch)
        );
    }
    for d in &e.diagnostics {
        let _ = writeln!(out, "<p class=\"diagnostic\">{}</p>", text(d));
    }
    if !e.records.is_empty() {
        let _ = writeln!(
            out,
            "<details class=\"records\"><summary>records ({})</summary>",
            e.records.len()
        );
        for rec in &e.records {
            let _ = writeln!(out, "<pre>{}</pre>", json(rec));
        }
        out.push_str("</details>\n");
    }
}

/// What the shadow configs would change on one event: per field, the
/// enforced value and the shadow one, and the configs.
fn shadow_changes(out: &mut String, changes: &[Change]) {
    for c in changes {
        let configs: Vec<String> = c
            .configs
            .iter()
            .map(|s| {
                format!(
                    "{} <span class=\"file\">{}</span>",
                    text(&s.layer),
                    text(&s.config)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<div class=\"shadow-change\" data-field=\"{field}\"><div class=\"what\">shadow would change \
             {field}<div class=\"label\">{configs}</div></div>\
             <div><div class=\"label\">enforced</div><pre class=\"enforced\">{enforced}</pre></div>\
             <div><div class=\"label\">shadow</div><pre class=\"shadow\">{shadow}</pre></div></div>",
            field = text(c.field),
            configs = configs.join(", "),
            enforced = json(&c.enforced),
            shadow = json(&c.shadow),
        );
    }
}
