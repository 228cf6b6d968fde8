//! `recover`: finish or roll back an interrupted publication (a leftover `.finalizing.json`),
//! bound to the candidate the marker names (docs/finalize.md). In steps, so the caller can show
//! what the interruption left before anything is done: [`prepare`] reads `--candidate`,
//! [`diagnose`] looks without touching, [`dry_run`] says what would be done, [`recover`] does it.

use super::finalize::read_candidate;
use super::{OpError, short};
use crate::clock::Clock;
use crate::dwp::layout;
use crate::dwp::model::receipt::Receipt;
use crate::dwp::publish::recover::{self as publish, Diagnosis, RecoverRequest, StateRelation};
use crate::report::LockOwnerState;
use crate::write::{Confirmation, UnconfirmedStep};
use serde::{Serialize, Serializer};
use std::path::PathBuf;

/// `planseal recover PLAN_DIR [--candidate FILE] [--rollback]`.
#[derive(Debug, Clone)]
pub struct RecoverOptions {
    /// The directory the command runs in; relative paths are taken from here.
    pub cwd: PathBuf,
    /// The plan folder (or its state.json) as given.
    pub plan_dir: PathBuf,
    /// The candidate that was being published, as given (needed for the DWP helper's markers).
    pub candidate: Option<PathBuf>,
    /// Remove the marker and keep the state before the publication.
    pub rollback: bool,
    /// Where the lock record and the journal lines take their time.
    pub clock: Clock,
    /// The SHA-256 of state.json as the caller last read it: refused (`stale-snapshot`) when
    /// state.json is another when recovery starts.
    pub expected_sha256: Option<String>,
}

/// A recovery with its candidate read, not started.
#[derive(Debug, Clone)]
pub struct PreparedRecovery {
    request: RecoverRequest,
    expected_sha256: Option<String>,
}

/// Reads `--candidate`, when given (a missing file is refused before anything is looked at).
pub fn prepare(opts: RecoverOptions) -> Result<PreparedRecovery, OpError> {
    let candidate = match &opts.candidate {
        None => None,
        Some(path) => Some((
            read_candidate(&opts.cwd.join(path), path)?,
            path.display().to_string(),
        )),
    };
    Ok(PreparedRecovery {
        request: RecoverRequest {
            plan_dir: opts.cwd.join(&opts.plan_dir),
            candidate,
            rollback: opts.rollback,
            clock: opts.clock,
        },
        expected_sha256: opts.expected_sha256,
    })
}

/// What the interruption left; nothing is changed.
#[derive(Debug, Clone)]
pub struct DiagnosisOutcome {
    /// The marker, state.json, the receipt and the lock as found.
    pub diagnosis: Diagnosis,
}

/// Looks at the plan folder (marker, state.json, receipt, lock) and changes nothing.
pub fn diagnose(prepared: &PreparedRecovery) -> Result<DiagnosisOutcome, OpError> {
    let diagnosis = publish::diagnose(&prepared.request.plan_dir)?;
    Ok(DiagnosisOutcome { diagnosis })
}

impl DiagnosisOutcome {
    /// The marker, the candidate, state.json, the receipt and the lock, in words; empty when no
    /// publication was interrupted.
    pub fn to_text(&self) -> String {
        let d = &self.diagnosis;
        let mut s = String::new();
        let Some(marker) = &d.marker else {
            return s;
        };
        s.push_str(&format!("{}: interrupted publication found\n", d.plan));
        let origin = match &marker.planseal {
            Some(ext) => format!(
                "planseal ({}), started {}",
                ext.tool_version, ext.started_at
            ),
            None => "the DWP helper (hashes only)".to_string(),
        };
        s.push_str(&format!("  marker      written by {origin}\n"));
        s.push_str(&format!("  candidate   {}\n", marker.candidate_sha256));
        if let Some(ext) = &marker.planseal {
            s.push_str(&format!("  before      {}\n", ext.state_sha256_before));
        }
        s.push_str(&format!(
            "  state.json  {} — {}\n",
            d.state_sha256.as_deref().unwrap_or("(missing)"),
            match d.relation {
                Some(StateRelation::IsCandidate) =>
                    "already the candidate (replaced before the interruption)",
                Some(StateRelation::IsBefore) => "still the state before the publication",
                Some(StateRelation::PresumedBefore) =>
                    "not the candidate (the helper's marker does not record the state before)",
                Some(StateRelation::Neither) | None => "neither the candidate nor the state before",
            }
        ));
        s.push_str(&format!(
            "  receipt     {}\n",
            match &d.receipt_state_sha256 {
                None => "none".to_string(),
                Some(h) if *h == marker.candidate_sha256 =>
                    "present, for the candidate".to_string(),
                Some(h) => format!("present, for another state ({})", short(h)),
            }
        ));
        if let Some(lock) = &d.lock {
            let state = match lock.owner_state {
                LockOwnerState::Dead => "owner is gone — will be removed",
                LockOwnerState::Alive => "owner is alive",
                LockOwnerState::Unknown => "owner unknown",
            };
            s.push_str(&format!(
                "  lock        {} ({state}): {}\n",
                lock.path.display(),
                lock.owner
            ));
        }
        s
    }
}

