//! `diff` reports: what disagrees between state.json and the markdown, what
//! changed in a plan since a revision, and what a candidate state would change.
//!
//! Everything here is pure: the CLI reads the files (and git) and hands the bytes in.
//!
//! ```
//! use planseal::dwp::history::diff::state_changes;
//! let before = serde_json::json!({"completed_count": 1, "tasks": [{"id": 1, "status": "completed", "gates": [{"command": "t"}]}]});
//! let after = serde_json::json!({"completed_count": 0, "tasks": [{"id": 1, "status": "pending", "gates": []}]});
//! let kinds: Vec<&str> = state_changes(&before, &after).iter().map(|c| c.kind).collect();
//! assert_eq!(kinds, ["status-moved-backwards", "gate-removed", "count-changed"]);
//! ```

use crate::dwp::model::markdown::MarkdownTask;
use crate::report::{Finding, Severity};
use serde::Serialize;
use serde_json::Value;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

/// One disagreement between state.json and the markdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Disagreement {
    /// `None` for plan-level fields.
    pub task: Option<u64>,
    /// What disagrees: `task` (listed on one side only), `status`, `log-status`, `title`,
    /// `completed_count`, `plan-status` or `plan-status-count`.
    pub field: &'static str,
    /// What state.json says (`None`: it says nothing).
    pub state: Option<String>,
    /// What the markdown says, and where.
    pub markdown: Option<String>,
    /// `markdown-ahead` (the markdown records more progress), `state-ahead`, or `mismatch`.
    pub direction: &'static str,
    /// The disagreement as one sentence for the text report.
    pub message: String,
}

/// Each task by its `id`, the first one when an id repeats (what a scan from the start finds).
fn first_by_id<'v>(tasks: impl Iterator<Item = &'v Value>) -> HashMap<u64, &'v Value> {
    let mut by_id = HashMap::new();
    for t in tasks {
        if let Some(n) = t["id"].as_u64() {
            by_id.entry(n).or_insert(t);
        }
    }
    by_id
}

fn status_rank(s: &str) -> u8 {
    match s {
        "completed" => 2,
        "pending" => 0,
        _ => 1,
    }
}

