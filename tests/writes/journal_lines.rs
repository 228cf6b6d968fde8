//! Every applied transition appends one line saying what really happened — a
//! rollback publishes nothing (no `completed`, no receipt), a roll-forward journals the
//! publication it completed, and `finalize --allow-dirty --reason` journals the accepted
//! exception and its reason. Every line has `time` (what `rebuild` dates tasks by).

use crate::support::finalize::*;
use crate::support::gitrepo;
use serde_json::Value;

const JOURNAL: &str = "analysis_results/STATE_JOURNAL.ndjson";

fn journal(ws_plan: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(ws_plan.join(JOURNAL)).unwrap_or_default();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn interrupted(case: &str) -> Workspace {
    let (fixture, plan) = FIXTURES[0];
    let ws = Workspace::from_folder(
        fixture,
        plan,
        &format!("interrupted/{case}/plan-after-interruption/{plan}"),
    );
    ws.place("interrupted/candidate.json", "candidate.json");
    ws
}

fn assert_timed(line: &Value) {
    let time = line["time"]
        .as_str()
        .unwrap_or_else(|| panic!("no time: {line}"));
    assert!(time.contains('T') && time.ends_with("+00:00"), "{line}");
}

#[test]
fn rollback_journals_a_rollback_not_a_publication() {
    let ws = interrupted("before_publish");
    let state = ws.state();
    let status = serde_json::from_slice::<Value>(&state).unwrap()["status"].clone();
    let lines_before = journal(&ws.plan_dir()).len();

    let out = ws.run(&["recover", &ws.plan_rel(), "--rollback"]);
    assert_ok(&out);
    assert_eq!(ws.state(), state);
    assert!(!ws.exists(".finalizing.json"));
    assert!(!ws.exists("analysis_results/FINALIZATION.json"));

    let lines = journal(&ws.plan_dir());
    assert_eq!(lines.len(), lines_before + 1);
    let line = lines.last().unwrap();
    assert_timed(line);
    assert_eq!(line["operation"], "recover --rollback");
    assert_eq!(line["result"], "rolled-back");
    assert_ne!(line["to"], "completed", "{line}");
    assert_eq!(line["to"], status);
    assert_eq!(line["from"], status);
    assert!(line.get("receipt").is_none(), "{line}");
    assert_eq!(line["before_sha256"], sha256(&state));
    assert_eq!(line["after_sha256"], sha256(&state));
    assert_eq!(line["state_changed"], false);
    assert_eq!(line["marker_removed"], ".finalizing.json");
}

#[test]
fn roll_forward_journals_the_publication_it_completed() {
    let ws = interrupted("before_publish");
    let state = ws.state();
    let candidate = read(ws.root().join("candidate.json"));
    let out = ws.run(&["recover", &ws.plan_rel(), "--candidate", "candidate.json"]);
    assert_ok(&out);
    assert_eq!(ws.state(), candidate);

    let line = journal(&ws.plan_dir()).pop().unwrap();
    assert_timed(&line);
    assert_eq!(line["operation"], "recover");
    assert_eq!(line["to"], "completed");
    assert_eq!(line["before_sha256"], sha256(&state));
    assert_eq!(line["after_sha256"], sha256(&candidate));
    assert_eq!(line["receipt"], "analysis_results/FINALIZATION.json");
    // the candidate closes exactly one task: the line names it, so rebuild can date it
    assert!(line["task"].is_u64(), "{line}");
    assert_ne!(line["from"], "completed", "{line}");
}

#[test]
fn finalize_allow_dirty_journals_the_accepted_exception_and_reason() {
    let (fixture, plan) = FIXTURES[0];
    let snapshot = vectors(fixture).join(format!("lifecycle/snapshots/ready-to-publish/{plan}"));
    let (_tmp, root) = gitrepo::vector_repo(fixture, None, Some(&snapshot));
    std::fs::copy(
        vectors(fixture).join("lifecycle/publication/02-state.json"),
        root.join("candidate.json"),
    )
    .unwrap();
    std::fs::write(root.join("notes.txt"), "scratch\n").unwrap();
    let plan_rel = format!(".dwp/plans/{plan}");
    let reason = "scratch notes, not part of the change";
    let out = run_in(
        &root,
        &[
            "finalize",
            &plan_rel,
            "--candidate",
            "candidate.json",
            "--allow-dirty",
            "--reason",
            reason,
        ],
    );
    assert_ok(&out);
    let line = journal(&root.join(&plan_rel)).pop().unwrap();
    assert_timed(&line);
    assert_eq!(line["operation"], "finalize");
    assert_eq!(line["to"], "completed");
    assert_eq!(line["reason"], reason);
    assert_eq!(
        line["forced"],
        serde_json::json!([{"kind": "worktree-dirty", "reason": reason, "subjects": ["notes.txt"]}])
    );
}
