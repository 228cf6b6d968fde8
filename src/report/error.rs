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

    /// A writer's input (a file it reads, the git repository) could not be read because of an OS
    /// error such as EIO: exit 3, and the hint says nothing was applied.
    pub fn input_io(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            hint: Some(
                "nothing was applied; check the file, its disk and its permissions, then retry"
                    .to_string(),
            ),
            code: ExitCode::Io,
        }
    }

    /// A writer's git repository could not be read: exit 3, nothing applied — a writer never
    /// writes from a guess of what the history holds. `context` names the file the writer works
    /// on. When gix could not open the repository at all, its `HEAD` file is named too if that
    /// is the file that cannot be read (gix only says it found no repository).
    pub fn git_input(context: &str, e: &crate::recovery::git::GitError) -> Self {
        let mut message = format!("{context}: cannot read the git repository: {e}");
        if let crate::recovery::git::GitError::Open { repository, .. } = e {
            let head = repository.join("HEAD");
            if let Err(why) =
                crate::recovery::read::read(&head, crate::recovery::read::Kind::Settings)
            {
                message.push_str(&format!(" ({})", why));
            }
        }
        Self::input_io(message)
    }

    /// Adds the next step for the user.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}
