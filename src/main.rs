//! The `agent-hooks` command-line tool.
//!
//! Exit codes: 0 ok, 1 findings, 2 usage or I/O error.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod cli;

/// Declared, checked and compiled hooks for AI agents.
#[derive(Debug, Parser)]
#[command(name = "agent-hooks", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check hook configs: YAML syntax, JSON Schema and semantic rules, all
    /// errors at once, each with `file:line:col`, then the lints (warnings
    /// and notes). Exit codes: 0 no errors (warnings and notes are printed
    /// but pass), 1 errors (or warnings, with `--deny-warnings`), 2 usage
    /// or I/O error.
    Check {
        /// Config files to check.
        #[arg(required_unless_present = "stack", value_name = "FILE")]
        files: Vec<std::path::PathBuf>,
        /// Output format: `human` (rustc-style with snippets) or `json`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// Fail (exit 1) on warnings too, as CI should; notes never fail.
        #[arg(long)]
        deny_warnings: bool,
        /// The workspace root the hooks run in: scripts they name are looked
        /// for there (joined with each hook's `cwd`). Default: the current
        /// directory, as `test` and `replay` run hooks.
        #[arg(long, value_name = "DIR")]
        workspace: Option<std::path::PathBuf>,
        /// A stack file (docs/fleet.md, "Layers"): check it and its
        /// configs, each on its own and together (a hook id in two of
        /// them, a managed hook redefined by another layer, an `http` hook
        /// outside the managed allowlists).
        #[arg(long, value_name = "STACK")]
        stack: Option<std::path::PathBuf>,
    },
    /// Print a JSON Schema: the hook config (default), the hook stdin payload
    /// or the hook stdout output.
    Schema {
        /// Which schema to print.
        #[arg(value_enum, default_value_t = SchemaKind::Config)]
        kind: SchemaKind,
        /// With `config`: the schema for configs of one agent, whose tool
        /// names and argument pointers editors offer in completion. CATALOG
        /// is a JSON tool catalogue or a hook config with a `catalogue:` key.
        #[arg(long, value_name = "CATALOG")]
        tools: Option<std::path::PathBuf>,
    },
    /// Run a config's hooks on one sample event (our event JSON) and print
    /// the merged decision and the records, exiting 0 whatever the hooks
    /// decide; or, with `--expect CASES.yaml`, run policy tests and exit 1
    /// when a case's decision differs from the expected one. `run` hooks
    /// execute for real, with the current directory as workspace root.
    Test {
        /// The hook config.
        #[arg(value_name = "CONFIG", required_unless_present = "stack")]
        config: Option<std::path::PathBuf>,
        /// A stack file (docs/fleet.md, "Layers"): run its configs (then
        /// CONFIG, if given) as one stack.
        #[arg(long, value_name = "STACK")]
        stack: Option<std::path::PathBuf>,
        /// The event: a JSON file, or `-` for stdin.
        #[arg(
            long,
            value_name = "EVENT",
            required_unless_present = "expect",
            conflicts_with = "expect"
        )]
        event: Option<std::path::PathBuf>,
        /// Policy tests: a YAML file of cases (events and the decisions
        /// expected); exits 1 when a case fails (docs/cli.md, "Policy tests").
        #[arg(long, value_name = "CASES")]
        expect: Option<std::path::PathBuf>,
        /// With `--expect`: also write the results as JUnit XML to FILE.
        #[arg(long, value_name = "FILE", requires = "expect")]
        junit: Option<std::path::PathBuf>,
        /// With `--event`: also write the event's timeline as one
        /// self-contained HTML page to FILE (docs/cli.md, "Session reports").
        #[arg(long, value_name = "FILE", conflicts_with = "expect")]
        report: Option<std::path::PathBuf>,
        /// Output format: `human` or `json`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Show which rules match an event and, for the others, the first
    /// condition that failed. Never spawns anything.
    Explain {
        /// The hook config.
        #[arg(value_name = "CONFIG", required_unless_present = "stack")]
        config: Option<std::path::PathBuf>,
        /// A stack file (docs/fleet.md, "Layers"): explain its configs'
        /// rules (then CONFIG's, if given), in the order they run.
        #[arg(long, value_name = "STACK")]
        stack: Option<std::path::PathBuf>,
        /// The event: a JSON file of our event format, or `-` for stdin.
        #[arg(long, value_name = "EVENT")]
        event: std::path::PathBuf,
        /// List the rules of every phase (by default only those of the
        /// event's phase).
        #[arg(long)]
        all: bool,
        /// Output format: `human` or `json`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Drive recorded sessions (Claude Code transcripts, our event JSONL)
    /// through a config and summarize what its hooks would have done.
    Replay {
        /// The hook config, then the session files (JSONL); with
        /// `--stack`, only the session files.
        #[arg(required = true, value_name = "CONFIG] [TRANSCRIPT")]
        paths: Vec<std::path::PathBuf>,
        /// A stack file (docs/fleet.md, "Layers"): replay through its
        /// configs as one stack (every path is then a session file).
        #[arg(long, value_name = "STACK")]
        stack: Option<std::path::PathBuf>,
        /// Execute matching `run` hooks (by default they are only counted:
        /// replaying a session must not run side-effecting commands).
        #[arg(long)]
        exec: bool,
        /// Also write the session's timeline as one self-contained HTML
        /// page to FILE (docs/cli.md, "Session reports").
        #[arg(long, value_name = "FILE")]
        report: Option<std::path::PathBuf>,
        /// Output format: `human` or `json`.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Trust a hook config for agents that load it at run time
    /// (`Table::load`): its hooks and every script they run, as they are
    /// now. Any later change asks for trust again.
    Trust {
        /// The config to trust (or, with `--revoke`, to forget).
        #[arg(value_name = "CONFIG", required_unless_present_any = ["list", "stack"])]
        config: Option<std::path::PathBuf>,
        /// A stack file (docs/fleet.md, "Layers"): trust (or forget) each
        /// of its configs; a stack with errors is not trusted.
        #[arg(long, value_name = "STACK", conflicts_with = "list")]
        stack: Option<std::path::PathBuf>,
        /// List the trusted configs instead.
        #[arg(long, conflicts_with_all = ["config", "revoke"])]
        list: bool,
        /// Forget CONFIG's trust.
        #[arg(long)]
        revoke: bool,
        /// Refuse to trust a config with a `run` hook whose script cannot
        /// be determined (an `unbound-script` warning otherwise).
        #[arg(long, conflicts_with_all = ["list", "revoke"])]
        strict: bool,
        /// The workspace root the config's scripts resolve against
        /// (default: the current directory).
        #[arg(long, value_name = "DIR")]
        workspace: Option<std::path::PathBuf>,
        /// The trust store file (default: `$AGENT_HOOKS_TRUST_STORE`, else
        /// `$XDG_CONFIG_HOME/agent-hooks/trust.json`, else
        /// `~/.config/agent-hooks/trust.json`).
        #[arg(long, value_name = "FILE")]
        store: Option<std::path::PathBuf>,
    },
    /// The command an agent runs as its hook: reads the agent's payload
    /// for one event on stdin, runs the configs' hooks on it and answers
    /// in that agent's output format and exit-code convention (a JSON
    /// object on stdout, exit 0; exit 2 only for an input that names no
    /// event). See docs/hook-command.md.
    Hook {
        /// The agent whose hook protocol stdin and stdout follow.
        #[arg(long, value_enum)]
        agent: agent_hooks::agent::Agent,
        /// The event's name, for a payload that does not name it (the
        /// Copilot CLI's camelCase format: `--event preToolUse`); a
        /// payload's own `hook_event_name` wins.
        #[arg(long, value_name = "NAME")]
        event: Option<String>,
        /// The hook configs, run as one stack: by layer, lowest first,
        /// those of one layer in this order.
        #[arg(required_unless_present = "stack", value_name = "CONFIG")]
        configs: Vec<std::path::PathBuf>,
        /// A stack file (docs/fleet.md, "Layers"): its configs run before
        /// those named, in one stack.
        #[arg(long, value_name = "STACK")]
        stack: Option<std::path::PathBuf>,
        /// Append a record of every consulted hook to this JSONL file.
        #[arg(long, value_name = "FILE")]
        records: Option<std::path::PathBuf>,
    },
    /// Serve the hook engine over HTTP: `POST /v1/hooks/{agent}` for
    /// claude, codex, gemini, copilot and native payloads, `/healthz`,
    /// `/readyz`, `/metrics` (docs/serve.md). SIGTERM or SIGINT drains
    /// (exit 0 when every in-flight request finished); SIGHUP reloads.
    Serve(cli::serve::Args),
    /// Evaluate one `policy` hook request read from stdin and print the
    /// query's value: the policy process a hook runtime under a memory
    /// cap runs (docs/security.md, *Policy evaluation is bounded*), not a command
    /// for people.
    #[command(hide = true)]
    PolicyEval,
    /// Convert another agent's hook configuration into an agent-hooks config.
    Import {
        #[command(subcommand)]
        source: ImportSource,
    },
    /// Route every event of an agent (Claude Code, Codex, Gemini CLI,
    /// Copilot) to `agent-hooks hook` with these configs, or to an
    /// `agent-hooks serve` with `--url`: merged into the agent's settings,
    /// idempotent, with a backup; `--uninstall` takes it out again
    /// (docs/init.md). Exit codes: 0 done, 2 usage or I/O error.
    Init {
        /// The agent whose settings to edit.
        #[arg(long, value_enum)]
        agent: cli::init::InitAgent,
        /// The hook configs the routed events run.
        #[arg(value_name = "CONFIG")]
        configs: Vec<std::path::PathBuf>,
        /// A stack file the routed events run (docs/fleet.md, "Layers").
        #[arg(long, value_name = "STACK", conflicts_with = "url")]
        stack: Option<std::path::PathBuf>,
        /// Which settings: the project's (default), the user's, or Claude
        /// Code's `.claude/settings.local.json`.
        #[arg(long, value_enum, default_value_t = cli::init::Scope::Project)]
        scope: cli::init::Scope,
        /// Edit this settings file instead of the scope's.
        #[arg(long, value_name = "FILE")]
        settings: Option<std::path::PathBuf>,
        /// Route to an `agent-hooks serve` at this base URL
        /// (`http://127.0.0.1:8080`) instead of running `hook`.
        #[arg(long, value_name = "URL")]
        url: Option<String>,
        /// With `--url`: the environment variable that holds the bearer
        /// token the agent sends (its value is never written).
        #[arg(long, value_name = "NAME", requires = "url")]
        token_env: Option<String>,
        /// The command that runs agent-hooks (default: this executable's
        /// absolute path).
        #[arg(long, value_name = "PROGRAM", conflicts_with = "url")]
        command: Option<String>,
        /// Take agent-hooks out of the settings again.
        #[arg(long)]
        uninstall: bool,
        /// Move the hooks already in the settings into this new config
        /// (through `agent-hooks import`), run after CONFIG...: each then
        /// runs in a fixed order and can be turned off on its own. Hooks
        /// that do not convert stay in the settings.
        #[arg(long, value_name = "OUT.yaml", conflicts_with_all = ["url", "uninstall"])]
        import: Option<std::path::PathBuf>,
    },
}

/// The configurations `agent-hooks import` converts.
#[derive(Debug, Subcommand)]
enum ImportSource {
    /// Convert the `hooks` of a Claude Code settings file (or plugin
    /// `hooks.json`, or a VS Code / Copilot `.github/hooks/*.json`) into
    /// agent-hooks YAML; warns about what does not map.
    Claude {
        /// The Claude Code settings file, plugin `hooks.json` or
        /// `.github/hooks/*.json` file.
        #[arg(value_name = "SETTINGS")]
        input: std::path::PathBuf,
        /// The plugin's directory: written into every hook's `env.set` as
        /// `CLAUDE_PLUGIN_ROOT`, which Claude Code sets for plugin hooks.
        #[arg(long, value_name = "DIR")]
        plugin_root: Option<String>,
        #[command(flatten)]
        out: ImportOutput,
    },
    /// Convert the hooks of an OpenAI Codex `hooks.json` (`.codex/` or
    /// `~/.codex/`) into agent-hooks YAML with `protocol: codex`; warns
    /// about what does not map.
    Codex {
        /// The Codex `hooks.json`.
        #[arg(value_name = "HOOKS")]
        input: std::path::PathBuf,
        #[command(flatten)]
        out: ImportOutput,
    },
    /// Convert the `hooks` of a Gemini CLI settings file (`.gemini/` or
    /// `~/.gemini/settings.json`) into agent-hooks YAML with
    /// `protocol: gemini`; warns about what does not map.
    Gemini {
        /// The Gemini CLI `settings.json`.
        #[arg(value_name = "SETTINGS")]
        input: std::path::PathBuf,
        #[command(flatten)]
        out: ImportOutput,
    },
    /// Convert a GitHub Copilot CLI hook file (`.github/hooks/*.json`, the
    /// CLI's camelCase events and the VS Code-compatible PascalCase ones)
    /// into agent-hooks YAML; warns about what does not map.
    Copilot {
        /// The Copilot hook file.
        #[arg(value_name = "HOOKS")]
        input: std::path::PathBuf,
        #[command(flatten)]
        out: ImportOutput,
    },
}

/// Where and how `agent-hooks import` writes the config.
#[derive(Debug, clap::Args)]
struct ImportOutput {
    /// Write the config here instead of stdout.
    #[arg(short, long, value_name = "OUT")]
    output: Option<std::path::PathBuf>,
    /// Format of the config: `yaml` (commented) or `json`.
    #[arg(long, value_enum, default_value_t = cli::import::ConfigFormat::Yaml)]
    format: cli::import::ConfigFormat,
}

impl ImportSource {
    /// Runs the import; returns the exit code.
    fn run(self) -> u8 {
        use agent_hooks::import::claude::Dialect;
        let (dialect, input, out) = match self {
            ImportSource::Claude {
                input,
                plugin_root,
                out,
            } => {
                return cli::import::run_claude(
                    &input,
                    plugin_root,
                    out.output.as_deref(),
                    out.format,
                );
            }
            ImportSource::Codex { input, out } => (Dialect::Codex, input, out),
            ImportSource::Gemini { input, out } => (Dialect::Gemini, input, out),
            ImportSource::Copilot { input, out } => (Dialect::CopilotCli, input, out),
        };
        cli::import::run_agent(&input, dialect, out.output.as_deref(), out.format)
    }
}

/// How a command prints data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Human-readable, rustc-style.
    Human,
    /// JSON on stdout.
    Json,
}

