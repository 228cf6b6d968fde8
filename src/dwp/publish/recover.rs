//! Recovery of an interrupted publication (`docs/finalize.md`): a leftover `.finalizing.json`.
//!
//! The marker binds the recovery to one candidate. Compared with state.json:
//! - state.json **is** the candidate → the publication reached the commit point: re-verify,
//!   write the receipt, remove the marker;
//! - state.json is still the state **before** → roll forward with the same candidate (the
//!   marker's own copy, or `--candidate` whose hash equals the marker's), or with `rollback`
//!   remove the marker and keep the old state;
//! - anything else → refuse and name both hashes: nothing resumes a publication by guesswork.
//!
//! Markers left by the original helper hold only the two hashes; their state-before is unknown,
//! so any state.json that is not the candidate is treated as "before", and rolling forward needs
//! `--candidate` with the marker's `candidate_sha256`.

pub use super::files::LockInfo;

use super::candidate;
use super::files as store;
use super::finalize::{self, FinalizeError, FinalizeRequest, Step, StepHook};
use super::marker::{MARKER_FILE, Marker};
use super::validate::{ValidationInput, validate_candidate};
use crate::clock::Clock;
use crate::dwp::layout;
use crate::dwp::model::receipt::{RECEIPT_FILE, Receipt};
use crate::report::{Refusal, RefusalKind};
use crate::write::{Confirmation, JournalEntry, Transaction, Writer, after_sha256, before_sha256};
use planseal_recovery::hash::sha256_hex;
use std::path::{Path, PathBuf};

/// What the caller asks for.
#[derive(Debug, Clone, Default)]
pub struct RecoverRequest {
    /// The plan folder, or its state.json.
    pub plan_dir: PathBuf,
    /// `--candidate FILE`: its bytes and where they came from.
    pub candidate: Option<(Vec<u8>, String)>,
    /// `--rollback`: remove the marker and keep the state before.
    pub rollback: bool,
    /// Where the lock record and the journal lines take their time.
    pub clock: Clock,
}

/// How state.json relates to the marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateRelation {
    /// state.json equals the marker's candidate: the rename happened.
    IsCandidate,
    /// state.json equals the state before the publication (planseal marker).
    IsBefore,
    /// A helper marker (no state-before recorded) and state.json is not the candidate.
    PresumedBefore,
    /// Neither: someone changed state.json after the interruption.
    Neither,
}

/// What was found: shown before anything is done.
#[derive(Debug, Clone)]
pub struct Diagnosis {
    /// The plan folder's name (`PLAN_x`).
    pub plan: String,
    /// The plan folder, canonicalised.
    pub plan_dir: PathBuf,
    /// `None`: there is no interrupted publication.
    pub marker: Option<Marker>,
    /// The SHA-256 (hex) of state.json now; `None` when it is missing.
    pub state_sha256: Option<String>,
    /// How state.json relates to the marker; `None` without a marker.
    pub relation: Option<StateRelation>,
    /// The receipt's `state_sha256`, when a receipt is there.
    pub receipt_state_sha256: Option<String>,
    /// The lock directory, when one is there, with a description of its owner.
    pub lock: Option<LockInfo>,
}

