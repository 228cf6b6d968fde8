//! The four `checkpoint` commands as library calls: where the command runs, typed options in, a
//! typed outcome out (its `--json` form is its serialisation, its text form
//! [`StatusOutcome::to_text`] and the like), or why the command stopped ([`CheckpointError`]).
//! Writes go through [`crate::write::Writer`] only.
//!
//! An outcome holds text taken from the checkpoint as it is: whoever shows it hides the
//! workspace's `.env` values first ([`super::locate::env_redactor`]). Generated text carries
//! `.env` keys only, and the journal never holds a value.

mod context;
mod restore;
mod session;

pub use context::{ContextOutcome, NewerFile, ProjectLine, context};
pub use restore::{RestoreOptions, RestoreOutcome, restore};
pub use session::{SessionOptions, SessionOutcome, session_add};

use super::diff::{self, CheckpointDiff};
use super::generate::{self, GitSummary};
use super::git::{self, AtRevision};
use super::layout::{self, LEGACY_DIR, PROJECTS_DIR, Target};
use super::locate::{self, shown};
use super::{GatherError, Gathered, doc, findings_as_read, gather};
use crate::clock::{Clock, format_timestamp, format_timestamp_seconds_z};
use crate::recovery::git::GitError;
use crate::recovery::hash::sha256_hex;
use crate::report::redact::EnvRedactor;
use crate::report::text::{self, Style, printable, unified_diff};
use crate::report::{HintedError, Refusal, RefusalKind, Report, Section, System, json};
use crate::write::{Committed, JournalEntry, WriteError, Writer};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Why a `checkpoint` command stopped. Whatever it is, the checkpoint holds the bytes it had.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The change is not allowed, or the project is not clear (exit 1).
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The command cannot go on, and the hint says what to do (exit 2).
    #[error(transparent)]
    Hinted(#[from] HintedError),
    /// The write was refused by the store or failed on the file system.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// `diff --against REV`: the repository could not be read, or REV names no commit.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The checkpoint, its story files or the `.env` could not be read.
    #[error(transparent)]
    Gather(#[from] GatherError),
}

/// Where the command runs and the project it was pointed at (`--project`), if any.
#[derive(Debug, Clone)]
pub struct Place {
    /// The directory the command runs in (`-C` applied); it chooses the workspace and the project.
    pub cwd: PathBuf,
    /// `--project ID`: the project to work on, in multi-project mode.
    pub project: Option<String>,
}

impl Place {
    /// The checkpoint and its name as shown to the user.
    fn locate(&self) -> Result<(Target, String), CheckpointError> {
        let target = locate::locate(&self.cwd, self.project.as_deref())?;
        let name = shown(&target.checkpoint, &self.cwd);
        Ok((target, name))
    }
}

/// A written file, for the caller to report a journal line that could not be appended.
#[derive(Debug, Clone)]
pub struct Written {
    /// The checkpoint file that was written.
    pub path: PathBuf,
    /// What the store did: the hashes before and after, and why the journal line could not be
    /// appended when it could not.
    pub committed: Committed,
}

/// `checkpoint status`: the findings and the shape of the file.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StatusOutcome {
    /// The checkpoint's findings, as one section (its JSON fields come first).
    #[serde(flatten, serialize_with = "json::serialize")]
    #[schemars(with = "crate::report::json::ReportDocument<'static>")]
    pub report: Report,
    /// The checkpoint, as the user sees it (relative to the current directory when inside it).
    pub file: String,
    /// The project id in multi-project mode.
    pub project: Option<String>,
    /// SHA-256 of the checkpoint's bytes as read.
    pub sha256: String,
    /// Every `## ` heading, as written.
    pub headings: Vec<String>,
    /// How many story files were found.
    pub story_files: usize,
}

impl StatusOutcome {
    /// Whether a finding failed (`--exit-code` then ends the command with 1).
    pub fn failed(&self) -> bool {
        self.report.sections.iter().any(Section::failed)
    }

    /// The text `checkpoint status` prints: the file, its mode and counts, then the report. Text
    /// from the file is quoted as read, so hide `.env` values before showing it.
    pub fn to_text(&self, style: Style) -> String {
        let mode = match &self.project {
            Some(p) => format!("project {p} ({PROJECTS_DIR}/{p}/)"),
            None => format!("legacy ({LEGACY_DIR}/)"),
        };
        let mut out = format!(
            "checkpoint: {}\nmode: {mode}\nsections: {}\nstory files: {}\n\n",
            self.file,
            self.headings.len(),
            self.story_files
        );
        out.push_str(&text::render(&self.report, style));
        out
    }
}

