//! The markdown facts the checks need, read once per file through `dwp::markdown` (the README
//! index, Plan Status, Standard, Approval, Goal/Context, Lite inline records, task-body fields,
//! the Completion & Log status line and the SECURITY_REVIEW.md rules). This module only adapts
//! those readers to the shapes the checks compare; it parses nothing itself.

use crate::dwp::model::markdown::{self, ApprovalValue, LogStatus, PlanStatus, TaskBody};

/// One checkbox line of the README task index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexEntry {
    pub(crate) task: u64,
    pub(crate) checked: bool,
    /// The task file the line links, if any.
    pub(crate) link: Option<String>,
}

/// One Lite inline record.
#[derive(Debug, Clone)]
pub(crate) struct LiteRecord {
    /// The number in the heading (`## Task N:`), 0 when absent.
    pub(crate) task: u64,
    pub(crate) title: String,
    /// The number in `{#task-N}`.
    pub(crate) anchor: u64,
    pub(crate) body: TaskFacts,
}

/// What the checks read from README.md.
#[derive(Debug, Clone)]
pub(crate) struct ReadmeFacts {
    pub(crate) index: Vec<IndexEntry>,
    /// Checkbox lines outside the task list that contradict it: (line, task, checked).
    pub(crate) contradicting_elsewhere: Vec<(usize, u64, bool)>,
    /// `Some(Ok((done, total)))`, `Some(Err(text))` for another value, `None` without a line.
    pub(crate) plan_status: Option<Result<(u64, u64), String>>,
    pub(crate) materializing: bool,
    /// `X.Y.Z` of the `**Standard:** DWP spec X.Y.Z` line (or its raw text when not a version).
    pub(crate) standard: Option<String>,
    /// `approved` / `pending` / `pre_approved` from the README line, if declared and known.
    pub(crate) approval: Option<&'static str>,
    pub(crate) goal_written: bool,
    pub(crate) context_written: bool,
    pub(crate) records: Vec<LiteRecord>,
    anchor_counts: std::collections::BTreeMap<u32, usize>,
}

impl ReadmeFacts {
    pub(crate) fn read(text: &str) -> Self {
        let r = markdown::parse_readme(text);
        let plan_status = r.plan_status().map(|p| match &p.status {
            PlanStatus::Count { completed, total } => Ok((*completed as u64, *total as u64)),
            PlanStatus::Materializing => Err("materializing".to_string()),
            PlanStatus::Other(s) => Err(s.clone()),
        });
        Self {
            contradicting_elsewhere: r
                .task_index
                .contradicting_elsewhere()
                .iter()
                .map(|e| (e.line, e.task as u64, e.checked))
                .collect(),
            index: r
                .task_index
                .entries
                .iter()
                .map(|e| IndexEntry {
                    task: e.task as u64,
                    checked: e.checked,
                    link: e.link.as_ref().map(|l| l.file_name.clone()),
                })
                .collect(),
            materializing: r.is_materializing(),
            plan_status,
            standard: r.standard.as_ref().map(|s| match &s.version {
                Some(v) => format!("{}.{}.{}", v.major, v.minor, v.patch),
                None => s.raw.clone(),
            }),
            approval: r.approval.as_ref().and_then(|a| match a.value {
                ApprovalValue::Approved => Some("approved"),
                ApprovalValue::Pending => Some("pending"),
                ApprovalValue::PreApproved => Some("pre_approved"),
                ApprovalValue::Unknown(_) => None,
            }),
            goal_written: r.goal().is_some_and(|f| f.non_empty()),
            context_written: r.context().is_some_and(|f| f.non_empty()),
            records: r
                .inline
                .records
                .iter()
                .map(|rec| LiteRecord {
                    task: rec.heading_number.unwrap_or(0) as u64,
                    title: rec.title.clone(),
                    anchor: rec.anchor_number as u64,
                    body: TaskFacts::from_body(&rec.body, Needs::ALL),
                })
                .collect(),
            anchor_counts: r.inline.anchor_counts.clone(),
        }
    }

    /// How many times `{#task-N}` appears (unfenced).
    pub(crate) fn anchor_count(&self, task: u64) -> usize {
        u32::try_from(task)
            .map(|t| self.anchor_counts.get(&t).copied().unwrap_or(0))
            .unwrap_or(0)
    }
}

/// Every task file linked from an unfenced line anywhere in a README (computed only when a file
/// is not linked from its index line, since it scans every line for links).
pub(crate) fn linked_task_files(readme: &str) -> Vec<String> {
    markdown::lines(readme)
        .iter()
        .filter(|l| !l.in_fence)
        .flat_map(|l| markdown::syntax::task_file_links(l.text))
        .map(|l| l.file_name)
        .collect()
}

/// Which of the optional facts of a task body to read (each costs a scan of the body).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Needs {
    /// The Context field (checked only while a task is not completed).
    pub(crate) context: bool,
    /// The legacy path's facts: a Validation heading and the Read Before Starting references.
    pub(crate) legacy: bool,
}

impl Needs {
    pub(crate) const ALL: Needs = Needs {
        context: true,
        legacy: true,
    };
}