/// Every disagreement between state.json (`state`, as parsed) and the markdown (README index and
/// task logs), per task and direction. `plan_status` is the README `Plan Status: X/N` count.
pub fn state_vs_markdown(
    state: &Value,
    tasks: &[MarkdownTask],
    plan_status: Option<(u64, u64)>,
) -> Vec<Disagreement> {
    let mut out = Vec::new();
    let state_tasks: Vec<&Value> = state["tasks"]
        .as_array()
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    // The first task of each id, looked up instead of scanned for (tasks × tasks).
    let by_id = first_by_id(state_tasks.iter().copied());
    let find = |n: u64| by_id.get(&n).copied();
    for md in tasks {
        let n = md.id;
        let Some(st) = find(n) else {
            out.push(Disagreement {
                task: Some(n),
                field: "task",
                state: None,
                markdown: Some(format!("README lists task {n}")),
                direction: "markdown-ahead",
                message: format!("task {n} is in the README index but not in state.json"),
            });
            continue;
        };
        let status = st["status"].as_str().unwrap_or("(none)");
        let completed = status == "completed";
        if md.checked != completed {
            let (direction, message) = if md.checked {
                (
                    "markdown-ahead",
                    format!("README ticks task {n}, state.json says {status}"),
                )
            } else {
                (
                    "state-ahead",
                    format!("state.json says task {n} is completed, README leaves it unticked"),
                )
            };
            out.push(Disagreement {
                task: Some(n),
                field: "status",
                state: Some(status.to_string()),
                markdown: Some(if md.checked { "[x]" } else { "[ ]" }.to_string()),
                direction,
                message,
            });
        }
        if let Some(log) = &md.log_status {
            use crate::dwp::model::markdown::LogStatus;
            let log_text = match log {
                LogStatus::Completed => "completed",
                LogStatus::Pending => "pending",
                LogStatus::InProgress => "in_progress",
                LogStatus::Blocked => "blocked",
                LogStatus::Skipped => "skipped",
                LogStatus::Other(_) => "",
            };
            let log_done = log_text == "completed";
            if !log_text.is_empty() && log_done != completed {
                let direction = if status_rank(log_text) > status_rank(status) {
                    "markdown-ahead"
                } else {
                    "state-ahead"
                };
                out.push(Disagreement {
                    task: Some(n),
                    field: "log-status",
                    state: Some(status.to_string()),
                    markdown: Some(format!("Status: {log_text}")),
                    direction,
                    message: format!(
                        "task {n}'s log says Status: {log_text}, state.json says {status}"
                    ),
                });
            }
        }
        let state_title = st["title"].as_str().unwrap_or("");
        if !md.title.is_empty() && md.title != state_title {
            out.push(Disagreement {
                task: Some(n),
                field: "title",
                state: Some(state_title.to_string()),
                markdown: Some(md.title.clone()),
                direction: "mismatch",
                message: format!(
                    "task {n}'s title is \"{}\" in the README, \"{state_title}\" in state.json",
                    md.title
                ),
            });
        }
    }
    let listed: HashSet<u64> = tasks.iter().map(|t| t.id).collect();
    for st in &state_tasks {
        if let Some(n) = st["id"].as_u64()
            && !listed.contains(&n)
        {
            out.push(Disagreement {
                task: Some(n),
                field: "task",
                state: Some(format!("task {n}")),
                markdown: None,
                direction: "state-ahead",
                message: format!("state.json has task {n}, the README index does not list it"),
            });
        }
    }
    let counted = state_tasks
        .iter()
        .filter(|t| t["status"] == "completed")
        .count() as u64;
    if let Some(c) = state["completed_count"].as_u64()
        && c != counted
    {
        out.push(Disagreement {
            task: None,
            field: "completed_count",
            state: Some(c.to_string()),
            markdown: None,
            direction: "mismatch",
            message: format!(
                "state.json completed_count is {c}, but {counted} of its tasks are completed"
            ),
        });
    }
    if let Some((done, total)) = plan_status {
        let checked = tasks.iter().filter(|t| t.checked).count() as u64;
        let state_total = state_tasks.len() as u64;
        if done != counted || total != state_total {
            out.push(Disagreement {
                task: None,
                field: "plan-status",
                state: Some(format!("{counted}/{state_total}")),
                markdown: Some(format!("Plan Status: {done}/{total}")),
                direction: if done > counted { "markdown-ahead" } else if done < counted { "state-ahead" } else { "mismatch" },
                message: format!("README says Plan Status: {done}/{total}, state.json has {counted}/{state_total} completed"),
            });
        }
        if done != checked || total != tasks.len() as u64 {
            out.push(Disagreement {
                task: None,
                field: "plan-status-count",
                state: None,
                markdown: Some(format!("Plan Status: {done}/{total}")),
                direction: "mismatch",
                message: format!("README says Plan Status: {done}/{total}, but {checked} of its {} checkboxes are ticked", tasks.len()),
            });
        }
    }
    out
}

/// One semantic change between two states.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StateChange {
    /// `status-moved`, `status-moved-backwards`, `task-added`, `task-removed`, `gate-added`,
    /// `gate-removed`, `field-removed`, `field-added`, `field-changed`, `count-changed`.
    pub kind: &'static str,
    /// The task the change is in; `None` for a plan-level field.
    pub task: Option<u64>,
    /// The state.json key that changed (`task` for a task added or removed, `gates` for a gate
    /// record).
    pub field: String,
    /// The old value as text (a string unquoted, anything else as JSON; a gate record as
    /// `command @ last_run`); `None` when it was absent.
    pub before: Option<String>,
    /// The new value, shown the same way; `None` when it is absent.
    pub after: Option<String>,
    /// The change as one line for the text report.
    pub message: String,
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn gate_key(g: &Value) -> String {
    format!(
        "{} @ {}",
        g["command"].as_str().unwrap_or("?"),
        g["last_run"].as_str().unwrap_or("?")
    )
}

