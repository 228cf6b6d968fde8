//! Current-era plans (state v2/v5): checks 2–18 of `docs/verify.md`, in that order.

use super::shape::{self, Era};
use super::state_doc::{StateDoc, TaskJson};
use super::{CheckOptions, FindingExt, Out, md, seed, utf8_check, version_parts};
use crate::dwp::layout;
use crate::dwp::model;
use crate::dwp::read::{FileRead, PlanFiles, is_task_file_name};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// The newest DWP standard planseal knows.
pub(crate) const NEWEST_STANDARD: (u64, u64, u64) = (5, 0, 0);

pub(super) fn check(
    files: &PlanFiles,
    state_bytes: super::StateBytes<'_>,
    doc: &StateDoc,
    era: Era,
    opts: &CheckOptions,
    out: &mut Out,
) {
    // 2. The manifest parses and names a known schema.
    let manifest = match files.get(layout::MANIFEST_FILE) {
        FileRead::Bytes(b) => match shape::parse_strict(b) {
            Ok(v) => v,
            Err(why) => {
                out.fail(
                    "manifest-unparseable",
                    format!("manifest.json does not parse: {why}"),
                )
                .file(layout::MANIFEST_FILE)
                .hint("repair the JSON; the manifest is written once at plan creation");
                return;
            }
        },
        _ => {
            out.fail(
                "manifest-missing",
                "manifest.json is missing (required for v2/v5 plans)",
            )
            .file(layout::MANIFEST_FILE)
            .hint(format!(
                "restore manifest.json as it was created: `planseal rebuild {} --manifest` (from git)",
                files.display
            ));
            return;
        }
    };
    let murl = manifest.get("schema").and_then(Value::as_str).unwrap_or("");
    let Some(manifest_era) = model::Era::from_manifest_url(murl) else {
        out.fail(
            "unsupported-schema",
            format!(
                "manifest.json schema {} is not supported (supported: {})",
                if murl.is_empty() {
                    "(missing)".to_string()
                } else {
                    format!("\"{murl}\"")
                },
                shape::MANIFEST_SCHEMAS.join(", ")
            ),
        )
        .file(layout::MANIFEST_FILE)
        .hint("a newer DWP version wrote this plan: upgrade planseal");
        return;
    };
    out.pass(
        "state-parses",
        format!("state.json and manifest.json parse (state {})", era.label()),
    );

    // 3. Era pairing, then the closed shapes of both files.
    if manifest_era != era {
        out.fail(
            "era-mismatch",
            format!(
                "state.json is {} but manifest.json is {}: a {} state needs a {} manifest",
                era.label(),
                manifest_era.label(),
                era.label(),
                era.label()
            ),
        )
        .file(layout::MANIFEST_FILE)
        .hint("restore the manifest of the plan's generation, or migrate both files together");
        return;
    }
    let mark = out.mark();
    use std::borrow::Cow;
    let (state, state_errors, task_views, typed) = match doc {
        StateDoc::Whole(v) => {
            let errors = shape::state_errors(v, era);
            let tasks: Option<Vec<TaskJson>> = v
                .get("tasks")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(TaskJson::of).collect());
            let typed = model::State::from_value(v);
            (
                v,
                Cow::Owned(errors),
                tasks.map(Cow::Owned),
                Cow::Owned(typed),
            )
        }
        StateDoc::ByTask(read) => (
            &read.top,
            Cow::Borrowed(read.shape_errors.as_slice()),
            Some(Cow::Borrowed(read.tasks.as_slice())),
            Cow::Borrowed(&read.typed),
        ),
    };
    for e in state_errors.iter() {
        if !e.error {
            out.advisory(
                "timestamp-not-iso8601",
                format!("state.json {}: {}", e.path, e.problem),
            )
            .file(layout::STATE_FILE)
            .group(e.group_key())
            .hint("write timestamps as ISO-8601, e.g. 2026-10-05T09:00:00+00:00");
            continue;
        }
        let f = out
            .fail("state-shape-error", format!("state.json {}: {}", e.path, e.problem))
            .file(layout::STATE_FILE)
            .group(e.group_key())
            .hint(format!("fix the field in state.json as the message says, or rebuild the state with `planseal rebuild {} --write`", files.display));
        if let Some(t) = e.task() {
            f.task(t);
        }
    }
    let manifest_errors = shape::manifest_errors(&manifest, era);
    for e in manifest_errors.iter().filter(|e| e.error) {
        out.fail(
            "manifest-shape-error",
            format!("manifest.json {}: {}", e.path, e.problem),
        )
        .file(layout::MANIFEST_FILE)
        .group(e.group_key())
        .hint("fix the field in manifest.json as the message says");
    }
    let Some(tasks) = task_views.as_deref() else {
        return;
    };
    if !state_errors.iter().chain(&manifest_errors).any(|e| e.error) {
        out.pass(
            "state-shape",
            "state.json and manifest.json have the closed schema shape",
        );
    }

    // 4. Approval value.
    let approval_value = state.get("approval");
    let approval = match approval_value {
        Some(Value::String(s)) if ["pending", "approved", "pre_approved"].contains(&s.as_str()) => {
            Some(s.clone())
        }
        None | Some(Value::Null) => None,
        Some(other) => {
            out.fail(
                "unknown-approval",
                format!("state.json approval {other} is not pending, approved or pre_approved"),
            )
            .file(layout::STATE_FILE)
            .hint("set approval to pending, approved or pre_approved");
            None
        }
    };
    if out.failures_since_excluding_shape(mark) {
        return;
    }

    // 5. Materialization and promotion; README present.
    let materialization = state
        .get("materialization")
        .and_then(Value::as_str)
        .unwrap_or("");
    let promotion = state.get("promotion").filter(|p| !p.is_null());
    if materialization != "ready" || promotion.is_some() {
        // An interrupted promotion says how far it got: `planseal promote` resumes from there.
        let phase = promotion
            .and_then(|p| p.get("phase"))
            .and_then(Value::as_str);
        out.fail(
            "not-ready",
            format!(
                "plan is not ready (materialization: {materialization}{}) — checks resume when it is",
                match (promotion, phase) {
                    (Some(_), Some(phase)) => format!(", promotion in flight at phase {phase}"),
                    (Some(_), None) => ", promotion in flight".to_string(),
                    (None, _) => String::new(),
                }
            ),
        )
        .file(layout::STATE_FILE)
        .hint(if promotion.is_some() {
            "an interrupted Lite → Full promotion: `planseal promote PLAN_DIR` resumes it from the recorded phase (docs/promote.md)"
        } else {
            "finish materializing or promoting the plan first"
        });
        return;
    }
    // 5. README (stops the plan when missing); 6. the other plan artifacts.
    let Some(rf) = super::required_markdown(files, out) else {
        return;
    };
    if files.analysis_results_dir {
        out.pass("analysis-results-present", "analysis_results/ present");
    } else {
        out.fail("analysis-results-missing", "analysis_results/ is missing")
            .hint("create analysis_results/ (PLAN_ANALYSIS.md, gate logs, reviews)");
    }

    // 7. Standard.
    let declared = rf.standard.clone().or_else(|| {
        manifest
            .get("spec_version")
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let standard_major = standard_check(declared.as_deref(), out);

    // 8. Still materializing?
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

    // 9. Identity.
    let splan = state.get("plan").and_then(Value::as_str).unwrap_or("");
    let mname = manifest.get("name").and_then(Value::as_str).unwrap_or("");
    if splan == files.name && mname == files.name {
        out.pass(
            "plan-identity",
            format!("plan identity matches the folder ({})", files.name),
        );
    } else {
        out.fail(
            "plan-identity-mismatch",
            format!("plan identity differs from the folder {}: state.plan = {splan:?}, manifest.name = {mname:?}", files.name),
        )
        .file(if splan != files.name { layout::STATE_FILE } else { layout::MANIFEST_FILE })
        .hint("the folder name is the plan's identity; make state.plan and manifest.name equal to it");
    }

    // 10. Goal and Context.
    let mut goal_ok = true;
    for (name, written) in [("Goal", rf.goal_written), ("Context", rf.context_written)] {
        if !written {
            goal_ok = false;
            out.fail(
                &format!("readme-{}-empty", name.to_ascii_lowercase()),
                format!("README has no non-empty ## {name} section"),
            )
            .file(layout::README_FILE)
            .hint(format!(
                "write the plan's {name} under a `## {name}` heading"
            ));
        }
    }
    if goal_ok {
        out.pass("readme-goal-context", "README Goal and Context are written");
    }

    // 11. Task ids and counts (with the other derived-field rules, reported at item 15).
    let ids: Vec<Option<u64>> = tasks.iter().map(|t| t.id).collect();
    if tasks.len() < 2 {
        out.fail(
            "too-few-tasks",
            "a plan needs at least two tasks (the work and the Final Review)",
        )
        .file(layout::STATE_FILE)
        .hint("end every plan with a Final Review task");
    }

    // 12. README index against the state.
    fn status_of(t: &TaskJson) -> &str {
        &t.status
    }
    let index = &rf.index;
    let mut by_task: HashMap<u64, &md::IndexEntry> = HashMap::new();
    for e in index {
        by_task.entry(e.task).or_insert(e);
    }
    let mut index_ok = true;
    for (i, t) in tasks.iter().enumerate() {
        let id = ids[i].unwrap_or(i as u64 + 1);
        let completed = status_of(t) == "completed";
        match by_task.get(&id) {
            None => {
                index_ok = false;
                out.fail(
                    "readme-index-mismatch",
                    format!("README task index has no checkbox line for task {id}"),
                )
                .task(id)
                .file(layout::README_FILE)
                .hint(format!("add `- [ ] Task {id}: …` to the README task list"));
            }
            Some(e) if e.checked != completed => {
                index_ok = false;
                let msg = if e.checked {
                    format!(
                        "README ticks task {id} but state.json says {}",
                        status_of(t)
                    )
                } else {
                    format!(
                        "state.json says task {id} is completed but its README checkbox is empty"
                    )
                };
                out.fail("readme-checkbox-disagrees", msg)
                    .task(id)
                    .file(layout::README_FILE)
                    .hint(format!("the markdown wins: finish the task's close-out (or untick it), then run `planseal rebuild {}` to see how the state should read", files.display));
            }
            Some(_) => {}
        }
    }
    let known: BTreeSet<u64> = ids.iter().flatten().copied().collect();
    let extra: Vec<String> = by_task
        .keys()
        .filter(|k| !known.contains(k))
        .map(|k| k.to_string())
        .collect();
    if !extra.is_empty() {
        index_ok = false;
        out.fail(
            "readme-index-mismatch",
            format!(
                "README task index lists task(s) {} that state.json does not have",
                extra.join(", ")
            ),
        )
        .file(layout::README_FILE)
        .hint("the README task list and state.json must list the same tasks");
    }
    if index_ok {
        out.pass(
            "readme-index",
            "README task index agrees with state.json task by task",
        );
    }
    for (line, task, checked) in &rf.contradicting_elsewhere {
        out.advisory(
            "readme-checkbox-elsewhere-contradicts",
            format!(
                "README line {line} {} task {task} outside the task list, contradicting the index",
                if *checked { "ticks" } else { "leaves unticked" }
            ),
        )
        .task(*task)
        .file(layout::README_FILE)
        .line(*line)
        .hint("only the Task List section is the index; reword or fix the stray checkbox");
    }
    let checked = index.iter().filter(|e| e.checked).count() as u64;
    match plan_status {
        Some(Ok((done, total))) if done == checked && total == index.len() as u64 => {
            out.pass(
                "plan-status",
                format!("Plan Status {done}/{total} matches the checkboxes"),
            );
        }
        Some(Ok((done, total))) => {
            out.fail(
                "plan-status-count-mismatch",
                format!("README Plan Status says {done}/{total} but {checked} of {} checkboxes are ticked", index.len()),
            )
            .file(layout::README_FILE)
            .hint(format!("write `Plan Status: {checked}/{} completed`", index.len()));
        }
        Some(Err(v)) => {
            out.fail(
                "plan-status-count-mismatch",
                format!("README Plan Status {v:?} is not X/N"),
            )
            .file(layout::README_FILE)
            .hint(format!(
                "write `Plan Status: {checked}/{} completed`",
                index.len()
            ));
        }
        None => {
            out.fail(
                "plan-status-missing",
                "README has no `Plan Status: X/N completed` line",
            )
            .file(layout::README_FILE)
            .hint(format!(
                "add `Plan Status: {checked}/{} completed`",
                index.len()
            ));
        }
    }

    // 13. Task records.
    let format = state.get("format").and_then(Value::as_str).unwrap_or("");
    let bodies = if format == "lite" {
        lite_records(files, &rf, tasks, &ids, out);
        rf.records
            .iter()
            .map(|r| {
                (
                    r.anchor,
                    (std::borrow::Cow::Borrowed(&r.body), layout::README_FILE),
                )
            })
            .collect()
    } else {
        full_records(files, &rf, tasks, &ids, out)
    };

    // 14. Gates.
    let mark = out.mark();
    for (i, task) in typed.tasks.iter().enumerate().take(tasks.len()) {
        let id = ids[i].unwrap_or(i as u64 + 1);
        gate_checks(files, task, id, out);
    }
    if !out.failures_since(mark) {
        out.pass("gates", "gate records support every completed task");
    }

    // 15. Ids, counts, status, blocker, checkpoint, promotion and locators.
    semantic_checks(&typed, out);

    // 16. A completed plan: security review and receipt.
    if state.get("status").and_then(Value::as_str) == Some("completed") {
        super::security_review_check(files, out);
        super::receipt_check(files, state_bytes, &typed, standard_major, opts, out);
    }

    // 17. Approval.
    let effective = approval.or_else(|| rf.approval.map(str::to_string));
    match effective.as_deref() {
        Some("approved") | Some("pre_approved") => {
            out.pass("approval", "plan is approved");
        }
        _ => {
            out.advisory(
                "approval-pending",
                if approval_value.is_none() && rf.approval.is_none() {
                    "valid proposal awaiting approval (no approval in state.json nor an Approval line in the README: a v2/v5 plan is pending until something approves it)"
                } else {
                    "valid proposal awaiting approval"
                },
            )
            .hint("approve the plan before executing it");
        }
    }

    // 18. planseal's own checks of the DWP method's rules.
    extra_checks(&manifest, tasks, &ids, out);
    let views: Vec<seed::TaskView<'_>> = tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let id = ids[i].unwrap_or(i as u64 + 1);
            let body = bodies.get(&id);
            seed::TaskView {
                id,
                status: &t.status,
                has_commit: t.has_commit,
                body: body.map(|(b, _)| b.as_ref()),
                file: body.map_or_else(|| layout::STATE_FILE.to_string(), |(_, f)| f.to_string()),
            }
        })
        .collect();
    let progress = files.text(layout::PROGRESS_FILE);
    seed::check(&views, progress.as_deref(), files.in_git_work_tree, out);
}

