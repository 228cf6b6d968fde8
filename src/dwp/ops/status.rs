//! `status`: the resume view (`docs/status.md`). For every system found in the workspace — the
//! DWP plans, GSD's `.planning/STATE.md`, Reversa's `.reversa/state.json`, the checkpoint
//! `PROJECT-CHECKPOINT.md`, found as `verify` finds them — one screen with where the work stands
//! and the next command to run: for a plan, its status and counts, the current task and its
//! checkpoint, the blocker, the approval, the lock and whether its owner is alive, the
//! publication marker, the receipt (and which files changed since publication).
//!
//! It reads only what it shows: state.json, the lock, the marker, and, when there is a receipt,
//! the files the receipt covers (to hash them). It never runs the checks of `verify`, and it
//! writes nothing.

use crate::dwp::check::receipt::{ReceiptCheck, check_receipt};
use crate::dwp::layout;
use crate::dwp::locate::{self, DiscoverError, DiscoverOptions, PlanLocation};
use crate::dwp::model::{
    Approval, Blocker, Checkpoint, Locator, LocatorKind, PlanStatus, State, Task, TaskStatus,
    parse_json,
};
use crate::dwp::read::PlanFiles;
use crate::recovery::store::{self, LockHolder};
use crate::report::LockOwnerState;
use crate::write::{Target, lock_owner_state};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What to show: the same selection as `verify` (cwd, PATH, `--plan`, `--dwp-dir`), found the
/// same way.
pub type StatusOptions = DiscoverOptions;

/// Why status could not produce a view (a usage error: exit 2).
#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    /// Finding the plans failed (a PATH that is missing, a `--plan` that names no plan).
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    /// Nothing of any system was found in the folder searched (the value).
    #[error(
        "nothing to show under {0}: no .dwp/plans/PLAN_* folder (and no GSD, Reversa or checkpoint file)"
    )]
    NothingFound(PathBuf),
}

impl StatusError {
    /// What to do about it, printed as the error's `hint:` line.
    pub fn hint(&self) -> &'static str {
        match self {
            StatusError::Discover(e) => e.hint(),
            StatusError::NothingFound(_) => {
                "run it inside a repository with .dwp/plans/, or pass a plan folder, --dwp-dir DIR or DWP_DIR"
            }
        }
    }
}

/// The resume view of a workspace: one entry per system found (the `--json` document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StatusView {
    /// The DWP plans, in the order `verify` lists them.
    pub plans: Vec<PlanView>,
    /// The other systems' files (GSD, Reversa, checkpoint), when the whole workspace is shown.
    pub others: Vec<OtherView>,
}

/// One DWP plan's resume view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PlanView {
    /// The plan folder's name (`PLAN_x`, or `repo:PLAN_x` for an orchestrator-hub child).
    pub plan: String,
    /// The plan folder, relative to where the command runs when it lies below it.
    pub path: String,
    /// `ok`, `missing`, `unparseable` or `unreadable` (an I/O error): whether state.json could
    /// be read.
    pub state: &'static str,
    /// Why state.json could not be read (the I/O error), when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// The plan status state.json records (`pending`, `in_progress`, `blocked`, `completed`).
    pub status: Option<String>,
    /// How many tasks have each status.
    pub counts: Counts,
    /// The task to resume: the one in progress, else the blocked one, else the checkpoint's,
    /// else the first not completed.
    pub current_task: Option<TaskView>,
    /// The checkpoint state.json records.
    pub checkpoint: Option<CheckpointView>,
    /// The active blocker record.
    pub blocker: Option<BlockerView>,
    /// The approval recorded (`approved`, `pre_approved`, `pending`, …), when state.json has one.
    pub approval: Option<String>,
    /// The writer's lock beside state.json, when one is there.
    pub lock: Option<LockView>,
    /// The publication marker `.finalizing.json` is there: a publication was interrupted.
    pub marker: bool,
    /// The receipt: `none`, `matches`, `changed` or `unreadable`.
    pub receipt: &'static str,
    /// With `changed`, what changed since publication (`README.md changed`, …); with
    /// `unreadable`, why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub receipt_changes: Vec<String>,
    /// What needs action, one phrase each (empty when nothing does).
    pub attention: Vec<String>,
    /// The commands to run, the next one first.
    pub next: Vec<String>,
}

