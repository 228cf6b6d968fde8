//! `planseal promote`: a Lite plan promoted to Full — each inline record moved whole into its
//! task file, the README index linking the files, state.json's locators and format switched,
//! the manifest kept — and the promoted plan verifies as Full. An interrupted promotion is named
//! by `verify` and resumed by running `promote` again.

use crate::support::reshape::{JOURNAL, Scratch, changed, text};
use crate::support::{stderr, stdout};
use serde_json::json;

const FILES: [&str; 3] = [
    "1.task_token_bucket_limiter.md",
    "2.task_throttle_client_requests.md",
    "3.task_final_review.md",
];

const TODO: &str = "TODO: not part of the Lite record; write it before the task starts";

/// Fixture A's record of task 1 as a Full task file: its text with the headings raised, and
/// the four sections a Full file has in their places.
fn task1_file() -> String {
    format!(
        "# Task 1: Token bucket limiter

## Goal

Add a `TokenBucket` class in `fetchkit/ratelimit.py` that grants request permits at a fixed rate
with a bounded burst.

## Context

There is no pacing code yet. The bucket must accept an injected clock so that tests never sleep.

## Read Before Starting

{TODO}

## Touched Surface

- Planned: new `fetchkit/ratelimit.py` and `tests/test_ratelimit.py`.
- Affected consumers: none until Task 2 imports the module.
- Risk class: isolated.
- Selected gate: `python3 -m unittest tests.test_ratelimit`, which covers the new module only.

## Instructions

{TODO}

## Acceptance Criteria

- A bucket with `rate=5, capacity=2` grants two permits at once and refuses a third.
- After 0.2 s of fake time exactly one more permit is available.
- `rate <= 0` or `capacity < 1` raises `ValueError`.

## Outputs

{TODO}

## Validation

`python3 -m unittest tests.test_ratelimit`

## Execution Checklist

{TODO}

## Completion & Log

Status: pending
"
    )
}

/// Fixture A's README as the promotion leaves it: the records gone, the index linked, `Plan
/// Format: Full`.
fn promoted_readme(old: &str) -> String {
    let start = old
        .find("## Task 1: Token bucket limiter {#task-1}")
        .unwrap();
    let end = old.find("## Task List").unwrap();
    format!("{}{}", &old[..start], &old[end..])
        .replace("Plan Format: Lite", "Plan Format: Full")
        .replace(
            "- [ ] Task 1: Token bucket limiter\n",
            "- [ ] Task 1: Token bucket limiter — [1.task_token_bucket_limiter.md](1.task_token_bucket_limiter.md)\n",
        )
        .replace(
            "- [ ] Task 2: Throttle client requests\n",
            "- [ ] Task 2: Throttle client requests — [2.task_throttle_client_requests.md](2.task_throttle_client_requests.md)\n",
        )
        .replace(
            "- [ ] Task 3: Final Review\n",
            "- [ ] Task 3: Final Review — [3.task_final_review.md](3.task_final_review.md)\n",
        )
}

