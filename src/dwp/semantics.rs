//! State semantics (SPEC §1.3, §1.6): pure functions over [`State`] giving findings.

use crate::dwp::model::{PlanStatus, TaskStatus};

/// SPEC §1.6: `blocked` if a blocker record exists or any task is blocked; else `completed` iff
/// every task is completed; else `in_progress` if any task is not pending (skipped counts as
/// started); else `pending`.
pub fn derive_status(tasks: &[TaskStatus], has_blocker: bool) -> PlanStatus {
    derive_status_of(tasks.iter().copied().map(Some), has_blocker)
}

/// Like [`derive_status`] for a lenient read: an unknown status (`None`) counts as started and
/// not completed.
pub fn derive_status_of(
    tasks: impl Iterator<Item = Option<TaskStatus>>,
    has_blocker: bool,
) -> PlanStatus {
    let (mut any_blocked, mut all_completed, mut any_started) = (has_blocker, true, false);
    for status in tasks {
        match status {
            Some(TaskStatus::Blocked) => any_blocked = true,
            Some(TaskStatus::Completed) => {}
            _ => all_completed = false,
        }
        if status != Some(TaskStatus::Pending) {
            any_started = true;
        }
    }
    if any_blocked {
        PlanStatus::Blocked
    } else if all_completed {
        PlanStatus::Completed
    } else if any_started {
        PlanStatus::InProgress
    } else {
        PlanStatus::Pending
    }
}
