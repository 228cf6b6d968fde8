//! `planseal completions SHELL` and `planseal man`: the bash, zsh and fish scripts are valid for
//! their shells (`bash -n`, `zsh -n`, `fish -n`) and complete real commands; the powershell and
//! elvish scripts are pinned by snapshots; every manual page renders with `man -l` without a
//! warning, one page per command the `--help` tree lists.
//!
//! bash, zsh, fish and man-db must be installed (scripts/test installs them): a missing shell
//! fails the test, it is never skipped.

use crate::support::run::{Planseal, hermetic};
use std::path::Path;
use std::process::Stdio;

fn script(shell: &str) -> String {
    let run = Planseal::new().args(["completions", shell]).output();
    assert_eq!(run.code, 0, "completions {shell}: {}", run.stderr);
    assert_eq!(run.stderr, "", "completions {shell}");
    assert!(
        run.stdout.len() > 1000,
        "completions {shell}: {}",
        run.stdout
    );
    run.stdout
}

/// Runs `program args…` in the hermetic environment; (exit code, stdout, stderr).
fn run_tool(program: &str, args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = hermetic(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {program} (scripts/test installs it): {e}"));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The script of `shell` parses in that shell (`SHELL -n FILE`).
fn parses_in(shell: &str, file_name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(file_name), script(shell)).unwrap();
    let (code, out, err) = run_tool(shell, &["-n", file_name], dir.path());
    assert_eq!(code, 0, "{shell} -n {file_name}: {out}{err}");
    assert_eq!(err, "", "{shell} -n {file_name}");
    (dir, file_name.to_string())
}

#[test]
fn bash_script_parses_and_completes_subcommands_and_values() {
    let (dir, file) = parses_in("bash", "planseal.bash");
    // What the script offers, as bash's programmable completion would call it.
    let complete = |words: &[&str]| -> Vec<String> {
        let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let cword = words.len() - 1;
        let prev = if cword > 0 { words[cword - 1] } else { "" };
        let code = format!(
            "source ./{file}; COMP_WORDS=({}); COMP_CWORD={cword}; _planseal planseal '{}' '{prev}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            quoted.join(" "),
            words[cword],
        );
        let (status, out, err) = run_tool("bash", &["-c", &code], dir.path());
        assert_eq!(status, 0, "{words:?}: {err}");
        out.lines().map(str::to_string).collect()
    };
    assert_eq!(
        complete(&["planseal", "gsd", "s"]),
        ["statusline", "status", "sync", "session"]
    );
    let shells = complete(&["planseal", "completions", ""]);
    let values: Vec<&str> = shells
        .iter()
        .map(String::as_str)
        .filter(|w| !w.starts_with('-'))
        .collect();
    assert_eq!(values, ["bash", "elvish", "fish", "powershell", "zsh"]);
    let verify_flags = complete(&["planseal", "verify", "--"]);
    for flag in ["--plan", "--dwp-dir", "--gsd", "--json"] {
        assert!(verify_flags.iter().any(|f| f == flag), "{verify_flags:?}");
    }
}

#[test]
fn zsh_script_parses() {
    let (dir, file) = parses_in("zsh", "_planseal");
    let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
    assert!(text.starts_with("#compdef planseal"), "{}", &text[..80]);
}

#[test]
fn fish_script_parses_and_completes_subcommands() {
    let (dir, file) = parses_in("fish", "planseal.fish");
    let code = format!("source {file}; complete -C 'planseal gsd s'");
    let (status, out, err) = run_tool("fish", &["--no-config", "-c", &code], dir.path());
    assert_eq!(status, 0, "{err}");
    let offered: Vec<&str> = out
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default())
        .collect();
    assert_eq!(
        offered,
        ["session", "status", "statusline", "sync"],
        "{out}"
    );
}

fn snapshot(name: &str, text: &str) {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_description(format!("planseal completions {name}"));
    settings.bind(|| insta::assert_snapshot!(format!("completions_{name}"), text));
}

#[test]
fn powershell_script_is_pinned() {
    let text = script("powershell");
    assert!(text.contains("Register-ArgumentCompleter -Native -CommandName 'planseal'"));
    snapshot("powershell", &text);
}