/// Checks the checkpoint (read-only). `prefix`: the story-id prefix to expect, instead of the
/// project's setting.
pub fn status(place: &Place, prefix: Option<&str>) -> Result<StatusOutcome, CheckpointError> {
    let (target, name) = place.locate()?;
    require_existing(&target, &name)?;
    let g = gather(&target, prefix)?;
    let mut section = Section::new(System::Checkpoint, name.clone(), name.clone());
    section.findings = findings_as_read(&target, &g);
    let headings = doc::sections(&String::from_utf8_lossy(&g.bytes))
        .into_iter()
        .map(|s| s.heading)
        .collect();
    Ok(StatusOutcome {
        report: Report {
            sections: vec![section],
        },
        file: name,
        project: target.project,
        sha256: sha256_hex(&g.bytes),
        headings,
        story_files: g.stories.len(),
    })
}

/// What `checkpoint init` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum InitResult {
    /// The skeleton was only shown (`--dry-run`).
    #[serde(rename = "ok")]
    DryRun,
    /// The skeleton was written.
    #[serde(rename = "applied")]
    Written,
}

/// `checkpoint init`: the skeleton, shown (dry run) or written.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct InitOutcome {
    /// Whether the skeleton was written or only shown.
    pub result: InitResult,
    /// The checkpoint, as the user sees it (relative to the current directory when inside it).
    pub file: String,
    /// The skeleton, on a dry run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// SHA-256 of the written skeleton; `None` on a dry run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256_after: Option<String>,
    /// The write, for the caller to report a journal line that could not be appended; `None` on a
    /// dry run.
    #[serde(skip)]
    pub written: Option<Written>,
}

impl InitOutcome {
    /// The text `checkpoint init` prints: the skeleton on a dry run, else the line that says it was
    /// created.
    pub fn to_text(&self) -> String {
        match (&self.text, &self.sha256_after) {
            (Some(skeleton), _) => printable(skeleton).into_owned(),
            (None, after) => format!(
                "{}: created (sha256 {})\n",
                self.file,
                after.as_deref().unwrap_or_default()
            ),
        }
    }
}

/// Creates the standard skeleton when the project has no checkpoint (`dry_run`: shows it).
/// An input it cannot read (a story file, the git repository) stops it before anything is
/// written.
pub fn init(
    place: &Place,
    dry_run: bool,
    clock: &mut Clock,
) -> Result<InitOutcome, CheckpointError> {
    let (target, name) = place.locate()?;
    if target.checkpoint.exists() {
        return Err(Refusal::new(
            RefusalKind::CheckpointExists,
            format!("{name} already exists; init never overwrites it"),
        )
        .hint("planseal checkpoint refresh --write regenerates its generated sections")
        .into());
    }
    let g = gather(&target, None).map_err(unreadable_input)?;
    let git = git_summary(&target.root, &target.checkpoint)?;
    let keys = g.env.as_deref().map(generate::env_keys);
    let now = clock.now();
    let skeleton = generate::skeleton(&generate::Inputs {
        git: Some(&git),
        env_keys: keys.as_deref(),
        stories: &g.stories,
        prune_sessions: false,
        now: &format_timestamp_seconds_z(now)[..10],
    });
    let mut outcome = InitOutcome {
        result: InitResult::DryRun,
        file: name,
        text: None,
        sha256_after: None,
        written: None,
    };
    if dry_run {
        outcome.text = Some(skeleton);
        return Ok(outcome);
    }
    // The folders this init creates: a refused write removes them again, so a refusal leaves
    // the tree as it was.
    let created: Vec<PathBuf> = target
        .checkpoint
        .ancestors()
        .skip(1)
        .take_while(|dir| !dir.as_os_str().is_empty() && !dir.exists())
        .map(Path::to_path_buf)
        .collect();
    if let Some(dir) = target.checkpoint.parent()
        && let Err(e) = std::fs::create_dir_all(dir)
    {
        remove_created(&created);
        return Err(HintedError::input_io(format!("cannot create {}: {e}", dir.display())).into());
    }
    let path = &target.checkpoint;
    let entry = JournalEntry::for_file(
        format_timestamp(now),
        "checkpoint-init",
        &path.display().to_string(),
    );
    let committed = match Writer::from_env().commit(
        &layout::checkpoint_target(path),
        None,
        skeleton.as_bytes(),
        entry,
    ) {
        Ok(c) => c,
        Err(e) => {
            remove_created(&created);
            return Err(e.into());
        }
    };
    outcome.result = InitResult::Written;
    outcome.sha256_after = Some(committed.after_sha256.clone());
    outcome.written = Some(Written {
        path: path.clone(),
        committed,
    });
    Ok(outcome)
}

