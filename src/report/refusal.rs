//! Refusals: a writer that says no, and why. Nothing was written.
//!
//! Every refusal has a stable kind that leads its stderr message and is the `kind` field of its
//! JSON form, so scripts and agents branch on the kind, never on the prose. The writers' own
//! kinds are the closed list of [`RefusalKind`] (documented in `docs/refusals.md`, which a test
//! keeps in step with this list). A refusal caused by a failed check — a transition or a
//! publication that the plan's own findings forbid — takes that finding's id as its kind
//! ([`RefusalKind::Check`]); the finding ids are listed in `docs/verify.md`.

use super::Finding;
use serde::{Serialize, Serializer};
use std::fmt;

/// Declares the closed list of refusal kinds once: the enum, its kebab-case names, one line of
/// meaning each (for the docs test), and the parser that maps an id back to its kind.
macro_rules! refusal_kinds {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal, )*) => {
        /// The stable kind of a [`Refusal`], serialised kebab-case.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum RefusalKind {
            $( $(#[$doc])* $variant, )*
            /// A failed check of the plan forbids the change: the finding's id is the kind
            /// (`completion-gates-unsuccessful`, `task-record-unpublishable`, …).
            Check(String),
        }

        impl RefusalKind {
            /// Every writer kind (not the open set of check ids).
            pub const ALL: &'static [RefusalKind] = &[ $( RefusalKind::$variant, )* ];

            /// The kebab-case name.
            pub fn as_str(&self) -> &str {
                match self {
                    $( RefusalKind::$variant => $name, )*
                    RefusalKind::Check(id) => id,
                }
            }

            /// The kind an id names: a writer kind when it is one, else a check's finding id.
            pub fn from_id(id: &str) -> Self {
                match id {
                    $( $name => RefusalKind::$variant, )*
                    other => RefusalKind::Check(other.to_string()),
                }
            }
        }
    };
}