impl Out {
    /// Failures after `mark` that are not gate-record shape errors.
    pub(crate) fn failures_since_excluding_shape(&self, mark: usize) -> bool {
        self.findings[mark..].iter().any(|f| {
            f.severity == crate::report::Severity::Fail
                && !(f.id == "state-shape-error" && f.message.contains(".gates["))
        })
    }
}

/// Item 7; returns the declared major version.
pub(crate) fn standard_check(declared: Option<&str>, out: &mut Out) -> Option<u64> {
    let Some(v) = declared else {
        out.advisory(
            "standard-undeclared",
            "no DWP standard declared (README **Standard:** line or manifest spec_version)",
        )
        .file(layout::README_FILE)
        .hint("add `**Standard:** DWP spec 5.0.0` to the README's Plan Variables");
        return None;
    };
    match version_parts(v) {
        None => {
            out.fail(
                "standard-unknown",
                format!("declared standard {v:?} is not a version"),
            )
            .file(layout::README_FILE)
            .hint("write the standard as `DWP spec X.Y.Z`");
            None
        }
        Some(p) if p > NEWEST_STANDARD => {
            out.fail(
                "standard-newer-than-supported",
                format!("declared standard {v} is newer than 5.0.0, the newest planseal knows"),
            )
            .file(layout::README_FILE)
            .hint("upgrade planseal");
            Some(p.0)
        }
        Some((major, ..)) if major == 2 || major == 4 => {
            out.pass("standard", format!("standard {v} (historical, accepted)"));
            Some(major)
        }
        Some((5, ..)) => {
            out.pass("standard", format!("standard {v}"));
            Some(5)
        }
        Some((major, ..)) => {
            out.fail(
                "standard-unknown",
                format!("declared standard {v} is not of the 2.x, 4.x or 5.x series"),
            )
            .file(layout::README_FILE)
            .hint("declare the DWP standard the plan follows (2.x, 4.x or 5.x)");
            Some(major)
        }
    }
}