/// What recovery did.
#[derive(Debug, Clone)]
pub enum RecoverOutcome {
    /// No marker: nothing was interrupted after the commit point. The lock, if any, is reported.
    NothingToRecover(Diagnosis),
    /// The publication was finished: state.json = candidate, receipt written, marker removed.
    RolledForward {
        /// What was found before acting.
        diagnosis: Diagnosis,
        /// The SHA-256 (hex) of the state published: the marker's `candidate_sha256`.
        state_sha256: String,
        /// state.json was replaced here (`false` when the interruption came after the
        /// replacement).
        state_written: bool,
        /// The receipt written.
        receipt: Box<Receipt>,
        /// A lock whose owner is gone was removed first.
        lock_removed: bool,
        /// What the run could not confirm: a folder sync, the journal line, the lock release —
        /// or the rest of the publication, its marker left for another `recover`
        /// ([`crate::write::UnconfirmedStep::Unfinished`]).
        confirmation: Confirmation,
    },
    /// A stale lock was removed (and journaled), then the recovery stopped: the marker stays
    /// for another `recover` ([`crate::write::UnconfirmedStep::Unfinished`] says why).
    Stopped {
        /// What was found before acting.
        diagnosis: Diagnosis,
        /// The unfinished step, with the error and the command that finishes it.
        confirmation: Confirmation,
    },
    /// `--rollback`: marker removed, state.json left as it was.
    RolledBack {
        /// What was found before acting.
        diagnosis: Diagnosis,
        /// A lock whose owner is gone was removed first.
        lock_removed: bool,
        /// What the run could not confirm (a folder sync, the journal line, the lock release).
        confirmation: Confirmation,
    },
}

impl RecoverOutcome {
    /// Adds what an earlier step (the stale lock's journal line) could not confirm.
    fn with_confirmation(mut self, earlier: Confirmation) -> Self {
        match &mut self {
            RecoverOutcome::NothingToRecover(_) => {}
            RecoverOutcome::RolledForward { confirmation, .. }
            | RecoverOutcome::RolledBack { confirmation, .. }
            | RecoverOutcome::Stopped { confirmation, .. } => {
                *confirmation = earlier.and(std::mem::take(confirmation));
            }
        }
        self
    }
}

/// Reads what an interruption left, without changing anything.
pub fn diagnose(plan_dir: &Path) -> Result<Diagnosis, FinalizeError> {
    let plan_dir = store::plan_dir_of(plan_dir)?;
    let state_path = plan_dir.join(layout::STATE_FILE);
    let marker_bytes = store::read_optional(&plan_dir, MARKER_FILE)?;
    let marker = match marker_bytes {
        None => None,
        Some(bytes) => Some(Marker::parse(&bytes).map_err(|e| {
            Refusal::new(
                RefusalKind::MarkerUnreadable,
                format!("{}: {e}", plan_dir.join(MARKER_FILE).display()),
            )
            .hint("inspect the file; if no publication is in flight, restore the plan and remove it by hand")
        })?),
    };
    let state = store::read_optional(&plan_dir, layout::STATE_FILE)?;
    let state_sha256 = state.as_deref().map(sha256_hex);
    let relation = marker
        .as_ref()
        .map(|m| relation_of(m, state_sha256.as_deref()));
    let receipt_state_sha256 = store::read_optional(&plan_dir, RECEIPT_FILE)?
        .and_then(|b| Receipt::parse(&b).ok())
        .map(|r| r.state_sha256);
    let lock = store::lock_info(&state_path)?;
    Ok(Diagnosis {
        plan: layout::plan_name(&plan_dir),
        plan_dir,
        marker,
        state_sha256,
        relation,
        receipt_state_sha256,
        lock,
    })
}

fn relation_of(marker: &Marker, state_sha: Option<&str>) -> StateRelation {
    match (state_sha, &marker.planseal) {
        (Some(s), _) if s == marker.candidate_sha256 => StateRelation::IsCandidate,
        (Some(s), Some(ext)) if s == ext.state_sha256_before => StateRelation::IsBefore,
        // A publication that restores a lost state.json (`rebuild`) started from no bytes.
        (None, Some(ext)) if ext.state_sha256_before == sha256_hex(b"") => StateRelation::IsBefore,
        (_, None) => StateRelation::PresumedBefore,
        _ => StateRelation::Neither,
    }
}

