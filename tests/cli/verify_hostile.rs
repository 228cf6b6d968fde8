//! Hostile and broken input: every case gets findings or an UNVERIFIED
//! verdict that names why — never a panic, a hang or a write. Each test asserts the exit code,
//! the finding id (or the unverified reason) and that the tree hash is unchanged.
//!
//! The tests run as root in CI, and root ignores permission bits, so "cannot be read" is caused
//! by things permissions cannot override: a directory where a file should be, and a FIFO (which
//! verify must never open, since reading it would block).

use crate::support::verify::*;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const PLAN: &str = "PLAN_csv_export";

/// A repository holding the in-progress Full fixture plan; returns (tempdir, plan dir).
fn repo() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join(".dwp/plans").join(PLAN);
    copy_dir(
        &repo_root().join("fixtures/dwp/good/.dwp/plans").join(PLAN),
        &dest,
    );
    (tmp, dest)
}

/// Runs `--json verify` with a time limit and checks that nothing under `root` changed.
fn verify_unchanged(root: &Path) -> Run {
    let before = tree_hash(root);
    let started = Instant::now();
    let run = planseal(root, &["--json", "verify"]);
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "verify took {:?}",
        started.elapsed()
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert_eq!(tree_hash(root), before, "verify changed the tree");
    run
}

fn edit_state(plan: &Path, f: impl FnOnce(&str) -> String) {
    let p = plan.join("state.json");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, f(&text)).unwrap();
}

fn assert_fails_with(run: &Run, ids: &[&str]) {
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.verdict(), "NOT CONFORMANT");
    let mut want: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(run.failing_ids(), want, "{}", run.stdout);
}

fn finding_message(run: &Run, id: &str) -> String {
    let v = run.json();
    for s in v["sections"].as_array().unwrap() {
        for f in s["findings"].as_array().unwrap() {
            if f["id"] == id {
                return f["message"].as_str().unwrap().to_string();
            }
        }
    }
    panic!("no finding {id}: {}", run.stdout)
}

#[test]
fn truncated_state_json() {
    let (tmp, plan) = repo();
    edit_state(&plan, |t| t[..t.len() / 2].to_string());
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["state-unparseable"]);
    assert!(finding_message(&run, "state-unparseable").contains("cut short"));
}

#[test]
fn invalid_json_and_empty_state() {
    for bytes in [&b"{not json at all"[..], b"", b"[1, 2"] {
        let (tmp, plan) = repo();
        std::fs::write(plan.join("state.json"), bytes).unwrap();
        let run = verify_unchanged(tmp.path());
        assert_fails_with(&run, &["state-unparseable"]);
    }
}

#[test]
fn invalid_utf8_in_state_and_in_readme() {
    let (tmp, plan) = repo();
    let mut bytes = std::fs::read(plan.join("state.json")).unwrap();
    let at = bytes.iter().position(|&b| b == b'C').unwrap();
    bytes[at] = 0xFF;
    std::fs::write(plan.join("state.json"), bytes).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["state-unparseable"]);
    assert!(finding_message(&run, "state-unparseable").contains("UTF-8"));

    let (tmp, plan) = repo();
    let mut readme = std::fs::read(plan.join("README.md")).unwrap();
    readme.extend_from_slice(b"\nbroken \xC3\x28 byte\n");
    std::fs::write(plan.join("README.md"), readme).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["file-not-utf8"]);
}

#[test]
fn nul_bytes_in_state_and_in_a_task_file() {
    let (tmp, plan) = repo();
    edit_state(&plan, |t| {
        t.replacen("\"title\": \"CSV", "\"title\": \"\u{0}CSV", 1)
    });
    let mut bytes = std::fs::read(plan.join("state.json")).unwrap();
    // a raw NUL inside a string literal (the line above wrote the escaped form's decoded byte)
    assert!(bytes.contains(&0));
    bytes.push(0);
    std::fs::write(plan.join("state.json"), bytes).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["state-unparseable"]);

    let (tmp, plan) = repo();
    let mut task = std::fs::read(plan.join("2.task_export_command.md")).unwrap();
    task.extend_from_slice(b"\n\0\0\0\n");
    std::fs::write(plan.join("2.task_export_command.md"), task).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["file-has-nul-byte"]);
}

