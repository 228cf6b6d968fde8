//! What the writers read, counted on the system calls (`strace`, which the README's test
//! command installs): a publication reads each plan file once for its checks and re-hashes the
//! fingerprinted ones at its two re-checks, nothing more; an update reads state.json, the task's
//! own file and the README only when state.json has no approval to take — and still refuses on
//! a gate log that is gone, whatever task it moves.

use crate::support::finalize::*;
use crate::support::run::{BIN, FIXED_NOW, hermetic};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Output, Stdio};

const PLAN: &str = "PLAN_webhook_retry_backoff";

/// `planseal ARGS` in `root` under `strace`, every `openat` written to `trace`, with the path
/// of each descriptor it returns (`-y`): a file opened relative to its open folder is named as
/// fully as one opened by its whole path.
fn traced(root: &Path, trace: &Path, args: &[&str]) -> Output {
    hermetic("strace")
        .args(["-f", "-qq", "-y", "-e", "trace=openat", "-o"])
        .arg(trace)
        .arg("--")
        .arg(BIN)
        .args(args)
        .env("PLANSEAL_FAKE_NOW", FIXED_NOW)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .expect("strace (apt-get install strace) and planseal start")
}

/// `planseal ARGS` in `root`, every `openat` of `rel` failing with EIO.
fn unreadable(root: &Path, rel: &str, args: &[&str]) -> Output {
    hermetic("strace")
        .args(["-f", "-qq", "-o", "/dev/null", "-P"])
        .arg(root.join(rel))
        .args(["-e", "trace=openat", "-e", "inject=openat:error=EIO", "--"])
        .arg(BIN)
        .args(args)
        .env("PLANSEAL_FAKE_NOW", FIXED_NOW)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .expect("strace (apt-get install strace) and planseal start")
}

/// How many times each file under `plan_dir` was opened for reading (and the open succeeded),
/// by plan-relative name; folders left out.
fn reads(trace: &Path, plan_dir: &Path) -> BTreeMap<String, usize> {
    // The returned descriptor's path: `) = 3</…/PLAN_x/README.md>`.
    let canonical = plan_dir.canonicalize().expect("the plan folder exists");
    let prefix = format!("<{}/", canonical.display());
    let mut out = BTreeMap::new();
    for line in std::fs::read_to_string(trace).expect("trace").lines() {
        let Some(result) = line.rfind(") = ").map(|at| &line[at..]) else {
            continue;
        };
        let Some(at) = result.find(&prefix) else {
            continue;
        };
        if !line.contains("O_RDONLY") || line.contains("O_DIRECTORY") || line.contains("O_PATH") {
            continue;
        }
        let rest = &result[at + prefix.len()..];
        let name = &rest[..rest.rfind('>').expect("a descriptor's path in <>")];
        // A folder opened to be synced is not a read.
        if plan_dir.join(name).is_dir() {
            continue;
        }
        *out.entry(name.to_string()).or_insert(0) += 1;
    }
    out
}