/// How many tasks have each status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Counts {
    /// Every task of state.json.
    pub total: u64,
    /// `completed`.
    pub completed: u64,
    /// `in_progress`.
    pub in_progress: u64,
    /// `blocked`.
    pub blocked: u64,
    /// `skipped`.
    pub skipped: u64,
    /// `pending` (and a status state.json does not know).
    pub pending: u64,
}

/// A task as the view shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct TaskView {
    /// The task's id.
    pub id: u64,
    /// Its title, when state.json records one.
    pub title: Option<String>,
    /// Its status as written.
    pub status: Option<String>,
}

/// The checkpoint: where to resume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CheckpointView {
    /// The task to resume at.
    pub task: Option<u64>,
    /// Where in it (`start`, `done`, …).
    pub step: Option<String>,
    /// The note for whoever resumes.
    pub note: Option<String>,
    /// When it was written.
    pub at: Option<String>,
}

/// The blocker record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BlockerView {
    /// The blocked task.
    pub task: Option<u64>,
    /// Why it is blocked.
    pub reason: Option<String>,
    /// What would unblock it.
    pub needs: Option<String>,
    /// Since when.
    pub since: Option<String>,
}

/// A lock beside a state file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LockView {
    /// The lock (`state.json.lock/`, a pid file), as shown.
    pub path: String,
    /// The owner's pid, when the lock records one.
    pub pid: Option<u32>,
    /// The owner's host, when the lock records one.
    pub host: Option<String>,
    /// What the owner was doing, when the lock records it.
    pub operation: Option<String>,
    /// Whether the owner is alive, provably dead, or unknown (an empty lock directory, another
    /// host, an unreadable record).
    pub owner: LockOwnerState,
    /// The owner and its status as one sentence.
    pub detail: String,
}

/// Another system's file, at a glance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct OtherView {
    /// `gsd`, `reversa` or `checkpoint`.
    pub system: &'static str,
    /// The file, relative to where the command runs when it lies below it.
    pub file: String,
    /// Where the work stands, one line each (GSD's statusline, Reversa's progress, the
    /// checkpoint's open next steps).
    pub summary: Vec<String>,
    /// The writer's lock beside the file, when one is there.
    pub lock: Option<LockView>,
    /// What needs action.
    pub attention: Vec<String>,
    /// The commands to run, the next one first.
    pub next: Vec<String>,
}

impl StatusView {
    /// Something needs action (`--exit-code` exits 1): a marker, a lock whose owner is not
    /// alive, a blocker, a receipt that no longer matches, a state.json that cannot be read.
    pub fn needs_action(&self) -> bool {
        self.plans.iter().any(|p| !p.attention.is_empty())
            || self.others.iter().any(|o| !o.attention.is_empty())
    }

    /// A plan's state.json could not be read (an I/O error, not a missing file): the view is
    /// incomplete, and the command exits 2 as for UNVERIFIED.
    pub fn incomplete(&self) -> bool {
        self.plans.iter().any(|p| p.state == "unreadable")
    }

    /// The terminal form: one block per plan and per other system.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for p in &self.plans {
            out.push_str(&p.to_text());
            out.push('\n');
        }
        for o in &self.others {
            out.push_str(&o.to_text());
            out.push('\n');
        }
        let n = self
            .plans
            .iter()
            .filter(|p| !p.attention.is_empty())
            .count()
            + self
                .others
                .iter()
                .filter(|o| !o.attention.is_empty())
                .count();
        if n == 0 {
            out.push_str("Nothing needs action.\n");
        } else {
            out.push_str(&format!("{n} need(s) action.\n"));
        }
        out
    }
}

