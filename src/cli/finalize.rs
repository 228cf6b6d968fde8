//! `planseal finalize PLAN_DIR [--candidate FILE] [--expected-sha256 HEX] [--dry-run]
//! [--allow-dirty --reason TEXT]`: the verified publication of SPEC §1.9.

use super::Context;
use crate::{print_json, print_out};
use planseal::dwp::publish::{self, Candidate, FinalizeError, FinalizeRequest, Published};
use planseal::report::ExitCode;
use planseal::report::{Refusal, RefusalKind};
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Without --candidate the current state.json is re-sealed: it must already \
be completed; every check runs again and the receipt is rewritten for the current files.\n\n\
Examples:\n  planseal finalize .dwp/plans/PLAN_x --candidate candidate.json\n  planseal finalize \
.dwp/plans/PLAN_x                 re-seal a completed plan\n  planseal finalize .dwp/plans/PLAN_x \
--dry-run       every check, nothing written"
)]
pub struct Args {
    /// The plan folder (or its state.json)
    #[arg(value_name = "PLAN_DIR")]
    pub plan_dir: PathBuf,
    /// The completed state to publish (default: the current state.json — a re-seal)
    #[arg(long, value_name = "FILE")]
    pub candidate: Option<PathBuf>,
    /// SHA-256 of state.json as you last read it; refused if it changed since
    #[arg(long, value_name = "HEX")]
    pub expected_sha256: Option<String>,
    /// Run every check and print what would be written; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Accept a work tree with uncommitted changes (needs --reason; recorded in the receipt)
    #[arg(long, requires = "reason")]
    pub allow_dirty: bool,
    /// Why the exception is acceptable
    #[arg(long, value_name = "TEXT", requires = "allow_dirty")]
    pub reason: Option<String>,
}

pub fn run(args: Args, ctx: &Context) -> anyhow::Result<ExitCode> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.plan_dir));
    let plan_dir = ctx.cwd.join(&args.plan_dir);
    let candidate = match &args.candidate {
        None => Candidate::Current,
        Some(path) => Candidate::Bytes {
            bytes: read_candidate(&ctx.cwd.join(path), path)?,
            origin: path.display().to_string(),
        },
    };
    if let Some(reason) = &args.reason
        && reason.trim().is_empty()
    {
        return Err(
            Refusal::new(RefusalKind::UsageError, "--reason must not be empty")
                .hint("say why the dirty work tree is acceptable")
                .into(),
        );
    }
    let mut req = FinalizeRequest::new(plan_dir, candidate);
    req.expected_sha256 = args.expected_sha256.clone();
    req.dry_run = args.dry_run;
    req.allow_dirty_reason = if args.allow_dirty {
        args.reason.clone()
    } else {
        None
    };
    req.candidate_path = args.candidate.as_ref().map(|p| ctx.cwd.join(p));
    req.clock = planseal::clock::Clock::from_env()?;
    let outcome = publish::finalize(&req, &mut |_| {}).map_err(lift)?;
    print_published(&outcome, ctx);
    Ok(ExitCode::Ok)
}

/// Reads `--candidate FILE`; a missing file is the refusal `file-not-found`.
pub fn read_candidate(full: &Path, shown: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(full).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            Refusal::new(
                RefusalKind::FileNotFound,
                format!("{}: candidate file not found", shown.display()),
            )
            .hint("pass the path of the completed state to publish")
            .into()
        } else {
            anyhow::Error::new(e).context(format!("reading {}", shown.display()))
        }
    })
}

/// A refusal stays a refusal (exit 1); an I/O failure is an error (exit 2).
pub fn lift(e: FinalizeError) -> anyhow::Error {
    match e {
        FinalizeError::Refused(r) => r.into(),
        other => anyhow::Error::new(other),
    }
}

fn print_published(p: &Published, ctx: &Context) {
    let what = if p.dry_run {
        "dry-run"
    } else if p.resealed {
        "resealed"
    } else {
        "published"
    };
    if ctx.json {
        let doc = serde_json::json!({
            "result": what,
            "plan": p.plan,
            "plan_dir": p.plan_dir.display().to_string(),
            "state_sha256_before": p.state_sha256_before,
            "state_sha256": p.state_sha256,
            "artifacts_sha256": p.artifacts_sha256,
            "state_written": p.state_written,
            "receipt": p.receipt,
            "advisories": p.advisories,
        });
        print_json(doc);
        return;
    }
    let mut out = String::new();
    if p.dry_run {
        out.push_str(&format!(
            "{}: every check passed; nothing was written (--dry-run)\n",
            p.plan
        ));
        out.push_str(&format!(
            "would write {} (candidate {}), then state.json{}, then {}:\n",
            publish::MARKER_FILE,
            short(&p.state_sha256),
            if p.resealed {
                " (unchanged: re-seal)"
            } else {
                ""
            },
            publish::RECEIPT_FILE
        ));
        out.push_str(&String::from_utf8_lossy(&p.receipt_bytes));
    } else {
        let verb = if p.resealed {
            "re-sealed"
        } else {
            "published and verified"
        };
        out.push_str(&format!(
            "{}: {verb} · state {} · receipt {}\n",
            p.plan,
            short(&p.state_sha256),
            publish::RECEIPT_FILE
        ));
    }
    print_out(&out);
    // Advisories are diagnostics: stderr, so stdout stays the one result line.
    let mut notes = String::new();
    for a in &p.advisories {
        notes.push_str(&format!("  [~] {}\n", a.message));
    }
    crate::print_err(&notes);
}

pub fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}