/// Finishes or rolls back an interrupted publication.
pub fn recover(req: &RecoverRequest, hook: StepHook<'_>) -> Result<RecoverOutcome, FinalizeError> {
    let diagnosis = diagnose(&req.plan_dir)?;
    let Some(marker) = diagnosis.marker.clone() else {
        // Nothing to finish, but what provably dead writers left goes (the lock stays: it is
        // `unlock`'s to judge and journal).
        sweep_dead_writers(&diagnosis.plan_dir);
        return Ok(RecoverOutcome::NothingToRecover(diagnosis));
    };
    let plan_dir = diagnosis.plan_dir.clone();
    let state_path = plan_dir.join(layout::STATE_FILE);
    let relation = diagnosis.relation.unwrap_or(StateRelation::Neither);
    let state_sha = diagnosis.state_sha256.clone().unwrap_or_default();

    if relation == StateRelation::Neither {
        let before = marker
            .planseal
            .as_ref()
            .map(|e| e.state_sha256_before.clone())
            .unwrap_or_default();
        return Err(Refusal::new(
            RefusalKind::StateDiverged,
            format!(
                "{}: state.json ({state_sha}) is neither the candidate being published ({}) nor the state before ({before})",
                plan_dir.display(),
                marker.candidate_sha256
            ),
        )
        .hint("state.json was changed after the interruption; restore one of the two versions, then run `planseal recover` again")
        .into());
    }

    // The candidate: bound to the marker's hash, by its raw bytes (planseal's markers) or by
    // the serialisation the helper hashes (the helper's markers).
    let given_candidate = match &req.candidate {
        Some((bytes, origin)) => {
            match candidate::bytes_with_hash(bytes, &marker.candidate_sha256) {
                Some(bound) => Some(bound),
                None => return Err(candidate_mismatch(&plan_dir, bytes, origin, &marker)),
            }
        }
        None => None,
    };
    if req.rollback && relation == StateRelation::IsCandidate {
        return Err(Refusal::new(
            RefusalKind::RollbackImpossible,
            format!(
                "{}: state.json already is the published candidate ({}); the state before is not kept, so there is nothing to roll back to",
                plan_dir.display(),
                marker.candidate_sha256
            ),
        )
        .hint(format!("run `planseal recover {}` without --rollback to finish the publication", plan_dir.display()))
        .into());
    }
    let candidate_bytes: Vec<u8> = if req.rollback {
        Vec::new()
    } else if relation == StateRelation::IsCandidate {
        store::read_state(&state_path)?
    } else if let Some(bytes) = given_candidate {
        bytes
    } else if let Some(ext) = &marker.planseal {
        ext.candidate.clone().into_bytes()
    } else {
        return Err(Refusal::new(
            RefusalKind::CandidateRequired,
            format!(
                "{}: the marker (written by the DWP helper) holds only the candidate's hash {}; planseal needs the candidate itself",
                plan_dir.display(),
                marker.candidate_sha256
            ),
        )
        .hint("pass --candidate FILE with exactly the state that was being published, or --rollback")
        .into());
    };

    let mut clock = req.clock.clone();
    let target = layout::state_target(&plan_dir);
    finalize::check_write_targets(&target)?;
    // The lock: removed only when its owner is provably dead.
    let (lock_removed, lock_confirmation) =
        store::clear_stale_lock(&state_path, diagnosis.lock.as_ref(), &mut clock)?;
    let outcome = match under_lock(
        req,
        diagnosis.clone(),
        &marker,
        candidate_bytes,
        lock_removed,
        &mut clock,
        hook,
    ) {
        // The stale lock is gone (and journaled): something was applied, so a failure after it
        // is no "nothing applied" — the marker stays and another `recover` finishes the job.
        Err(error) if lock_removed => {
            let mut confirmation = Confirmation::Confirmed;
            confirmation.push(finalize::unfinished(&plan_dir, &error));
            RecoverOutcome::Stopped {
                diagnosis,
                confirmation,
            }
        }
        other => other?,
    };
    Ok(outcome.with_confirmation(lock_confirmation))
}