/// `checkpoint refresh`.
#[derive(Debug, Clone, Default)]
pub struct RefreshOptions {
    /// Write the refreshed file (without it, only the diff is computed).
    pub write: bool,
    /// Also remove the sessions beyond the 3 most recent (their text goes to the journal).
    pub prune_sessions: bool,
    /// Refuse unless the checkpoint's current SHA-256 is this.
    pub expected_sha256: Option<String>,
}

/// What `checkpoint refresh` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum RefreshResult {
    /// Nothing would change: the file is already up to date (nothing written).
    Unchanged,
    /// The refreshed file was written.
    #[serde(rename = "applied")]
    Written,
    /// The file would change, but was not written (no `--write`).
    #[serde(rename = "ok")]
    DryRun,
}

/// What a refresh changed, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RefreshChanges {
    /// The ids of the stories that got a new row in the story table.
    pub rows_added: Vec<String>,
    /// (story, old status cell, new status).
    pub statuses_updated: Vec<(String, String, String)>,
    /// The generated sections whose body changed where they stand.
    pub sections_rewritten: Vec<String>,
    /// The generated sections that were absent and were appended at the end.
    pub sections_added: Vec<String>,
    /// How many sessions were pruned (their text is in the journal).
    pub sessions_removed: usize,
}

/// `checkpoint refresh`: the diff, and whether it was written.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RefreshOutcome {
    /// Whether the refresh changed the file, and whether it wrote it.
    pub result: RefreshResult,
    /// The checkpoint, as the user sees it (relative to the current directory when inside it).
    pub file: String,
    /// What the refresh changed (or would change, without `--write`).
    pub changes: RefreshChanges,
    /// The unified diff of the refresh (empty when nothing changed).
    pub diff: String,
    /// SHA-256 of the checkpoint before the refresh.
    pub sha256_before: String,
    /// SHA-256 after the write; `None` when nothing was written.
    pub sha256_after: Option<String>,
    /// The journal, as shown to the user.
    #[serde(skip)]
    pub journal: String,
    /// The write, for the caller to report a journal line that could not be appended; `None` when
    /// nothing was written.
    #[serde(skip)]
    pub written: Option<Written>,
}

impl RefreshOutcome {
    /// The text `checkpoint refresh` prints: the unified diff and whether it was written, or that
    /// the file is up to date; control characters escaped, `.env` values not yet hidden.
    pub fn to_text(&self) -> String {
        if self.result == RefreshResult::Unchanged {
            return format!("{}: already up to date\n", self.file);
        }
        let mut out = self.diff.clone();
        match &self.sha256_after {
            Some(a) => out.push_str(&format!("{}: written (sha256 {a})\n", self.file)),
            None => out.push_str(&format!("{}: not written (add --write)\n", self.file)),
        }
        if self.changes.sessions_removed > 0 && self.sha256_after.is_some() {
            out.push_str(&format!(
                "{} session(s) removed; their text is in {}\n",
                self.changes.sessions_removed, self.journal
            ));
        }
        printable(&out).into_owned()
    }
}