const TASK_FIELDS: [&str; 4] = [
    "Goal",
    "Touched Surface",
    "Acceptance Criteria",
    "Validation",
];

/// Field, log-status and close-out checks of one task body (file or inline record).
fn body_checks(body: &md::TaskFacts, id: u64, status: &str, file: &str, out: &mut Out) {
    let mut missing: Vec<&str> = TASK_FIELDS
        .into_iter()
        .filter(|f| !body.field_non_empty(f))
        .collect();
    if status != "completed" && !body.field_non_empty("Context") {
        missing.push("Context");
    }
    if !missing.is_empty() {
        out.fail(
            "task-field-empty",
            format!("task {id}: {} missing or empty", missing.join(", ")),
        )
        .task(id)
        .file(file.to_string())
        .group(format!("task-field-empty {}", missing.join(",")))
        .hint("write each section under its heading (e.g. `## Goal`) or bold label");
    }
    if status == "completed" && body.log_status.as_deref() == Some("pending") {
        out.fail("task-log-still-pending", format!("task {id} is completed but its Completion & Log still says Status: pending"))
            .task(id)
            .file(file.to_string())
            .hint("fill in the Completion & Log (Status: completed, summary, gate record) or reopen the task");
    }
}

/// Item 13 for a Full plan; returns each readable task file's facts by task id.
fn full_records<'a>(
    files: &'a PlanFiles,
    rf: &md::ReadmeFacts,
    tasks: &'a [TaskJson],
    ids: &[Option<u64>],
    out: &mut Out,
) -> HashMap<u64, (std::borrow::Cow<'a, md::TaskFacts>, &'a str)> {
    let mut bodies = HashMap::with_capacity(tasks.len());
    let mark = out.mark();
    let mut inventory: BTreeSet<String> = BTreeSet::new();
    // Every task file the README links, from the index lines or anywhere else.
    let linked: std::collections::HashSet<&str> =
        rf.index.iter().filter_map(|e| e.link.as_deref()).collect();
    // Links outside the index lines, read only if some task file is not linked there.
    let mut linked_elsewhere: Option<Vec<String>> = None;
    let n = tasks.len();
    for (i, t) in tasks.iter().enumerate() {
        let id = ids[i].unwrap_or(i as u64 + 1);
        let status = t.status.as_str();
        let kind = t.locator_kind.as_str();
        let Some(value) = t.locator_value.as_deref() else {
            continue;
        };
        if kind != "file" {
            out.fail("locator-format-mismatch", format!("task {id}: locator kind {kind:?} in a Full plan (expected \"file\")"))
                .task(id)
                .file(layout::STATE_FILE)
                .hint("Full plans locate each task by its file: {\"kind\": \"file\", \"value\": \"N.task_slug.md\"}");
            continue;
        }
        inventory.insert(value.to_string());
        match files.get(value) {
            FileRead::Missing => {
                out.fail(
                    "task-file-missing",
                    format!("task {id}: task file {value} is missing"),
                )
                .task(id)
                .file(value.to_string())
                .hint("restore the task file (the markdown is the source of truth)");
                continue;
            }
            FileRead::Bytes(_) => {}
            // Outside the plan: reported once for the file; unreadable never gets here.
            _ => continue,
        }
        utf8_check(files, value, out);
        let needs = md::Needs {
            context: status != "completed",
            legacy: false,
        };
        let body = super::stream::task_facts(files, value, needs);
        body_checks(&body, id, status, value, out);
        let body = &bodies.entry(id).or_insert((body, value)).0;
        let is_final = value.contains("task_final_review");
        if is_final && i + 1 != n {
            out.fail(
                "final-review-not-last",
                format!("the Final Review ({value}) is task {id}, not the last task {n}"),
            )
            .task(id)
            .file(value.to_string())
            .hint("the Final Review closes the plan: make it the last task");
        }
        if i + 1 == n {
            let missing = &body.missing_final_terms;
            if !is_final || !missing.is_empty() {
                out.fail(
                    "final-review-not-final-task",
                    if is_final {
                        format!("the Final Review {value} does not name {}", missing.join(", "))
                    } else {
                        format!("the last task {value} is not a Final Review (<N>.task_final_review.md naming security, final-state and skills)")
                    },
                )
                .task(id)
                .file(value.to_string())
                .hint("end the plan with N.task_final_review.md covering the security pass, final-state validation and skills reconciliation");
            }
        }
        if !linked.contains(value)
            && !linked_elsewhere
                .get_or_insert_with(|| {
                    md::linked_task_files(&files.text(layout::README_FILE).unwrap_or_default())
                })
                .iter()
                .any(|l| l == value)
        {
            out.fail(
                "readme-task-link-missing",
                format!("README does not link task {id}'s file {value}"),
            )
            .task(id)
            .file(layout::README_FILE)
            .hint(format!(
                "link it from the task list: `- [ ] Task {id}: … — [{value}]({value})`"
            ));
        }
    }
    let on_disk: BTreeSet<String> = files
        .listing
        .iter()
        .filter(|f| is_task_file_name(f))
        .cloned()
        .collect();
    if on_disk != inventory {
        let extra: Vec<_> = on_disk.difference(&inventory).cloned().collect();
        let missing: Vec<_> = inventory.difference(&on_disk).cloned().collect();
        let mut parts = Vec::new();
        if !missing.is_empty() {
            parts.push(format!("missing on disk: {}", missing.join(", ")));
        }
        if !extra.is_empty() {
            parts.push(format!("not in state.json: {}", extra.join(", ")));
        }
        out.fail(
            "task-files-inventory-mismatch",
            format!(
                "task files on disk differ from the state's tasks ({})",
                parts.join("; ")
            ),
        )
        .hint("every N.task_*.md file is one task of state.json and the other way round");
    }
    if !out.failures_since(mark) {
        out.pass(
            "task-records",
            format!("{n} task file(s) present, complete and linked; Final Review last"),
        );
    }
    bodies
}

