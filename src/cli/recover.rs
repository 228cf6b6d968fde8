//! `planseal recover PLAN_DIR [--candidate FILE] [--rollback]`: finish or roll back an
//! interrupted publication (a leftover `.finalizing.json`), bound to the marker's candidate.

use super::Context;
use super::finalize::{lift, read_candidate, short};
use crate::{print_json, print_out};
use planseal::dwp::publish::recover::{
    self, Diagnosis, RecoverOutcome, RecoverRequest, StateRelation,
};
use planseal::report::ExitCode;
use planseal::report::LockOwnerState;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal recover .dwp/plans/PLAN_x                    finish the interrupted publication\n  \
planseal recover .dwp/plans/PLAN_x --candidate c.json  a marker left by the DWP helper\n  \
planseal recover .dwp/plans/PLAN_x --rollback          keep the state before instead\n  \
planseal recover .dwp/plans/PLAN_x --dry-run           show what happened and what would be done\n\n\
Recovery is bound to the candidate named by the marker: a --candidate \
whose SHA-256 differs is refused. A lock left by a killed writer is removed only when its owner \
is provably dead; an unknown owner (an empty lock directory) needs `planseal unlock --force \
--reason TEXT` first."
)]
pub struct Args {
    /// The plan folder (or its state.json)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    /// The candidate that was being published (needed for markers written by the DWP helper)
    #[arg(long, value_name = "FILE")]
    pub candidate: Option<PathBuf>,
    /// Remove the marker and keep the state as it was before the publication
    #[arg(long)]
    pub rollback: bool,
    /// Show what the interruption left and what recover would do; change nothing
    #[arg(long)]
    pub dry_run: bool,
}

pub fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let candidate = match &args.candidate {
        None => None,
        Some(path) => Some((
            read_candidate(&ctx.cwd.join(path), path)?,
            path.display().to_string(),
        )),
    };
    let req = RecoverRequest {
        plan_dir: ctx.cwd.join(&args.plan_dir),
        candidate,
        rollback: args.rollback,
        clock: planseal::clock::Clock::from_env()?,
    };
    if args.dry_run {
        return dry_run(&req, ctx);
    }
    if !ctx.json {
        // Show what happened before acting; a refusal below then has its context.
        let diagnosis = recover::diagnose(&req.plan_dir).map_err(lift)?;
        print_out(&describe(&diagnosis));
    }
    let outcome = recover::recover(&req, &mut |_| {}).map_err(lift)?;
    if ctx.json {
        print_json(to_json(&outcome));
        return Ok(ExitCode::Ok);
    }
    let text = match &outcome {
        RecoverOutcome::NothingToRecover(d) => {
            let mut s = format!(
                "{}: no interrupted publication (no {})\n",
                d.plan,
                planseal::dwp::publish::MARKER_FILE
            );
            if d.lock.is_some() {
                s.push_str(&format!(
                    "  a lock is present — run `planseal unlock {}` to clear it when its owner is gone\n",
                    d.plan_dir.join("state.json").display()
                ));
            }
            s
        }
        RecoverOutcome::RolledForward {
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
            if *lock_removed {
                ", stale lock removed"
            } else {
                ""
            }
        ),
        RecoverOutcome::RolledBack {
            diagnosis,
            lock_removed,
        } => format!(
            "{}: rolled back — marker removed, state.json left as it was{}\n",
            diagnosis.plan,
            if *lock_removed {
                ", stale lock removed"
            } else {
                ""
            }
        ),
    };
    print_out(&text);
    Ok(ExitCode::Ok)
}

/// `--dry-run`: the diagnosis and the action recover would take; nothing is written.
fn dry_run(req: &RecoverRequest, ctx: &Context) -> anyhow::Result<ExitCode> {
    let diagnosis = recover::diagnose(&req.plan_dir).map_err(lift)?;
    let action = planned_action(&diagnosis, req);
    if ctx.json {
        let doc = serde_json::json!({
            "result": "dry-run",
            "plan": diagnosis.plan,
            "marker_present": diagnosis.marker.is_some(),
            "state_sha256": diagnosis.state_sha256,
            "candidate_sha256": diagnosis.marker.as_ref().map(|m| m.candidate_sha256.clone()),
            "lock_present": diagnosis.lock.is_some(),
            "would": action,
        });
        print_json(doc);
        return Ok(ExitCode::Ok);
    }
    let mut text = describe(&diagnosis);
    if diagnosis.marker.is_none() {
        text.push_str(&format!(
            "{}: no interrupted publication (no {})\n",
            diagnosis.plan,
            planseal::dwp::publish::MARKER_FILE
        ));
    }
    text.push_str(&format!(
        "  would       {action} (dry run: nothing changed)\n"
    ));
    print_out(&text);
    Ok(ExitCode::Ok)
}

/// What `recover` with the same flags would do, judged from the diagnosis alone.
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

/// What an interruption left, in words.
fn describe(d: &Diagnosis) -> String {
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
            Some(h) if *h == marker.candidate_sha256 => "present, for the candidate".to_string(),
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

fn to_json(o: &RecoverOutcome) -> serde_json::Value {
    match o {
        RecoverOutcome::NothingToRecover(d) => serde_json::json!({
            "result": "nothing-to-recover",
            "plan": d.plan,
            "lock_present": d.lock.is_some(),
        }),
        RecoverOutcome::RolledForward {
            diagnosis,
            state_sha256,
            state_written,
            receipt,
            lock_removed,
        } => serde_json::json!({
            "result": "rolled-forward",
            "plan": diagnosis.plan,
            "state_sha256": state_sha256,
            "state_written": state_written,
            "lock_removed": lock_removed,
            "receipt": receipt,
        }),
        RecoverOutcome::RolledBack {
            diagnosis,
            lock_removed,
        } => serde_json::json!({
            "result": "rolled-back",
            "plan": diagnosis.plan,
            "state_sha256": diagnosis.state_sha256,
            "lock_removed": lock_removed,
        }),
    }
}