#[test]
fn elvish_script_is_pinned() {
    let text = script("elvish");
    assert!(text.contains("set edit:completion:arg-completer[planseal]"));
    snapshot("elvish", &text);
}

#[test]
fn completions_json_carries_the_same_script() {
    let run = Planseal::new()
        .args(["--json", "completions", "fish"])
        .output();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let v = run.json();
    assert_eq!(v["result"], "ok");
    assert_eq!(v["shell"], "fish");
    assert_eq!(v["script"], script("fish"));
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let run = Planseal::new().args(["completions", "tcsh"]).output();
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("tcsh"), "{}", run.stderr);
    assert_eq!(run.stdout, "");
}

/// Every command path the `--help` tree lists (`[]`, `["gsd"]`, `["gsd", "sync"]`, …).
fn command_paths() -> Vec<Vec<String>> {
    let mut found = Vec::new();
    let mut queue: Vec<Vec<String>> = vec![Vec::new()];
    while let Some(words) = queue.pop() {
        let run = Planseal::new().args(&words).arg("--help").output();
        assert_eq!(run.code, 0, "{words:?}: {}", run.stderr);
        if let Some((_, list)) = run.stdout.split_once("Commands:\n") {
            for line in list.lines().take_while(|l| !l.trim().is_empty()) {
                let Some(name) = line.strip_prefix("  ").filter(|l| !l.starts_with(' ')) else {
                    continue;
                };
                let name = name.split_whitespace().next().expect("a command name");
                if name != "help" {
                    let mut sub = words.clone();
                    sub.push(name.to_string());
                    queue.push(sub);
                }
            }
        }
        found.push(words);
    }
    found
}

#[test]
fn man_writes_one_page_per_command_and_each_renders_without_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let run = Planseal::new()
        .cwd(dir.path())
        .args(["--json", "man", "--out", "man1"])
        .output();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut written: Vec<String> = run.json()["written"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    written.sort();
    let mut expected: Vec<String> = command_paths()
        .iter()
        .map(|words| {
            let name = std::iter::once("planseal")
                .chain(words.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join("-");
            format!("man1/{name}.1")
        })
        .collect();
    expected.sort();
    assert_eq!(written, expected);
    assert!(expected.contains(&"man1/planseal-gsd-sync.1".to_string()));
    let mut on_disk: Vec<String> = std::fs::read_dir(dir.path().join("man1"))
        .unwrap()
        .map(|e| format!("man1/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, expected);

    for page in &expected {
        // man's own warnings and groff's (--warnings turns on groff's -w mac default set)
        for extra in [&[][..], &["--warnings"][..]] {
            let mut args = extra.to_vec();
            args.extend(["-l", page.as_str()]);
            let out = hermetic("man")
                .env("MANWIDTH", "80")
                .args(&args)
                .current_dir(dir.path())
                .output()
                .expect("man (man-db; scripts/test installs it)");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "man {args:?}: {stderr}");
            assert_eq!(stderr, "", "man {args:?}");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("NAME"), "{page}: {text}");
        }
    }
    // The sync page documents its own flags and its examples.
    let sync = std::fs::read_to_string(dir.path().join("man1/planseal-gsd-sync.1")).unwrap();
    assert!(sync.contains("\\-\\-write"), "{sync}");
    assert!(sync.contains("planseal gsd sync"), "{sync}");
}

#[test]
fn man_without_out_prints_the_top_page_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = Planseal::new().cwd(dir.path()).arg("man").output();
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout.contains(".TH planseal 1"), "{}", run.stdout);
    assert!(
        run.stdout.contains("planseal\\-verify(1)"),
        "{}",
        run.stdout
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // the same bytes as the page --out writes
    let out = Planseal::new()
        .cwd(dir.path())
        .args(["man", "--out", "m"])
        .output();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("m/planseal.1")).unwrap(),
        run.stdout
    );
}

#[test]
fn man_out_that_is_a_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("taken"), "x").unwrap();
    let run = Planseal::new()
        .cwd(dir.path())
        .args(["man", "--out", "taken"])
        .output();
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--out taken"), "{}", run.stderr);
    assert_eq!(std::fs::read(dir.path().join("taken")).unwrap(), b"x");
}
