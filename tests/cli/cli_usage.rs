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
