//! The four `reversa` commands as library calls: where the file is, typed options in, a typed
//! outcome out (its `--json` form is its serialisation, its text form [`StatusOutcome::to_text`]
//! and the like), or why the command stopped ([`ReversaError`]). Writes go through
//! [`crate::write::Writer`] only.
//!
//! An outcome holds text taken from the state file as it is: whoever shows it hides the
//! project's `.env` values first ([`super::locate::env_redactor`]).

use super::edit::{self, Edit, EditError};
use super::history::{self, Flagged, ViolationKind};
use super::locate::{self, shown};
use super::model::StateFile;
use super::{Summary, findings_for_bytes, git, layout};
use crate::clock::Clock;
use crate::recovery::git::GitError;
use crate::recovery::hash::sha256_hex;
use crate::report::text::{self, Style, printable};
use crate::report::{
    Finding, HintedError, Refusal, RefusalKind, Report, Section, Severity, System, json,
};
use crate::write::{Committed, JournalEntry, WriteError, Writer};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Why a `reversa` command stopped. Whatever it is, the state file holds the bytes it had.
#[derive(Debug, thiserror::Error)]
pub enum ReversaError {
    /// The change is not allowed (exit 1).
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The command cannot go on, and the hint says what to do (exit 2).
    #[error(transparent)]
    Hinted(#[from] HintedError),
    /// The write was refused by the store or failed on the file system.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// `reversa history`: the repository around the file could not be read.
    #[error(transparent)]
    Git(#[from] GitError),
    /// The state file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The state file, as located.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

/// Where the command runs and the state file it was pointed at (`--file`), if any.
#[derive(Debug, Clone)]
pub struct Place {
    /// The directory the command runs in (`-C` applied); the search for `.reversa/state.json`
    /// starts here.
    pub cwd: PathBuf,
    /// `--file PATH`: this state file (relative to `cwd`) instead of the search.
    pub file: Option<PathBuf>,
}

impl Place {
    /// The state file and its name as shown to the user.
    fn locate(&self) -> Result<(PathBuf, String), ReversaError> {
        let path = locate::state_file(&self.cwd, self.file.as_deref())?;
        let name = shown(&path, &self.cwd);
        Ok((path, name))
    }
}

/// What guards a write.
#[derive(Debug, Clone, Default)]
pub struct WriteGuard {
    /// Refuse unless the file's current SHA-256 is this (the bytes the caller last read).
    pub expected_sha256: Option<String>,
    /// Compute the change, write nothing.
    pub dry_run: bool,
}

/// `reversa status`: the findings and where the analysis stands.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StatusOutcome {
    /// The state file's findings, as one section (its JSON fields come first).
    #[serde(flatten, serialize_with = "json::serialize")]
    #[schemars(with = "crate::report::json::ReportDocument<'static>")]
    pub report: Report,
    /// The state file, as the user sees it (relative to the current directory when inside it).
    pub file: String,
    /// SHA-256 of the file's bytes as read (what `--expected-sha256` compares with).
    pub sha256: String,
    /// `None` when the file does not parse.
    pub summary: Option<Summary>,
}

impl StatusOutcome {
    /// Whether a finding failed (`--exit-code` then ends the command with 1).
    pub fn failed(&self) -> bool {
        self.report.sections.iter().any(Section::failed)
    }

    /// The text `reversa status` prints: where the analysis stands, then the report. Text from the
    /// file is quoted with control characters escaped, `.env` values not yet hidden.
    pub fn to_text(&self, style: Style) -> String {
        let mut out = String::new();
        if let Some(s) = &self.summary {
            out.push_str(&printable(&s.to_text()));
            out.push('\n');
        }
        out.push_str(&text::render(&self.report, style));
        out
    }
}

/// Reads and checks the state file (read-only).
pub fn status(place: &Place) -> Result<StatusOutcome, ReversaError> {
    let (path, name) = place.locate()?;
    let bytes = read(&path)?;
    let mut section = Section::new(System::Reversa, name.clone(), name.clone());
    section.findings = findings_for_bytes(&bytes, &locate::project_root(&path));
    Ok(StatusOutcome {
        report: Report {
            sections: vec![section],
        },
        file: name,
        sha256: sha256_hex(&bytes),
        summary: StateFile::parse(&bytes).ok().map(|s| Summary::of(&s)),
    })
}

/// `reversa advance --phase-done PHASE [--agent NAME [--files PATH…]]`.
#[derive(Debug, Clone)]
pub struct AdvanceOptions {
    /// The phase to mark done, in the file's vocabulary.
    pub phase_done: String,
    /// The agent that finished it: its `checkpoints.<agent>` record is written.
    pub agent: Option<String>,
    /// The files the agent wrote (relative to the project root; each must exist).
    pub files: Vec<String>,
    /// The expected SHA-256 and the dry run.
    pub guard: WriteGuard,
}

/// `reversa set FIELD VALUE`.
#[derive(Debug, Clone)]
pub struct SetOptions {
    /// The top-level field to set (no `.`: nested fields are set through their parent).
    pub field: String,
    /// The new value as JSON text, as the user typed it.
    pub value: String,
    /// Let through a change the history check would flag (journaled with `reason`).
    pub force: bool,
    /// Why the forced change is right; journaled with the violations it let through.
    pub reason: Option<String>,
    /// The expected SHA-256 and the dry run.
    pub guard: WriteGuard,
}

/// Whether `advance` or `set` wrote the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WriteResult {
    /// The change was computed and shown, not written (`--dry-run`).
    #[serde(rename = "ok")]
    DryRun,
    /// The change was written.
    #[serde(rename = "applied")]
    Written,
}

/// What `advance` or `set` changed (or would change, on a dry run).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct WriteOutcome {
    /// Whether the change was written.
    pub result: WriteResult,
    /// The state file, as the user sees it (relative to the current directory when inside it).
    pub file: String,
    /// `advance` or `set`.
    pub operation: &'static str,
    /// One line per changed field: `field: old → new`.
    pub changes: Vec<String>,
    /// SHA-256 of the file before the change.
    pub sha256_before: String,
    /// SHA-256 after the write; `None` on a dry run.
    pub sha256_after: Option<String>,
    /// The unified diff of the change.
    pub diff: String,
    /// What the protocol asks for and the command was not given (the change is made all the same).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub advisories: Vec<String>,
    /// The file written.
    #[serde(skip)]
    pub path: PathBuf,
    /// The commit, when there was one (its journal line may have failed: the caller says so).
    #[serde(skip)]
    pub committed: Option<Committed>,
}