/// Regenerates the generated sections and the story table; every other byte stays. An input it
/// cannot read (the checkpoint, a story file, the git repository) stops it before anything is
/// written.
pub fn refresh(
    place: &Place,
    opts: &RefreshOptions,
    clock: &mut Clock,
) -> Result<RefreshOutcome, CheckpointError> {
    let (target, name) = place.locate()?;
    require_existing(&target, &name)?;
    let g = gather(&target, None).map_err(unreadable_input)?;
    let old = checked_text(&g.bytes, opts.expected_sha256.as_deref(), &name)?;
    let git = git_summary(&target.root, &target.checkpoint)?;
    let keys = g.env.as_deref().map(generate::env_keys);
    let now = clock.now();
    let (new, changes) = generate::refresh(
        old,
        &generate::Inputs {
            git: Some(&git),
            env_keys: keys.as_deref(),
            stories: &g.stories,
            prune_sessions: opts.prune_sessions,
            now: &format_timestamp_seconds_z(now),
        },
    )
    .map_err(|e| {
        Refusal::new(RefusalKind::SessionOrderUnknown, format!("{name}: {e}"))
            .hint("give every `### Sessão` heading a date, then prune again")
    })?;
    let changed = new != old;
    let cp_target = layout::checkpoint_target(&target.checkpoint);
    let written = if changed && opts.write {
        let committed = Writer::from_env().commit(
            &cp_target,
            Some(&g.bytes),
            new.as_bytes(),
            refresh_entry(&target, &g, &changes, format_timestamp(now)),
        )?;
        Some(Written {
            path: target.checkpoint.clone(),
            committed,
        })
    } else {
        None
    };
    Ok(RefreshOutcome {
        result: match (changed, &written) {
            (false, _) => RefreshResult::Unchanged,
            (true, Some(_)) => RefreshResult::Written,
            (true, None) => RefreshResult::DryRun,
        },
        diff: unified_diff(old, &new, &name),
        file: name,
        changes: RefreshChanges {
            sessions_removed: changes.sessions_removed.len(),
            rows_added: changes.rows_added,
            statuses_updated: changes.statuses_updated,
            sections_rewritten: changes.sections_rewritten,
            sections_added: changes.sections_added,
        },
        sha256_before: sha256_hex(&g.bytes),
        sha256_after: written.as_ref().map(|w| w.committed.after_sha256.clone()),
        journal: shown(cp_target.journal().path(), &place.cwd),
        written,
    })
}

/// The journal line of a refresh: what changed, and the text of every pruned session with the
/// workspace's `.env` values hidden (a journal is read later, by anyone).
fn refresh_entry(
    target: &Target,
    g: &Gathered,
    changes: &generate::Changes,
    time: String,
) -> JournalEntry {
    let redactor = EnvRedactor::from_env_bytes(g.env.as_deref());
    let removed: Vec<String> = changes
        .sessions_removed
        .iter()
        .map(|s| redactor.clean(s))
        .collect();
    let statuses = changes
        .statuses_updated
        .iter()
        .map(|(id, from, to)| serde_json::json!([id, from, to]))
        .collect::<Vec<_>>();
    JournalEntry::for_file(
        time,
        "checkpoint-refresh",
        &target.checkpoint.display().to_string(),
    )
    .with("rows_added", changes.rows_added.clone())
    .with("statuses_updated", statuses)
    .with("sections_rewritten", changes.sections_rewritten.clone())
    .with("sections_added", changes.sections_added.clone())
    .with("sessions_removed", removed)
}

/// `checkpoint diff --against REV`: what the checkpoint lost or gained since a revision.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DiffOutcome {
    /// The checkpoint, as the user sees it (relative to the current directory when inside it).
    pub file: String,
    /// The revision compared with, as the user gave it.
    pub against: String,
    /// Whether anything of the revision's version is missing now (sections, story rows or columns,
    /// sessions).
    pub lost_anything: bool,
    /// The checkpoint did not exist at the revision: everything it has now counts as gained.
    pub absent_at_revision: bool,
    /// The checkpoint does not exist now: everything it had counts as lost.
    pub absent_now: bool,
    /// What was lost and gained, per kind of item.
    #[serde(flatten)]
    pub diff: CheckpointDiff,
}

impl DiffOutcome {
    /// Anything lost or gained.
    pub fn differs(&self) -> bool {
        !self.diff.is_empty()
    }

    /// The text `checkpoint diff` prints: one `- lost` or `+ gained` line per item, with control
    /// characters escaped.
    pub fn to_text(&self) -> String {
        let mut out = format!("{} since {}:\n", self.file, self.against);
        if self.absent_at_revision {
            out.push_str(&format!("  (the file did not exist at {})\n", self.against));
        }
        if self.absent_now {
            out.push_str("  (the file does not exist now)\n");
        }
        if self.diff.is_empty() {
            out.push_str("  no section, story row, column or session lost or gained\n");
        }
        let d = &self.diff;
        for (label, x) in [
            ("section", &d.sections),
            ("story row", &d.story_rows),
            ("story column", &d.story_columns),
            ("session", &d.sessions),
        ] {
            for l in &x.lost {
                out.push_str(&format!("  - lost {label}: {l}\n"));
            }
            for l in &x.gained {
                out.push_str(&format!("  + gained {label}: {l}\n"));
            }
        }
        printable(&out).into_owned()
    }
}