/// Recovery once a stale lock is out of the way: take the lock, check that nothing moved, then
/// roll back or roll forward.
fn under_lock(
    req: &RecoverRequest,
    diagnosis: Diagnosis,
    marker: &Marker,
    candidate_bytes: Vec<u8>,
    lock_removed: bool,
    clock: &mut Clock,
    hook: StepHook<'_>,
) -> Result<RecoverOutcome, FinalizeError> {
    let plan_dir = diagnosis.plan_dir.clone();
    let state_path = plan_dir.join(layout::STATE_FILE);
    let relation = diagnosis.relation.unwrap_or(StateRelation::Neither);
    let target = layout::state_target(&plan_dir);
    let tx = Writer::from_env().begin(&target, "recover", &clock.now_iso())?;
    reach_lock(hook);
    // The lock's folder was swept when the lock was taken; the receipt's folder is swept here.
    sweep_dead_writers(&plan_dir);
    // What was judged above was read without the lock: act only if it still holds.
    let marker_now = store::read_optional(&plan_dir, MARKER_FILE)?;
    let state_now = store::read_optional(&plan_dir, layout::STATE_FILE)?;
    if marker_now
        .as_deref()
        .map(Marker::parse)
        .and_then(Result::ok)
        .as_ref()
        != Some(marker)
        || state_now.as_deref().map(sha256_hex) != diagnosis.state_sha256
    {
        tx.finish()?;
        return Err(finalize::state_changed(&state_path));
    }

    let companions = marker
        .planseal
        .as_ref()
        .map(|e| e.companions.clone())
        .unwrap_or_default();
    if let Err(e) = check_companions(&tx, &plan_dir, &companions) {
        tx.finish()?;
        return Err(e);
    }
    if req.rollback {
        // The files written with the publication go back too, then the marker.
        if let Err(e) = finalize::restore_companions(&tx, &plan_dir, &companions) {
            tx.finish()?;
            return Err(e);
        }
        tx.remove(&plan_dir.join(MARKER_FILE))?;
        // The marker is gone: a journal line or a lock release that fails now is reported as
        // not confirmed, the rollback stands.
        tx.journal_applied(&rollback_entry(&diagnosis, marker, clock));
        let confirmation = tx.close();
        return Ok(RecoverOutcome::RolledBack {
            diagnosis,
            lock_removed,
            confirmation,
        });
    }

    let journaled = journal_holds_publication(&target, &diagnosis.plan, marker);
    let result = roll_forward(&tx, &candidate_bytes, marker, journaled, clock, hook);
    let receipt = match result {
        Ok((receipt, None)) => receipt,
        // state.json replaced by this run: the rest is reported as not finished, the marker
        // stays for another `recover`.
        Ok((receipt, Some(error))) => {
            tx.note(finalize::unfinished(&plan_dir, &error));
            receipt
        }
        // Nothing of this run is applied: the marker is as it was before it.
        Err(error) => {
            tx.finish()?;
            return Err(error);
        }
    };
    let confirmation = tx.close();
    Ok(RecoverOutcome::RolledForward {
        diagnosis,
        state_sha256: marker.candidate_sha256.clone(),
        state_written: relation != StateRelation::IsCandidate,
        receipt: Box::new(receipt),
        lock_removed,
        confirmation,
    })
}

/// Refuses (`state-diverged`) when a file the interrupted publication writes with state.json is
/// neither as it was before nor as the publication writes it: nothing resumes by guesswork.
fn check_companions(
    tx: &Transaction<'_>,
    plan_dir: &Path,
    companions: &[super::marker::Companion],
) -> Result<(), FinalizeError> {
    for c in companions {
        let path = plan_dir.join(&c.file);
        let now = tx.read(&path)?;
        if now != c.before && now.as_deref() != Some(c.after.as_slice()) {
            return Err(Refusal::new(
                RefusalKind::StateDiverged,
                format!(
                    "{}: {} was changed after the interruption: it is neither as it was before the publication nor as the publication writes it",
                    plan_dir.display(),
                    c.file
                ),
            )
            .hint("restore one of the two versions, then run `planseal recover` again")
            .into());
        }
    }
    Ok(())
}

