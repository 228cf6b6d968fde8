//! A DWP plan's `state.json`, merged by meaning (`docs/merge.md`).
//!
//! - Tasks are matched by `id`. A status only moves forward (pending → in_progress or blocked
//!   → completed or skipped): both sides moving forward give the further status (in_progress
//!   against blocked: the later side's); a move backwards on one side — a reopen — is a
//!   conflict naming the task, since the amendment that allows it lives in the task log, which
//!   the driver cannot see.
//! - Gate records: ours in ours' order, then theirs' new records in `last_run` order, each
//!   placed before a later run of the same command so the latest run of every command stays
//!   the latest (a later pass supersedes an earlier fail and the reverse, as `update` reads
//!   them); a record both sides hold is kept once.
//! - `started_at` and `completed_at` set differently on both sides: the earlier. `commit`: one
//!   task completed with two different commits is a conflict. `outcome` notes: the later
//!   side's.
//! - `completed_count` and `status` are derived from the merged tasks, `updated_at` is the later
//!   of both sides; `checkpoint`, `blocked` and `updated_by` changed on both sides come from the
//!   later side; a checkpoint on a task the merge finished moves to the lowest unfinished task
//!   (step `start`), or to `done` on the last task; a blocker of a task that is not blocked any
//!   more is dropped.
//! - Everything else (unknown keys included) merges by structure ([`super::json`]).
//!
//! The merged state is then checked with every rule that needs only state.json (the closed
//! schema, the derived fields, the gate evidence rules); a state that breaks one
//! is never written as merged: the tasks concerned become conflicts. Rules that need the other
//! files of the plan (README agreement, approval line, amendments, log files) are `planseal
//! verify`'s after the merge.

use super::json::{
    Conflict, Resolution, Step, merge_keys, merge_set, merge_value, merged_keys, render, resolve,
    same_opt,
};
use super::text::Markers;
use super::{Merged, Sides, later_text};
use crate::dwp::check::gates::state_gate_findings;
use crate::dwp::check::semantics::{CheckMode, check_state};
use crate::dwp::model::schema::{shape_findings, validate_state_as};
use crate::dwp::model::{PlanFile, State, TaskStatus, derive_status_of, parse_json, state_era};
use crate::jsonfmt::{JsonStyle, to_bytes};
use crate::report::{Finding, Severity};
use serde_json::{Map, Value, json};
use std::cmp::Ordering;
use std::collections::HashMap;

/// Which side a value was taken from when both sides changed it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Ours,
    Theirs,
}

/// What the merge needs to know about the two sides besides their values.
struct Context<'a> {
    /// The side whose `updated_at` is later (ties broken by the bytes, so that swapping the
    /// sides gives the same answer).
    later: Side,
    ours_label: &'a str,
    theirs_label: &'a str,
    /// The path git merges (`%P`), for hints.
    path: &'a str,
}

impl Context<'_> {
    fn label(&self, side: Side) -> &str {
        match side {
            Side::Ours => self.ours_label,
            Side::Theirs => self.theirs_label,
        }
    }
    fn pick<'v>(&self, ours: &'v Value, theirs: &'v Value) -> &'v Value {
        match self.later {
            Side::Ours => ours,
            Side::Theirs => theirs,
        }
    }
}

/// Merges three versions of a state.json; `None` when ours or theirs is not a JSON object of a
/// supported schema (the caller then merges the text line by line).
pub fn merge(sides: &Sides<'_>, markers: &Markers, path: &str) -> Option<Merged> {
    let ours = parse_json(sides.ours).ok().filter(supported)?;
    let theirs = parse_json(sides.theirs).ok().filter(supported)?;
    let base = parse_json(sides.base).ok().filter(Value::is_object);
    let later = match later_text(updated_at(&ours), updated_at(&theirs)) {
        Ordering::Greater => Side::Ours,
        Ordering::Less => Side::Theirs,
        // Equal times: the larger bytes count as later, so the order of the sides never matters.
        Ordering::Equal if sides.ours >= sides.theirs => Side::Ours,
        Ordering::Equal => Side::Theirs,
    };
    let cx = Context {
        later,
        ours_label: label(&markers.ours, "ours"),
        theirs_label: label(&markers.theirs, "theirs"),
        path,
    };
    let (merged, mut conflicts, unchanged) = merge_states(base.as_ref(), ours, &theirs, &cx);
    let style = JsonStyle::detect(sides.ours);
    if conflicts.is_empty() && state_failures(&merged).is_empty() {
        // Nothing to change in ours: its bytes stay exactly as they are.
        let bytes = if unchanged {
            sides.ours.to_vec()
        } else {
            to_bytes(&merged, &style)
        };
        return Some(Merged::clean(bytes));
    }
    // The rare path: ours is read again to show its side of each conflict.
    let ours = parse_json(sides.ours).ok()?;
    if conflicts.is_empty() {
        conflicts = invalid_tasks(&merged, &ours, &theirs);
    }
    let mut notes: Vec<String> = conflicts.iter().flat_map(|c| c.notes.clone()).collect();
    let after = "after resolving, run `planseal verify`: the rules that need the plan's other files (README agreement, the approval line, amendments, gate logs) are checked there, not by the merge driver".to_string();
    if let Some(first) = conflicts.first_mut() {
        first.notes.push(after.clone());
    }
    notes.push(after);
    Some(Merged::conflicted(
        render(&merged, &conflicts, &style, markers),
        notes,
    ))
}