refusal_kinds! {
    // --- arguments and input files
    /// The command line is inconsistent in a way clap cannot see (`--force` without a reason).
    UsageError = "usage-error",
    /// The state file named does not exist.
    StateMissing = "state-missing",
    /// The state file cannot be read or is not the JSON it must be.
    StateUnreadable = "state-unreadable",
    /// state.json does not parse.
    StateUnparseable = "state-unparseable",
    /// The file breaks the schema of its format.
    ShapeError = "shape-error",
    /// The state names a schema version planseal does not know.
    UnsupportedSchema = "unsupported-schema",
    /// The file is not valid UTF-8 text.
    NotUtf8 = "not-utf8",
    /// A file the command needs does not exist.
    FileNotFound = "file-not-found",
    /// The plan folder does not exist.
    PlanNotFound = "plan-not-found",
    /// A text argument is longer than its budget.
    FieldTooLong = "field-too-long",
    /// `--commit` is not 7–40 lower-case hex digits.
    CommitNotHex = "commit-not-hex",
    /// `--gate` is not `command|exit_code|evidence`.
    GateSpecMalformed = "gate-spec-malformed",
    /// The middle field of `--gate` is not an integer.
    GateExitCodeNotInteger = "gate-exit-code-not-integer",
    /// `--gate` reads two ways (a `|` inside the command).
    GateSpecAmbiguous = "gate-spec-ambiguous",
    /// `--gate-json` is not JSON.
    GateJsonUnparseable = "gate-json-unparseable",
    /// `--gate-json` is not a JSON object.
    GateJsonNotObject = "gate-json-not-object",

    // --- the guarded write (lock, compare-and-swap, atomic replace)
    /// `--expected-sha256` is not the hash of the file's current bytes.
    StaleSnapshot = "stale-snapshot",
    /// The file changed between the read and the lock: another writer got there first.
    StateChanged = "state-changed",
    /// The file is locked; the refusal's `owner` says whether the holder is alive, dead or unknown.
    LockPresent = "lock-present",
    /// There is no lock to remove.
    NotLocked = "not-locked",
    /// The lock folder holds entries planseal never writes there: `unlock` removed nothing.
    LockUnexpectedContent = "lock-unexpected-content",
    /// The target, its folder or the journal is a symlink leading out of where it belongs (or a
    /// file read names a path outside its folder).
    SymlinkEscape = "symlink-escape",
    /// A FIFO, socket, device or folder is where a file should be: it is never opened for reading.
    NotARegularFile = "not-a-regular-file",
    /// The file is larger than planseal reads of its kind (`docs/reading.md`).
    InputTooLarge = "input-too-large",

    // --- DWP transitions
    /// The plan is not materialised (or a Lite plan not promoted).
    NotReady = "not-ready",
    /// The plan's proposal is not approved.
    NotApproved = "not-approved",
    /// `--task` is not a task of the plan.
    UnknownTask = "unknown-task",
    /// A lower task is not completed.
    PriorTaskIncomplete = "prior-task-incomplete",
    /// Reopening a completed task needs `--reopen-reason`.
    ReopenWithoutReason = "reopen-without-reason",
    /// Reopening a completed task needs an amendment record in its log first.
    ReopenWithoutAmendment = "reopen-without-amendment",
    /// Blocking a task needs `--block-reason`.
    BlockWithoutReason = "block-without-reason",
    /// Another task's blocker is still active.
    ActiveBlockerUnresolved = "active-blocker-unresolved",
    /// A new block would replace another task's blocker.
    ReplaceUnrelatedBlocker = "replace-unrelated-blocker",
    /// `--resolve-blocker` names a blocker of another task.
    ResolveUnrelatedBlocker = "resolve-unrelated-blocker",
    /// `--resolve-blocker` must move the task to in_progress or completed.
    ResolveMustResume = "resolve-must-resume",
    /// The latest record of a gate was invalidated by a refine amendment.
    EvidenceInvalidatedByRefine = "evidence-invalidated-by-refine",
    /// Marking a gate record invalidated would push its evidence past the 500-character budget.
    EvidenceBudget = "evidence-budget",
    /// Skipping a task needs a dated refinement record (or an amendment) with the user's authority.
    SkipWithoutRefinement = "skip-without-refinement",
    /// Reopening a task while a later one stays completed needs an amendment naming the later tasks.
    ReopenLeavesLaterCompleted = "reopen-leaves-later-completed",
    /// A required label of the task's Completion & Log still holds a `TODO:` placeholder.
    TaskRecordPlaceholder = "task-record-placeholder",
    /// The task has no record to close or amend (no inline record, no task file).
    TaskRecordMissing = "task-record-missing",
    /// The README has no task-list line for the task, or no `Plan Status:` line.
    ReadmeIndexMissing = "readme-index-missing",
    /// An amendment names a gate the task has no record of.
    GateNotRecorded = "gate-not-recorded",
    /// An amendment would be dated before the task's latest one.
    AmendmentBackdated = "amendment-backdated",

    // --- DWP scope and format (refine, promote)
    /// Only the user removes a task from scope: `refine --skip` takes `--authority user`.
    AuthorityNotUser = "authority-not-user",
    /// A completed task is reopened (an amendment), never skipped.
    SkipCompletedTask = "skip-completed-task",
    /// The Final Review closes the plan: it is never skipped.
    SkipFinalReview = "skip-final-review",
    /// A task is added before the Final Review only while the Final Review is pending.
    FinalReviewStarted = "final-review-started",

    // --- DWP publication and recovery
    /// An interrupted publication left `.finalizing.json`: only `recover` may proceed.
    MarkerPresent = "marker-present",
    /// The plan is completed and published: its approval and its shape are part of the sealed
    /// record.
    PlanCompleted = "plan-completed",
    /// `.finalizing.json` cannot be read as a marker.
    MarkerUnreadable = "marker-unreadable",
    /// The candidate is not valid JSON or not UTF-8.
    CandidateUnparseable = "candidate-unparseable",
    /// A re-seal was asked for a plan whose state is not completed.
    CandidateNotCompleted = "candidate-not-completed",
    /// The candidate is not the one bound to the plan (published, or in the marker).
    CandidateMismatch = "candidate-mismatch",
    /// A helper's marker holds only a hash: the candidate itself must be passed.
    CandidateRequired = "candidate-required",
    /// state.json or a fingerprinted file changed while the candidate was validated.
    PlanChangedDuringValidation = "plan-changed-during-validation",
    /// After the rename the plan no longer verifies; the marker stays.
    PlanChangedAfterPublication = "plan-changed-after-publication",
    /// The plan's files changed since the interrupted publication.
    ArtifactsChanged = "artifacts-changed",
    /// state.json is neither the candidate nor the state before the interruption.
    StateDiverged = "state-diverged",
    /// A rollback was asked after the rename: the state before is gone.
    RollbackImpossible = "rollback-impossible",

    // --- git
    /// The command needs git history and the file is not in a repository.
    NoGit = "no-git",
    /// `rebuild --manifest`: no revision of the repository holds the plan's manifest.json.
    ManifestUnrecoverable = "manifest-unrecoverable",
    /// Git cannot be read (a corrupt or missing object, a repository that cannot be opened):
    /// `finalize` seals only with `--allow-unverified-git --reason TEXT`.
    GitUnreadable = "git-unreadable",
    /// The repository uses an object format this build cannot read (SHA-256): `finalize` seals
    /// only with `--allow-unverified-git --reason TEXT`.
    GitObjectFormatUnsupported = "git-object-format-unsupported",
    /// The repository is bare: there is no work tree (for its `.gitattributes`).
    NoWorkTree = "no-work-tree",

    // --- Claude Code
    /// `hooks install|uninstall --claude`: the settings file is not one JSON object, or an
    /// entry planseal edits (`hooks`, an event's list) has another type.
    ClaudeSettingsUnparseable = "claude-settings-unparseable",
    /// `hooks install --claude`: the settings file's `statusLine` runs another command.
    ClaudeStatuslineTaken = "claude-statusline-taken",
    /// `hook session-start|stop`: what Claude Code sent on stdin is not its hook input (not a
    /// JSON object, too long, a field of the wrong type).
    HookInputMalformed = "hook-input-malformed",
    // --- git hooks (`hooks install|uninstall --git`, `planseal hook`)
    /// Something other than a regular file (a symbolic link, a folder) is where a git hook or
    /// its chained copy goes: planseal neither follows nor replaces it.
    GitHookNotAFile = "git-hook-not-a-file",
    /// Install: the hook is someone else's and `<hook>.pre-planseal` already holds another one.
    GitHookChainedExists = "git-hook-chained-exists",
    /// Uninstall: the hook is no longer planseal's, yet the hook it chained is still there.
    GitHookReplaced = "git-hook-replaced",
    /// commit-msg: the subject names a task that is not in progress.
    TaskNotInProgress = "task-not-in-progress",

    // --- GSD
    /// The STATE.md names no active workstream to work on.
    NoActiveWorkstream = "no-active-workstream",
    /// `gsd recover --piece` names no piece of STATE.md.
    UnknownPiece = "unknown-piece",
    /// `gsd blocker resolve`: no blocker line contains the text (or there is no Blockers section).
    BlockerNotFound = "blocker-not-found",
    /// `gsd session record`: no session field to update and no value given to add one.
    SessionFieldsMissing = "session-fields-missing",

    // --- Reversa
    /// The phase named is not one of the file's phase names.
    UnknownPhase = "unknown-phase",
    /// Phases finish in order; this one is not next (or all are done).
    PhaseOutOfOrder = "phase-out-of-order",
    /// The file fails its checks before the change.
    StateInvalid = "state-invalid",
    /// The change would remove a field, move a phase back or drop a created file.
    NeverRemoveViolation = "never-remove-violation",
    /// The new value makes the file fail its checks.
    InvalidValue = "invalid-value",
    /// FIELD is not one top-level key.
    InvalidField = "invalid-field",

    // --- checkpoint
    /// `checkpoint init` would overwrite an existing checkpoint.
    CheckpointExists = "checkpoint-exists",
    /// The checkpoint file cannot be read.
    CheckpointUnreadable = "checkpoint-unreadable",
    /// `--project` names no project of this repository.
    UnknownProject = "unknown-project",
    /// Several projects match; one must be chosen.
    ProjectAmbiguous = "project-ambiguous",
    /// The order of the session entries cannot be told.
    SessionOrderUnknown = "session-order-unknown",
    /// `checkpoint session add`: no story file has the id given.
    StoryNotFound = "story-not-found",
    /// `checkpoint session add`: the checkpoint has no `## Ultimo Trabalho Realizado` section.
    SectionMissing = "section-missing",
    /// `checkpoint restore`: the revision has no section of that name.
    SectionNotFound = "section-not-found",
    /// `checkpoint restore`: the section is there now, with content; restore brings back lost ones.
    SectionPresent = "section-present",
}