/// Compares the checkpoint with its version at `against` (read-only).
pub fn diff(place: &Place, against: &str) -> Result<DiffOutcome, CheckpointError> {
    let (target, name) = place.locate()?;
    let g = gather(&target, None)?;
    let now = String::from_utf8_lossy(&g.bytes).into_owned();
    let old_bytes = match git::file_at(&target.root, against, &target.checkpoint)? {
        AtRevision::NoRepository => {
            return Err(HintedError::usage(format!(
                "{} is not inside a git repository",
                target.root.display()
            ))
            .hint("`checkpoint diff` compares with a git revision")
            .into());
        }
        AtRevision::Absent => None,
        AtRevision::Present(bytes) => Some(bytes),
    };
    let absent_at_revision = old_bytes.is_none();
    let old = String::from_utf8_lossy(&old_bytes.unwrap_or_default()).into_owned();
    let d = diff::compare(&old, &now);
    Ok(DiffOutcome {
        file: name,
        against: against.to_string(),
        lost_anything: d.lost_anything(),
        absent_at_revision,
        absent_now: !target.checkpoint.exists(),
        diff: d,
    })
}

/// The checkpoint's text, when its bytes are still the ones the caller read (`expected`, a
/// SHA-256: else `stale-snapshot`) and UTF-8 (else `checkpoint-unreadable`).
fn checked_text<'b>(
    bytes: &'b [u8],
    expected: Option<&str>,
    name: &str,
) -> Result<&'b str, Refusal> {
    if let Some(exp) = expected {
        let actual = sha256_hex(bytes);
        if !actual.eq_ignore_ascii_case(exp.trim()) {
            return Err(Refusal::new(
                RefusalKind::StaleSnapshot,
                format!("{name}: its SHA-256 is {actual}, not the expected {exp}; nothing was written"),
            )
            .hint("the checkpoint changed since you read it (another terminal?): read it again, then retry"));
        }
    }
    std::str::from_utf8(bytes).map_err(|e| {
        Refusal::new(
            RefusalKind::CheckpointUnreadable,
            format!("{name}: not UTF-8 text (byte {})", e.valid_up_to()),
        )
        .hint("save the file as UTF-8")
    })
}

/// The end of a writer's text: the diff and "nothing written" on a dry run, else the new hash.
fn write_tail(out: &mut String, written: bool, diff: &str, sha256_after: &str) {
    if written {
        out.push_str(&format!("written (sha256 {sha256_after})\n"));
    } else {
        out.push_str(diff);
        out.push_str("nothing written (--dry-run)\n");
    }
}

fn require_existing(target: &Target, name: &str) -> Result<(), HintedError> {
    if target.checkpoint.exists() {
        return Ok(());
    }
    let flag = target
        .project
        .as_deref()
        .map(|p| format!(" --project {p}"))
        .unwrap_or_default();
    Err(
        HintedError::usage(format!("{name} does not exist")).hint(format!(
            "planseal checkpoint init{flag} creates the standard skeleton"
        )),
    )
}

/// The `## Git Recente` facts. A repository that is there but cannot be read stops the command
/// (exit 3, nothing applied): the section is never written from a guess, and an unreadable
/// repository is never "no repository".
fn git_summary(root: &Path, checkpoint: &Path) -> Result<GitSummary, HintedError> {
    git::summary(root).map_err(|e| {
        HintedError::git_input(&format!("{}: `## Git Recente`", checkpoint.display()), &e)
    })
}

/// A writer stops on an input it cannot read (an OS error such as EIO) with exit 3: nothing was
/// applied. A refusal (a FIFO, a file over its cap) stays a refusal.
fn unreadable_input(e: GatherError) -> CheckpointError {
    match e {
        GatherError::Io { path, source } => {
            HintedError::input_io(format!("cannot read {}: {source}", path.display())).into()
        }
        other => other.into(),
    }
}

/// Removes the folders an init created (innermost first), so a failed init leaves the tree as
/// it was.
fn remove_created(created: &[PathBuf]) {
    for dir in created {
        let _ = std::fs::remove_dir(dir);
    }
}
