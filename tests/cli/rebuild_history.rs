//! `planseal rebuild` from every record the plan has: the committed state.json rolled forward by
//! the journal, the journal alone (new and old line format), a lost manifest restored from git,
//! and a completed rebuild published only through the finalization — whose printed hints, followed
//! in order, reach CONFORMANT inside and outside a git repository. The repositories are built by
//! the recorded vectors' `build-repo.sh` (pinned names and dates) plus commits made here with
//! pinned dates; `fixtures/dwp/rebuild/` holds the old-format journal.

use crate::support::gitrepo::{git_command, project_root, vector_repo};
use crate::support::plans::{self, Case, PLAN_A};
use crate::support::run::{Planseal, Run};
use crate::support::{stderr, stdout};
use serde_json::Value;

const NOW: &str = "2026-11-30T12:00:00+00:00";

fn snapshot(name: &str) -> std::path::PathBuf {
    plans::snapshot("A_lite_v2", PLAN_A, name)
}

/// Fixture A's repository with `through` task commits, holding the plan of snapshot `name`.
fn repo_case(through: u32, name: &str) -> Case {
    let (tmp, root) = vector_repo("A_lite_v2", Some(through), Some(&snapshot(name)));
    let plan = root.join(".dwp/plans").join(PLAN_A);
    Case { tmp, root, plan }
}

/// Fixture A's plan of snapshot `name` in a folder that is no repository.
fn no_git_case(name: &str) -> Case {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().to_path_buf();
    let plan = root.join(".dwp/plans").join(PLAN_A);
    plans::copy_dir(&snapshot(name), &plan);
    Case { tmp, root, plan }
}

fn run(case: &Case, args: &[&str]) -> Run {
    Planseal::new()
        .cwd(&case.root)
        .clock(NOW)
        .args(args)
        .output()
}

fn rebuild(case: &Case, extra: &[&str]) -> Run {
    let rel = case.plan_rel();
    let mut args = vec!["rebuild", rel.as_str()];
    args.extend_from_slice(extra);
    run(case, &args)
}

fn verify(case: &Case) -> (Option<i32>, String) {
    let out = run(case, &["verify", &case.plan_rel()]);
    (out.status.code(), stdout(&out))
}

