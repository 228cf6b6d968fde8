//! An error a command could not get past that is not a refusal: a path that does not exist, a
//! file that cannot be read, a revision that is not in the repository. Its hint says what to do
//! next and is printed as its own `hint:` line (text) or `hint` field (JSON), never glued into
//! the message.

use super::ExitCode;

/// An error with the next step and the exit code it ends the command with.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct HintedError {
    /// What went wrong, in one sentence; printed as the `error:` line.
    pub message: String,
    /// The next step for the user, printed as its own `hint:` line (or `hint` field); `None` when
    /// there is nothing to suggest.
    pub hint: Option<String>,
    /// 2 for a usage error or unreadable input, 3 for a writer's I/O error before its commit
    /// point.
    pub code: ExitCode,
}

impl HintedError {
    /// A usage error or input that cannot be used (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: None,
            code: ExitCode::UsageOrUnverified,
        }
    }

    /// Adds the next step for the user.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}
