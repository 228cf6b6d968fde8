//! The semantic merge of plan state files: what `planseal merge-driver` does when git merges a
//! file both branches changed (`docs/merge.md`).
//!
//! Each format has its own room, pure (three versions in, the merged bytes or a readable
//! conflict out): [`dwp`] (a plan's state.json), [`fixed`] (manifest.json, the receipt and
//! the publication marker), [`gsd`] (STATE.md), [`reversa`] (`.reversa/state.json`),
//! [`checkpoint`] (PROJECT-CHECKPOINT.md), [`journal`] (the tracked journals) and [`text`]
//! (the plain line-based 3-way merge of anything else). [`Format::of_path`] picks the room
//! from the path git merges; a file whose content does not fit its format is merged line by
//! line. [`ops`] reads git's three files and writes the result.
//!
//! ```
//! use planseal::merge::{merge, Format, Inputs, Sides};
//! use planseal::merge::text::Markers;
//! let sides = Sides { base: b"a\nb\nc\n", ours: b"A\nb\nc\n", theirs: b"a\nb\nC\n" };
//! let merged = merge(Format::Text, &sides, &Markers::default(), "notes.txt", &Inputs::default());
//! assert!(merged.is_clean());
//! assert_eq!(merged.bytes, b"A\nb\nC\n");
//! ```

pub mod checkpoint;
pub mod dwp;
pub mod fixed;
pub mod gsd;
pub mod journal;
pub mod json;
pub mod ops;
pub mod reversa;
pub mod text;

use std::cmp::Ordering;
use text::Markers;

/// The three versions git hands the driver: the common ancestor (`%O`; empty when the file is
/// new on both sides), ours (`%A`) and theirs (`%B`).
#[derive(Debug, Clone, Copy)]
pub struct Sides<'a> {
    /// The common ancestor's bytes.
    pub base: &'a [u8],
    /// The current branch's bytes.
    pub ours: &'a [u8],
    /// The other branch's bytes.
    pub theirs: &'a [u8],
}

impl<'a> Sides<'a> {
    /// The three versions as text.
    pub fn texts(base: &'a str, ours: &'a str, theirs: &'a str) -> Self {
        Sides {
            base: base.as_bytes(),
            ours: ours.as_bytes(),
            theirs: theirs.as_bytes(),
        }
    }
}

/// What the driver reads besides the three versions, for the sections it regenerates.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// The facts of a checkpoint's `## Git Recente` (`None`: the repository could not be read;
    /// the section is then merged like the others).
    pub git: Option<crate::checkpoint::generate::GitSummary>,
    /// The keys of the workspace's `.env` (`None`: there is none).
    pub env_keys: Option<Vec<String>>,
}

/// A merge's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// What goes into git's `%A`: the merged file, or the file with its conflict blocks.
    pub bytes: Vec<u8>,
    /// One sentence per disagreement the user must settle (empty: a clean merge).
    pub notes: Vec<String>,
}

impl Merged {
    /// A clean merge.
    pub fn clean(bytes: Vec<u8>) -> Self {
        Merged {
            bytes,
            notes: Vec::new(),
        }
    }
    /// A conflict: the bytes hold its blocks, `notes` say what to decide.
    pub fn conflicted(bytes: Vec<u8>, notes: Vec<String>) -> Self {
        Merged { bytes, notes }
    }
    /// Whether the merge left nothing to decide.
    pub fn is_clean(&self) -> bool {
        self.notes.is_empty()
    }
}

/// Which room merges a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// `.dwp/plans/PLAN_x/state.json`.
    DwpState,
    /// `.dwp/plans/PLAN_x/manifest.json`: identical on both sides or a conflict.
    DwpManifest,
    /// The receipt `analysis_results/FINALIZATION.json` and the marker `.finalizing.json`:
    /// never merged.
    Publication,
    /// GSD's `.planning/STATE.md` (and a workstream's).
    GsdState,
    /// `.reversa/state.json`.
    ReversaState,
    /// `PROJECT-CHECKPOINT.md`.
    Checkpoint,
    /// `STATE_JOURNAL.ndjson` and `*.journal.ndjson`: the union of their lines.
    Journal,
    /// Anything else: the line-based 3-way merge.
    Text,
}

impl Format {
    /// The format of the file at `path` (git's `%P`: relative to the repository, `/`-separated).
    pub fn of_path(path: &str) -> Format {
        let parts: Vec<&str> = path.split(['/', '\\']).filter(|p| !p.is_empty()).collect();
        let name = parts.last().copied().unwrap_or_default();
        let parent = |n: usize| parts.len().checked_sub(n + 1).map(|i| parts[i]);
        let in_plan = parent(1).is_some_and(|p| p.starts_with(crate::dwp::layout::PLAN_PREFIX));
        match name {
            "state.json" if in_plan => Format::DwpState,
            "state.json" if parent(1) == Some(".reversa") => Format::ReversaState,
            "manifest.json" if in_plan => Format::DwpManifest,
            ".finalizing.json" if in_plan => Format::Publication,
            "FINALIZATION.json" if parent(1) == Some(crate::dwp::layout::RESULTS_DIR) => {
                Format::Publication
            }
            "STATE.md" if parts.contains(&".planning") => Format::GsdState,
            "PROJECT-CHECKPOINT.md" => Format::Checkpoint,
            "STATE_JOURNAL.ndjson" => Format::Journal,
            n if n.ends_with(".journal.ndjson") => Format::Journal,
            _ => Format::Text,
        }
    }

