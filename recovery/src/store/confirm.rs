//! What a write that reached its commit point could not confirm.
//!
//! Once the rename of a write has happened the change is in place: a later failure (syncing the
//! folder, appending the journal line, releasing the lock, a later step of a several-file
//! transaction) never turns it back into "not applied". It is reported as a [`Confirmation`]
//! that lists what was not confirmed, so the caller can say "applied, durability not confirmed"
//! instead of a plain error (a caller that retried on an error would apply the change twice).

use std::path::PathBuf;

/// Which part of an applied write could not be confirmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum UnconfirmedStep {
    /// The rename is in place but syncing its folder failed: it may not survive a power loss.
    FolderSync,
    /// The journal line could not be appended, or not synced (the change itself stays).
    JournalLine,
    /// The lock could not be released: it stays until `unlock` removes it.
    LockRelease,
    /// A transaction over several files stopped after its commit point: a recovery command
    /// finishes it (the hint names it).
    Unfinished,
}

/// One thing an applied write could not confirm.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Unconfirmed {
    /// What was not confirmed.
    #[serde(rename = "kind")]
    pub step: UnconfirmedStep,
    /// The file or folder it is about (the folder not synced, the journal, the lock, what is
    /// left of the transaction).
    pub path: PathBuf,
    /// Why: the operating system's error, with what was being done.
    pub reason: String,
    /// What the user can do about it, when the caller knows (`planseal recover PLAN`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Unconfirmed {
    /// `step` on `path` failed with `reason`.
    pub fn new(step: UnconfirmedStep, path: impl Into<PathBuf>, reason: impl Into<String>) -> Self {
        Self {
            step,
            path: path.into(),
            reason: reason.into(),
            hint: None,
        }
    }

    /// Adds what the user can do about it.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// One sentence for the user: what is in place and what was not confirmed.
    pub fn message(&self) -> String {
        let path = self.path.display();
        let reason = &self.reason;
        match self.step {
            UnconfirmedStep::FolderSync => format!(
                "the change is in place, but its folder could not be synced ({reason}): it may not survive a power loss"
            ),
            UnconfirmedStep::JournalLine => format!(
                "the change is in place, but its journal line in {path} was not confirmed written ({reason})"
            ),
            UnconfirmedStep::LockRelease => format!(
                "the change is in place, but the lock {path} could not be released ({reason})"
            ),
            UnconfirmedStep::Unfinished => format!(
                "the transaction passed its commit point and then stopped ({reason}); {path} is left for the recovery to finish"
            ),
        }
    }
}

/// Whether everything an applied write did is known to be durable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use = "an applied write that was not confirmed must be reported as such"]
pub enum Confirmation {
    /// Every step was done and synced.
    #[default]
    Confirmed,
    /// The change is in place; these steps were not confirmed (never empty).
    Unconfirmed(Vec<Unconfirmed>),
}

impl Confirmation {
    /// Adds one thing that was not confirmed (once: the same step on the same path again, as
    /// when several files of one folder were renamed, adds nothing).
    pub fn push(&mut self, u: Unconfirmed) {
        match self {
            Confirmation::Confirmed => *self = Confirmation::Unconfirmed(vec![u]),
            Confirmation::Unconfirmed(list) => {
                if !list.iter().any(|k| k.step == u.step && k.path == u.path) {
                    list.push(u);
                }
            }
        }
    }

    /// Both lists: what `self` and `other` did not confirm.
    pub fn and(mut self, other: Confirmation) -> Confirmation {
        for u in other.unconfirmed().iter().cloned() {
            self.push(u);
        }
        self
    }

    /// Whether every step was confirmed.
    pub fn is_confirmed(&self) -> bool {
        matches!(self, Confirmation::Confirmed)
    }

    /// What was not confirmed (empty when everything was).
    pub fn unconfirmed(&self) -> &[Unconfirmed] {
        match self {
            Confirmation::Confirmed => &[],
            Confirmation::Unconfirmed(list) => list,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collects_what_was_not_confirmed() {
        let mut c = Confirmation::Confirmed;
        assert!(c.is_confirmed() && c.unconfirmed().is_empty());
        c.push(Unconfirmed::new(
            UnconfirmedStep::FolderSync,
            "/p",
            "fsync folder /p: EIO",
        ));
        c.push(Unconfirmed::new(
            UnconfirmedStep::FolderSync,
            "/p",
            "fsync folder /p: EIO",
        ));
        let c = c.and(Confirmation::Unconfirmed(vec![Unconfirmed::new(
            UnconfirmedStep::JournalLine,
            "/p/j",
            "x",
        )]));
        assert!(!c.is_confirmed());
        let kinds: Vec<_> = c.unconfirmed().iter().map(|u| u.step).collect();
        assert_eq!(
            kinds,
            [UnconfirmedStep::FolderSync, UnconfirmedStep::JournalLine]
        );
        assert!(
            c.unconfirmed()[0]
                .message()
                .contains("may not survive a power loss")
        );
        let json = serde_json::to_value(&c.unconfirmed()[0]).unwrap();
        assert_eq!(json["kind"], "folder-sync");
        assert_eq!(json["path"], "/p");
    }
}