/// Commits everything (the plan folder too, though `.dwp/` is ignored) with a pinned date.
fn commit_all(case: &Case, subject: &str, date: &str) -> String {
    let git = |args: &[&str]| {
        let out = git_command(&case.root)
            .env("GIT_AUTHOR_DATE", date)
            .env("GIT_COMMITTER_DATE", date)
            .args(args)
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    git(&["add", "-A", "-f", "."]);
    git(&["commit", "-q", "--no-gpg-sign", "-m", subject]);
    git(&["rev-parse", "--short", "HEAD"])
}

fn update(case: &Case, args: &[&str]) {
    let state = format!("{}/state.json", case.plan_rel());
    let mut all = vec!["update", state.as_str()];
    all.extend_from_slice(args);
    let out = run(case, &all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

fn state(case: &Case) -> Value {
    serde_json::from_slice(&case.state_bytes()).expect("state.json parses")
}

fn journal(case: &Case) -> std::path::PathBuf {
    case.plan.join("analysis_results/STATE_JOURNAL.ndjson")
}

/// A dry run: exit 0, every file byte for byte as before; returns the text.
fn dry_run(case: &Case) -> String {
    let before = plans::snapshot_files(&case.root);
    let out = rebuild(case, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        plans::snapshot_files(&case.root),
        before,
        "a dry run writes nothing"
    );
    stdout(&out)
}

#[test]
fn update_lines_carry_the_applied_content() {
    let case = repo_case(1, "after-task1");
    update(&case, &["--task", "2", "--status", "in_progress"]);
    let text = std::fs::read_to_string(journal(&case)).expect("journal");
    let line: Value = serde_json::from_str(text.lines().last().expect("line")).expect("json");
    let applied = &line["applied"];
    assert_eq!(applied["version"], 2);
    assert_eq!(applied["task"], 2);
    assert_eq!(applied["set"]["status"], "in_progress");
    assert_eq!(applied["set"]["started_at"], NOW);
    assert_eq!(applied["gates_added"], serde_json::json!([]));
    assert_eq!(applied["plan_set"]["approval"], "approved");
    assert_eq!(applied["plan_set"]["checkpoint"]["task"], 2);
    // The line's common fields are unchanged: hashes, statuses, the gate count.
    assert_eq!(line["from"], "pending");
    assert_eq!(line["to"], "in_progress");
    assert_eq!(line["gates_added"], 0);
}

#[test]
fn tracked_dwp_with_a_corrupt_state_recovers_approval_and_outcomes_from_the_committed_copy() {
    let case = repo_case(1, "after-task1");
    let short = commit_all(&case, "chore: track the plan", "2026-10-05T09:20:00+00:00");
    let committed = state(&case);
    // After the commit, one transition (journal line in the new format), then the file is
    // corrupted.
    update(&case, &["--task", "2", "--status", "in_progress"]);
    let corrupt = b"{\"schema\": \"https://deepworkplan.com/sch".to_vec();
    std::fs::write(case.plan.join("state.json"), &corrupt).expect("corrupt");

    let text = dry_run(&case);
    assert!(
        text.starts_with(&format!(
            "state.json is missing or does not parse: started from the state.json of commit {short}, 1 journal line(s) replayed\n"
        )),
        "{text}"
    );
    assert!(text.contains("the unparseable state.json would be kept as state.json.corrupt-"));
    assert!(
        text.contains(&format!(
            "approval: (absent) → approved (source: state.json of commit {short})\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "task 1 outcome: (absent) → {} (source: state.json of commit {short})\n",
            committed["tasks"][0]["outcome"]
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "task 2 status: (absent) → in_progress (source: journal line {NOW})\n"
        )),
        "{text}"
    );
    assert!(text.contains(&format!(
        "task 2 started_at: (absent) → {NOW} (source: journal line {NOW})\n"
    )));

    let json: Value = serde_json::from_str(&rebuild(&case, &["--json"]).stdout).expect("json");
    assert_eq!(json["started_from"], format!("committed {short}"));
    assert_eq!(json["journal_lines_replayed"], 1);
    let approval = json["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["field"] == "approval")
        .expect("approval");
    assert_eq!(
        approval["source"],
        serde_json::json!({"kind": "committed-state", "detail": short})
    );

    let wrote = rebuild(&case, &["--write"]);
    assert_eq!(wrote.status.code(), Some(0), "{}", stderr(&wrote));
    let copy_name = json["corrupt_copy"]
        .as_str()
        .expect("copy name")
        .to_string();
    assert!(copy_name.starts_with("state.json.corrupt-") && copy_name.len() == 31);
    assert!(stdout(&wrote).contains(&format!(
        "the unparseable state.json was kept as {copy_name}\n"
    )));
    assert_eq!(
        std::fs::read(case.plan.join(&copy_name)).expect("copy"),
        corrupt
    );
    let s = state(&case);
    assert_eq!(s["updated_at"], NOW);
    assert_eq!(s["approval"], "approved");
    assert_eq!(s["tasks"][0]["outcome"], committed["tasks"][0]["outcome"]);
    assert_eq!(s["tasks"][0]["gates"], committed["tasks"][0]["gates"]);
    assert_eq!(s["tasks"][1]["status"], "in_progress");
    let progress = std::fs::read_to_string(case.plan.join("PROGRESS.md")).expect("progress");
    assert!(progress.contains(&format!("its bytes are kept as {copy_name}")));
    assert!(progress.contains(&format!(
        "the state.json of commit {short}, 1 journal line(s)"
    )));
    let (code, text) = verify(&case);
    assert_eq!(code, Some(0), "{text}");
    // The copy is no debris and no fingerprinted file: a second rebuild changes nothing.
    assert!(stdout(&rebuild(&case, &[])).ends_with("nothing to change\n"));
}

#[test]
fn untracked_dwp_with_state_deleted_replays_a_journal_in_the_new_format() {
    // From the plan's first state on, every transition is journaled; then state.json is lost.
    let case = repo_case(1, "after-task1");
    std::fs::copy(
        plans::lifecycle_state("A_lite_v2", "00-initial.state.json"),
        case.plan.join("state.json"),
    )
    .expect("initial state");
    update(&case, &["--task", "1", "--status", "in_progress"]);
    update(
        &case,
        &[
            "--task",
            "1",
            "--status",
            "completed",
            "--gate",
            "python3 -m unittest tests.test_ratelimit|0|scope=tests/test_ratelimit.py; fp=f52b629+dirty; ran=4/4; log=analysis_results/gates/t1-unittest.log",
            "--worked",
            "TokenBucket with an injected clock",
            "--notes",
            "4 tests, none of them sleeps",
            "--commit",
            "49a4d7ebed977a49892c2a4ccd8c9e5a784e4422",
        ],
    );
    let reference = state(&case);
    std::fs::remove_file(case.plan.join("state.json")).expect("delete");

    let text = dry_run(&case);
    assert!(
        text.starts_with(
            "state.json is missing or does not parse: started from the journal alone, 2 journal line(s) replayed\n"
        ),
        "{text}"
    );
    assert!(text.contains(&format!(
        "task 1 outcome: (absent) → {{\"worked\":\"TokenBucket with an injected clock\",\"notes\":\"4 tests, none of them sleeps\"}} (source: journal line {NOW})\n"
    )), "{text}");
    // The gate record is in the journal and in the task log's `Gate record:` line: one record,
    // both sources named.
    assert!(
        text.contains(&format!(
            "task 1 gates: (absent) → 1 record(s) (source: journal line {NOW} + task log)\n"
        )),
        "{text}"
    );
    assert!(text.contains(&format!(
        "approval: (absent) → approved (source: journal line {NOW})\n"
    )));
    assert!(!text.contains("unrecoverable"), "{text}");

    let wrote = rebuild(&case, &["--write"]);
    assert_eq!(wrote.status.code(), Some(0), "{}", stderr(&wrote));
    let s = state(&case);
    for key in ["approval", "checkpoint", "completed_count", "status"] {
        assert_eq!(s[key], reference[key], "{key}");
    }
    let (t, r) = (&s["tasks"][0], &reference["tasks"][0]);
    for key in [
        "status",
        "gates",
        "started_at",
        "completed_at",
        "commit",
        "outcome",
    ] {
        assert_eq!(t[key], r[key], "task 1 {key}");
    }
    let (code, text) = verify(&case);
    assert_eq!(code, Some(0), "{text}");
}

#[test]
fn untracked_dwp_with_state_deleted_and_an_old_format_journal_recovers_statuses_only() {
    let case = no_git_case("after-task1");
    std::fs::remove_file(case.plan.join("state.json")).expect("delete");
    std::fs::copy(
        project_root().join("fixtures/dwp/rebuild/old-format.STATE_JOURNAL.ndjson"),
        journal(&case),
    )
    .expect("journal");
    let text = dry_run(&case);
    assert!(text.starts_with(
        "state.json is missing or does not parse: started from the journal alone, 3 journal line(s) replayed\n"
    ), "{text}");
    // Statuses: the markdown's for the ticked task, the journal's for the one in progress.
    assert!(
        text.contains(
            "task 1 status: (absent) → completed (source: README + journal line 2026-11-30T12:10:00+00:00)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "task 2 status: (absent) → in_progress (source: journal line 2026-11-30T12:30:00+00:00)\n"
        ),
        "{text}"
    );
    // The rest is said to be unrecoverable, never invented.
    assert!(text.contains("journal: (absent) → (absent) (source: unrecoverable) — 3 of the 3 journal line(s) replayed carry no applied content"), "{text}");
    assert!(text.contains("task 1 completed_at: (absent) → (absent) (source: unrecoverable)"));
    assert!(text.contains("task 1 gates: (absent) → (absent) (source: unrecoverable)"));
    let doc: Value = serde_json::from_str(&rebuild(&case, &["--json"]).stdout).expect("json");
    let t1 = &doc["state"]["tasks"][0];
    assert!(
        t1.get("outcome").is_none() && t1.get("completed_at").is_none(),
        "{t1}"
    );
    assert_eq!(t1["gates"], serde_json::json!([]));
}

#[test]
fn a_lost_manifest_is_restored_byte_for_byte_from_git() {
    let case = repo_case(1, "after-task1");
    let manifest = std::fs::read(case.plan.join("manifest.json")).expect("manifest");
    let short = commit_all(&case, "chore: track the plan", "2026-10-05T09:20:00+00:00");
    std::fs::remove_file(case.plan.join("manifest.json")).expect("lose it");
    let before = plans::snapshot_files(&case.root);
    let dry = rebuild(&case, &["--manifest"]);
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert_eq!(
        stdout(&dry),
        format!(
            "manifest.json: (absent) → {} bytes (source: commit {short})\nwould restore manifest.json from commit {short}\n  hint: run `planseal rebuild .dwp/plans/PLAN_http_rate_limit --manifest --write` to apply\n",
            manifest.len()
        )
    );
    assert_eq!(plans::snapshot_files(&case.root), before);
    let wrote = rebuild(&case, &["--manifest", "--write"]);
    assert_eq!(wrote.status.code(), Some(0), "{}", stderr(&wrote));
    assert_eq!(
        std::fs::read(case.plan.join("manifest.json")).expect("restored"),
        manifest
    );
    let progress = std::fs::read_to_string(case.plan.join("PROGRESS.md")).expect("progress");
    assert!(progress.contains(&format!(
        "manifest.json restored by planseal from commit {short}"
    )));
    let text = std::fs::read_to_string(journal(&case)).expect("journal");
    let line: Value = serde_json::from_str(text.lines().last().expect("line")).expect("json");
    assert_eq!(line["operation"], "rebuild --manifest");
    assert_eq!(line["commit"], short);
    let (code, text) = verify(&case);
    assert_eq!(code, Some(0), "{text}");
    // An existing manifest is never rewritten.
    let again = rebuild(&case, &["--manifest", "--write"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        stderr(&again).starts_with("usage-error: "),
        "{}",
        stderr(&again)
    );
}

#[test]
fn a_manifest_no_revision_holds_is_refused_with_the_values_the_plan_suggests() {
    for case in [repo_case(1, "after-task1"), no_git_case("after-task1")] {
        std::fs::remove_file(case.plan.join("manifest.json")).expect("lose it");
        let before = plans::snapshot_files(&case.root);
        let out = rebuild(&case, &["--manifest", "--write"]);
        assert_eq!(out.status.code(), Some(1));
        let err = stderr(&out);
        assert!(err.starts_with("manifest-unrecoverable: "), "{err}");
        assert!(
            err.contains("name = PLAN_http_rate_limit (source: derived)")
                && err.contains(
                    "schema = https://deepworkplan.com/schema/plan-manifest/v2.json (source: old state)"
                )
                && err.contains("task_count = 3 (source: README)")
                && err.contains("plan_format = lite (source: README)"),
            "{err}"
        );
        assert!(
            err.contains("record it as a migration entry in PROGRESS.md"),
            "{err}"
        );
        assert_eq!(plans::snapshot_files(&case.root), before);
    }
}

/// The command between the first pair of backticks of the refusal's hint, split on spaces (the
/// hints this test follows quote nothing).
fn hinted_command(err: &str) -> Vec<String> {
    let hint = err
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("hint: "))
        .expect("a hint");
    let cmd = hint.split('`').nth(1).expect("a command in backticks");
    cmd.split(' ').skip(1).map(str::to_string).collect()
}

#[test]
fn readme_closed_the_last_task_while_state_did_not_reaches_conformant_inside_and_outside_git() {
    // The README ticks task 3; state.json still calls it in_progress. Inside git the rebuilt
    // state is complete and goes through the finalization; outside git no record gives task 3's
    // completion time, so rebuild refuses (writing nothing) and its hint is the `update` that
    // records it and publishes the plan. Either way, following the hints reaches CONFORMANT.
    for (case, in_git) in [
        (repo_case(3, "ready-to-publish"), true),
        (no_git_case("ready-to-publish"), false),
    ] {
        let (code, text) = verify(&case);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("README ticks task 3 but state.json says in_progress"));
        assert!(text.contains("run `planseal rebuild "), "{text}");
        let dry = dry_run(&case);
        assert!(dry.contains("task 3 status: in_progress → completed (source: README)\n"));
        // The dry run already says whether --write would publish it.
        assert_eq!(
            dry.contains("--write would refuse it (terminal-checkpoint-missing)"),
            !in_git,
            "{dry}"
        );
        let before = plans::snapshot_files(&case.root);
        let wrote = rebuild(&case, &["--write"]);
        if in_git {
            assert_eq!(wrote.status.code(), Some(0), "{}", stderr(&wrote));
            assert!(stdout(&wrote).contains("through the finalization transaction"));
            // The finalization published the rebuilt state as its candidate and journaled the
            // rebuild's line (the state it published, for a replay); the receipt seals it.
            let text = std::fs::read_to_string(journal(&case)).expect("journal");
            let last: Value =
                serde_json::from_str(text.lines().last().expect("line")).expect("json");
            assert_eq!(last["operation"], "rebuild+finalize");
            assert_eq!(last["applied"]["replaced"], state(&case));
            assert_eq!(
                last["after_sha256"],
                crate::support::fs::sha256(&case.state_bytes())
            );
            let receipt: Value = serde_json::from_slice(
                &std::fs::read(case.plan.join("analysis_results/FINALIZATION.json"))
                    .expect("receipt"),
            )
            .expect("json");
            assert_eq!(
                receipt["state_sha256"],
                crate::support::fs::sha256(&case.state_bytes())
            );
        } else {
            assert_eq!(wrote.status.code(), Some(1), "{}", stdout(&wrote));
            let err = stderr(&wrote);
            assert!(err.starts_with("terminal-checkpoint-missing: "), "{err}");
            assert_eq!(plans::snapshot_files(&case.root), before, "nothing written");
            let cmd = hinted_command(&err);
            assert_eq!(cmd[0], "update", "{err}");
            let follow = run(&case, &cmd.iter().map(String::as_str).collect::<Vec<_>>());
            assert_eq!(follow.status.code(), Some(0), "{}", stderr(&follow));
        }
        assert!(
            case.plan
                .join("analysis_results/FINALIZATION.json")
                .exists(),
            "published with its receipt"
        );
        assert_eq!(state(&case)["status"], "completed");
        let (code, text) = verify(&case);
        assert_eq!(code, Some(0), "{text}");
        assert!(text.contains("Verdict: CONFORMANT"), "{text}");
    }
}

#[test]
fn from_rev_starts_from_the_state_json_of_that_revision() {
    // Two committed versions of state.json: after task 1, then with task 2 started. The newest
    // is the default; `--from` takes the older one (and replays nothing: no journal line
    // starts at its hash).
    let case = repo_case(1, "after-task1");
    let first = commit_all(&case, "chore: track the plan", "2026-10-05T09:20:00+00:00");
    update(&case, &["--task", "2", "--status", "in_progress"]);
    let second = commit_all(&case, "chore: task 2 started", "2026-10-05T09:25:00+00:00");
    std::fs::remove_file(case.plan.join("state.json")).expect("delete");
    let newest = dry_run(&case);
    assert!(
        newest.starts_with(&format!(
            "state.json is missing or does not parse: started from the state.json of commit {second}, 0 journal line(s) replayed\n"
        )),
        "{newest}"
    );
    assert!(newest.contains(&format!(
        "task 2 status: (absent) → in_progress (source: state.json of commit {second})\n"
    )));
    let rel = case.plan_rel();
    let before = plans::snapshot_files(&case.root);
    let older = run(&case, &["rebuild", &rel, "--from", "HEAD~1"]);
    assert_eq!(older.status.code(), Some(0), "{}", stderr(&older));
    assert_eq!(plans::snapshot_files(&case.root), before);
    let text = stdout(&older);
    assert!(
        text.starts_with(&format!(
            "state.json is missing or does not parse: started from the state.json of commit {first}, 1 journal line(s) replayed\n"
        )),
        "{text}"
    );
    // The journal line of the update rolls the older copy forward to the same status.
    assert!(
        text.contains(&format!(
            "task 2 status: (absent) → in_progress (source: journal line {NOW})\n"
        )),
        "{text}"
    );
    // A state.json on disk that parses wins over any revision: --from says it is not used.
    std::fs::write(case.plan.join("state.json"), b"").expect("placeholder");
    assert!(rebuild(&case, &["--write"]).status.success());
    let out = run(&case, &["rebuild", &rel, "--from", "HEAD~1"]);
    assert!(
        stdout(&out).starts_with(
            "--from is not used: state.json on disk parses, and it wins over a committed copy\n"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_published_plan_tracked_by_git_gets_its_committed_state_back_byte_for_byte() {
    // Nothing since the commit changes a value: the committed bytes are restored as they are
    // (the receipt's state hash holds again), the corrupt bytes kept beside them, and the
    // completed state goes through the finalization (a re-seal).
    let case = repo_case(3, "final");
    let published = case.state_bytes();
    commit_all(&case, "chore: track the plan", "2026-10-05T11:20:00+00:00");
    std::fs::write(case.plan.join("state.json"), b"{\"tasks\": [").expect("corrupt");
    let text = dry_run(&case);
    assert!(
        text.contains(
            "updated_at: (absent) → 2026-10-05T10:15:00+00:00 (source: state.json of commit"
        ),
        "{text}"
    );
    let wrote = rebuild(&case, &["--write"]);
    assert_eq!(wrote.status.code(), Some(0), "{}", stderr(&wrote));
    assert_eq!(case.state_bytes(), published);
    let copy = format!(
        "state.json.corrupt-{}",
        &crate::support::fs::sha256(b"{\"tasks\": [")[..12]
    );
    assert_eq!(
        std::fs::read(case.plan.join(copy)).expect("copy"),
        b"{\"tasks\": ["
    );
    let (code, text) = verify(&case);
    assert_eq!(code, Some(0), "{text}");
}