fn label<'a>(given: &'a str, fallback: &'a str) -> &'a str {
    if given.is_empty() { fallback } else { given }
}

fn supported(v: &Value) -> bool {
    v.is_object() && state_era(v).is_ok()
}

fn updated_at(v: &Value) -> &str {
    v.get("updated_at").and_then(Value::as_str).unwrap_or("")
}

/// The merge of the three values (see the module comment): the merged state, the places where
/// it holds ours' value because the sides disagree, and whether it is ours unchanged. Ours'
/// values are moved into the merged state, not copied (a 5,000-task state is mostly ours).
fn merge_states(
    base: Option<&Value>,
    ours: Value,
    theirs: &Value,
    cx: &Context<'_>,
) -> (Value, Vec<Conflict>, bool) {
    let (Value::Object(mut o), Some(t)) = (ours, theirs.as_object()) else {
        return (Value::Null, Vec::new(), false);
    };
    let b = base.and_then(Value::as_object);
    let keys: Vec<String> = merged_keys(&o, t).into_iter().map(str::to_owned).collect();
    let mut conflicts = Vec::new();
    let mut unchanged = true;
    let mut out = Map::new();
    for key in &keys {
        let key = key.as_str();
        let (bv, tv) = (field(b, key), t.get(key));
        let merged = if key == "tasks" {
            let (v, same) = merge_tasks(
                bv,
                o.get_mut(key).map(std::mem::take),
                tv,
                cx,
                &mut conflicts,
            );
            unchanged &= same;
            v
        } else {
            let ov = o.get(key);
            let mut path = vec![Step::Key(key.to_string())];
            let merged = match key {
                "updated_at" => match (ov, tv) {
                    (Some(x), Some(y)) => Some(later_value(x, y).clone()),
                    _ => merge_value(bv, ov, tv, &mut path, &mut conflicts),
                },
                // Taken from the later side when both changed them.
                "checkpoint" | "blocked" | "updated_by" => match resolve(bv, ov, tv) {
                    Resolution::Settled(v) => v.cloned(),
                    Resolution::Both => match (ov, tv) {
                        (Some(x), Some(y)) => Some(cx.pick(x, y).clone()),
                        _ => merge_value(bv, ov, tv, &mut path, &mut conflicts),
                    },
                },
                // Derived below from the merged tasks.
                "completed_count" | "status" => ov.or(tv).cloned(),
                _ => merge_value(bv, ov, tv, &mut path, &mut conflicts),
            };
            unchanged &= merged.as_ref() == ov;
            merged
        };
        if let Some(v) = merged {
            out.insert(key.to_string(), v);
        }
    }
    let derived = |m: &Map<String, Value>| {
        ["completed_count", "status", "blocked", "checkpoint"].map(|k| m.get(k).cloned())
    };
    let before = derived(&out);
    settle_derived(&mut out);
    unchanged &= derived(&out) == before;
    (Value::Object(out), conflicts, unchanged)
}

/// The later of two timestamps (as instants when both read as ISO-8601, else as text); equal
/// ones give the larger text, so that the order of the sides never matters.
fn later_value<'v>(a: &'v Value, b: &'v Value) -> &'v Value {
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    match later_text(&text(a), &text(b)) {
        Ordering::Less => b,
        Ordering::Greater => a,
        Ordering::Equal if text(a) >= text(b) => a,
        Ordering::Equal => b,
    }
}

