//! GSD's `.planning/STATE.md` (and a workstream's), merged by its parts (`docs/merge.md`):
//!
//! - The milestone never changes silently: one side moving to another milestone while the other
//!   recorded phase work of the old one (the stale-worktree merge of GSD issue #1756) is a
//!   conflict naming both, and so is `milestone` or `current_phase` moving backwards.
//! - The frontmatter merges key by key (each key with its comment lines): a key one side changed
//!   takes that side's text; `last_updated` / `last_activity` changed on both sides take the
//!   later; `progress` merges counter by counter (both changed: the larger), and its `percent`
//!   is recomputed from the merged counters the way GSD computes it.
//! - Keys GSD derives from the body (`status`, `current_phase`, `current_plan`, …) follow the
//!   merged body where its source line differs from ours'; both sides setting one differently
//!   is settled by the merged body, or else a conflict.
//! - The body merges section by section (each heading to the next); a section both sides changed
//!   whose lines are all bullets (decisions, blockers, todos) becomes the union of its bullets,
//!   any other one is merged line by line.
//!
//! The document is read with [`crate::gsd::document`] and values are written as GSD writes them
//! ([`crate::gsd::sync::yaml_scalar`]); every byte that no rule changes is ours'.

use super::text::{Markers, merge_lines, merge_sections};
use super::{Merged, Sides, later_text};
use crate::gsd::derive::derive;
use crate::gsd::document::{Document, Frontmatter, Value as Yaml};
use crate::gsd::rules::compute_progress_percent;
use crate::gsd::sync::{source_lines, yaml_scalar};
use std::collections::HashSet;

/// Keys that record work on the current milestone's phases.
const PHASE_WORK: [&str; 8] = [
    "current_phase",
    "current_phase_name",
    "current_plan",
    "active_phase",
    "status",
    "stopped_at",
    "progress",
    "next_phases",
];

/// The merge (see the module comment); `None` when a side is not UTF-8 or has no well-formed
/// frontmatter (the file is then merged line by line).
pub fn merge(sides: &Sides<'_>, markers: &Markers) -> Option<Merged> {
    let text = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_owned);
    let ours = Document::parse(text(sides.ours)?);
    let theirs = Document::parse(text(sides.theirs)?);
    let base = Document::parse(text(sides.base).unwrap_or_default());
    let fm = |d: &Document| d.frontmatter.as_ref().filter(|f| well_formed(f)).is_some();
    if !fm(&ours) || !fm(&theirs) {
        return None;
    }
    let markers = markers.for_text(&ours.text);
    let labels = (
        label(&markers.ours, "ours"),
        label(&markers.theirs, "theirs"),
    );
    let clash = milestone_clash(&base, &ours, &theirs, labels);
    if !clash.is_empty() {
        let body = markers.block(&clash, &ours.text, &theirs.text);
        return Some(Merged::conflicted(body.into_bytes(), clash));
    }
    let mut notes = Vec::new();
    let body = merge_body(&base, &ours, &theirs, &markers, &mut notes);
    let pieces = merge_frontmatter(&base, &ours, &theirs, &mut notes);
    let compose = |pieces: &[Piece], decided: &[(String, String)]| {
        compose(&ours, pieces, decided, &body, &markers)
    };
    if !notes.is_empty() {
        return Some(Merged::conflicted(
            compose(&pieces, &[]).into_bytes(),
            notes,
        ));
    }
    // The body is merged clean: settle what GSD derives from it.
    let draft = Document::parse(compose(&pieces, &[]));
    let derived = derive(&draft, None);
    let ours_sources = source_lines(&derive(&ours, None));
    let merged_sources = source_lines(&derived);
    let mut decided: Vec<(String, String)> = Vec::new();
    let mut pieces = pieces;
    for piece in &mut pieces {
        if let Piece::Undecided { key, ours, theirs } = piece {
            match derived.get(key) {
                Some(v) => decided.push((key.clone(), v.value.clone())),
                None => {
                    let note = format!(
                        "`{key}` was changed differently on both sides and the merged body does not say which is true"
                    );
                    notes.push(note.clone());
                    *piece = Piece::Conflict {
                        ours: ours.clone(),
                        theirs: theirs.clone(),
                        note,
                    };
                }
            }
        }
    }
    if !notes.is_empty() {
        return Some(Merged::conflicted(
            compose(&pieces, &[]).into_bytes(),
            notes,
        ));
    }
    for v in &derived.values {
        let stale = merged_sources.get(&v.key) != ours_sources.get(&v.key);
        let current = draft.scalar(&v.key).map(str::trim);
        let backwards =
            v.key == "last_activity" && current.is_some_and(|c| later_text(c, &v.value).is_gt());
        if stale && current != Some(v.value.as_str()) && !backwards && draft.entry(&v.key).is_some()
        {
            decided.retain(|(k, _)| *k != v.key);
            decided.push((v.key.clone(), v.value.clone()));
        }
    }
    let text = compose(&pieces, &decided);
    Some(Merged::clean(with_percent(text).into_bytes()))
}

