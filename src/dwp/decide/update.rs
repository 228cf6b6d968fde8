//! The guarded update of one task (`docs/update.md`): the transition logic, pure over the parsed
//! `state.json` value, which is edited in place so that key order survives.
//!
//! [`check_arguments`] runs the argument checks that need no file (check 1), [`plan_transition`]
//! runs checks 2–17 on the bytes read and returns the candidate (or the [`Refusal`] of the first
//! check that failed). Writing is the caller's: a plain candidate goes through the store's
//! guarded commit, a candidate that completes the plan through the finalization transaction
//! (check 18).
//!
//! Timestamps come from a [`Clock`], taken in the helper's order: `blocked.since` (only for a
//! block), the step stamp, one per `--gate`, `checkpoint.at`.
//!
//! ```
//! use planseal::clock::Clock;
//! use planseal::dwp::model::TaskStatus;
//! use planseal::dwp::decide::update::{plan_transition, PlanFacts, UpdateRequest};
//! let bytes = br#"{"schema": "https://deepworkplan.com/schema/plan-state/v1.json",
//!   "plan": "PLAN_x", "updated_at": "2026-01-01T00:00:00Z", "status": "pending",
//!   "completed_count": 0, "task_count": 1,
//!   "tasks": [{"id": 1, "file": "1.task_a.md", "title": "A", "status": "pending"}]}"#;
//! let req = UpdateRequest::new(1, TaskStatus::InProgress);
//! let mut clock = Clock::fixed("2026-10-05T09:00:00Z".parse().unwrap(), 1_250_000);
//! let t = plan_transition(bytes, &req, &PlanFacts::detached("PLAN_x"), &mut clock).unwrap();
//! assert_eq!(t.summary_line(), "task 1 → in_progress · 0/1 completed · plan in_progress");
//! assert!(String::from_utf8(t.candidate_bytes).unwrap().contains("\"started_at\": \"2026-10-05T09:00:00+00:00\""));
//! ```

use super::amendment::{self, LoggedAmendment};
use crate::clock::Clock;
use crate::dwp::check::gates::{self, is_invalidated, latest_per_command, parse_gate_spec};
use crate::dwp::check::semantics::{
    ApprovalSource, CheckMode, approval_effective, check_state, derive_status_of,
};
use crate::dwp::model::schema::{self, validate_state};
use crate::dwp::model::{Era, PlanStatus, State, Task, TaskStatus, parse_json};
use crate::jsonfmt::to_python_pretty_sized;
use crate::report::{Finding, Refusal, RefusalKind};
use crate::write::JournalEntry;
use planseal_recovery::hash::sha256_hex;
use serde_json::{Map, Value, json};
use std::path::PathBuf;

/// The budget of `--worked` (`outcome.worked`), in Unicode code points (Python's `len`).
pub const WORKED_MAX: usize = schema::OUTCOME_WORKED_MAX;
/// The budget of `--notes` (`outcome.notes`), in Unicode code points.
pub const NOTES_MAX: usize = schema::OUTCOME_NOTES_MAX;

/// One `planseal update` call: the helper's flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateRequest {
    /// `--task`: the id of the task to move, as given (a negative or unknown id is refused as
    /// `unknown-task`).
    pub task: i64,
    /// `--status`: the task's new status.
    pub status: TaskStatus,
    /// `--gate "command|exit_code|evidence"`, in order.
    pub gates: Vec<String>,
    /// `--gate-json '{…}'`, in order (appended after the `--gate` records).
    pub gate_jsons: Vec<String>,
    /// `--block-reason`: why the task is blocked; required (non-blank) with
    /// [`TaskStatus::Blocked`], recorded as `blocked.reason`.
    pub block_reason: Option<String>,
    /// `--block-needs`: what would unblock the task, recorded as `blocked.needs` (empty when
    /// `None`).
    pub block_needs: Option<String>,
    /// `--resolve-blocker`: clear the active blocker, which must be this task's own; allowed only
    /// with a move to in_progress or completed.
    pub resolve_blocker: bool,
    /// `--reopen-reason`: why a completed task is moved back; required (non-blank) for a reopen
    /// and written to the journal.
    pub reopen_reason: Option<String>,
    /// `--expected-sha256`: the SHA-256 (hex, any case) of the state.json bytes the caller last
    /// read; the update is refused as a stale snapshot when the file differs. `None`: no
    /// compare-and-swap.
    pub expected_sha256: Option<String>,
    /// `--worked`: the task's `outcome.worked`, at most [`WORKED_MAX`] code points.
    pub worked: Option<String>,
    /// `--notes`: the task's `outcome.notes`, at most [`NOTES_MAX`] code points.
    pub notes: Option<String>,
    /// `--tried`: approaches tried, appended to `outcome.tried` (one line each).
    pub tried: Vec<String>,
    /// `--failed`: approaches that failed, appended to `outcome.failed` (one line each).
    pub failed: Vec<String>,
    /// `--commit`: the task's `commit`, 7 to 40 lower-case hex digits.
    pub commit: Option<String>,
    /// `--checkpoint-step`: the new checkpoint's `step`; `None` writes `start` (ignored when the
    /// plan completes: its checkpoint is `done`).
    pub checkpoint_step: Option<String>,
    /// `--checkpoint-note`: the new checkpoint's `note`; `None` writes
    /// `Task N closed. Next: Task M.` (ignored when the plan completes).
    pub checkpoint_note: Option<String>,
    /// `--agent`: recorded as `updated_by.agent` and in the journal line.
    pub agent: Option<String>,
    /// `--model`: recorded as `updated_by.model` and in the journal line.
    pub model: Option<String>,
}

impl UpdateRequest {
    /// A bare `--task N --status S`.
    pub fn new(task: i64, status: TaskStatus) -> Self {
        Self {
            task,
            status,
            gates: Vec::new(),
            gate_jsons: Vec::new(),
            block_reason: None,
            block_needs: None,
            resolve_blocker: false,
            reopen_reason: None,
            expected_sha256: None,
            worked: None,
            notes: None,
            tried: Vec::new(),
            failed: Vec::new(),
            commit: None,
            checkpoint_step: None,
            checkpoint_note: None,
            agent: None,
            model: None,
        }
    }
}

/// What the plan around state.json says, read by the caller before the transition.
#[derive(Debug, Clone, Default)]
pub struct PlanFacts {
    /// The plan folder's name (`PLAN_x`), from the canonical path.
    pub plan_name: String,
    /// The canonical plan folder; `log=` pointers are checked inside it. `None`: textual checks
    /// only (tests, detached use).
    pub plan_dir: Option<PathBuf>,
    /// A `.finalizing.json` exists in the plan folder.
    pub marker_present: bool,
    /// The value of the README's `Approval:` line as written, when it has one (used when a
    /// v2/v5 state has no `approval`).
    pub readme_approval: Option<String>,
    /// The `### Amendment <n> — <date>` records in each task's log, by task id (the task
    /// being moved; a reopen, a completion and a skip read them).
    pub amendments: Vec<(u64, Vec<LoggedAmendment>)>,
    /// The record that backs a skip of the task being moved, described for the journal (a
    /// PROGRESS.md refinement, or an amendment naming the task); read only for a skip.
    pub skip_record: Option<String>,
}

impl PlanFacts {
    /// Facts of a plan that is not on disk: no marker, no README, no log checks.
    pub fn detached(plan_name: &str) -> Self {
        Self {
            plan_name: plan_name.to_string(),
            ..Self::default()
        }
    }

    fn amendments_of(&self, task: u64) -> &[LoggedAmendment] {
        self.amendments
            .iter()
            .find(|(t, _)| *t == task)
            .map(|(_, d)| d.as_slice())
            .unwrap_or(&[])
    }
}

