//! `gsd recover`: what earlier committed versions of STATE.md had and the file lost, and with a
//! restoration the picked pieces put back under GSD's lock.

use super::{StateFile, git_input, read_state_for, write_locked};
use crate::clock::{Clock, format_timestamp};
use crate::gsd::document::Document;
use crate::gsd::error::GsdError;
use crate::gsd::recover::{self as pieces, LostPiece, Version};
use crate::gsd::{derive, layout, sync};
use crate::recovery::git::{CommitInfo, HistoryOptions, Repo};
use crate::report::text::printable;
use crate::report::{ExitCode, HintedError, Refusal, RefusalKind};
use crate::write::{Committed, JournalEntry};
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;
use std::time::Duration;

/// `gsd recover`: which STATE.md, which versions to compare it with, and what to put back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoverOptions {
    /// The STATE.md to compare and restore.
    pub state: StateFile,
    /// Compare with this revision only (default: every committed version, newest first).
    pub from: Option<String>,
    /// Put pieces back (otherwise only list them).
    pub restore: Option<Restore>,
    /// Exit 1 when an earlier version had a piece the file (still) lacks.
    pub exit_code: bool,
}

/// A restoration: the pieces to put back into the current file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restore {
    /// Which lost pieces to put back.
    pub picks: Picks,
    /// How long to wait for a live writer's lock before refusing.
    pub lock_wait: Duration,
}

/// Which lost pieces to restore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picks {
    /// Every piece the listing finds.
    All,
    /// By the ids the listing shows.
    Ids(Vec<String>),
}

/// What `gsd recover` found and restored; its JSON form is the `--json` document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RecoverOutcome {
    /// The STATE.md, as the user sees it.
    pub file: String,
    /// How many committed versions were compared (1 with `from`).
    pub versions_read: usize,
    /// What earlier versions had and the current file lacks, newest version first.
    pub lost: Vec<LostPiece>,
    /// The ids asked for (empty without a restoration).
    pub restored: Vec<String>,
    /// Whether the restoration changed the file (it does not when the picks were already there).
    pub written: bool,
    /// Whether a restoration was asked for (the text says what became of it).
    #[serde(skip)]
    pub restore_requested: bool,
    /// The write, for the caller to report a journal line that could not be appended; `None` when
    /// nothing was written.
    #[serde(skip)]
    pub committed: Option<Committed>,
    /// The exit code the command ends with: 1 under `exit_code` when a piece is still missing, else
    /// 0.
    #[serde(skip)]
    pub exit_code: ExitCode,
}

/// `clock` stamps the journal line of a restoration; it is not read otherwise.
pub fn recover(opts: &RecoverOptions, clock: &mut Clock) -> Result<RecoverOutcome, GsdError> {
    let path = &opts.state.path;
    let writing = opts.restore.is_some();
    let (bytes, text) = read_state_for(path, writing)?;
    let versions =
        committed_versions(path, opts.from.as_deref()).map_err(git_input(path, writing))?;
    let current = Document::parse(text);
    let lost = pieces::find_lost(&current, &versions);
    let mut committed = None;
    let mut restored: Vec<String> = Vec::new();
    if let Some(restore) = &opts.restore {
        let picks: Vec<String> = match &restore.picks {
            Picks::All => lost.iter().map(|l| l.id.clone()).collect(),
            Picks::Ids(ids) => ids.clone(),
        };
        let new_text = pieces::restore(&current.text, &lost, &picks).map_err(|e| {
            Refusal::new(
                RefusalKind::UnknownPiece,
                format!("{}: {e}; nothing was written", path.display()),
            )
            .hint("run `planseal gsd recover` without --write to list the ids")
        })?;
        if new_text != current.text {
            let derivation = derive::derive(&Document::parse(new_text.clone()), None);
            let entry = JournalEntry::for_file(
                format_timestamp(clock.now()),
                "gsd recover",
                &path.display().to_string(),
            )
            .with("restored", serde_json::to_value(&picks).unwrap_or_default())
            .with(
                "sources",
                serde_json::to_value(sync::source_lines(&derivation)).unwrap_or_default(),
            );
            committed = Some(write_locked(
                path,
                &bytes,
                &new_text,
                entry,
                restore.lock_wait,
            )?);
        }
        restored = picks;
    }
    let written = committed.is_some();
    // --exit-code: something an earlier version had is (still) missing.
    let still_lost = lost.iter().any(|l| !written || !restored.contains(&l.id));
    Ok(RecoverOutcome {
        file: opts.state.shown.clone(),
        versions_read: versions.len(),
        lost,
        restored,
        written,
        restore_requested: opts.restore.is_some(),
        committed,
        exit_code: ExitCode::failed_if(opts.exit_code && still_lost),
    })
}

