//! Real `git merge`, `git rebase` and `git cherry-pick` of a DWP plan's state.json with the
//! driver registered, on fixture A (Lite, three tasks) in its own scripted repository. Each test
//! checks the merged bytes (against the state the rules of docs/merge.md give, built from the two
//! sides) and what `planseal verify` says afterwards.

use super::repo::*;
use planseal::jsonfmt::to_python_pretty;
use serde_json::{Value, json};

const RERUN_LOG: &str = ".dwp/plans/PLAN_http_rate_limit/analysis_results/gates/t1-rerun.log";
const RERUN: &str = "python3 -m unittest tests.test_ratelimit|0|scope=rerun after review; fp=49a4d7e+clean; ran=4/4; log=analysis_results/gates/t1-rerun.log";

/// Closes task 1 on the current branch as the recorded close-out did: README ticked, PROGRESS
/// entry, then `update --status completed --commit COMMIT [--worked TEXT]` at `now`.
fn close_task1(r: &Repo, now: &str, commit: &str, worked: Option<&str>) {
    r.copy_from_snapshot("after-task1", "README.md");
    r.copy_from_snapshot("after-task1", "PROGRESS.md");
    let mut args = vec!["--task", "1", "--status", "completed", "--commit", commit];
    if let Some(w) = worked {
        args.extend(["--worked", w]);
    }
    r.update(now, &args);
}

/// Base: task 1 in progress with its gates (step 04 of the recorded lifecycle). `topic` records
/// one more gate run of task 1 and a checkpoint on it at 09:20, from that older state; `main`
/// closes task 1 (README ticked, PROGRESS entry, its commit) at 09:10 and starts task 2.
fn task_completed_against_more_gate_runs() -> Repo {
    let mut r = Repo::fixture_a("fixture", "04-gate-json-pipe-task1.state.json");
    r.git(&["checkout", "-q", "-b", "topic"]);
    r.write(RERUN_LOG, "Ran 4 tests\nOK\n");
    r.update(
        "2026-10-05T09:20:00+00:00",
        &[
            "--task",
            "1",
            "--status",
            "in_progress",
            "--gate",
            RERUN,
            "--checkpoint-step",
            "rerun after review",
        ],
    );
    r.commit("plan: task 1 gate rerun");
    r.git(&["checkout", "-q", "main"]);
    close_task1(
        &r,
        "2026-10-05T09:10:00+00:00",
        TASK1_COMMIT,
        Some("TokenBucket with an injected clock"),
    );
    r.update(
        "2026-10-05T09:12:00+00:00",
        &["--task", "2", "--status", "in_progress"],
    );
    r.commit("plan: task 1 completed, task 2 started");
    r
}

/// What the merge of main and topic must give: main's state, task 1 with topic's new gate run
/// appended (it is the latest), `updated_at` topic's (the later), and — topic's checkpoint being
/// on a task the merge finished — the checkpoint `update` computes: task 2, step `start`.
fn expected_completed_against_more_gate_runs(r: &Repo) -> Vec<u8> {
    let (ours, theirs) = (r.state_at("main"), r.state_at("topic"));
    let mut expected = ours.clone();
    let rerun = theirs["tasks"][0]["gates"][2].clone();
    assert!(rerun["evidence"].as_str().unwrap().contains("rerun"));
    expected["tasks"][0]["gates"]
        .as_array_mut()
        .unwrap()
        .push(rerun);
    expected["updated_at"] = theirs["updated_at"].clone();
    expected["checkpoint"] = json!({
        "task": 2,
        "step": "start",
        "at": theirs["updated_at"],
        "note": "Task 1 closed. Next: Task 2.",
    });
    assert_eq!(expected["completed_count"], 1);
    assert_eq!(expected["status"], "in_progress");
    to_python_pretty(&expected)
}

fn assert_clean(r: &Repo, out: &std::process::Output) {
    assert!(out.status.success(), "{}", text(out));
    assert!(r.unmerged().is_empty());
    assert_eq!(r.git(&["status", "--porcelain"]), "");
}

fn assert_conformant(r: &Repo, now: &str) {
    let v = verify(r, now);
    assert_eq!(v.code, 0, "{}{}", v.stdout, v.stderr);
    assert!(v.stdout.contains("Verdict: CONFORMANT"), "{}", v.stdout);
}

