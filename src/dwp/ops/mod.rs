//! The DWP commands as library calls: each reads what it needs, decides, writes through
//! [`crate::write`], and returns a typed outcome the binary prints as text or JSON. An outcome's
//! `--json` document is its serialisation and its text a pure method of it; nothing here prints.
//!
//! - [`update`]: one guarded transition of state.json.
//! - [`approve`]: the user's approval of the plan's proposal.
//! - [`task_done`]: a task's close-out: its log, the README, PROGRESS.md, then the transition.
//! - [`amend`]: an amendment record, and what it does to the task's state and evidence.
//! - [`publish_check`]: everything still missing before publication, all at once.
//! - [`refine`]: the user's scope changes: a task skipped, a task added before the Final Review.
//! - [`promote`]: a Lite plan promoted to Full, resumable phase by phase.
//! - [`finalize`]: the verified publication (or re-seal) of a completed plan.
//! - [`recover`]: finishing or rolling back an interrupted publication.
//! - [`rebuild`]: state.json regenerated from the markdown and git.
//! - [`diff`]: state.json against the markdown, a revision or a candidate.
//! - [`log`]: the plan's timeline from git, or one file's versions.
//! - [`status`]: the resume view of every plan (and GSD, Reversa, checkpoint file) found.

pub mod amend;
pub mod approve;
pub mod diff;
pub mod finalize;
pub mod log;
mod plan_edit;
pub mod promote;
pub mod publish_check;
pub mod rebuild;
pub mod recover;
pub mod refine;
pub mod status;
pub mod task_done;
pub mod update;

use crate::dwp::decide::rebuild::RebuildError;
use crate::dwp::locate::OpenPlanError;
use crate::dwp::publish::FinalizeError;
use crate::recovery::git::GitError;
use crate::report::{HintedError, Refusal, RefusalKind};
use crate::write::WriteError;
use std::path::PathBuf;

/// Why a DWP command (other than `update`, which has [`update::UpdateError`]) stopped. Each
/// variant keeps the error's own type, so the binary's one error mapping prints it as it prints
/// every other command's: a refusal as a refusal (exit 1), a hint on its own line.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// A rule said no; nothing was written.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The command cannot go on, and the hint says what to do (exit 2).
    #[error(transparent)]
    Hinted(#[from] HintedError),
    /// The store refused the write (the lock is held, the file changed under the command, a
    /// symlink leads out of the plan) or a file-system call failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The finalization transaction or the recovery stopped.
    #[error(transparent)]
    Publish(#[from] FinalizeError),
    /// The repository could not be opened or read.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The plan's files could not be read for a rebuild (or a diff against the markdown).
    #[error(transparent)]
    Rebuild(#[from] RebuildError),
    /// A file could not be read; `what` says which and why it was wanted.
    #[error("{what}")]
    Read {
        /// What was being read: `reading <path>`, as the message shows it.
        what: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The plan's timeline could not be read from git.
    #[error("reading the git history of {}", plan_dir.display())]
    History {
        /// The plan folder whose timeline was asked for.
        plan_dir: PathBuf,
        /// What git reported.
        #[source]
        source: GitError,
    },
}

impl From<planseal_recovery::read::ReadError> for OpError {
    /// A file refused under the reading discipline is a refusal (exit 1, `docs/reading.md`);
    /// an operating-system error stays one.
    fn from(e: planseal_recovery::read::ReadError) -> Self {
        if let Some(refusal) = crate::report::read_refusal(&e) {
            return OpError::Refused(refusal);
        }
        let what = format!("reading {}", e.path().display());
        let source = match e {
            planseal_recovery::read::ReadError::Io { source, .. } => source,
            other => std::io::Error::other(other.to_string()),
        };
        OpError::Read { what, source }
    }
}

impl From<update::UpdateError> for OpError {
    fn from(e: update::UpdateError) -> Self {
        match e {
            update::UpdateError::Refused(r) => OpError::Refused(r),
            update::UpdateError::Write(w) => OpError::Write(w),
            update::UpdateError::Publish(p) => OpError::Publish(p),
            update::UpdateError::Input(h) => OpError::Hinted(h),
        }
    }
}

impl From<OpenPlanError> for OpError {
    fn from(e: OpenPlanError) -> Self {
        match e {
            OpenPlanError::NotAPlan(h) => OpError::Hinted(h),
            OpenPlanError::Git(g) => OpError::Git(g),
        }
    }
}

/// A plan folder opened by one of the writers that edit its markdown (`approve`, `task done`,
/// `amend`): the folder resolved, its name, state.json's bytes as read, and the caller's
/// snapshot (`--expected-sha256`) checked against them.
pub(crate) struct OpenedPlan {
    /// The plan folder, canonical.
    pub dir: std::path::PathBuf,
    /// Its name (`PLAN_x`).
    pub name: String,
    /// state.json as read.
    pub state_bytes: Vec<u8>,
}

impl OpenedPlan {
    /// Opens `plan_dir`; `missing_state` is the hint when it has no state.json.
    pub(crate) fn open(
        plan_dir: &std::path::Path,
        expected_sha256: Option<&str>,
        missing_state: &str,
    ) -> Result<OpenedPlan, OpError> {
        use crate::recovery::hash::sha256_hex;
        let dir = plan_dir.canonicalize().map_err(|_| {
            HintedError::usage(format!("{}: not a plan folder", plan_dir.display()))
                .hint("pass a plan folder such as .dwp/plans/PLAN_<name>")
        })?;
        let state_bytes = crate::dwp::read::read_plan_file(&dir, crate::dwp::layout::STATE_FILE)
            .map_err(crate::write::WriteError::read)?
            .ok_or_else(|| {
                Refusal::new(
                    RefusalKind::StateMissing,
                    format!("{}: no state.json", dir.display()),
                )
                .hint(missing_state)
            })?;
        check_expected_sha256(expected_sha256, Some(&sha256_hex(&state_bytes)))?;
        Ok(OpenedPlan {
            name: crate::dwp::layout::plan_name(&dir),
            dir,
            state_bytes,
        })
    }
}

/// The caller's guard (`--expected-sha256`): refused with `stale-snapshot` when state.json's
/// SHA-256 (`found`, `None` when there is no state.json) is not the one the caller read.
pub(crate) fn check_expected_sha256(
    expected: Option<&str>,
    found: Option<&str>,
) -> Result<(), Refusal> {
    let Some(expected) = expected else {
        return Ok(());
    };
    if found.is_some_and(|f| expected.eq_ignore_ascii_case(f)) {
        return Ok(());
    }
    Err(Refusal::new(
        RefusalKind::StaleSnapshot,
        format!(
            "state.json changed since you read it (sha256 {expected} expected, {} found); nothing was written",
            found.unwrap_or("no state.json")
        ),
    )
    .hint("read state.json again, then decide again"))
}

/// The first 12 hex digits of a hash, as the one-line summaries show it.
pub(crate) fn short(hex: &str) -> &str {
    hex.get(..12).unwrap_or(hex)
}

/// `text` in the ANSI colour `code` when colour is on.
pub(crate) fn paint(text: &str, code: &str, color: bool) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}
