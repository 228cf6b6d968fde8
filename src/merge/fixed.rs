//! The plan files a merge never combines: `manifest.json` (written once when the plan is made,
//! never changed afterwards) and the publication records — the receipt
//! `analysis_results/FINALIZATION.json` and the marker `.finalizing.json`, which seal or resume
//! one exact set of files that no merge reproduces. Two different versions are always a conflict,
//! with the way out in its note.

use super::text::{Markers, whole_file_conflict};
use super::{Merged, Sides};

/// `manifest.json`: the same on both sides (settled before this is called) or a conflict.
pub fn manifest(sides: &Sides<'_>, markers: &Markers) -> Merged {
    conflict(
        sides,
        markers,
        "manifest.json differs between the branches, but a plan's manifest is written once when the plan is made and never changes; keep the version of the branch the plan was made on".into(),
    )
}

/// The receipt or the marker: always a conflict.
pub fn publication(sides: &Sides<'_>, markers: &Markers, path: &str) -> Merged {
    let plan = std::path::Path::new(path)
        .ancestors()
        .find(|p| {
            p.file_name().is_some_and(|n| {
                n.to_string_lossy()
                    .starts_with(crate::dwp::layout::PLAN_PREFIX)
            })
        })
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "PLAN_DIR".into());
    let note = if path.ends_with(crate::dwp::layout::MARKER_FILE) {
        format!(
            "{path} is the marker of a publication in flight and is never merged; resolve the merge of the plan's other files, then run `planseal recover {plan}`"
        )
    } else {
        format!(
            "{path} seals one exact set of the plan's files and is never merged; resolve the plan's other files, then re-seal it with `planseal finalize {plan}`"
        )
    };
    conflict(sides, markers, note)
}

fn conflict(sides: &Sides<'_>, markers: &Markers, note: String) -> Merged {
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let notes = vec![note];
    let bytes = whole_file_conflict(&text(sides.ours), &text(sides.theirs), &notes, markers);
    Merged::conflicted(bytes.into_bytes(), notes)
}