/// Task statuses in the order a task moves: a later rank is further on.
fn rank(status: TaskStatus) -> u8 {
    match status {
        TaskStatus::Pending => 0,
        TaskStatus::InProgress | TaskStatus::Blocked => 1,
        TaskStatus::Completed | TaskStatus::Skipped => 2,
    }
}

fn status_of(v: Option<&Value>) -> Option<TaskStatus> {
    v.and_then(Value::as_str).and_then(TaskStatus::parse)
}

fn task_id(v: &Value) -> Option<u64> {
    v.get("id").and_then(Value::as_u64)
}

fn field<'a>(m: Option<&'a Map<String, Value>>, key: &str) -> Option<&'a Value> {
    m.and_then(|m| m.get(key))
}

fn list(v: Option<&Value>) -> Option<&[Value]> {
    v.and_then(Value::as_array).map(Vec::as_slice)
}

/// The task with `id` in a state.
fn task_of(state: &Value, id: u64) -> Option<&Value> {
    list(state.get("tasks"))?
        .iter()
        .find(|t| task_id(t) == Some(id))
}

/// The tasks merged by id: ours' order, then the tasks only theirs added (ours' tasks moved,
/// not copied); with whether the list is ours' unchanged. Ids that are missing or repeated make
/// the list merge by structure.
fn merge_tasks(
    base: Option<&Value>,
    ours: Option<Value>,
    theirs: Option<&Value>,
    cx: &Context<'_>,
    conflicts: &mut Vec<Conflict>,
) -> (Option<Value>, bool) {
    let by_id = |tasks: &[Value]| -> Option<HashMap<u64, usize>> {
        let mut map = HashMap::with_capacity(tasks.len());
        for (i, t) in tasks.iter().enumerate() {
            if map.insert(task_id(t)?, i).is_some() {
                return None;
            }
        }
        Some(map)
    };
    let structural = |ours: Option<Value>, conflicts: &mut Vec<Conflict>| {
        let path = &mut vec![Step::Key("tasks".into())];
        let v = merge_value(base, ours.as_ref(), theirs, path, conflicts);
        let same = v == ours;
        (v, same)
    };
    let Some(t) = list(theirs) else {
        return structural(ours, conflicts);
    };
    let Some(Value::Array(o)) = ours else {
        return structural(ours, conflicts);
    };
    let b = list(base).unwrap_or(&[]);
    let (Some(bi), Some(oi), Some(ti)) = (by_id(b), by_id(&o), by_id(t)) else {
        return structural(Some(Value::Array(o)), conflicts);
    };
    let extra: Vec<u64> = t
        .iter()
        .filter_map(task_id)
        .filter(|id| !oi.contains_key(id))
        .collect();
    let mut unchanged = extra.is_empty();
    let mut out = Vec::with_capacity(o.len() + extra.len());
    let ids: Vec<Option<u64>> = o.iter().map(task_id).collect();
    let mut ours_tasks = o.into_iter();
    for id in ids.into_iter().flatten().chain(extra) {
        let own = oi.contains_key(&id).then(|| ours_tasks.next()).flatten();
        let (bt, tt) = (bi.get(&id).map(|&i| &b[i]), ti.get(&id).map(|&i| &t[i]));
        let ot = own.as_ref();
        let mut path = vec![Step::Key("tasks".into()), Step::Index(out.len())];
        // A task one side left alone still goes through the status rules when the other side
        // moved its status: a move backwards is never taken silently.
        let equal = same_opt(ot, tt);
        let status_moved = !equal
            && status_of(ot.and_then(|v| v.get("status")))
                != status_of(tt.and_then(|v| v.get("status")));
        let keep_ours = equal || (!status_moved && same_opt(bt, tt));
        let resolution = if keep_ours {
            Resolution::Settled(ot)
        } else {
            resolve(bt, ot, tt)
        };
        let merged = match (resolution, ot, tt) {
            (Resolution::Settled(_), _, _) if keep_ours => own,
            (Resolution::Settled(v), _, _) if !status_moved => v.cloned(),
            (_, Some(Value::Object(x)), Some(Value::Object(y))) => Some(Value::Object(merge_task(
                id,
                bt.and_then(Value::as_object),
                x,
                y,
                cx,
                &mut path,
                conflicts,
            ))),
            (Resolution::Settled(v), _, _) => v.cloned(),
            (Resolution::Both, _, _) => {
                conflicts.push(Conflict::new(
                    path.clone(),
                    ot,
                    tt,
                    format!("task {id} was removed on one side and changed on the other"),
                ));
                own
            }
        };
        unchanged &= keep_ours;
        if let Some(v) = merged {
            out.push(v);
        }
    }
    (Some(Value::Array(out)), unchanged)
}

