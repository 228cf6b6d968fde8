//! `update`: one guarded transition of a DWP state.json, in two steps so the caller can show
//! the advisories before anything is written — [`plan`] reads what the transition needs and
//! decides it (nothing written), [`apply`] writes it: through the write path for an ordinary
//! transition, through the finalization transaction for the one that completes the plan.

use crate::clock::Clock;
use crate::dwp::decide::amendment::{LoggedAmendment, logged_amendments};
use crate::dwp::decide::update::{
    PlanFacts, Transition, UpdateRequest, check_arguments, plan_transition_hashed,
};
use crate::dwp::layout;
use crate::dwp::model::TaskStatus;
use crate::dwp::model::markdown::skip_refinement_date;
use crate::dwp::model::markdown::{parse_readme_bytes, parse_task_file_bytes};
use crate::dwp::model::{Task, parse_json};
use crate::dwp::publish::{self, Candidate, FinalizeError, FinalizeRequest};
use crate::dwp::read::read_plan_file;
use crate::report::{Finding, HintedError, Refusal, RefusalKind};
use crate::write::{Committed, Confirmation, WriteError, Writer};
use planseal_recovery::read::ReadError;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Why an update did not apply.
#[derive(Debug, thiserror::Error)]
pub enum UpdateError {
    /// A check of the transition said no (or state.json is missing); nothing was written.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The store refused the write or a file-system call failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The transition completes the plan and its publication stopped.
    #[error(transparent)]
    Publish(#[from] FinalizeError),
    /// state.json exists but cannot be read (a usage error with a hint).
    #[error(transparent)]
    Input(#[from] HintedError),
}

/// A transition decided and not written yet.
#[derive(Debug)]
pub struct PlannedUpdate {
    /// The request as given.
    pub request: UpdateRequest,
    /// The decided transition: the candidate state, its hashes and the advisories.
    pub transition: Transition,
    facts: PlanFacts,
    plan_dir: PathBuf,
    state_bytes: Vec<u8>,
    clock: Clock,
}

/// What an applied update did (the `--json` document of `planseal update`).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct UpdateOutcome {
    /// Always `applied` (a refused update is an error, not an outcome); the binary prints
    /// `applied-unconfirmed` when [`confirmation`](Self::confirmation) is not confirmed.
    pub result: &'static str,
    /// The id of the task moved.
    pub task: u64,
    /// Its status before, in the state.json spelling; `None` when it was not a known status.
    pub from: Option<&'static str>,
    /// Its status now.
    pub to: &'static str,
    /// The new `completed_count`.
    pub completed_count: u64,
    /// How many tasks the plan has.
    pub task_count: u64,
    /// The new plan status (`pending`, `in_progress`, `completed`, `blocked`).
    pub plan_status: &'static str,
    /// The transition completed the plan, which was then published and sealed.
    pub published: bool,
    /// The SHA-256 (hex) of state.json before the update.
    pub before_sha256: String,
    /// The SHA-256 (hex) of state.json as written.
    pub after_sha256: String,
    /// Advisories met on the way (a v1 reopen without amendment, approval taken from the
    /// README, …).
    pub advisories: Vec<Finding>,
    /// The helper's success line (`task N → STATUS · C/T completed · plan STATUS`).
    #[serde(skip)]
    pub line: String,
    /// What after the rename could not be confirmed (the folder sync, the journal line, the
    /// lock release; for a publication, the rest of it, left for `planseal recover`). The
    /// change stays either way.
    #[serde(skip)]
    pub confirmation: Confirmation,
}

/// Reads the state and what the transition needs from around it, and decides the transition.
/// `state` is the path as the caller resolved it (relative paths against its working folder).
pub fn plan(
    state: &Path,
    shown: &Path,
    request: UpdateRequest,
    mut clock: Clock,
) -> Result<PlannedUpdate, UpdateError> {
    check_arguments(&request)?;
    let missing = || {
        UpdateError::from(
            Refusal::new(
                RefusalKind::StateMissing,
                format!("{}: no such state file", shown.display()),
            )
            .hint("pass the plan's state.json, e.g. .dwp/plans/PLAN_name/state.json"),
        )
    };
    // The plan is the folder the state file is in (resolved, so `.` names the real folder);
    // the file itself is read inside it, never through a symlink leading into another plan.
    let given_dir = match state.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let plan_dir = given_dir.canonicalize().map_err(|_| missing())?;
    let Some(name) = state.file_name().and_then(|n| n.to_str()) else {
        return Err(missing());
    };
    // `failpoints` builds: `update.read_state=return(EIO)` fails reading state.json.
    if let Some(source) = planseal_recovery::store::io_fault("update.read_state") {
        let path = plan_dir.join(name);
        return Err(read_error(ReadError::Io { path, source }));
    }
    let state_bytes = read_plan_file(&plan_dir, name)
        .map_err(read_error)?
        .ok_or_else(missing)?;
    // state.json parsed once, for the facts and the transition; hashed on another core meanwhile.
    let (parsed, before_sha256) = crate::parallel::beside(
        || parse_json(&state_bytes),
        || planseal_recovery::hash::sha256_hex(&state_bytes),
    );
    let mut facts =
        read_plan_facts_of(&plan_dir, parsed.as_ref().ok(), request.task).map_err(read_error)?;
    if request.status == TaskStatus::Skipped
        && let (Ok(state), Ok(id)) = (parsed.as_ref(), u64::try_from(request.task))
    {
        let own = facts
            .amendments
            .iter()
            .find(|(t, _)| *t == id)
            .map(|(_, a)| a.as_slice())
            .unwrap_or(&[]);
        facts.skip_record = skip_record(&plan_dir, state, id, own).map_err(read_error)?;
    }
    let transition = plan_transition_hashed(
        &state_bytes,
        parsed,
        before_sha256,
        &request,
        &facts,
        &mut clock,
    )
    .map_err(|r| name_the_plan(r, &plan_dir))?;
    Ok(PlannedUpdate {
        request,
        transition,
        facts,
        plan_dir,
        state_bytes,
        clock,
    })
}

/// Writes a planned transition. The one that completes the plan is handed, as bytes, to the
/// finalization transaction, which takes the lock, validates every artifact, writes marker,
/// state and receipt, and journals the publication; `--expected-sha256` is then the hash of the
/// bytes the transition was computed from, so a change in between is refused there.
pub fn apply(planned: PlannedUpdate) -> Result<UpdateOutcome, UpdateError> {
    apply_with(planned, &mut |_| {})
}

/// [`apply`], with `hook` seeing every step boundary of the publication when the transition
/// completes the plan (the demo stops its child there).
pub fn apply_with(
    planned: PlannedUpdate,
    hook: publish::StepHook<'_>,
) -> Result<UpdateOutcome, UpdateError> {
    let PlannedUpdate {
        request,
        transition: mut t,
        facts,
        plan_dir,
        state_bytes,
        clock,
    } = planned;
    // Only the candidate's bytes are written: its JSON tree is freed while the disk works.
    crate::parallel::drop_later(std::mem::take(&mut t.candidate));
    let entry = t.journal_entry(&request, &facts.plan_name);
    let (line, confirmation, after_sha256) = if t.completes_plan {
        let mut req = FinalizeRequest::new(
            &plan_dir,
            Candidate::Bytes {
                bytes: t.candidate_bytes.clone(),
                origin: format!("update task {} → {}", t.task, t.to),
            },
        );
        req.expected_sha256 = Some(t.before_sha256.clone());
        req.operation = "update".to_string();
        req.journal_entry = Some(entry);
        req.clock = clock;
        // The publication writes the candidate as the helper serialises it.
        let published = publish::finalize(&req, hook)?;
        let line = if published.unfinished() {
            format!(
                "task {} → {} · plan publication committed but not finished: {} is left for `planseal recover`",
                t.task,
                t.to,
                layout::MARKER_FILE
            )
        } else {
            t.published_line()
        };
        (line, published.confirmation, published.state_sha256)
    } else {
        // Between validation and the lock: another writer may get in here (tests pause at it).
        crate::recovery::store::crash_point("update.before_lock");
        // The entry carries the hash the transition decided on; the writer hashes the new bytes
        // while it takes the lock.
        let Committed {
            confirmation,
            after_sha256,
            ..
        } = Writer::from_env().commit_hashed(
            &layout::state_target(&plan_dir),
            Some(&state_bytes),
            &t.candidate_bytes,
            entry,
        )?;
        (t.summary_line(), confirmation, after_sha256)
    };
    Ok(UpdateOutcome {
        result: "applied",
        task: t.task,
        from: t.from.map(|s| s.as_str()),
        to: t.to.as_str(),
        completed_count: t.completed_count,
        task_count: t.task_count,
        plan_status: t.plan_status.as_str(),
        published: t.completes_plan,
        before_sha256: t.before_sha256,
        after_sha256,
        advisories: t.advisories,
        line,
        confirmation,
    })
}

/// Reads what the transition needs from around state.json: the plan name, the marker, the
/// README `Approval:` line and — for the task being updated — the dates of the amendment
/// records in its log.
pub fn read_plan_facts(
    plan_dir: &Path,
    state_bytes: &[u8],
    task: i64,
) -> Result<PlanFacts, ReadError> {
    read_plan_facts_of(plan_dir, parse_json(state_bytes).ok().as_ref(), task)
}

/// [`read_plan_facts`] for state.json already parsed (`None`: it does not parse). Only what the
/// transition uses is read: the task's own record (its task file, or the README for an inline
/// task) and the README only when state.json has no `approval` to take — never the rest of the
/// plan. The gate logs are looked at (not read) by the transition's checks.
pub fn read_plan_facts_of(
    plan_dir: &Path,
    state: Option<&Value>,
    task: i64,
) -> Result<PlanFacts, ReadError> {
    let plan_name = layout::plan_name(plan_dir);
    let task_record = match (u64::try_from(task), state) {
        (Ok(id), Some(value)) => find_task(value, id).map(|t| (id, t)),
        _ => None,
    };
    // A v1 state counts as approved and a v2/v5 one with an `approval` string takes it: the
    // README's `Approval:` line is the fallback only when there is neither.
    let approval_in_state = state.is_some_and(|v| {
        v.get("approval").is_some_and(Value::is_string)
            || crate::dwp::model::state_era(v).ok() == Some(crate::dwp::model::Era::V1)
    });
    let inline_task = task_record
        .as_ref()
        .is_some_and(|(_, t)| t.artifact_file().is_none());
    let readme_bytes = if approval_in_state && !inline_task {
        // Not needed, so not read; but a README that reading would refuse (a FIFO, a device,
        // one over the cap) still refuses the update, as it does when it is read.
        look_at_plan_file(plan_dir, layout::README_FILE)?;
        None
    } else {
        Some(read_plan_file(plan_dir, layout::README_FILE)?.unwrap_or_default())
    };
    let readme = readme_bytes
        .as_deref()
        .and_then(|bytes| parse_readme_bytes(bytes).ok());
    let readme_approval = readme
        .as_ref()
        .and_then(|r| r.approval.as_ref())
        .map(|d| d.raw.clone());
    let mut amendments = Vec::new();
    if let Some((id, t)) = &task_record {
        let found = match t.artifact_file() {
            Some(file) => read_plan_file(plan_dir, file)?
                .and_then(|b| {
                    parse_task_file_bytes(&b)
                        .ok()
                        .map(|f| logged_amendments(&f.body))
                })
                .unwrap_or_default(),
            None => readme
                .as_ref()
                .and_then(|r| u32::try_from(*id).ok().and_then(|n| r.inline.record(n)))
                .map(|rec| logged_amendments(&rec.body))
                .unwrap_or_default(),
        };
        amendments.push((*id, found));
    }
    Ok(PlanFacts {
        plan_name,
        plan_dir: Some(plan_dir.to_path_buf()),
        marker_present: plan_dir.join(layout::MARKER_FILE).exists(),
        readme_approval,
        amendments,
        skip_record: None,
    })
}

/// The record that removes task `id` from scope, for a skip: a dated PROGRESS.md refinement
/// with the user's authority and a reason, else an amendment — in any task's log — naming the
/// task (its own, or in `Affected tasks:`) with the user's authority. Read only for a skip, so
/// the other transitions never read PROGRESS.md or the other task files.
fn skip_record(
    plan_dir: &Path,
    state: &Value,
    id: u64,
    own: &[LoggedAmendment],
) -> Result<Option<String>, ReadError> {
    let task = u32::try_from(id).unwrap_or(u32::MAX);
    if let Some(bytes) = read_plan_file(plan_dir, layout::PROGRESS_FILE)?
        && let Some(date) = skip_refinement_date(&String::from_utf8_lossy(&bytes), task)
    {
        return Ok(Some(format!("PROGRESS.md refinement of {date}")));
    }
    let by_user = |a: &&LoggedAmendment| a.by_user && !a.reason.is_empty();
    if let Some(a) = own.iter().find(by_user) {
        return Ok(Some(format!(
            "Amendment {} of task {id} ({})",
            a.number, a.date
        )));
    }
    let tasks: Vec<Task> = state
        .get("tasks")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .enumerate()
                .map(|(i, t)| Task::from_value(i, t))
                .collect()
        })
        .unwrap_or_default();
    // The README is read once, and only when an inline record is looked at.
    let mut readme_bytes: Option<Vec<u8>> = None;
    let mut needs_readme = false;
    for other in tasks.iter().filter(|t| t.id.is_some_and(|o| o != id)) {
        needs_readme |= other.artifact_file().is_none();
    }
    if needs_readme {
        readme_bytes = Some(read_plan_file(plan_dir, layout::README_FILE)?.unwrap_or_default());
    }
    let readme = readme_bytes
        .as_deref()
        .and_then(|b| parse_readme_bytes(b).ok());
    for other in tasks.iter().filter(|t| t.id.is_some_and(|o| o != id)) {
        let other_id = other.id.unwrap_or_default();
        let logged = match other.artifact_file() {
            Some(file) => read_plan_file(plan_dir, file)?
                .and_then(|b| {
                    parse_task_file_bytes(&b)
                        .ok()
                        .map(|f| logged_amendments(&f.body))
                })
                .unwrap_or_default(),
            None => readme
                .as_ref()
                .and_then(|r| {
                    u32::try_from(other_id)
                        .ok()
                        .and_then(|n| r.inline.record(n))
                })
                .map(|rec| logged_amendments(&rec.body))
                .unwrap_or_default(),
        };
        if let Some(a) = logged
            .iter()
            .filter(by_user)
            .find(|a| a.affected.contains(&task))
        {
            return Ok(Some(format!(
                "Amendment {} of task {other_id} ({})",
                a.number, a.date
            )));
        }
    }
    Ok(None)
}

