use super::*;

fn var(name: &str) -> Option<String> {
    (name == "CLAUDE_PROJECT_DIR").then(|| "/w".to_owned())
}

/// The files `command` (shell form) runs, and whether anything is unknown.
fn files(command: &str) -> (Vec<String>, bool) {
    let found = shell_scripts(command, &var);
    (
        found.files.into_iter().map(|f| f.path).collect(),
        !found.unknown.is_empty(),
    )
}

fn exec(argv: &[&str]) -> (Vec<String>, bool) {
    let found = exec_scripts(argv, &var);
    (
        found.files.into_iter().map(|f| f.path).collect(),
        !found.unknown.is_empty(),
    )
}

fn bound(path: &str) -> (Vec<String>, bool) {
    (vec![path.to_owned()], false)
}

#[test]
fn every_command_form_names_its_script() {
    assert_eq!(files("sh hooks/guard.sh"), bound("hooks/guard.sh"));
    assert_eq!(files("bash -e F"), bound("F"));
    assert_eq!(files("bash -euo pipefail F"), bound("F"));
    assert_eq!(files("bash -o errexit --norc F x"), bound("F"));
    assert_eq!(files("sh F && true"), bound("F"));
    assert_eq!(files("env sh F"), bound("F"));
    assert_eq!(files("env -i A=1 B=2 sh F"), bound("F"));
    assert_eq!(files("A=1 sh F"), bound("F"));
    // bash sources `BASH_ENV` before any non-interactive shell runs.
    assert_eq!(
        files("BASH_ENV=hooks/y.sh bash -c 'echo hi'"),
        bound("hooks/y.sh")
    );
    assert_eq!(
        files("env BASH_ENV=y.sh bash F"),
        (vec!["y.sh".to_owned(), "F".to_owned()], false)
    );
    assert_eq!(
        exec(&["env", "BASH_ENV=y.sh", "bash", "F"]),
        (vec!["y.sh".to_owned(), "F".to_owned()], false)
    );
    assert_eq!(files("BASH_ENV=$X bash -c 'echo hi'"), (vec![], true));

    assert_eq!(files("cd d && sh F"), bound("d/F"));
    assert_eq!(files("cd d; cd e && ./F"), bound("d/e/F"));
    assert_eq!(files("sh -c 'sh F'"), bound("F"));
    assert_eq!(files("bash -ec 'cd d && sh F'"), bound("d/F"));
    assert_eq!(files(". F"), bound("F"));
    assert_eq!(files("source lib.sh && run"), bound("lib.sh"));
    assert_eq!(
        files("\"$CLAUDE_PROJECT_DIR\"/hooks/x.sh"),
        bound("/w/hooks/x.sh")
    );
    assert_eq!(files("${CLAUDE_PROJECT_DIR}/h.py --x"), bound("/w/h.py"));
    assert_eq!(files("python3 -u check.py"), bound("check.py"));
    assert_eq!(files("python3 -W ignore check.py"), bound("check.py"));
    assert_eq!(
        files("node --require ./pre.js x.mjs"),
        (vec!["./pre.js".into(), "x.mjs".into()], false)
    );
    assert_eq!(files("perl -w -Mstrict x.pl"), bound("x.pl"));
    assert_eq!(files("ruby -W0 x.rb"), bound("x.rb"));
    assert_eq!(files("uv run --quiet a/b"), bound("a/b"));
    assert_eq!(files("uv run --with x python tool.py"), bound("tool.py"));
    assert_eq!(files("timeout 5 sh F 2>/dev/null"), bound("F"));
    assert_eq!(files("exec sh F"), bound("F"));
    assert_eq!(
        files("(cd d && sh F); sh G"),
        (vec!["d/F".into(), "G".into()], false)
    );
    assert_eq!(files("if [ -f x ]; then sh F; fi"), bound("F"));
    assert_eq!(
        files("[[ $X =~ \\.(js|ts)$ ]] && { npx prettier; }"),
        (vec![], false)
    );
    assert_eq!(exec(&["bash", "-e", "F"]), bound("F"));
    assert_eq!(exec(&["env", "X=1", "sh", "F"]), bound("F"));
    assert_eq!(exec(&["sh", "-c", "sh F"]), bound("F"));
    assert_eq!(exec(&["/usr/bin/python3", "check.py"]), bound("check.py"));
}

#[test]
fn wrappers_bind_the_script_they_run() {
    for command in [
        "nice sh F",
        "nice -n 10 sh F",
        "nice -n10 sh F",
        "nice -5 sh F",
        "nice --adjustment=5 sh F",
        "nice --adjustment 5 sh F",
        "/usr/bin/nice -n 1 sh F",
        "stdbuf -oL sh F",
        "stdbuf -o L -e 0 sh F",
        "stdbuf --output=L sh F",
        "exec -a NAME sh F",
        "exec -cl -a NAME sh F",
        "exec -aNAME sh F",
        "timeout 5 sh F",
        "timeout -s KILL -k 1 5 sh F",
        "timeout --signal=KILL --preserve-status 5s sh F",
        "timeout --kill-after 1 5 sh F",
        "nohup sh F",
        "command sh F",
        "command -p sh F",
        "time sh F",
        "time -p sh F",
        "time -f %e -o t.log sh F",
        "setsid sh F",
        "setsid -fw sh F",
        "ionice -c 3 sh F",
        "ionice -c2 -n7 -t sh F",
        "chrt 10 sh F",
        "chrt -r -T 5 1 sh F",
        "taskset -c 0,1 sh F",
        "nice -n 5 -- sh F",
        "nohup nice -n 5 stdbuf -oL timeout 5 sh F",
        "env A=1 nice -n 5 sh F",
    ] {
        assert_eq!(files(command), bound("F"), "{command}");
    }
    // The word that names the script in an exec-form argv.
    let found = exec_scripts(&["nice", "-n", "5", "bash", "hooks/x.sh"], &var);
    assert_eq!(found.files[0].word, Some(4));
    assert_eq!(exec(&["stdbuf", "-oL", "./hook.sh"]), bound("./hook.sh"));
}

