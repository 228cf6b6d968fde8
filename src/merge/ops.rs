//! `planseal merge-driver %O %A %B %L %P [%S %X %Y]`: git's merge-driver protocol
//! (`docs/merge.md`). Reads the three versions git wrote to temporary files, merges them by the
//! format of `%P`, and writes the result over `%A` — the merged file, or the file with its
//! conflict blocks and a `planseal:` note per disagreement. Git installs `%A` as the result and
//! marks the path conflicted when the driver ends non-zero.
//!
//! The driver writes nothing else: no journal line (git installs the result, not planseal; an
//! aborted merge or a rebase replaying its steps would leave lines that describe no state), no
//! lock. It reads git's repository only for a checkpoint's generated `## Git Recente`.

use super::text::Markers;
use super::{Format, Inputs, Merged, Sides};
use crate::recovery::read::{Kind, read_existing};
use crate::report::HintedError;
use crate::write::{Confirmation, WriteError, Writer};
use serde::Serialize;
use std::path::PathBuf;

/// What git passes the driver.
#[derive(Debug, Clone)]
pub struct DriverRequest {
    /// `%O`: the common ancestor's version (an empty file when there is none).
    pub ancestor: PathBuf,
    /// `%A`: ours' version; the result goes here.
    pub current: PathBuf,
    /// `%B`: theirs' version.
    pub other: PathBuf,
    /// `%L`: the length of a conflict marker.
    pub marker_size: usize,
    /// `%P`: the path being merged, relative to the repository (for the format and messages).
    pub path: String,
    /// `%X`: the label of ours (e.g. `HEAD`); `None` when git did not pass one.
    pub ours_label: Option<String>,
    /// `%Y`: the label of theirs (e.g. the branch merged in).
    pub theirs_label: Option<String>,
    /// The folder git runs the driver in (the work tree's top): its `.env` and repository feed
    /// a checkpoint's generated sections.
    pub workdir: PathBuf,
}

/// What the driver did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct DriverOutcome {
    /// `applied`: `%A` holds the result (git's driver protocol: always written).
    pub result: &'static str,
    /// `merged` (clean, exit 0) or `conflict` (exit 1: `%A` holds the conflict blocks).
    pub outcome: &'static str,
    /// `%P`.
    pub path: String,
    /// The format the path was merged as.
    pub format: Format,
    /// One sentence per disagreement left to settle (empty when merged).
    pub notes: Vec<String>,
    /// What the write of `%A` could not confirm.
    #[serde(skip)]
    pub confirmation: Confirmation,
}

impl DriverOutcome {
    /// Whether the merge is clean.
    pub fn is_clean(&self) -> bool {
        self.notes.is_empty()
    }

    /// The text for stderr: nothing when clean (git prints its own line), else one line per
    /// note after the path.
    pub fn to_text(&self) -> String {
        if self.is_clean() {
            return String::new();
        }
        let mut out = format!(
            "planseal merge-driver: CONFLICT in {} ({})\n",
            self.path,
            self.format.label()
        );
        for note in &self.notes {
            out.push_str(&format!("  planseal: {note}\n"));
        }
        out
    }
}

/// Why the driver could not merge: a version git handed over could not be read, or `%A` could
/// not be written. Git then treats the path as conflicted with `%A` as it was (ours).
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// A version could not be read, or the result not written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// An argument git would never pass.
    #[error(transparent)]
    Usage(#[from] HintedError),
}

fn placeholder(label: Option<String>) -> String {
    // Git before 2.44 passes `%X` and `%Y` through unreplaced.
    label
        .filter(|l| !matches!(l.as_str(), "%S" | "%X" | "%Y"))
        .unwrap_or_default()
}

/// Runs the driver (see the module comment).
pub fn merge_driver(req: DriverRequest) -> Result<DriverOutcome, DriverError> {
    if req.marker_size == 0 {
        return Err(
            HintedError::usage("the conflict-marker size (%L) must be at least 1")
                .hint("register the driver as `planseal merge-driver %O %A %B %L %P %S %X %Y`")
                .into(),
        );
    }
    let read = |p: &PathBuf| read_existing(p, Kind::Document).map_err(WriteError::read);
    let base = read(&req.ancestor)?;
    let ours = read(&req.current)?;
    let theirs = read(&req.other)?;
    let format = Format::of_path(&req.path);
    let markers = Markers {
        size: req.marker_size,
        ours: placeholder(req.ours_label.clone()),
        theirs: placeholder(req.theirs_label.clone()),
        newline: "\n",
    };
    let inputs = if format == Format::Checkpoint {
        generated_inputs(&req.workdir)
    } else {
        Inputs::default()
    };
    let sides = Sides {
        base: &base,
        ours: &ours,
        theirs: &theirs,
    };
    let Merged { bytes, notes } = super::merge(format, &sides, &markers, &req.path, &inputs);
    let confirmation = if bytes != ours {
        Writer::from_env().replace_handed_over(&req.current, &bytes)?
    } else {
        Confirmation::Confirmed
    };
    Ok(DriverOutcome {
        result: "applied",
        outcome: if notes.is_empty() {
            "merged"
        } else {
            "conflict"
        },
        path: req.path,
        format,
        notes,
        confirmation,
    })
}

/// The facts of a checkpoint's generated sections: the repository's recent commits and the
/// workspace's `.env` keys (never a value). What cannot be read is left out, and the section is
/// then merged like any other.
fn generated_inputs(workdir: &std::path::Path) -> Inputs {
    let env = crate::report::redact::read_env_file(&workdir.join(".env"))
        .ok()
        .flatten();
    Inputs {
        git: crate::checkpoint::git::summary(workdir).ok(),
        env_keys: env.map(|bytes| crate::checkpoint::generate::env_keys(&bytes)),
    }
}