fn label<'a>(given: &'a str, fallback: &'a str) -> &'a str {
    if given.is_empty() { fallback } else { given }
}

/// A frontmatter with a closing fence and no key written twice.
fn well_formed(f: &Frontmatter) -> bool {
    let mut seen = HashSet::new();
    !f.deviations.unclosed && f.entries.iter().all(|e| seen.insert(e.key.as_str()))
}

/// The text of an entry: its comment lines and its own lines.
fn entry_text<'d>(doc: &'d Document, key: &str) -> Option<&'d str> {
    let e = doc.entry(key)?;
    Some(&doc.text[e.lead.start..e.span.end])
}

/// A version-like value as numbers (`v2.10` ⇒ [2, 10]), for "never backwards".
fn numbers(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn section<'d>(doc: &'d Document, title: &str) -> Option<&'d str> {
    doc.heading(title, &[2, 3]).map(|h| doc.slice(&h.section))
}

/// The #1756 rule and the never-backwards rule: the notes of a conflict, or none.
fn milestone_clash(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    labels: (&str, &str),
) -> Vec<String> {
    if base.frontmatter.is_none() {
        return Vec::new();
    }
    let milestone = |d: &Document| {
        (
            d.scalar("milestone").map(str::to_owned),
            d.scalar("milestone_name").map(str::to_owned),
        )
    };
    let shown = |d: &Document| {
        let (m, n) = milestone(d);
        [m, n].into_iter().flatten().collect::<Vec<_>>().join(" ")
    };
    let moved = |d: &Document| milestone(d) != milestone(base);
    let phase_work = |d: &Document| {
        PHASE_WORK
            .iter()
            .any(|k| entry_text(d, k) != entry_text(base, k))
            || section(d, "Current Position") != section(base, "Current Position")
    };
    let mut out = Vec::new();
    for (side, other, (name, other_name)) in
        [(ours, theirs, labels), (theirs, ours, (labels.1, labels.0))]
    {
        if moved(side) && !moved(other) && phase_work(other) {
            let phase = |d: &Document| d.scalar("current_phase").unwrap_or("?").to_string();
            out.push(format!(
                "the milestone changed on {name} ({} → {}) while {other_name} recorded phase work of milestone {} (current_phase {} → {}); merging would bring back the old milestone's state or lose that work: decide which milestone STATE.md describes, and carry the phase work over by hand",
                shown(base),
                shown(side),
                shown(base),
                phase(base),
                phase(other)
            ));
        }
        for key in ["milestone", "current_phase"] {
            let (Some(was), Some(now)) = (base.scalar(key), side.scalar(key)) else {
                continue;
            };
            let same_milestone = key == "milestone" || !moved(side);
            if same_milestone && numbers(now) < numbers(was) {
                out.push(format!(
                    "`{key}` moved back on {name} ({was} → {now}); STATE.md never moves it backwards silently: decide which is true"
                ));
            }
        }
    }
    out
}

