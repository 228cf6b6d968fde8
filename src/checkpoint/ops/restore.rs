//! `checkpoint restore --from REV [--section NAME…]`: the sections an earlier committed version
//! had and the file lost, listed, and put back on request (docs/checkpoint.md, "restore"). Git
//! is read through gix, as `gsd recover` reads STATE.md's history.

use super::{CheckpointError, Place, Written, checked_text, require_existing, write_tail};
use crate::checkpoint::git::{self, AtRevision};
use crate::checkpoint::layout;
use crate::checkpoint::restore::{self as splice, LostSection, RestoreError};
use crate::clock::Clock;
use crate::recovery::hash::sha256_hex;
use crate::report::text::{printable, unified_diff};
use crate::report::{HintedError, Refusal, RefusalKind};
use crate::write::{JournalEntry, Writer};
use serde::Serialize;

/// `checkpoint restore`.
#[derive(Debug, Clone, Default)]
pub struct RestoreOptions {
    /// The revision to take the sections from (a commit, branch, tag, `HEAD~N`).
    pub from: String,
    /// The sections to put back (none: only list what was lost).
    pub sections: Vec<String>,
    /// Show the change; write nothing.
    pub dry_run: bool,
    /// Refuse unless the checkpoint's current SHA-256 is this.
    pub expected_sha256: Option<String>,
}

/// What `checkpoint restore` found and did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RestoreOutcome {
    /// `listed` (no `--section`), `dry-run` or `applied`.
    pub result: &'static str,
    /// The checkpoint, as the user sees it.
    pub file: String,
    /// The revision, as given.
    pub from: String,
    /// The sections the revision had with content and the file lost.
    pub lost: Vec<LostSection>,
    /// The sections put back (or that would be), as the revision wrote their headings.
    pub restored: Vec<String>,
    /// The unified diff of the change (empty when only listed).
    pub diff: String,
    /// SHA-256 of the checkpoint before.
    pub sha256_before: String,
    /// SHA-256 after (what it is, or would be).
    pub sha256_after: String,
    /// The write, when one was made.
    #[serde(skip)]
    pub written: Option<Written>,
}

impl RestoreOutcome {
    /// The text output; control characters escaped, `.env` values not yet hidden.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.restored.is_empty() {
            if self.lost.is_empty() {
                out.push_str(&format!(
                    "{}: no section of {} is lost\n",
                    self.file, self.from
                ));
            } else {
                out.push_str(&format!("{}: lost since {}:\n", self.file, self.from));
                for l in &self.lost {
                    let how = if l.placeholder_now {
                        " (only a placeholder now)"
                    } else {
                        ""
                    };
                    out.push_str(&format!("  ## {}{how}\n", l.heading));
                }
                out.push_str(&format!(
                    "restore with: planseal checkpoint restore --from {} --section NAME\n",
                    self.from
                ));
            }
            return printable(&out).into_owned();
        }
        let verb = if self.written.is_some() {
            "restored"
        } else {
            "would restore"
        };
        for r in &self.restored {
            out.push_str(&format!(
                "{}: {verb} ## {r} from {}\n",
                self.file, self.from
            ));
        }
        write_tail(
            &mut out,
            self.written.is_some(),
            &self.diff,
            &self.sha256_after,
        );
        printable(&out).into_owned()
    }
}

/// Lists the lost sections, and puts back the ones asked for.
pub fn restore(
    place: &Place,
    opts: &RestoreOptions,
    clock: &mut Clock,
) -> Result<RestoreOutcome, CheckpointError> {
    let (target, name) = place.locate()?;
    require_existing(&target, &name)?;
    let writing = !opts.sections.is_empty() && !opts.dry_run;
    let bytes = crate::recovery::read::read_existing(
        &target.checkpoint,
        crate::recovery::read::Kind::Document,
    )
    .map_err(crate::write::WriteError::read)?;
    let before_sha = sha256_hex(&bytes);
    let now = checked_text(&bytes, opts.expected_sha256.as_deref(), &name)?;
    let then_bytes =
        match git::file_at(&target.root, &opts.from, &target.checkpoint).map_err(|e| {
            if writing {
                CheckpointError::Hinted(HintedError::git_input(&name, &e))
            } else {
                CheckpointError::Git(e)
            }
        })? {
            AtRevision::NoRepository => {
                return Err(Refusal::new(
                    RefusalKind::NoGit,
                    format!("{} is not inside a git repository", target.root.display()),
                )
                .hint("`checkpoint restore` takes sections from a committed version")
                .into());
            }
            AtRevision::Absent => {
                return Err(Refusal::new(
                    RefusalKind::SectionNotFound,
                    format!("{name} did not exist at {}; nothing was written", opts.from),
                )
                .hint("pick a revision that has the file: `git log -- <checkpoint>`")
                .into());
            }
            AtRevision::Present(b) => b,
        };
    let then = String::from_utf8_lossy(&then_bytes).into_owned();
    let lost = splice::lost(now, &then);
    let mut text = now.to_string();
    let mut restored = Vec::new();
    for wanted in &opts.sections {
        let (next, heading) = splice::restore(&text, &then, wanted).map_err(|e| {
            let kind = match e {
                RestoreError::NotFound { .. } => RefusalKind::SectionNotFound,
                RestoreError::Present(_) => RefusalKind::SectionPresent,
            };
            Refusal::new(kind, format!("{name}: {e}; nothing was written")).hint(format!(
                "`planseal checkpoint restore --from {}` lists what was lost",
                opts.from
            ))
        })?;
        text = next;
        restored.push(heading);
    }
    let mut outcome = RestoreOutcome {
        result: if restored.is_empty() {
            "listed"
        } else {
            "dry-run"
        },
        diff: if restored.is_empty() {
            String::new()
        } else {
            unified_diff(now, &text, &name)
        },
        file: name,
        from: opts.from.clone(),
        lost,
        sha256_after: sha256_hex(text.as_bytes()),
        restored,
        sha256_before: before_sha,
        written: None,
    };
    if !writing {
        return Ok(outcome);
    }
    let line = JournalEntry::for_file(
        clock.now_iso(),
        "checkpoint-restore",
        &target.checkpoint.display().to_string(),
    )
    .with("from", opts.from.clone())
    .with("sections", outcome.restored.clone());
    let committed = Writer::from_env().commit(
        &layout::checkpoint_target(&target.checkpoint),
        Some(&bytes),
        text.as_bytes(),
        line,
    )?;
    outcome.written = Some(Written {
        path: target.checkpoint.clone(),
        committed,
    });
    outcome.result = "applied";
    Ok(outcome)
}