#[test]
fn merge_of_a_completed_task_and_more_gate_runs_is_clean_and_verifies() {
    let mut r = task_completed_against_more_gate_runs();
    let expected = expected_completed_against_more_gate_runs(&r);
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert_clean(&r, &out);
    assert_eq!(
        String::from_utf8(r.bytes(STATE)).unwrap(),
        String::from_utf8(expected).unwrap()
    );
    // The tracked journal: both sides' lines, once each, in time order — no conflict.
    let journal = r.read(&format!("{PLAN_DIR}/analysis_results/STATE_JOURNAL.ndjson"));
    let times: Vec<String> = journal
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["time"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        times,
        [
            "2026-10-05T09:10:00+00:00",
            "2026-10-05T09:12:00+00:00",
            "2026-10-05T09:20:00+00:00"
        ]
    );
    assert_conformant(&r, "2026-10-05T09:30:00+00:00");
}

#[test]
fn rebase_and_cherry_pick_give_the_same_merged_state() {
    let mut r = task_completed_against_more_gate_runs();
    let expected = expected_completed_against_more_gate_runs(&r);
    let main = r.git(&["rev-parse", "main"]).trim().to_string();
    // Rebasing topic onto main replays topic's commit with main's state as ours.
    r.git(&["checkout", "-q", "topic"]);
    let out = r.try_git(&["rebase", "main"]);
    assert_clean(&r, &out);
    assert_eq!(r.bytes(STATE), expected);
    assert_conformant(&r, "2026-10-05T09:30:00+00:00");
    // Cherry-picking topic's commit onto main, the same.
    let picked = r.git(&["rev-parse", "topic"]).trim().to_string();
    r.git(&["checkout", "-q", "-B", "picked", &main]);
    let out = r.try_git(&["cherry-pick", &picked]);
    assert_clean(&r, &out);
    assert_eq!(r.bytes(STATE), expected);
    assert_conformant(&r, "2026-10-05T09:30:00+00:00");
}

/// Both branches close task 1 from the same base: README and PROGRESS alike, `--commit` of the
/// same or different commits, at 09:10 on main and 09:15 on topic.
fn task_completed_on_both_sides(topic_commit: Option<&str>) -> (Repo, String) {
    let mut r = Repo::fixture_a("fixture", "04-gate-json-pipe-task1.state.json");
    r.git(&["checkout", "-q", "-b", "topic"]);
    let commit = match topic_commit {
        Some(subject) => {
            r.write("fetchkit/ratelimit_note.txt", "refill clamps at capacity\n");
            r.commit(subject)
        }
        None => TASK1_COMMIT.to_string(),
    };
    close_task1(
        &r,
        "2026-10-05T09:15:00+00:00",
        &commit,
        Some("bucket refills lazily on acquire"),
    );
    r.commit("plan: task 1 completed (topic)");
    r.git(&["checkout", "-q", "main"]);
    close_task1(
        &r,
        "2026-10-05T09:10:00+00:00",
        TASK1_COMMIT,
        Some("TokenBucket with an injected clock"),
    );
    r.commit("plan: task 1 completed (main)");
    (r, commit)
}

#[test]
fn the_same_task_completed_with_the_same_commit_on_both_sides_merges_clean() {
    let (mut r, _) = task_completed_on_both_sides(None);
    let (ours, theirs) = (r.state_at("main"), r.state_at("topic"));
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert_clean(&r, &out);
    // completed_at: the earlier (main's); the outcome note, updated_at and the checkpoint: the
    // later side's (topic's).
    let mut expected = ours.clone();
    expected["tasks"][0]["outcome"] = theirs["tasks"][0]["outcome"].clone();
    expected["updated_at"] = theirs["updated_at"].clone();
    expected["checkpoint"] = theirs["checkpoint"].clone();
    assert_eq!(
        expected["tasks"][0]["completed_at"],
        "2026-10-05T09:10:00+00:00"
    );
    assert_eq!(r.bytes(STATE), to_python_pretty(&expected));
    assert_conformant(&r, "2026-10-05T09:30:00+00:00");
}