/// What reading the plan file `rel` would refuse, found without reading it: its metadata only
/// (a file that exists but cannot be opened is no error here, since it is not read). A name
/// that crosses a symlink is read, so that the symlink rules stay those of every read.
fn look_at_plan_file(plan_dir: &Path, rel: &str) -> Result<(), ReadError> {
    use planseal_recovery::read::{Kind, what_it_is};
    let path = plan_dir.join(rel);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(());
        }
        Err(source) => return Err(ReadError::Io { path, source }),
    };
    if meta.file_type().is_symlink() {
        return read_plan_file(plan_dir, rel).map(|_| ());
    }
    if !meta.is_file() {
        return Err(ReadError::NotRegularFile {
            path,
            what: what_it_is(&meta),
        });
    }
    let kind = Kind::Document;
    if meta.len() > kind.cap() {
        return Err(ReadError::TooLarge {
            path,
            size: meta.len(),
            cap: kind.cap(),
            kind,
        });
    }
    Ok(())
}

/// The task `id` of a parsed state, read into a [`Task`] on its own (the rest of the state is
/// not): the entry at position `id - 1` when it carries that id, else the first that does —
/// the lookup [`crate::dwp::model::State::task`] makes.
fn find_task(state: &Value, id: u64) -> Option<Task> {
    let tasks = state.get("tasks").and_then(Value::as_array)?;
    let guess = usize::try_from(id).ok().and_then(|i| i.checked_sub(1));
    if let Some(i) = guess
        && let Some(v) = tasks.get(i)
    {
        let t = Task::from_value(i, v);
        if t.id == Some(id) {
            return Some(t);
        }
    }
    tasks
        .iter()
        .enumerate()
        .map(|(i, v)| Task::from_value(i, v))
        .find(|t| t.id == Some(id))
}

/// A file refused under the reading discipline is a refusal; an OS error (EIO, EACCES) stops the
/// writer before its commit point: exit 3, nothing applied, naming the file; anything else is a
/// usage error naming the file (exit 2).
fn read_error(e: ReadError) -> UpdateError {
    match crate::report::read_refusal(&e) {
        Some(refusal) => refusal.into(),
        None if matches!(e, ReadError::Io { .. }) => HintedError {
            message: format!("{}: cannot read: {}", e.path().display(), e.reason()),
            hint: Some(
                "nothing was applied; check the file and the disk, then run the command again"
                    .into(),
            ),
            code: crate::report::ExitCode::Io,
        }
        .into(),
        None => HintedError::usage(format!(
            "{}: cannot read: {}",
            e.path().display(),
            e.reason()
        ))
        .into(),
    }
}

/// The transition's refusals point at `planseal rebuild` without knowing where the plan is:
/// name the folder, so the hint is a command that runs as printed.
fn name_the_plan(mut refusal: Refusal, plan_dir: &Path) -> Refusal {
    if let Some(hint) = &refusal.hint {
        let command = format!("`planseal rebuild {}`", plan_dir.display());
        refusal.hint = Some(hint.replace("`planseal rebuild`", &command));
    }
    refusal
}
