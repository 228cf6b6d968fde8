//! v1 and state-less ("legacy") plans: the helper's legacy path (`docs/verify.md`), plus
//! planseal's stricter checks there — the log Status line of completed tasks and the v1 state's
//! closed shape, which the helper's legacy path does not look at.

use super::current::{gate_checks, semantic_checks, standard_check, typed_task};
use super::shape::{self, Era};
use super::{CheckOptions, FindingExt, Out, md, utf8_check, version_parts};
use crate::dwp::layout;
use crate::dwp::model;
use crate::dwp::read::{FileRead, PlanFiles, is_task_file_name};
use serde_json::Value;
use std::collections::BTreeSet;

pub(super) fn check(
    files: &PlanFiles,
    state: Option<(super::StateBytes<'_>, &Value)>,
    opts: &CheckOptions,
    out: &mut Out,
) {
    // Required markdown.
    let Some(rf) = super::required_markdown(files, out) else {
        return;
    };
    let plan_status = rf.plan_status.clone();
    if rf.materializing {
        out.fail(
            "readme-materializing",
            "README still says Plan Status: materializing",
        )
        .file(layout::README_FILE)
        .hint("finish materializing the plan and write Plan Status: 0/N completed");
        return;
    }

    // Manifest (optional before 2.3.0) and era pairing.
    let manifest = match files.get(layout::MANIFEST_FILE) {
        FileRead::Bytes(b) => match shape::parse_strict(b) {
            Ok(v) => Some(v),
            Err(why) => {
                out.fail(
                    "manifest-unparseable",
                    format!("manifest.json does not parse: {why}"),
                )
                .file(layout::MANIFEST_FILE);
                return;
            }
        },
        _ => None,
    };
    if let Some(m) = &manifest {
        let url = m.get("schema").and_then(Value::as_str).unwrap_or("");
        match model::Era::from_manifest_url(url) {
            None => {
                out.fail(
                    "unsupported-schema",
                    format!(
                        "manifest.json schema {url:?} is not supported (supported: {})",
                        shape::MANIFEST_SCHEMAS.join(", ")
                    ),
                )
                .file(layout::MANIFEST_FILE)
                .hint("a newer DWP version wrote this plan: upgrade planseal");
                return;
            }
            Some(Era::V1) => {
                for e in shape::manifest_errors(m, Era::V1)
                    .into_iter()
                    .filter(|e| e.error)
                {
                    out.fail(
                        "manifest-shape-error",
                        format!("manifest.json {}: {}", e.path, e.problem),
                    )
                    .file(layout::MANIFEST_FILE)
                    .group(e.group_key());
                }
            }
            Some(other) if state.is_some() => {
                out.fail(
                    "era-mismatch",
                    format!("state.json is v1 but manifest.json is {}", other.label()),
                )
                .file(layout::MANIFEST_FILE)
                .hint(
                    "restore the manifest of the plan's generation, or migrate both files together",
                );
                return;
            }
            Some(_) => {}
        }
    }
    let declared = rf.standard.clone().or_else(|| {
        manifest
            .as_ref()?
            .get("spec_version")?
            .as_str()
            .map(str::to_string)
    });
    if manifest.is_none()
        && declared
            .as_deref()
            .and_then(version_parts)
            .is_some_and(|v| v >= (2, 3, 0))
    {
        out.advisory(
            "manifest-missing",
            "manifest.json is missing (expected from standard 2.3.0)",
        )
        .file(layout::MANIFEST_FILE)
        .hint("add the manifest the plan was created with");
    }
    let standard_major = standard_check(declared.as_deref(), out);
    if files.analysis_results_dir {
        out.pass("analysis-results-present", "analysis_results/ present");
    } else {
        out.fail("analysis-results-missing", "analysis_results/ is missing")
            .hint("create analysis_results/ (PLAN_ANALYSIS.md, gate logs, reviews)");
    }

    // Task files: numeric, unique, contiguous.
    let task_files: Vec<(u64, &str)> = files
        .listing
        .iter()
        .filter(|f| is_task_file_name(f))
        .filter_map(|f| Some((f.split_once('.')?.0.parse().ok()?, f.as_str())))
        .collect();
    let numbers: Vec<u64> = task_files.iter().map(|(n, _)| *n).collect();
    let n = task_files.len() as u64;
    let unique: BTreeSet<u64> = numbers.iter().copied().collect();
    if unique.len() as u64 != n || !unique.iter().copied().eq(1..=n) {
        out.fail(
            "task-ids-not-contiguous",
            format!("task files are not numbered 1..n once each (found {numbers:?})"),
        )
        .hint("number the task files 1.task_*.md … N.task_*.md, one per number");
    } else {
        out.pass("task-files", format!("{n} task file(s) numbered 1..{n}"));
    }

    // Lifecycle shape: a Final Review last, or the older three-task ending.
    let last = numbers.iter().copied().max().unwrap_or(0);
    let finals: Vec<&(u64, &str)> = task_files
        .iter()
        .filter(|(_, f)| f.contains(".task_final_review"))
        .collect();
    let old_ending = |num: u64, slug: &str| {
        task_files
            .iter()
            .any(|(k, f)| *k == num && f.contains(&format!(".task_{slug}")))
    };
    if let Some((num, file)) = finals.iter().find(|(num, _)| *num != last) {
        out.fail(
            "final-review-not-last",
            format!("the Final Review ({file}) is task {num}, not the last task {last}"),
        )
        .task(*num)
        .file(file.to_string())
        .hint("the Final Review closes the plan: make it the last task");
    } else if let Some((num, file)) = finals.first() {
        let body = super::stream::task_facts(files, file, md::Needs::ALL);
        let missing = &body.missing_final_terms;
        if missing.is_empty() {
            out.pass(
                "final-review",
                "the Final Review is last and names security, final-state and skills",
            );
        } else {
            out.fail(
                "final-review-not-final-task",
                format!(
                    "the Final Review {file} does not name {}",
                    missing.join(", ")
                ),
            )
            .task(*num)
            .file(file.to_string());
        }
    } else if last >= 3
        && old_ending(last - 2, "security_review")
        && old_ending(last - 1, "skills_agents_discovery")
        && old_ending(last, "executive_report")
    {
        out.pass("final-review", "the plan ends with the older security review / skills discovery / executive report tasks");
    } else if n > 0 {
        out.fail("final-review-not-final-task", "the last task file is not a Final Review (N.task_final_review.md)")
            .hint("end the plan with N.task_final_review.md covering security, final-state validation and skills");
    }

    // README index, links and Plan Status against the files.
    let index = &rf.index;
    let index_tasks: BTreeSet<u64> = index.iter().map(|e| e.task).collect();
    if index_tasks != unique {
        out.fail(
            "readme-task-list-mismatch",
            format!(
                "README task list names tasks {index_tasks:?} but the task files are {unique:?}"
            ),
        )
        .file(layout::README_FILE)
        .hint("one README checkbox line per task file");
    }
    let links: BTreeSet<&str> = index.iter().filter_map(|e| e.link.as_deref()).collect();
    let file_names: BTreeSet<&str> = task_files.iter().map(|(_, f)| *f).collect();
    if !links.is_empty() && links != file_names {
        out.fail(
            "readme-index-mismatch",
            "README task links and the task files differ",
        )
        .file(layout::README_FILE)
        .hint("link every task file from the README task list, and nothing else");
    }
    let checked = index.iter().filter(|e| e.checked).count() as u64;
    match plan_status {
        Some(Ok((done, total))) if done == checked && total == n => {
            out.pass("plan-status", format!("Plan Status {done}/{total} matches"));
        }
        Some(Ok((done, total))) => {
            out.fail("plan-status-count-mismatch", format!("README Plan Status says {done}/{total} but {checked} box(es) are ticked and there are {n} task file(s)"))
                .file(layout::README_FILE)
                .hint(format!("write `Plan Status: {checked}/{n} completed`"));
        }
        Some(Err(v)) => {
            out.fail(
                "plan-status-count-mismatch",
                format!("README Plan Status {v:?} is not X/N"),
            )
            .file(layout::README_FILE);
        }
        None => {
            out.fail(
                "plan-status-missing",
                "README has no `Plan Status: X/N completed` line",
            )
            .file(layout::README_FILE);
        }
    }

    // Task bodies.
    let completed_tasks: BTreeSet<u64> = match state {
        Some((_, s)) => s
            .get("tasks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|t| t.get("status").and_then(Value::as_str) == Some("completed"))
            .filter_map(|t| t.get("id").and_then(Value::as_u64))
            .collect(),
        None => index.iter().filter(|e| e.checked).map(|e| e.task).collect(),
    };
    for (num, file) in &task_files {
        let body = super::stream::task_facts(files, file, md::Needs::ALL);
        utf8_check(files, file, out);
        if !body.has_validation_heading {
            out.fail(
                "task-validation-missing",
                format!("task {num}: no Validation section"),
            )
            .task(*num)
            .file(file.to_string())
            .hint("add a `## Validation` section with the runnable commands");
        }
        let dangling: Vec<String> = body
            .read_before
            .iter()
            .filter(|r| !unique.contains(r))
            .map(|r| r.to_string())
            .collect();
        if !dangling.is_empty() {
            out.advisory(
                "read-before-unknown-task",
                format!(
                    "task {num}: Read Before Starting names task(s) {} that do not exist",
                    dangling.join(", ")
                ),
            )
            .task(*num)
            .file(file.to_string());
        }
        if !body.field_non_empty("Touched Surface") && !file.contains("final_review") {
            out.advisory(
                "touched-surface-missing",
                format!("task {num}: no Touched Surface section"),
            )
            .task(*num)
            .file(file.to_string());
        }
        // planseal, stricter than the helper's legacy path, which does not read this line.
        if completed_tasks.contains(num) && body.log_status.as_deref() == Some("pending") {
            out.fail("task-log-still-pending", format!("task {num} is completed but its Completion & Log still says Status: pending (planseal checks this on v1 plans too)"))
                .task(*num)
                .file(file.to_string())
                .hint("fill in the Completion & Log or reopen the task");
        }
    }
    if !files.get(layout::SKILLS_CANDIDATES_FILE).exists() {
        out.advisory(
            "skills-candidates-missing",
            "analysis_results/SKILLS_CANDIDATES.md is missing",
        )
        .file(layout::SKILLS_CANDIDATES_FILE);
    }

    // The v1 state's cross-checks.
    let plan_completed = match state {
        Some((bytes, s)) => {
            state_cross_checks(files, s, index, &task_files, out);
            let completed = s.get("status").and_then(Value::as_str) == Some("completed");
            if completed {
                super::security_review_check(files, out);
                super::receipt_check(
                    files,
                    bytes,
                    &model::State::from_value(s),
                    standard_major,
                    opts,
                    out,
                );
            }
            completed
        }
        None => {
            // Without git, state.json replaces the git log: the state layer is required.
            if !files.in_git_work_tree {
                out.fail(
                    "state-layer-required",
                    "the plan has no state.json and does not live in a git work tree: without git the state layer is required",
                )
                .file(layout::STATE_FILE)
                .hint(format!("create state.json for the plan (`planseal rebuild {} --write`), or keep the plan in a git repository", files.display));
            }
            let completed = !index.is_empty() && index.iter().all(|e| e.checked);
            if completed {
                super::security_review_check(files, out);
                if !files.get(layout::RECEIPT_FILE).exists() {
                    out.advisory("receipt-missing", "completed plan has no publication receipt (analysis_results/FINALIZATION.json)")
                        .file(layout::RECEIPT_FILE);
                }
            }
            completed
        }
    };
    let _ = plan_completed;
}

fn state_cross_checks(
    files: &PlanFiles,
    state: &Value,
    index: &[md::IndexEntry],
    task_files: &[(u64, &str)],
    out: &mut Out,
) {
    let mark = out.mark();
    for e in shape::state_errors(state, Era::V1)
        .into_iter()
        .filter(|e| e.error)
    {
        let f = out
            .fail("state-shape-error", format!("state.json {}: {}", e.path, e.problem))
            .file(layout::STATE_FILE)
            .group(e.group_key())
            .hint("v1 states have a closed shape (no approval, materialization or locator fields); migrate explicitly to v5 to use them");
        if let Some(t) = e.task() {
            f.task(t);
        }
    }
    let splan = state.get("plan").and_then(Value::as_str).unwrap_or("");
    if splan != files.name {
        out.fail(
            "plan-identity-mismatch",
            format!(
                "state.plan {splan:?} differs from the folder {}",
                files.name
            ),
        )
        .file(layout::STATE_FILE);
    }
    let Some(tasks) = state.get("tasks").and_then(Value::as_array) else {
        return;
    };
    let checked = index.iter().filter(|e| e.checked).count() as u64;
    let completed_count = state.get("completed_count").and_then(Value::as_u64);
    if completed_count != Some(checked) {
        out.fail(
            "completed-count-desync",
            format!(
                "README ticks {checked} task(s) but state.json completed_count is {}",
                completed_count.map_or("missing".into(), |c| c.to_string())
            ),
        )
        .file(layout::STATE_FILE)
        .hint(format!(
            "the markdown wins: run `planseal rebuild {}` to see how the state should read",
            files.display
        ));
    }
    let task_count = state.get("task_count").and_then(Value::as_u64);
    if task_count != Some(task_files.len() as u64) {
        out.fail(
            "task-count-mismatch",
            format!(
                "state.json task_count is {} but there are {} task file(s)",
                task_count.map_or("missing".into(), |c| c.to_string()),
                task_files.len()
            ),
        )
        .file(layout::STATE_FILE);
    }
    let entries: BTreeSet<&str> = tasks
        .iter()
        .filter_map(|t| t.get("file").and_then(Value::as_str))
        .collect();
    let on_disk: BTreeSet<&str> = task_files.iter().map(|(_, f)| *f).collect();
    if entries != on_disk || entries.len() != tasks.len() {
        out.fail(
            "legacy-task-entries-mismatch",
            "state.json task `file` entries and the task files on disk are not one-to-one",
        )
        .file(layout::STATE_FILE)
        .hint("one state entry per task file, naming it in `file`");
    }
    let typed = model::State::from_value(state);
    let mut index_by_task: std::collections::HashMap<u64, &md::IndexEntry> = Default::default();
    for e in index {
        index_by_task.entry(e.task).or_insert(e);
    }
    let ids: Vec<Option<u64>> = tasks
        .iter()
        .map(|t| t.get("id").and_then(Value::as_u64))
        .collect();
    for (i, t) in tasks.iter().enumerate() {
        let id = ids[i].unwrap_or(i as u64 + 1);
        let completed = t.get("status").and_then(Value::as_str) == Some("completed");
        if let Some(e) = index_by_task.get(&id)
            && e.checked != completed
        {
            out.fail(
                "readme-checkbox-disagrees",
                if e.checked {
                    format!("README ticks task {id} but state.json does not say completed")
                } else {
                    format!("state.json says task {id} is completed but its README checkbox is empty")
                },
            )
            .task(id)
            .file(layout::README_FILE)
            .hint(format!("the markdown wins: finish the task's close-out (or untick it), then run `planseal rebuild {}`", files.display));
        }
        gate_checks(files, typed_task(&typed, t, i).as_ref(), id, out);
    }
    semantic_checks(&typed, out);
    if !out.failures_since(mark) {
        out.pass(
            "legacy-state",
            "v1 state.json agrees with the README and the task files",
        );
    }
}