#[test]
fn promote_moves_each_record_into_its_task_file_and_the_plan_verifies_as_full() {
    let s = Scratch::lite();
    let before = s.tree();
    let out = s.run(&["promote", s.rel]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "PLAN_http_rate_limit: promoted Lite → Full: 3 task file(s) (1.task_token_bucket_limiter.md, 2.task_throttle_client_requests.md, 3.task_final_review.md); state.json format full, materialization ready\n\
wrote state.json, 1.task_token_bucket_limiter.md, 2.task_throttle_client_requests.md, 3.task_final_review.md, README.md\n\
fill in before each task starts: Read Before Starting, Instructions, Outputs, Execution Checklist (written as `TODO:` in task 1, 2, 3)\n"
    );
    let after = s.tree();
    let mut expected_changes: Vec<String> = FILES.iter().map(|f| f.to_string()).collect();
    expected_changes.extend(["README.md".into(), JOURNAL.into(), "state.json".into()]);
    assert_eq!(changed(&before, &after), expected_changes);
    assert_eq!(text(&after, FILES[0]), task1_file());
    let final_review = text(&after, FILES[2]);
    assert!(
        final_review.starts_with(
            "# Task 3: Final Review\n\n## Goal\n\nClose the plan with a security pass"
        ),
        "{final_review}"
    );
    assert!(
        final_review.ends_with("## Completion & Log\n\nStatus: pending\n"),
        "{final_review}"
    );
    assert_eq!(
        text(&after, "README.md"),
        promoted_readme(&text(&before, "README.md"))
    );
    // state.json: locators and format switched, nothing else but updated_at, key order kept.
    let mut expected: serde_json::Value =
        serde_json::from_str(&text(&before, "state.json")).unwrap();
    expected["format"] = json!("full");
    for (i, file) in FILES.iter().enumerate() {
        expected["tasks"][i]["locator"] = json!({"kind": "file", "value": file});
    }
    expected["updated_at"] = json!("2026-10-05T09:00:00+00:00");
    assert_eq!(
        text(&after, "state.json"),
        format!("{}\n", serde_json::to_string_pretty(&expected).unwrap())
    );
    // The manifest keeps the format the plan was created with.
    assert_eq!(after.get("manifest.json"), before.get("manifest.json"));
    assert!(text(&after, "manifest.json").contains("\"plan_format\": \"lite\""));
    let line = s.journal().pop().unwrap();
    assert_eq!(line["operation"], "promote");
    assert_eq!(
        (line["from"].as_str(), line["to"].as_str()),
        (Some("lite"), Some("full"))
    );
    assert_eq!(line["tasks"], json!(FILES));
    assert_eq!(line["applied"]["replaced"], s.state());

    let verify = s.run(&["verify", s.rel]);
    assert_eq!(verify.code, 0, "{}", stdout(&verify));
    assert!(
        stdout(&verify).contains("3 task file(s) present, complete and linked; Final Review last")
    );
    // Work goes on in the Full plan.
    let state = format!("{}/state.json", s.rel);
    let started = s.run(&["update", &state, "--task", "1", "--status", "in_progress"]);
    assert_eq!(started.code, 0, "{}", stderr(&started));
    let settled = s.tree();
    let again = s.run(&["promote", s.rel]);
    assert_eq!(again.code, 0, "{}", stderr(&again));
    assert_eq!(
        stdout(&again),
        "PLAN_http_rate_limit: already a Full plan; nothing written\n"
    );
    assert_eq!(s.tree(), settled);
}

