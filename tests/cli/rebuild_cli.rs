//! `planseal rebuild` on the fixture repositories of `tests/support/plans.rs`: dry runs print one line per
//! field and write nothing; `--write` restores a state that passes `verify` (a completed one
//! published through the finalization), with commits and completion times taken from git.

use crate::support;
use crate::support::plans::{self, Case, PLAN_A, PLAN_B};
use crate::support::run::{Planseal, Run};
use crate::support::{planseal, stderr, stdout};

const NOW: &str = "2026-11-30T12:00:00+00:00";

fn run(case: &Case, extra: &[&str]) -> Run {
    let rel = case.plan_rel();
    let mut args = vec!["rebuild", rel.as_str()];
    args.extend_from_slice(extra);
    Planseal::new()
        .cwd(&case.root)
        .clock(NOW)
        .args(&args)
        .output()
}

fn state(case: &Case) -> serde_json::Value {
    serde_json::from_slice(&case.state_bytes()).expect("state.json parses")
}

fn verify(case: &Case) -> (Option<i32>, String) {
    let out = planseal(&case.root, &["verify", &case.plan_rel()]);
    (out.status.code(), stdout(&out))
}

fn index_commits(fixture: &str) -> Vec<String> {
    let index: serde_json::Value = serde_json::from_slice(
        &std::fs::read(support::gitrepo::project_root().join("fixtures/vectors/dwp/index.json"))
            .expect("index"),
    )
    .expect("json");
    index["fixtures"][fixture]["repository"]["task_commits"]
        .as_object()
        .expect("commits")
        .values()
        .map(|v| v.as_str().expect("hash").to_string())
        .collect()
}

