//! `planseal schema`: the JSON Schema of each command's `--json` documents, and the check that
//! holds the suite's documents to it (scripts/check-json-documents.py, run by scripts/test).

use crate::support::run::{BIN, Planseal, json};
use std::path::Path;
use std::process::Command;

fn checker(folder: &Path) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-json-documents.py");
    Command::new("python3")
        .arg(script)
        .arg(BIN)
        .arg(folder)
        .output()
        .expect("python3 runs the checker")
}

fn keep(folder: &Path, name: &str, args: &[&str], code: i32, stdout: &str) {
    let record = serde_json::json!({ "args": args, "code": code, "stdout": stdout });
    std::fs::write(folder.join(name), record.to_string()).unwrap();
}

#[test]
fn a_commands_schema_is_the_envelope_of_its_outcome() {
    let run = Planseal::new().args(["schema", "gsd", "sync"]).output();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let schema = json(&run.stdout);
    assert_eq!(schema["title"], "planseal gsd sync --json");
    let titles: Vec<&str> = schema["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["success", "refused", "error"]);
    assert!(schema["$defs"]["SyncOutcome"]["properties"]["drift"].is_object());
    // Quoted together, the words name the same command.
    let quoted = Planseal::new().args(["schema", "gsd sync"]).output();
    assert_eq!(quoted.stdout, run.stdout);

    let all = json(&Planseal::new().arg("schema").output().stdout);
    assert!(all["checkpoint session add"].is_object());
    assert!(all.get("schema").is_none());
}

#[test]
fn schema_of_an_unknown_command_is_a_usage_error_that_lists_the_commands() {
    let run = Planseal::new().args(["schema", "nosuch"]).output();
    assert_eq!(run.code, 2);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.contains("schema nosuch: no such command"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("gsd sync"), "{}", run.stderr);
}

#[test]
fn the_document_check_fails_a_document_its_schema_does_not_describe() {
    let dir = tempfile::tempdir().unwrap();
    // A real document passes.
    let real = Planseal::new()
        .args(["--json", "completions", "bash"])
        .output();
    assert_eq!(real.code, 0);
    keep(
        dir.path(),
        "1.json",
        &["--json", "completions", "bash"],
        0,
        &real.stdout,
    );
    let out = checker(dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 documents checked"));

    // An update document without its fields, and a refusal with a kind that is no kind, fail.
    keep(
        dir.path(),
        "2.json",
        &["--json", "update"],
        0,
        r#"{"result": "applied"}"#,
    );
    let refusal = r#"{"result": "refused", "kind": "Not A Kind", "message": "m"}"#;
    keep(
        dir.path(),
        "3.json",
        &["--json", "-C", "x", "approve", "p"],
        1,
        refusal,
    );
    let out = checker(dir.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("planseal --json update (exit 0)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("planseal --json -C x approve p (exit 1)"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("3 documents checked"));
}

#[test]
fn with_every_command_the_document_check_fails_a_command_no_test_covered() {
    let dir = tempfile::tempdir().unwrap();
    let real = Planseal::new()
        .args(["--json", "completions", "bash"])
        .output();
    keep(
        dir.path(),
        "1.json",
        &["--json", "completions", "bash"],
        0,
        &real.stdout,
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/check-json-documents.py");
    let out = Command::new("python3")
        .arg(script)
        .arg("--every-command")
        .arg(BIN)
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("no test ran these commands with --json: verify, update"),
        "{stderr}"
    );
}

#[test]
fn the_document_check_fails_when_no_document_was_kept() {
    let dir = tempfile::tempdir().unwrap();
    let out = checker(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no documents were kept"));
}
