//! Check 18 of `docs/verify.md`: planseal's checks of DWP rules that neither helper enforces —
//! amendment records, skipped tasks, and the plan-to-code trace (`commit`).

use super::md::TaskFacts;
use super::{FindingExt, Out};
use crate::dwp::layout;
use crate::dwp::model::markdown::{self, Disposition};
use serde_json::Value;
use std::collections::BTreeSet;

/// One task as the checks of the DWP method's rules see it.
pub(crate) struct TaskView<'a> {
    pub id: u64,
    pub status: &'a str,
    pub has_commit: bool,
    /// The task's record (file or inline), when it could be read.
    pub body: Option<&'a TaskFacts>,
    /// Where the record lives, for the findings.
    pub file: String,
}

pub(crate) fn check(tasks: &[TaskView<'_>], progress: Option<&str>, in_git: bool, out: &mut Out) {
    let entries = progress.map(markdown::progress_entries).unwrap_or_default();
    let ids: BTreeSet<u64> = tasks.iter().map(|t| t.id).collect();
    let mut named_by_amendment: BTreeSet<u64> = BTreeSet::new();
    for t in tasks {
        let Some(body) = t.body else { continue };
        let mut last_date = None;
        for (k, a) in body.amendments.iter().enumerate() {
            let n = a.number;
            named_by_amendment.extend(a.affected_task_numbers().into_iter().map(u64::from));
            named_by_amendment.insert(t.id);
            let missing = a.missing_or_empty();
            if !missing.is_empty() {
                out.advisory(
                    "amendment-incomplete",
                    format!(
                        "task {} amendment {n}: {} missing or empty",
                        t.id,
                        missing.join(", ")
                    ),
                )
                .task(t.id)
                .file(t.file.clone())
                .hint("an amendment records all nine labels: Original criterion, Observed, Disposition, Revised criterion, Reason, Authority, Affected tasks, Evidence invalidated, Evidence preserved");
            }
            if a.disposition().is_some() && a.disposition_kind().is_none() {
                out.fail(
                    "amendment-disposition-invalid",
                    format!("task {} amendment {n}: Disposition is not revised criterion, deferred requirement, unexecuted scenario or failed gate", t.id),
                )
                .task(t.id)
                .file(t.file.clone())
                .hint("use one of the four dispositions");
            }
            if a.authority().is_some() && a.authority_kind().is_none() {
                out.fail(
                    "amendment-authority-invalid",
                    format!(
                        "task {} amendment {n}: Authority is not user, developer or evidence",
                        t.id
                    ),
                )
                .task(t.id)
                .file(t.file.clone())
                .hint("name who decided: user, developer or evidence");
            }
            if n as usize != k + 1 {
                out.fail(
                    "amendment-out-of-order",
                    format!(
                        "task {} amendment {n} is the record number {} (amendments run 1..n)",
                        t.id,
                        k + 1
                    ),
                )
                .task(t.id)
                .file(t.file.clone())
                .hint("number the task's amendments 1, 2, … in the order they were written");
            }
            if let (Some(prev), Some(date)) = (last_date, a.date)
                && date < prev
            {
                out.fail(
                    "amendment-backdated",
                    format!(
                        "task {} amendment {n} is dated {date}, before the previous one ({prev})",
                        t.id
                    ),
                )
                .task(t.id)
                .file(t.file.clone())
                .hint("amendments are appended with the date they were written, never backdated");
            }
            if a.date.is_some() {
                last_date = a.date;
            }
            if a.disposition_kind() == Some(Disposition::DeferredRequirement) {
                let targets: Vec<u64> = a
                    .affected_task_numbers()
                    .into_iter()
                    .map(u64::from)
                    .filter(|x| *x != t.id)
                    .collect();
                if !targets.iter().any(|x| ids.contains(x)) {
                    out.advisory(
                        "amendment-target-missing",
                        format!("task {} amendment {n} defers a requirement but Affected tasks names no existing target task", t.id),
                    )
                    .task(t.id)
                    .file(t.file.clone())
                    .hint("name the task that takes over the requirement in `Affected tasks:`");
                }
            }
            if progress.is_some()
                && !markdown::mirrors_amendment(&entries, n, u32::try_from(t.id).unwrap_or(0))
            {
                out.advisory(
                    "amendment-not-mirrored",
                    format!(
                        "task {} amendment {n} has no PROGRESS.md entry naming it and the task",
                        t.id
                    ),
                )
                .task(t.id)
                .file(layout::PROGRESS_FILE)
                .hint(format!(
                    "add a PROGRESS.md entry naming `Amendment {n}` and `Task {}`",
                    t.id
                ));
            }
        }
    }
    for t in tasks.iter().filter(|t| t.status == "skipped") {
        let refined = markdown::refinement_names_task(&entries, u32::try_from(t.id).unwrap_or(0));
        if !refined && !named_by_amendment.contains(&t.id) {
            out.advisory(
                "skipped-task-unbacked",
                format!("task {} is skipped without an amendment or a PROGRESS refinement entry naming it", t.id),
            )
            .task(t.id)
            .hint("record the refinement that removed the task from scope");
        }
    }
    // The trace from plan to code: a plan makes commits when it lives in a git work tree and at
    // least one task records one; then every completed task needs a commit or a
    // `Commit: none — <reason>` line in its log.
    if in_git && tasks.iter().any(|t| t.has_commit) {
        for t in tasks
            .iter()
            .filter(|t| t.status == "completed" && !t.has_commit)
        {
            if t.body.is_some_and(|b| b.commit_none_justified) {
                continue;
            }
            out.fail(
                "completed-task-without-commit",
                format!("task {} is completed without a commit, in a plan whose other tasks record theirs", t.id),
            )
            .task(t.id)
            .file(layout::STATE_FILE)
            .hint("record the task's commit (--commit), or write `Commit: none — <reason>` in its log");
        }
    }
}

/// `commit` present and non-empty.
pub(crate) fn has_commit(t: &Value) -> bool {
    t.get("commit")
        .and_then(Value::as_str)
        .is_some_and(|c| !c.is_empty())
}
