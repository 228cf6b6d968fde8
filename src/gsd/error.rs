//! Why a `planseal gsd` command stopped before it could report.

use crate::recovery::git::GitError;
use crate::report::{HintedError, Refusal};
use crate::write::WriteError;

/// A refusal (exit 1, nothing written), an error with its next step (exit 2), a write the store
/// could not make, or a git repository that could not be read. Each keeps its own type, so the
/// binary's one error mapping prints it as it prints every other command's.
#[derive(Debug, thiserror::Error)]
pub enum GsdError {
    /// The change is not allowed (exit 1); nothing was written.
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The command cannot go on, and the hint says what to do (exit 2).
    #[error(transparent)]
    Hinted(#[from] HintedError),
    /// The store refused the write or the file system failed; STATE.md holds the bytes it had.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The repository could not be read (`gsd recover` reads STATE.md's history).
    #[error(transparent)]
    Git(#[from] GitError),
}
