//! The DWP command pipelines of `planseal::dwp::ops` called as a library: each outcome's JSON
//! has the fields, in the order, of the document the CLI prints, its text is the CLI's text, and
//! an error keeps its hint apart from its message.

use crate::support::finalize::Workspace;
use crate::support::plans::{self, PLAN_A};
use planseal::clock::Clock;
use planseal::dwp::locate::{Git, OpenPlanError, open_plan};
use planseal::dwp::ops::OpError;
use planseal::dwp::ops::diff::{self, DiffMode, DiffOptions};
use planseal::dwp::ops::finalize::{self, FinalizeOptions};
use planseal::dwp::ops::log::{self, FileHistoryOptions, LogOptions};
use planseal::dwp::ops::rebuild::{self, RebuildOptions};
use planseal::dwp::ops::recover::{self, RecoverOptions};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

fn json(outcome: &impl serde::Serialize) -> Value {
    serde_json::to_value(outcome).expect("serialises")
}

fn clock() -> Clock {
    Clock::fixed("2026-11-30T12:00:00+00:00".parse().expect("instant"), 0)
}

fn hinted(e: OpError) -> (String, Option<String>) {
    match e {
        OpError::Hinted(h) => (h.message, h.hint),
        other => panic!("expected an error with a hint, got {other:?}"),
    }
}

#[test]
fn a_path_that_is_no_plan_folder_says_what_to_pass_on_its_own() {
    let tmp = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(tmp.path().join("empty")).expect("mkdir");
    for (given, message) in [
        ("nowhere", "nowhere: not a folder"),
        ("empty", "empty: neither README.md nor state.json is there"),
    ] {
        let Err(OpenPlanError::NotAPlan(e)) = open_plan(tmp.path(), Path::new(given), Git::Skip)
        else {
            panic!("{given} is no plan folder");
        };
        assert!(e.message.ends_with(message), "{}", e.message);
        assert_eq!(
            e.hint.as_deref(),
            Some("pass a plan folder such as .dwp/plans/PLAN_<name>")
        );
    }
    let case = plans::no_git();
    let plan = open_plan(&case.root, Path::new(&case.plan_rel()), Git::Open(None)).expect("plan");
    assert!(plan.repo.is_none(), "no repository around the plan");
}

#[test]
fn log_timeline_is_the_cli_document_and_text() {
    let case = plans::clean();
    let opts = LogOptions {
        cwd: case.root.clone(),
        plan_dir: case.plan_rel().into(),
    };
    let outcome = log::timeline(&opts, None).expect("log");
    let v = json(&outcome);
    assert_eq!(
        keys(&v),
        [
            "plan",
            "repository",
            "tasks",
            "differences",
            "walked",
            "truncated",
            "notes"
        ]
    );
    assert_eq!(
        v["repository"]["head"],
        "84568addaaf667b18d41a68fef7060463b97343c"
    );
    assert!(!outcome.differs());
    assert_eq!(
        outcome.to_text(false),
        "Plan: PLAN_webhook_retry_backoff (branch main at 84568ad)
  [x] task 1  completed  181b2b7  2026-10-12T13:14:00+00:00  feat(backoff): capped exponential schedule with full jitter - Task 1 of PLAN_webhook_retry_backoff
  [x] task 2  completed  f948e3c  2026-10-12T13:54:00+00:00  feat(deliver): retry transient delivery failures - Task 2 of PLAN_webhook_retry_backoff
  [x] task 3  completed  9c3786d  2026-10-12T14:34:00+00:00  docs(retries): document retry settings for operators - Task 3 of PLAN_webhook_retry_backoff
  [x] task 4  completed  84568ad  2026-10-12T15:14:00+00:00  docs(changelog): note delivery retries after final review - Task 4 of PLAN_webhook_retry_backoff
No differences between git and the plan.
"
    );
    assert!(
        outcome
            .to_text(true)
            .starts_with("Plan: \x1b[1mPLAN_webhook_retry_backoff\x1b[0m (branch main")
    );
}

#[test]
fn log_file_history_is_the_cli_document_and_text() {
    let case = plans::merges();
    let opts = |max_count| FileHistoryOptions {
        plan: LogOptions {
            cwd: case.root.clone(),
            plan_dir: case.plan_rel().into(),
        },
        file: "src/client.py".into(),
        max_count,
    };
    let outcome = log::file_history(&opts(Some(1)), None).expect("history");
    let v = json(&outcome);
    assert_eq!(keys(&v), ["path", "versions", "walked", "truncated"]);
    assert_eq!(v["path"], "src/client.py");
    assert_eq!(
        keys(&v["versions"][0]),
        ["commit", "short", "committed_at", "subject", "blob"]
    );
    let row = &outcome.versions[0];
    assert_eq!(
        outcome.to_text(),
        format!(
            "{} {} feat(client): pacing - Task 2 of PLAN_http_rate_limit\n",
            row.commit, row.committed_at
        )
    );

    let case = plans::no_git();
    let opts = FileHistoryOptions {
        plan: LogOptions {
            cwd: case.root.clone(),
            plan_dir: case.plan_rel().into(),
        },
        file: "x".into(),
        max_count: None,
    };
    let (message, hint) = hinted(log::file_history(&opts, None).expect_err("no git"));
    assert!(message.ends_with("is not in a git repository; there is no file history to show"));
    assert_eq!(hint, None);
}