/// `--dry-run`: the diagnosis and the action `recover` with the same flags would take.
#[derive(Debug, Clone)]
pub struct DryRunOutcome {
    /// What the interruption left.
    pub diagnosis: DiagnosisOutcome,
    /// In words: `nothing`, `refuse (…)`, `publish the marker's candidate, …`.
    pub would: String,
}

/// Judges from the diagnosis alone what `recover` would do; nothing is written.
pub fn dry_run(prepared: &PreparedRecovery) -> Result<DryRunOutcome, OpError> {
    let diagnosis = diagnose(prepared)?;
    let would = planned_action(&diagnosis.diagnosis, &prepared.request);
    Ok(DryRunOutcome { diagnosis, would })
}

fn planned_action(d: &Diagnosis, req: &RecoverRequest) -> String {
    let Some(marker) = &d.marker else {
        return "nothing".into();
    };
    let rerun = format!("planseal recover {}", d.plan_dir.display());
    match d.relation {
        Some(StateRelation::Neither) | None => {
            "refuse (state-diverged): restore the candidate or the state before first".into()
        }
        Some(StateRelation::IsCandidate) if req.rollback => {
            format!("refuse (rollback-impossible): run `{rerun}` to finish instead")
        }
        Some(StateRelation::IsCandidate) => {
            "re-verify the published state, write the receipt, remove the marker".into()
        }
        Some(_) if req.rollback => {
            "remove the marker and keep state.json as it is (rolled back)".into()
        }
        Some(_) if req.candidate.is_none() && marker.planseal.is_none() => format!(
            "refuse (candidate-required): run `{rerun} --candidate FILE` with the candidate {}",
            marker.candidate_sha256
        ),
        Some(_) => {
            "publish the marker's candidate, re-verify, write the receipt, remove the marker".into()
        }
    }
}

#[derive(Serialize, schemars::JsonSchema)]
struct DryRunDocument<'a> {
    result: &'static str,
    dry_run: bool,
    plan: &'a str,
    marker_present: bool,
    state_sha256: Option<&'a str>,
    candidate_sha256: Option<&'a str>,
    lock_present: bool,
    would: &'a str,
}

/// Serialised as its `DryRunDocument`, so described by it.
impl schemars::JsonSchema for DryRunOutcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DryRunOutcome".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <DryRunDocument<'static> as schemars::JsonSchema>::json_schema(generator)
    }
}

impl Serialize for DryRunOutcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = &self.diagnosis.diagnosis;
        DryRunDocument {
            result: "ok",
            dry_run: true,
            plan: &d.plan,
            marker_present: d.marker.is_some(),
            state_sha256: d.state_sha256.as_deref(),
            candidate_sha256: d.marker.as_ref().map(|m| m.candidate_sha256.as_str()),
            lock_present: d.lock.is_some(),
            would: &self.would,
        }
        .serialize(s)
    }
}

impl DryRunOutcome {
    /// The diagnosis in words, then the `would` line.
    pub fn to_text(&self) -> String {
        let d = &self.diagnosis.diagnosis;
        let mut text = self.diagnosis.to_text();
        if d.marker.is_none() {
            text.push_str(&nothing_interrupted(&d.plan));
        }
        text.push_str(&format!(
            "  would       {} (dry run: nothing changed)\n",
            self.would
        ));
        text
    }
}

fn nothing_interrupted(plan: &str) -> String {
    format!(
        "{plan}: no interrupted publication (no {})\n",
        layout::MARKER_FILE
    )
}

/// What recovery did.
#[derive(Debug, Clone)]
pub struct RecoveredOutcome {
    /// Nothing to recover, rolled forward (published) or rolled back.
    pub outcome: publish::RecoverOutcome,
}

/// Finishes (or with `rollback`, rolls back) the interrupted publication.
pub fn recover(prepared: PreparedRecovery) -> Result<RecoveredOutcome, OpError> {
    if prepared.expected_sha256.is_some() {
        let diagnosis = publish::diagnose(&prepared.request.plan_dir)?;
        super::check_expected_sha256(
            prepared.expected_sha256.as_deref(),
            diagnosis.state_sha256.as_deref(),
        )?;
    }
    let outcome = publish::recover(&prepared.request, &mut |_| {})?;
    Ok(RecoveredOutcome { outcome })
}

