//! The harness of the editor-support tests (`lsp*.rs`): a real
//! `yaml-language-server --stdio` driven over LSP 3.17 (see `lsp.rs` for how
//! it is pinned, kept off the network and reaped), and readers of the
//! committed schema the expected values come from. Include with
//! `#[path = "common/lsp.rs"] mod lsp;`.

#![allow(dead_code, reason = "each test binary uses a subset")]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one LSP exchange may take before the test fails as hung. The
/// first request loads Node and the schema, which takes about a second on a
/// loaded CI machine; this is a hang detector, not a performance target.
pub(crate) const DEADLINE: Duration = Duration::from_secs(60);

/// The modeline users get in `examples/`: a path relative to the config file.
pub(crate) const MODELINE: &str = "# yaml-language-server: $schema=../schema/hooks.schema.json";

pub(crate) fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub(crate) fn schema_path() -> PathBuf {
    repo_root().join("schema/hooks.schema.json")
}

pub(crate) fn file_uri(path: &Path) -> String {
    assert!(path.is_absolute(), "`{}` is not absolute", path.display());
    let mut uri = String::from("file://");
    for byte in path.to_str().expect("utf-8 path").bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                uri.push(char::from(byte));
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

/// The URI of a document that exists only in the editor, in `examples/`,
/// so that the modeline's relative path resolves like a user's would.
pub(crate) fn example_uri(name: &str) -> String {
    file_uri(&repo_root().join("examples").join(name))
}

/// Settings answered to the server's `workspace/configuration` pulls: the
/// same keys an editor sends (see `docs/editors.md`).
pub(crate) fn settings() -> Value {
    json!({
        "yaml": {
            "validate": true,
            "hover": true,
            "completion": true,
            "schemaStore": { "enable": false },
            "schemas": {},
            "format": { "enable": false },
        },
        // A closed port: any accidental download fails at once instead of
        // touching the network.
        "http": { "proxy": "http://127.0.0.1:9", "proxyStrictSSL": false },
        "[yaml]": {},
        "editor": {},
    })
}

/// A running `yaml-language-server`, killed and reaped on drop.
pub(crate) struct Server {
    child: Child,
    stdin: ChildStdin,
    inbox: Receiver<Value>,
    stderr: Arc<Mutex<String>>,
    next_id: i64,
    /// The latest `publishDiagnostics` per document URI, taken by `diagnostics`.
    published: HashMap<String, Vec<Value>>,
    configuration_pulls: usize,
    /// What `workspace/configuration` pulls are answered with.
    settings: Value,
}

impl Server {
    /// Starts the server with [`settings`] and completes the `initialize` handshake.
    pub(crate) fn start() -> Server {
        Server::start_with(settings())
    }

    /// Starts the server answering configuration pulls with `settings`.
    pub(crate) fn start_with(settings: Value) -> Server {
        let root = repo_root();
        let bin = root.join("editor/node_modules/.bin/yaml-language-server");
        assert!(
            bin.exists(),
            "`{}` is missing: run `npm ci --prefix editor` (needs Node.js and npm) before the tests",
            bin.display()
        );
        let mut child = Command::new(&bin)
            .arg("--stdio")
            .current_dir(&root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start `{}`: {e}", bin.display()));
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr_pipe = child.stderr.take().expect("piped stderr");

        let (tx, inbox) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stderr_pipe.read(&mut buf) {
                sink.lock()
                    .expect("stderr buffer")
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });

        let mut server = Server {
            child,
            stdin,
            inbox,
            stderr,
            next_id: 0,
            published: HashMap::new(),
            configuration_pulls: 0,
            settings,
        };
        let root_uri = file_uri(&root);
        let init = server.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "clientInfo": { "name": "agent-hooks tests/lsp.rs" },
                "rootUri": root_uri,
                "workspaceFolders": [{ "uri": root_uri, "name": "agent-hooks" }],
                "capabilities": {
                    "workspace": {
                        "configuration": true,
                        "workspaceFolders": true,
                        "didChangeConfiguration": { "dynamicRegistration": false },
                    },
                    "textDocument": {
                        "synchronization": { "dynamicRegistration": false },
                        "completion": {
                            "completionItem": {
                                "snippetSupport": true,
                                "documentationFormat": ["markdown", "plaintext"],
                            },
                        },
                        "hover": { "contentFormat": ["markdown", "plaintext"] },
                        "publishDiagnostics": { "relatedInformation": false },
                    },
                },
            }),
        );
        assert!(
            init.pointer("/capabilities/completionProvider").is_some()
                && init.pointer("/capabilities/hoverProvider").is_some(),
            "the server offers no completion or hover: {init}"
        );
        server.notify("initialized", json!({}));
        // The server ignores the pushed value and pulls `workspace/configuration`;
        // wait for that pull so every later document is validated with our settings.
        server.notify(
            "workspace/didChangeConfiguration",
            json!({ "settings": server.settings.clone() }),
        );
        server.pump_until("the `workspace/configuration` pull", |s| {
            s.configuration_pulls > 0
        });
        server
    }

    pub(crate) fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|e| panic!("cannot write to the server: {e}{}", self.stderr_tail()));
    }

    pub(crate) fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its `result`, answering the server's own
    /// requests meanwhile.
    ///
    /// # Panics
    /// On an error response, or when no response arrives within [`DEADLINE`].
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let deadline = Instant::now() + DEADLINE;
        loop {
            let message = self.receive(deadline, method);
            if message.get("method").is_none() && message["id"] == json!(id) {
                if let Some(error) = message.get("error") {
                    panic!("`{method}` failed: {error}");
                }
                return message["result"].clone();
            }
            self.handle(message);
        }
    }

    pub(crate) fn receive(&mut self, deadline: Instant, waiting_for: &str) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.inbox.recv_timeout(left) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!(
                "no answer from yaml-language-server for {waiting_for} within {DEADLINE:?}{}",
                self.stderr_tail()
            ),
            Err(RecvTimeoutError::Disconnected) => panic!(
                "yaml-language-server exited while waiting for {waiting_for}{}",
                self.stderr_tail()
            ),
        }
    }

    /// Handles a server-to-client request or notification.
    pub(crate) fn handle(&mut self, message: Value) {
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return; // a response to a request we no longer wait for
        };
        match (method, message.get("id")) {
            ("textDocument/publishDiagnostics", None) => {
                let uri = message["params"]["uri"].as_str().expect("uri").to_owned();
                let list = message["params"]["diagnostics"]
                    .as_array()
                    .expect("diagnostics array")
                    .clone();
                self.published.insert(uri, list);
            }
            ("workspace/configuration", Some(id)) => {
                self.configuration_pulls += 1;
                let all = &self.settings;
                let answer: Vec<Value> = message["params"]["items"]
                    .as_array()
                    .expect("configuration items")
                    .iter()
                    .map(|item| {
                        item["section"]
                            .as_str()
                            .and_then(|s| all.get(s))
                            .cloned()
                            .unwrap_or(Value::Null)
                    })
                    .collect();
                let id = id.clone();
                self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": answer }));
            }
            // Capability registrations, progress tokens and the like.
            (_, Some(id)) => {
                let id = id.clone();
                self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": null }));
            }
            (_, None) => {} // log and telemetry notifications
        }
    }

    pub(crate) fn pump_until(&mut self, what: &str, done: impl Fn(&Server) -> bool) {
        let deadline = Instant::now() + DEADLINE;
        while !done(self) {
            let message = self.receive(deadline, what);
            self.handle(message);
        }
    }

    /// Opens a document and returns the diagnostics the server publishes for it.
    pub(crate) fn open(&mut self, uri: &str, text: &str) -> Vec<Value> {
        self.published.remove(uri);
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "yaml", "version": 1, "text": text } }),
        );
        self.pump_until(&format!("diagnostics of `{uri}`"), |s| {
            s.published.contains_key(uri)
        });
        self.published.remove(uri).expect("just published")
    }

    pub(crate) fn completion(
        &mut self,
        uri: &str,
        (line, character): (usize, usize),
    ) -> Vec<Value> {
        let result = self.request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
        );
        match result {
            Value::Array(items) => items,
            Value::Object(mut list) => match list.remove("items") {
                Some(Value::Array(items)) => items,
                other => panic!("completion list without items: {other:?}"),
            },
            Value::Null => Vec::new(),
            other => panic!("unexpected completion result: {other}"),
        }
    }

    /// The hover text at a position (`""` when the server has none).
    pub(crate) fn hover(&mut self, uri: &str, (line, character): (usize, usize)) -> String {
        let result = self.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } }),
        );
        markup_text(&result["contents"])
    }

    pub(crate) fn stderr_tail(&self) -> String {
        let text = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        let tail: String = text
            .chars()
            .rev()
            .take(2000)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if tail.trim().is_empty() {
            String::new()
        } else {
            format!("\nserver stderr:\n{tail}")
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // A polite `shutdown`/`exit` could itself hang on a broken server; the
        // test owns this process, so kill it and reap it.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads one `Content-Length`-framed JSON-RPC message; `None` at end of stream.
pub(crate) fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The text of a `MarkupContent`, `MarkedString` or array of them.
pub(crate) fn markup_text(contents: &Value) -> String {
    match contents {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().map(markup_text).collect::<Vec<_>>().join("\n"),
        Value::Object(o) => o.get("value").map(markup_text).unwrap_or_default(),
        _ => String::new(),
    }
}

/// Drops Markdown escapes and folds whitespace, so a schema description can be
/// found in the Markdown the server renders from it.
pub(crate) fn normalize(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek().is_some_and(|n| n.is_ascii_punctuation()) {
            continue;
        }
        out.push(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `(line, character)` of the first occurrence of `needle` in `text`,
/// zero-based as LSP counts (the documents here are ASCII, so UTF-16 code
/// units equal bytes).
pub(crate) fn position_of(text: &str, needle: &str) -> (usize, usize) {
    let offset = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in the test document"));
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let character = offset - before.rfind('\n').map_or(0, |i| i + 1);
    (line, character)
}

pub(crate) fn labels(items: &[Value]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| i["label"].as_str())
        .map(str::to_owned)
        .collect()
}

pub(crate) fn load_schema() -> Value {
    let path = schema_path();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read the committed schema `{}`: {e}", path.display()));
    serde_json::from_str(&text).expect("the committed schema is JSON")
}

/// Resolves a local `$ref` (`#/$defs/Name`) against the schema's root.
pub(crate) fn deref<'a>(root: &'a Value, node: &'a Value) -> &'a Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) if r.starts_with('#') => root
            .pointer(&r[1..])
            .unwrap_or_else(|| panic!("dangling `$ref` `{r}` in the schema")),
        _ => node,
    }
}

