//! `planseal refine --skip`: the user removes a task from scope — the dated refinement record in
//! PROGRESS.md, then `update`'s own transition to `skipped`. Refusals, dry runs and a hand-edited
//! CRLF file keep every byte they do not own.

use crate::support::reshape::{JOURNAL, Scratch, changed, text};
use crate::support::run::Planseal;
use crate::support::{stderr, stdout};
use serde_json::json;

const RECORD: &str = "\n## Refinement — 2026-10-05\n\n- Task 3 (Operator documentation) removed from scope: skipped by refine\n- Authority: user\n- Reason: the docs move to the wiki\n";

fn skip(s: &Scratch, task: &str, extra: &[&str]) -> crate::support::run::Run {
    let mut args = vec![
        "refine",
        s.rel,
        "--skip",
        task,
        "--reason",
        "the docs move to the wiki",
        "--authority",
        "user",
    ];
    args.extend_from_slice(extra);
    s.run(&args)
}

#[test]
fn skip_records_the_users_refinement_then_applies_updates_own_transition() {
    let s = Scratch::full();
    let before = s.tree();
    let out = skip(&s, "3", &[]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "PLAN_webhook_retry_backoff: task 3 (Operator documentation) removed from scope by the user (PROGRESS.md refinement of 2026-10-05)\n\
wrote PROGRESS.md, state.json\n\
task 3 → skipped · 0/4 completed · plan in_progress\n"
    );
    let after = s.tree();
    assert_eq!(
        changed(&before, &after),
        ["PROGRESS.md", JOURNAL, "state.json"]
    );
    assert_eq!(
        text(&after, "PROGRESS.md"),
        format!("{}{RECORD}", text(&before, "PROGRESS.md"))
    );

    // The transition is `update`'s own: the same record written by hand, then `update`, gives
    // the same state.json byte for byte (its clock starts where refine's hands it over).
    let control = Scratch::full();
    control.write("PROGRESS.md", &text(&after, "PROGRESS.md"));
    let updated = Planseal::new()
        .cwd(control.root())
        .clock("2026-10-05T09:00:01.250000+00:00")
        .args([
            "update",
            &format!("{}/state.json", control.rel),
            "--task",
            "3",
            "--status",
            "skipped",
        ])
        .output();
    assert_eq!(updated.code, 0, "{}", stderr(&updated));
    assert_eq!(text(&after, "state.json"), control.read("state.json"));

    // One journal line for the record, then update's line for the transition.
    let journal = s.journal();
    let ops: Vec<&str> = journal
        .iter()
        .map(|l| l["operation"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["refine", "update"]);
    assert_eq!(journal[0]["action"], "skip");
    assert_eq!(journal[0]["authority"], "user");
    assert_eq!(journal[0]["reason"], "the docs move to the wiki");
    assert_eq!(journal[0]["task"], 3);
    // The record's line moves no status: update's line does.
    assert_eq!(
        (&journal[0]["from"], &journal[0]["to"]),
        (&json!("pending"), &json!("pending"))
    );
    assert_eq!(journal[1]["to"], "skipped");

    // The plan still verifies, and the same command again changes nothing.
    let verify = s.run(&["verify", s.rel]);
    assert_eq!(verify.code, 0, "{}", stdout(&verify));
    let settled = s.tree();
    let again = skip(&s, "3", &[]);
    assert_eq!(again.code, 0, "{}", stderr(&again));
    assert_eq!(
        stdout(&again),
        "PLAN_webhook_retry_backoff: task 3 (Operator documentation) is already skipped and its refinement recorded; nothing written\n"
    );
    assert_eq!(s.tree(), settled);
}

#[test]
fn a_skipped_task_still_blocks_the_tasks_after_it() {
    let s = Scratch::full();
    for task in ["1", "2"] {
        for status in ["in_progress", "completed"] {
            let mut args = vec!["update", "", "--task", task, "--status", status];
            let state = format!("{}/state.json", s.rel);
            args[1] = &state;
            if status == "completed" {
                args.extend(["--gate", "python3 -m unittest|0|ran=4/4"]);
            }
            let out = s.run(&args);
            assert_eq!(out.code, 0, "{task} {status}: {}", stderr(&out));
        }
    }
    assert_eq!(skip(&s, "3", &[]).code, 0);
    let state = format!("{}/state.json", s.rel);
    let out = s.run(&["update", &state, "--task", "4", "--status", "in_progress"]);
    assert_eq!(out.code, 1);
    assert!(
        stderr(&out).starts_with("prior-task-incomplete") && stderr(&out).contains("3 (skipped)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(s.state()["status"], "in_progress");
}

#[test]
fn skip_refusals_leave_every_file_byte_identical() {
    let completed = Scratch::lite_at("after-task1");
    let pending_approval = Scratch::full();
    let state = pending_approval.read("state.json");
    pending_approval.write(
        "state.json",
        &state.replace("\"approval\": \"approved\"", "\"approval\": \"pending\""),
    );
    let plain = Scratch::full();
    let cases: Vec<(&Scratch, Vec<&str>, &str, &str)> = vec![
        (
            &plain,
            vec!["--skip", "3", "--reason", "r", "--authority", "developer"],
            "authority-not-user",
            "only the user removes a task from scope",
        ),
        (
            &plain,
            vec!["--skip", "9", "--reason", "r", "--authority", "user"],
            "unknown-task",
            "its tasks are 1, 2, 3, 4",
        ),
        (
            &plain,
            vec!["--skip", "4", "--reason", "r", "--authority", "user"],
            "skip-final-review",
            "is the Final Review",
        ),
        (
            &completed,
            vec!["--skip", "1", "--reason", "r", "--authority", "user"],
            "skip-completed-task",
            "a completed task is reopened, never skipped",
        ),
        (
            &pending_approval,
            vec!["--skip", "3", "--reason", "r", "--authority", "user"],
            "not-approved",
            "",
        ),
        (
            &plain,
            vec![
                "--skip",
                "3",
                "--reason",
                "r",
                "--authority",
                "user",
                "--expected-sha256",
                "00",
            ],
            "stale-snapshot",
            "",
        ),
        (
            &plain,
            vec![
                "--skip",
                "3",
                "--reason",
                "two\nlines",
                "--authority",
                "user",
            ],
            "usage-error",
            "--reason must be one line",
        ),
    ];
    for (s, flags, kind, words) in cases {
        let before = s.tree();
        let mut args = vec!["refine", s.rel];
        args.extend(flags.iter().copied());
        let out = s.run(&args);
        assert_eq!(out.code, 1, "{kind}: {}", stdout(&out));
        assert!(stderr(&out).starts_with(kind), "{kind}: {}", stderr(&out));
        assert!(stderr(&out).contains(words), "{kind}: {}", stderr(&out));
        assert_eq!(s.tree(), before, "{kind}: a file changed");
    }
    // Removing work so that the plan can finish is a re-scope, and the refusal says so.
    let out = plain.run(&[
        "refine",
        plain.rel,
        "--skip",
        "4",
        "--reason",
        "r",
        "--authority",
        "user",
    ]);
    assert!(
        stderr(&out).contains("`deferred requirement` amendment"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn skip_dry_run_prints_both_diffs_and_writes_nothing() {
    let s = Scratch::full();
    let before = s.tree();
    let out = skip(&s, "3", &["--dry-run"]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("PLAN_webhook_retry_backoff: task 3 (Operator documentation) would be removed from scope by the user (PROGRESS.md refinement of 2026-10-05)\nwould write PROGRESS.md, state.json\n--- a/PROGRESS.md\n+++ b/PROGRESS.md\n"), "{text}");
    assert!(text.contains("+- Authority: user\n"), "{text}");
    assert!(
        text.contains("-      \"status\": \"pending\",\n+      \"status\": \"skipped\",\n"),
        "{text}"
    );
    assert!(text.ends_with("nothing written (--dry-run)\n"), "{text}");
    assert_eq!(s.tree(), before);
}

#[test]
fn skip_appends_to_a_hand_edited_crlf_progress_and_keeps_its_bytes() {
    let s = Scratch::full();
    let hand = "# Progresso — PLAN_webhook_retry_backoff\r\n\r\n## Decisões\r\n\r\n- Ninguém mexe no `deliver()` sem teste. ✅\r\n- (editado à mão)";
    s.write("PROGRESS.md", hand);
    let out = s.run(&[
        "refine",
        s.rel,
        "--skip",
        "3",
        "--reason",
        "a documentação vai para a wiki",
        "--authority",
        "user",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", stderr(&out));
    assert_eq!(
        s.read("PROGRESS.md"),
        format!(
            "{hand}\n\n## Refinement — 2026-10-05\n\n- Task 3 (Operator documentation) removed from scope: skipped by refine\n- Authority: user\n- Reason: a documentação vai para a wiki\n"
        )
    );
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["result"], "applied");
    assert_eq!(doc["action"], "skip");
    assert_eq!(doc["task"], 3);
    assert_eq!(doc["record"], "PROGRESS.md refinement of 2026-10-05");
    assert_eq!(doc["transition"]["to"], "skipped");
    assert_eq!(
        doc["written"],
        serde_json::json!(["PROGRESS.md", "state.json"])
    );
}