fn diff_opts(root: &Path, plan: String, mode: DiffMode) -> DiffOptions {
    DiffOptions {
        cwd: root.to_path_buf(),
        plan_dir: plan.into(),
        mode,
    }
}

#[test]
fn diff_of_a_stale_state_is_the_cli_document_text_and_markdown() {
    let case = plans::stale_state();
    let opts = diff_opts(&case.root, case.plan_rel(), DiffMode::StateVsMarkdown);
    let outcome = diff::diff(&opts, None).expect("diff");
    let v = json(&outcome);
    assert_eq!(
        keys(&v),
        [
            "plan",
            "mode",
            "disagreements",
            "state_changes",
            "files",
            "git"
        ]
    );
    assert_eq!(v["mode"], "state-vs-markdown");
    assert!(outcome.differs());
    assert_eq!(
        outcome.to_text(false),
        "Plan: PLAN_webhook_retry_backoff — state.json vs the markdown
  ! README ticks task 3, state.json says pending [markdown-ahead]
  ! task 3's log says Status: completed, state.json says pending [markdown-ahead]
  ! README ticks task 4, state.json says pending [markdown-ahead]
  ! task 4's log says Status: completed, state.json says pending [markdown-ahead]
  ! README says Plan Status: 4/4, state.json has 2/4 completed [markdown-ahead]
Git:
  ! commit 9c3786d names task 3, but state.json says it is pending [commit-names-incomplete-task]
    hint: run `planseal rebuild .dwp/plans/PLAN_webhook_retry_backoff` to see how state.json would be reconciled
  ! commit 84568ad names task 4, but state.json says it is pending [commit-names-incomplete-task]
    hint: run `planseal rebuild .dwp/plans/PLAN_webhook_retry_backoff` to see how state.json would be reconciled
7 difference(s).
"
    );
    let md = outcome.to_markdown();
    assert!(md.starts_with(
        "### planseal diff: PLAN_webhook_retry_backoff — state.json vs the markdown\n\n\
         | task | field | state.json | markdown | direction |\n|---|---|---|---|---|\n"
    ));
}

#[test]
fn diff_against_a_candidate_names_it_as_given() {
    let case = plans::clean_a();
    std::fs::copy(
        plans::vector_dir("A_lite_v2").join("lifecycle/states/10-complete-task2.state.json"),
        case.root.join("candidate.json"),
    )
    .expect("copy");
    let mode = DiffMode::Candidate("candidate.json".into());
    let outcome = diff::diff(&diff_opts(&case.root, case.plan_rel(), mode), None).expect("diff");
    let v = json(&outcome);
    assert_eq!(
        keys(&v),
        [
            "plan",
            "mode",
            "candidate",
            "disagreements",
            "state_changes",
            "files"
        ]
    );
    let text = outcome.to_text(false);
    assert!(
        text.starts_with("Plan: PLAN_http_rate_limit — candidate candidate.json vs state.json\n")
    );
    assert!(text.contains("File state.json (modified):\n--- a/state.json\n+++ b/state.json\n"));

    std::fs::write(case.root.join("candidate.json"), b"{not json").expect("write");
    let mode = DiffMode::Candidate("candidate.json".into());
    let (message, hint) = hinted(
        diff::diff(&diff_opts(&case.root, case.plan_rel(), mode), None).expect_err("bad json"),
    );
    assert!(
        message.contains("the candidate is not valid JSON ("),
        "{message}"
    );
    assert!(!message.contains("fix the file"), "{message}");
    assert_eq!(hint.as_deref(), Some("fix the file"));
}

#[test]
fn diff_against_a_revision_where_the_plan_is_untracked_hints_at_a_candidate() {
    let case = plans::clean();
    let mode = DiffMode::Against("HEAD~1".into());
    let err =
        diff::diff(&diff_opts(&case.root, case.plan_rel(), mode), None).expect_err("untracked");
    let (message, hint) = hinted(err);
    assert!(
        message.ends_with("the plan is not tracked by git there (.dwp/ is usually git-ignored)"),
        "{message}"
    );
    assert_eq!(
        hint.as_deref(),
        Some("compare a candidate with --candidate instead")
    );
}