/// A transition that passed every check and is ready to be written.
#[derive(Debug, Clone)]
pub struct Transition {
    /// The id of the task moved.
    pub task: u64,
    /// Its status before; `None` when the state's value was not a known status.
    pub from: Option<TaskStatus>,
    /// Its status after.
    pub to: TaskStatus,
    /// The candidate's `completed_count`.
    pub completed_count: u64,
    /// How many tasks the plan has (those with a numeric id).
    pub task_count: u64,
    /// The plan status derived for the candidate (its `status`).
    pub plan_status: PlanStatus,
    /// The state value after the transition.
    pub candidate: Value,
    /// Its bytes, as the helper writes them.
    pub candidate_bytes: Vec<u8>,
    /// The SHA-256 (hex) of the state.json bytes the transition was planned on.
    pub before_sha256: String,
    /// The step stamp (`updated_at`) of this transition.
    pub stamp: String,
    /// The candidate completes the plan: it must go through the finalization transaction.
    pub completes_plan: bool,
    /// Advisories met on the way (v1 reopen without amendment, approval defaulted, …).
    pub advisories: Vec<Finding>,
    /// What the transition applied, as the journal line's `applied` field records it
    /// ([`applied_content`], `docs/journal.md`).
    pub applied: Value,
}

/// The version of the `applied` field set a journal line carries; lines without the field are
/// version 1 (hashes and statuses only).
pub const APPLIED_VERSION: u64 = 2;

/// The content a transition applied, from the state before and after it (`docs/journal.md`):
/// `{"version": 2, "task": N, "set": {field: value…}, "removed": [field…], "gates_added":
/// [record…], "plan_set": {…}, "plan_removed": […]}`. `set` holds the task's fields that changed
/// (`gates` only when the change is not a pure append, then the whole list); `gates_added` the
/// records appended; `plan_set` the plan's fields that changed (checkpoint, blocker, counts, …),
/// `tasks` excluded, and always `approval` (the approval the transition ran under). Enough to
/// replay the transition onto a copy of the state.
pub fn applied_content(before: &Value, after: &Value, task: u64) -> Value {
    fn find(state: &Value, task: u64) -> Option<&Map<String, Value>> {
        state
            .get("tasks")?
            .as_array()?
            .iter()
            .filter_map(Value::as_object)
            .find(|t| t.get("id").and_then(Value::as_u64) == Some(task))
    }
    let empty = Map::new();
    let old_task = find(before, task).unwrap_or(&empty);
    let new_task = find(after, task).unwrap_or(&empty);
    let mut set = Map::new();
    let mut removed = Vec::new();
    let mut gates_added = Vec::new();
    for (k, v) in new_task {
        if old_task.get(k) == Some(v) {
            continue;
        }
        if k == "gates" {
            let old = old_task
                .get("gates")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            match v.as_array() {
                Some(new) if new.len() >= old.len() && new[..old.len()] == old[..] => {
                    gates_added.extend(new[old.len()..].iter().cloned());
                }
                _ => {
                    set.insert(k.clone(), v.clone());
                }
            }
            continue;
        }
        set.insert(k.clone(), v.clone());
    }
    for k in old_task.keys() {
        if !new_task.contains_key(k) {
            removed.push(Value::from(k.clone()));
        }
    }
    let (old_top, new_top) = (
        before.as_object().unwrap_or(&empty),
        after.as_object().unwrap_or(&empty),
    );
    let mut plan_set = Map::new();
    let mut plan_removed = Vec::new();
    for (k, v) in new_top {
        // `approval` always: the approval the transition ran under.
        if k != "tasks" && (old_top.get(k) != Some(v) || k == "approval") {
            plan_set.insert(k.clone(), v.clone());
        }
    }
    for k in old_top.keys() {
        if k != "tasks" && !new_top.contains_key(k) {
            plan_removed.push(Value::from(k.clone()));
        }
    }
    json!({
        "version": APPLIED_VERSION,
        "task": task,
        "set": set,
        "removed": removed,
        "gates_added": gates_added,
        "plan_set": plan_set,
        "plan_removed": plan_removed,
    })
}

impl Transition {
    /// `task N → STATUS · C/T completed · plan STATUS` (the helper's success line, no newline).
    pub fn summary_line(&self) -> String {
        format!(
            "task {} → {} · {}/{} completed · plan {}",
            self.task, self.to, self.completed_count, self.task_count, self.plan_status
        )
    }

    /// `task N → completed · plan completed and verified` (after a publication).
    pub fn published_line(&self) -> String {
        format!(
            "task {} → {} · plan completed and verified",
            self.task, self.to
        )
    }

    /// The journal line of this transition (`docs/journal.md`).
    pub fn journal_entry(&self, req: &UpdateRequest, plan: &str) -> JournalEntry {
        let operation = if self.completes_plan {
            "update+finalize"
        } else {
            "update"
        };
        let mut entry = JournalEntry::for_plan(self.stamp.clone(), operation, plan)
            .transition(
                Some(self.task),
                self.from.map(TaskStatus::as_str).into(),
                self.to.as_str().into(),
            )
            .reason(req.reopen_reason.clone())
            // The writer hashes the candidate's bytes while it takes the lock.
            .hashes(Some(self.before_sha256.clone()), None)
            .with("gates_added", req.gates.len() + req.gate_jsons.len())
            .with(
                "advisories",
                self.advisories
                    .iter()
                    .map(|f| f.id.clone())
                    .collect::<Vec<_>>(),
            )
            .with("applied", self.applied.clone());
        entry.agent = req.agent.clone();
        entry.model = req.model.clone();
        entry
    }
}

/// The way out of a leftover marker, naming the plan folder so the commands run as printed.
fn recover_hint(facts: &PlanFacts) -> String {
    let dir = facts
        .plan_dir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_else(|| format!(".dwp/plans/{}", facts.plan_name));
    format!(
        "inspect it with `planseal recover {dir} --dry-run` (changes nothing), then run `planseal recover {dir}`"
    )
}

fn refuse(kind: RefusalKind, message: impl Into<String>, hint: &str) -> Refusal {
    Refusal::new(kind, message).hint(hint)
}

fn chars(s: &str) -> usize {
    s.chars().count()
}

fn too_long(flag: &str, text: &str, max: usize) -> Result<(), Refusal> {
    let n = chars(text);
    if n > max {
        return Err(refuse(
            RefusalKind::FieldTooLong,
            format!("{flag} is {n} characters long; the limit is {max}"),
            "shorten the text; put the details in the task log and cite it",
        ));
    }
    Ok(())
}

/// Check 1 (the part that needs no file): `--worked` / `--notes` budgets and `--commit` shape.
pub fn check_arguments(req: &UpdateRequest) -> Result<(), Refusal> {
    if let Some(w) = &req.worked {
        too_long("--worked", w, WORKED_MAX)?;
    }
    if let Some(n) = &req.notes {
        too_long("--notes", n, NOTES_MAX)?;
    }
    for (flag, items) in [("--tried", &req.tried), ("--failed", &req.failed)] {
        for item in items {
            too_long(flag, item, WORKED_MAX)?;
            if item.trim().is_empty() || item.contains(['\n', '\r']) {
                return Err(refuse(
                    RefusalKind::UsageError,
                    format!("{flag} takes one line of text, one approach per flag"),
                    &format!("repeat {flag} for each approach, e.g. {flag} \"pinned the clock\""),
                ));
            }
        }
    }
    if let Some(c) = &req.commit {
        let ok = (7..=40).contains(&c.len())
            && c.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !ok {
            return Err(refuse(
                RefusalKind::CommitNotHex,
                format!("--commit `{c}` is not 7 to 40 lower-case hex digits"),
                "pass the commit hash as git prints it, e.g. `git rev-parse HEAD`",
            ));
        }
    }
    Ok(())
}