/// One task both sides changed.
fn merge_task(
    id: u64,
    base: Option<&Map<String, Value>>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    cx: &Context<'_>,
    path: &mut Vec<Step>,
    conflicts: &mut Vec<Conflict>,
) -> Map<String, Value> {
    merge_keys(
        base,
        ours,
        theirs,
        path,
        |key, bv, ov, tv, path| match resolve(bv, ov, tv) {
            Resolution::Settled(v) if key != "status" => v.cloned(),
            _ => match (key, ov, tv) {
                ("status", _, _) => merge_status(id, bv, ov, tv, cx, path, conflicts),
                ("started_at" | "completed_at", Some(x), Some(y)) => Some(earlier(x, y).clone()),
                ("gates", Some(Value::Array(x)), Some(Value::Array(y))) => {
                    let b = bv.and_then(Value::as_array).map(Vec::as_slice);
                    merge_gates(id, b.unwrap_or(&[]), x, y, path, conflicts).map(Value::Array)
                }
                ("outcome", Some(Value::Object(x)), Some(Value::Object(y))) => Some(Value::Object(
                    merge_outcome(bv.and_then(Value::as_object), x, y, cx),
                )),
                ("commit", Some(x), Some(y)) => {
                    conflicts.push(Conflict::new(
                        path.clone(),
                        ov,
                        tv,
                        format!(
                            "task {id} was completed with two different commits ({} on {}, {} on {}); keep the commit that holds the task's work",
                            x.as_str().unwrap_or("?"),
                            cx.ours_label,
                            y.as_str().unwrap_or("?"),
                            cx.theirs_label
                        ),
                    ));
                    ov.cloned()
                }
                _ => merge_value(bv, ov, tv, path, conflicts),
            },
        },
    )
}

fn earlier<'v>(a: &'v Value, b: &'v Value) -> &'v Value {
    if std::ptr::eq(later_value(a, b), a) {
        b
    } else {
        a
    }
}

/// A task's status along the lattice (see the module comment).
fn merge_status(
    id: u64,
    base: Option<&Value>,
    ours: Option<&Value>,
    theirs: Option<&Value>,
    cx: &Context<'_>,
    path: &[Step],
    conflicts: &mut Vec<Conflict>,
) -> Option<Value> {
    if ours == theirs {
        return ours.cloned();
    }
    let (b, o, t) = (status_of(base), status_of(ours), status_of(theirs));
    let (Some(o), Some(t), Some(ov), Some(tv)) = (o, t, ours, theirs) else {
        return merge_value(base, ours, theirs, &mut path.to_vec(), conflicts);
    };
    let backwards = |side: TaskStatus| {
        b.is_some_and(|b| {
            side != b
                && (rank(side) < rank(b)
                    || matches!(b, TaskStatus::Completed | TaskStatus::Skipped))
        })
    };
    for (side, status, other) in [(Side::Ours, o, t), (Side::Theirs, t, o)] {
        if backwards(status) {
            let from = b.map_or("?", TaskStatus::as_str);
            let keep = cx.label(if side == Side::Ours {
                Side::Theirs
            } else {
                Side::Ours
            });
            conflicts.push(Conflict::new(
                path.to_vec(),
                ours,
                theirs,
                format!(
                    "task {id} moved back on {} ({from} → {status}) while {} has it {other}; a reopen is not merged: take {keep}'s `{other}`, then re-apply the reopen after the merge with `planseal update {} --task {id} --status {status} --reopen-reason \"…\"` (its amendment is in the task log)",
                    cx.label(side),
                    cx.label(if side == Side::Ours { Side::Theirs } else { Side::Ours }),
                    cx.path
                ),
            ));
            return ours.cloned();
        }
    }
    if Some(o) == b {
        return theirs.cloned();
    }
    if Some(t) == b {
        return ours.cloned();
    }
    match rank(o).cmp(&rank(t)) {
        Ordering::Greater => ours.cloned(),
        Ordering::Less => theirs.cloned(),
        // in_progress against blocked: the later side's.
        Ordering::Equal if rank(o) == 1 => Some(cx.pick(ov, tv).clone()),
        Ordering::Equal => {
            conflicts.push(Conflict::new(
                path.to_vec(),
                ours,
                theirs,
                format!(
                    "task {id} is {o} on {} and {t} on {}; decide which is true",
                    cx.ours_label, cx.theirs_label
                ),
            ));
            ours.cloned()
        }
    }
}