fn lite_records(
    files: &PlanFiles,
    rf: &md::ReadmeFacts,
    tasks: &[TaskJson],
    ids: &[Option<u64>],
    out: &mut Out,
) {
    let mark = out.mark();
    let records = &rf.records;
    let mut by_anchor: HashMap<u64, &md::LiteRecord> = HashMap::new();
    for r in records {
        by_anchor.entry(r.anchor).or_insert(r);
    }
    for (i, t) in tasks.iter().enumerate() {
        let id = ids[i].unwrap_or(i as u64 + 1);
        let status = t.status.as_str();
        let kind = t.locator_kind.as_str();
        if kind != "inline" {
            out.fail("locator-format-mismatch", format!("task {id}: locator kind {kind:?} in a Lite plan (expected \"inline\")"))
                .task(id)
                .file(layout::STATE_FILE)
                .hint("Lite plans locate each task by its README anchor: {\"kind\": \"inline\", \"value\": \"#task-N\"}");
        }
        let anchors = rf.anchor_count(id);
        let record = by_anchor.get(&id).copied();
        match (anchors, record) {
            (1, Some(r)) if r.task == id => {
                body_checks(&r.body, id, status, layout::README_FILE, out);
            }
            _ => {
                out.fail(
                    "lite-anchor-invalid",
                    format!("task {id}: the README needs exactly one `## Task {id}: … {{#task-{id}}}` record (found {anchors} anchor(s))"),
                )
                .task(id)
                .file(layout::README_FILE)
                .hint(format!("write the inline record `## Task {id}: Title {{#task-{id}}}` with its fields"));
            }
        }
    }
    let state_ids: BTreeSet<u64> = ids.iter().flatten().copied().collect();
    let record_ids: BTreeSet<u64> = records.iter().map(|r| r.anchor).collect();
    if state_ids != record_ids {
        out.fail(
            "lite-records-inventory-mismatch",
            format!(
                "README inline records {:?} differ from the state's tasks {:?}",
                record_ids, state_ids
            ),
        )
        .file(layout::README_FILE)
        .hint("one `{#task-N}` record per task of state.json");
    }
    if let Some(last) = records.last() {
        let is_final = last.title.to_lowercase().contains("final review");
        if !is_final {
            out.fail(
                "lite-final-review-not-last",
                format!(
                    "the last inline record (Task {}: {}) is not the Final Review",
                    last.task, last.title
                ),
            )
            .file(layout::README_FILE)
            .hint("the Final Review is the last task record of the plan");
        } else {
            let missing = &last.body.missing_final_terms;
            if !missing.is_empty() {
                out.fail("final-review-not-final-task", format!("the Final Review record does not name {}", missing.join(", ")))
                    .task(last.task)
                    .file(layout::README_FILE)
                    .hint("the Final Review covers the security pass, final-state validation and skills reconciliation");
            }
        }
    }
    let task_files: Vec<&String> = files
        .listing
        .iter()
        .filter(|f| is_task_file_name(f))
        .collect();
    if !task_files.is_empty() {
        out.fail(
            "lite-plan-has-task-files",
            format!(
                "a Lite plan keeps its tasks inline, but the folder holds {}",
                task_files
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .hint("remove the task files, or record a promotion to Full");
    }
    if !out.failures_since(mark) {
        out.pass(
            "task-records",
            format!(
                "{} inline task record(s) complete; Final Review last",
                tasks.len()
            ),
        );
    }
}

/// The typed view of task `i` (built once with the state), or built now when the lists differ.
pub(crate) fn typed_task<'a>(
    typed: &'a model::State,
    t: &Value,
    i: usize,
) -> std::borrow::Cow<'a, model::Task> {
    match typed.tasks.get(i).filter(|x| x.index == i) {
        Some(task) => std::borrow::Cow::Borrowed(task),
        None => std::borrow::Cow::Owned(model::Task::from_value(i, t)),
    }
}