/// One frontmatter entry of the merge.
enum Piece {
    /// Text taken whole (a side's entry, or ours' `progress` with theirs' counters).
    Text(String),
    /// A body-derived key both sides set differently: settled by the merged body.
    Undecided {
        key: String,
        ours: String,
        theirs: String,
    },
    /// A key both sides changed differently.
    Conflict {
        ours: String,
        theirs: String,
        note: String,
    },
}

/// The entries in ours' order, then the keys only theirs added.
fn merge_frontmatter(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    notes: &mut Vec<String>,
) -> Vec<Piece> {
    let entries = |d: &Document| -> Vec<String> {
        d.frontmatter
            .as_ref()
            .map(|f| f.entries.iter().map(|e| e.key.clone()).collect())
            .unwrap_or_default()
    };
    let mut keys = entries(ours);
    keys.extend(
        entries(theirs)
            .into_iter()
            .filter(|k| ours.entry(k).is_none()),
    );
    // The keys GSD derives from either side's body ([`crate::gsd::derive`]).
    let mut body_derived = source_lines(&derive(ours, None));
    body_derived.extend(source_lines(&derive(theirs, None)));
    let mut out = Vec::new();
    for key in keys {
        let (b, o, t) = (
            entry_text(base, &key),
            entry_text(ours, &key),
            entry_text(theirs, &key),
        );
        let chosen = if o == t || b == t {
            o.map(str::to_owned)
        } else if b == o {
            t.map(str::to_owned)
        } else {
            match (o, t) {
                (Some(o), Some(t)) => match key.as_str() {
                    "last_updated" | "last_activity" => {
                        let value = |d: &Document| d.scalar(&key).unwrap_or("").to_string();
                        Some(
                            if later_text(&value(ours), &value(theirs)).is_lt() {
                                t
                            } else {
                                o
                            }
                            .to_owned(),
                        )
                    }
                    "progress" => match merge_progress(base, ours, theirs) {
                        Some(text) => Some(text),
                        None => {
                            conflict(&mut out, notes, &key, o, t);
                            continue;
                        }
                    },
                    k if body_derived.contains_key(k) => {
                        out.push(Piece::Undecided {
                            key,
                            ours: o.to_owned(),
                            theirs: t.to_owned(),
                        });
                        continue;
                    }
                    _ => {
                        conflict(&mut out, notes, &key, o, t);
                        continue;
                    }
                },
                (o, t) => {
                    conflict(&mut out, notes, &key, o.unwrap_or(""), t.unwrap_or(""));
                    continue;
                }
            }
        };
        if let Some(text) = chosen {
            out.push(Piece::Text(text));
        }
    }
    out
}

fn conflict(out: &mut Vec<Piece>, notes: &mut Vec<String>, key: &str, ours: &str, theirs: &str) {
    let note = format!("frontmatter `{key}` was changed differently on both sides");
    notes.push(note.clone());
    out.push(Piece::Conflict {
        ours: ours.to_owned(),
        theirs: theirs.to_owned(),
        note,
    });
}