/// The journal line of a rollback: nothing was published, the marker was removed and
/// state.json kept its bytes.
fn rollback_entry(diagnosis: &Diagnosis, marker: &Marker, clock: &mut Clock) -> JournalEntry {
    let state_sha = diagnosis.state_sha256.clone().unwrap_or_default();
    let plan_status = crate::dwp::read::read_plan_file(&diagnosis.plan_dir, layout::STATE_FILE)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
        .map(|v| v["status"].clone())
        .unwrap_or_default();
    JournalEntry::for_plan(clock.now_iso(), "recover --rollback", &diagnosis.plan)
        .transition(None, plan_status.clone(), plan_status)
        .hashes(Some(state_sha.clone()), Some(state_sha))
        .with("result", "rolled-back")
        .with("state_changed", false)
        .with("marker_removed", MARKER_FILE)
        .with("candidate_sha256", marker.candidate_sha256.clone())
}

fn reach_lock(hook: &mut dyn FnMut(Step)) {
    finalize::reach(Step::AfterLock, hook);
}

/// Removes the leftovers of provably dead writers in the plan folder and `analysis_results/`
/// (temp files of the state, the marker and the receipt, lock staging folders, released locks).
/// Best effort: what stays is what `verify` reports as `writer-debris`.
fn sweep_dead_writers(plan_dir: &Path) {
    let _ = planseal_recovery::store::lock::sweep_folder(plan_dir);
    let _ = planseal_recovery::store::lock::sweep_folder(&plan_dir.join(layout::RESULTS_DIR));
}

/// Whether the journal already holds the line of the publication the marker describes: a
/// finalizer killed after its journal line and before removing the marker. Its line is then the
/// last one that is about state.json (an `unlock` line or a stale-lock removal after it carries no
/// state hash): a publication line (`receipt`) whose after-hash is the marker's candidate and
/// whose before-hash is the marker's state before (when the marker records it; a restored state
/// started from no file, journaled as `null` or as the hash of no bytes).
fn journal_holds_publication(target: &crate::write::Target, plan: &str, marker: &Marker) -> bool {
    let Ok(bytes) = std::fs::read(target.journal().path()) else {
        return false;
    };
    let read = planseal_recovery::store::read_journal(&bytes);
    let Some(last) = read
        .entries
        .iter()
        .rev()
        .filter(|l| l.get("plan").is_none_or(|p| p == plan))
        .find(|l| after_sha256(l).is_some())
    else {
        return false;
    };
    let before_matches = match &marker.planseal {
        None => true,
        Some(ext) => match before_sha256(last) {
            Some(b) => b == ext.state_sha256_before,
            None => ext.state_sha256_before == sha256_hex(b""),
        },
    };
    last.get("receipt").is_some()
        && after_sha256(last) == Some(marker.candidate_sha256.as_str())
        && before_matches
}