/// Checks 2–17 on the bytes of state.json as read. On success the returned candidate is valid
/// and ready for the write (check 18 is the caller's).
pub fn plan_transition(
    bytes: &[u8],
    req: &UpdateRequest,
    facts: &PlanFacts,
    clock: &mut Clock,
) -> Result<Transition, Refusal> {
    plan_transition_parsed(bytes, parse_json(bytes), req, facts, clock)
}

/// [`plan_transition`] on `bytes` already parsed (`parsed` is `parse_json(bytes)`): the caller
/// that read the plan's facts from the same parse does not parse state.json twice.
pub fn plan_transition_parsed(
    bytes: &[u8],
    parsed: Result<Value, crate::dwp::model::JsonError>,
    req: &UpdateRequest,
    facts: &PlanFacts,
    clock: &mut Clock,
) -> Result<Transition, Refusal> {
    plan_transition_hashed(bytes, parsed, sha256_hex(bytes), req, facts, clock)
}

/// [`plan_transition_parsed`] with the SHA-256 (hex) of `bytes` computed already (by a caller
/// that hashed them while it parsed them).
pub fn plan_transition_hashed(
    bytes: &[u8],
    parsed: Result<Value, crate::dwp::model::JsonError>,
    before_sha256: String,
    req: &UpdateRequest,
    facts: &PlanFacts,
    clock: &mut Clock,
) -> Result<Transition, Refusal> {
    debug_assert_eq!(before_sha256, sha256_hex(bytes));
    check_arguments(req)?;
    // 2. The file parses; a leftover marker refuses every update.
    let mut value = parsed.map_err(|e| {
        refuse(
            RefusalKind::StateUnreadable,
            format!("state.json cannot be parsed: {e}; it was left exactly as it is"),
            "restore state.json from a backup or rebuild it with `planseal rebuild`",
        )
    })?;
    if facts.marker_present {
        return Err(refuse(
            RefusalKind::MarkerPresent,
            format!(
                "{}: an interrupted publication left .finalizing.json; no update until it is resolved",
                facts.plan_name
            ),
            &recover_hint(facts),
        ));
    }
    // 3. Compare-and-swap on the raw bytes.
    if let Some(expected) = &req.expected_sha256
        && !expected.eq_ignore_ascii_case(&before_sha256)
    {
        return Err(refuse(
            RefusalKind::StaleSnapshot,
            format!(
                "stale state snapshot: --expected-sha256 {expected} but state.json is {before_sha256}"
            ),
            "re-read state.json, re-decide, and pass the new hash",
        ));
    }
    // 4. The input state is valid.
    let moved = u64::try_from(req.task).ok();
    let (era, state) = validate_input(&value, facts, moved)?;
    let mut advisories = Vec::new();
    // 5. Ready; 6. approved (v2/v5 only: v1 has neither field and counts as ready and approved).
    if era != Era::V1 {
        check_ready(&state)?;
        check_approved(&state, facts, &mut advisories)?;
    }
    // 7. The task exists.
    let ids: Vec<u64> = state.tasks.iter().filter_map(|t| t.id).collect();
    let task_index = u64::try_from(req.task)
        .ok()
        .and_then(|id| state.tasks.iter().position(|t| t.id == Some(id)))
        .ok_or_else(|| {
            let list: Vec<String> = ids.iter().map(u64::to_string).collect();
            refuse(
                RefusalKind::UnknownTask,
                format!(
                    "task {} is not in the plan; its tasks are {}",
                    req.task,
                    list.join(", ")
                ),
                "pass one of the listed ids with --task",
            )
        })?;
    let task_id = ids_at(&state, task_index);
    // What the transition may change of the input, kept as it was read: the top level and this
    // task (nothing below touches another task, so the rest of the input is `value`'s).
    let original = InputSnapshot::of(&mut value, task_index);
    let from = state.tasks[task_index].status;
    let to = req.status;
    // 8. Reopen: the amendments that back it, whose invalidations take effect now.
    let taking_effect = check_reopen(&state, task_index, era, req, facts, &mut advisories)?;
    // 9. Strict order.
    if matches!(to, TaskStatus::InProgress | TaskStatus::Completed) {
        let open: Vec<String> = state.tasks[..task_index]
            .iter()
            .filter(|t| t.status != Some(TaskStatus::Completed))
            .map(|t| {
                format!(
                    "{} ({})",
                    t.id.unwrap_or(0),
                    t.status_raw.as_deref().unwrap_or("?")
                )
            })
            .collect();
        if !open.is_empty() {
            return Err(refuse(
                RefusalKind::PriorTaskIncomplete,
                format!(
                    "task {task_id} cannot be {}: lower task(s) not completed: {}",
                    if to == TaskStatus::Completed {
                        "completed"
                    } else {
                        "started"
                    },
                    open.join(", ")
                ),
                "complete the lower tasks first (a skipped task does not count)",
            ));
        }
    }
    // Skip: only what the user removed from scope (a dated refinement or an amendment).
    if to == TaskStatus::Skipped && from != Some(TaskStatus::Skipped) {
        check_skip(task_id, era, facts, &mut advisories)?;
    }
    // 10–12. Blocker rules.
    let blocker_task = state.blocked.as_ref().map(|b| b.task);
    check_blockers(task_id, to, req, blocker_task)?;

    // 13. The transition itself, taking timestamps in the helper's order.
    let since = if to == TaskStatus::Blocked {
        match &state.blocked {
            Some(b) if b.task == Some(task_id) && b.since.is_some() => b.since.clone(),
            _ => Some(clock.now_iso()),
        }
    } else {
        None
    };
    let stamp = clock.now_iso();
    {
        let task = task_object(&mut value, task_index)?;
        task.insert("status".into(), json!(to.as_str()));
        if matches!(
            to,
            TaskStatus::InProgress | TaskStatus::Completed | TaskStatus::Blocked
        ) && !task.contains_key("started_at")
        {
            task.insert("started_at".into(), json!(stamp));
        }
        // The invalidations of the amendments that back a reopen are applied to the records
        // there are now; the runs recorded from here on are the new evidence.
        if !taking_effect.is_empty()
            && let Some(Value::Array(gates)) = task.get_mut("gates")
        {
            for amendment in &taking_effect {
                amendment::mark_invalidated(gates, task_id, amendment)?;
            }
        }
        // 14. Gates (spec errors and budgets are refused here, stage `gates`).
        let mut new_records = Vec::new();
        for spec in &req.gates {
            let parsed =
                parse_gate_spec(spec).map_err(|e| refuse(e.kind(), format!("{e}"), e.hint()))?;
            too_long("--gate command", &parsed.command, schema::GATE_COMMAND_MAX)?;
            too_long(
                "--gate evidence",
                &parsed.evidence,
                schema::GATE_EVIDENCE_MAX,
            )?;
            new_records.push(json!({
                "command": parsed.command,
                "passes": parsed.passes(),
                "last_run": clock.now_iso(),
                "exit_code": parsed.exit_code,
                "evidence": parsed.evidence,
            }));
        }
        for raw in &req.gate_jsons {
            let record = parse_json(raw.as_bytes()).map_err(|e| {
                refuse(
                    RefusalKind::GateJsonUnparseable,
                    format!("--gate-json is not JSON: {e}"),
                    "pass one JSON object, e.g. '{\"command\": \"…\", \"passes\": true, \"exit_code\": 0, \"last_run\": \"…\", \"evidence\": \"…\"}'",
                )
            })?;
            if !record.is_object() {
                return Err(refuse(
                    RefusalKind::GateJsonNotObject,
                    format!(
                        "--gate-json must be a JSON object, got {}",
                        schema::type_name(&record)
                    ),
                    "pass one gate record object",
                ));
            }
            new_records.push(record);
        }
        if !new_records.is_empty() {
            let gates = task
                .entry("gates")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(list) = gates {
                for record in new_records {
                    if !gates::replays_latest(list, &record) {
                        list.push(record);
                    }
                }
            } else {
                return Err(refuse(
                    RefusalKind::ShapeError,
                    format!("task {task_id}: `gates` is not an array"),
                    "repair state.json (`planseal rebuild`)",
                ));
            }
        }
        if to == TaskStatus::Completed && !task.contains_key("completed_at") {
            task.insert("completed_at".into(), json!(stamp));
        }
        if let Some(c) = &req.commit {
            task.insert("commit".into(), json!(c));
        }
        let lists = !req.tried.is_empty() || !req.failed.is_empty();
        if req.worked.is_some() || req.notes.is_some() || lists {
            let outcome = task
                .entry("outcome")
                .or_insert_with(|| Value::Object(Map::new()));
            if !outcome.is_object() {
                *outcome = Value::Object(Map::new());
            }
            if let Value::Object(o) = outcome {
                if let Some(w) = &req.worked {
                    o.insert("worked".into(), json!(w));
                }
                if let Some(n) = &req.notes {
                    o.insert("notes".into(), json!(n));
                }
                // After the helper's keys, in this order; existing entries are kept.
                for (key, items) in [("tried", &req.tried), ("failed", &req.failed)] {
                    if items.is_empty() {
                        continue;
                    }
                    let list = o.entry(key).or_insert_with(|| Value::Array(Vec::new()));
                    let Value::Array(list) = list else {
                        return Err(refuse(
                            RefusalKind::ShapeError,
                            format!("task {task_id}: `outcome.{key}` is not an array"),
                            "repair state.json (`planseal rebuild`)",
                        ));
                    };
                    list.extend(items.iter().map(|i| json!(i)));
                }
            }
        }
    }
    // Blocker record.
    let top = value
        .as_object_mut()
        .expect("validate_input accepted only an object because the schema requires one");
    if to == TaskStatus::Blocked {
        let reason = req.block_reason.clone().unwrap_or_default();
        top.insert(
            "blocked".into(),
            json!({
                "task": task_id,
                "reason": reason,
                "since": since,
                "needs": req.block_needs.clone().unwrap_or_default(),
            }),
        );
    } else if req.resolve_blocker {
        top.insert("blocked".into(), Value::Null);
    }

    // 15. Completion rule.
    let candidate_task = Task::from_value(task_index, &value["tasks"][task_index]);
    if to == TaskStatus::Completed {
        check_completion(&candidate_task)?;
        check_reruns(&candidate_task, task_id, facts)?;
    }
    if let Some(s) = &req.checkpoint_step {
        too_long("--checkpoint-step", s, schema::CHECKPOINT_STEP_MAX)?;
    }
    if let Some(n) = &req.checkpoint_note {
        too_long("--checkpoint-note", n, schema::CHECKPOINT_NOTE_MAX)?;
    }
    if let Some(a) = &req.agent {
        too_long("--agent", a, schema::AGENT_NAME_MAX)?;
    }
    if let Some(m) = &req.model {
        too_long("--model", m, schema::AGENT_NAME_MAX)?;
    }

    // 16. Derived fields, checkpoint, updated_by.
    let statuses: Vec<Option<TaskStatus>> = value["tasks"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|t| {
                    t.get("status")
                        .and_then(Value::as_str)
                        .and_then(TaskStatus::parse)
                })
                .collect()
        })
        .unwrap_or_default();
    let task_ids: Vec<u64> = value["tasks"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t.get("id").and_then(Value::as_u64))
                .collect()
        })
        .unwrap_or_default();
    let completed_count = statuses
        .iter()
        .filter(|s| **s == Some(TaskStatus::Completed))
        .count() as u64;
    let has_blocker = value.get("blocked").is_some_and(Value::is_object);
    let plan_status = derive_status_of(statuses.iter().copied(), has_blocker);
    let next_open = statuses
        .iter()
        .zip(&task_ids)
        .find(|(s, _)| !matches!(s, Some(TaskStatus::Completed) | Some(TaskStatus::Skipped)))
        .map(|(_, id)| *id);
    let top = value
        .as_object_mut()
        .expect("checked to be an object above because the schema requires one");
    top.insert("completed_count".into(), json!(completed_count));
    top.insert("status".into(), json!(plan_status.as_str()));
    top.insert("updated_at".into(), json!(stamp));
    let at = clock.now_iso();
    let checkpoint = match next_open {
        Some(next) => json!({
            "task": next,
            "step": req.checkpoint_step.clone().unwrap_or_else(|| "start".to_string()),
            "at": at,
            "note": req
                .checkpoint_note
                .clone()
                .unwrap_or_else(|| format!("Task {task_id} closed. Next: Task {next}.")),
        }),
        None => json!({
            "task": task_ids.last().copied().unwrap_or(task_id),
            "step": "done",
            "at": at,
            "note": "Plan completed.",
        }),
    };
    top.insert("checkpoint".into(), checkpoint);
    if req.agent.is_some() || req.model.is_some() {
        let by = top
            .entry("updated_by")
            .or_insert_with(|| Value::Object(Map::new()));
        if !by.is_object() {
            *by = Value::Object(Map::new());
        }
        if let Value::Object(b) = by {
            if let Some(a) = &req.agent {
                b.insert("agent".into(), json!(a));
            }
            if let Some(m) = &req.model {
                b.insert("model".into(), json!(m));
            }
        }
    }

    // 17. The candidate passes the strict validation.
    let candidate_state = state_with_task(&mut value, state, task_index);
    validate_candidate(&value, candidate_state, &original, facts)?;

    let candidate_bytes = to_python_pretty_sized(&value, bytes.len());
    let applied = applied_content(&original.state, &value, task_id);
    Ok(Transition {
        task: task_id,
        from,
        to,
        completed_count,
        task_count: task_ids.len() as u64,
        plan_status,
        candidate: value,
        candidate_bytes,
        before_sha256,
        stamp,
        completes_plan: plan_status == PlanStatus::Completed,
        advisories,
        applied,
    })
}