#[test]
fn promote_keeps_closed_tasks_logs_and_a_hand_edited_crlf_readme() {
    let s = Scratch::lite_at("after-task1");
    let readme = s
        .read("README.md")
        .replace(
            "## Task 2: Throttle client requests {#task-2}\n",
            "## Task 2: Throttle client requests {#task-2}\n\nObservação à mão: não mexer no `send()` sem teste ✅\n",
        )
        .replace("## Format Decision", "## Decisão de formato (editada à mão)")
        .replace('\n', "\r\n");
    s.write("README.md", &readme);
    let log_lines: Vec<String> = readme
        .lines()
        .filter(|l| l.starts_with("Gate record:") || l.starts_with("Summary:"))
        .map(str::to_string)
        .collect();
    assert!(
        !log_lines.is_empty(),
        "task 1's log is closed in this snapshot"
    );
    let out = s.run(&["promote", s.rel]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    // Only the open tasks get `TODO:`s; the closed one gets a note.
    assert!(
        stdout(&out).contains("(written as `TODO:` in task 2, 3)"),
        "{}",
        stdout(&out)
    );
    let task1 = s.read(FILES[0]);
    assert!(
        task1.starts_with("# Task 1: Token bucket limiter\r\n\r\n## Goal\r\n"),
        "{task1}"
    );
    assert!(
        task1.contains(
            "## Outputs\r\n\r\nNot recorded: the task was closed while the plan was Lite.\r\n"
        ),
        "{task1}"
    );
    for line in &log_lines {
        assert!(
            task1.contains(&format!("{line}\r\n")),
            "{line} kept in the task file"
        );
    }
    assert!(
        s.read(FILES[1])
            .contains("\r\nObservação à mão: não mexer no `send()` sem teste ✅\r\n")
    );
    let readme_after = s.read("README.md");
    assert!(readme_after.contains("## Decisão de formato (editada à mão)\r\n"));
    assert!(!readme_after.contains("{#task-"));
    assert!(readme_after.contains("- [x] Task 1: Token bucket limiter — [1.task_token_bucket_limiter.md](1.task_token_bucket_limiter.md)\r\n"));
    assert_eq!(
        readme_after.matches('\n').count(),
        readme_after.matches("\r\n").count(),
        "CRLF kept"
    );
    let verify = s.run(&["verify", s.rel]);
    assert_eq!(verify.code, 0, "{}", stdout(&verify));
}

#[test]
fn promote_refusals_leave_every_file_byte_identical() {
    let completed = Scratch::lite_at("final");
    let stray = Scratch::lite();
    stray.write("2.task_old_notes.md", "# notes\n");
    let missing_record = Scratch::lite();
    let readme = missing_record.read("README.md");
    missing_record.write("README.md", &readme.replace("{#task-2}", ""));
    let stale = Scratch::lite();
    let latin1 = Scratch::lite();
    let mut bytes = latin1.read("README.md").into_bytes();
    bytes.extend_from_slice(b"\nRevis\xe3o\n");
    std::fs::write(latin1.plan.join("README.md"), bytes).unwrap();
    let cases: Vec<(&Scratch, Vec<&str>, &str)> = vec![
        (&latin1, vec![], "not-utf8"),
        (&completed, vec![], "plan-completed"),
        (&stray, vec![], "lite-plan-has-task-files"),
        (&missing_record, vec![], "lite-records-inventory-mismatch"),
        (&stale, vec!["--expected-sha256", "abc"], "stale-snapshot"),
    ];
    for (s, extra, kind) in cases {
        let before = s.tree();
        let mut args = vec!["promote", s.rel];
        args.extend(extra);
        let out = s.run(&args);
        assert_eq!(out.code, 1, "{kind}: {}", stdout(&out));
        assert!(stderr(&out).starts_with(kind), "{kind}: {}", stderr(&out));
        assert!(stderr(&out).contains("hint:"), "{kind}: {}", stderr(&out));
        assert_eq!(s.tree(), before, "{kind}: a file changed");
    }
    // A Full plan is already what promote makes.
    let full = Scratch::full();
    let before = full.tree();
    let out = full.run(&["promote", full.rel, "--json"]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["result"], "unchanged");
    assert_eq!(full.tree(), before);
}

#[test]
fn promote_dry_run_shows_every_file_and_writes_nothing() {
    let s = Scratch::lite();
    let before = s.tree();
    let out = s.run(&["promote", s.rel, "--dry-run"]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert_eq!(s.tree(), before);
    let shown = stdout(&out);
    assert!(
        shown.starts_with("PLAN_http_rate_limit: would promote Lite → Full"),
        "{shown}"
    );
    for header in FILES.iter().chain(&["README.md", "state.json"]) {
        assert!(
            shown.contains(&format!("+++ b/{header}\n")),
            "{header}: {shown}"
        );
    }
    assert!(
        shown.contains("-Plan Format: Lite\n+Plan Format: Full\n"),
        "{shown}"
    );
    assert!(shown.ends_with("nothing written (--dry-run)\n"), "{shown}");
}

#[test]
fn an_interrupted_promotion_is_named_by_verify_and_finished_by_promote() {
    let clean = Scratch::lite();
    assert_eq!(clean.run(&["promote", clean.rel]).code, 0);
    // The same plan as a promotion stopped right after its intent was recorded.
    let s = Scratch::lite();
    let state = s.read("state.json");
    s.write(
        "state.json",
        &state
            .replace("\"materialization\": \"ready\"", "\"materialization\": \"promoting\"")
            .replace(
                "\"promotion\": null",
                &format!("\"promotion\": {{\"from\": \"lite\", \"to\": \"full\", \"phase\": \"intent\", \"tasks\": {}}}", json!(FILES)),
            ),
    );
    let verify = s.run(&["verify", s.rel]);
    assert_eq!(verify.code, 1);
    assert!(
        stdout(&verify).contains(
            "plan is not ready (materialization: promoting, promotion in flight at phase intent)"
        ),
        "{}",
        stdout(&verify)
    );
    assert!(
        stdout(&verify).contains("`planseal promote PLAN_DIR` resumes it"),
        "{}",
        stdout(&verify)
    );
    let update = s.run(&[
        "update",
        &format!("{}/state.json", s.rel),
        "--task",
        "1",
        "--status",
        "in_progress",
    ]);
    assert!(
        stderr(&update).starts_with("not-ready"),
        "{}",
        stderr(&update)
    );
    // The resume view says what to run.
    let status = s.run(&["status", s.rel]);
    assert!(
        stdout(&status)
            .contains("needs action: a Lite → Full promotion was interrupted (phase intent)\n")
            && stdout(&status).contains(&format!("next: planseal promote {}\n", s.rel)),
        "{}",
        stdout(&status)
    );
    let out = s.run(&["promote", s.rel]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("resumed an interrupted promotion at phase intent\n"),
        "{}",
        stdout(&out)
    );
    let mut resumed = s.tree();
    let mut reference = clean.tree();
    resumed.remove(JOURNAL);
    reference.remove(JOURNAL);
    assert_eq!(changed(&reference, &resumed), Vec::<String>::new());
}

/// `task done` on a promoted plan: each close-out to the receipt.
fn close_out(s: &Scratch, now: &str, task: &str, gate: &str) -> crate::support::run::Run {
    crate::support::run::Planseal::new()
        .cwd(s.root())
        .clock(now)
        .args([
            "task",
            "done",
            s.rel,
            "--task",
            task,
            "--gate",
            gate,
            "--summary",
            "done as planned",
            "--outputs",
            "the task's files",
            "--skills-disposition",
            "none — nothing reusable",
            "--documentation-decision",
            "not applicable — internal change",
        ])
        .output()
}

#[test]
fn a_plan_reshaped_by_refine_and_promote_is_published_with_planseal_writers_only() {
    let s = Scratch::lite();
    let added = s.add_docs_task();
    assert_eq!(added.code, 0, "{}", stderr(&added));
    let promoted = s.run(&["promote", s.rel]);
    assert_eq!(promoted.code, 0, "{}", stderr(&promoted));
    let suite = "python3 -m unittest discover -s tests -t .|0|scope=whole suite; ran=9/9";
    for (task, now) in [
        ("1", "2026-10-05T09:10:00+00:00"),
        ("2", "2026-10-05T09:20:00+00:00"),
        ("3", "2026-10-05T09:30:00+00:00"),
    ] {
        let out = close_out(&s, now, task, suite);
        assert_eq!(out.code, 0, "task {task}: {}", stderr(&out));
    }
    std::fs::write(
        s.plan.join("analysis_results/SECURITY_REVIEW.md"),
        "# Security review\n\nNo findings: the limiter logs nothing and reads no secrets.\n",
    )
    .unwrap();
    let last = close_out(&s, "2026-10-05T09:40:00+00:00", "4", suite);
    assert_eq!(last.code, 0, "{}", stderr(&last));
    assert!(
        stdout(&last).ends_with("task 4 → completed · plan completed and verified\n"),
        "{}",
        stdout(&last)
    );
    assert!(s.plan.join("analysis_results/FINALIZATION.json").is_file());
    // The close-outs wrote into the task files the promotion made.
    assert!(
        s.read("3.task_document_the_limiter.md")
            .contains("## Completion & Log\n\nStatus: completed\n")
    );
    let verify = s.run(&["verify", s.rel]);
    assert_eq!(verify.code, 0, "{}", stdout(&verify));
    // The manifest still says how the plan was created; the published plan is Full already.
    assert!(
        s.read("manifest.json")
            .contains("\"plan_format\": \"lite\"")
    );
    let before = s.tree();
    let again = s.run(&["promote", s.rel]);
    assert_eq!(
        stdout(&again),
        "PLAN_http_rate_limit: already a Full plan; nothing written\n"
    );
    assert_eq!(s.tree(), before);
}

/// A live writer holds state.json's lock: `promote` and `refine` refuse at once without
/// `--wait` (nothing written) and, with it, wait for the lock and then write.
#[test]
fn promote_and_refine_wait_for_a_live_writers_lock() {
    use planseal::recovery::store::{LockStyle, acquire};
    let s = Scratch::lite();
    let guard = acquire(
        &s.plan.join("state.json"),
        &LockStyle::Directory,
        "test holds the lock",
        "test",
    )
    .unwrap();
    let mut before = s.tree();
    before.retain(|k, _| !k.starts_with("state.json.lock"));
    for args in [
        vec!["promote", s.rel],
        vec!["refine", s.rel, "--add-task", "--title", "Docs"],
    ] {
        let out = s.run(&args);
        assert_eq!(out.code, 1, "{args:?}");
        assert!(stderr(&out).starts_with("lock-present"), "{}", stderr(&out));
        let mut now = s.tree();
        now.retain(|k, _| !k.starts_with("state.json.lock"));
        assert_eq!(now, before, "{args:?}");
    }
    let (root, rel) = (s.root().to_path_buf(), s.rel);
    let writer = std::thread::spawn(move || {
        crate::support::run::Planseal::new()
            .cwd(&root)
            .clock(crate::support::reshape::NOW)
            .args(["promote", rel, "--wait=20s"])
            .output()
    });
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert!(
        !writer.is_finished(),
        "promote did not wait for the live lock"
    );
    guard.release().unwrap();
    let out = writer.join().unwrap();
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("waiting up to 20s: lock-present"),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.state()["format"], "full");
}
