//! A [`Report`] as JUnit XML: one `testsuite` (tests, failures, errors,
//! time in seconds), one `testcase` per case with a `failure` (each
//! difference, one per line) or an `error` (a case that could not run) —
//! the shape CI systems (GitHub Actions reporters, GitLab, Jenkins) read.
//! Written with `quick-xml`, which escapes every name and text.

use std::io;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use hooks_runtime::{SecretSet, redact_sensitive_text};

use super::{Report, printable};

/// `text` through the redaction function, then with its control
/// characters escaped: redacted before XML escaping, so the patterns that
/// recognise a secret see the text as printed.
fn clean(text: &str) -> String {
    let redacted = redact_sensitive_text(text, &SecretSet::new());
    printable(&redacted).into_owned()
}

/// The JUnit XML of `report`, every name and text redacted.
pub(super) fn render(report: &Report) -> String {
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing to a `Vec` cannot fail.
    let _ = write(&mut writer, report);
    String::from_utf8_lossy(&writer.into_inner()).into_owned()
}

fn write(writer: &mut Writer<Vec<u8>>, report: &Report) -> io::Result<()> {
    writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let seconds = |ms: f64| format!("{:.3}", ms / 1000.0);
    let total: f64 = report.results.iter().map(|r| r.elapsed_ms).sum();
    let errors = report.results.iter().filter(|r| r.error.is_some()).count();
    let failures = report.failed - errors;
    let (tests, failures, errors, time) = (
        report.results.len().to_string(),
        failures.to_string(),
        errors.to_string(),
        seconds(total),
    );
    let suite = clean(&report.suite);
    writer
        .create_element("testsuite")
        .with_attribute(("name", suite.as_str()))
        .with_attribute(("tests", tests.as_str()))
        .with_attribute(("failures", failures.as_str()))
        .with_attribute(("errors", errors.as_str()))
        .with_attribute(("time", time.as_str()))
        .write_inner_content(|w| {
            for result in &report.results {
                let time = seconds(result.elapsed_ms);
                let name = clean(&result.name);
                let case = w
                    .create_element("testcase")
                    .with_attribute(("classname", suite.as_str()))
                    .with_attribute(("name", name.as_str()))
                    .with_attribute(("time", time.as_str()));
                if let Some(error) = &result.error {
                    let error = clean(error);
                    case.write_inner_content(|w| {
                        w.create_element("error")
                            .with_attribute(("message", error.as_str()))
                            .write_empty()
                            .map(drop)
                    })?;
                } else if result.differences.is_empty() {
                    case.write_empty()?;
                } else {
                    let fields: Vec<&str> = result.differences.iter().map(|d| d.field).collect();
                    let message = format!("differs in {}", fields.join(", "));
                    let body: String = result
                        .differences
                        .iter()
                        .map(|d| {
                            let pad = " ".repeat(d.field.len());
                            format!(
                                "{}: expected {}\n{pad}  got      {}\n",
                                d.field, d.expected, d.observed
                            )
                        })
                        .collect();
                    let body = clean(&body);
                    case.write_inner_content(|w| {
                        w.create_element("failure")
                            .with_attribute(("message", message.as_str()))
                            .write_text_content(BytesText::new(&body))
                            .map(drop)
                    })?;
                }
            }
            Ok(())
        })?;
    Ok(())
}