#[test]
fn the_same_task_completed_with_different_commits_is_a_conflict_and_abort_leaves_no_trace() {
    let (mut r, topic_commit) = task_completed_on_both_sides(Some(
        "fix(ratelimit): clamp refills - Task 1 of PLAN_http_rate_limit",
    ));
    let before = crate::support::fs::tree(&r.root);
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(r.unmerged(), [STATE]);
    let merged = r.read(STATE);
    let block = format!(
        "planseal: task 1 was completed with two different commits ({TASK1_COMMIT} on HEAD, {topic_commit} on topic); keep the commit that holds the task's work\n\
         planseal: after resolving, run `planseal verify`: the rules that need the plan's other files (README agreement, the approval line, amendments, gate logs) are checked there, not by the merge driver\n\
         <<<<<<< HEAD\n      \"commit\": \"{TASK1_COMMIT}\",\n=======\n      \"commit\": \"{topic_commit}\",\n>>>>>>> topic\n"
    );
    assert!(merged.contains(&block), "{merged}");
    assert!(
        text(&out).contains(
            "planseal merge-driver: CONFLICT in .dwp/plans/PLAN_http_rate_limit/state.json"
        )
    );
    // verify agrees: the state cannot be read until the conflict is settled.
    let v = verify(&r, "2026-10-05T09:30:00+00:00");
    assert_eq!(v.code, 1, "{}", v.stdout);
    assert!(
        v.stdout.contains("state.json does not parse"),
        "{}",
        v.stdout
    );
    // An aborted merge leaves every file as it was, and nothing of planseal's in .git.
    r.git(&["merge", "--abort"]);
    let after = crate::support::fs::tree(&r.root);
    let outside_git = |t: &std::collections::BTreeMap<String, Option<Vec<u8>>>| {
        t.iter()
            .filter(|(k, _)| !k.starts_with(".git/") && k.as_str() != ".git")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(outside_git(&before), outside_git(&after));
    let traces: Vec<&String> = after
        .keys()
        .filter(|k| k.contains("planseal") || k.ends_with(".lock") || k.contains(".merge_file"))
        .collect();
    assert!(traces.is_empty(), "{traces:?}");
}

/// Base: task 1 in progress. One side runs task 1's gate and it fails; the other runs it, it
/// passes, and closes the task.
fn failing_and_passing_runs(fail_at: &str) -> Repo {
    let mut r = Repo::fixture_a("fixture", "04-gate-json-pipe-task1.state.json");
    r.git(&["checkout", "-q", "-b", "topic"]);
    r.write(
        &format!("{PLAN_DIR}/analysis_results/gates/t1-pass.log"),
        "Ran 4 tests\nOK\n",
    );
    r.update(
        "2026-10-05T09:15:00+00:00",
        &["--task", "1", "--status", "in_progress", "--gate",
          "python3 -m unittest tests.test_ratelimit|0|scope=after the fix; ran=4/4; log=analysis_results/gates/t1-pass.log"],
    );
    close_task1(&r, "2026-10-05T09:16:00+00:00", TASK1_COMMIT, None);
    r.commit("plan: task 1 passes and is completed");
    r.git(&["checkout", "-q", "main"]);
    r.write(
        &format!("{PLAN_DIR}/analysis_results/gates/t1-fail.log"),
        "Ran 4 tests\nFAILED (failures=1)\n",
    );
    r.update(
        fail_at,
        &["--task", "1", "--status", "in_progress", "--gate",
          "python3 -m unittest tests.test_ratelimit|1|scope=burst test; ran=4/4; log=analysis_results/gates/t1-fail.log"],
    );
    r.commit("plan: task 1's gate fails");
    r
}

#[test]
fn a_gate_failing_on_one_side_and_passing_later_on_the_other_merges_clean() {
    let mut r = failing_and_passing_runs("2026-10-05T09:10:00+00:00");
    let (ours, theirs) = (r.state_at("main"), r.state_at("topic"));
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert_clean(&r, &out);
    // topic's later state, with main's failing run before topic's later passing one: the
    // latest run of the command passes, so the task stays completed.
    let mut expected = theirs.clone();
    let mut gates = ours["tasks"][0]["gates"].as_array().unwrap().clone();
    gates.push(theirs["tasks"][0]["gates"][2].clone());
    expected["tasks"][0]["gates"] = Value::Array(gates);
    assert_eq!(
        String::from_utf8(r.bytes(STATE)).unwrap(),
        String::from_utf8(to_python_pretty(&expected)).unwrap()
    );
    assert_conformant(&r, "2026-10-05T09:30:00+00:00");
}

#[test]
fn a_completed_task_whose_gate_fails_later_on_the_other_side_is_a_conflict() {
    let mut r = failing_and_passing_runs("2026-10-05T09:20:00+00:00");
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(r.unmerged(), [STATE]);
    let merged = r.read(STATE);
    assert!(
        merged.contains("planseal: task 1: the merge would break a rule of state.json: completed task 1: the latest run of gate `python3 -m unittest tests.test_ratelimit` failed and no later run passed"),
        "{merged}"
    );
    // The whole task, main's against topic's.
    let ours_task = r.state_at("main")["tasks"][0]["status"].clone();
    assert_eq!(ours_task, "in_progress");
    assert!(
        merged.contains("<<<<<<< HEAD\n    {\n      \"id\": 1,"),
        "{merged}"
    );
    assert_eq!(verify(&r, "2026-10-05T09:30:00+00:00").code, 1);
}

#[test]
fn a_reopen_on_one_side_is_a_conflict_and_verify_then_says_what_is_left() {
    let mut r = Repo::fixture_a("after-task1", "06-start-task2.state.json");
    r.git(&["checkout", "-q", "-b", "topic"]);
    let readme = format!("{PLAN_DIR}/README.md");
    let amended = r
        .read(&readme)
        .replacen(
            "log=analysis_results/gates/t1-unittest.log\n",
            "log=analysis_results/gates/t1-unittest.log\n\n### Amendment 1 — 2026-10-05\n\nOriginal criterion: A bucket with `rate=5, capacity=2` grants two permits at once and refuses a third.\nObserved: the partner API allows bursts of three\nDisposition: revised criterion\nRevised criterion: a bucket with `rate=5, capacity=3` grants three permits at once\nReason: the partner's limits changed\nAuthority: user\nAffected tasks: 1\nEvidence invalidated: t1-unittest\nEvidence preserved: none\n",
            1,
        )
        .replace("- [x] Task 1: Token bucket limiter", "- [ ] Task 1: Token bucket limiter")
        .replace("Plan Status: 1/3 completed", "Plan Status: 0/3 completed");
    r.write(&readme, &amended);
    let reopen = [
        "--task",
        "1",
        "--status",
        "in_progress",
        "--reopen-reason",
        "burst must be 3",
    ];
    r.update("2026-10-05T10:10:00+00:00", &reopen);
    r.commit("plan: task 1 reopened (amendment 1)");
    r.git(&["checkout", "-q", "main"]);
    r.write(
        &format!("{PLAN_DIR}/analysis_results/gates/t2-suite.log"),
        "Ran 9 tests\nOK\n",
    );
    r.update(
        "2026-10-05T10:05:00+00:00",
        &["--task", "2", "--status", "in_progress", "--gate",
          "python3 -m unittest discover -s tests -t .|0|scope=whole suite; ran=9/9; log=analysis_results/gates/t2-suite.log"],
    );
    r.commit("plan: task 2 gate");
    let out = r.try_git(&["merge", "--no-edit", "topic"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert_eq!(r.unmerged(), [STATE]);
    let merged = r.read(STATE);
    assert!(merged.contains(&format!(
        "planseal: task 1 moved back on topic (completed → in_progress) while HEAD has it completed; a reopen is not merged: take HEAD's `completed`, then re-apply the reopen after the merge with `planseal update {STATE} --task 1 --status in_progress --reopen-reason \"…\"` (its amendment is in the task log)\n"
    )), "{merged}");
    assert!(merged.contains("<<<<<<< HEAD\n      \"status\": \"completed\",\n=======\n      \"status\": \"in_progress\",\n>>>>>>> topic\n"), "{merged}");
    // Resolved as the note says: HEAD's status, every other merged value kept.
    let resolved: String = {
        let without_notes: Vec<&str> = merged
            .lines()
            .filter(|l| !l.starts_with("planseal: "))
            .collect();
        let mut out = String::new();
        let mut skipping = false;
        for line in without_notes {
            match line {
                "<<<<<<< HEAD" => {}
                "=======" => skipping = true,
                ">>>>>>> topic" => skipping = false,
                _ if skipping => {}
                _ => {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        out
    };
    r.write(STATE, &resolved);
    let v = verify(&r, "2026-10-05T10:20:00+00:00");
    assert_eq!(v.code, 1);
    assert!(
        v.stdout
            .contains("state.json says task 1 is completed but its README checkbox is empty"),
        "{}",
        v.stdout
    );
    // Re-applying the reopen finishes the merge's work.
    r.update("2026-10-05T10:21:00+00:00", &reopen);
    assert_conformant(&r, "2026-10-05T10:22:00+00:00");
    // Task 2's gate run from main survived the merge.
    let state: Value = serde_json::from_slice(&r.bytes(STATE)).unwrap();
    assert!(
        state["tasks"][1]["gates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["evidence"].as_str().unwrap().contains("t2-suite.log"))
    );
}