/// A gate record's `command` and `last_run`.
fn command(v: &Value) -> Option<&Value> {
    v.get("command")
}
fn last_run(v: &Value) -> &str {
    v.get("last_run").and_then(Value::as_str).unwrap_or("")
}

/// The gate records of a task both sides changed (see the module comment). Records of the
/// ancestor are merged place by place; a side that dropped one conflicts.
fn merge_gates(
    id: u64,
    base: &[Value],
    ours: &[Value],
    theirs: &[Value],
    path: &[Step],
    conflicts: &mut Vec<Conflict>,
) -> Option<Vec<Value>> {
    let conflict = |note: String, conflicts: &mut Vec<Conflict>| {
        conflicts.push(Conflict::new(
            path.to_vec(),
            Some(&Value::Array(ours.to_vec())),
            Some(&Value::Array(theirs.to_vec())),
            note,
        ));
        Some(ours.to_vec())
    };
    let n = base.len();
    if ours.len() < n || theirs.len() < n {
        return conflict(
            format!(
                "task {id}: a gate record of the common ancestor was removed on one side; gate records are only ever appended"
            ),
            conflicts,
        );
    }
    let mut merged: Vec<Value> = Vec::with_capacity(ours.len() + theirs.len() - n);
    for i in 0..n {
        match resolve(Some(&base[i]), Some(&ours[i]), Some(&theirs[i])) {
            Resolution::Settled(v) => merged.extend(v.cloned()),
            Resolution::Both => {
                return conflict(
                    format!(
                        "task {id}: gate record {} was rewritten differently on both sides",
                        i + 1
                    ),
                    conflicts,
                );
            }
        }
    }
    merged.extend(ours[n..].iter().cloned());
    let mut added: Vec<&Value> = theirs[n..].iter().filter(|r| !merged.contains(r)).collect();
    added.sort_by(|a, b| later_text(last_run(a), last_run(b)));
    for record in added {
        let same = |r: &Value| command(r) == command(record);
        if merged
            .iter()
            .any(|r| same(r) && later_text(last_run(r), last_run(record)) == Ordering::Equal)
        {
            return conflict(
                format!(
                    "task {id}: gate {} has two different runs recorded at the same time ({}); keep the one that really ran",
                    command(record).map(Value::to_string).unwrap_or_default(),
                    last_run(record)
                ),
                conflicts,
            );
        }
        // Before the first later run of the same command, so that run stays the latest.
        let at = merged
            .iter()
            .position(|r| same(r) && later_text(last_run(r), last_run(record)) == Ordering::Greater)
            .unwrap_or(merged.len());
        merged.insert(at, record.clone());
    }
    Some(merged)
}

/// `outcome`: the lists (`tried`, `failed`) as sets, the texts from the later side.
fn merge_outcome(
    base: Option<&Map<String, Value>>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
    cx: &Context<'_>,
) -> Map<String, Value> {
    merge_keys(
        base,
        ours,
        theirs,
        &mut Vec::new(),
        |_, bv, ov, tv, _| match resolve(bv, ov, tv) {
            Resolution::Settled(v) => v.cloned(),
            Resolution::Both => match (ov, tv) {
                (Some(Value::Array(x)), Some(Value::Array(y))) => {
                    let b = list(bv).unwrap_or(&[]);
                    Some(Value::Array(merge_set(b, x, y)))
                }
                (Some(x), Some(y)) => Some(cx.pick(x, y).clone()),
                (x, y) => x.or(y).cloned(),
            },
        },
    )
}