#[test]
fn fifty_megabyte_readme_is_read_without_hanging() {
    let (tmp, plan) = repo();
    let mut readme = std::fs::read_to_string(plan.join("README.md")).unwrap();
    readme.push_str("\n## Notes\n\n");
    let line = "Padding line with ordinary words, a `code span`, **bold** and a [link](x.md).\n";
    while readme.len() < 50 * 1024 * 1024 {
        readme.push_str(line);
    }
    std::fs::write(plan.join("README.md"), &readme).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(run.verdict(), "CONFORMANT");
}

#[test]
fn task_file_symlinked_out_of_the_plan() {
    let (tmp, plan) = repo();
    let outside = tmp.path().join("outside.md");
    std::fs::copy(plan.join("2.task_export_command.md"), &outside).unwrap();
    std::fs::remove_file(plan.join("2.task_export_command.md")).unwrap();
    std::os::unix::fs::symlink(&outside, plan.join("2.task_export_command.md")).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["file-outside-plan"]);
    assert!(finding_message(&run, "file-outside-plan").contains("2.task_export_command.md"));
}

#[test]
fn state_json_symlinked_out_of_the_plan() {
    let (tmp, plan) = repo();
    let outside = tmp.path().join("state-elsewhere.json");
    std::fs::rename(plan.join("state.json"), &outside).unwrap();
    std::os::unix::fs::symlink(&outside, plan.join("state.json")).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["file-outside-plan"]);
}

#[test]
fn log_pointers_leaving_the_plan() {
    for pointer in ["../../x", "/etc/passwd", "analysis_results/../../../x"] {
        let (tmp, plan) = repo();
        edit_state(&plan, |t| {
            t.replacen(
                "log=analysis_results/gates/t1-csv.log",
                &format!("log={pointer}"),
                1,
            )
        });
        let run = verify_unchanged(tmp.path());
        assert_fails_with(&run, &["log-pointer-outside-plan"]);
        let f = &run.json()["sections"][0]["findings"];
        let task = f
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["id"] == "log-pointer-outside-plan")
            .unwrap()["task"]
            .clone();
        assert_eq!(task, 1, "{pointer}");
    }
}

#[test]
fn log_pointer_through_a_symlinked_folder() {
    let (tmp, plan) = repo();
    let outside = tmp.path().join("elsewhere");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("t1-csv.log"), b"copied\n").unwrap();
    std::fs::remove_dir_all(plan.join("analysis_results/gates")).unwrap();
    std::os::unix::fs::symlink(&outside, plan.join("analysis_results/gates")).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_eq!(run.code, 1);
    assert!(
        run.failing_ids()
            .contains(&"log-pointer-outside-plan".to_string()),
        "{}",
        run.stdout
    );
}