/// The schemas `agent-hooks schema` can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SchemaKind {
    /// The hook config (`hooks.yaml`).
    Config,
    /// The JSON a shell hook receives on stdin.
    Payload,
    /// The JSON a shell hook may print on stdout.
    Output,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let telemetry = export_telemetry();
    let code = run(cli);
    finish_telemetry(telemetry);
    ExitCode::from(code)
}

/// The telemetry export the binary runs (none without the `otlp` feature).
#[cfg(feature = "otlp")]
type Telemetry = agent_hooks::telemetry::Otlp;
#[cfg(not(feature = "otlp"))]
type Telemetry = std::convert::Infallible;

/// With the `otlp` feature and an `OTEL_EXPORTER_OTLP_*ENDPOINT` variable
/// set, installs the OTLP export of the hooks' spans and metrics (a
/// failure is a warning: telemetry never stops the command).
fn export_telemetry() -> Option<Telemetry> {
    #[cfg(feature = "otlp")]
    if agent_hooks::telemetry::requested_by_env() {
        return match Telemetry::from_env().and_then(Telemetry::install) {
            Ok(otlp) => Some(otlp),
            Err(err) => {
                eprintln!("warning: no telemetry export: {err}");
                None
            }
        };
    }
    None
}

/// Flushes the export before the process exits (a failure is a warning).
fn finish_telemetry(telemetry: Option<Telemetry>) {
    #[cfg(feature = "otlp")]
    if let Some(otlp) = telemetry
        && let Err(err) = otlp.shutdown()
    {
        eprintln!("warning: {err}");
    }
    #[cfg(not(feature = "otlp"))]
    let _ = telemetry;
}

