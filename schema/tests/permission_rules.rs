//! `when: {permission: RULE}`: Claude Code's permission-rule syntax,
//! compiled. The cases follow Claude Code's permission documentation
//! (*Permission rule syntax*: tool names, `Bash` wildcards and word
//! boundaries, compound commands, `Read`/`Edit` gitignore paths,
//! `WebFetch(domain:...)`, MCP tools, `Agent(...)`), plus this project's
//! documented choices (wrappers, quotes, tool names without case).

use hooks_schema::Phase;
use hooks_schema::plan::{Facts, Plan, Subject};
use serde_json::{Value, json};

/// (rule, tool, arguments, whether the rule matches the call).
const CASES: &[(&str, &str, &str, bool)] = &[
    // A bare tool name matches every call of the tool.
    ("Bash", "Bash", r#"{"command": "anything at all"}"#, true),
    ("Bash(*)", "Bash", r#"{"command": "ls"}"#, true),
    ("Bash", "Read", r#"{"file_path": "/a"}"#, false),
    // Exact command.
    (
        "Bash(npm run build)",
        "Bash",
        r#"{"command": "npm run build"}"#,
        true,
    ),
    (
        "Bash(npm run build)",
        "Bash",
        r#"{"command": "npm run build:prod"}"#,
        false,
    ),
    (
        "Bash(npm run build)",
        "Bash",
        r#"{"command": "npm run test"}"#,
        false,
    ),
    // A trailing ` *` is a word boundary: the command with or without
    // arguments, not a longer word.
    (
        "Bash(npm run test *)",
        "Bash",
        r#"{"command": "npm run test --watch"}"#,
        true,
    ),
    (
        "Bash(npm run test *)",
        "Bash",
        r#"{"command": "npm run test"}"#,
        true,
    ),
    (
        "Bash(npm run test *)",
        "Bash",
        r#"{"command": "npm run testing"}"#,
        false,
    ),
    ("Bash(ls *)", "Bash", r#"{"command": "ls -la"}"#, true),
    ("Bash(ls *)", "Bash", r#"{"command": "lsof"}"#, false),
    ("Bash(ls*)", "Bash", r#"{"command": "lsof"}"#, true),
    ("Bash(ls*)", "Bash", r#"{"command": "ls -la"}"#, true),
    // `:*` at the end is the same as ` *`.
    (
        "Bash(git push:*)",
        "Bash",
        r#"{"command": "git push origin main"}"#,
        true,
    ),
    (
        "Bash(git push:*)",
        "Bash",
        r#"{"command": "git push"}"#,
        true,
    ),
    (
        "Bash(git push:*)",
        "Bash",
        r#"{"command": "git pull"}"#,
        false,
    ),
    // A `*` inside spans any characters.
    (
        "Bash(git * main)",
        "Bash",
        r#"{"command": "git checkout main"}"#,
        true,
    ),
    (
        "Bash(git * main)",
        "Bash",
        r#"{"command": "git push origin main"}"#,
        true,
    ),
    (
        "Bash(git * main)",
        "Bash",
        r#"{"command": "git checkout dev"}"#,
        false,
    ),
    // Every simple command of a compound command is checked.
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "ls && git push --force"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "make || git push"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "a; git push; b"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "yes | git push"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "echo $(git push)"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "echo \"`git push`\""}"#,
        true,
    ),
    // Leading assignments and process wrappers are not the command.
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "FOO=bar GIT_TRACE=1 git push"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "timeout 30 nice -n 5 git push"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "nohup git push &"}"#,
        true,
    ),
    // A quoted argument is not a command; quotes do not hide one.
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "echo 'git push'"}"#,
        false,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "g'i't \"push\" origin"}"#,
        true,
    ),
    (
        "Bash(rm -rf *)",
        "Bash",
        r#"{"command": "cd build; rm -rf out"}"#,
        true,
    ),
    // Here-document bodies are data; the commands around them count.
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "cat > n <<'EOF'\nhi\nEOF\ngit push --force"}"#,
        true,
    ),
    (
        "Bash(git commit *)",
        "Bash",
        r#"{"command": "git commit -F - <<'EOF'\nmsg\nEOF"}"#,
        true,
    ),
    (
        "Bash(rm *)",
        "Bash",
        r#"{"command": "cat <<EOF\nrm -rf /\nEOF"}"#,
        false,
    ),
    // Groups, compound commands, `env`.
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "{ git push; }"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "if true; then git push; fi"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "! git push"}"#,
        true,
    ),
    (
        "Bash(git push *)",
        "Bash",
        r#"{"command": "env FOO=1 git push"}"#,
        true,
    ),
    // Tool names match without case (an agent's own `bash` tool).
    (
        "Bash(git push *)",
        "bash",
        r#"{"command": "git push"}"#,
        true,
    ),
    // No `command` argument: no match.
    ("Bash(git push *)", "Bash", r#"{"cmd": "git push"}"#, false),
    // `Read` / `Edit`: gitignore patterns on the path.
    (
        "Read(./.env)",
        "Read",
        r#"{"file_path": "/home/u/proj/.env"}"#,
        true,
    ),
    (
        "Read(./.env)",
        "Read",
        r#"{"file_path": "/home/u/proj/.env.local"}"#,
        false,
    ),
    (
        "Read(.env)",
        "Read",
        r#"{"file_path": "/home/u/proj/sub/.env"}"#,
        true,
    ),
    (
        "Read(*.env)",
        "Read",
        r#"{"file_path": "/p/prod.env"}"#,
        true,
    ),
    (
        "Read(//etc/passwd)",
        "Read",
        r#"{"file_path": "/etc/passwd"}"#,
        true,
    ),
    (
        "Read(//etc/passwd)",
        "Read",
        r#"{"file_path": "/home/etc/passwd"}"#,
        false,
    ),
    // Paths are resolved lexically first.
    (
        "Read(//etc/passwd)",
        "Read",
        r#"{"file_path": "/tmp/../etc//./passwd"}"#,
        true,
    ),
    (
        "Edit(/src/**)",
        "Edit",
        r#"{"file_path": "/p/node_modules/src/../../../.bashrc"}"#,
        false,
    ),
    (
        "Read(~/.ssh/**)",
        "Read",
        r#"{"file_path": "/home/u/.ssh/id_rsa"}"#,
        true,
    ),
    (
        "Edit(/src/**/*.ts)",
        "Edit",
        r#"{"file_path": "/repo/src/a/b.ts"}"#,
        true,
    ),
    (
        "Edit(/src/**/*.ts)",
        "Edit",
        r#"{"file_path": "/repo/src/b.ts"}"#,
        true,
    ),
    (
        "Edit(/src/**/*.ts)",
        "Edit",
        r#"{"file_path": "/repo/src/a/b.js"}"#,
        false,
    ),
    (
        "Edit(src/*.ts)",
        "Edit",
        r#"{"file_path": "/repo/src/a/b.ts"}"#,
        false,
    ),
    (
        "Edit(docs/)",
        "Edit",
        r#"{"file_path": "/repo/docs/guide/a.md"}"#,
        true,
    ),
    // `Edit` rules apply to every tool that edits files, `Read` rules to
    // those that read them.
    (
        "Edit(/src/**)",
        "Write",
        r#"{"file_path": "/repo/src/new.rs"}"#,
        true,
    ),
    (
        "Edit(*.ipynb)",
        "NotebookEdit",
        r#"{"notebook_path": "/n/a.ipynb"}"#,
        true,
    ),
    (
        "Read(/secrets/**)",
        "Grep",
        r#"{"pattern": "x", "path": "/repo/secrets/k"}"#,
        true,
    ),
    ("Write(*.key)", "Edit", r#"{"file_path": "/a.key"}"#, false),
    // `WebFetch(domain:...)`: the URL's host, without case.
    (
        "WebFetch(domain:example.com)",
        "WebFetch",
        r#"{"url": "https://example.com/docs"}"#,
        true,
    ),
    (
        "WebFetch(domain:example.com)",
        "WebFetch",
        r#"{"url": "https://EXAMPLE.com:8443/"}"#,
        true,
    ),
    (
        "WebFetch(domain:example.com)",
        "WebFetch",
        r#"{"url": "https://example.com.evil.net/"}"#,
        false,
    ),
    (
        "WebFetch(domain:example.com)",
        "WebFetch",
        r#"{"url": "https://api.example.com/"}"#,
        false,
    ),
    // URLs read as a browser reads them.
    (
        "WebFetch(domain:example.com)",
        "WebFetch",
        r#"{"url": " https:example.com/x\t"}"#,
        true,
    ),
    (
        "WebFetch(domain:example.com)",
        "WebFetch",
        r#"{"url": "https://ex%61mple.com/"}"#,
        true,
    ),
    (
        "WebFetch(domain:*.example.com)",
        "WebFetch",
        r#"{"url": "https://api.example.com/"}"#,
        true,
    ),
    (
        "WebFetch(domain:*.example.com)",
        "WebFetch",
        r#"{"url": "https://example.com/"}"#,
        false,
    ),
    // MCP tools: one tool, every tool of a server.
    (
        "mcp__puppeteer__navigate",
        "mcp__puppeteer__navigate",
        "{}",
        true,
    ),
    (
        "mcp__puppeteer__navigate",
        "mcp__puppeteer__click",
        "{}",
        false,
    ),
    ("mcp__puppeteer", "mcp__puppeteer__click", "{}", true),
    ("mcp__github__*", "mcp__github__create_issue", "{}", true),
    ("mcp__github__*", "mcp__gitlab__create_issue", "{}", false),
    // Subagents by type.
    (
        "Agent(Explore)",
        "Task",
        r#"{"subagent_type": "Explore"}"#,
        true,
    ),
    (
        "Agent(Explore)",
        "Agent",
        r#"{"subagent_type": "Plan"}"#,
        false,
    ),
];

fn compile(rules: &[&str], phase: &str) -> Plan {
    let mut source = String::from("version: 1\nhooks:\n");
    for (i, rule) in rules.iter().enumerate() {
        source.push_str(&format!(
            "  - id: r{i}\n    phase: {phase}\n    when: {{ permission: {} }}\n    run: {{ command: 'true' }}\n",
            serde_json::to_string(rule).expect("a string")
        ));
    }
    hooks_schema::compile_str(&source, "rules.yaml")
        .expect("compiles")
        .plan
}

#[test]
fn permission_rules_follow_claude_codes_documentation() {
    let rules: Vec<&str> = CASES.iter().map(|c| c.0).collect();
    let plan = compile(&rules, "before_tool");
    let mut wrong = Vec::new();
    for (i, (rule, tool, args, want)) in CASES.iter().enumerate() {
        let args: Value = serde_json::from_str(args).unwrap();
        let facts = Facts {
            phase: Phase::BeforeTool,
            tool: Some(tool),
            subject: Subject::Json(&args),
            args: Some(&args),
            outcome: None,
            admission: None,
        };
        let got = plan.matching(facts).any(|p| p as usize == i);
        if got != *want {
            wrong.push(format!("{rule} on {tool} {args}: got {got}, want {want}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// On `after_tool` a permission rule, like `subject: args`, tests the call's
/// arguments, not the result the phase's pointers address.
#[test]
fn on_after_tool_rules_and_subject_args_test_the_arguments() {
    let source = r#"version: 1
hooks:
  - id: rule
    phase: after_tool
    when: { permission: "Bash(git commit *)" }
    run: { command: 'true' }
  - id: args
    phase: after_tool
    when: { subject: args, pointer: /command, matches: '^git commit' }
    run: { command: 'true' }
  - id: result
    phase: after_tool
    when: { pointer: /command, matches: '^git commit' }
    run: { command: 'true' }
"#;
    let plan = hooks_schema::compile_str(source, "after.yaml")
        .expect("compiles")
        .plan;
    let args = json!({"command": "git commit -m wip"});
    let result = json!({"output": "[main 1a2b3c] wip"});
    let facts = Facts {
        phase: Phase::AfterTool,
        tool: Some("Bash"),
        subject: Subject::Json(&result),
        args: Some(&args),
        outcome: None,
        admission: None,
    };
    let ids: Vec<&str> = plan
        .matching(facts)
        .map(|p| &*plan.rules[p as usize].id)
        .collect();
    assert_eq!(ids, ["rule", "args"]);
}