/// `progress:` both sides changed: ours' block with each counter both changed set to the larger
/// value and theirs' other changes taken; `None` when a child is not a number both sides changed.
fn merge_progress(base: &Document, ours: &Document, theirs: &Document) -> Option<String> {
    let (Some(o), Some(t)) = (ours.entry("progress"), theirs.entry("progress")) else {
        return None;
    };
    let (Yaml::Map(oc), Yaml::Map(tc)) = (&o.value, &t.value) else {
        return None;
    };
    let value = |d: &Document, k: &str| d.child("progress", k).map(|c| c.scalar.raw.clone());
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    for child in oc {
        let (b, ov, tv) = (
            value(base, &child.key),
            value(ours, &child.key),
            value(theirs, &child.key),
        );
        let new = if ov == tv || b == tv {
            continue;
        } else if b == ov {
            tv?
        } else if child.key == "percent" {
            continue; // recomputed once the counters are merged
        } else {
            let n = |v: &Option<String>| v.as_deref().and_then(|v| v.trim().parse::<u64>().ok());
            n(&ov)?.max(n(&tv)?).to_string()
        };
        edits.push((child.value_range.clone(), new));
    }
    let mut text = ours.text[o.lead.start..o.span.end].to_string();
    let shift = o.lead.start;
    for (range, new) in edits.into_iter().rev() {
        text.replace_range(range.start - shift..range.end - shift, &new);
    }
    // Children only theirs has go last, as theirs writes them.
    for child in tc.iter().filter(|c| !oc.iter().any(|x| x.key == c.key)) {
        if !text.ends_with('\n') {
            text.push_str(ours.newline);
        }
        text.push_str(theirs.slice(&child.line));
    }
    Some(text)
}

/// The merged file: ours' fences, the entries (with the values `decided` set, and conflict
/// blocks), ours' comment lines after the last key, the merged body.
fn compose(
    ours: &Document,
    pieces: &[Piece],
    decided: &[(String, String)],
    body: &str,
    markers: &Markers,
) -> String {
    let fm = ours
        .frontmatter
        .as_ref()
        .expect("checked by merge: ours has a frontmatter");
    let mut out = ours.text[..fm.inner.start].to_string();
    for piece in pieces {
        match piece {
            Piece::Text(text) | Piece::Undecided { ours: text, .. } => {
                out.push_str(&set_values(text, decided, ours.newline));
            }
            Piece::Conflict { ours, theirs, note } => {
                out.push_str(&markers.block(std::slice::from_ref(note), ours, theirs));
            }
        }
    }
    out.push_str(ours.slice(&fm.trailer));
    out.push_str(&ours.text[fm.inner.end..ours.body_start]);
    out.push_str(body);
    out
}

/// An entry's text with its scalar value replaced when `decided` names its key (comment lines
/// above it and an inline comment kept).
fn set_values(text: &str, decided: &[(String, String)], newline: &str) -> String {
    let doc = Document::parse(format!("---{newline}{text}---{newline}"));
    let Some(entry) = doc.frontmatter.as_ref().and_then(|f| f.entries.first()) else {
        return text.to_string();
    };
    let Some((_, value)) = decided.iter().find(|(k, _)| *k == entry.key) else {
        return text.to_string();
    };
    let comment = match &entry.value {
        Yaml::Scalar(s) => s.comment.as_ref().map(|c| format!(" {c}")),
        _ => None,
    }
    .unwrap_or_default();
    format!(
        "{}{}: {}{comment}{newline}",
        doc.slice(&entry.lead),
        entry.key,
        yaml_scalar(value)
    )
}

/// `progress.percent` recomputed from the merged counters, GSD's way.
fn with_percent(text: String) -> String {
    let doc = Document::parse(text);
    let Some(pct) = doc.child("progress", "percent") else {
        return doc.text;
    };
    let n = |k: &str| doc.child("progress", k).and_then(|c| c.scalar.as_u64());
    let Some(derived) = compute_progress_percent(
        n("completed_plans"),
        n("total_plans"),
        n("completed_phases"),
        n("total_phases"),
    ) else {
        return doc.text;
    };
    if pct.scalar.as_u64() == Some(derived) {
        return doc.text;
    }
    let mut text = doc.text.clone();
    text.replace_range(pct.value_range.clone(), &derived.to_string());
    text
}

