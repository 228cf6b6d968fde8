//! Usage errors: exit 2, the stable kind `usage-error` leading stderr, and a JSON document on
//! stdout with `--json` — while `--help` and `--version` stay successful.

use crate::support::run::{Planseal, Run};

fn planseal(args: &[&str]) -> Run {
    Planseal::new().args(args).output()
}

#[test]
fn a_bad_value_is_a_usage_error_with_its_kind_first() {
    let out = planseal(&["update", "state.json", "--task", "1", "--status", "done"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = &out.stderr;
    assert!(
        stderr.starts_with("usage-error: invalid value 'done'"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no data on stdout without --json");
}

#[test]
fn json_usage_error_is_a_document_on_stdout() {
    let out = planseal(&["--json", "unlock", "some/state.json", "--force"]);
    assert_eq!(out.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    assert_eq!(doc["result"], "error");
    assert_eq!(doc["kind"], "usage-error");
    assert!(
        doc["message"]
            .as_str()
            .unwrap_or_default()
            .contains("required arguments"),
        "{doc}"
    );
    assert!(out.stderr.contains("--reason <TEXT>"));
    // The message names what is missing, and so does the list.
    assert!(
        doc["message"]
            .as_str()
            .unwrap_or_default()
            .contains("--reason <TEXT>"),
        "{doc}"
    );
    assert_eq!(doc["arguments"], serde_json::json!(["--reason <TEXT>"]));
    // `result` first, then kind, message, hint: the one envelope.
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["result", "kind", "message", "hint", "arguments"]);
}

/// A refusal's fields are at the top level of its document (they were under `refusal`).
#[test]
fn a_refusal_is_a_document_with_its_kind_at_the_top() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::run::Planseal::new()
        .cwd(dir.path())
        .args([
            "--json",
            "update",
            "missing/state.json",
            "--task",
            "1",
            "--status",
            "in_progress",
        ])
        .output();
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("stdout is JSON");
    assert_eq!(doc["result"], "refused");
    assert_eq!(doc["kind"], "state-missing");
    assert!(doc.get("refusal").is_none(), "{doc}");
    assert!(doc["hint"].is_string(), "{doc}");
}

#[test]
fn help_and_version_are_not_errors() {
    let help = planseal(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(help.stdout.contains("Examples:"));
    let version = planseal(&["--version"]);
    assert_eq!(version.status.code(), Some(0));
    assert!(version.stdout.starts_with("planseal "));
}