fn code_and_stderr(out: &Output) -> (Option<i32>, String) {
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Finalize reads each plan file once for every check it makes (candidate validation, the
/// conformance check with the candidate in place, the receipt's hashes); the fingerprinted files
/// are opened again exactly twice, by the re-hash before the marker and the one after the
/// rename — that guard stays — and nothing else is read a second time: no gate log, no
/// `PLAN_ANALYSIS.md`, no markdown re-checked after the rename.
#[test]
fn finalize_reads_each_plan_file_once_besides_the_two_fingerprint_rechecks() {
    let ws = Workspace::ready_to_publish("B_full_v5", PLAN);
    ws.place("lifecycle/publication/02-state.json", "candidate.json");
    let trace = ws.root().join("openat.trace");
    let out = traced(
        ws.root(),
        &trace,
        &["finalize", &ws.plan_rel(), "--candidate", "candidate.json"],
    );
    let (code, stderr) = code_and_stderr(&out);
    assert_eq!(code, Some(0), "{stderr}");
    let plan_dir = ws.root().join(ws.plan_rel());
    let reads = reads(&trace, &plan_dir);
    let fingerprinted = [
        "README.md",
        "PROGRESS.md",
        "PROMPTS.md",
        "manifest.json",
        "analysis_results/SECURITY_REVIEW.md",
        "analysis_results/SKILLS_CANDIDATES.md",
        "1.task_backoff_schedule.md",
        "2.task_retry_loop.md",
        "3.task_operator_docs.md",
        "4.task_final_review.md",
    ];
    for name in fingerprinted {
        assert_eq!(reads.get(name), Some(&3), "{name}: {reads:?}");
    }
    let logs: Vec<_> = reads
        .keys()
        .filter(|k| k.starts_with("analysis_results/gates/"))
        .collect();
    // Nine logs are cited (`t0-baseline.log` is not).
    assert_eq!(logs.len(), 9, "every cited gate log is read: {reads:?}");
    for (name, count) in &reads {
        if name.starts_with("analysis_results/gates/")
            || name == "analysis_results/PLAN_ANALYSIS.md"
        {
            assert_eq!(*count, 1, "{name} read once: {reads:?}");
        }
    }
}

/// With `approval` in state.json the README is not needed: an update succeeds although every
/// open of README.md fails (it is never opened). Without `approval` the README's `Approval:`
/// line is what the transition runs under, so the same fault stops it (exit 3, nothing applied).
#[test]
fn update_with_approval_in_state_never_reads_the_readme() {
    let args = [
        "update",
        ".dwp/plans/PLAN_webhook_retry_backoff/state.json",
        "--task",
        "4",
        "--status",
        "blocked",
        "--block-reason",
        "waiting for review",
    ];
    let ws = Workspace::ready_to_publish("B_full_v5", PLAN);
    let readme_rel = format!("{}/README.md", ws.plan_rel());
    let out = unreadable(ws.root(), &readme_rel, &args);
    let (code, stderr) = code_and_stderr(&out);
    assert_eq!(code, Some(0), "{stderr}");
    let state = json(ws.plan_dir().join("state.json"));
    assert_eq!(state["tasks"][3]["status"], "blocked");

    let ws = Workspace::ready_to_publish("B_full_v5", PLAN);
    let mut state = json(ws.plan_dir().join("state.json"));
    state.as_object_mut().unwrap().remove("approval");
    let bytes = format!("{}\n", serde_json::to_string_pretty(&state).unwrap());
    std::fs::write(ws.plan_dir().join("state.json"), &bytes).unwrap();
    let out = unreadable(ws.root(), &readme_rel, &args);
    let (code, stderr) = code_and_stderr(&out);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(stderr.contains("README.md"), "{stderr}");
    assert!(stderr.contains("nothing was applied"), "{stderr}");
    assert_eq!(ws.state(), bytes.as_bytes(), "state.json unchanged");
}

/// An update reads state.json and the moved task's own file, not the other task files nor the
/// gate logs (those are looked at, not read).
#[test]
fn update_reads_only_the_state_and_the_tasks_own_file() {
    let ws = Workspace::ready_to_publish("B_full_v5", PLAN);
    let trace = ws.root().join("openat.trace");
    let out = traced(
        ws.root(),
        &trace,
        &[
            "update",
            ".dwp/plans/PLAN_webhook_retry_backoff/state.json",
            "--task",
            "4",
            "--status",
            "blocked",
            "--block-reason",
            "waiting for review",
        ],
    );
    let (code, stderr) = code_and_stderr(&out);
    assert_eq!(code, Some(0), "{stderr}");
    let reads = reads(&trace, &ws.plan_dir());
    // Besides those two, only the lock's own owner record is read back (when it is released).
    for name in reads.keys() {
        assert!(
            name == "state.json" || name == "4.task_final_review.md" || name.contains(".lock"),
            "{name} read: {reads:?}"
        );
    }
    assert_eq!(reads.get("4.task_final_review.md"), Some(&1), "{reads:?}");
    assert!(reads.contains_key("state.json"), "{reads:?}");
}

/// A gate log cited by a completed task that is gone refuses every transition, also one of
/// another task: the logs are still looked at, only no longer read.
#[test]
fn deleted_gate_log_of_a_completed_task_still_refuses_an_update() {
    let ws = Workspace::ready_to_publish("B_full_v5", PLAN);
    std::fs::remove_file(ws.plan_dir().join("analysis_results/gates/t1-unittest.log")).unwrap();
    let before = ws.state();
    let out = ws.run(&[
        "update",
        ".dwp/plans/PLAN_webhook_retry_backoff/state.json",
        "--task",
        "4",
        "--status",
        "blocked",
        "--block-reason",
        "waiting for review",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("t1-unittest.log"), "{}", out.stderr);
    assert!(out.stderr.contains("log-pointer-missing"), "{}", out.stderr);
    assert_eq!(ws.state(), before, "state.json unchanged");
}
