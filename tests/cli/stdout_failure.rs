//! Issue 13 item 6: a report that cannot be written to stdout (`> /dev/full`: every write fails
//! with ENOSPC) is never a silent success. stderr says so; a read-only command ends with 3
//! (nothing was changed), a writer whose change is in place with 4 (applied; only the report
//! was not delivered) — never 3, which would tell a script to retry a change already made.

use crate::support::run::Planseal;
use crate::support::update::{Scratch, sha256};

fn dev_full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full exists on Linux")
}

#[test]
fn verify_to_dev_full_exits_3() {
    let s = Scratch::a_task1_in_progress();
    // The same run with a working stdout prints a report and exits 0: the failure is the pipe's.
    let fine = Planseal::new().cwd(s.root()).arg("verify").output();
    assert!(!fine.stdout.is_empty(), "{}", fine.stderr);
    for json in [false, true] {
        let mut cmd = Planseal::new().cwd(s.root()).arg("verify");
        if json {
            cmd = cmd.arg("--json");
        }
        let out = cmd.output_with_stdout(dev_full());
        assert_eq!(out.code, 3, "json={json}: {}", out.stderr);
        assert!(
            out.stderr.contains(
                "planseal: error: writing the report to stdout failed: No space left on device"
            ),
            "{}",
            out.stderr
        );
        assert!(out.stderr.contains("nothing was changed"), "{}", out.stderr);
    }
}

#[test]
fn update_to_dev_full_exits_4_and_applies() {
    // The reference: the same update (same clock) with a working stdout.
    let reference = Scratch::a_task1_in_progress();
    // An ordinary transition (one file, one journal line).
    let args = [
        "--task",
        "1",
        "--status",
        "blocked",
        "--block-reason",
        "needs an API key",
    ];
    let ok = reference.update(&args);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let new_state = reference.state();
    let new_journal = std::fs::read(reference.journal()).unwrap();

    for json in [false, true] {
        let s = Scratch::a_task1_in_progress();
        let old_state = s.state();
        let old_journal = std::fs::read(s.journal()).unwrap_or_default();
        let mut cmd = Planseal::new()
            .cwd(s.root())
            .arg("update")
            .arg(format!(".dwp/plans/{}/state.json", s.plan))
            .args(args);
        if json {
            cmd = cmd.arg("--json");
        }
        let out = cmd.output_with_stdout(dev_full());
        assert_eq!(out.code, 4, "json={json}: {}", out.stderr);
        assert!(
            out.stderr.contains(
                "planseal: error: writing the report to stdout failed: No space left on device"
            ),
            "{}",
            out.stderr
        );
        assert!(
            out.stderr
                .contains("the change was applied; only its report was not delivered"),
            "{}",
            out.stderr
        );
        // Applied exactly as with a working stdout: the new bytes and one more journal line.
        assert_ne!(sha256(&old_state), sha256(&new_state));
        assert_eq!(s.state(), new_state, "json={json}");
        assert_eq!(std::fs::read(s.journal()).unwrap(), new_journal);
        let added = &new_journal[old_journal.len()..];
        assert_eq!(added.iter().filter(|&&b| b == b'\n').count(), 1);
        assert!(!s.plan_dir().join("state.json.lock").exists());
    }
}

/// A refusal is not a change: with stdout gone it still ends with 3, nothing applied.
#[test]
fn refused_update_to_dev_full_exits_3_and_writes_nothing() {
    let s = Scratch::a_task1_in_progress();
    let old = s.state();
    let out = Planseal::new()
        .cwd(s.root())
        .arg("update")
        .arg(format!(".dwp/plans/{}/state.json", s.plan))
        .args(["--task", "9", "--status", "in_progress", "--json"])
        .output_with_stdout(dev_full());
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert!(out.stderr.contains("nothing was changed"), "{}", out.stderr);
    assert_eq!(s.state(), old);
}
