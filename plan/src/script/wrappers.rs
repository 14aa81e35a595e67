//! Commands that run another command given on their own command line
//! (`nice -n 5 sh F`, `stdbuf -oL sh F`, `exec -a NAME sh F`,
//! `timeout -s KILL 5 sh F`), read from one table of their option syntax,
//! and those that take the command's arguments from their input (`xargs`),
//! whose script cannot be named. `env`, which also sets a directory and
//! splits strings, has its own reader ([`super::interp::env_command`]).

use super::Word;

/// One wrapper's command-line syntax: `NAME [options] [operands] COMMAND…`.
/// The option syntax is the GNU coreutils / util-linux one (the shell's
/// own for the builtins): short letters cluster (`setsid -fw`), a letter
/// that takes a value takes the rest of its word or the next word
/// (`-n5`, `-n 5`, `stdbuf -oL`), a long option takes `--opt=V` or
/// `--opt V`, and `--` ends the options.
struct Wrapper {
    names: &'static [&'static str],
    /// A shell builtin or keyword: only its bare name is this wrapper
    /// (`/usr/bin/exec` is not).
    builtin: bool,
    /// Short option letters that take a value.
    value: &'static str,
    /// Long options that take a value.
    long_value: &'static [&'static str],
    /// Short option letters after which no command runs (`command -v`
    /// prints where a name is found; `ionice -p PID` changes a running
    /// process).
    inert: &'static str,
    /// Long spellings of the `inert` options.
    long_inert: &'static [&'static str],
    /// Operands before the command (`timeout DURATION`, `chrt PRIORITY`).
    operands: usize,
    /// `-5` is an option (`nice -5 COMMAND`, the old spelling of `-n 5`).
    numeric: bool,
    /// The command's arguments come from the input (`xargs sh`): what it
    /// runs cannot be named.
    from_input: bool,
}

/// A wrapper whose command follows its options.
const PLAIN: Wrapper = Wrapper {
    names: &[],
    builtin: false,
    value: "",
    long_value: &[],
    inert: "",
    long_inert: &[],
    operands: 0,
    numeric: false,
    from_input: false,
};

/// The wrappers, from their manual pages (coreutils 9, util-linux 2.39,
/// bash 5's builtins).
const WRAPPERS: &[Wrapper] = &[
    // `exec [-cl] [-a NAME] COMMAND…`, `command [-pVv] COMMAND…`,
    // `builtin NAME…`.
    Wrapper {
        names: &["exec"],
        builtin: true,
        value: "a",
        ..PLAIN
    },
    Wrapper {
        names: &["command"],
        builtin: true,
        inert: "vV",
        ..PLAIN
    },
    Wrapper {
        names: &["builtin"],
        builtin: true,
        ..PLAIN
    },
    // The `time [-p]` keyword, or GNU `time [-f FORMAT] [-o FILE] …`.
    Wrapper {
        names: &["time"],
        value: "fo",
        long_value: &["--format", "--output"],
        ..PLAIN
    },
    Wrapper {
        names: &["nohup"],
        ..PLAIN
    },
    // `nice [-n N] COMMAND…`, also `nice -N COMMAND…`.
    Wrapper {
        names: &["nice"],
        value: "n",
        long_value: &["--adjustment"],
        numeric: true,
        ..PLAIN
    },
    // `stdbuf -oL COMMAND…`.
    Wrapper {
        names: &["stdbuf"],
        value: "ioe",
        long_value: &["--input", "--output", "--error"],
        ..PLAIN
    },
    // `timeout [-s SIG] [-k DURATION] DURATION COMMAND…`.
    Wrapper {
        names: &["timeout"],
        value: "sk",
        long_value: &["--signal", "--kill-after"],
        operands: 1,
        ..PLAIN
    },
    // `setsid [-cfw] COMMAND…`.
    Wrapper {
        names: &["setsid"],
        ..PLAIN
    },
    // `ionice [-c CLASS] [-n LEVEL] [-t] COMMAND…`; `-p`/`-P`/`-u` take
    // ids of running processes instead.
    Wrapper {
        names: &["ionice"],
        value: "cn",
        long_value: &["--class", "--classdata"],
        inert: "pPu",
        long_inert: &["--pid", "--pgid", "--uid"],
        ..PLAIN
    },
    // `chrt [options] PRIORITY COMMAND…`; `-p` changes a running process,
    // `-m` prints the priorities.
    Wrapper {
        names: &["chrt"],
        value: "TPD",
        long_value: &["--sched-runtime", "--sched-period", "--sched-deadline"],
        inert: "pm",
        long_inert: &["--pid", "--max"],
        operands: 1,
        ..PLAIN
    },
    // `taskset [-a] [-c] MASK COMMAND…`; `-p` changes a running process.
    Wrapper {
        names: &["taskset"],
        inert: "p",
        long_inert: &["--pid"],
        operands: 1,
        ..PLAIN
    },
    // `xargs [options] [COMMAND [ARGS]]`: the rest of the arguments (or
    // all of them, with `-I`) come from the input.
    Wrapper {
        names: &["xargs"],
        from_input: true,
        ..PLAIN
    },
];

/// What a wrapper runs.
#[derive(Debug)]
pub(super) enum Wrapped<'a> {
    /// The command in these words (empty: none).
    Command(&'a [Word]),
    /// No command (`command -v sh`, `ionice -p 12`).
    Nothing,
    /// What cannot be determined, a phrase naming it.
    Unknown(String),
}

/// What `program` (a word as written: `nice`, `/usr/bin/nice`) runs with
/// `args`, when it is a wrapper of [`WRAPPERS`]; `None` otherwise.
pub(super) fn wrapped<'a>(program: &str, args: &'a [Word]) -> Option<Wrapped<'a>> {
    let name = program.rsplit('/').next().unwrap_or_default();
    let w = WRAPPERS
        .iter()
        .find(|w| w.names.contains(&name) && (!w.builtin || program == name))?;
    if w.from_input {
        return Some(Wrapped::Unknown(format!(
            "the command `{program}` runs, its arguments read from its input"
        )));
    }
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let t = arg.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let key = long.split_once('=').map_or(long, |(k, _)| k);
            let key = format!("--{key}");
            if w.long_inert.contains(&key.as_str()) {
                return Some(Wrapped::Nothing);
            }
            let takes_next = !long.contains('=') && w.long_value.contains(&key.as_str());
            i += if takes_next { 2 } else { 1 };
            continue;
        }
        let Some(body) = t.strip_prefix('-').filter(|b| !b.is_empty()) else {
            break;
        };
        if w.numeric && body.chars().all(|c| c.is_ascii_digit()) {
            i += 1;
            continue;
        }
        for (k, c) in body.char_indices() {
            if w.inert.contains(c) {
                return Some(Wrapped::Nothing);
            }
            if w.value.contains(c) {
                // The value is the rest of the word, or the next word.
                if k + c.len_utf8() == body.len() {
                    i += 1;
                }
                break;
            }
        }
        i += 1;
    }
    Some(Wrapped::Command(
        args.get(i + w.operands..).unwrap_or_default(),
    ))
}
