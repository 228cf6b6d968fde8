//! `planseal update` refused by a leftover `.finalizing.json` prints a hint whose commands work
//! as printed: `planseal recover <plan dir> --dry-run` shows what happened and changes nothing,
//! then `planseal recover <plan dir>` (here with the helper marker's candidate) finishes.

use crate::support::finalize::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Every file under `dir` with its bytes (the lock directory shows up by its own files).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let rel = entry
                .path()
                .strip_prefix(base)
                .unwrap()
                .display()
                .to_string();
            if entry.file_type().unwrap().is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(base, &entry.path(), out);
            } else {
                out.insert(rel, read(entry.path()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// The text between the first pair of backticks after `after` in `text`.
fn quoted_command<'a>(text: &'a str, after: &str) -> &'a str {
    let rest = &text[text
        .find(after)
        .unwrap_or_else(|| panic!("{after} in {text}"))..];
    let start = rest.find('`').unwrap() + 1;
    let end = start + rest[start..].find('`').unwrap();
    &rest[start..end]
}

#[test]
fn marker_hint_names_the_plan_and_its_dry_run_changes_nothing() {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::from_folder(
        fixture,
        plan,
        &format!("interrupted/before_publish/plan-after-interruption/{plan}"),
    );
    ws.place("interrupted/candidate.json", "candidate.json");
    let before = snapshot(ws.root());

    let state = format!("{}/state.json", ws.plan_rel());
    let out = ws.run(&["update", &state, "--task", "1", "--status", "in_progress"]);
    assert_refused(&out, "marker-present");
    let hint = stderr(&out);
    let inspect = quoted_command(&hint, "inspect it with");
    let plan_dir = ws.plan_dir().canonicalize().unwrap();
    assert_eq!(
        inspect,
        format!("planseal recover {} --dry-run", plan_dir.display())
    );
    assert_eq!(snapshot(ws.root()), before);

    // the hint's command, run as printed: it shows the interruption and acts on nothing
    let args: Vec<&str> = inspect.split(' ').skip(1).collect();
    let out = ws.run(&args);
    assert_ok(&out);
    let text = stdout(&out);
    assert!(text.contains("interrupted publication found"), "{text}");
    assert!(text.contains("candidate-required"), "{text}");
    assert!(text.contains("nothing changed"), "{text}");
    assert_eq!(snapshot(ws.root()), before);

    // with the candidate: the plan is still untouched, and the plan says what would happen
    let out = ws.run(&[
        args[0],
        args[1],
        args[2],
        "--candidate",
        "candidate.json",
        "--json",
    ]);
    assert_ok(&out);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["result"], "ok");
    assert_eq!(doc["marker_present"], true);
    assert!(
        doc["would"].as_str().unwrap().starts_with("publish"),
        "{doc}"
    );
    assert_eq!(snapshot(ws.root()), before);

    // the second command of the hint finishes the publication
    let finish = quoted_command(&hint, "then run");
    assert_eq!(finish, format!("planseal recover {}", plan_dir.display()));
    let out = ws.run(&[args[0], args[1], "--candidate", "candidate.json"]);
    assert_ok(&out);
    assert!(!ws.exists(".finalizing.json"));
    assert!(ws.exists("analysis_results/FINALIZATION.json"));
}

#[test]
fn dry_run_without_a_marker_says_there_is_nothing_to_recover() {
    let (fixture, plan) = FIXTURES[1];
    let ws = Workspace::ready_to_publish(fixture, plan);
    let before = snapshot(ws.root());
    let out = ws.run(&["recover", &ws.plan_rel(), "--dry-run"]);
    assert_ok(&out);
    assert!(
        stdout(&out).contains("no interrupted publication"),
        "{}",
        stdout(&out)
    );
    assert_eq!(snapshot(ws.root()), before);
}
