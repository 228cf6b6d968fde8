//! `planseal --version` and the plain forms of `gsd statusline` are answered before the argument
//! parser is built (`src/cli/fast.rs`). Each answers exactly as the parser's path does: the same
//! run with a global flag (`--color never`, which neither prints with colour) goes through clap.

use crate::support::run::Planseal;
use std::path::Path;

const STATE: &str = "---\nmilestone: v2.0\nstatus: executing\nactive_phase: \"4\"\n---\n";

fn run(cwd: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    Planseal::new()
        .cwd(cwd)
        .env("HOME", "/nonexistent-home")
        .args(args)
        .stdin(stdin.to_string())
        .output()
        .into_parts()
}

/// The run as given (the fast path) and with `--color never` in front (clap's path).
fn both_paths(cwd: &Path, args: &[&str], stdin: &str) -> [(i32, String, String); 2] {
    let mut through_clap = vec!["--color", "never"];
    through_clap.extend_from_slice(args);
    [run(cwd, args, stdin), run(cwd, &through_clap, stdin)]
}

#[test]
fn fast_forms_answer_as_the_parser_does() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(project.join(".planning")).unwrap();
    std::fs::write(project.join(".planning/STATE.md"), STATE).unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let workspace = format!(
        r#"{{"workspace":{{"current_dir":"{}"}}}}"#,
        project.display()
    );
    let nowhere = r#"{"workspace":{"current_dir":"/nonexistent-dir"}}"#;
    let cases: Vec<(&Path, Vec<&str>, &str)> = vec![
        (dir.path(), vec!["--version"], ""),
        (dir.path(), vec!["-V"], ""),
        (&project, vec!["gsd", "statusline"], ""),
        (&project, vec!["gsd", "statusline", "--compact"], ""),
        (
            dir.path(),
            vec!["gsd", "statusline", "proj/.planning/STATE.md"],
            "",
        ),
        (dir.path(), vec!["gsd", "statusline", "--stdin"], &workspace),
        (
            dir.path(),
            vec!["gsd", "statusline", "--compact", "--stdin"],
            &workspace,
        ),
        (dir.path(), vec!["gsd", "statusline", "--stdin"], nowhere),
        (
            dir.path(),
            vec!["gsd", "statusline", "--stdin", "--segment"],
            &workspace,
        ),
        (
            dir.path(),
            vec!["gsd", "statusline", "--segment", "--compact", "--stdin"],
            &workspace,
        ),
        // the whole line's errors: malformed JSON, --strict without --segment
        (
            dir.path(),
            vec!["gsd", "statusline", "--stdin"],
            "{not json",
        ),
        (
            dir.path(),
            vec!["gsd", "statusline", "--stdin", "--strict"],
            &workspace,
        ),
        // nothing found: nothing printed, or with --strict the usage error (exit 2)
        (&empty, vec!["gsd", "statusline"], ""),
        (&empty, vec!["gsd", "statusline", "--strict"], ""),
        (
            dir.path(),
            vec!["gsd", "statusline", "--strict", "missing.md"],
            "",
        ),
    ];
    for (cwd, args, stdin) in cases {
        let [fast, parsed] = both_paths(cwd, &args, stdin);
        assert_eq!(fast, parsed, "{args:?}");
    }
    let [version, _] = both_paths(dir.path(), &["--version"], "");
    assert_eq!(
        version,
        (
            0,
            format!("planseal {}\n", env!("CARGO_PKG_VERSION")),
            String::new()
        )
    );
    let [line, _] = both_paths(&project, &["gsd", "statusline"], "");
    assert_eq!(
        line,
        (0, "v2.0 · Phase 4 executing".to_string(), String::new())
    );
    let [strict, _] = both_paths(&empty, &["gsd", "statusline", "--strict"], "");
    assert_eq!(strict.0, 2, "{strict:?}");
}

#[test]
fn forms_the_fast_path_does_not_know_still_reach_the_parser() {
    let dir = tempfile::tempdir().unwrap();
    // A repeated flag and FILE with --stdin are clap's usage errors, as before.
    for args in [
        &["gsd", "statusline", "--stdin", "--stdin"][..],
        &["gsd", "statusline", "--stdin", "STATE.md"],
        &["gsd", "statusline", "--bogus"],
        &["gsd", "statusline", "--segment"],
    ] {
        let (code, stdout, stderr) = run(dir.path(), args, "");
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(stderr.starts_with("usage-error: "), "{args:?}: {stderr}");
    }
    let (code, stdout, _) = run(dir.path(), &["gsd", "statusline", "--help"], "");
    assert_eq!(code, 0);
    assert!(stdout.contains("--stdin"), "{stdout}");
}