fn ids_at(state: &State, index: usize) -> u64 {
    state.tasks[index].id.unwrap_or(index as u64 + 1)
}

fn task_object(value: &mut Value, index: usize) -> Result<&mut Map<String, Value>, Refusal> {
    value
        .get_mut("tasks")
        .and_then(|t| t.get_mut(index))
        .and_then(Value::as_object_mut)
        .ok_or_else(|| {
            refuse(
                RefusalKind::ShapeError,
                format!("tasks[{index}] is not an object"),
                "repair state.json (`planseal rebuild`)",
            )
        })
}

/// The first failing finding becomes the refusal (its id is the kind), with all of them as
/// details.
fn refuse_findings(findings: Vec<Finding>, what: &str) -> Result<(), Refusal> {
    let Some(first) = findings.first() else {
        return Ok(());
    };
    let kind = match first.id.as_str() {
        schema::STATE_SHAPE_ERROR => RefusalKind::ShapeError,
        other => RefusalKind::from_id(other),
    };
    let message = if findings.len() == 1 {
        format!("{what}: {}", first.message)
    } else {
        format!(
            "{what}: {} (and {} more)",
            first.message,
            findings.len() - 1
        )
    };
    let hint = first
        .hint
        .clone()
        .unwrap_or_else(|| "repair state.json, then retry".to_string());
    Err(Refusal::new(kind, message).hint(hint).details(findings))
}