/// What the checks read from one task body (a task file or an inline record).
#[derive(Debug, Clone)]
pub(crate) struct TaskFacts {
    /// Whether each field of [`CHECKED_FIELDS`] is non-empty (`None`: not read). Kept for every
    /// task of a plan, so a fixed array rather than a list.
    fields: [Option<bool>; CHECKED_FIELDS.len()],
    pub(crate) has_validation_heading: bool,
    /// The Completion & Log's Status value, lower-case (`pending`, `completed`, …).
    pub(crate) log_status: Option<String>,
    /// Final Review terms (`security`, `final-state`, `skills`) the body does not name.
    pub(crate) missing_final_terms: Vec<&'static str>,
    /// The amendment records of the task's Completion & Log.
    pub(crate) amendments: Vec<markdown::Amendment>,
    /// The log says `Commit: none — <reason>` with a reason.
    pub(crate) commit_none_justified: bool,
    /// Task numbers the `Read Before Starting` section refers to.
    pub(crate) read_before: Vec<u64>,
}

/// Every field a task body is checked for.
pub(crate) const CHECKED_FIELDS: [&str; 5] = [
    "Goal",
    "Touched Surface",
    "Acceptance Criteria",
    "Validation",
    "Context",
];

impl TaskFacts {
    pub(crate) fn read(text: &str, needs: Needs) -> Self {
        // Only the body is needed: the `# Task N: Title` heading is not read here.
        Self::from_body(&TaskBody::new(text), needs)
    }

    fn from_body(body: &TaskBody<'_>, needs: Needs) -> Self {
        let log = body.completion_log();
        Self {
            // Amendment records start with a heading naming them; skip the scan without one.
            amendments: if body
                .text
                .as_bytes()
                .windows(9)
                .any(|w| w.eq_ignore_ascii_case(b"amendment"))
            {
                body.amendments()
            } else {
                Vec::new()
            },
            read_before: if needs.legacy {
                markdown::read_before_references(body)
                    .into_iter()
                    .map(u64::from)
                    .collect()
            } else {
                Vec::new()
            },
            commit_none_justified: log
                .as_ref()
                .and_then(|l| l.commit.as_ref())
                .is_some_and(|(_, c)| c.is_justified_none()),
            fields: {
                let names: Vec<&'static str> = CHECKED_FIELDS
                    .into_iter()
                    .filter(|f| needs.context || *f != "Context")
                    .collect();
                let present = body.fields_non_empty(&names);
                let mut fields = [None; CHECKED_FIELDS.len()];
                for (name, ok) in names.into_iter().zip(present) {
                    if let Some(at) = CHECKED_FIELDS.iter().position(|f| *f == name) {
                        fields[at] = Some(ok);
                    }
                }
                fields
            },
            has_validation_heading: needs.legacy
                && (markdown::has_validation_heading(body) || body.field("Validation").is_some()),
            log_status: log
                .as_ref()
                .and_then(|l| l.log_status().cloned())
                .map(|s| match s {
                    LogStatus::Completed => "completed".to_string(),
                    LogStatus::Pending => "pending".to_string(),
                    LogStatus::InProgress => "in_progress".to_string(),
                    LogStatus::Blocked => "blocked".to_string(),
                    LogStatus::Skipped => "skipped".to_string(),
                    LogStatus::Other(s) => s,
                }),
            missing_final_terms: body.final_review_missing_terms(),
        }
    }

    pub(crate) fn field_non_empty(&self, name: &str) -> bool {
        CHECKED_FIELDS
            .iter()
            .position(|f| *f == name)
            .is_some_and(|at| self.fields[at] == Some(true))
    }
}

/// SECURITY_REVIEW.md by the helper's two rules, corrected for `| Critical | 0 |` (see
/// [`markdown::security_review`]).
pub(crate) fn security_review(text: &str) -> Result<(), SecurityVerdict> {
    let v = markdown::security_verdict(text);
    if v.open_critical {
        Err(SecurityVerdict::Open)
    } else if v.unclear_critical {
        Err(SecurityVerdict::Unclear)
    } else {
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SecurityVerdict {
    Open,
    Unclear,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readme_facts() {
        let readme = "# P\n\n**Standard:** DWP spec 5.0.0\n\nApproval: pre-approved (trust)\n\nPlan Status: 1/2 completed\n\n## Goal\n\nShip.\n\n## Context\n\n\n## Task List\n\n- [x] Task 1: A — [1.task_a.md](./1.task_a.md)\n```\n- [x] Task 9: fenced\n```\n- [ ] Task 2: B\n";
        let f = ReadmeFacts::read(readme);
        assert_eq!(f.index.len(), 2);
        assert_eq!(f.index[0].link.as_deref(), Some("1.task_a.md"));
        assert_eq!(f.plan_status, Some(Ok((1, 2))));
        assert_eq!(f.standard.as_deref(), Some("5.0.0"));
        assert_eq!(f.approval, Some("pre_approved"));
        assert!(f.goal_written);
        assert!(!f.context_written);
    }

    #[test]
    fn three_status_forms() {
        for form in [
            "Status: pending",
            "**Status:** pending",
            "- **Status:** pending",
        ] {
            let body = format!("# Task 1: A\n\n## 8. Completion & Log\n\n{form}\n");
            assert_eq!(
                TaskFacts::read(&body, Needs::ALL).log_status.as_deref(),
                Some("pending"),
                "{form}"
            );
        }
    }

    #[test]
    fn security_review_rules() {
        assert_eq!(
            security_review("Result: 0 unresolved critical findings"),
            Ok(())
        );
        assert_eq!(
            security_review("1 open critical finding"),
            Err(SecurityVerdict::Open)
        );
        assert_eq!(
            security_review("| Critical | 1 |"),
            Err(SecurityVerdict::Unclear)
        );
        assert_eq!(security_review("| Critical | 0 |"), Ok(()));
    }
}
