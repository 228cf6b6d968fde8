//! Why a `planseal gsd` command stopped before it could report.

use crate::recovery::git::GitError;
use crate::report::{HintedError, Refusal};
use crate::write::WriteError;

/// A refusal (exit 1, nothing written), an error with its next step (exit 2), a write the store
/// could not make, or a git repository that could not be read. Each keeps its own type, so the
/// binary's one error mapping prints it as it prints every other command's.
#[derive(Debug, thiserror::Error)]
pub enum GsdError {
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error(transparent)]
    Hinted(#[from] HintedError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(transparent)]
    Git(#[from] GitError),
}