/// The body, section by section (see the module comment); a note per section left in conflict.
fn merge_body(
    base: &Document,
    ours: &Document,
    theirs: &Document,
    markers: &Markers,
    notes: &mut Vec<String>,
) -> String {
    merge_sections(
        &chunks(base),
        &chunks(ours),
        &chunks(theirs),
        ours.newline,
        |key, b, o, t| {
            let (b, o, t) = (b.unwrap_or(""), o.unwrap_or(""), t.unwrap_or(""));
            bullets_union(b, o, t).or_else(|| {
                let m = merge_lines(b, o, t, markers);
                if m.conflicts > 0 {
                    notes.push(format!(
                        "section `{}` was changed differently on both sides",
                        key.split('\u{0}').next().unwrap_or(key)
                    ));
                }
                Some(m.text)
            })
        },
    )
}

/// The body cut at every heading: (key, text) — the key is the heading's title, lower-cased,
/// with its occurrence number (the text before the first heading has the key "").
fn chunks(doc: &Document) -> Vec<(String, String)> {
    let starts: Vec<(usize, String)> = doc
        .headings
        .iter()
        .filter(|h| h.line.start >= doc.body_start)
        .map(|h| (h.line.start, h.title.to_lowercase()))
        .collect();
    let mut out: Vec<(String, String)> = Vec::new();
    let first = starts.first().map_or(doc.text.len(), |(s, _)| *s);
    if first > doc.body_start {
        out.push((String::new(), doc.text[doc.body_start..first].to_string()));
    }
    for (i, (start, title)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(doc.text.len(), |(s, _)| *s);
        let seen = out
            .iter()
            .filter(|(k, _)| k.split('\u{0}').next() == Some(title))
            .count();
        out.push((
            format!("{title}\u{0}{seen}"),
            doc.text[*start..end].to_string(),
        ));
    }
    out
}

/// A bullet line at the start of a line (`- `, `* `, `+ `, `1. `).
fn is_bullet(line: &str) -> bool {
    let l = line.trim_end();
    l.starts_with("- ") || l.starts_with("* ") || l.starts_with("+ ") || {
        let digits = l.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && l[digits..].starts_with(". ")
    }
}