impl PlanView {
    /// The plan's block of the text form.
    pub fn to_text(&self) -> String {
        let mut out = format!("Plan: {} ({})\n", self.plan, self.path);
        let c = &self.counts;
        match self.state {
            "ok" => out.push_str(&format!(
                "  status: {} — {}/{} completed, {} in progress, {} blocked, {} skipped, {} pending\n",
                self.status.as_deref().unwrap_or("(none)"),
                c.completed,
                c.total,
                c.in_progress,
                c.blocked,
                c.skipped,
                c.pending
            )),
            other => out.push_str(&format!("  status: state.json is {other}\n")),
        }
        if let Some(t) = &self.current_task {
            out.push_str(&format!(
                "  current task: {}{} [{}]\n",
                t.id,
                t.title
                    .as_deref()
                    .map(|s| format!(" — {s}"))
                    .unwrap_or_default(),
                t.status.as_deref().unwrap_or("(none)")
            ));
        }
        if let Some(cp) = &self.checkpoint {
            let task = cp.task.map(|t| format!("task {t}")).unwrap_or("-".into());
            out.push_str(&format!(
                "  checkpoint: {task}, step {}{}\n",
                cp.step.as_deref().unwrap_or("-"),
                cp.at
                    .as_deref()
                    .map(|a| format!(" (at {a})"))
                    .unwrap_or_default()
            ));
            if let Some(note) = &cp.note {
                out.push_str(&format!("    note: {note}\n"));
            }
        }
        if let Some(b) = &self.blocker {
            out.push_str(&format!(
                "  blocker: task {}: {}\n",
                b.task.map(|t| t.to_string()).unwrap_or("?".into()),
                b.reason.as_deref().unwrap_or("(no reason)")
            ));
            if let Some(needs) = &b.needs {
                out.push_str(&format!("    needs: {needs}\n"));
            }
        }
        if let Some(a) = &self.approval {
            out.push_str(&format!("  approval: {a}\n"));
        }
        match &self.lock {
            Some(l) => out.push_str(&format!("  lock: {} — {}\n", l.path, l.detail)),
            None => out.push_str("  lock: none\n"),
        }
        out.push_str(&format!(
            "  marker: {}\n",
            if self.marker {
                "present (a publication was interrupted)"
            } else {
                "none"
            }
        ));
        let receipt = match self.receipt {
            "none" => "none (not published)".to_string(),
            "matches" => "matches (published, unchanged since)".to_string(),
            "changed" => "changed since publication".to_string(),
            other => other.to_string(),
        };
        out.push_str(&format!("  receipt: {receipt}\n"));
        for ch in &self.receipt_changes {
            out.push_str(&format!("    {ch}\n"));
        }
        for a in &self.attention {
            out.push_str(&format!("  needs action: {a}\n"));
        }
        push_next(&mut out, &self.next);
        out
    }
}

impl OtherView {
    /// The file's block of the text form.
    pub fn to_text(&self) -> String {
        let name = match self.system {
            "gsd" => "GSD",
            "reversa" => "Reversa",
            _ => "Checkpoint",
        };
        let mut out = format!("{name}: {}\n", self.file);
        for s in &self.summary {
            out.push_str(&format!("  {s}\n"));
        }
        if let Some(l) = &self.lock {
            out.push_str(&format!("  lock: {} — {}\n", l.path, l.detail));
        }
        for a in &self.attention {
            out.push_str(&format!("  needs action: {a}\n"));
        }
        push_next(&mut out, &self.next);
        out
    }
}

fn push_next(out: &mut String, next: &[String]) {
    match next.split_first() {
        None => out.push_str("  next: nothing to do\n"),
        Some((first, rest)) => {
            out.push_str(&format!("  next: {first}\n"));
            for r in rest {
                out.push_str(&format!("  then: {r}\n"));
            }
        }
    }
}

/// The resume view of what `opts` selects; read-only.
pub fn status(opts: &StatusOptions) -> Result<StatusView, StatusError> {
    let plans = locate::discover(opts)?;
    let mut view = StatusView {
        plans: plans.iter().map(|p| plan_view(p, &opts.cwd)).collect(),
        others: Vec::new(),
    };
    let whole_workspace = opts.path.is_none() && opts.plan.is_none() && opts.dwp_dir.is_none();
    let root = locate::find_root(&opts.cwd);
    if whole_workspace {
        for g in crate::gsd::detect(&root) {
            view.others.push(gsd_view(&g, &opts.cwd));
        }
        for r in crate::reversa::detect(&root) {
            view.others.push(reversa_view(&r, &opts.cwd));
        }
        for c in crate::checkpoint::detect(&root) {
            view.others.push(checkpoint_view(&c, &opts.cwd));
        }
    }
    if view.plans.is_empty() && view.others.is_empty() {
        let searched = match (&opts.dwp_dir, &opts.path) {
            (Some(d), _) => opts.cwd.join(d),
            (None, Some(p)) => opts.cwd.join(p),
            (None, None) => root,
        };
        return Err(StatusError::NothingFound(searched));
    }
    Ok(view)
}

