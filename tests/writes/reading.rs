//! The reading discipline (`docs/reading.md`), command by command: a FIFO, a device, a folder or
//! an oversized file where a file should be never makes a command wait, and never makes a writer
//! write anything; a state.json symlink out of the plan is never written through.
//!
//! Every case checks the bytes (and the kind) of every entry of the workspace before and after.

use crate::support::finalize::*;
use crate::support::gitrepo::git;
use crate::support::run::Planseal;
use std::collections::BTreeMap;
use std::os::unix::fs::{FileTypeExt, symlink};
use std::path::Path;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);
const PLAN: &str = "PLAN_webhook_retry_backoff";

/// Every entry under `dir` (`.git` left out): a file by its bytes, anything else by its kind.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let rel = path.strip_prefix(base).unwrap().display().to_string();
            if rel == ".git" {
                continue;
            }
            let kind = entry.file_type().unwrap();
            let value = if kind.is_symlink() {
                format!("-> {}", std::fs::read_link(&path).unwrap().display()).into_bytes()
            } else if kind.is_fifo() {
                b"<fifo>".to_vec()
            } else if kind.is_dir() {
                walk(base, &path, out);
                b"<dir>".to_vec()
            } else {
                // A sparse file of hundreds of MiB is compared by its length, not read.
                let len = entry.metadata().unwrap().len();
                if len > 1 << 20 {
                    format!("<{len} bytes>").into_bytes()
                } else {
                    read(&path)
                }
            };
            out.insert(rel, value);
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
}

