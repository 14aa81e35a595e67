//! A [`Report`] as JUnit XML: one `testsuite` (tests, failures, errors,
//! time in seconds), one `testcase` per case with a `failure` (each
//! difference, one per line) or an `error` (a case that could not run) —
//! the shape CI systems (GitHub Actions reporters, GitLab, Jenkins) read.
//! Written with `quick-xml`, which escapes every name and text.

use std::io;

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use super::Report;

/// The JUnit XML of `report`.
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
    let failures = report.failures() - errors;
    let (tests, failures, errors, time) = (
        report.results.len().to_string(),
        failures.to_string(),
        errors.to_string(),
        seconds(total),
    );
    writer
        .create_element("testsuite")
        .with_attribute(("name", report.suite.as_str()))
        .with_attribute(("tests", tests.as_str()))
        .with_attribute(("failures", failures.as_str()))
        .with_attribute(("errors", errors.as_str()))
        .with_attribute(("time", time.as_str()))
        .write_inner_content(|w| {
            for result in &report.results {
                let time = seconds(result.elapsed_ms);
                let case = w
                    .create_element("testcase")
                    .with_attribute(("classname", report.suite.as_str()))
                    .with_attribute(("name", result.name.as_str()))
                    .with_attribute(("time", time.as_str()));
                if let Some(error) = &result.error {
                    case.write_inner_content(|w| {
                        w.create_element("error")
                            .with_attribute(("message", error.as_str()))
                            .write_empty()
                            .map(drop)
                    })?;
                } else if result.differences.is_empty() {
                    case.write_empty()?;
                } else {
                    let keys: Vec<&str> = result.differences.iter().map(|d| d.key).collect();
                    let message = format!("differs in {}", keys.join(", "));
                    let body: String = result
                        .differences
                        .iter()
                        .map(|d| {
                            format!("{}: expected {}, got {}\n", d.key, d.expected, d.observed)
                        })
                        .collect();
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