#[test]
fn wrappers_that_run_no_command_bind_nothing() {
    for command in [
        "command -v sh F",
        "command -V sh",
        "ionice -p 12 sh F",
        "ionice --pid 12",
        "chrt -p 5 12",
        "chrt -m",
        "taskset -p 3 12",
        "nice",
        "timeout 5",
    ] {
        assert_eq!(files(command), (vec![], false), "{command}");
    }
}

#[test]
fn a_command_run_with_arguments_from_the_input_is_unknown() {
    for command in [
        "xargs sh F",
        "find . -name '*.sh' | xargs -n1 sh",
        "xargs -I{} sh {}",
    ] {
        let found = shell_scripts(command, &var);
        assert!(found.files.is_empty(), "{command}: {found:?}");
        assert!(
            found.unknown.iter().any(|u| u.contains("`xargs`")),
            "{command}: {found:?}"
        );
    }
    assert!(exec(&["/usr/bin/xargs", "sh", "F"]).1);
}

#[test]
fn inline_code_and_path_programs_bind_nothing_and_are_known() {
    assert_eq!(files("bash -c 'exit 0'"), (vec![], false));
    assert_eq!(files("node -e 'process.exit(0)'"), (vec![], false));
    assert_eq!(files("python3 -c 'print(1)'"), (vec![], false));
    assert_eq!(files("perl -wle 'print 1'"), (vec![], false));
    assert_eq!(files("jq -e .tool_input payload"), (vec![], false));
    assert_eq!(files("echo hi | cat"), (vec![], false));
    assert_eq!(files("uv pip list"), (vec![], false));
}

#[test]
fn modules_are_named_with_their_directory() {
    let found = shell_scripts("cd tools && python3 -m pkg.check", &var);
    assert_eq!(
        found.modules,
        [("pkg.check".to_owned(), "tools".to_owned())]
    );
    assert!(found.unknown.is_empty());
    assert_eq!(
        exec_scripts(&["python3", "-Im", "m"], &var).modules,
        [("m".to_owned(), String::new())]
    );
}

#[test]
fn what_cannot_be_determined_is_named() {
    for command in [
        "sh $ROOT/x.sh",
        "$TOOL run",
        "sh \"$(dirname \"$0\")\"/x.sh",
        "bash",
        "sh -s",
        "sh < x.sh",
        "cd $D && sh F",
        "(cd d); sh F; cd $X && sh G",
        "python3 -",
        "sh 'open",
        "env -S 'sh F'",
        "sh -c \"$CMD\"",
        "sh *.sh",
    ] {
        assert!(files(command).1, "{command} should be unknown");
    }
    // Without CLAUDE_PROJECT_DIR set, its form is unknown too.
    let none = |_: &str| None;
    assert!(
        !shell_scripts("\"$CLAUDE_PROJECT_DIR\"/x.sh", &none)
            .unknown
            .is_empty()
    );
}

#[test]
fn exec_form_words_are_located() {
    let found = exec_scripts(&["bash", "-e", "hooks/x.sh"], &var);
    assert_eq!(found.files[0].word, Some(2));
    assert_eq!(found.files[0].kind, ScriptKind::Shell);
    let program = exec_scripts(&["./hook.sh"], &var);
    assert_eq!(program.files[0].kind, ScriptKind::Program);
}

#[test]
fn sourced_files_are_found() {
    let script = "#!/bin/sh\nset -e\n. ./lib.sh\nif [ -f x ]; then source \"$CLAUDE_PROJECT_DIR\"/conf.sh; fi\necho '. not.sh'\n# . comment.sh\n. \"$(dirname \"$0\")/dyn.sh\"\ncat <<EOF\nit's here\nEOF\n";
    let found = sourced_files(script, &var);
    let paths: Vec<&str> = found.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["./lib.sh", "/w/conf.sh"]);
    assert_eq!(found.unknown.len(), 1, "{:?}", found.unknown);
}

#[test]
fn shell_scripts_are_recognized() {
    assert!(is_shell_script("x", b"#!/bin/bash\n"));
    assert!(is_shell_script("x", b"#!/usr/bin/env -S bash -e\n"));
    assert!(!is_shell_script("x.sh", b"#!/usr/bin/env python3\n"));
    assert!(is_shell_script("x.sh", b"echo\n"));
    assert!(!is_shell_script("x.py", b"print()\n"));
}