/// Schema, semantics and gate findings of a state; `completed_only` restricts the gate findings
/// to completed tasks (the state as read: only those block every transition). `checked` is the
/// state whose completed tasks already passed the gate checks (the input, for the candidate): a
/// task left exactly as it was there is not checked again — its findings depend only on its own
/// record and the logs it cites, and they had no failure. Returns the era and the state read.
fn state_findings(
    value: &Value,
    facts: &PlanFacts,
    completed_only: bool,
    checked: Option<&InputSnapshot>,
    read: Option<State>,
    repaired: Option<u64>,
) -> Result<(Era, State), Refusal> {
    let mode = if completed_only {
        CheckMode::AsRead
    } else {
        CheckMode::Strict
    };
    let era =
        match crate::dwp::model::state_era(value) {
            Ok(era) => era,
            Err(e) => {
                let f = e.finding();
                return Err(Refusal::new(RefusalKind::UnsupportedSchema, f.message.clone())
                .hint("planseal supports the v1, v2 and v5 state schemas; check the `schema` URL")
                .details(vec![f]));
            }
        };
    // The candidate's tasks left exactly as they were in the input, which had no schema error
    // in the same era and format, have none now: only the top level and the changed tasks are
    // validated again.
    let checked_same_shape = checked.filter(|input| {
        crate::dwp::model::state_era(&input.state).ok() == Some(era)
            && input.state.get("format") == value.get("format")
    });
    let unchanged = |index: usize| checked.is_some_and(|input| input.task_unchanged(value, index));
    // The state as read, with many tasks: each task's shape, typed form and gate findings in
    // one pass over the cores (the same findings, in the same order, as the passes below).
    if checked.is_none()
        && read.is_none()
        && let Some(pass) = TaskPass::over_cores(value, era, facts, completed_only, repaired)
    {
        return pass.findings(value, mode, era);
    }
    let issues: Vec<_> = match checked_same_shape {
        Some(_) => schema::validate_state_tasks_where(value, |i| !unchanged(i)),
        None => validate_state(value),
    }
    .into_iter()
    .filter(|i| i.is_error())
    .collect();
    if !issues.is_empty() {
        let findings = schema::shape_findings(&issues, crate::dwp::model::PlanFile::State);
        refuse_findings(findings, "state.json does not match its schema")?;
    }
    let state = read.unwrap_or_else(|| State::from_value(value));
    let semantic: Vec<Finding> = check_state(&state, mode)
        .into_iter()
        .filter(|f| f.severity == crate::report::Severity::Fail)
        .collect();
    refuse_findings(semantic, "state.json is inconsistent")?;
    // The plan folder resolved once for every `log=` pointer, not once per task.
    let plan_dir = facts
        .plan_dir
        .as_deref()
        .map(crate::dwp::read::PlanDir::new);
    let tasks_json = value.get("tasks").and_then(Value::as_array);
    // Unchanged: the input's task, which passed these checks if it was completed.
    let already_checked = |index: usize| -> bool {
        unchanged(index)
            && tasks_json
                .and_then(|t| t.get(index))
                .and_then(|task| task.get("status"))
                .and_then(Value::as_str)
                .and_then(TaskStatus::parse)
                == Some(TaskStatus::Completed)
    };
    let gate_findings: Vec<Finding> = state
        .tasks
        .iter()
        .filter(|t| !completed_only || t.is_completed())
        .filter(|t| !already_checked(t.index))
        .filter(|t| repaired.is_none() || t.id != repaired)
        .flat_map(|t| match &plan_dir {
            Some(plan) => gates::task_gate_findings_in(t, plan),
            None => gates::task_gate_findings(t, None),
        })
        .filter(|f| f.severity == crate::report::Severity::Fail)
        .collect();
    refuse_findings(gate_findings, "the gate records are not valid evidence")?;
    Ok((era, state))
}

/// Below this many tasks a state is checked on one thread: the second would cost more to start
/// than it saves.
const TASKS_WORTH_A_THREAD: usize = 200;

/// What the checks of the state as read find task by task, computed on every core: the shape
/// issues (the top level's first), each task's typed form, and the gate findings of the tasks
/// whose gates are checked. Refusing goes in the order of [`state_findings`]: shape, then
/// semantics, then gates; the gate findings of a state refused earlier are not looked at.
struct TaskPass {
    issues: Vec<schema::ShapeIssue>,
    tasks: Vec<Task>,
    gate_findings: Vec<Finding>,
}

impl TaskPass {
    /// The pass, when `value` is a state object whose task list is long enough to share out.
    fn over_cores(
        value: &Value,
        era: Era,
        facts: &PlanFacts,
        completed_only: bool,
        repaired: Option<u64>,
    ) -> Option<Self> {
        let tasks = value.get("tasks")?.as_array()?;
        if !value.is_object() || tasks.len() < TASKS_WORTH_A_THREAD {
            return None;
        }
        let (top_issues, format) = schema::validate_state_top(value, era, Some(tasks.len()));
        // The plan folder is resolved once; each thread looks names up with its own cache.
        let plan_dir = facts
            .plan_dir
            .as_deref()
            .map(|root| (root, root.canonicalize().ok()));
        let per_task = crate::parallel::map_in_chunks(
            tasks,
            TASKS_WORTH_A_THREAD,
            || {
                plan_dir.as_ref().map(|(root, canonical)| {
                    crate::dwp::read::PlanDir::resolved(root, canonical.clone())
                })
            },
            |plan, index, json| {
                let issues = schema::validate_task_as(json, index, era, format);
                let task = Task::from_value(index, json);
                let gates: Vec<Finding> = if (completed_only && !task.is_completed())
                    || (repaired.is_some() && task.id == repaired)
                {
                    Vec::new()
                } else {
                    match plan {
                        Some(plan) => gates::task_gate_findings_in(&task, plan),
                        None => gates::task_gate_findings(&task, None),
                    }
                    .into_iter()
                    .filter(|f| f.severity == crate::report::Severity::Fail)
                    .collect()
                };
                (issues, task, gates)
            },
        );
        let mut pass = TaskPass {
            issues: top_issues,
            tasks: Vec::with_capacity(per_task.len()),
            gate_findings: Vec::new(),
        };
        for (issues, task, gates) in per_task {
            pass.issues.extend(issues);
            pass.tasks.push(task);
            pass.gate_findings.extend(gates);
        }
        Some(pass)
    }

    /// The refusals of [`state_findings`], in its order, and the state read.
    fn findings(self, value: &Value, mode: CheckMode, era: Era) -> Result<(Era, State), Refusal> {
        let issues: Vec<_> = self.issues.into_iter().filter(|i| i.is_error()).collect();
        if !issues.is_empty() {
            let findings = schema::shape_findings(&issues, crate::dwp::model::PlanFile::State);
            refuse_findings(findings, "state.json does not match its schema")?;
        }
        let mut state = State::from_value_without_tasks(value);
        state.tasks = self.tasks;
        let semantic: Vec<Finding> = check_state(&state, mode)
            .into_iter()
            .filter(|f| f.severity == crate::report::Severity::Fail)
            .collect();
        refuse_findings(semantic, "state.json is inconsistent")?;
        refuse_findings(
            self.gate_findings,
            "the gate records are not valid evidence",
        )?;
        Ok((era, state))
    }
}

/// The part of the input state a transition may change, as it was read: the top-level fields
/// and the task at `index`, as `state` — the input with `tasks` holding that one task (so
/// [`applied_content`] reads it as the state before). Every other task of the candidate is the
/// input's, untouched: the transition changes only this task and the top level, so only they
/// are kept, instead of a copy of the whole state.
struct InputSnapshot {
    state: Value,
    index: usize,
    /// Debug builds (the tests) keep the whole input, to check that no other task changed.
    #[cfg(debug_assertions)]
    whole: Value,
}

impl InputSnapshot {
    fn of(value: &mut Value, index: usize) -> Self {
        #[cfg(debug_assertions)]
        let whole = value.clone();
        let tasks = value.get_mut("tasks").map(std::mem::take);
        let mut state = value.clone();
        if let Some(tasks) = tasks {
            let task = tasks.get(index).cloned();
            value["tasks"] = tasks;
            if let Some(task) = task {
                state["tasks"] = Value::Array(vec![task]);
            }
        }
        Self {
            state,
            index,
            #[cfg(debug_assertions)]
            whole,
        }
    }