/// The file's committed versions (newest first), or its version at `from`.
fn committed_versions(path: &Path, from: Option<&str>) -> Result<Vec<Version>, GsdError> {
    let Some(repo) = Repo::discover(&layout::state_dir(path))? else {
        return Err(Refusal::new(
            RefusalKind::NoGit,
            format!(
                "{} is not inside a git repository: there is no history to recover from",
                path.display()
            ),
        )
        .hint("recover needs the file's committed versions")
        .into());
    };
    let rel = repo.relative_to_work_tree(path)?;
    Ok(match from {
        Some(rev) => vec![version_at(&repo, rev, &rel)?],
        None => repo
            .file_versions(
                &rel,
                &HistoryOptions {
                    with_content: true,
                    ..HistoryOptions::default()
                },
            )?
            .versions
            .iter()
            .filter_map(|v| v.content.as_ref().map(|c| to_version(&v.commit, c)))
            .collect(),
    })
}

fn to_version(commit: &CommitInfo, content: &[u8]) -> Version {
    Version {
        commit: commit.short.clone(),
        subject: commit.subject.clone(),
        date: commit.committer_time.to_utc_iso(),
        text: String::from_utf8_lossy(content).into_owned(),
    }
}

/// The file as `rev` has it.
fn version_at(repo: &Repo, rev: &str, rel: &str) -> Result<Version, GsdError> {
    let Some(id) = repo.resolve(rev)? else {
        return Err(
            HintedError::usage(format!("`{rev}` is not a revision of this repository"))
                .hint("pass a commit id, branch or tag")
                .into(),
        );
    };
    let Some(commit) = repo.find_commit(&id)? else {
        return Err(HintedError::usage(format!("`{rev}` does not name a commit")).into());
    };
    let Some(content) = repo.file_at(&id, rel)? else {
        return Err(HintedError::usage(format!("{rel} does not exist at {rev}"))
            .hint("pick a revision where the file exists")
            .into());
    };
    Ok(to_version(&commit, &content))
}

impl RecoverOutcome {
    /// The lost pieces (labels cut at 60 characters) and what a restoration did; file text in
    /// it is quoted with [`printable`].
    pub fn to_text(&self) -> String {
        let file = &self.file;
        let mut out = String::new();
        if self.lost.is_empty() {
            let _ = writeln!(
                out,
                "{file}: nothing lost ({} committed version(s) compared)",
                self.versions_read
            );
        } else {
            let _ = writeln!(
                out,
                "{file}: {} piece(s) found in earlier versions but missing now:",
                self.lost.len()
            );
            for l in &self.lost {
                let label = if l.label.chars().count() > 60 {
                    format!("{}…", l.label.chars().take(60).collect::<String>())
                } else {
                    l.label.clone()
                };
                let _ = writeln!(
                    out,
                    "  {}  {}  (last seen in {} {}, \"{}\")",
                    l.id, label, l.commit, l.date, l.subject
                );
            }
        }
        if self.restore_requested {
            if self.written {
                let _ = writeln!(out, "restored into {file}: {}", self.restored.join(", "));
            } else {
                out.push_str("nothing to restore: the picked pieces are already present\n");
            }
        } else if !self.lost.is_empty() {
            out.push_str("restore with: planseal gsd recover --write --pick ID… (or --all)\n");
        }
        printable(&out).into_owned()
    }
}