#[test]
fn deleted_state_is_restored_from_markdown_and_git_and_published_through_finalize() {
    let case = plans::deleted_state();
    let before = plans::snapshot_files(&case.plan);
    // Dry run: the change, and nothing written.
    let dry = run(&case, &["--exit-code"]);
    assert_eq!(dry.status.code(), Some(1));
    let text = stdout(&dry);
    assert!(text.contains(
        "task 2 commit: (absent) → f948e3c372d94fad1baa6e4c9fd9738aedcfef7d (source: commit f948e3c)\n"
    ));
    assert!(text.contains(
        "task 2 completed_at: (absent) → 2026-10-12T13:54:00+00:00 (source: commit f948e3c)\n"
    ));
    assert!(text.contains("task 3 gates: 0 record(s) → 1 record(s) (source: task log)\n"));
    assert!(
        text.contains("nothing written (the state is completed, so --write publishes it through the finalization transaction)\n  hint: run `planseal rebuild ") && text.ends_with(" --write` to apply\n"),
        "{text}"
    );
    assert_eq!(plans::snapshot_files(&case.plan), before);

    let wrote = run(&case, &["--write"]);
    assert_eq!(wrote.status.code(), Some(0), "{}", stderr(&wrote));
    assert!(
        stdout(&wrote)
            .contains("published the completed state through the finalization transaction"),
        "{}",
        stdout(&wrote)
    );
    assert!(!case.plan.join("state.json.lock").exists());
    let s = state(&case);
    assert_eq!(
        s["schema"],
        "https://deepworkplan.com/schema/plan-state/v5.json"
    );
    assert_eq!(s["status"], "completed");
    assert_eq!(s["updated_at"], NOW);
    let commits: Vec<String> = s["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| t["commit"].as_str().expect("commit").to_string())
        .collect();
    assert_eq!(commits, index_commits("B_full_v5"));
    let times: Vec<&str> = s["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| t["completed_at"].as_str().expect("completed_at"))
        .collect();
    assert_eq!(
        times,
        [
            "2026-10-12T13:14:00+00:00",
            "2026-10-12T13:54:00+00:00",
            "2026-10-12T14:34:00+00:00",
            "2026-10-12T15:14:00+00:00"
        ]
    );
    // Gates recovered from the task log's `Gate record:` line, dated at the task commit.
    let g = &s["tasks"][1]["gates"][0];
    assert_eq!(g["command"], "python3 -m unittest discover -s tests -t .");
    assert_eq!(g["passes"], true);
    assert_eq!(g["exit_code"], 0);
    assert_eq!(g["last_run"], "2026-10-12T13:54:00+00:00");
    assert_eq!(
        g["evidence"],
        "fp=181b2b7+dirty; ran=10/10; log=analysis_results/gates/t2-suite-green.log; src=task-log"
    );
    assert_eq!(
        s["checkpoint"],
        serde_json::json!({"task": 4, "step": "done", "at": "2026-10-12T15:14:00+00:00", "note": "Plan completed."})
    );
    // The reconciliation is recorded in PROGRESS.md, dated.
    let progress = std::fs::read_to_string(case.plan.join("PROGRESS.md")).expect("progress");
    assert!(
        progress.contains("## Reconciliation — 2026-11-30\n\n- state.json rebuilt by planseal")
    );
    assert!(progress.contains("- task 4 commit: (absent) → 84568addaaf667b18d41a68fef7060463b97343c (source: commit 84568ad)\n"));
    // One transaction, one journal line: the publication's, which carries the state restored
    // and the reconciliation's changes (PROGRESS.md is written inside the finalization, after
    // its marker, with state.json and the receipt). No separate `rebuild` line before it.
    let journal = std::fs::read_to_string(case.plan.join("analysis_results/STATE_JOURNAL.ndjson"))
        .expect("journal");
    let lines: Vec<serde_json::Value> = journal
        .lines()
        .rev()
        .take(2)
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    if let Some(before) = lines.get(1) {
        assert_ne!(before["operation"], "rebuild", "{before}");
    }
    assert!(
        lines[0].to_string().contains("task 4 commit: (absent)"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[0]["operation"], "rebuild+finalize");
    assert_eq!(lines[0]["before_sha256"], serde_json::Value::Null);
    assert_eq!(lines[0]["applied"]["version"], 2);
    assert_eq!(lines[0]["applied"]["replaced"], s);
    assert_eq!(
        lines[0]["after_sha256"],
        crate::support::fs::sha256(&std::fs::read(case.plan.join("state.json")).unwrap())
    );

    // The publication went through the finalization: the receipt matches, verify passes, and a
    // finalize afterwards is a no-op re-seal.
    let (code, text) = verify(&case);
    assert_eq!(code, Some(0), "{text}");
    let seal = planseal(&case.root, &["finalize", &case.plan_rel()]);
    assert_eq!(seal.status.code(), Some(0), "{}", stderr(&seal));
    let (code, text) = verify(&case);
    assert_eq!(code, Some(0), "{text}");

    // A second rebuild changes nothing.
    let bytes = case.state_bytes();
    let again = run(&case, &["--write", "--json"]);
    let doc: serde_json::Value = serde_json::from_str(&again.stdout).expect("json");
    assert_eq!(doc["changed"], false);
    assert_eq!(doc["written"], false);
    assert_eq!(case.state_bytes(), bytes);
}

#[test]
fn every_vector_plan_is_restored_after_deletion() {
    for (fixture, plan) in [("A_lite_v2", PLAN_A), ("D_v1", "PLAN_config_env_overrides")] {
        let (tmp, root) = support::gitrepo::vector_repo(
            fixture,
            None,
            Some(&plans::snapshot(fixture, plan, "final")),
        );
        let case = Case {
            tmp,
            plan: root.join(".dwp/plans").join(plan),
            root,
        };
        std::fs::remove_file(case.plan.join("state.json")).expect("delete");
        assert_eq!(run(&case, &["--write"]).status.code(), Some(0));
        let s = state(&case);
        let commits: Vec<String> = s["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .map(|t| t["commit"].as_str().expect("commit").to_string())
            .collect();
        assert_eq!(commits, index_commits(fixture), "{fixture}");
        if fixture == "D_v1" {
            assert_eq!(
                s["schema"],
                "https://deepworkplan.com/schema/plan-state/v1.json"
            );
            assert!(
                s["tasks"][0]["file"]
                    .as_str()
                    .expect("file")
                    .starts_with("1.task_")
            );
            assert!(s.get("format").is_none() && s.get("approval").is_none());
        }
        let seal = planseal(&case.root, &["finalize", &case.plan_rel()]);
        assert_eq!(seal.status.code(), Some(0), "{fixture}: {}", stderr(&seal));
        let (code, text) = verify(&case);
        assert_eq!(code, Some(0), "{fixture}: {text}");
    }
}

#[test]
fn stale_state_two_tasks_behind_is_caught_up() {
    let case = plans::stale_state();
    let dry = run(&case, &[]);
    assert_eq!(dry.status.code(), Some(0));
    assert_eq!(
        stdout(&dry),
        "task 3 status: pending → completed (source: README)
task 3 commit: (absent) → 9c3786d71b306209f51ebb72dfc80ac07076d41c (source: commit 9c3786d)
task 3 completed_at: (absent) → 2026-10-12T14:34:00+00:00 (source: commit 9c3786d)
task 3 gates: 0 record(s) → 1 record(s) (source: task log)
task 3 started_at: (absent) → 2026-10-12T13:54:00+00:00 (source: commit 9c3786d)
task 4 status: pending → completed (source: README)
task 4 commit: (absent) → 84568addaaf667b18d41a68fef7060463b97343c (source: commit 84568ad)
task 4 completed_at: (absent) → 2026-10-12T15:14:00+00:00 (source: commit 84568ad)
task 4 gates: 0 record(s) → 1 record(s) (source: task log)
task 4 started_at: (absent) → 2026-10-12T14:34:00+00:00 (source: commit 84568ad)
completed_count: 2 → 4 (source: derived)
status: in_progress → completed (source: derived)
checkpoint: {\"task\":3,\"step\":\"start\",\"at\":\"2026-10-12T13:55:01.250000+00:00\",\"note\":\"Task 2 closed. Next: Task 3.\"} → {\"task\":4,\"step\":\"done\",\"at\":\"2026-10-12T15:14:00+00:00\",\"note\":\"Plan completed.\"} (source: derived)
13 change(s); nothing written (the state is completed, so --write publishes it through the finalization transaction)
  hint: run `planseal rebuild .dwp/plans/PLAN_webhook_retry_backoff --write` to apply
"
    );
    let old = state(&case);
    assert_eq!(run(&case, &["--write"]).status.code(), Some(0));
    let new = state(&case);
    // The old state's values win: tasks 1 and 2 are kept byte for byte, key order included.
    assert_eq!(new["tasks"][0], old["tasks"][0]);
    assert_eq!(new["tasks"][1], old["tasks"][1]);
    let keys = |v: &serde_json::Value| {
        v.as_object()
            .expect("obj")
            .keys()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&new), keys(&old));
    let seal = planseal(&case.root, &["finalize", &case.plan_rel()]);
    assert_eq!(seal.status.code(), Some(0), "{}", stderr(&seal));
    assert_eq!(verify(&case).0, Some(0));
}

#[test]
fn hand_edited_state_ahead_of_the_markdown_is_walked_back() {
    let case = plans::state_ahead();
    let dry = run(&case, &[]);
    assert_eq!(
        stdout(&dry),
        "task 2 status: completed → pending (source: README)
task 2 completed_at: 2026-10-05T09:45:00+00:00 → (absent) (source: README)
task 2 commit: 0684d9243279d0b1599a7fc80aa427b40a85634e → (absent) (source: README)
completed_count: 2 → 1 (source: derived)
4 change(s); nothing written
  hint: run `planseal rebuild .dwp/plans/PLAN_http_rate_limit --write` to apply
"
    );
    assert_eq!(run(&case, &["--write"]).status.code(), Some(0));
    let (code, text) = verify(&case);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn merges_take_task_commits_from_the_merged_branch() {
    let case = plans::merges();
    assert_eq!(run(&case, &["--write"]).status.code(), Some(0));
    let s = state(&case);
    for (i, n) in [1, 2, 3].iter().enumerate() {
        let reference = support::gitrepo::git(
            &case.root,
            &["log", "--format=%H %cI", &format!("--grep=Task {n} of")],
        );
        let (hash, time) = reference.trim().split_once(' ').expect("one commit");
        assert_eq!(s["tasks"][i]["commit"], hash);
        assert_eq!(s["tasks"][i]["completed_at"], time.replace('Z', "+00:00"));
    }
}

#[test]
fn shallow_clone_reports_what_lies_beyond_the_boundary() {
    let case = plans::shallow();
    std::fs::remove_file(case.plan.join("state.json")).expect("delete");
    let dry = run(&case, &[]);
    let text = stdout(&dry);
    assert!(text.contains("task 1 commit: (absent) → (absent) (source: unrecoverable) — no commit naming the task before the shallow-clone boundary\n"), "{text}");
    assert!(text.contains("task 3 commit: (absent) → 8ec9422f017f8d1f00e2dc88ac4b2367b3fc5801 (source: commit 8ec9422)\n"));
}

#[test]
fn without_git_nothing_is_invented() {
    let case = plans::no_git();
    std::fs::remove_file(case.plan.join("state.json")).expect("delete");
    let out = run(&case, &["--json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    let text = stdout(&run(&case, &[]));
    assert!(text.contains("task 1 commit: (absent) → (absent) (source: unrecoverable) — the plan is not in a git repository\n"));
    assert!(text.contains("task 1 completed_at: (absent) → (absent) (source: unrecoverable)"));
    let s = &doc["state"];
    assert!(s["tasks"][0].get("commit").is_none());
    assert!(s["tasks"][0].get("completed_at").is_none());
    // No gate is invented without a time to date it.
    assert_eq!(s["tasks"][0]["gates"], serde_json::json!([]));
}

#[test]
fn a_corrupt_state_is_rebuilt_and_a_lock_refuses() {
    let case = plans::clean();
    std::fs::write(
        case.plan.join("state.json"),
        b"{\"schema\": \"https://deepworkplan.com/sch",
    )
    .expect("write");
    std::fs::create_dir(case.plan.join("state.json.lock")).expect("lock");
    let before = plans::snapshot_files(&case.plan);
    let out = run(&case, &["--write"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("lock-present: "),
        "{}",
        stderr(&out)
    );
    assert_eq!(plans::snapshot_files(&case.plan), before);
    std::fs::remove_dir(case.plan.join("state.json.lock")).expect("unlock");
    let out = run(&case, &["--write"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let s = state(&case);
    assert_eq!(s["status"], "completed");
    assert_eq!(s["plan"], PLAN_B);
}

#[test]
fn a_clean_plan_needs_nothing() {
    let case = plans::clean();
    let bytes = plans::snapshot_files(&case.plan);
    let out = run(&case, &["--write", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(doc["changed"], false);
    assert_eq!(doc["changes"], serde_json::json!([]));
    assert_eq!(plans::snapshot_files(&case.plan), bytes);
    assert_eq!(run(&case, &["--exit-code"]).status.code(), Some(0));
}

#[test]
fn an_interrupted_publication_or_a_missing_readme_refuses() {
    let case = plans::clean();
    std::fs::write(case.plan.join(".finalizing.json"), b"{}").expect("marker");
    let before = plans::snapshot_files(&case.plan);
    let out = run(&case, &["--write"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("marker-present: "),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("hint: run `planseal recover"));
    assert_eq!(plans::snapshot_files(&case.plan), before);
    std::fs::remove_file(case.plan.join(".finalizing.json")).expect("rm");
    std::fs::remove_file(case.plan.join("README.md")).expect("rm");
    let out = run(&case, &["--write"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("README.md"), "{}", stderr(&out));
    assert!(stderr(&out).contains("the README is the source of truth"));
}

// ---- Issue 5 "Done when": every fixture repository, damaged, rebuilt, re-sealed and verified.

/// How the state is damaged before the rebuild.
enum Damage {
    Delete,
    Corrupt,
    /// The fixture's state is already wrong (stale, or ahead of the markdown).
    AsBuilt,
}

fn damage(case: &Case, how: Damage) {
    let path = case.plan.join("state.json");
    match how {
        Damage::Delete => std::fs::remove_file(path).expect("delete state"),
        Damage::Corrupt => std::fs::write(path, b"{\"schema\": \"https://deepworkplan.com/sch")
            .expect("corrupt state"),
        Damage::AsBuilt => {}
    }
}

/// The reference answer from the git CLI: the most recent commit reachable from HEAD naming
/// task `n`, with its committer time.
fn git_task_commit(case: &Case, n: u64) -> Option<(String, String)> {
    let plan = case
        .plan
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    let out = support::gitrepo::git(
        &case.root,
        &[
            "log",
            "-1",
            "--format=%H %cI",
            &format!("--grep=- Task {n} of {plan}$"),
        ],
    );
    let (hash, time) = out.trim().split_once(' ')?;
    Some((hash.to_string(), time.replace('Z', "+00:00")))
}

/// Every completed task carries the commit git gives for it, and its completion time — unless
/// the old state (`old`, when it was readable) recorded one for that task: the old state's
/// non-empty values win and git only fills what is missing. Returns the number of
/// completion times git supplied.
fn assert_commits_from_git(case: &Case, old: Option<&serde_json::Value>) -> usize {
    let s = state(case);
    let mut from_git = 0;
    for t in s["tasks"].as_array().expect("tasks") {
        if t["status"] != "completed" {
            assert!(t.get("commit").is_none(), "{t}");
            continue;
        }
        let n = t["id"].as_u64().expect("id");
        let (hash, time) = git_task_commit(case, n).expect("git names the task");
        assert_eq!(t["commit"], hash.as_str(), "task {n}");
        let recorded = old
            .and_then(|o| o["tasks"].as_array())
            .and_then(|tasks| tasks.iter().find(|o| o["id"] == n))
            .and_then(|o| o["completed_at"].as_str());
        match recorded {
            Some(kept) => assert_eq!(t["completed_at"], kept, "task {n}"),
            None => {
                assert_eq!(t["completed_at"], time.as_str(), "task {n}");
                from_git += 1;
            }
        }
    }
    from_git
}

/// rebuild --write, then finalize when the plan is completed, then verify: CONFORMANT. Returns
/// the verify text and the number of completion times taken from git.
fn restore_and_verify(case: &Case) -> (String, usize) {
    let old: Option<serde_json::Value> = std::fs::read(case.plan.join("state.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let wrote = run(case, &["--write"]);
    assert_eq!(wrote.status.code(), Some(0), "{}", stderr(&wrote));
    let from_git = assert_commits_from_git(case, old.as_ref());
    if state(case)["status"] == "completed" {
        let seal = planseal(&case.root, &["finalize", &case.plan_rel()]);
        assert_eq!(seal.status.code(), Some(0), "{}", stderr(&seal));
    }
    let (code, text) = verify(case);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("Verdict: CONFORMANT"), "{text}");
    (text, from_git)
}

#[test]
fn done_when_clean_plan_with_a_corrupt_state() {
    let case = plans::clean();
    damage(&case, Damage::Corrupt);
    assert_eq!(restore_and_verify(&case).1, 4);
}

#[test]
fn done_when_deleted_state() {
    let case = plans::deleted_state();
    damage(&case, Damage::AsBuilt);
    assert_eq!(restore_and_verify(&case).1, 4);
}

#[test]
fn done_when_stale_state() {
    let case = plans::stale_state();
    damage(&case, Damage::AsBuilt);
    // Tasks 1 and 2 keep the stale state's times; tasks 3 and 4 get git's.
    assert_eq!(restore_and_verify(&case).1, 2);
}

#[test]
fn done_when_state_ahead_of_the_markdown() {
    // An in-progress plan: no publication, so no finalize; task 1 keeps its commit from git.
    let case = plans::state_ahead();
    damage(&case, Damage::AsBuilt);
    let (text, from_git) = restore_and_verify(&case);
    // Task 1's recorded time is kept (the old state wins where it has a value); task 2's
    // commit and time are dropped, the README leaves it unticked.
    assert_eq!(from_git, 0);
    assert_eq!(state(&case)["status"], "in_progress");
    // The repository also holds tasks 2 and 3's commits: drift advisories, never failures.
    assert!(
        text.contains("commit 0684d92 names task 2, but state.json says it is pending"),
        "{text}"
    );
}

#[test]
fn done_when_renamed_task_numbers() {
    let case = plans::renamed_task_numbers();
    damage(&case, Damage::Delete);
    let (text, from_git) = restore_and_verify(&case);
    assert_eq!(from_git, 3);
    // The commit with the old number names no task of the plan; rebuild gave it to none.
    assert_eq!(state(&case)["tasks"].as_array().expect("tasks").len(), 3);
    assert!(
        text.contains("names task 4, which the plan does not have (3 task(s))"),
        "{text}"
    );
}

#[test]
fn done_when_merges() {
    let case = plans::merges();
    damage(&case, Damage::AsBuilt);
    assert_eq!(restore_and_verify(&case).1, 3);
}

#[test]
fn done_when_shallow_clone_cannot_recover_what_lies_beyond_the_boundary() {
    // Only task 3's commit is in the clone. Tasks 1 and 2 get no commit, no completion time and
    // no gates (a recovered gate is dated at its task commit): nothing is invented, so the plan
    // cannot be re-published here — rebuild refuses and writes nothing until the history is
    // fetched (`git fetch --unshallow`) and rebuild runs again.
    let case = plans::shallow();
    damage(&case, Damage::Delete);
    let before = plans::snapshot_files(&case.plan);
    let wrote = run(&case, &["--write"]);
    assert_eq!(wrote.status.code(), Some(1), "{}", stdout(&wrote));
    let err = stderr(&wrote);
    assert!(
        err.starts_with("completed-at-missing: ")
            && err.contains("4 check(s) failed")
            && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(
        plans::snapshot_files(&case.plan),
        before,
        "a refusal writes nothing"
    );
    let dry: serde_json::Value =
        serde_json::from_str(&run(&case, &["--json"]).stdout).expect("json");
    let s = &dry["state"];
    for i in [0, 1] {
        let t = &s["tasks"][i];
        assert_eq!(t["status"], "completed");
        assert!(
            t.get("commit").is_none() && t.get("completed_at").is_none(),
            "{t}"
        );
        assert_eq!(t["gates"], serde_json::json!([]));
    }
    let (hash, time) = git_task_commit(&case, 3).expect("task 3 is in the clone");
    assert_eq!(s["tasks"][2]["commit"], hash.as_str());
    assert_eq!(s["tasks"][2]["completed_at"], time.as_str());
}

#[test]
fn done_when_no_git_cannot_recover_commits_times_or_gates() {
    // Without git there is no commit, no completion time and so no datable gate for any task,
    // and no time for the terminal checkpoint (the last task's commit time): the rebuilt state
    // leaves those fields absent ("unrecoverable"), so it cannot be published, and rebuild
    // refuses rather than write a completed state around the finalization. A value is never
    // invented.
    let case = plans::no_git();
    damage(&case, Damage::Delete);
    let before = plans::snapshot_files(&case.plan);
    // The rebuilt state reads completed, and the finalization would refuse it: a completed state
    // is never written around the finalization, so nothing is written.
    let wrote = run(&case, &["--write"]);
    assert_eq!(wrote.status.code(), Some(1), "{}", stdout(&wrote));
    let err = stderr(&wrote);
    assert!(
        err.starts_with("terminal-checkpoint-missing: ")
            && err.contains("the rebuilt state reads completed but the finalization would refuse it — 7 check(s) failed"),
        "{err}"
    );
    assert!(
        err.contains("hint: no source holds what these checks need"),
        "{err}"
    );
    assert_eq!(
        plans::snapshot_files(&case.plan),
        before,
        "a refusal writes nothing"
    );
    let dry: serde_json::Value =
        serde_json::from_str(&run(&case, &["--json"]).stdout).expect("json");
    for t in dry["state"]["tasks"].as_array().expect("tasks") {
        assert_eq!(t["status"], "completed");
        assert!(
            t.get("commit").is_none() && t.get("completed_at").is_none(),
            "{t}"
        );
        assert_eq!(t["gates"], serde_json::json!([]));
    }
}

/// `rebuild --write --wait` waits for a live writer's lock and then writes; without `--wait`
/// the same lock is refused at once and nothing changes.
#[test]
fn rebuild_write_with_wait_waits_for_a_live_lock_then_writes() {
    use planseal::recovery::store::{LockStyle, acquire};
    let case = plans::stale_state();
    let state_path = case.root.join(case.plan_rel()).join("state.json");
    let guard = acquire(
        &state_path,
        &LockStyle::Directory,
        "test holds the lock",
        "test",
    )
    .unwrap();
    let before = case.state_bytes();
    let refused = run(&case, &["--write"]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("lock-present"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(case.state_bytes(), before);

    let (root, rel) = (case.root.clone(), case.plan_rel());
    let writer = std::thread::spawn(move || {
        Planseal::new()
            .cwd(&root)
            .clock(NOW)
            .args(["rebuild", rel.as_str(), "--write", "--wait=20s"])
            .output()
    });
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert!(
        !writer.is_finished(),
        "rebuild did not wait for the live lock"
    );
    assert_eq!(case.state_bytes(), before);
    guard.release().unwrap();
    let out = writer.join().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("waiting up to 20s: lock-present"),
        "{}",
        stderr(&out)
    );
    assert_eq!(state(&case)["completed_count"], 4);
}