    /// Whether task `index` of the candidate `value` is the input's task at that place.
    fn task_unchanged(&self, value: &Value, index: usize) -> bool {
        if index != self.index {
            #[cfg(debug_assertions)]
            {
                let at = |v: &Value| v.get("tasks").and_then(|t| t.get(index)).cloned();
                debug_assert_eq!(
                    at(value),
                    at(&self.whole),
                    "the transition changed task {index}"
                );
            }
            return true;
        }
        let now = value.get("tasks").and_then(|t| t.get(index));
        now.is_some() && now == self.state.get("tasks").and_then(|t| t.get(0))
    }
}

/// The state as read is valid. The gate evidence of the task being moved is left to the
/// candidate's check: a completed task whose evidence no longer holds (a failing run, a marked
/// or missing log) refuses every other transition, but its own repair — a reopen, or a fresh
/// passing run — must get through.
fn validate_input(
    value: &Value,
    facts: &PlanFacts,
    moved: Option<u64>,
) -> Result<(Era, State), Refusal> {
    state_findings(value, facts, true, None, None, moved).map_err(|mut r| {
        r.message = format!("state.json as read is invalid — {}", r.message);
        r
    })
}

fn validate_candidate(
    value: &Value,
    state: State,
    input: &InputSnapshot,
    facts: &PlanFacts,
) -> Result<(), Refusal> {
    // The typed state of every task is freed off the critical path: the write comes next.
    state_findings(value, facts, false, Some(input), Some(state), None)
        .map(|(_, state)| crate::parallel::drop_later(state))
}

/// The [`State`] of the candidate `value`, which differs from the state `input` was read from
/// only in its top-level fields and in the task at `changed`: the top level read from `value`,
/// the unchanged tasks taken over from `input` (the same JSON reads as the same [`Task`]), the
/// changed one read again — what `State::from_value(value)` gives, without reading every task.
fn state_with_task(value: &mut Value, input: State, changed: usize) -> State {
    let mut state = State::from_value_without_tasks(value);
    state.tasks = input.tasks;
    state.tasks_is_array = input.tasks_is_array;
    if let Some(task) = value["tasks"].get(changed) {
        state.tasks[changed] = Task::from_value(changed, task);
    }
    state
}

fn check_ready(state: &State) -> Result<(), Refusal> {
    use crate::dwp::model::Materialization;
    let ready = state.materialization == Some(Materialization::Ready);
    if !ready || state.promotion.is_some() {
        let what = if state.promotion.is_some() {
            "a Lite → Full promotion is in flight".to_string()
        } else {
            format!(
                "materialization is `{}`",
                state
                    .materialization
                    .map(|m| m.as_str().to_string())
                    .unwrap_or_else(|| "?".into())
            )
        };
        return Err(refuse(
            RefusalKind::NotReady,
            format!("plan is not ready: {what}"),
            "finish materializing (or the promotion) and set materialization to `ready` first",
        ));
    }
    Ok(())
}

fn check_approved(
    state: &State,
    facts: &PlanFacts,
    advisories: &mut Vec<Finding>,
) -> Result<(), Refusal> {
    let effective = approval_effective(state, facts.readme_approval.as_deref());
    let approval = effective.approval;
    let source = match effective.source {
        ApprovalSource::State | ApprovalSource::LegacyImplied => "state.json `approval`",
        ApprovalSource::Readme => "the README `Approval:` line (state.json has no `approval`)",
        ApprovalSource::DefaultPending => {
            "default: state.json has no `approval` and the README no `Approval:` line, so the plan counts as pending: a v2/v5 plan is approved only when something says so (the Python helper would treat it as approved)"
        }
    };
    if effective.source == ApprovalSource::Readme {
        advisories.push(Finding::advisory(
            "approval-from-readme",
            format!("approval `{approval}` taken from {source}"),
        ));
    }
    if !approval.permits_execution() {
        return Err(refuse(
            RefusalKind::NotApproved,
            format!("plan is not approved: approval is `{approval}` ({source})"),
            "get the plan approved and record `approval: approved` (or the README Approval: line)",
        ));
    }
    Ok(())
}

/// Check 8: a reopen — a completed task moved to another status, or its commit replaced — needs
/// a reason and, on v2/v5, an amendment in the task's log dated no earlier than its completion;
/// while a later task stays completed, that amendment must name it as affected. Returns the
/// backing amendments whose invalidations have not taken effect yet.
fn check_reopen(
    state: &State,
    index: usize,
    era: Era,
    req: &UpdateRequest,
    facts: &PlanFacts,
    advisories: &mut Vec<Finding>,
) -> Result<Vec<LoggedAmendment>, Refusal> {
    let task = &state.tasks[index];
    let replaces_commit = req.status == TaskStatus::Completed
        && req
            .commit
            .as_deref()
            .is_some_and(|c| task.commit.as_deref().is_some_and(|old| old != c));
    if !task.is_completed() || (req.status == TaskStatus::Completed && !replaces_commit) {
        return Ok(Vec::new());
    }
    let id = task.id.unwrap_or(task.index as u64 + 1);
    let what = if replaces_commit {
        format!(
            "task {id} is completed with commit {}; replacing its commit reopens it",
            task.commit.as_deref().unwrap_or_default()
        )
    } else {
        format!(
            "task {id} is completed; moving it to {} reopens it",
            req.status
        )
    };
    if req
        .reopen_reason
        .as_deref()
        .is_none_or(|r| r.trim().is_empty())
    {
        return Err(refuse(
            RefusalKind::ReopenWithoutReason,
            format!("{what} and needs a reason"),
            "pass --reopen-reason TEXT (it is recorded in the journal)",
        ));
    }
    let completed_day = task
        .completed_at
        .as_deref()
        .map(|s| s.chars().take(10).collect::<String>())
        .unwrap_or_default();
    let backing: Vec<&LoggedAmendment> = facts
        .amendments_of(id)
        .iter()
        .filter(|a| a.date.as_str() >= completed_day.as_str())
        .collect();
    if backing.is_empty() {
        let message = format!(
            "{what}: it needs an `### Amendment <n> — <date>` record in the task log (after its Completion & Log heading, all nine labels filled) dated on or after {} (the amendment and the evidence it invalidates are recorded first)",
            if completed_day.is_empty() {
                "its completion"
            } else {
                &completed_day
            }
        );
        if era == Era::V1 {
            advisories.push(Finding::advisory("reopen-without-amendment", message).task(id));
            return Ok(Vec::new());
        }
        return Err(refuse(
            RefusalKind::ReopenWithoutAmendment,
            message,
            "record the amendment with `planseal amend` (it appends the record and reopens the task), or append it to the task's Completion & Log and PROGRESS.md by hand, then retry",
        ));
    }
    // Later tasks built on this one: they stay completed only when the amendment says they are
    // affected (and so reviewed against it).
    let later: Vec<u64> = state.tasks[index + 1..]
        .iter()
        .filter(|t| t.is_completed())
        .filter_map(|t| t.id)
        .collect();
    let named = |t: &u64| {
        backing
            .iter()
            .any(|a| a.affected.iter().any(|n| u64::from(*n) == *t))
    };
    let unnamed: Vec<String> = later
        .iter()
        .filter(|t| !named(t))
        .map(u64::to_string)
        .collect();
    if !unnamed.is_empty() && era != Era::V1 {
        return Err(refuse(
            RefusalKind::ReopenLeavesLaterCompleted,
            format!(
                "{what} while later task(s) {} stay completed, and no amendment of task {id} names them in `Affected tasks:`",
                unnamed.join(", ")
            ),
            &format!(
                "name every later completed task the change touches in the amendment's `Affected tasks:` (e.g. `Task {id}, Task {}`), or reopen the later tasks first",
                unnamed.join(", Task ")
            ),
        ));
    }
    Ok(backing
        .into_iter()
        .filter(|a| !a.invalidated.is_empty() && !amendment::already_marked(&task.gates, a))
        .cloned()
        .collect())
}

