//! `planseal task done` and `planseal publish-check`: a task's close-out written where the
//! plan's rules read it, then the state transition; and the list of what is still missing.
//! A plan goes from its approval to a published receipt with planseal's writers alone.

use crate::support::fs::{copy_dir, tree};
use crate::support::run::{Planseal, Run};
use crate::support::{stderr, stdout};
use std::path::{Path, PathBuf};

const PLAN: &str = ".dwp/plans/PLAN_http_rate_limit";
const FULL: &str = ".dwp/plans/PLAN_webhook_retry_backoff";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/vectors/dwp")
        .join(name)
}

/// Fixture A's plan as materialized: approved, every task pending, outside git.
fn lite() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join(PLAN);
    copy_dir(&fixture("A_lite_v2/fixture/PLAN_http_rate_limit"), &plan);
    (dir, plan)
}

fn run(root: &Path, now: &str, args: &[&str]) -> Run {
    Planseal::new().cwd(root).clock(now).args(args).output()
}

fn read(plan: &Path, rel: &str) -> String {
    std::fs::read_to_string(plan.join(rel)).unwrap()
}

fn state(plan: &Path) -> serde_json::Value {
    serde_json::from_str(&read(plan, "state.json")).unwrap()
}

const GATE1: &str =
    "python3 -m unittest tests.test_ratelimit|0|scope=tests/test_ratelimit.py; ran=4/4";
const SUITE: &str = "python3 -m unittest discover -s tests -t .|0|scope=whole suite; ran=9/9";

fn close(root: &Path, now: &str, task: &str, gate: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "task",
        "done",
        PLAN,
        "--task",
        task,
        "--gate",
        gate,
        "--summary",
        "done as planned",
        "--outputs",
        "`fetchkit/ratelimit.py`",
        "--skills-disposition",
        "none — nothing reusable",
        "--documentation-decision",
        "not applicable — internal module",
    ];
    args.extend_from_slice(extra);
    run(root, now, &args)
}

#[test]
fn a_lite_plan_goes_from_its_approval_to_a_published_receipt_with_planseal_writers_only() {
    let (dir, plan) = lite();
    let root = dir.path();
    // The proposal as the agent materialized it: approval pending in both places.
    let pending = read(&plan, "state.json")
        .replace("\"approval\": \"approved\"", "\"approval\": \"pending\"");
    std::fs::write(plan.join("state.json"), pending).unwrap();
    let readme = read(&plan, "README.md").replace("Approval: approved", "Approval: pending");
    std::fs::write(plan.join("README.md"), readme).unwrap();

    let approve = run(
        root,
        "2026-10-05T08:50:00+00:00",
        &["approve", PLAN, "--by", "Ana Lima"],
    );
    assert_eq!(approve.status.code(), Some(0), "{}", stderr(&approve));
    let one = close(
        root,
        "2026-10-05T09:10:00+00:00",
        "1",
        GATE1,
        &["--worked", "an injected clock"],
    );
    assert_eq!(one.status.code(), Some(0), "{}", stderr(&one));
    assert_eq!(
        stdout(&one),
        "PLAN_http_rate_limit: task 1 close-out: wrote README.md, PROGRESS.md\ntask 1 → completed · 1/3 completed · plan in_progress\n"
    );
    let two = close(
        root,
        "2026-10-05T09:40:00+00:00",
        "2",
        SUITE,
        &["--worked", "sleep injected"],
    );
    assert_eq!(two.status.code(), Some(0), "{}", stderr(&two));

    // Before the last task: everything still missing, at once.
    let check = run(root, "2026-10-05T09:45:00+00:00", &["publish-check", PLAN]);
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    let text = stdout(&check);
    assert!(
        text.starts_with(
            "PLAN_http_rate_limit: 5 thing(s) missing before publication (open task(s): 3)\n"
        ),
        "{text}"
    );
    for id in [
        "completion-gates-unsuccessful",
        "task-record-unpublishable",
        "readme-checkbox-disagrees",
        "task-log-still-pending",
        "security-review-missing",
    ] {
        assert!(text.contains(&format!("({id})")), "{id}: {text}");
    }

    // The Final Review's own output (not a plan file planseal writes), then its close-out.
    std::fs::write(
        plan.join("analysis_results/SECURITY_REVIEW.md"),
        "# Security review\n\nNo findings: the limiter logs nothing and reads no secrets.\n",
    )
    .unwrap();
    let last = close(
        root,
        "2026-10-05T10:10:00+00:00",
        "3",
        SUITE,
        &["--worked", "reviewed"],
    );
    assert_eq!(last.status.code(), Some(0), "{}", stderr(&last));
    assert!(
        stdout(&last).ends_with("task 3 → completed · plan completed and verified\n"),
        "{}",
        stdout(&last)
    );
    assert!(plan.join("analysis_results/FINALIZATION.json").is_file());
    let verify = run(root, "2026-10-05T10:11:00+00:00", &["verify", PLAN]);
    assert_eq!(verify.status.code(), Some(0), "{}", stdout(&verify));
    let check = run(root, "2026-10-05T10:12:00+00:00", &["publish-check", PLAN]);
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));

    // What the close-outs wrote, as the method asks for it.
    let readme = read(&plan, "README.md");
    assert!(readme.contains("Plan Status: 3/3 completed\n"));
    assert!(readme.contains("- [x] Task 1: Token bucket limiter\n- [x] Task 2: Throttle client requests\n- [x] Task 3: Final Review\n"));
    assert!(readme.contains("### Completion & Log\n\nStatus: completed\nCompleted: 2026-10-05\nSummary: done as planned\nOutputs: `fetchkit/ratelimit.py`\nSkills disposition: none — nothing reusable\nDocumentation decision: not applicable — internal module\nGate record: `python3 -m unittest tests.test_ratelimit` · exit 0 · scope=tests/test_ratelimit.py; ran=4/4\n"), "{readme}");
    let progress = read(&plan, "PROGRESS.md");
    assert!(progress.contains("### Task 1 — Token bucket limiter (2026-10-05)\n\n- done as planned\n- Outputs: `fetchkit/ratelimit.py`\n- Gate: `python3 -m unittest tests.test_ratelimit` · exit 0 · scope=tests/test_ratelimit.py; ran=4/4\n"), "{progress}");
    assert!(!progress.contains("(none yet)"));
    let s = state(&plan);
    assert_eq!(s["status"], "completed");
    assert_eq!(s["tasks"][0]["outcome"]["worked"], "an injected clock");
    // Re-running a close-out that is complete changes nothing.
    let before = tree(&plan);
    let again = close(
        root,
        "2026-10-05T10:20:00+00:00",
        "3",
        SUITE,
        &["--worked", "reviewed"],
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(tree(&plan), before);
}