    /// How the format is named in messages.
    pub fn label(self) -> &'static str {
        match self {
            Format::DwpState => "DWP state.json",
            Format::DwpManifest => "DWP manifest.json",
            Format::Publication => "DWP publication record",
            Format::GsdState => "GSD STATE.md",
            Format::ReversaState => "Reversa state.json",
            Format::Checkpoint => "PROJECT-CHECKPOINT.md",
            Format::Journal => "journal",
            Format::Text => "text",
        }
    }
}

/// Merges the three versions of a file of `format` (see the module comment). `path` is git's
/// `%P`, used in notes and hints.
pub fn merge(
    format: Format,
    sides: &Sides<'_>,
    markers: &Markers,
    path: &str,
    inputs: &Inputs,
) -> Merged {
    // The trivial cases first (git settles them itself, but `merge-driver` may be run by hand).
    if sides.ours == sides.theirs || sides.base == sides.theirs {
        return Merged::clean(sides.ours.to_vec());
    }
    if sides.base == sides.ours {
        return Merged::clean(sides.theirs.to_vec());
    }
    let merged = match format {
        Format::DwpState => dwp::merge(sides, markers, path),
        Format::DwpManifest => Some(fixed::manifest(sides, markers)),
        Format::Publication => Some(fixed::publication(sides, markers, path)),
        Format::GsdState => gsd::merge(sides, markers),
        Format::ReversaState => reversa::merge(sides, markers),
        Format::Checkpoint => checkpoint::merge(sides, markers, inputs),
        Format::Journal => journal::merge(sides),
        Format::Text => None,
    };
    merged.unwrap_or_else(|| lines(sides, markers))
}

/// The line-based 3-way merge of the three versions (lossy for bytes that are not UTF-8: such a
/// file is never merged clean).
pub fn lines(sides: &Sides<'_>, markers: &Markers) -> Merged {
    let text = |b: &[u8]| std::str::from_utf8(b).map(str::to_owned);
    match (text(sides.base), text(sides.ours), text(sides.theirs)) {
        (Ok(base), Ok(ours), Ok(theirs)) => {
            let m = text::merge_lines(&base, &ours, &theirs, markers);
            if m.conflicts == 0 {
                Merged::clean(m.text.into_bytes())
            } else {
                let notes = vec![format!(
                    "{} hunk(s) changed differently on both sides; merged line by line",
                    m.conflicts
                )];
                Merged::conflicted(m.text.into_bytes(), notes)
            }
        }
        _ => Merged::conflicted(
            sides.ours.to_vec(),
            vec!["the file is not UTF-8 text on every side; it was left as ours has it".into()],
        ),
    }
}

/// Compares two timestamps as instants when both read as ISO-8601 (`Z` or an offset; a date-time
/// without one counts as UTC), else as text.
pub fn later_text(a: &str, b: &str) -> Ordering {
    match (instant(a), instant(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        _ => a.cmp(b),
    }
}

fn instant(text: &str) -> Option<jiff::Timestamp> {
    text.parse::<jiff::Timestamp>().ok().or_else(|| {
        text.parse::<jiff::civil::DateTime>()
            .ok()
            .and_then(|dt| dt.to_zoned(jiff::tz::TimeZone::UTC).ok())
            .map(|z| z.timestamp())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_path() {
        for (path, format) in [
            (".dwp/plans/PLAN_x/state.json", Format::DwpState),
            (
                "repositories/api/.dwp/plans/PLAN_y/state.json",
                Format::DwpState,
            ),
            (".dwp/plans/PLAN_x/manifest.json", Format::DwpManifest),
            (".dwp/plans/PLAN_x/.finalizing.json", Format::Publication),
            (
                ".dwp/plans/PLAN_x/analysis_results/FINALIZATION.json",
                Format::Publication,
            ),
            (
                ".dwp/plans/PLAN_x/analysis_results/STATE_JOURNAL.ndjson",
                Format::Journal,
            ),
            (".planning/STATE.md", Format::GsdState),
            (".planning/workstreams/api/STATE.md", Format::GsdState),
            (".planning/STATE.md.journal.ndjson", Format::Journal),
            (".reversa/state.json", Format::ReversaState),
            ("docs/PROJECT-CHECKPOINT.md", Format::Checkpoint),
            ("projects/cw/PROJECT-CHECKPOINT.md", Format::Checkpoint),
            ("state.json", Format::Text),
            ("docs/STATE.md", Format::Text),
        ] {
            assert_eq!(Format::of_path(path), format, "{path}");
        }
    }

    #[test]
    fn timestamps_compare_as_instants() {
        assert_eq!(
            later_text("2026-10-05T10:00:00+01:00", "2026-10-05T09:30:00Z"),
            Ordering::Less
        );
        assert_eq!(
            later_text("2026-10-05T09:00:00Z", "2026-10-05T09:00:00+00:00"),
            Ordering::Equal
        );
    }
}