/// The semantic changes from `before` to `after` (both state.json values): statuses that moved
/// (and backwards moves), tasks and gates added or removed, fields removed, counts changed.
pub fn state_changes(before: &Value, after: &Value) -> Vec<StateChange> {
    let mut out = Vec::new();
    let tasks = |v: &Value| -> Vec<Value> { v["tasks"].as_array().cloned().unwrap_or_default() };
    let (bt, at) = (tasks(before), tasks(after));
    let (b_by_id, a_by_id) = (first_by_id(bt.iter()), first_by_id(at.iter()));
    let find = |by_id: &HashMap<u64, &Value>, n: u64| by_id.get(&n).map(|t| (*t).clone());
    let mut ids: Vec<u64> = bt
        .iter()
        .chain(at.iter())
        .filter_map(|t| t["id"].as_u64())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    for n in ids {
        match (find(&b_by_id, n), find(&a_by_id, n)) {
            (Some(_), None) => out.push(StateChange {
                kind: "task-removed",
                task: Some(n),
                field: "task".into(),
                before: Some(n.to_string()),
                after: None,
                message: format!("task {n} removed"),
            }),
            (None, Some(_)) => out.push(StateChange {
                kind: "task-added",
                task: Some(n),
                field: "task".into(),
                before: None,
                after: Some(n.to_string()),
                message: format!("task {n} added"),
            }),
            (Some(b), Some(a)) => task_changes(n, &b, &a, &mut out),
            (None, None) => {}
        }
    }
    // Plan-level fields.
    let (bo, ao) = (before.as_object(), after.as_object());
    if let (Some(bo), Some(ao)) = (bo, ao) {
        for (k, bv) in bo {
            if k == "tasks" {
                continue;
            }
            match ao.get(k) {
                None => out.push(StateChange {
                    kind: "field-removed",
                    task: None,
                    field: k.clone(),
                    before: Some(text_of(bv)),
                    after: None,
                    message: format!("{k} removed"),
                }),
                Some(av) if k == "status" && av != bv => {
                    let (b, a) = (text_of(bv), text_of(av));
                    let backwards = status_rank(&a) < status_rank(&b);
                    out.push(StateChange {
                        kind: if backwards {
                            "status-moved-backwards"
                        } else {
                            "status-moved"
                        },
                        task: None,
                        field: k.clone(),
                        message: format!(
                            "status: {b} → {a}{}",
                            if backwards { " (backwards)" } else { "" }
                        ),
                        before: Some(b),
                        after: Some(a),
                    });
                }
                Some(av) if av != bv => {
                    let kind = if k == "completed_count" || k == "task_count" {
                        "count-changed"
                    } else {
                        "field-changed"
                    };
                    out.push(StateChange {
                        kind,
                        task: None,
                        field: k.clone(),
                        before: Some(text_of(bv)),
                        after: Some(text_of(av)),
                        message: format!("{k}: {} → {}", text_of(bv), text_of(av)),
                    });
                }
                Some(_) => {}
            }
        }
        for (k, av) in ao {
            if k != "tasks" && !bo.contains_key(k) {
                out.push(StateChange {
                    kind: "field-added",
                    task: None,
                    field: k.clone(),
                    before: None,
                    after: Some(text_of(av)),
                    message: format!("{k} added: {}", text_of(av)),
                });
            }
        }
    }
    out
}

fn task_changes(n: u64, b: &Value, a: &Value, out: &mut Vec<StateChange>) {
    let bs = b["status"].as_str().unwrap_or("(none)");
    let as_ = a["status"].as_str().unwrap_or("(none)");
    if bs != as_ {
        let backwards = status_rank(as_) < status_rank(bs);
        out.push(StateChange {
            kind: if backwards {
                "status-moved-backwards"
            } else {
                "status-moved"
            },
            task: Some(n),
            field: "status".into(),
            before: Some(bs.into()),
            after: Some(as_.into()),
            message: format!(
                "task {n}: {bs} → {as_}{}",
                if backwards { " (backwards)" } else { "" }
            ),
        });
    }
    let gates = |v: &Value| -> Vec<String> {
        v["gates"]
            .as_array()
            .map(|g| g.iter().map(gate_key).collect())
            .unwrap_or_default()
    };
    let (bg, ag) = (gates(b), gates(a));
    let (b_set, a_set): (HashSet<&String>, HashSet<&String>) =
        (bg.iter().collect(), ag.iter().collect());
    for g in ag.iter().filter(|g| !b_set.contains(g)) {
        out.push(StateChange {
            kind: "gate-added",
            task: Some(n),
            field: "gates".into(),
            before: None,
            after: Some(g.clone()),
            message: format!("task {n}: gate added: {g}"),
        });
    }
    for g in bg.iter().filter(|g| !a_set.contains(g)) {
        out.push(StateChange {
            kind: "gate-removed",
            task: Some(n),
            field: "gates".into(),
            before: Some(g.clone()),
            after: None,
            message: format!("task {n}: gate removed: {g}"),
        });
    }
    if let (Some(bo), Some(ao)) = (b.as_object(), a.as_object()) {
        for (k, bv) in bo {
            if k == "status" || k == "gates" {
                continue;
            }
            match ao.get(k) {
                None => out.push(StateChange {
                    kind: "field-removed",
                    task: Some(n),
                    field: k.clone(),
                    before: Some(text_of(bv)),
                    after: None,
                    message: format!("task {n}: {k} removed (was {})", text_of(bv)),
                }),
                Some(av) if av != bv => out.push(StateChange {
                    kind: "field-changed",
                    task: Some(n),
                    field: k.clone(),
                    before: Some(text_of(bv)),
                    after: Some(text_of(av)),
                    message: format!("task {n}: {k}: {} → {}", text_of(bv), text_of(av)),
                }),
                Some(_) => {}
            }
        }
        for (k, av) in ao {
            if k != "status" && k != "gates" && !bo.contains_key(k) {
                out.push(StateChange {
                    kind: "field-added",
                    task: Some(n),
                    field: k.clone(),
                    before: None,
                    after: Some(text_of(av)),
                    message: format!("task {n}: {k} added: {}", text_of(av)),
                });
            }
        }
    }
}