#[test]
fn placeholders_write_the_markdown_refuse_the_state_and_a_rerun_finishes() {
    let (dir, plan) = lite();
    let root = dir.path();
    let state_before = read(&plan, "state.json");
    let out = run(
        root,
        "2026-10-05T09:10:00+00:00",
        &[
            "task",
            "done",
            PLAN,
            "--task",
            "1",
            "--gate",
            GATE1,
            "--summary",
            "bucket in place",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with("task-record-placeholder: PLAN_http_rate_limit task 1: Outputs, Skills disposition, Documentation decision still hold a `TODO:` placeholder"), "{err}");
    assert!(err.contains("the markdown close-out was written (README.md, PROGRESS.md), state.json was not changed"), "{err}");
    assert!(
        err.contains("--outputs --skills-disposition --documentation-decision"),
        "{err}"
    );
    assert_eq!(read(&plan, "state.json"), state_before);
    let readme = read(&plan, "README.md");
    assert!(
        readme.contains("Outputs: TODO: the files or artifacts it produced\n"),
        "{readme}"
    );
    assert!(readme.contains("- [x] Task 1: Token bucket limiter\n"));
    // verify names the state that was left: the markdown is closed, the state is not.
    let verify = run(root, "2026-10-05T09:11:00+00:00", &["verify", PLAN]);
    assert_eq!(verify.status.code(), Some(1));
    assert!(
        stdout(&verify).contains("README ticks task 1 but state.json says pending"),
        "{}",
        stdout(&verify)
    );

    let again = close(root, "2026-10-05T09:12:00+00:00", "1", GATE1, &[]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(state(&plan)["tasks"][0]["status"], "completed");
    let readme = read(&plan, "README.md");
    assert!(!readme.contains("TODO:"), "{readme}");
    assert!(
        readme.contains("Completed: 2026-10-05\nSummary: done as planned\n"),
        "the first run's date is kept, the summary replaced: {readme}"
    );
    assert_eq!(readme.matches("Gate record:").count(), 1, "{readme}");
    assert_eq!(
        read(&plan, "PROGRESS.md").matches("### Task 1 —").count(),
        1
    );
}

#[test]
fn dry_run_shows_the_diff_and_what_the_transition_would_meet() {
    let (dir, plan) = lite();
    let before = tree(&plan);
    let out = close(
        dir.path(),
        "2026-10-05T09:10:00+00:00",
        "1",
        GATE1,
        &["--dry-run"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "PLAN_http_rate_limit: task 1 close-out: would write README.md, PROGRESS.md\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("-- [ ] Task 1: Token bucket limiter\n+- [x] Task 1: Token bucket limiter\n"),
        "{text}"
    );
    assert!(
        text.contains("the state transition would apply\n"),
        "{text}"
    );
    assert!(text.ends_with("nothing written (--dry-run)\n"));
    // Task 2 cannot be completed before task 1: the dry run says so.
    let out = close(
        dir.path(),
        "2026-10-05T09:10:00+00:00",
        "2",
        SUITE,
        &["--dry-run"],
    );
    assert!(
        stdout(&out).contains("the state transition would be refused: prior-task-incomplete"),
        "{}",
        stdout(&out)
    );
    assert_eq!(tree(&plan), before);
}

#[test]
fn refusals_leave_every_file_byte_identical() {
    let (dir, plan) = lite();
    let before = tree(&plan);
    let root = dir.path();
    for (args, kind) in [
        (vec!["task", "done", PLAN, "--task", "9"], "unknown-task:"),
        (
            vec!["task", "done", PLAN, "--task", "1", "--gate", "no pipes"],
            "gate-spec-malformed:",
        ),
        (
            vec![
                "task",
                "done",
                PLAN,
                "--task",
                "1",
                "--expected-sha256",
                "00",
            ],
            "stale-snapshot:",
        ),
    ] {
        let out = run(root, "2026-10-05T09:10:00+00:00", &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).starts_with(kind), "{args:?}: {}", stderr(&out));
    }
    // A lower task still open: the transition is decided before anything is written, so no
    // README box is ticked for a task the state cannot complete.
    let out = close(root, "2026-10-05T09:10:00+00:00", "2", SUITE, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("prior-task-incomplete:"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tree(&plan), before);
}

#[test]
fn a_full_plan_with_a_crlf_task_file_keeps_its_line_endings_and_other_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let plan = dir.path().join(FULL);
    copy_dir(
        &fixture("B_full_v5/fixture/PLAN_webhook_retry_backoff"),
        &plan,
    );
    let task_file = plan.join("1.task_backoff_schedule.md");
    let crlf = std::fs::read_to_string(&task_file)
        .unwrap()
        .replace('\n', "\r\n")
        .replace("## 3. Goal", "## 3. Goal — délais exponentiels");
    std::fs::write(&task_file, &crlf).unwrap();
    let out = run(
        dir.path(),
        "2026-10-12T10:00:00+00:00",
        &[
            "task",
            "done",
            FULL,
            "--task",
            "1",
            "--gate",
            "python3 -m unittest tests.test_backoff|0|ran=4/4",
            "--summary",
            "schedule in place",
            "--outputs",
            "`webhookd/backoff.py`",
            "--skills-disposition",
            "none",
            "--documentation-decision",
            "not applicable",
            "--dry-run",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("would write 1.task_backoff_schedule.md, README.md, PROGRESS.md"),
        "{}",
        stdout(&out)
    );
    let out = run(
        dir.path(),
        "2026-10-12T10:00:00+00:00",
        &[
            "task",
            "done",
            FULL,
            "--task",
            "1",
            "--gate",
            "python3 -m unittest tests.test_backoff|0|ran=4/4",
            "--summary",
            "schedule in place",
            "--outputs",
            "`webhookd/backoff.py`",
            "--skills-disposition",
            "none",
            "--documentation-decision",
            "not applicable",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let after = std::fs::read_to_string(&task_file).unwrap();
    // Every old line is there with its CRLF; the new ones have CRLF too.
    assert!(!after.replace("\r\n", "").contains('\n'));
    assert!(after.starts_with(&crlf[..crlf.find("Status: pending").unwrap()]));
    assert!(after.ends_with("Status: completed\r\nCompleted: 2026-10-12\r\nSummary: schedule in place\r\nOutputs: `webhookd/backoff.py`\r\nSkills disposition: none\r\nDocumentation decision: not applicable\r\nGate record: `python3 -m unittest tests.test_backoff` · exit 0 · ran=4/4\r\n"), "{after:?}");
    assert!(after.contains("## 3. Goal — délais exponentiels\r\n"));
}

#[test]
fn task_done_and_publish_check_json_documents_are_in_the_envelope() {
    let (dir, plan) = lite();
    let root = dir.path();
    let json = |out: &Run| crate::support::run::json(&stdout(out));
    let now = "2026-10-05T09:10:00+00:00";
    let dry = close(root, now, "1", GATE1, &["--dry-run", "--json"]);
    assert_eq!(json(&dry)["result"], "ok", "{}", stderr(&dry));
    let refused = close(root, now, "2", SUITE, &["--json"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(json(&refused)["kind"], "prior-task-incomplete");
    let applied = close(root, now, "1", GATE1, &["--json"]);
    assert_eq!(applied.status.code(), Some(0), "{}", stderr(&applied));
    assert_eq!(json(&applied)["result"], "applied");
    assert_eq!(state(&plan)["tasks"][0]["status"], "completed");
    let check = run(root, now, &["--json", "publish-check", PLAN]);
    assert_eq!(check.status.code(), Some(1), "{}", stderr(&check));
    assert_eq!(json(&check)["result"], "ok");
}