#[test]
fn rebuild_of_a_deleted_state_is_the_cli_document_and_text() {
    let case = plans::deleted_state();
    let mut opts = RebuildOptions {
        cwd: case.root.clone(),
        plan_dir: case.plan_rel().into(),
        write: false,
        ..Default::default()
    };
    let outcome = rebuild::rebuild(&opts, &mut clock(), None).expect("dry run");
    let v = json(&outcome);
    assert_eq!(
        keys(&v),
        [
            "plan",
            "written",
            "changed",
            "changes",
            "reports",
            "lines",
            "state",
            "state_sha256",
            "started_from",
            "journal_lines_replayed",
            "corrupt_copy",
            "publication",
            "receipt_sha256",
            "manifest_from",
            "from_ignored",
            "would_refuse",
            "write_command"
        ]
    );
    assert_eq!(v["written"], false);
    assert_eq!(v["state_sha256"], Value::Null);
    assert_eq!(v["state"]["updated_at"], "2026-11-30T12:00:00+00:00");
    let text = outcome.to_text();
    assert!(text.contains(
        "task 2 commit: (absent) → f948e3c372d94fad1baa6e4c9fd9738aedcfef7d (source: commit f948e3c)\n"
    ));
    assert!(
        text.contains("nothing written (the state is completed, so --write publishes it through the finalization transaction)\n  hint: run `planseal rebuild ") && text.ends_with(" --write` to apply\n"),
        "{text}"
    );
    assert!(!case.plan.join("state.json").exists());

    opts.write = true;
    let wrote = rebuild::rebuild(&opts, &mut clock(), None).expect("write");
    let sha = wrote.state_sha256.clone().expect("written");
    assert!(wrote.to_text().ends_with(&format!(
        "published the completed state through the finalization transaction ({} change(s), sha256 {}, receipt analysis_results/FINALIZATION.json) and a reconciliation entry in PROGRESS.md\n",
        wrote.changes.len(),
        &sha[..12]
    )));
    let again = rebuild::rebuild(&opts, &mut clock(), None).expect("again");
    assert!(!again.changed && !again.written);
    assert!(
        again
            .to_text()
            .ends_with("state.json already agrees with the markdown and git; nothing to change\n")
    );
}

#[test]
fn rebuild_is_refused_while_a_publication_is_interrupted() {
    let case = plans::clean();
    std::fs::write(case.plan.join(".finalizing.json"), b"{}").expect("marker");
    let opts = RebuildOptions {
        cwd: case.root.clone(),
        plan_dir: case.plan_rel().into(),
        write: true,
        ..Default::default()
    };
    match rebuild::rebuild(&opts, &mut clock(), None) {
        Err(OpError::Refused(r)) => {
            assert_eq!(r.kind.as_str(), "marker-present");
            assert!(r.hint.expect("hint").starts_with("run `planseal recover "));
        }
        other => panic!("expected marker-present, got {other:?}"),
    }
}

fn finalize_opts(ws: &Workspace, candidate: Option<&str>, dry_run: bool) -> FinalizeOptions {
    FinalizeOptions {
        cwd: ws.root().to_path_buf(),
        plan_dir: ws.plan_rel().into(),
        candidate: candidate.map(PathBuf::from),
        expected_sha256: None,
        dry_run,
        allow_dirty_reason: None,
        allow_unverified_git_reason: None,
        clock: clock(),
    }
}

#[test]
fn finalize_is_the_cli_document_and_text() {
    let ws = Workspace::ready_to_publish("A_lite_v2", PLAN_A);
    ws.place(
        "lifecycle/states/15-complete-task3-publish.state.json",
        "cand.json",
    );
    let dry = finalize::finalize(finalize_opts(&ws, Some("cand.json"), true)).expect("dry run");
    let v = json(&dry);
    assert_eq!(
        keys(&v),
        [
            "result",
            "outcome",
            "dry_run",
            "plan",
            "plan_dir",
            "state_sha256_before",
            "state_sha256",
            "artifacts_sha256",
            "state_written",
            "receipt",
            "advisories"
        ]
    );
    assert_eq!(v["result"], "ok");
    assert_eq!(v["dry_run"], true);
    let text = dry.to_text();
    assert!(text.starts_with(
        "PLAN_http_rate_limit: every check passed; nothing was written (--dry-run)\n\
         would write .finalizing.json (candidate 58277939d68c), then state.json, then analysis_results/FINALIZATION.json:\n{"
    ));
    assert_eq!(
        dry.advisories_text(),
        "  [~] the plan is not in a git repository: git checks not applicable\n"
    );

    let done = finalize::finalize(finalize_opts(&ws, Some("cand.json"), false)).expect("publish");
    assert_eq!(json(&done)["outcome"], "published");
    assert_eq!(
        done.to_text(),
        "PLAN_http_rate_limit: published and verified · state 58277939d68c · receipt analysis_results/FINALIZATION.json\n"
    );
    let again = finalize::finalize(finalize_opts(&ws, None, false)).expect("re-seal");
    assert_eq!(json(&again)["outcome"], "resealed");
    assert!(again.to_text().contains(": re-sealed · state 58277939d68c"));

    match finalize::finalize(finalize_opts(&ws, Some("missing.json"), false)) {
        Err(OpError::Refused(r)) => {
            assert_eq!(r.kind.as_str(), "file-not-found");
            assert_eq!(r.message, "missing.json: candidate file not found");
        }
        other => panic!("expected file-not-found, got {other:?}"),
    }
}