impl fmt::Display for RefusalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for RefusalKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A kind is a kebab-case id: one of the writer kinds ([`RefusalKind::ALL`], listed in
/// `docs/refusals.md`) or the id of the check finding that forbade the change — an open set,
/// so the schema gives the shape and names the writer kinds in its description.
impl schemars::JsonSchema for RefusalKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RefusalKind".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let writer_kinds: Vec<&str> = RefusalKind::ALL.iter().map(RefusalKind::as_str).collect();
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$",
            "description": format!(
                "The stable refusal kind: a writer kind ({}) or the id of the check finding that forbade the change",
                writer_kinds.join(", ")
            ),
        })
    }
}

impl PartialEq<&str> for RefusalKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The refusal a file that could not be read under the reading discipline is (`docs/reading.md`):
/// `not-a-regular-file`, `symlink-escape` or `input-too-large`, exit 1, nothing written. `None`
/// for an operating-system error (permission denied, EIO), which each command reports its way.
pub fn read_refusal(e: &crate::recovery::read::ReadError) -> Option<Refusal> {
    use crate::recovery::read::ReadError;
    let (kind, hint) = match e {
        ReadError::NotRegularFile { .. } => (
            RefusalKind::NotARegularFile,
            "put the regular file it should be in its place (planseal never opens a FIFO, socket, device or folder where a file belongs)",
        ),
        ReadError::Outside { .. } => (
            RefusalKind::SymlinkEscape,
            "replace the symlink by the file itself, inside its folder, then retry",
        ),
        ReadError::TooLarge { .. } => (
            RefusalKind::InputTooLarge,
            "no tool writes a file this large: check what it holds (the caps are in docs/reading.md)",
        ),
        ReadError::Io { .. } => return None,
    };
    Some(Refusal::new(kind, format!("{e}; nothing was written")).hint(hint))
}