impl WriteOutcome {
    /// The text `advance` and `set` print: one line per changed field, then whether the file was
    /// written.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for c in &self.changes {
            out.push_str(&format!("  {}\n", printable(c)));
        }
        for a in &self.advisories {
            out.push_str(&format!("advisory: {}\n", printable(a)));
        }
        match &self.sha256_after {
            None => {
                out.push_str(&printable(&self.diff));
                out.push_str(&format!("{}: not written (--dry-run)\n", self.file));
            }
            Some(a) => out.push_str(&format!("{}: written (sha256 {a})\n", self.file)),
        }
        out
    }
}

/// Marks the current phase done; every other byte of the file stays.
pub fn advance(
    place: &Place,
    opts: &AdvanceOptions,
    clock: &mut Clock,
) -> Result<WriteOutcome, ReversaError> {
    let (path, name) = place.locate()?;
    let bytes = read(&path).map_err(unreadable_input)?;
    check_expected(&bytes, opts.guard.expected_sha256.as_deref(), &name)?;
    let state = StateFile::parse(&bytes).map_err(|e| refusal(e.into(), &name))?;
    // The clock is read only when something is stamped (a dry run without an agent reads none).
    let mut now = None;
    let mut stamp = || *now.get_or_insert_with(|| clock.now());
    let checkpoint = match &opts.agent {
        Some(agent) => {
            check_agent(agent, &opts.files, &locate::project_root(&path), &name)?;
            Some(edit::AgentCheckpoint {
                agent: agent.clone(),
                completed_at: crate::clock::format_timestamp_seconds_z(stamp()),
                files: opts.files.clone(),
            })
        }
        None => None,
    };
    let e = edit::advance(&state, &opts.phase_done, checkpoint.as_ref())
        .map_err(|e| refusal(e, &name))?;
    let entry = (!opts.guard.dry_run).then(|| {
        JournalEntry::for_file(
            crate::clock::format_timestamp(stamp()),
            "reversa-advance",
            &path.display().to_string(),
        )
        .with("phase_done", opts.phase_done.clone())
        .with("agent", opts.agent.clone())
        .with("changes", e.changes.clone())
    });
    let mut outcome = finish(path, name, "advance", &bytes, e, entry)?;
    if opts.agent.is_none() {
        outcome.advisories.push(
            "no agent checkpoint recorded: pass --agent NAME --files PATH… to record the finishing agent's `checkpoints` entry".into(),
        );
    }
    Ok(outcome)
}