/// The B plan with task 4 in progress, in a git repository (diff, log and rebuild read git).
fn workspace() -> Workspace {
    let ws = Workspace::ready_to_publish("B_full_v5", PLAN);
    git(ws.root(), &["init", "-q", "--template=", "-b", "main", "."]);
    git(ws.root(), &["add", "-A"]);
    git(
        ws.root(),
        &["commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "plan"],
    );
    ws
}

/// Runs `args` in the workspace; fails when it does not end within [`LIMIT`].
fn run_bounded(ws: &Workspace, args: &[&str]) -> Run {
    Planseal::new()
        .cwd(ws.root())
        .args(args)
        .spawn()
        .wait_at_most(LIMIT)
        .unwrap_or_else(|| panic!("{args:?} did not end within {LIMIT:?}: it waited on a file"))
}

/// `args` on the workspace after `setup`: the outcome, with every entry checked unchanged.
fn untouched_run(ws: &Workspace, args: &[&str]) -> Run {
    let before = snapshot(ws.root());
    let out = run_bounded(ws, args);
    assert_eq!(
        snapshot(ws.root()),
        before,
        "{args:?} changed a file: {}",
        out.stderr
    );
    out
}

fn state_rel() -> String {
    format!(".dwp/plans/{PLAN}/state.json")
}

/// The command refuses with `kind` leading stderr, naming the file.
fn assert_refused_naming(out: &Run, kind: &str, file: &str) {
    assert_refused(out, kind);
    assert!(out.stderr.contains(file), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was written"), "{}", out.stderr);
}

fn fifo_state(ws: &Workspace) {
    mkfifo(&ws.plan_dir().join("state.json"));
}

#[test]
fn fifo_plan_file_never_hangs_verify() {
    let ws = workspace();
    fifo_state(&ws);
    let out = untouched_run(&ws, &["verify", &ws.plan_rel()]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("UNVERIFIED"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("state.json: not-a-regular-file: a FIFO"),
        "{}",
        out.stdout
    );
}

#[test]
fn fifo_plan_file_never_hangs_update() {
    for file in ["state.json", "README.md"] {
        let ws = workspace();
        mkfifo(&ws.plan_dir().join(file));
        let out = untouched_run(
            &ws,
            &[
                "update",
                &state_rel(),
                "--task",
                "4",
                "--status",
                "blocked",
                "--block-reason",
                "x",
            ],
        );
        assert_refused_naming(&out, "not-a-regular-file", file);
        assert!(out.stderr.contains("a FIFO"), "{}", out.stderr);
    }
}

#[test]
fn fifo_plan_file_never_hangs_finalize() {
    let ws = workspace();
    fifo_state(&ws);
    let out = untouched_run(&ws, &["finalize", &ws.plan_rel()]);
    assert_refused_naming(&out, "not-a-regular-file", "state.json");
}

#[test]
fn fifo_plan_file_never_hangs_recover() {
    // the marker itself, and state.json beside a marker
    let ws = workspace();
    mkfifo(&ws.plan_dir().join(".finalizing.json"));
    let out = untouched_run(&ws, &["recover", &ws.plan_rel()]);
    assert_refused_naming(&out, "not-a-regular-file", ".finalizing.json");

    let ws = workspace();
    fifo_state(&ws);
    let out = untouched_run(&ws, &["recover", &ws.plan_rel()]);
    assert_refused_naming(&out, "not-a-regular-file", "state.json");
}

#[test]
fn fifo_plan_file_never_hangs_rebuild() {
    for file in [
        "state.json",
        "README.md",
        "manifest.json",
        "1.task_backoff_schedule.md",
    ] {
        let ws = workspace();
        mkfifo(&ws.plan_dir().join(file));
        let out = untouched_run(&ws, &["rebuild", &ws.plan_rel(), "--write"]);
        assert_refused_naming(&out, "not-a-regular-file", file);
    }
}

#[test]
fn fifo_plan_file_never_hangs_diff() {
    for file in ["state.json", "README.md"] {
        let ws = workspace();
        mkfifo(&ws.plan_dir().join(file));
        let out = untouched_run(&ws, &["diff", &ws.plan_rel()]);
        assert_refused_naming(&out, "not-a-regular-file", file);
    }
}

#[test]
fn fifo_plan_file_never_hangs_log() {
    let ws = workspace();
    fifo_state(&ws);
    let out = untouched_run(&ws, &["log", &ws.plan_rel()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.all().contains("state.json: not-a-regular-file: a FIFO"),
        "{}",
        out.all()
    );
}

#[test]
fn fifo_plan_file_never_hangs_unlock() {
    // a lock whose owner record is a FIFO: the owner is unknown, nothing is removed
    let ws = workspace();
    let lock = ws.plan_dir().join("state.json.lock");
    std::fs::create_dir(&lock).unwrap();
    mkfifo(&lock.join("owner.json"));
    let out = untouched_run(&ws, &["unlock", &state_rel()]);
    assert_refused(&out, "lock-present");
    assert!(
        out.stderr
            .contains("owner.json: a FIFO, not a regular file"),
        "{}",
        out.stderr
    );
    // and a FIFO state.json does not stop unlock from saying there is no lock
    let ws = workspace();
    fifo_state(&ws);
    let out = untouched_run(&ws, &["unlock", &state_rel()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("not locked"), "{}", out.stdout);
}

#[test]
fn state_json_symlink_to_char_device_is_refused() {
    for device in ["/dev/zero", "/dev/null"] {
        let ws = workspace();
        let state = ws.plan_dir().join("state.json");
        std::fs::remove_file(&state).unwrap();
        symlink(device, &state).unwrap();
        let update = [
            "update",
            &state_rel(),
            "--task",
            "4",
            "--status",
            "blocked",
            "--block-reason",
            "x",
        ];
        let out = untouched_run(&ws, &update);
        assert_refused_naming(&out, "symlink-escape", device);
        for args in [
            vec!["finalize", &ws.plan_rel()],
            vec!["rebuild", &ws.plan_rel(), "--write"],
        ] {
            let out = untouched_run(&ws, &args);
            assert_refused(&out, "symlink-escape");
        }
        // verify never opens it: the name leaves the plan (NOT CONFORMANT, as for any link out)
        let out = untouched_run(&ws, &["--json", "verify", &ws.plan_rel()]);
        assert_eq!(out.code, 1, "{}", out.stdout);
        assert!(out.failing_ids().contains(&"file-outside-plan".to_string()));
    }
}

#[test]
fn update_refuses_state_json_symlink_out_of_the_plan() {
    let ws = workspace();
    // another plan beside this one, whose state.json the link names
    let other = ws.root().join(".dwp/plans/PLAN_other");
    copy_dir(&ws.plan_dir(), &other);
    let state = ws.plan_dir().join("state.json");
    std::fs::remove_file(&state).unwrap();
    symlink("../PLAN_other/state.json", &state).unwrap();
    let out = untouched_run(
        &ws,
        &[
            "update",
            &state_rel(),
            "--task",
            "4",
            "--status",
            "blocked",
            "--block-reason",
            "x",
        ],
    );
    assert_refused_naming(&out, "symlink-escape", "state.json");
    // the other plan has no journal and no lock: nothing at all was written into it
    assert!(!other.join("analysis_results/STATE_JOURNAL.ndjson").exists());
    assert!(!other.join("state.json.lock").exists());
}

#[test]
fn a_folder_where_state_json_should_be_is_refused() {
    let ws = workspace();
    let state = ws.plan_dir().join("state.json");
    std::fs::remove_file(&state).unwrap();
    std::fs::create_dir(&state).unwrap();
    let out = untouched_run(
        &ws,
        &[
            "update",
            &state_rel(),
            "--task",
            "4",
            "--status",
            "blocked",
            "--block-reason",
            "x",
        ],
    );
    assert_refused_naming(&out, "not-a-regular-file", "a directory");
    let out = untouched_run(&ws, &["verify", &ws.plan_rel()]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stdout.contains("a directory, not a regular file"),
        "{}",
        out.stdout
    );
}

#[test]
fn input_too_large_is_refused() {
    let ws = workspace();
    // a sparse README one byte over the document cap: cheap to make, never read
    let readme = ws.plan_dir().join("README.md");
    let cap = planseal::recovery::read::Kind::Document.cap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&readme)
        .unwrap()
        .set_len(cap + 1)
        .unwrap();
    let out = untouched_run(
        &ws,
        &[
            "update",
            &state_rel(),
            "--task",
            "4",
            "--status",
            "blocked",
            "--block-reason",
            "x",
        ],
    );
    assert_refused_naming(&out, "input-too-large", "README.md");
    assert!(out.stderr.contains(&cap.to_string()), "{}", out.stderr);
    let out = untouched_run(&ws, &["verify", &ws.plan_rel()]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stdout.contains("input-too-large"), "{}", out.stdout);
}

#[test]
fn gsd_state_md_fifo_never_hangs() {
    let tmp = tempfile::tempdir().unwrap();
    let planning = tmp.path().join(".planning");
    std::fs::create_dir_all(&planning).unwrap();
    mkfifo(&planning.join("STATE.md"));
    let ws_root = tmp.path();
    for args in [
        vec!["gsd", "sync", ".planning/STATE.md", "--write"],
        vec!["gsd", "recover", ".planning/STATE.md"],
        vec!["gsd", "check", ".planning/STATE.md"],
    ] {
        let before = snapshot(ws_root);
        let out = Planseal::new()
            .cwd(ws_root)
            .args(&args)
            .spawn()
            .wait_at_most(LIMIT)
            .unwrap_or_else(|| panic!("{args:?} waited on the FIFO"));
        assert_eq!(snapshot(ws_root), before, "{args:?}");
        if args[1] == "check" {
            assert_eq!(out.code, 2, "{}", out.stdout);
            assert!(out.stdout.contains("not-a-regular-file"), "{}", out.stdout);
        } else {
            assert_refused(&out, "not-a-regular-file");
        }
    }
}

#[test]
fn reversa_state_fifo_never_hangs() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".reversa")).unwrap();
    mkfifo(&tmp.path().join(".reversa/state.json"));
    for args in [
        vec!["reversa", "advance", "--phase-done", "scan"],
        vec!["reversa", "set", "phase", "\"scan\""],
        vec!["reversa", "status"],
    ] {
        let before = snapshot(tmp.path());
        let out = Planseal::new()
            .cwd(tmp.path())
            .args(&args)
            .spawn()
            .wait_at_most(LIMIT)
            .unwrap_or_else(|| panic!("{args:?} waited on the FIFO"));
        assert_eq!(snapshot(tmp.path()), before, "{args:?}");
        assert!(
            out.all().contains("not-a-regular-file"),
            "{args:?}: {}",
            out.all()
        );
        if args[1] != "status" {
            assert_refused(&out, "not-a-regular-file");
        }
    }
}

#[test]
fn checkpoint_fifo_never_hangs() {
    let tmp = tempfile::tempdir().unwrap();
    git(
        tmp.path(),
        &["init", "-q", "--template=", "-b", "main", "."],
    );
    std::fs::create_dir_all(tmp.path().join("docs")).unwrap();
    mkfifo(&tmp.path().join("docs/PROJECT-CHECKPOINT.md"));
    for args in [
        vec!["checkpoint", "refresh", "--write"],
        vec!["checkpoint", "init"],
        vec!["checkpoint", "status"],
    ] {
        let before = snapshot(tmp.path());
        let out = Planseal::new()
            .cwd(tmp.path())
            .args(&args)
            .spawn()
            .wait_at_most(LIMIT)
            .unwrap_or_else(|| panic!("{args:?} waited on the FIFO"));
        assert_eq!(snapshot(tmp.path()), before, "{args:?}");
        assert_ne!(out.code, 0, "{args:?}: {}", out.all());
        if args[1] == "refresh" {
            assert_refused(&out, "not-a-regular-file");
        }
    }
}
