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

/// The write end of a pipe whose read end is already closed: every write to it fails with EPIPE,
/// or kills the writer with SIGPIPE unless that signal is ignored.
fn pipe_without_reader() -> std::fs::File {
    use std::os::fd::FromRawFd;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe(2) fills the two descriptors it is given; both are owned here.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe(2)");
    // SAFETY: fds[0] is the read end just created and used nowhere else.
    unsafe { libc::close(fds[0]) };
    // SAFETY: fds[1] is the write end just created; the File owns it from here.
    unsafe { std::fs::File::from_raw_fd(fds[1]) }
}

/// planseal enters through the C runtime's `main` (src/main.rs), so it ignores SIGPIPE itself:
/// a reader that went away (`planseal verify | head -0`) ends a read-only command quietly with
/// 0, and is never a death by signal.
#[test]
fn a_closed_pipe_ends_verify_with_0_not_a_sigpipe_death() {
    use std::os::unix::process::ExitStatusExt;
    let s = Scratch::a_task1_in_progress();
    for json in [false, true] {
        let mut cmd = Planseal::new().cwd(s.root()).arg("verify");
        if json {
            cmd = cmd.arg("--json");
        }
        let out = cmd.output_with_stdout(pipe_without_reader());
        assert_eq!(out.status.signal(), None, "json={json}: killed by a signal");
        assert_eq!(out.code, 0, "json={json}: {}", out.stderr);
        assert_eq!(out.stderr, "", "json={json}");
    }
}