/// A section whose lines after its heading are all bullets (or blank) on both sides: the union
/// of its bullets, 3-way (a bullet either side removed is gone), ours' first, then theirs'
/// additions after ours' last bullet. `None` for any other section.
fn bullets_union(base: &str, ours: &str, theirs: &str) -> Option<String> {
    let content = |s: &str| -> Option<Vec<String>> {
        let mut lines = s.split_inclusive('\n');
        let _heading = lines.next();
        let body: Vec<&str> = lines.collect();
        body.iter()
            .all(|l| l.trim().is_empty() || is_bullet(l))
            .then(|| {
                body.iter()
                    .filter(|l| is_bullet(l))
                    .map(|l| l.trim_end().to_string())
                    .collect()
            })
    };
    let (o, t) = (content(ours)?, content(theirs)?);
    if o.is_empty() || t.is_empty() {
        return None;
    }
    let b = content(base).unwrap_or_default();
    let removed_by = |side: &[String], l: &String| b.contains(l) && !side.contains(l);
    let lines: Vec<&str> = ours.split_inclusive('\n').collect();
    let last_bullet = lines.iter().rposition(|l| is_bullet(l))?;
    let newline = if ours.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let bare = line.trim_end().to_string();
        if !(is_bullet(line) && removed_by(&t, &bare)) {
            out.push_str(line);
        }
        if i == last_bullet {
            if !out.ends_with('\n') {
                out.push_str(newline);
            }
            for added in t.iter().filter(|l| !o.contains(l) && !b.contains(l)) {
                out.push_str(added);
                out.push_str(newline);
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(base: &str, ours: &str, theirs: &str) -> Merged {
        merge(&Sides::texts(base, ours, theirs), &Markers::default())
            .expect("STATE.md with frontmatter")
    }

    const BASE: &str = "---\nmilestone: v1.0\nstatus: executing\ncurrent_phase: \"3\"\nlast_updated: \"2026-06-01T10:00:00Z\"\nprogress:\n  total_plans: 10\n  completed_plans: 4\n  percent: 40\n---\n# Project State\n\n## Current Position\n\nPhase: 3 of 5 (Api)\nStatus: Executing Phase 3\n\n### Decisions\n\n- Use Rust\n\n### Blockers/Concerns\n\nNone yet.\n";

    #[test]
    fn decisions_union_and_counters_grow() {
        let ours = BASE
            .replace("- Use Rust\n", "- Use Rust\n- Keep STATE.md short\n")
            .replace(
                "completed_plans: 4\n  percent: 40",
                "completed_plans: 5\n  percent: 50",
            )
            .replace("2026-06-01T10:00:00Z", "2026-06-01T11:00:00Z");
        let theirs = BASE
            .replace("- Use Rust\n", "- Use Rust\n- Pin gix\n")
            .replace(
                "completed_plans: 4\n  percent: 40",
                "completed_plans: 6\n  percent: 60",
            )
            .replace("2026-06-01T10:00:00Z", "2026-06-01T12:00:00Z");
        let m = run(BASE, &ours, &theirs);
        assert!(m.is_clean(), "{:?}", m.notes);
        let text = String::from_utf8(m.bytes).unwrap();
        assert!(
            text.contains("- Use Rust\n- Keep STATE.md short\n- Pin gix\n"),
            "{text}"
        );
        assert!(
            text.contains("completed_plans: 6\n  percent: 60\n"),
            "{text}"
        );
        assert!(
            text.contains("last_updated: \"2026-06-01T12:00:00Z\""),
            "{text}"
        );
    }

    #[test]
    fn a_milestone_switch_against_old_phase_work_is_a_conflict() {
        let ours = BASE
            .replace("milestone: v1.0", "milestone: v2.0")
            .replace("current_phase: \"3\"", "current_phase: \"1\"")
            .replace("Phase: 3 of 5 (Api)", "Phase: 1 of 4 (Setup)");
        let theirs = BASE
            .replace("current_phase: \"3\"", "current_phase: \"4\"")
            .replace("Phase: 3 of 5 (Api)", "Phase: 4 of 5 (Docs)");
        let m = run(BASE, &ours, &theirs);
        assert!(!m.is_clean());
        assert!(
            m.notes[0].contains("milestone changed on ours (v1.0 → v2.0)"),
            "{:?}",
            m.notes
        );
        assert!(m.notes[0].contains("current_phase 3 → 4"), "{:?}", m.notes);
    }

    #[test]
    fn derived_keys_follow_the_merged_body() {
        // theirs moved the body on without syncing its frontmatter; ours added a decision
        let theirs = BASE.replace("Status: Executing Phase 3", "Status: Verifying Phase 3");
        let ours = BASE.replace("- Use Rust\n", "- Use Rust\n- Pin gix\n");
        let m = run(BASE, &ours, &theirs);
        assert!(m.is_clean(), "{:?}", m.notes);
        let text = String::from_utf8(m.bytes).unwrap();
        assert!(text.contains("status: verifying\n"), "{text}");
    }

    #[test]
    fn a_key_both_sides_set_is_settled_by_the_merged_body() {
        // ours moved the body and its key; theirs set the key by hand, leaving the body alone
        let ours = BASE
            .replace("Status: Executing Phase 3", "Status: Verifying Phase 3")
            .replace("status: executing", "status: verifying");
        let theirs = BASE.replace("status: executing", "status: planning");
        let m = run(BASE, &ours, &theirs);
        assert!(m.is_clean(), "{:?}", m.notes);
        assert_eq!(String::from_utf8(m.bytes).unwrap(), ours);
        // both moved the body line differently: the body conflicts, and so does the file
        let theirs = BASE
            .replace("Status: Executing Phase 3", "Status: Paused")
            .replace("status: executing", "status: paused");
        let m = run(BASE, &ours, &theirs);
        assert!(!m.is_clean());
    }
}