/// Runs the command; returns the exit code.
fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Check {
            files,
            format,
            deny_warnings,
            workspace,
            stack,
        } => cli::check::run(
            &files,
            cli::check::Options {
                format,
                deny_warnings,
                workspace: &workspace.unwrap_or_else(|| std::path::PathBuf::from(".")),
                stack: stack.as_deref(),
            },
        ),
        Command::Schema { kind, tools } => cli::schema::run(kind, tools.as_deref()),
        Command::Test {
            config,
            stack,
            event,
            expect,
            junit,
            report,
            format,
        } => {
            let source = cli::drive::Source {
                config: config.as_deref(),
                stack: stack.as_deref(),
            };
            test(source, event, expect, junit, report, format)
        }
        Command::Explain {
            config,
            stack,
            event,
            all,
            format,
        } => {
            let source = cli::drive::Source {
                config: config.as_deref(),
                stack: stack.as_deref(),
            };
            cli::explain::run(source, &event, all, format)
        }
        Command::Replay {
            paths,
            stack,
            exec,
            report,
            format,
        } => {
            // Without a stack file, the first path is the config.
            let (config, inputs) = match (&stack, paths.split_first()) {
                (None, Some((config, inputs))) => (Some(config.as_path()), inputs),
                _ => (None, &paths[..]),
            };
            if inputs.is_empty() {
                cli::warn("error: give the session files to replay (after the config)");
                return cli::EXIT_USAGE;
            }
            let source = cli::drive::Source {
                config,
                stack: stack.as_deref(),
            };
            let mut read = source.files();
            read.extend(inputs.iter().map(std::path::PathBuf::as_path));
            match cli::refuse_overwrite(report.as_deref(), &read) {
                Ok(()) => cli::replay::run(source, inputs, exec, report.as_deref(), format),
                Err(code) => code,
            }
        }
        Command::Trust {
            config,
            stack,
            list,
            revoke,
            strict,
            workspace,
            store,
        } => cli::trust::run(&cli::trust::Args {
            config,
            stack,
            list,
            revoke,
            strict,
            workspace,
            store,
        }),
        Command::Hook {
            agent,
            event,
            configs,
            stack,
            records,
        } => cli::hook::run(
            agent,
            event.as_deref(),
            &configs,
            stack.as_deref(),
            records.as_deref(),
        ),
        Command::Serve(args) => cli::serve::run(args),
        Command::PolicyEval => cli::policy_eval(),
        Command::Import { source } => source.run(),
        Command::Init {
            agent,
            configs,
            stack,
            scope,
            settings,
            url,
            token_env,
            command,
            uninstall,
            import,
        } => cli::init::run(&cli::init::Args {
            agent,
            configs,
            stack,
            scope,
            settings,
            url,
            token_env,
            command,
            uninstall,
            import,
        }),
    }
}

/// `agent-hooks test`: one event (`--event`) or policy tests (`--expect`).
fn test(
    source: cli::drive::Source<'_>,
    event: Option<std::path::PathBuf>,
    expect: Option<std::path::PathBuf>,
    junit: Option<std::path::PathBuf>,
    report: Option<std::path::PathBuf>,
    format: Format,
) -> u8 {
    let mut read = source.files();
    match (event, expect) {
        (_, Some(cases)) => {
            read.push(&cases);
            match cli::refuse_overwrite(junit.as_deref(), &read) {
                Ok(()) => cli::expect::run(source, &cases, junit.as_deref(), format),
                Err(code) => code,
            }
        }
        (Some(_), None) if junit.is_some() => {
            cli::warn("error: `--junit` writes the results of `--expect`, not of `--event`");
            cli::EXIT_USAGE
        }
        (Some(event), None) => {
            read.push(&event);
            match cli::refuse_overwrite(report.as_deref(), &read) {
                Ok(()) => cli::test::run(source, &event, report.as_deref(), format),
                Err(code) => code,
            }
        }
        // clap requires one of them.
        (None, None) => cli::EXIT_USAGE,
    }
}