/// Whether the holder of a lock is still working (a field of a `lock-present` refusal).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LockOwnerState {
    /// The owner runs: wait for it.
    Alive,
    /// Provably gone (same host, pid not running or reused): `planseal unlock` may remove it.
    Dead,
    /// No record, another host, or unreadable: only `unlock --force --reason` removes it.
    Unknown,
}

/// A refused operation: nothing was written. `kind` is the stable id that leads the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error, schemars::JsonSchema)]
#[error("{kind}: {message}")]
pub struct Refusal {
    /// The stable id that leads the message; scripts branch on it.
    pub kind: RefusalKind,
    /// What was refused and why, in one sentence.
    pub message: String,
    /// The way out (the command to run, the flag to add); `None` when there is nothing to suggest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// For `lock-present`: whether the lock's owner is alive, dead or unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<LockOwnerState>,
    /// Every individual finding behind the refusal, when there were several.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Finding>,
}

impl Refusal {
    /// A refusal with no hint, owner state or details; the builder methods below add them.
    pub fn new(kind: RefusalKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            hint: None,
            owner: None,
            details: Vec::new(),
        }
    }

    /// The refusal a failed check makes: its id is the kind, its hint the way out, and every
    /// failure behind it a detail.
    pub fn from_check(first: &Finding, message: impl Into<String>) -> Self {
        Self::new(RefusalKind::from_id(&first.id), message)
    }

    /// Adds the way out.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// Says whether the owner of the lock in the way is alive, dead or unknown (`lock-present`).
    pub fn owner(mut self, owner: LockOwnerState) -> Self {
        self.owner = Some(owner);
        self
    }
    /// Lists every finding behind the refusal.
    pub fn details(mut self, details: Vec<Finding>) -> Self {
        self.details = details;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_name() {
        for kind in RefusalKind::ALL {
            assert_eq!(&RefusalKind::from_id(kind.as_str()), kind);
            let name = kind.as_str();
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{name}"
            );
        }
        let mut names: Vec<&str> = RefusalKind::ALL.iter().map(RefusalKind::as_str).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before, "a kind name is declared twice");
    }

    /// The user's list of kinds is this list: every kind has its row in `docs/refusals.md`.
    #[test]
    fn docs_list_every_kind() {
        let docs =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/refusals.md"))
                .expect("docs/refusals.md is part of the project");
        for kind in RefusalKind::ALL {
            assert!(
                docs.contains(&format!("| `{kind}` |")),
                "docs/refusals.md has no row for `{kind}`"
            );
        }
    }

    #[test]
    fn a_check_id_stays_itself() {
        let k = RefusalKind::from_id("completion-gates-unsuccessful");
        assert_eq!(
            k,
            RefusalKind::Check("completion-gates-unsuccessful".into())
        );
        assert_eq!(
            serde_json::to_value(&k).unwrap(),
            "completion-gates-unsuccessful"
        );
    }

    #[test]
    fn lock_owner_is_a_field() {
        let r = Refusal::new(RefusalKind::LockPresent, "locked").owner(LockOwnerState::Alive);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["kind"], "lock-present");
        assert_eq!(v["owner"], "alive");
    }
}