/// The schema of a hook's property `key`.
pub(crate) fn hook_property<'a>(schema: &'a Value, key: &str) -> &'a Value {
    property_beside(schema, "phase", key)
}

/// The schema of property `key` in the first `properties` map of the schema
/// that declares both `sibling` and `key` (`phase` finds the hook, `command`
/// finds `run`).
pub(crate) fn property_beside<'a>(schema: &'a Value, sibling: &str, key: &str) -> &'a Value {
    pub(crate) fn find<'a>(node: &'a Value, sibling: &str, key: &str) -> Option<&'a Value> {
        match node {
            Value::Object(map) => {
                if let Some(Value::Object(props)) = map.get("properties")
                    && props.contains_key(sibling)
                    && let Some(p) = props.get(key)
                {
                    return Some(p);
                }
                map.values().find_map(|v| find(v, sibling, key))
            }
            Value::Array(list) => list.iter().find_map(|v| find(v, sibling, key)),
            _ => None,
        }
    }
    find(schema, sibling, key)
        .unwrap_or_else(|| panic!("the schema declares no property `{key}` beside `{sibling}`"))
}

/// The text the server shows for a schema node: `markdownDescription`, else
/// `description`, looking through a `$ref` when the node itself has neither.
pub(crate) fn shown_description(schema: &Value, node: &Value) -> String {
    let text = |n: &Value| {
        n.get("markdownDescription")
            .or_else(|| n.get("description"))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    text(node)
        .or_else(|| text(deref(schema, node)))
        .expect("a description on the node or its `$ref` target")
}

/// The values of an enum-like schema node with the description of each, from
/// either `oneOf`/`anyOf` of `const` + `description` (schemars' shape for
/// documented unit variants) or `enum` + `markdownEnumDescriptions` /
/// `enumDescriptions` (the VS Code extension keywords).
pub(crate) fn enum_variants(schema: &Value, node: &Value) -> Vec<(String, String)> {
    let node = deref(schema, node);
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let descriptions = node
            .get("markdownEnumDescriptions")
            .or_else(|| node.get("enumDescriptions"))
            .and_then(Value::as_array)
            .unwrap_or_else(|| panic!("enum without value descriptions: {node}"));
        assert_eq!(
            values.len(),
            descriptions.len(),
            "one description per value: {node}"
        );
        return values
            .iter()
            .zip(descriptions)
            .map(|(v, d)| {
                let v = v.as_str().expect("string enum value").to_owned();
                (v, d.as_str().expect("string description").to_owned())
            })
            .collect();
    }
    let variants = node
        .get("oneOf")
        .or_else(|| node.get("anyOf"))
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("neither `enum` nor `oneOf` of consts: {node}"));
    // `Option<Enum>` is `anyOf: [{$ref: Enum}, {type: null}]`: look through it.
    let mut out = Vec::new();
    for variant in variants {
        let variant = deref(schema, variant);
        if let Some(name) = variant.get("const").and_then(Value::as_str) {
            out.push((name.to_owned(), shown_description(schema, variant)));
        } else if variant.get("type") != Some(&json!("null")) {
            out.extend(enum_variants(schema, variant));
        }
    }
    out
}

