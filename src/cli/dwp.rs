//! What the DWP commands share in the binary: the progress line of long git walks, and their
//! library errors turned back into the types the one error mapping knows.

use planseal::dwp::locate::GitProgress;
use planseal::dwp::ops::OpError;
use std::io::IsTerminal;

/// Draws `walking commits… N` on stderr, only on a terminal and only once a walk has taken
/// more than half a second; the line is cleared when the walk ends.
pub(super) fn git_progress() -> Option<GitProgress> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let started = std::time::Instant::now();
    let drawn = std::cell::Cell::new(false);
    Some(Box::new(move |p| {
        if p.done {
            if drawn.get() {
                crate::print_err("\r\x1b[K");
                drawn.set(false);
            }
            return;
        }
        if started.elapsed() >= std::time::Duration::from_millis(500) {
            crate::print_err(&format!("\rwalking {}… {} commits", p.task, p.commits));
            drawn.set(true);
        }
    }))
}

/// The error as its own type again, so `report_error` prints a refusal as a refusal and a hint
/// on its own line; an error that carries its own context stays as it is.
pub(super) fn error(e: OpError) -> anyhow::Error {
    match e {
        OpError::Refused(r) => r.into(),
        OpError::Hinted(h) => h.into(),
        OpError::Write(w) => w.into(),
        OpError::Publish(p) => p.into(),
        OpError::Git(g) => g.into(),
        OpError::Rebuild(planseal::dwp::decide::rebuild::RebuildError::Refused(r)) => r.into(),
        OpError::Rebuild(r) => r.into(),
        other @ (OpError::Read { .. } | OpError::History { .. }) => other.into(),
    }
}