/// The agent's key is one plain word; every file it names exists inside the project.
fn check_agent(agent: &str, files: &[String], root: &Path, name: &str) -> Result<(), Refusal> {
    if agent.is_empty() || agent.contains(['.', '/']) || agent.chars().any(char::is_control) {
        return Err(Refusal::new(
            RefusalKind::InvalidField,
            format!("{name}: `{agent}` is not an agent name for `checkpoints`"),
        )
        .hint("the agent's key as Reversa writes it: scout, archaeologist, detective, …"));
    }
    let bad: Vec<Finding> = files
        .iter()
        .filter_map(|f| {
            planseal_recovery::paths::resolve_inside(root, f, true)
                .err()
                .map(|e| {
                    Finding::fail("reversa-checkpoint-file-missing", format!("`{f}`: {e}"))
                        .file(f.clone())
                })
        })
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    Err(Refusal::new(
        RefusalKind::InvalidValue,
        format!("{name}: the checkpoint would name {} file(s) that are not in the project; nothing was written", bad.len()),
    )
    .details(bad)
    .hint("--files takes paths relative to the project root, of files the agent wrote"))
}

/// Sets one top-level field; every other byte of the file stays.
pub fn set(
    place: &Place,
    opts: &SetOptions,
    clock: &mut Clock,
) -> Result<WriteOutcome, ReversaError> {
    let (path, name) = place.locate()?;
    let value: serde_json::Value = serde_json::from_str(&opts.value).map_err(|e| {
        Refusal::new(
            RefusalKind::InvalidValue,
            format!("{name}: VALUE for `{}` is not JSON ({e})", opts.field),
        )
        .hint(format!(
            "quote a string: planseal reversa set {} '\"{}\"'",
            opts.field, opts.value
        ))
    })?;
    let bytes = read(&path).map_err(unreadable_input)?;
    check_expected(&bytes, opts.guard.expected_sha256.as_deref(), &name)?;
    let state = StateFile::parse(&bytes).map_err(|e| refusal(e.into(), &name))?;
    let e = edit::set(&state, &opts.field, value, opts.force).map_err(|e| refusal(e, &name))?;
    let entry = (!opts.guard.dry_run).then(|| {
        let mut entry =
            JournalEntry::for_file(clock.now_iso(), "reversa-set", &path.display().to_string())
                .reason(opts.reason.clone())
                .with("field", opts.field.clone())
                .with("changes", e.changes.clone());
        entry.forced = e
            .forced
            .iter()
            .map(|v| serde_json::json!({"id": v.kind.id(), "field": v.field, "old_value": v.old_value}))
            .collect();
        entry
    });
    finish(path, name, "set", &bytes, e, entry)
}

/// Writes the edit when there is a journal entry for it (not a dry run).
fn finish(
    path: PathBuf,
    file: String,
    operation: &'static str,
    before: &[u8],
    edit: Edit,
    entry: Option<JournalEntry>,
) -> Result<WriteOutcome, ReversaError> {
    let committed = match entry {
        Some(entry) => Some(Writer::from_env().commit(
            &layout::state_target(&path),
            Some(before),
            &edit.new_bytes,
            entry,
        )?),
        None => None,
    };
    let diff = crate::report::text::unified_diff(
        &String::from_utf8_lossy(before),
        &String::from_utf8_lossy(&edit.new_bytes),
        &file,
    );
    Ok(WriteOutcome {
        result: match committed {
            Some(_) => WriteResult::Written,
            None => WriteResult::DryRun,
        },
        file,
        operation,
        changes: edit.changes,
        sha256_before: sha256_hex(before),
        sha256_after: committed.as_ref().map(|c| c.after_sha256.clone()),
        diff,
        advisories: Vec::new(),
        path,
        committed,
    })
}

/// `reversa history`: every commit that broke the never-remove rule.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HistoryOutcome {
    /// The violations as findings, one section (its JSON fields come first).
    #[serde(flatten, serialize_with = "json::serialize")]
    #[schemars(with = "crate::report::json::ReportDocument<'static>")]
    pub report: Report,
    /// The state file, as the user sees it (relative to the current directory when inside it).
    pub file: String,
    /// How many committed versions were compared.
    pub versions: usize,
    /// Every violation, with the commit that introduced it, oldest first.
    pub flagged: Vec<Flagged>,
}

impl HistoryOutcome {
    /// Whether a violation failed (`--exit-code` then ends the command with 1).
    pub fn failed(&self) -> bool {
        self.report.sections.iter().any(Section::failed)
    }

    /// The text `reversa history` prints: the report of the violations.
    pub fn to_text(&self, style: Style) -> String {
        text::render(&self.report, style)
    }
}