/// A text file that differs between two versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct FileDiff {
    /// The file's plan-relative name (`README.md`, `analysis_results/…`).
    pub path: String,
    /// `modified`, `added`, `removed`.
    pub change: &'static str,
    /// Unified diff (3 lines of context), headers `a/<path>` and `b/<path>`.
    pub unified: String,
}

/// The unified diff of one file, `None` when both sides are equal.
pub fn file_diff(path: &str, before: Option<&[u8]>, after: Option<&[u8]>) -> Option<FileDiff> {
    if before == after {
        return None;
    }
    let change = match (before, after) {
        (None, Some(_)) => "added",
        (Some(_), None) => "removed",
        _ => "modified",
    };
    let b = String::from_utf8_lossy(before.unwrap_or_default());
    let a = String::from_utf8_lossy(after.unwrap_or_default());
    let unified = similar::TextDiff::from_lines(b.as_ref(), a.as_ref())
        .unified_diff()
        .context_radius(3)
        .header(
            &if before.is_some() {
                format!("a/{path}")
            } else {
                "/dev/null".into()
            },
            &if after.is_some() {
                format!("b/{path}")
            } else {
                "/dev/null".into()
            },
        )
        .to_string();
    Some(FileDiff {
        path: path.to_string(),
        change,
        unified,
    })
}

/// One disagreement between git and the plan, as `diff` lists it: a finding of the history
/// checks (`verify`'s drift advisories and `finalize`'s git cross-checks), under the id those
/// checks report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct GitDisagreement {
    /// The finding id (`commit-missing`, `commit-names-incomplete-task`, …).
    pub id: String,
    /// `fail` or `advisory`, as the check weighs it.
    pub severity: Severity,
    /// The task concerned, when one is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<u64>,
    /// The finding's sentence.
    pub message: String,
    /// What to do about it, when the check knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// Finding ids of the history checks that are no disagreement between git and the plan: what the
/// work tree holds (a `diff` is no publication), and what history could not tell (a note).
const NOT_A_GIT_DISAGREEMENT: [&str; 3] = ["worktree-dirty", "worktree-clean", "dwp-tracked"];

/// Finding ids that say what git could not tell; `diff` shows them as notes, not differences.
pub const GIT_NOTE_IDS: [&str; 2] = ["history-truncated", "git-unreadable"];

/// The git disagreements among `findings` (passes and work-tree findings left out), in the order
/// given, one per id and task: when two checks report the same id for the same task (verify's
/// and finalize's), the more severe one is kept. Notes (what history could not tell) go to the
/// second list.
pub fn git_disagreements(findings: &[Finding]) -> (Vec<GitDisagreement>, Vec<GitDisagreement>) {
    let mut rows: Vec<GitDisagreement> = Vec::new();
    let mut notes: Vec<GitDisagreement> = Vec::new();
    // Where each (list, id, task — or message for a plan-level row) already is: a lookup
    // instead of a scan of the list per finding.
    let mut at: HashMap<(bool, String, Option<u64>, Option<String>), usize> = HashMap::new();
    for f in findings {
        if f.severity == Severity::Pass || NOT_A_GIT_DISAGREEMENT.contains(&f.id.as_str()) {
            continue;
        }
        let row = GitDisagreement {
            id: f.id.clone(),
            severity: f.severity,
            task: f.task,
            message: f.message.clone(),
            hint: f.hint.clone(),
        };
        let note = GIT_NOTE_IDS.contains(&f.id.as_str());
        let list = if note { &mut notes } else { &mut rows };
        let message = row.task.is_none().then(|| row.message.clone());
        match at.entry((note, row.id.clone(), row.task, message)) {
            Entry::Occupied(i) => {
                let r = &mut list[*i.get()];
                if row.severity > r.severity {
                    *r = row;
                }
            }
            Entry::Vacant(v) => {
                v.insert(list.len());
                list.push(row);
            }
        }
    }
    (rows, notes)
}