/// Item 14 for one task (also used by the legacy path): the gate evidence rules from
/// `dwp::gates`, plus what a completed task needs on read: a latest passing record with exit
/// code 0 and evidence (`completed_at` is one of the state semantics of item 15).
pub(crate) fn gate_checks(files: &PlanFiles, task: &model::Task, id: u64, out: &mut Out) {
    for mut f in crate::dwp::check::gates::task_gate_findings_in(task, files.plan_dir()) {
        f.file.get_or_insert_with(|| layout::STATE_FILE.to_string());
        out.findings.push(f);
    }
    if !task.is_completed() {
        return;
    }
    for g in crate::dwp::check::gates::latest_per_command(&task.gates) {
        let empty = |s: &Option<String>| s.as_deref().is_none_or(|x| x.trim().is_empty());
        if g.passes == Some(true)
            && (g.exit_code != Some(0) || empty(&g.evidence) || empty(&g.command))
        {
            out.fail(
                "completion-gates-unsuccessful",
                format!(
                    "task {id} is completed but the latest record of `{}` lacks exit code 0 or evidence",
                    g.command.as_deref().unwrap_or("")
                ),
            )
            .task(id)
            .file(layout::STATE_FILE)
            .hint("record the gate with exit code 0 and a one-line evidence summary");
        }
    }
}