#[test]
fn directory_where_a_file_should_be_is_unverified() {
    for name in ["README.md", "state.json", "1.task_csv_writer.md"] {
        let (tmp, plan) = repo();
        std::fs::remove_file(plan.join(name)).unwrap();
        std::fs::create_dir(plan.join(name)).unwrap();
        let run = verify_unchanged(tmp.path());
        assert_eq!(run.code, 2, "{name}: {}", run.stdout);
        assert_eq!(run.verdict(), "UNVERIFIED");
        let why = run.json()["sections"][0]["unverified"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(why.contains(name) && why.contains("directory"), "{why}");
        let text = planseal(tmp.path(), &["verify"]);
        assert_eq!(text.code, 2);
        assert!(
            text.stdout
                .contains("Verdict: UNVERIFIED — 1 plan(s) could not be checked ("),
            "{}",
            text.stdout
        );
        assert!(text.stdout.contains(name), "{}", text.stdout);
    }
}

#[test]
fn fifo_instead_of_a_file_is_never_opened() {
    let (tmp, plan) = repo();
    std::fs::remove_file(plan.join("PROGRESS.md")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(plan.join("PROGRESS.md"))
        .status()
        .unwrap();
    assert!(made.success());
    let run = verify_unchanged(tmp.path());
    assert_eq!(run.code, 2, "{}", run.stdout);
    let why = run.json()["sections"][0]["unverified"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(why.contains("PROGRESS.md") && why.contains("FIFO"), "{why}");
}

/// Verdict precedence: a failure anywhere wins over an unreadable plan elsewhere.
#[test]
fn failure_wins_over_unverified() {
    let (tmp, plan) = repo();
    std::fs::remove_file(plan.join("README.md")).unwrap();
    std::fs::create_dir(plan.join("README.md")).unwrap();
    let other = tmp.path().join(".dwp/plans/PLAN_other");
    copy_dir(
        &repo_root().join("fixtures/dwp/good/.dwp/plans/PLAN_log_rotation"),
        &other,
    );
    // identity mismatch: the folder name differs from state.plan
    let run = verify_unchanged(tmp.path());
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(run.verdict(), "NOT CONFORMANT");
}

#[test]
fn duplicate_json_keys() {
    let (tmp, plan) = repo();
    edit_state(&plan, |t| {
        t.replacen(
            "\"status\": \"in_progress\",",
            "\"status\": \"in_progress\",\n  \"status\": \"completed\",",
            1,
        )
    });
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["state-unparseable"]);
    assert!(finding_message(&run, "state-unparseable").contains("duplicate key"));
}

#[test]
fn numbers_out_of_range() {
    let (tmp, plan) = repo();
    edit_state(&plan, |t| {
        t.replacen("\"task_count\": 3", "\"task_count\": 1e400", 1)
    });
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["state-unparseable"]);

    let (tmp, plan) = repo();
    edit_state(&plan, |t| {
        t.replacen(
            "\"task_count\": 3",
            "\"task_count\": 184467440737095516160000",
            1,
        )
    });
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["state-shape-error"]);
    assert!(finding_message(&run, "state-shape-error").contains("$.task_count"));

    let (tmp, plan) = repo();
    edit_state(&plan, |t| {
        t.replacen(
            "\"exit_code\": 0",
            "\"exit_code\": -99999999999999999999",
            1,
        )
    });
    let run = verify_unchanged(tmp.path());
    // A shape error inside a gate record lets checking go on past the shape checks, so the
    // completion rule also reports the unreadable exit code.
    assert_fails_with(
        &run,
        &["completion-gates-unsuccessful", "state-shape-error"],
    );
}

#[test]
fn deeply_nested_json() {
    let (tmp, plan) = repo();
    let deep = format!("{{\"a\": {}1{}}}", "[".repeat(200_000), "]".repeat(200_000));
    std::fs::write(plan.join("state.json"), deep).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["state-unparseable"]);

    let (tmp, plan) = repo();
    std::fs::write(plan.join("manifest.json"), "{".repeat(100_000)).unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["manifest-unparseable"]);
}

#[test]
fn unknown_or_newer_schema_is_a_failure_not_unverified() {
    let (tmp, plan) = repo();
    edit_state(&plan, |t| {
        t.replace("plan-state/v5.json", "plan-state/v9.json")
    });
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["unsupported-schema"]);
    assert!(finding_message(&run, "unsupported-schema").contains("plan-state/v5.json"));

    let (tmp, plan) = repo();
    let readme = std::fs::read_to_string(plan.join("README.md")).unwrap();
    std::fs::write(
        plan.join("README.md"),
        readme.replace("DWP spec 5.0.0", "DWP spec 6.1.0"),
    )
    .unwrap();
    let run = verify_unchanged(tmp.path());
    assert_fails_with(&run, &["standard-newer-than-supported"]);
}
