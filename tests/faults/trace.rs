//! planseal under strace: one run that counts the write-path syscalls, and runs that fail the
//! N-th of one of them.
//!
//! strace counts an injection's occurrences per syscall and per tracee (thread). planseal's
//! writes all happen on its main thread, so the points are numbered on the main thread's own
//! sequence. Which `openat`/`write`/`read` is a write-path point is decided from the counting
//! run's arguments (`-y` names each descriptor's file): an `openat` with `O_WRONLY`, `O_RDWR`
//! or `O_CREAT`; a `write` to a file (not stdout, stderr or a pipe); a `read` of a file inside
//! the workspace. strace cannot filter an injection by flags, so the run injects the N-th
//! `openat` of the main thread — the one the counting run saw — whatever it is.
//!
//! Git reading is not single-threaded today: gix's status check spawns worker threads (no
//! setting or variable limits them), and an injection also lands in a worker that makes as
//! many calls of the same syscall. The counting run records each worker's count, and a point
//! whose number a worker reaches is reported as `collateral` (the fault may also hit a read of
//! a worker).

use crate::support::run::{BIN, hermetic};
use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::Stdio;

/// The write-path syscalls (and `read`, for the sampled read faults).
pub const SYSCALLS: &[&str] = &[
    "openat",
    "write",
    "fsync",
    "fdatasync",
    "rename",
    "renameat2",
    "mkdir",
    "rmdir",
    "unlink",
    "unlinkat",
    "read",
];

/// How a run is traced.
#[derive(Clone, Debug)]
pub enum Traced<'a> {
    /// No strace at all.
    Plain,
    /// Every syscall of [`SYSCALLS`] logged to this file, with file names (`-y`).
    Count(&'a Path),
    /// The `when`-th call of `syscall` on each thread gets `action` (`error=EIO`,
    /// `signal=KILL`).
    Inject {
        syscall: &'a str,
        when: usize,
        action: &'a str,
    },
}

pub struct Outcome {
    /// The exit code; `None` when a signal ended planseal.
    pub code: Option<i32>,
    pub killed: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `planseal ARGS` in `root` with the suite's clock.
pub fn run(root: &Path, args: &[String], traced: Traced<'_>) -> Outcome {
    let mut cmd = match &traced {
        Traced::Plain => hermetic(BIN),
        Traced::Count(log) => {
            let mut c = hermetic("strace");
            c.args(["-f", "-qq", "-y", "-o"])
                .arg(log)
                .arg("-e")
                .arg(format!("trace={}", SYSCALLS.join(",")))
                .arg("--")
                .arg(BIN);
            c
        }
        Traced::Inject {
            syscall,
            when,
            action,
        } => {
            let mut c = hermetic("strace");
            c.args(["-f", "-qq", "-o", "/dev/null"]);
            // seccomp-bpf stops only at the traced syscall (quicker), but strace 6.1 then
            // ignores `signal=`: a SIGKILL injection runs under the full ptrace stop.
            if action.starts_with("error=") {
                c.arg("--seccomp-bpf");
            }
            c.arg("-e")
                .arg(format!("trace={syscall}"))
                .arg("-e")
                .arg(format!("inject={syscall}:{action}:when={when}"))
                .arg("--")
                .arg(BIN);
            c
        }
    };
    let out = cmd
        .env("PLANSEAL_FAKE_NOW", crate::fixture::CLOCK)
        // git's status compares files on planseal's thread budget: one, so few reads are shared
        .env("PLANSEAL_GIT_THREADS", "1")
        .current_dir(root)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("strace and planseal start");
    let signal = out.status.signal();
    Outcome {
        code: out.status.code().filter(|c| *c != 128 + 9),
        killed: signal == Some(9) || out.status.code() == Some(128 + 9),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// One numbered call of the main thread.
#[derive(Clone, Debug)]
pub struct Point {
    pub syscall: &'static str,
    /// 1-based, among the main thread's calls of this syscall.
    pub when: usize,
    /// What the call touched, relative to the workspace when inside it.
    pub what: String,
    /// A worker thread makes at least `when` calls of this syscall too.
    pub collateral: bool,
}

/// The counting run's log, read: the write-path points and the read points of the main thread.
pub struct Counted {
    pub writes: Vec<Point>,
    pub reads: Vec<Point>,
    /// (syscall, main-thread total) for the report.
    pub totals: BTreeMap<&'static str, usize>,
}

/// Parses a `strace -f -y -o` log of a run whose main thread is the first pid in it.
pub fn parse(log: &str, root: &Path) -> Counted {
    let root = root.to_string_lossy().into_owned();
    let mut main_pid: Option<&str> = None;
    let mut main_counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut worker_counts: BTreeMap<(&str, &'static str), usize> = BTreeMap::new();
    let mut raw: Vec<(&'static str, usize, String, bool)> = Vec::new();
    for line in log.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let rest = rest.trim_start();
        let Some((name, args)) = rest.split_once('(') else {
            continue;
        };
        let Some(&syscall) = SYSCALLS.iter().find(|s| **s == name) else {
            continue;
        };
        let main = *main_pid.get_or_insert(pid) == pid;
        if !main {
            *worker_counts.entry((pid, syscall)).or_default() += 1;
            continue;
        }
        let n = main_counts.entry(syscall).or_default();
        *n += 1;
        let (point, what) = classify(syscall, args, &root);
        let what = what.replace(&root, "");
        raw.push((syscall, *n, what, point));
    }
    let worker_max = |syscall: &str| {
        worker_counts
            .iter()
            .filter(|((_, s), _)| *s == syscall)
            .map(|(_, n)| *n)
            .max()
            .unwrap_or(0)
    };
    let mut writes = Vec::new();
    let mut reads = Vec::new();
    for (syscall, when, what, point) in raw {
        if !point {
            continue;
        }
        let p = Point {
            syscall,
            when,
            what,
            collateral: worker_max(syscall) >= when,
        };
        if syscall == "read" {
            reads.push(p);
        } else {
            writes.push(p);
        }
    }
    Counted {
        writes,
        reads,
        totals: main_counts,
    }
}

/// Whether a logged call is a point, and what it touched.
fn classify(syscall: &str, args: &str, root: &str) -> (bool, String) {
    let first_path = || {
        args.split('"')
            .nth(1)
            .map(str::to_string)
            .unwrap_or_default()
    };
    // the descriptor's file as `-y` prints it: `3</path>`
    let fd_path = || {
        let fd: String = args.chars().take_while(|c| c.is_ascii_digit()).collect();
        let file = args
            .split_once('<')
            .and_then(|(_, r)| r.split_once('>'))
            .map(|(p, _)| p.to_string())
            .unwrap_or_default();
        (fd.parse::<i32>().unwrap_or(-1), file)
    };
    match syscall {
        "openat" => {
            let flags = args.split(", ").nth(2).unwrap_or("");
            let writes = ["O_WRONLY", "O_RDWR", "O_CREAT"]
                .iter()
                .any(|f| flags.contains(f));
            (writes, format!("{} {flags}", first_path()))
        }
        "write" => {
            let (fd, file) = fd_path();
            (fd > 2 && file.starts_with('/'), file)
        }
        "read" => {
            let (_, file) = fd_path();
            (file.starts_with(root), file)
        }
        "fsync" | "fdatasync" => (true, fd_path().1),
        _ => (true, first_path()),
    }
}