/// Item 15 (and the id/count part of item 11): the state rules of `dwp::semantics`, judged
/// strictly as verify does. The approval value was reported at item 4.
pub(crate) fn semantic_checks(state: &model::State, out: &mut Out) {
    let mark = out.mark();
    for mut f in crate::dwp::check::semantics::check_state(
        state,
        crate::dwp::check::semantics::CheckMode::Strict,
    ) {
        if f.id == "unknown-approval" {
            continue;
        }
        f.file.get_or_insert_with(|| layout::STATE_FILE.to_string());
        out.findings.push(f);
    }
    if !out.failures_since(mark) {
        out.pass(
            "state-coherent",
            format!(
                "task ids 1..{n}, counts, status, blocker and checkpoint agree",
                n = state.tasks.len()
            ),
        );
    }
}

fn extra_checks(manifest: &Value, tasks: &[TaskJson], ids: &[Option<u64>], out: &mut Out) {
    for (i, t) in tasks.iter().enumerate() {
        let id = ids[i].unwrap_or(i as u64 + 1);
        if t.status == "completed" && t.outcome_missing {
            out.advisory(
                "outcome-missing",
                format!(
                    "task {id} is completed without an outcome record (what was tried, what worked)"
                ),
            )
            .task(id)
            .file(layout::STATE_FILE)
            .hint("record --worked/--notes when completing a task");
        }
    }
    for f in crate::dwp::check::semantics::check_manifest(&model::Manifest::from_value(manifest)) {
        out.findings.push(f);
    }
}