/// The `--json` document: its fields depend on what was done.
#[derive(Serialize, schemars::JsonSchema)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
enum RecoveredDocument<'a> {
    NothingToRecover {
        plan: &'a str,
        lock_present: bool,
    },
    RolledForward {
        plan: &'a str,
        state_sha256: &'a str,
        state_written: bool,
        lock_removed: bool,
        receipt: &'a Receipt,
    },
    RolledBack {
        plan: &'a str,
        state_sha256: Option<&'a str>,
        lock_removed: bool,
    },
    Stopped {
        plan: &'a str,
        lock_removed: bool,
    },
}

/// Serialised as its `RecoveredDocument`, so described by it.
impl schemars::JsonSchema for RecoveredOutcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RecoveredOutcome".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <RecoveredDocument<'static> as schemars::JsonSchema>::json_schema(generator)
    }
}

impl Serialize for RecoveredOutcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.outcome {
            publish::RecoverOutcome::Stopped { diagnosis, .. } => RecoveredDocument::Stopped {
                plan: &diagnosis.plan,
                lock_removed: true,
            },
            publish::RecoverOutcome::NothingToRecover(d) => RecoveredDocument::NothingToRecover {
                plan: &d.plan,
                lock_present: d.lock.is_some(),
            },
            publish::RecoverOutcome::RolledForward {
                diagnosis,
                state_sha256,
                state_written,
                receipt,
                lock_removed,
                ..
            } => RecoveredDocument::RolledForward {
                plan: &diagnosis.plan,
                state_sha256,
                state_written: *state_written,
                lock_removed: *lock_removed,
                receipt,
            },
            publish::RecoverOutcome::RolledBack {
                diagnosis,
                lock_removed,
                ..
            } => RecoveredDocument::RolledBack {
                plan: &diagnosis.plan,
                state_sha256: diagnosis.state_sha256.as_deref(),
                lock_removed: *lock_removed,
            },
        }
        .serialize(s)
    }
}

impl RecoveredOutcome {
    /// What the run wrote and could not confirm; `None` when it wrote nothing (nothing to
    /// recover).
    pub fn confirmation(&self) -> Option<&Confirmation> {
        match &self.outcome {
            publish::RecoverOutcome::NothingToRecover(_) => None,
            publish::RecoverOutcome::RolledForward { confirmation, .. }
            | publish::RecoverOutcome::RolledBack { confirmation, .. }
            | publish::RecoverOutcome::Stopped { confirmation, .. } => Some(confirmation),
        }
    }

    /// One line saying what was done (and, with nothing to recover, how to clear a leftover
    /// lock).
    pub fn to_text(&self) -> String {
        let stale = |removed: bool| if removed { ", stale lock removed" } else { "" };
        match &self.outcome {
            publish::RecoverOutcome::Stopped { diagnosis, .. } => format!(
                "{}: stale lock removed, but the publication is not finished · {} is left for another `planseal recover`\n",
                diagnosis.plan,
                layout::MARKER_FILE
            ),
            publish::RecoverOutcome::NothingToRecover(d) => {
                let mut s = nothing_interrupted(&d.plan);
                if d.lock.is_some() {
                    s.push_str(&format!(
                        "  a lock is present — run `planseal unlock {}` to clear it when its owner is gone\n",
                        layout::state_path(&d.plan_dir).display()
                    ));
                }
                s
            }
            publish::RecoverOutcome::RolledForward {
                diagnosis,
                state_sha256,
                confirmation,
                ..
            } if confirmation
                .unconfirmed()
                .iter()
                .any(|u| u.step == UnconfirmedStep::Unfinished) =>
            {
                format!(
                    "{}: state {} published, but the publication is not finished · {} is left for another `planseal recover`\n",
                    diagnosis.plan,
                    short(state_sha256),
                    layout::MARKER_FILE
                )
            }
            publish::RecoverOutcome::RolledForward {
                diagnosis,
                state_sha256,
                state_written,
                lock_removed,
                ..
            } => format!(
                "{}: recovered — {}state {} verified, receipt written, marker removed{}\n",
                diagnosis.plan,
                if *state_written { "published " } else { "" },
                short(state_sha256),
                stale(*lock_removed)
            ),
            publish::RecoverOutcome::RolledBack {
                diagnosis,
                lock_removed,
                ..
            } => format!(
                "{}: rolled back — marker removed, state.json left as it was{}\n",
                diagnosis.plan,
                stale(*lock_removed)
            ),
        }
    }
}