/// `path` relative to `cwd` when it lies below it, else as given.
fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string())
}

/// The lock of `target`, if one is there, with its owner's status.
fn lock_view(target: &Target, cwd: &Path) -> Result<Option<LockView>, String> {
    let holder = match store::inspect(target.path(), target.lock_style()) {
        Ok(Some(h)) => h,
        Ok(None) => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let status = store::owner_status(&holder);
    let (pid, host, operation) = match &holder {
        LockHolder::Owner(o) => (Some(o.pid), Some(o.host.clone()), Some(o.operation.clone())),
        LockHolder::Pid { pid } => (Some(*pid), None, None),
        _ => (None, None, None),
    };
    Ok(Some(LockView {
        path: shown(&target.lock_path(), cwd),
        pid,
        host,
        operation,
        owner: lock_owner_state(&status),
        detail: format!("{holder} ({status})"),
    }))
}

/// What a lock asks for: (attention, next command) — nothing while its owner is alive.
fn lock_advice(lock: &LockView, unlock_path: &str) -> (Option<String>, Option<String>) {
    match lock.owner {
        LockOwnerState::Alive => (
            None,
            Some(format!(
                "wait: the lock's owner is working (pid {})",
                lock.pid.map(|p| p.to_string()).unwrap_or("?".into())
            )),
        ),
        LockOwnerState::Dead => (
            Some("a lock whose owner is dead (a writer was killed)".into()),
            Some(format!("planseal unlock {unlock_path}")),
        ),
        LockOwnerState::Unknown => (
            Some("a lock whose owner is unknown".into()),
            Some(format!(
                "planseal unlock {unlock_path} --force --reason \"…\"   (first check that no DWP helper — update-state.py, finalize_plan.py — or other writer is running)"
            )),
        ),
    }
}

fn plan_view(loc: &PlanLocation, cwd: &Path) -> PlanView {
    let dir = &loc.dir;
    let path = shown(dir, cwd);
    let plan = match &loc.hub_repository {
        Some(repo) => format!("{}:{}", repo.trim_start_matches("repositories/"), loc.name),
        None => loc.name.clone(),
    };
    let state_rel = format!("{path}/{}", layout::STATE_FILE);
    let mut view = PlanView {
        plan,
        path: path.clone(),
        state: "ok",
        unreadable: None,
        status: None,
        counts: Counts::default(),
        current_task: None,
        checkpoint: None,
        blocker: None,
        approval: None,
        lock: None,
        marker: dir.join(layout::MARKER_FILE).exists(),
        receipt: "none",
        receipt_changes: Vec::new(),
        attention: Vec::new(),
        next: Vec::new(),
    };
    let target = layout::state_target(dir);
    match lock_view(&target, cwd) {
        Ok(lock) => view.lock = lock,
        Err(e) => view.attention.push(format!("the lock cannot be read: {e}")),
    }
    let state_bytes = match crate::dwp::read::read_plan_file(dir, layout::STATE_FILE) {
        Ok(Some(b)) => Some(b),
        Ok(None) => {
            view.state = "missing";
            None
        }
        Err(e) => {
            view.unreadable = Some(format!("state.json cannot be read: {}", e.reason()));
            view.state = "unreadable";
            None
        }
    };
    let state = state_bytes.as_deref().and_then(read_state);
    if state_bytes.is_some() && state.is_none() {
        view.state = "unparseable";
    }
    if let Some(state) = &state {
        fill_from_state(&mut view, state);
    }
    // The receipt: hashed only when there is one, and only the files it covers.
    if dir.join(layout::RECEIPT_FILE).exists() {
        match (PlanFiles::load(dir, &loc.name), &state_bytes, &state) {
            (Ok(mut files), Some(bytes), Some(state)) => {
                files.read_more(
                    state
                        .tasks
                        .iter()
                        .filter_map(|t| t.artifact_file())
                        .collect::<Vec<_>>(),
                );
                match check_receipt(&files, bytes, state) {
                    ReceiptCheck::Missing => {}
                    ReceiptCheck::Matches => view.receipt = "matches",
                    ReceiptCheck::Mismatch(changes) => {
                        view.receipt = "changed";
                        view.receipt_changes = changes;
                    }
                    ReceiptCheck::Unparseable(why) => {
                        view.receipt = "unreadable";
                        view.receipt_changes = vec![why];
                    }
                }
            }
            (Err(e), _, _) => {
                view.receipt = "unreadable";
                view.receipt_changes = vec![e];
            }
            _ => {
                view.receipt = "changed";
                view.receipt_changes = vec!["state.json changed".into()];
            }
        }
    }
    advise(&mut view, &path, &state_rel, state.as_ref());
    view
}

fn fill_from_state(view: &mut PlanView, state: &State) {
    view.status = state.status.map(|s| s.as_str().to_string());
    for t in &state.tasks {
        view.counts.total += 1;
        match t.status {
            Some(TaskStatus::Completed) => view.counts.completed += 1,
            Some(TaskStatus::InProgress) => view.counts.in_progress += 1,
            Some(TaskStatus::Blocked) => view.counts.blocked += 1,
            Some(TaskStatus::Skipped) => view.counts.skipped += 1,
            _ => view.counts.pending += 1,
        }
    }
    view.approval = state
        .approval
        .map(|a| a.as_str().to_string())
        .or_else(|| state.approval_raw.clone());
    view.checkpoint = state.checkpoint.as_ref().map(|c| CheckpointView {
        task: c.task,
        step: c.step.clone(),
        note: c.note.clone(),
        at: c.at.clone(),
    });
    view.blocker = state.blocked.as_ref().map(|b| BlockerView {
        task: b.task,
        reason: b.reason.clone(),
        needs: b.needs.clone(),
        since: b.since.clone(),
    });
    let with = |s: TaskStatus| state.tasks.iter().find(|t| t.status == Some(s));
    let current = with(TaskStatus::InProgress)
        .or_else(|| with(TaskStatus::Blocked))
        .or_else(|| {
            state
                .checkpoint
                .as_ref()
                .and_then(|c| c.task)
                .and_then(|n| state.task(n))
                .filter(|t| !t.is_completed())
        })
        .or_else(|| {
            state
                .tasks
                .iter()
                .find(|t| !t.is_completed() && t.status != Some(TaskStatus::Skipped))
        });
    view.current_task = current.and_then(|t| {
        Some(TaskView {
            id: t.id?,
            title: t.title.clone(),
            status: t.status_raw.clone(),
        })
    });
}

/// What needs action and the commands to run, most urgent first: a lock, the marker, an
/// unreadable state, the receipt, the blocker, then the plan's own next step.
fn advise(view: &mut PlanView, path: &str, state_rel: &str, state: Option<&State>) {
    let mut attention = std::mem::take(&mut view.attention);
    let mut next = Vec::new();
    if let Some(lock) = &view.lock {
        let (a, n) = lock_advice(lock, path);
        attention.extend(a);
        next.extend(n);
    }
    if view.marker {
        attention.push("a publication was interrupted (.finalizing.json is there)".into());
        next.push(format!("planseal recover {path}"));
    }
    match view.state {
        "missing" | "unparseable" => {
            attention.push(format!("state.json is {}", view.state));
            next.push(format!("planseal rebuild {path}"));
        }
        "unreadable" => attention.push(
            view.unreadable
                .clone()
                .unwrap_or_else(|| "state.json cannot be read".into()),
        ),
        _ => {}
    }
    match view.receipt {
        "changed" => {
            attention.push("files changed since publication".into());
            next.push(format!("planseal diff {path} --since-publication"));
            next.push(format!("planseal finalize {path}"));
        }
        "unreadable" => {
            attention.push("the receipt cannot be read".into());
            next.push(format!("planseal verify {path}"));
        }
        _ => {}
    }
    if let Some(b) = &view.blocker {
        attention.push(format!(
            "task {} is blocked",
            b.task.map(|t| t.to_string()).unwrap_or("?".into())
        ));
        if let Some(t) = b.task {
            next.push(format!(
                "planseal update {state_rel} --task {t} --status in_progress --resolve-blocker   (once it has {})",
                b.needs.as_deref().unwrap_or("what it needs")
            ));
        }
    }
    if let Some(promotion) = state.and_then(|s| s.promotion.as_ref()) {
        // Every transition waits for it: `promote` resumes from the recorded phase.
        attention.push(format!(
            "a Lite → Full promotion was interrupted (phase {})",
            promotion.phase.map_or("unknown", |p| p.as_str())
        ));
        next.push(format!("planseal promote {path}"));
    }
    if attention.is_empty()
        && let Some(state) = state
    {
        let all_done = state
            .tasks
            .iter()
            .all(|t| t.is_completed() || t.status == Some(TaskStatus::Skipped));
        if let Some(t) = &view.current_task {
            if state.approval == Some(Approval::Pending) {
                next.push(
                    "get the plan approved (approval: pending): update refuses to move a task until then"
                        .to_string(),
                );
            }
            match t.status.as_deref() {
                Some("in_progress") => next.push(format!(
                    "planseal update {state_rel} --task {} --status completed --gate \"COMMAND|0|EVIDENCE\" --commit COMMIT",
                    t.id
                )),
                _ => next.push(format!(
                    "planseal update {state_rel} --task {} --status in_progress",
                    t.id
                )),
            }
        } else if all_done && view.receipt == "none" && !state.tasks.is_empty() {
            next.push(format!("planseal finalize {path}"));
        }
    }
    view.attention = attention;
    view.next = next;
}

fn read_text(path: &Path) -> Option<String> {
    planseal_recovery::read::read(path, planseal_recovery::read::Kind::Document)
        .ok()
        .flatten()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
}

fn other_view(
    system: &'static str,
    file: &Path,
    cwd: &Path,
    target: &Target,
    summary: Vec<String>,
    mut next: Vec<String>,
) -> OtherView {
    let shown_file = shown(file, cwd);
    let mut attention = Vec::new();
    let lock = match lock_view(target, cwd) {
        Ok(l) => l,
        Err(e) => {
            attention.push(format!("the lock cannot be read: {e}"));
            None
        }
    };
    if let Some(l) = &lock {
        let (a, n) = lock_advice(l, &shown_file);
        attention.extend(a);
        if let Some(n) = n {
            next.insert(0, n);
        }
    }
    OtherView {
        system,
        file: shown_file,
        summary,
        lock,
        attention,
        next,
    }
}

fn gsd_view(file: &Path, cwd: &Path) -> OtherView {
    let summary = match read_text(file) {
        Some(text) => {
            let line =
                crate::gsd::statusline::render_text(&text, crate::gsd::statusline::Format::Full);
            vec![if line.is_empty() {
                "(the statusline shows nothing for this file)".to_string()
            } else {
                line
            }]
        }
        None => vec!["(the file cannot be read)".to_string()],
    };
    let target = crate::gsd::layout::state_target(file, std::time::Duration::ZERO);
    other_view(
        "gsd",
        file,
        cwd,
        &target,
        summary,
        vec!["planseal gsd status".to_string()],
    )
}

fn reversa_view(file: &Path, cwd: &Path) -> OtherView {
    let mut next = Vec::new();
    let summary = match planseal_recovery::read::read(file, planseal_recovery::read::Kind::Document)
        .ok()
        .flatten()
        .and_then(|b| crate::reversa::model::StateFile::parse(&b).ok())
    {
        Some(state) => {
            let s = crate::reversa::Summary::of(&state);
            if let Some(phase) = &s.next_to_finish {
                next.push(format!(
                    "planseal reversa advance --phase-done {phase}   (once the phase is done)"
                ));
            }
            // The summary's own `next:` line is the command below.
            s.to_text()
                .lines()
                .filter(|l| !l.starts_with("next:"))
                .map(str::to_string)
                .collect()
        }
        None => {
            next.push("planseal reversa status".to_string());
            vec!["(the file cannot be read or does not parse)".to_string()]
        }
    };
    let target = crate::reversa::state_target(file);
    other_view("reversa", file, cwd, &target, summary, next)
}

fn checkpoint_view(file: &Path, cwd: &Path) -> OtherView {
    use crate::checkpoint::doc;
    let mut summary = Vec::new();
    if let Some(text) = read_text(file) {
        let sections = doc::sections(&text);
        let open: Vec<String> = doc::find(&sections, &doc::normalize("Próximos Passos"))
            .map(|s| {
                s.body(&text)
                    .lines()
                    .filter_map(|l| l.trim_start().strip_prefix("- [ ]"))
                    .map(|l| l.trim().to_string())
                    .collect()
            })
            .unwrap_or_default();
        if open.is_empty() {
            summary.push("no open next step (Próximos Passos)".to_string());
        } else {
            summary.push(format!("{} open next step(s):", open.len()));
            summary.extend(open.into_iter().map(|s| format!("- [ ] {s}")));
        }
    } else {
        summary.push("(the file cannot be read)".to_string());
    }
    let target = crate::checkpoint::checkpoint_target(file);
    other_view(
        "checkpoint",
        file,
        cwd,
        &target,
        summary,
        vec!["planseal checkpoint status".to_string()],
    )
}

/// The part of state.json the view shows (and the receipt check needs), read without building
/// the whole JSON tree: the status, approval, checkpoint, blocker, and each task's id, title,
/// status and file. A value of an unexpected type reads as absent, as [`State::from_value`] reads
/// it; a document this cannot read (not an object, `tasks` not an array) is read the full way.
fn read_state(bytes: &[u8]) -> Option<State> {
    match serde_json::from_slice::<light::State>(bytes) {
        Ok(l) => Some(l.into_state()),
        Err(_) => parse_json(bytes).ok().map(|v| State::from_value(&v)),
    }
}

mod light {
    use super::*;
    use serde::Deserialize;

    /// Any JSON value; only a string or a non-negative integer is kept.
    #[derive(Deserialize)]
    #[serde(untagged)]
    pub(super) enum Loose {
        Str(String),
        Count(u64),
        Other(serde::de::IgnoredAny),
    }

    fn text(v: Option<Loose>) -> Option<String> {
        match v {
            Some(Loose::Str(s)) => Some(s),
            _ => None,
        }
    }

    fn count(v: &Option<Loose>) -> Option<u64> {
        match v {
            Some(Loose::Count(n)) => Some(*n),
            _ => None,
        }
    }

    /// An object, or anything else (read as absent).
    #[derive(Deserialize)]
    #[serde(untagged)]
    pub(super) enum Obj<T> {
        Obj(T),
        Other(serde::de::IgnoredAny),
    }

    fn obj<T>(v: Option<Obj<T>>) -> Option<T> {
        match v {
            Some(Obj::Obj(t)) => Some(t),
            _ => None,
        }
    }

    #[derive(Deserialize)]
    pub(super) struct State {
        status: Option<Loose>,
        approval: Option<Loose>,
        checkpoint: Option<Obj<Checkpoint>>,
        blocked: Option<Obj<Blocker>>,
        promotion: Option<Obj<Promotion>>,
        tasks: Option<Vec<Obj<Task>>>,
    }

    #[derive(Deserialize)]
    pub(super) struct Promotion {
        from: Option<Loose>,
        to: Option<Loose>,
        phase: Option<Loose>,
    }

    #[derive(Deserialize)]
    pub(super) struct Checkpoint {
        task: Option<Loose>,
        step: Option<Loose>,
        at: Option<Loose>,
        note: Option<Loose>,
    }

    #[derive(Deserialize)]
    pub(super) struct Blocker {
        task: Option<Loose>,
        reason: Option<Loose>,
        since: Option<Loose>,
        needs: Option<Loose>,
    }

    #[derive(Deserialize)]
    pub(super) struct Task {
        id: Option<Loose>,
        title: Option<Loose>,
        status: Option<Loose>,
        locator: Option<Obj<Locator>>,
        file: Option<Loose>,
    }

    #[derive(Deserialize)]
    pub(super) struct Locator {
        kind: Option<Loose>,
        value: Option<Loose>,
    }

    impl State {
        pub(super) fn into_state(self) -> super::State {
            let approval_raw = text(self.approval);
            let tasks_is_array = self.tasks.is_some();
            let tasks = self
                .tasks
                .unwrap_or_default()
                .into_iter()
                .enumerate()
                .map(|(index, t)| match t {
                    Obj::Obj(t) => {
                        let status_raw = text(t.status);
                        super::Task {
                            index,
                            id: count(&t.id),
                            locator: obj(t.locator).map(|l| super::Locator {
                                kind: text(l.kind).as_deref().and_then(LocatorKind::parse),
                                value: text(l.value),
                            }),
                            file: text(t.file),
                            title: text(t.title),
                            status: status_raw.as_deref().and_then(TaskStatus::parse),
                            status_raw,
                            ..Default::default()
                        }
                    }
                    Obj::Other(_) => super::Task {
                        index,
                        ..Default::default()
                    },
                })
                .collect();
            super::State {
                status: text(self.status).as_deref().and_then(PlanStatus::parse),
                approval: approval_raw.as_deref().and_then(Approval::parse),
                approval_raw,
                checkpoint: obj(self.checkpoint).map(|c| super::Checkpoint {
                    task: count(&c.task),
                    step: text(c.step),
                    at: text(c.at),
                    note: text(c.note),
                }),
                blocked: obj(self.blocked).map(|b| super::Blocker {
                    task: count(&b.task),
                    reason: text(b.reason),
                    since: text(b.since),
                    needs: text(b.needs),
                }),
                promotion: obj(self.promotion).map(|p| crate::dwp::model::Promotion {
                    from: text(p.from),
                    to: text(p.to),
                    phase: text(p.phase)
                        .as_deref()
                        .and_then(crate::dwp::model::PromotionPhase::parse),
                }),
                tasks,
                tasks_is_array,
                ..Default::default()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the view reads of a state, as a comparable tuple per task and for the plan.
    fn shown(s: &State) -> String {
        let tasks: Vec<String> = s
            .tasks
            .iter()
            .map(|t| {
                format!(
                    "{}:{:?}:{:?}:{:?}:{:?}:{:?}",
                    t.index,
                    t.id,
                    t.title,
                    t.status_raw,
                    t.status,
                    t.artifact_file()
                )
            })
            .collect();
        format!(
            "{:?} {:?} {:?} {:?} {:?} {} {:?}",
            s.status, s.approval, s.approval_raw, s.checkpoint, s.blocked, s.tasks_is_array, tasks
        )
    }

    #[test]
    fn the_light_read_agrees_with_the_model_on_every_recorded_state() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/vectors/dwp");
        let mut seen = 0;
        for fixture in std::fs::read_dir(&root).expect("vectors") {
            let states = fixture.expect("entry").path().join("lifecycle/states");
            let Ok(entries) = std::fs::read_dir(&states) else {
                continue;
            };
            for entry in entries {
                let path = entry.expect("entry").path();
                let bytes = std::fs::read(&path).expect("state");
                let full = State::from_value(&parse_json(&bytes).expect("json"));
                let light = read_state(&bytes).expect("read");
                assert_eq!(shown(&light), shown(&full), "{}", path.display());
                seen += 1;
            }
        }
        assert!(seen > 10, "{seen} states compared");
    }

    #[test]
    fn the_light_read_takes_odd_types_as_absent() {
        let odd = br#"{"status": 3, "approval": null, "checkpoint": "x", "blocked": [1],
            "tasks": [7, {"id": "1", "title": 2, "status": "completed", "locator": "f"}]}"#;
        let full = State::from_value(&parse_json(odd).expect("json"));
        let light = read_state(odd).expect("read");
        assert_eq!(shown(&light), shown(&full));
        // Not an object at all: the full read decides.
        assert_eq!(
            shown(&read_state(b"[]").expect("read")),
            shown(&State::default())
        );
        assert!(read_state(b"{").is_none());
    }
}