/// One file of a published plan compared with the hash the receipt recorded for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PublishedFile {
    /// The plan-relative name.
    pub path: String,
    /// `unchanged`, `modified`, `removed` (recorded, gone now) or `added` (recorded absent,
    /// present now).
    pub change: &'static str,
    /// The SHA-256 the receipt recorded (`None`: recorded absent).
    pub recorded: Option<String>,
    /// The SHA-256 of the file now (`None`: absent).
    pub current: Option<String>,
    /// Where the published bytes were found (`git <short id>`), when the line diff could be
    /// shown; `None` when only the hashes are compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published_from: Option<String>,
    /// The line diff from the published bytes to now, when git holds them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<FileDiff>,
}

/// `change` of a file whose recorded hash is `recorded` and current hash `current`.
pub fn published_change(recorded: Option<&str>, current: Option<&str>) -> &'static str {
    match (recorded, current) {
        (a, b) if a == b => "unchanged",
        (Some(_), None) => "removed",
        (None, Some(_)) => "added",
        _ => "modified",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dwp::layout;
    use serde_json::json;

    fn md(id: u64, checked: bool, title: &str) -> MarkdownTask {
        MarkdownTask {
            id,
            checked,
            title: title.into(),
            ..Default::default()
        }
    }

    #[test]
    fn disagreements_in_both_directions() {
        let state = json!({"completed_count": 1, "tasks": [
            {"id": 1, "title": "A", "status": "completed"},
            {"id": 2, "title": "B", "status": "pending"},
            {"id": 4, "title": "D", "status": "pending"}]});
        let tasks = [md(1, false, "A"), md(2, true, "B2"), md(3, false, "C")];
        let d = state_vs_markdown(&state, &tasks, Some((2, 3)));
        let got: Vec<(Option<u64>, &str, &str)> =
            d.iter().map(|d| (d.task, d.field, d.direction)).collect();
        assert_eq!(
            got,
            [
                (Some(1), "status", "state-ahead"),
                (Some(2), "status", "markdown-ahead"),
                (Some(2), "title", "mismatch"),
                (Some(3), "task", "markdown-ahead"),
                (Some(4), "task", "state-ahead"),
                (None, "plan-status", "markdown-ahead"),
                (None, "plan-status-count", "mismatch"),
            ]
        );
    }

    #[test]
    fn state_changes_cover_fields_gates_and_tasks() {
        let before = json!({"status": "in_progress", "blocked": null, "tasks": [
            {"id": 1, "status": "in_progress", "gates": [], "started_at": "t0"},
            {"id": 2, "status": "pending", "gates": []}]});
        let after = json!({"status": "in_progress", "tasks": [
            {"id": 1, "status": "completed", "gates": [{"command": "c", "last_run": "t1"}], "completed_at": "t1", "started_at": "t0"},
            {"id": 3, "status": "pending", "gates": []}]});
        let kinds: Vec<(&str, Option<u64>)> = state_changes(&before, &after)
            .iter()
            .map(|c| (c.kind, c.task))
            .collect();
        assert_eq!(
            kinds,
            [
                ("status-moved", Some(1)),
                ("gate-added", Some(1)),
                ("field-added", Some(1)),
                ("task-removed", Some(2)),
                ("task-added", Some(3)),
                ("field-removed", None),
            ]
        );
    }

    #[test]
    fn git_disagreements_keep_the_more_severe_of_one_id_and_task() {
        let findings = [
            Finding::advisory("commit-not-ancestor", "a").task(2),
            Finding::pass("task-commits", "ok"),
            Finding::fail("worktree-dirty", "dirty"),
            Finding::fail("commit-not-ancestor", "b").task(2),
            Finding::advisory("history-truncated", "shallow").task(3),
            Finding::advisory("commit-names-unknown-task", "c").task(4),
        ];
        let (rows, notes) = git_disagreements(&findings);
        let got: Vec<(&str, Severity, &str)> = rows
            .iter()
            .map(|r| (r.id.as_str(), r.severity, r.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("commit-not-ancestor", Severity::Fail, "b"),
                ("commit-names-unknown-task", Severity::Advisory, "c"),
            ]
        );
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].id, "history-truncated");
    }

    #[test]
    fn unified_diff_of_a_changed_file() {
        let d = file_diff(layout::README_FILE, Some(b"a\nb\nc\n"), Some(b"a\nB\nc\n"))
            .expect("differs");
        assert_eq!(d.change, "modified");
        assert_eq!(
            d.unified,
            "--- a/README.md\n+++ b/README.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
        assert!(file_diff("x", Some(b"same"), Some(b"same")).is_none());
        assert_eq!(
            file_diff("x", None, Some(b"n\n")).expect("added").change,
            "added"
        );
    }
}
