//! The `run` action: program (`command` xor `argv`), `cwd`, `env`,
//! `timeout`, `payload`, `protocol`, `worker`, `pool`; and the id and
//! variable-name rules.

pub use hooks_plan::valid_env_name;
use serde_json::{Map, Value};

use super::names::VOCABULARY;
use super::walk::child;
use super::{At, Checker};
use crate::diagnostic::Layer;

/// Why a `run.cwd` cannot work, if it cannot (`Some` of a short reason such
/// as `"an absolute path"`): the shell runtime joins it to the workspace
/// root and refuses a directory outside the root, so an absolute path, or
/// one whose `..` components climb above the root (judged lexically), is a
/// config error. Symlinks are the runtime's to judge: it canonicalizes
/// before its check.
pub fn cwd_problem(dir: &str) -> Option<&'static str> {
    if dir.starts_with('/') {
        return Some("an absolute path");
    }
    let mut depth = 0usize;
    for part in dir.split('/') {
        match part {
            "" | "." => {}
            ".." => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return Some("its `..` climbs above the workspace root"),
            },
            _ => depth += 1,
        }
    }
    None
}

/// `[a-z0-9_-]+` ([`ID_PATTERN`](crate::ID_PATTERN)).
pub(super) fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

impl Checker<'_> {
    pub(super) fn run(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping with `command` or `argv`") else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.run, "`run`");
        self.program(p, m);
        if let Some(c) = m.get("cwd") {
            self.cwd(&child(p, "cwd"), c);
        }
        if let Some(e) = m.get("env") {
            self.env(&child(p, "env"), e);
        }
        if let Some(t) = m.get("timeout") {
            self.duration(&child(p, "timeout"), t);
        }
        self.payload_mode(p, m);
        self.enum_key(
            p,
            m,
            "protocol",
            "protocol",
            VOCABULARY.protocols,
            "unknown-protocol",
        );
        self.worker(p, m);
    }

    /// `worker` is a boolean; `pool` an integer in 1..=[`Run::MAX_POOL`](crate::Run::MAX_POOL)
    /// that goes only with `worker: true`.
    fn worker(&mut self, p: &str, m: &Map<String, Value>) {
        self.booleans(p, m, &["worker"]);
        let Some(pool) = m.get("pool") else {
            return;
        };
        let pp = child(p, "pool");
        self.integer(&pp, pool, (1, u64::from(crate::Run::MAX_POOL)));
        if m.get("worker") != Some(&Value::Bool(true)) {
            self.report(
                &pp,
                At::Key,
                Layer::Schema,
                "pool-without-worker",
                "`pool` needs `worker: true`: only a worker has a pool".to_owned(),
                Some("add `worker: true`, or remove `pool`".to_owned()),
            );
        }
    }

    /// Exactly one of `command` and `argv`, neither empty.
    fn program(&mut self, p: &str, m: &Map<String, Value>) {
        match (m.get("command"), m.get("argv")) {
            (None, None) => self.missing(
                p,
                "command",
                "`run`",
                Some(
                    "give `command: \"...\"` (shell form) or `argv: [...]` (exec form)".to_owned(),
                ),
            ),
            (Some(_), Some(_)) => self.report(
                &child(p, "argv"),
                At::Key,
                Layer::Schema,
                "command-and-argv",
                "`run` has both `command` and `argv`, expected exactly one".to_owned(),
                Some("`command` runs through `sh -c`; `argv` runs the program directly".to_owned()),
            ),
            _ => {}
        }
        if let Some(c) = m.get("command") {
            self.nonempty_string(&child(p, "command"), c);
        }
        if let Some(a) = m.get("argv") {
            self.argv(&child(p, "argv"), a);
        }
    }

    fn argv(&mut self, ap: &str, a: &Value) {
        let Some(items) = self.array(ap, a, "a list of strings") else {
            return;
        };
        if items.is_empty() {
            self.report(
                ap,
                At::Value,
                Layer::Schema,
                "empty-argv",
                "`argv` must not be empty, expected the program and its arguments".to_owned(),
                None,
            );
        }
        for (i, item) in items.iter().enumerate() {
            self.string(&format!("{ap}/{i}"), item);
        }
        if let Some(first) = items.first().and_then(Value::as_str)
            && first.is_empty()
        {
            self.report(
                &format!("{ap}/0"),
                At::Value,
                Layer::Schema,
                "empty-program",
                "the program (`argv[0]`) must not be empty".to_owned(),
                None,
            );
        }
    }

    fn cwd(&mut self, cp: &str, c: &Value) {
        if let Some(dir) = self.nonempty_string(cp, c)
            && let Some(why) = cwd_problem(dir)
        {
            self.report(
                cp,
                At::Value,
                Layer::Semantic,
                "cwd-outside-workspace",
                format!(
                    "`cwd` must be relative to the workspace root and stay inside it, found `{dir}` ({why})"
                ),
                Some(
                    "the shell runtime refuses a working directory outside the workspace root; write a path such as `.` or `scripts`".to_owned(),
                ),
            );
        }
    }

    fn env(&mut self, p: &str, v: &Value) {
        let Some(m) = self.object(p, v, "a mapping with `pass` and/or `set`") else {
            return;
        };
        self.unknown_keys(p, m, VOCABULARY.env, "`env`");
        if let Some(pass) = m.get("pass") {
            self.env_pass(&child(p, "pass"), pass);
        }
        if let Some(set) = m.get("set") {
            self.env_set(&child(p, "set"), set);
        }
    }

    /// Reports `name`, which [`valid_env_name`] refused, at `pointer`.
    pub(super) fn bad_env_name(&mut self, pointer: &str, at: At, name: &str) {
        self.report(
            pointer,
            at,
            Layer::Schema,
            "invalid-env-name",
            format!(
                "invalid environment variable name `{name}`, expected `[A-Za-z_][A-Za-z0-9_]*`"
            ),
            None,
        );
    }

    fn env_pass(&mut self, pp: &str, pass: &Value) {
        let Some(items) = self.array(pp, pass, "a list of variable names") else {
            return;
        };
        for (i, item) in items.iter().enumerate() {
            let ip = format!("{pp}/{i}");
            if let Some(name) = self.string(&ip, item)
                && !valid_env_name(name)
            {
                self.bad_env_name(&ip, At::Value, name);
            }
        }
    }

    fn env_set(&mut self, sp: &str, set: &Value) {
        let Some(vars) = self.object(sp, set, "a mapping from variable names to values") else {
            return;
        };
        for (name, value) in vars {
            let vp = child(sp, name);
            if !valid_env_name(name) {
                self.bad_env_name(&vp, At::Key, name);
            }
            if !value.is_string() {
                let hint = (!value.is_object() && !value.is_array())
                    .then(|| format!("quote it: `\"{value}\"`"));
                self.type_error(&vp, "a string", value, hint);
            }
        }
    }
}