/// Walks the git history of the state file (read-only).
pub fn history(place: &Place) -> Result<HistoryOutcome, ReversaError> {
    let (path, name) = place.locate()?;
    let versions = git::versions(&path)?.ok_or_else(|| {
        HintedError::usage(format!("{} is not inside a git repository", path.display()))
            .hint("`reversa history` reads the file's git history; commit it first")
    })?;
    let walk = history::walk(&versions);
    let mut section = Section::new(System::Reversa, name.clone(), name.clone());
    for f in &walk.flagged {
        let v = &f.violation;
        let msg = format!("commit {} \"{}\": {}", f.commit, f.subject, v.describe());
        let finding = Finding::new(v.kind.id(), v.severity, msg).file(name.clone());
        section.push(match v.kind {
            ViolationKind::CreatedFileDropped if v.severity == Severity::Advisory => {
                finding.hint("the same commit changed `version`: likely the installer's own update")
            }
            _ => finding.hint(format!(
                "restore it from the commit before {} (git show {}^:{name})",
                f.commit, f.commit
            )),
        });
    }
    for c in &walk.unreadable {
        section.push(Finding::advisory(
            "reversa-history-unreadable",
            format!("commit {c}: the file is not a JSON object there; compared around it"),
        ));
    }
    if walk.versions == 0 {
        section.push(
            Finding::advisory(
                "reversa-history-empty",
                format!("{name} has no committed version: there is no history to check"),
            )
            .hint("commit the file; every later commit is then checked"),
        );
    } else if walk
        .flagged
        .iter()
        .all(|f| f.violation.severity != Severity::Fail)
    {
        section.push(Finding::pass(
            "reversa-history",
            format!(
                "no commit of {} version(s) removed a field or moved a phase backwards",
                walk.versions
            ),
        ));
    }
    Ok(HistoryOutcome {
        report: Report {
            sections: vec![section],
        },
        file: name,
        versions: walk.versions,
        flagged: walk.flagged,
    })
}

fn read(path: &Path) -> Result<Vec<u8>, ReversaError> {
    planseal_recovery::read::read_existing(path, planseal_recovery::read::Kind::Document).map_err(
        |e| match crate::report::read_refusal(&e) {
            Some(refusal) => ReversaError::Refused(refusal),
            None => ReversaError::Read {
                path: path.to_path_buf(),
                source: match e {
                    planseal_recovery::read::ReadError::Io { source, .. } => source,
                    other => std::io::Error::other(other.reason()),
                },
            },
        },
    )
}

/// A writer stops on a state file it cannot read (an OS error such as EIO) with exit 3: nothing
/// was applied. A refusal (a FIFO, a file over its cap) stays a refusal.
fn unreadable_input(e: ReversaError) -> ReversaError {
    match e {
        ReversaError::Read { path, source } => {
            HintedError::input_io(format!("cannot read {}: {source}", path.display())).into()
        }
        other => other,
    }
}

fn check_expected(bytes: &[u8], expected: Option<&str>, file: &str) -> Result<(), Refusal> {
    let Some(exp) = expected else { return Ok(()) };
    let actual = sha256_hex(bytes);
    if actual.eq_ignore_ascii_case(exp.trim()) {
        return Ok(());
    }
    Err(Refusal::new(
        RefusalKind::StaleSnapshot,
        format!("{file}: its SHA-256 is {actual}, not the expected {exp}"),
    )
    .hint("the file changed since you read it: read it again, then retry with the new hash"))
}

/// The refusal an edit error is, with the way out.
fn refusal(e: EditError, file: &str) -> Refusal {
    let hint = match &e {
        EditError::WouldViolate(_) => {
            "state.json only ever gains fields and moves forward; if this change is truly right, add --force --reason TEXT"
        }
        EditError::InvalidValue(_) => {
            "check the value against docs/reversa.md, or --force --reason TEXT"
        }
        EditError::OutOfOrder { .. } | EditError::AlreadyFinished => {
            "see `planseal reversa status` for the phase to finish next"
        }
        EditError::UnknownPhase { .. } => "use the phase names this file already uses",
        EditError::StateInvalid(_) => "repair the file first (planseal reversa status)",
        EditError::Read(_) | EditError::Splice(_) => "fix the JSON first",
        EditError::BadFieldName(_) => "FIELD is one top-level key, e.g. doc_level",
    };
    let details: Vec<Finding> = match &e {
        EditError::WouldViolate(v) => v
            .iter()
            .map(|x| Finding::fail(x.kind.id(), x.describe()).file(file))
            .collect(),
        EditError::InvalidValue(f) => f.clone(),
        _ => Vec::new(),
    };
    Refusal::new(e.kind(), format!("{file}: {e}"))
        .details(details)
        .hint(hint)
}