/// A skip needs the record that removed the task from scope (`facts.skip_record`): refused on
/// v2/v5 without one, an advisory on v1 (the DWP helper skips silently).
fn check_skip(
    task_id: u64,
    era: Era,
    facts: &PlanFacts,
    advisories: &mut Vec<Finding>,
) -> Result<(), Refusal> {
    if facts.skip_record.is_some() {
        return Ok(());
    }
    let message = format!(
        "task {task_id} cannot be skipped silently: no dated refinement with the user's authority and a reason removes it from scope (PROGRESS.md `## Refinement — <date>`, or an amendment naming it)"
    );
    if era == Era::V1 {
        advisories.push(Finding::advisory("skip-without-refinement", message).task(task_id));
        return Ok(());
    }
    Err(refuse(
        RefusalKind::SkipWithoutRefinement,
        message,
        &format!(
            "the user removes a task from scope with `planseal refine {} --skip {task_id} --reason \"…\" --authority user`; to finish a plan without some work, re-scope it with a `deferred requirement` amendment instead",
            if facts.plan_name.is_empty() {
                "PLAN"
            } else {
                facts.plan_name.as_str()
            }
        ),
    ))
}

/// A task's amendments whose invalidated gate runs were not run again since: completing it
/// needs a new passing run of each (the same rule the marks of a reopen enforce).
fn check_reruns(task: &Task, task_id: u64, facts: &PlanFacts) -> Result<(), Refusal> {
    let missing = amendment::not_run_again(task, facts.amendments_of(task_id));
    if missing.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = missing
        .iter()
        .map(|(n, name)| format!("`{name}` (Amendment {n})"))
        .collect();
    Err(refuse(
        RefusalKind::EvidenceInvalidatedByRefine,
        format!(
            "task {task_id} cannot be completed: its amendments invalidated {} and no new passing run of it is recorded since",
            list.join(", ")
        ),
        "run that gate command again and record the fresh run (--gate) with the completion",
    ))
}

fn check_blockers(
    task_id: u64,
    to: TaskStatus,
    req: &UpdateRequest,
    blocker_task: Option<Option<u64>>,
) -> Result<(), Refusal> {
    // 10. --resolve-blocker resolves only this task's own blocker, and only to resume.
    if req.resolve_blocker {
        match blocker_task {
            Some(Some(t)) if t == task_id => {}
            Some(other) => {
                return Err(refuse(
                    RefusalKind::ResolveUnrelatedBlocker,
                    format!(
                        "--resolve-blocker on task {task_id}, but the active blocker belongs to task {}",
                        other.map(|t| t.to_string()).unwrap_or_else(|| "?".into())
                    ),
                    "resolve a blocker from the blocked task itself",
                ));
            }
            None => {
                return Err(refuse(
                    RefusalKind::ResolveUnrelatedBlocker,
                    format!("--resolve-blocker on task {task_id}, but no blocker is active"),
                    "drop --resolve-blocker",
                ));
            }
        }
        if !matches!(to, TaskStatus::InProgress | TaskStatus::Completed) {
            return Err(refuse(
                RefusalKind::ResolveMustResume,
                format!(
                    "resolving task {task_id}'s blocker must move it to in_progress or completed, not {to}"
                ),
                "pass --status in_progress (or completed) with --resolve-blocker",
            ));
        }
    }
    // 11. An active blocker stops every other move until resolved explicitly.
    if let Some(bt) = blocker_task
        && to != TaskStatus::Blocked
        && !req.resolve_blocker
    {
        return Err(refuse(
            RefusalKind::ActiveBlockerUnresolved,
            format!(
                "task {} is blocked; resolve that blocker before any other transition",
                bt.map(|t| t.to_string()).unwrap_or_else(|| "?".into())
            ),
            "pass --resolve-blocker from the blocked task when it resumes",
        ));
    }
    // 12. A block needs a reason and may not replace another task's blocker.
    if to == TaskStatus::Blocked {
        if req
            .block_reason
            .as_deref()
            .is_none_or(|r| r.trim().is_empty())
        {
            return Err(refuse(
                RefusalKind::BlockWithoutReason,
                format!("blocking task {task_id} needs --block-reason"),
                "say what blocks the task with --block-reason TEXT (and --block-needs TEXT)",
            ));
        }
        if let Some(bt) = blocker_task
            && bt != Some(task_id)
        {
            return Err(refuse(
                RefusalKind::ReplaceUnrelatedBlocker,
                format!(
                    "task {} already holds the active blocker; task {task_id} cannot replace it",
                    bt.map(|t| t.to_string()).unwrap_or_else(|| "?".into())
                ),
                "resolve the existing blocker first",
            ));
        }
        if let Some(r) = &req.block_reason {
            too_long("--block-reason", r, schema::BLOCKED_REASON_MAX)?;
        }
        if let Some(n) = &req.block_needs {
            too_long("--block-needs", n, schema::BLOCKED_NEEDS_MAX)?;
        }
    }
    Ok(())
}