/// Asserts that every variant is offered with its description as documentation.
pub(crate) fn assert_documented(items: &[Value], variants: &[(String, String)]) {
    assert!(!variants.is_empty(), "no variants to check");
    for (name, description) in variants {
        let item = items
            .iter()
            .find(|i| i["label"] == json!(name))
            .unwrap_or_else(|| panic!("`{name}` not offered; offered {:?}", labels(items)));
        let shown = normalize(&markup_text(&item["documentation"]));
        let expected = normalize(description);
        assert!(
            shown.contains(&expected),
            "completion item `{name}` documents {shown:?}, expected the schema's {expected:?}"
        );
    }
}

/// A config with one hook per phase group, carrying the relative modeline.
pub(crate) fn doc(body: &str) -> String {
    format!("{MODELINE}\nversion: 1\nhooks:\n{body}")
}

pub(crate) fn lines_of(diagnostics: &[Value]) -> Vec<u64> {
    let mut lines: Vec<u64> = diagnostics
        .iter()
        .map(|d| d["range"]["start"]["line"].as_u64().expect("line"))
        .collect();
    lines.sort_unstable();
    lines.dedup();
    lines
}

pub(crate) fn show(diagnostics: &[Value]) -> String {
    diagnostics
        .iter()
        .map(|d| {
            format!(
                "  line {}: {}",
                d["range"]["start"]["line"],
                d["message"].as_str().unwrap_or("?")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
