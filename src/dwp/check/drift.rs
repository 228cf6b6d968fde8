//! The git cross-checks of a plan already checked: what `verify` adds from the git log.

use crate::dwp::model::State;
use crate::report::Finding;
use std::collections::BTreeSet;
use std::path::Path;

/// Adds what `verify` takes from git to the findings of a plan already checked: the
/// cross-checks and drift advisories of [`crate::dwp::history::cross_checks`] (failures for a
/// published plan — `published` holds the receipt's `git.head` when it records one — and
/// advisories but for a missing commit otherwise), placed before the closing
/// `semantic-review-required`.
/// Nothing is added when the check stopped before the state (a publication marker, an unreadable
/// or unsupported state.json). In a shallow clone a task whose naming commit lies beyond the
/// boundary is the `history-truncated` advisory, not the failure `completed-task-without-commit`
/// (a check that needs a commit git cannot show is never a failure); a drift advisory
/// repeating a failure of the same task is left out.
/// `display_path` is the plan folder as the hints show it.
pub(super) fn merge_drift(
    repo: Option<&Result<Option<crate::recovery::git::Repo>, crate::recovery::git::GitError>>,
    plan_dir: &Path,
    display_path: &str,
    state: &State,
    published: Option<Option<&str>>,
    findings: &mut Vec<Finding>,
) {
    use crate::dwp::history::{CheckMode, CrossCheck, cross_checks, cross_checks_in_repo};
    use crate::report::Severity;
    const STOPPED: [&str; 3] = ["marker-present", "state-unparseable", "unsupported-schema"];
    if findings.iter().any(|f| STOPPED.contains(&f.id.as_str())) {
        return;
    }
    let req = CrossCheck {
        plan_dir,
        shown: Path::new(display_path),
        state,
        candidate: None,
        mode: if published.is_some() {
            CheckMode::Published
        } else {
            CheckMode::InProgress
        },
        published_head: published.flatten(),
    };
    let mut drift = match repo {
        Some(Ok(Some(repo))) => cross_checks_in_repo(repo, &req),
        // Not a repository after all, or already reported unreadable.
        Some(Ok(None)) | Some(Err(_)) => Vec::new(),
        None => cross_checks(&req),
    };
    if drift.is_empty() {
        return;
    }
    let truncated: BTreeSet<u64> = drift
        .iter()
        .filter(|f| f.id == "history-truncated")
        .filter_map(|f| f.task)
        .collect();
    let failed_before = findings.iter().any(|f| f.severity == Severity::Fail);
    findings.retain(|f| {
        !(f.severity == Severity::Fail
            && f.id == "completed-task-without-commit"
            && f.task.is_some_and(|t| truncated.contains(&t)))
    });
    drift.retain(|d| {
        !findings.iter().any(|f| {
            f.severity == Severity::Fail
                && f.task == d.task
                && (f.id == d.id
                    || f.id == "completed-task-without-commit"
                        && d.id == "completed-task-not-in-history")
        })
    });
    // Git already reported unreadable (by the checks of the plan's own files): once is enough.
    drift.retain(|d| {
        d.severity != Severity::Unverified
            || !findings
                .iter()
                .any(|f| f.severity == Severity::Unverified && f.id == d.id)
    });
    for d in &mut drift {
        // The caller names the section's plan (a hub child is shown as `repo:PLAN_x`).
        d.plan = None;
    }
    let failed_git = drift.iter().any(|f| f.severity == Severity::Fail);
    if failed_git && !failed_before {
        // The plan no longer passes: the closing reminder of a passing plan goes.
        findings.retain(|f| f.id != "semantic-review-required");
    }
    let at = match findings.last() {
        Some(last) if last.id == "semantic-review-required" => findings.len() - 1,
        _ => findings.len(),
    };
    findings.splice(at..at, drift);
    let failed_after = findings.iter().any(|f| f.severity == Severity::Fail);
    if failed_before && !failed_after {
        // The only failures were the truncated ones: the plan now closes like any passing plan.
        findings.push(Finding::advisory(
            "semantic-review-required",
            super::SEMANTIC_REVIEW,
        ));
    }
}