fn check_completion(task: &Task) -> Result<(), Refusal> {
    let id = task.id.unwrap_or(task.index as u64 + 1);
    if let Some(f) = gates::completion_finding(task) {
        return Err(Refusal::from_check(&f, f.message.clone())
            .hint(f.hint.clone().unwrap_or_default())
            .details(vec![f]));
    }
    if latest_per_command(&task.gates)
        .iter()
        .any(|g| is_invalidated(g.evidence_text()))
    {
        return Err(refuse(
            RefusalKind::EvidenceInvalidatedByRefine,
            format!(
                "task {id} cannot be completed: the latest record of a gate was invalidated by refine"
            ),
            "rerun that gate command and record the fresh run before completing",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const V1: &str = r#"{"schema": "https://deepworkplan.com/schema/plan-state/v1.json",
      "plan": "PLAN_x", "updated_at": "2026-01-01T00:00:00Z", "status": "pending",
      "completed_count": 0, "task_count": 2,
      "tasks": [{"id": 1, "file": "1.task_a.md", "title": "A", "status": "pending"},
                {"id": 2, "file": "2.task_b.md", "title": "B", "status": "pending"}]}"#;

    fn clock() -> Clock {
        Clock::fixed("2026-10-05T09:00:00Z".parse().unwrap(), 1_250_000)
    }

    fn apply(bytes: &[u8], req: &UpdateRequest) -> Result<Transition, Refusal> {
        plan_transition(bytes, req, &PlanFacts::detached("PLAN_x"), &mut clock())
    }

    /// A v5 Full state of `n` tasks, all completed with a passing gate.
    fn completed_state(n: usize) -> Value {
        let tasks: Vec<Value> = (1..=n)
            .map(|id| {
                serde_json::json!({
                    "id": id,
                    "locator": {"kind": "file", "value": format!("{id}.task_t{id}.md")},
                    "title": format!("Task {id}"),
                    "status": "completed",
                    "started_at": "2026-10-01T00:00:00+00:00",
                    "gates": [{"command": "make test", "passes": true,
                               "last_run": "2026-10-01T00:00:00+00:00", "exit_code": 0,
                               "evidence": "ran=3/3"}],
                    "completed_at": "2026-10-01T00:00:00+00:00",
                    "outcome": {"worked": "it"}
                })
            })
            .collect();
        serde_json::json!({
            "schema": "https://deepworkplan.com/schema/plan-state/v5.json",
            "plan": "PLAN_x", "updated_at": "2026-10-01T00:00:00+00:00",
            "status": "completed", "completed_count": n, "task_count": n,
            "format": "full", "materialization": "ready", "approval": "approved",
            "tasks": tasks,
            "checkpoint": {"task": n, "step": "done", "at": "2026-10-01T00:00:00+00:00",
                           "note": "Plan completed."}
        })
    }

    /// The checks of the state as read give the same answer shared out over the cores as on
    /// one thread (`read` given: the sequential path), for a valid state and for each kind of
    /// refusal, wherever in the task list the problem lies.
    #[test]
    fn the_task_pass_over_cores_refuses_exactly_as_the_sequential_checks() {
        let n = TASKS_WORTH_A_THREAD + 137;
        type Change = Box<dyn Fn(&mut Value)>;
        let variants: Vec<(&str, Change)> = vec![
            ("valid", Box::new(|_| {})),
            (
                "unknown key late",
                Box::new(move |v| {
                    v["tasks"][n - 3]["colour"] = "red".into();
                }),
            ),
            (
                "wrong type early and late",
                Box::new(move |v| {
                    v["tasks"][2]["title"] = 7.into();
                    v["tasks"][n - 1]["gates"][0]["passes"] = "yes".into();
                }),
            ),
            (
                "count disagrees",
                Box::new(|v| v["completed_count"] = 3.into()),
            ),
            (
                "failing gate",
                Box::new(move |v| {
                    v["tasks"][n / 2]["gates"][0]["passes"] = false.into();
                    v["tasks"][n / 2]["gates"][0]["exit_code"] = 1.into();
                }),
            ),
            (
                "zero selection and a log outside",
                Box::new(move |v| {
                    v["tasks"][1]["gates"][0]["evidence"] = "ran=0".into();
                    v["tasks"][n - 2]["gates"][0]["evidence"] = "log=../x.log".into();
                }),
            ),
            (
                "pending task among completed",
                Box::new(move |v| {
                    v["tasks"][n - 5]["status"] = "pending".into();
                }),
            ),
        ];
        for (what, change) in variants {
            let mut value = completed_state(n);
            change(&mut value);
            let facts = PlanFacts::detached("PLAN_x");
            for completed_only in [true, false] {
                let shared = state_findings(&value, &facts, completed_only, None, None, None);
                let one_thread = state_findings(
                    &value,
                    &facts,
                    completed_only,
                    None,
                    Some(State::from_value(&value)),
                    None,
                );
                assert_eq!(
                    format!("{shared:?}"),
                    format!("{one_thread:?}"),
                    "{what} (completed_only {completed_only})"
                );
                assert_eq!(shared.is_ok(), what == "valid", "{what}: {shared:?}");
                // The moved task's own evidence is left to the candidate's check, on both paths.
                let repaired = Some(n as u64 / 2 + 1);
                let shared = state_findings(&value, &facts, completed_only, None, None, repaired);
                let one_thread = state_findings(
                    &value,
                    &facts,
                    completed_only,
                    None,
                    Some(State::from_value(&value)),
                    repaired,
                );
                assert_eq!(
                    format!("{shared:?}"),
                    format!("{one_thread:?}"),
                    "{what}, repaired"
                );
                if what == "failing gate" {
                    assert!(shared.is_ok(), "its own repair passes: {shared:?}");
                }
            }
        }
    }

    #[test]
    fn block_takes_since_first_and_a_reblock_keeps_it() {
        let mut req = UpdateRequest::new(1, TaskStatus::Blocked);
        req.block_reason = Some("staging down".into());
        let t = apply(V1.as_bytes(), &req).unwrap();
        let v = &t.candidate;
        assert_eq!(v["blocked"]["since"], "2026-10-05T09:00:00+00:00");
        assert_eq!(v["updated_at"], "2026-10-05T09:00:01.250000+00:00");
        assert_eq!(v["checkpoint"]["at"], "2026-10-05T09:00:02.500000+00:00");
        assert_eq!(v["blocked"]["needs"], "");
        assert_eq!(t.plan_status, PlanStatus::Blocked);
        // Re-blocking the same task keeps `since` and takes no clock value for it.
        req.block_reason = Some("still down".into());
        let again = apply(&t.candidate_bytes, &req).unwrap();
        assert_eq!(
            again.candidate["blocked"]["since"],
            "2026-10-05T09:00:00+00:00"
        );
        assert_eq!(again.candidate["blocked"]["reason"], "still down");
        assert_eq!(again.candidate["updated_at"], "2026-10-05T09:00:00+00:00");
    }

    #[test]
    fn the_candidate_state_is_the_state_read_from_the_candidate() {
        for (task, status) in [(1, TaskStatus::InProgress), (1, TaskStatus::Blocked)] {
            let mut req = UpdateRequest::new(task, status);
            req.gates = vec!["make test|0|ran=3/3".into()];
            req.block_reason = Some("down".into());
            let input = parse_json(V1.as_bytes()).unwrap();
            let t = apply(V1.as_bytes(), &req).unwrap();
            let mut candidate = t.candidate.clone();
            let built = state_with_task(&mut candidate, State::from_value(&input), 0);
            assert_eq!(candidate, t.candidate, "the candidate is given back whole");
            assert_eq!(built, State::from_value(&t.candidate));
        }
    }

    #[test]
    fn gate_json_keeps_its_order_and_takes_no_clock_value() {
        let mut req = UpdateRequest::new(1, TaskStatus::InProgress);
        req.gate_jsons = vec![
            r#"{"command": "make test", "exit_code": 0, "passes": true, "evidence": "ran=3/3", "last_run": "2026-10-01T00:00:00Z"}"#.into(),
        ];
        let t = apply(V1.as_bytes(), &req).unwrap();
        let gate = &t.candidate["tasks"][0]["gates"][0];
        let keys: Vec<&str> = gate
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            ["command", "exit_code", "passes", "evidence", "last_run"]
        );
        assert_eq!(
            t.candidate["checkpoint"]["at"],
            "2026-10-05T09:00:01.250000+00:00"
        );
    }

    #[test]
    fn identical_replay_is_not_appended_but_consumes_its_clock_value() {
        let mut req = UpdateRequest::new(1, TaskStatus::InProgress);
        req.gates = vec!["make test|0|ran=3/3".into()];
        let first = apply(V1.as_bytes(), &req).unwrap();
        let second = apply(&first.candidate_bytes, &req).unwrap();
        assert_eq!(
            second.candidate["tasks"][0]["gates"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        assert_eq!(
            second.candidate["checkpoint"]["at"],
            "2026-10-05T09:00:02.500000+00:00"
        );
    }

    #[test]
    fn completing_the_last_task_marks_the_plan_for_publication() {
        let mut bytes = V1.as_bytes().to_vec();
        for id in 1..=2 {
            let mut req = UpdateRequest::new(id, TaskStatus::Completed);
            req.gates = vec!["make test|0|ran=3/3".into()];
            let t = apply(&bytes, &req).unwrap();
            assert_eq!(t.completes_plan, id == 2);
            bytes = t.candidate_bytes;
        }
        let v: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            v["checkpoint"],
            json!({"task": 2, "step": "done", "at": "2026-10-05T09:00:02.500000+00:00", "note": "Plan completed."})
        );
        assert_eq!(v["completed_count"], 2);
    }

    #[test]
    fn argument_checks_come_first() {
        let mut req = UpdateRequest::new(1, TaskStatus::InProgress);
        req.commit = Some("ABCDEF1".into());
        assert_eq!(apply(b"not json", &req).unwrap_err().kind, "commit-not-hex");
        req.commit = None;
        req.worked = Some("é".repeat(WORKED_MAX + 1));
        assert_eq!(apply(b"not json", &req).unwrap_err().kind, "field-too-long");
        req.worked = Some("é".repeat(WORKED_MAX));
        assert_eq!(
            apply(b"not json", &req).unwrap_err().kind,
            "state-unreadable"
        );
    }
}