fn roll_forward(
    tx: &Transaction<'_>,
    candidate: &[u8],
    marker: &Marker,
    already_journaled: bool,
    clock: &mut Clock,
    hook: &mut dyn FnMut(Step),
) -> Result<(Receipt, Option<FinalizeError>), FinalizeError> {
    let state_path = tx.target().path();
    let plan_dir = state_path.parent().unwrap_or(Path::new("."));
    // The files the publication writes before state.json, as the marker records them.
    for c in marker.planseal.iter().flat_map(|e| &e.companions) {
        let path = plan_dir.join(&c.file);
        if tx.read(&path)?.as_deref() != Some(c.after.as_slice()) {
            tx.replace(&path, &c.after)?;
        }
    }
    let validation = validate_candidate(&ValidationInput {
        plan_dir,
        candidate,
        candidate_value: None,
        candidate_path: None,
        allow_dirty_reason: None,
        allow_unverified_git_reason: None,
    })?;
    if let Some(first) = validation.failures.first() {
        return Err(Refusal::from_check(
            first,
            format!(
                "{}: the interrupted candidate no longer verifies — {}; the marker stays",
                plan_dir.display(),
                first.message
            ),
        )
        .hint(
            first
                .hint
                .clone()
                .unwrap_or_else(|| "fix the plan, or roll back with --rollback".into()),
        )
        .details(validation.failures.clone())
        .into());
    }
    if validation.artifacts_sha256 != marker.artifacts_sha256 {
        return Err(Refusal::new(
            RefusalKind::ArtifactsChanged,
            format!(
                "{}: the plan's files changed since the interrupted publication (fingerprint {} then, {} now); the marker stays",
                plan_dir.display(),
                marker.artifacts_sha256,
                validation.artifacts_sha256
            ),
        )
        .hint("restore the files, or roll back with `planseal recover --rollback` and publish again")
        .into());
    }
    finalize::reach(Step::AfterValidation, hook);
    let mut req = FinalizeRequest::new(plan_dir, finalize::Candidate::Current);
    req.operation = "recover".into();
    // The line of the publication this recovery completes: when the rename had already
    // happened, the state before is known only by the hash the marker recorded.
    let restores = marker
        .planseal
        .as_ref()
        .is_some_and(|ext| ext.state_sha256_before == sha256_hex(b""));
    let before = store::read_state_before(state_path, restores)?;
    req.restores_state = restores;
    let mut entry = finalize::publication_entry(plan_dir, "recover", &before, candidate, clock);
    if let Some(ext) = &marker.planseal {
        entry.before_sha256 = Some(ext.state_sha256_before.clone());
    }
    req.journal_entry = Some(entry);
    req.already_journaled = already_journaled;
    let receipt = validation.receipt(&marker.candidate_sha256);
    match finalize::publish_from_marker(tx, candidate, marker, &validation, &req, clock, hook, None)
    {
        Ok(()) => Ok((receipt, None)),
        Err(finalize::Stopped {
            state_replaced: true,
            error,
        }) => Ok((receipt, Some(error))),
        Err(finalize::Stopped { error, .. }) => Err(error),
    }
}

/// `--candidate` does not carry the marker's hash: say what differs from the candidate the
/// marker binds (when planseal's marker holds it) or that only its hash is known.
fn candidate_mismatch(
    plan_dir: &Path,
    bytes: &[u8],
    origin: &str,
    marker: &Marker,
) -> FinalizeError {
    let given = sha256_hex(bytes);
    let published = candidate::published_bytes(bytes).map(|b| sha256_hex(&b));
    let what = match (&published, &marker.planseal) {
        (None, _) => "is not valid JSON".to_string(),
        (Some(_), Some(ext)) => {
            let given: serde_json::Value = serde_json::from_slice(bytes).unwrap_or_default();
            let bound: serde_json::Value = serde_json::from_str(&ext.candidate).unwrap_or_default();
            let differ = candidate::differences(&bound, &given, 5);
            if differ.is_empty() {
                "holds the same values in a layout neither tool publishes".to_string()
            } else {
                format!("differs from it in {}", differ.join(", "))
            }
        }
        (Some(p), None) => format!(
            "hashes to {given} as given and to {p} as published; the helper's marker records only the hash, so what differs cannot be shown"
        ),
    };
    Refusal::new(
        RefusalKind::CandidateMismatch,
        format!(
            "{}: {origin} is not the candidate the interrupted publication was writing ({}): it {what}",
            plan_dir.display(),
            marker.candidate_sha256
        ),
    )
    .hint("recovery is bound to the marker's candidate: pass that file, or use --rollback and publish again")
    .into()
}
