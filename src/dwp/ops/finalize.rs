//! `finalize`: the verified publication of a completed plan, or the re-seal of one already
//! published (docs/finalize.md). The transaction itself is [`crate::dwp::publish::finalize()`];
//! this reads the candidate the caller named and shapes what it did for the caller.

use super::{OpError, short};
use crate::clock::Clock;
use crate::dwp::model::receipt::Receipt;
use crate::dwp::publish::{self, Candidate, FinalizeRequest, Published};
use crate::report::{Finding, Refusal, RefusalKind};
use serde::{Serialize, Serializer};
use std::path::{Path, PathBuf};

/// `planseal finalize PLAN_DIR [--candidate FILE] [--expected-sha256 HEX] [--dry-run]
/// [--allow-dirty] [--allow-unverified-git] [--reason TEXT]`.
#[derive(Debug, Clone)]
pub struct FinalizeOptions {
    /// The directory the command runs in; relative paths are taken from here.
    pub cwd: PathBuf,
    /// The plan folder (or its state.json) as given.
    pub plan_dir: PathBuf,
    /// The completed state to publish, as given; `None` re-seals the current state.json.
    pub candidate: Option<PathBuf>,
    /// SHA-256 of state.json as the caller last read it.
    pub expected_sha256: Option<String>,
    /// Every check, nothing written.
    pub dry_run: bool,
    /// `--allow-dirty --reason TEXT`: accept a dirty work tree for this reason.
    pub allow_dirty_reason: Option<String>,
    /// `--allow-unverified-git --reason TEXT`: seal although git cannot be read, for this
    /// reason.
    pub allow_unverified_git_reason: Option<String>,
    /// Where the marker, the lock record and the journal line take their time.
    pub clock: Clock,
}

/// What the publication did, or with `dry_run` would do.
#[derive(Debug, Clone)]
pub struct FinalizeOutcome {
    /// The transaction's report: the hashes, the receipt, what was written and the advisories.
    pub published: Published,
}

/// Reads the candidate, then runs the finalization transaction.
pub fn finalize(opts: FinalizeOptions) -> Result<FinalizeOutcome, OpError> {
    let candidate = match &opts.candidate {
        None => Candidate::Current,
        Some(path) => Candidate::Bytes {
            bytes: read_candidate(&opts.cwd.join(path), path)?,
            origin: path.display().to_string(),
        },
    };
    if let Some(reason) = opts
        .allow_dirty_reason
        .as_ref()
        .or(opts.allow_unverified_git_reason.as_ref())
        && reason.trim().is_empty()
    {
        return Err(
            Refusal::new(RefusalKind::UsageError, "--reason must not be empty")
                .hint("say why the exception (a dirty work tree, git that cannot be read) is acceptable")
                .into(),
        );
    }
    let mut req = FinalizeRequest::new(opts.cwd.join(&opts.plan_dir), candidate);
    req.expected_sha256 = opts.expected_sha256;
    req.dry_run = opts.dry_run;
    req.allow_dirty_reason = opts.allow_dirty_reason;
    req.allow_unverified_git_reason = opts.allow_unverified_git_reason;
    req.candidate_path = opts.candidate.as_ref().map(|p| opts.cwd.join(p));
    req.clock = opts.clock;
    let published = publish::finalize(&req, &mut |_| {})?;
    Ok(FinalizeOutcome { published })
}

/// Reads a `--candidate FILE` (`full`, shown to the user as `shown`); a missing file is the
/// refusal `file-not-found`, any other failure an error.
pub(crate) fn read_candidate(full: &Path, shown: &Path) -> Result<Vec<u8>, OpError> {
    match planseal_recovery::read::read(full, planseal_recovery::read::Kind::Document)? {
        Some(bytes) => Ok(bytes),
        None => Err(Refusal::new(
            RefusalKind::FileNotFound,
            format!("{}: candidate file not found", shown.display()),
        )
        .hint("pass the path of the completed state to publish")
        .into()),
    }
}

/// The `--json` document.
#[derive(Serialize, schemars::JsonSchema)]
struct Document<'a> {
    result: &'static str,
    /// What the run did: `published`, `resealed`, or on a dry run what it would do.
    outcome: &'static str,
    dry_run: bool,
    plan: &'a str,
    plan_dir: String,
    state_sha256_before: &'a str,
    state_sha256: &'a str,
    artifacts_sha256: &'a str,
    state_written: bool,
    receipt: &'a Receipt,
    advisories: &'a [Finding],
}

/// Serialised as its `Document`, so described by it.
impl schemars::JsonSchema for FinalizeOutcome {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FinalizeOutcome".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Document<'static> as schemars::JsonSchema>::json_schema(generator)
    }
}

impl Serialize for FinalizeOutcome {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = &self.published;
        Document {
            result: if p.dry_run { "ok" } else { "applied" },
            outcome: self.outcome(),
            dry_run: p.dry_run,
            plan: &p.plan,
            plan_dir: p.plan_dir.display().to_string(),
            state_sha256_before: &p.state_sha256_before,
            state_sha256: &p.state_sha256,
            artifacts_sha256: &p.artifacts_sha256,
            state_written: p.state_written,
            receipt: &p.receipt,
            advisories: &p.advisories,
        }
        .serialize(s)
    }
}

impl FinalizeOutcome {
    /// `resealed` or `published` (on a dry run: what the run would do).
    pub fn outcome(&self) -> &'static str {
        if self.published.resealed {
            "resealed"
        } else {
            "published"
        }
    }

    /// The result line (a dry run: what would be written, then the receipt it would write).
    pub fn to_text(&self) -> String {
        let p = &self.published;
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
            if p.unfinished() {
                out.push_str(&format!(
                    "{}: publication committed but not finished · state {} · {} is left for `planseal recover`\n",
                    p.plan,
                    short(&p.state_sha256),
                    publish::MARKER_FILE
                ));
                return out;
            }
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
        out
    }

    /// The advisories met on the way, one `  [~] …` line each: diagnostics, for stderr, so that
    /// stdout stays the result.
    pub fn advisories_text(&self) -> String {
        self.published
            .advisories
            .iter()
            .map(|a| format!("  [~] {}\n", a.message))
            .collect()
    }
}