fn interrupted() -> Workspace {
    let ws = Workspace::from_folder(
        "A_lite_v2",
        PLAN_A,
        &format!("interrupted/before_publish/plan-after-interruption/{PLAN_A}"),
    );
    ws.place("interrupted/candidate.json", "cand.json");
    ws
}

fn recover_opts(ws: &Workspace, candidate: Option<&str>, rollback: bool) -> RecoverOptions {
    RecoverOptions {
        cwd: ws.root().to_path_buf(),
        plan_dir: ws.plan_rel().into(),
        candidate: candidate.map(PathBuf::from),
        rollback,
        clock: clock(),
        expected_sha256: None,
    }
}

#[test]
fn recover_dry_run_is_the_cli_document_and_text() {
    let ws = interrupted();
    let prepared = recover::prepare(recover_opts(&ws, None, false)).expect("prepare");
    let dry = recover::dry_run(&prepared).expect("dry run");
    let v = json(&dry);
    assert_eq!(
        keys(&v),
        [
            "result",
            "dry_run",
            "plan",
            "marker_present",
            "state_sha256",
            "candidate_sha256",
            "lock_present",
            "would"
        ]
    );
    assert_eq!(v["result"], "ok");
    assert_eq!(v["dry_run"], true);
    assert_eq!(
        v["candidate_sha256"],
        "58277939d68c52cea9ccceba833516139a1f485e104d83eb53aea5515db45e45"
    );
    let text = dry.to_text();
    assert!(text.starts_with(
        "PLAN_http_rate_limit: interrupted publication found\n  marker      written by the DWP helper (hashes only)\n"
    ));
    assert!(text.contains(
        "  receipt     none\n  would       refuse (candidate-required): run `planseal recover "
    ));
    assert!(text.ends_with(" (dry run: nothing changed)\n"), "{text}");
    // The diagnosis alone is the text printed before recovering.
    let diagnosis = recover::diagnose(&prepared).expect("diagnosis");
    assert!(text.starts_with(&diagnosis.to_text()));
}

#[test]
fn recover_is_the_cli_document_and_text_for_each_outcome() {
    let ws = interrupted();
    let prepared = recover::prepare(recover_opts(&ws, Some("cand.json"), false)).expect("prepare");
    let done = recover::recover(prepared).expect("roll forward");
    let v = json(&done);
    assert_eq!(
        keys(&v),
        [
            "outcome",
            "plan",
            "state_sha256",
            "state_written",
            "lock_removed",
            "receipt"
        ]
    );
    assert_eq!(v["outcome"], "rolled-forward");
    assert_eq!(
        done.to_text(),
        "PLAN_http_rate_limit: recovered — published state 58277939d68c verified, receipt written, marker removed\n"
    );
    let prepared = recover::prepare(recover_opts(&ws, None, false)).expect("prepare");
    let nothing = recover::recover(prepared).expect("nothing");
    assert_eq!(keys(&json(&nothing)), ["outcome", "plan", "lock_present"]);
    assert_eq!(
        nothing.to_text(),
        "PLAN_http_rate_limit: no interrupted publication (no .finalizing.json)\n"
    );

    let ws = interrupted();
    let prepared = recover::prepare(recover_opts(&ws, None, true)).expect("prepare");
    let back = recover::recover(prepared).expect("roll back");
    let v = json(&back);
    assert_eq!(
        keys(&v),
        ["outcome", "plan", "state_sha256", "lock_removed"]
    );
    assert_eq!(v["outcome"], "rolled-back");
    assert_eq!(
        back.to_text(),
        "PLAN_http_rate_limit: rolled back — marker removed, state.json left as it was\n"
    );

    match recover::prepare(recover_opts(&ws, Some("missing.json"), false)) {
        Err(OpError::Refused(r)) => assert_eq!(r.kind.as_str(), "file-not-found"),
        other => panic!("expected file-not-found, got {other:?}"),
    }
}
