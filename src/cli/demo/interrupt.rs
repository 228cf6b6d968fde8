//! The interrupted publication: a forked child runs the real close-out of the last task (`task
//! done`: the markdown, then the publication) and ends itself the moment the marker is durable — no unwinding, no cleanup, the lock left behind with its owner
//! gone, exactly what a `kill -9` of the writer leaves. The parent waits and reports how the child
//! ended, the way a shell would.
//!
//! A fork, not a child started from the binary: the demo needs no hidden command-line entry point
//! for it, and the child is still a process of its own whose death the lock really outlives.

use crate::print_out;
use planseal::dwp::ops::OpError;
use planseal::dwp::ops::task_done::{self, TaskDoneRequest};
use planseal::dwp::publish::Step;
use std::io::Write as _;

/// How the child ends after its marker: 128 + SIGKILL, what a shell reports for `kill -9`.
pub(super) const KILLED: i32 = 137;

/// Runs the last task's close-out in a forked child that dies after the publication's marker;
/// returns the child's exit code (128 + the signal if a signal ended it).
pub(super) fn close_out_and_die(req: TaskDoneRequest) -> anyhow::Result<i32> {
    // Fork is safe here because the demo is single-threaded: it starts no thread (its commands
    // are child processes read with poll, the git library works on the calling thread), so no
    // lock — the allocator's, stdout's, the output redactor's — can be held by a thread the child
    // would not have. Where /proc tells, that is checked rather than trusted. Everything printed
    // so far is flushed, so the child inherits no buffered output to print twice.
    if let Some(threads) = thread_count()
        && threads != 1
    {
        anyhow::bail!("cannot fork the close-out: this process runs {threads} threads");
    }
    std::io::stdout().flush()?;
    // SAFETY: a single-threaded process (checked above) may fork; the child only runs
    // `child`, which ends with `_exit` and never returns into the demo.
    let pid = unsafe { libc::fork() };
    match pid {
        -1 => Err(std::io::Error::last_os_error().into()),
        0 => child(req),
        pid => wait(pid),
    }
}

/// The child: the real close-out, stopped dead right after the publication's marker. It shares
/// the parent's stdout, where the parent (waiting) prints nothing meanwhile.
fn child(req: TaskDoneRequest) -> ! {
    let outcome = task_done::task_done_with(req, &mut |step| {
        if step == Step::AfterMarker {
            print_out(
                "    (the process stops here: task log, README and PROGRESS written, marker written, state.json not yet replaced)\n",
            );
            // SAFETY: _exit ends the process at once; no destructor, no lock release runs.
            unsafe { libc::_exit(KILLED) }
        }
    });
    let why = match outcome {
        Ok(_) => "the publication finished instead of stopping after its marker".to_string(),
        Err(OpError::Refused(r)) => super::super::render_refusal(&r),
        Err(e) => format!("planseal: error: {e}"),
    };
    for line in why.lines() {
        print_out(&format!("    {line}\n"));
    }
    // SAFETY: as above; the child must not return into the parent's code.
    unsafe { libc::_exit(1) }
}

/// Waits for the child and gives its exit code, or 128 + the signal that ended it.
fn wait(pid: libc::pid_t) -> anyhow::Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: `status` is a valid place for waitpid to write to; `pid` is our own child.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            break;
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e.into());
        }
    }
    if libc::WIFEXITED(status) {
        Ok(libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        Ok(128 + libc::WTERMSIG(status))
    } else {
        anyhow::bail!("the finalizer child ended in an unknown way (status {status})")
    }
}

/// The number of threads of this process, where /proc/self/status says.
fn thread_count() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))?
        .trim()
        .parse()
        .ok()
}