/// `blocked`, `checkpoint`, `completed_count` and `status` made to follow the merged tasks.
fn settle_derived(top: &mut Map<String, Value>) {
    let tasks: Vec<(Option<u64>, Option<TaskStatus>)> = top
        .get("tasks")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|t| (task_id(t), status_of(t.get("status"))))
                .collect()
        })
        .unwrap_or_default();
    let status_of_task = |id: u64| {
        tasks
            .iter()
            .find(|(i, _)| *i == Some(id))
            .and_then(|(_, s)| *s)
    };
    // A blocker of a task that is no longer blocked (finished on the other side) goes.
    let blocked_task = top
        .get("blocked")
        .and_then(|b| b.get("task"))
        .and_then(Value::as_u64);
    if let Some(task) = blocked_task
        && status_of_task(task) != Some(TaskStatus::Blocked)
    {
        top.insert("blocked".into(), Value::Null);
    }
    // A checkpoint on a task the merge finished moves on, as `update` would have moved it.
    let finished =
        |s: Option<TaskStatus>| matches!(s, Some(TaskStatus::Completed | TaskStatus::Skipped));
    let at = top.get("updated_at").cloned().unwrap_or(Value::Null);
    if let Some(Value::Object(cp)) = top.get_mut("checkpoint")
        && let Some(task) = cp.get("task").and_then(Value::as_u64)
        && finished(status_of_task(task))
    {
        let next = tasks
            .iter()
            .find(|(_, s)| !finished(*s))
            .and_then(|(id, _)| *id);
        let last = tasks.last().and_then(|(id, _)| *id).unwrap_or(task);
        let (target, step, note) = match next {
            Some(next) => (
                next,
                "start",
                format!("Task {task} closed. Next: Task {next}."),
            ),
            None => (last, "done", "Plan completed.".to_string()),
        };
        for (k, v) in [
            ("task", json!(target)),
            ("step", json!(step)),
            ("at", at),
            ("note", json!(note)),
        ] {
            cp.insert(k.into(), v);
        }
    }
    let completed = tasks
        .iter()
        .filter(|(_, s)| *s == Some(TaskStatus::Completed))
        .count();
    let has_blocker = top.get("blocked").is_some_and(Value::is_object);
    let status = derive_status_of(tasks.iter().map(|(_, s)| *s), has_blocker);
    if top.contains_key("completed_count") {
        top.insert("completed_count".into(), json!(completed));
    }
    if top.contains_key("status") {
        top.insert("status".into(), json!(status.as_str()));
    }
}

/// Every failing rule that needs only state.json: the supported schema, the closed shape, the
/// semantics in strict mode (derived fields, blocker, checkpoint), the gate evidence rules
/// (without the log files). Strict order is a rule of transitions, not of a state (a reopen
/// leaves the later tasks as they are): the merge keeps it by moving statuses only forward.
pub fn state_failures(value: &Value) -> Vec<Finding> {
    let era = match state_era(value) {
        Ok(era) => era,
        Err(e) => return vec![e.finding()],
    };
    let mut out: Vec<Finding> = shape_findings(&validate_state_as(value, era), PlanFile::State)
        .into_iter()
        .filter(|f| f.severity == Severity::Fail)
        .collect();
    let state = State::from_value(value);
    out.extend(check_state(&state, CheckMode::Strict));
    out.extend(state_gate_findings(&state, None));
    out.retain(|f| f.severity == Severity::Fail);
    out
}

/// The merged state's failing rules as conflicts: each task a failure names becomes a conflict
/// between ours' and theirs' version of it; a failure that names no task makes the whole
/// state one.
fn invalid_tasks(merged: &Value, ours: &Value, theirs: &Value) -> Vec<Conflict> {
    let failures = state_failures(merged);
    if failures.is_empty() {
        return Vec::new();
    }
    let note = |f: &Finding| {
        let mut s = format!("the merge would break a rule of state.json: {}", f.message);
        if let Some(h) = &f.hint {
            s.push_str(&format!(" ({h})"));
        }
        s
    };
    let index_of = |id: u64| {
        merged
            .get("tasks")
            .and_then(Value::as_array)
            .and_then(|a| a.iter().position(|t| task_id(t) == Some(id)))
    };
    let mut out: Vec<Conflict> = Vec::new();
    let mut whole: Vec<String> = Vec::new();
    for f in &failures {
        match f.task.and_then(|id| index_of(id).map(|i| (id, i))) {
            Some((id, i)) => {
                let path = vec![Step::Key("tasks".into()), Step::Index(i)];
                match out.iter_mut().find(|c| c.path == path) {
                    Some(c) => c.notes.push(note(f)),
                    None => out.push(Conflict::new(
                        path,
                        task_of(ours, id),
                        task_of(theirs, id),
                        format!("task {id}: {}", note(f)),
                    )),
                }
            }
            None => whole.push(note(f)),
        }
    }
    if !whole.is_empty() {
        let mut c = Conflict::new(Vec::new(), Some(ours), Some(theirs), whole.remove(0));
        c.notes.extend(whole);
        return vec![c];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_the_task_life_cycle() {
        assert!(rank(TaskStatus::Pending) < rank(TaskStatus::InProgress));
        assert_eq!(rank(TaskStatus::InProgress), rank(TaskStatus::Blocked));
        assert!(rank(TaskStatus::Blocked) < rank(TaskStatus::Completed));
    }
}
