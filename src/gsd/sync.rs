//! `gsd sync`: bring the frontmatter in line with the body and the phase folders without losing
//! anything (`docs/gsd.md`). Pure: the document, the derivation and the baseline in; the key
//! updates, the drift report and the new text out.
//!
//! - Only keys with a derived value change; every other key keeps its bytes, its quoting and its
//!   place among the other unknown keys.
//! - A key whose source line in the body did not change since the baseline keeps its frontmatter
//!   value: the disagreement is reported as drift instead of being reverted (GSD issue #1230).
//! - Nothing changes ⇒ no new text (and no `last_updated` stamp).
//! - A body field is never written.

use super::derive::{Derivation, KEY_ORDER, PROGRESS_ORDER, Source};
use super::document::{Document, Entry, Quote, Value};
use super::rules::leading_date;
use std::collections::BTreeMap;
use std::sync::LazyLock;

/// What the body said when planseal last wrote the file (or at git HEAD): each derived key's
/// source line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    /// Where the baseline comes from, for messages (`git HEAD`, or planseal's last journaled sync).
    pub origin: String,
    /// Each body-derived key (`status`, `current_phase`, …) and the body line it was derived from,
    /// as written then.
    pub sources: BTreeMap<String, String>,
}

impl Baseline {
    /// The baseline a whole earlier STATE.md text gives.
    pub fn from_text(origin: impl Into<String>, text: &str) -> Baseline {
        let doc = Document::parse(text.to_string());
        let derivation = super::derive::derive(&doc, None);
        Baseline {
            origin: origin.into(),
            sources: source_lines(&derivation),
        }
    }
}

/// Each body-derived key's source line (what a journal line records).
pub fn source_lines(derivation: &Derivation) -> BTreeMap<String, String> {
    derivation
        .values
        .iter()
        .filter_map(|v| match &v.source {
            Source::Body { line, .. } => Some((v.key.clone(), line.clone())),
            Source::Phases => None,
        })
        .collect()
}

/// One frontmatter key the sync sets.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct KeyUpdate {
    /// The key, `progress.percent` for a child of `progress`.
    pub key: String,
    /// Its value now; `None` when the key is absent or null.
    pub old: Option<String>,
    /// The value it gets.
    pub new: String,
}

/// A key whose frontmatter value disagrees with what the body implies, and that the sync keeps.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Drift {
    /// The key, `progress.percent` for a child of `progress`.
    pub key: String,
    /// Its frontmatter value, which stays.
    pub frontmatter: String,
    /// The value the body (or the phase folders) implies.
    pub derived: String,
    /// Where the derived value comes from (`line 12: Status: Executing`, `phase folders`).
    pub source: String,
    /// Why the frontmatter value was kept.
    pub kept_because: String,
}

/// What a sync would change.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncPlan {
    /// The keys it sets: the derived ones in GSD's key order, then `gsd_state_version` when
    /// absent, and `last_updated` last.
    pub updates: Vec<KeyUpdate>,
    /// The disagreements it keeps, each with the reason.
    pub drift: Vec<Drift>,
    /// The file after the sync; `None` when nothing changes.
    pub new_text: Option<String>,
}

/// Why a sync cannot be planned on this file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyncError {
    /// The frontmatter has no closing `---`.
    #[error("the frontmatter has no closing `---` line, so its end cannot be told from the body")]
    UnclosedFrontmatter,
}

fn describe(source: &Source) -> String {
    match source {
        Source::Body { line, line_no } => format!("line {line_no}: {}", line.trim()),
        Source::Phases => "phase folders".into(),
    }
}

/// The current frontmatter value of a derived key (`status`, `progress.percent`).
fn current_value<'d>(doc: &'d Document, key: &str) -> Option<(&'d str, Quote)> {
    match key.split_once('.') {
        Some((parent, child)) => {
            let c = doc.child(parent, child)?;
            Some((c.scalar.as_str()?, c.scalar.quote))
        }
        None => {
            let s = doc.scalar_entry(key)?;
            Some((s.as_str()?, s.quote))
        }
    }
}

/// Plans the sync. `now` is the `last_updated` stamp written when something changes.
pub fn plan(
    doc: &Document,
    derivation: &Derivation,
    baseline: Option<&Baseline>,
    now: &str,
) -> Result<SyncPlan, SyncError> {
    plan_with(doc, derivation, baseline, now, false)
}

/// [`plan`] for a document whose body a writer has just changed: `last_updated` is stamped
/// even when no other key changes, as GSD stamps it on every write.
pub fn plan_after_body_change(
    doc: &Document,
    derivation: &Derivation,
    baseline: Option<&Baseline>,
    now: &str,
) -> Result<SyncPlan, SyncError> {
    plan_with(doc, derivation, baseline, now, true)
}

fn plan_with(
    doc: &Document,
    derivation: &Derivation,
    baseline: Option<&Baseline>,
    now: &str,
    always_stamp: bool,
) -> Result<SyncPlan, SyncError> {
    if doc
        .frontmatter
        .as_ref()
        .is_some_and(|f| f.deviations.unclosed)
    {
        return Err(SyncError::UnclosedFrontmatter);
    }
    let mut updates: Vec<KeyUpdate> = Vec::new();
    let mut drift = Vec::new();
    for derived in &derivation.values {
        let current = current_value(doc, &derived.key);
        let same_text = current.is_some_and(|(v, _)| v.trim() == derived.value);
        // A number written in quotes is fixed too: the hook cannot read a quoted percent.
        let quoted_number = derived.numeric && current.is_some_and(|(_, q)| q != Quote::Plain);
        if same_text && !quoted_number {
            continue;
        }
        if let Some((fm, _)) = current {
            if derived.key == "last_activity"
                && let Some(fm_date) = leading_date(fm)
                && fm_date > derived.value.as_str()
            {
                drift.push(Drift {
                    key: derived.key.clone(),
                    frontmatter: fm.to_string(),
                    derived: derived.value.clone(),
                    source: describe(&derived.source),
                    kept_because: "last_activity is never moved backwards".into(),
                });
                continue;
            }
            if let (Source::Body { line, .. }, Some(base)) = (&derived.source, baseline)
                && base.sources.get(&derived.key) == Some(line)
                && !same_text
            {
                drift.push(Drift {
                    key: derived.key.clone(),
                    frontmatter: fm.to_string(),
                    derived: derived.value.clone(),
                    source: describe(&derived.source),
                    kept_because: format!(
                        "the body line did not change since {}, so the frontmatter value was set on purpose",
                        base.origin
                    ),
                });
                continue;
            }
        }
        updates.push(KeyUpdate {
            key: derived.key.clone(),
            old: current.map(|(v, _)| v.to_string()),
            new: derived.value.clone(),
        });
    }
    if doc.entry("gsd_state_version").is_none() {
        updates.push(KeyUpdate {
            key: "gsd_state_version".into(),
            old: None,
            new: "1.0".into(),
        });
    }
    if updates.is_empty() && !always_stamp {
        return Ok(SyncPlan {
            updates,
            drift,
            new_text: None,
        });
    }
    updates.push(KeyUpdate {
        key: "last_updated".into(),
        old: doc.scalar("last_updated").map(str::to_string),
        new: now.to_string(),
    });
    let numeric: Vec<&str> = derivation
        .values
        .iter()
        .filter(|v| v.numeric)
        .map(|v| v.key.as_str())
        .collect();
    let new_text = render(doc, &updates, &numeric);
    Ok(SyncPlan {
        new_text: (new_text != doc.text).then_some(new_text),
        updates,
        drift,
    })
}

/// Writes the updates into the document: canonical keys first in GSD's order, then every other
/// key in its original order, untouched keys byte for byte.
fn render(doc: &Document, updates: &[KeyUpdate], numeric: &[&str]) -> String {
    let nl = doc.newline;
    let top_updates: BTreeMap<&str, &KeyUpdate> = updates
        .iter()
        .filter(|u| !u.key.contains('.'))
        .map(|u| (u.key.as_str(), u))
        .collect();
    let progress_updates: Vec<(&str, &KeyUpdate)> = updates
        .iter()
        .filter_map(|u| u.key.strip_prefix("progress.").map(|c| (c, u)))
        .collect();
    let value_text = |key: &str, value: &str| {
        if numeric.contains(&key) {
            value.to_string()
        } else {
            yaml_scalar(value)
        }
    };

    let entries: &[Entry] = doc
        .frontmatter
        .as_ref()
        .map_or(&[], |f| f.entries.as_slice());
    let mut order: Vec<&str> = Vec::new();
    for key in KEY_ORDER {
        let exists = entries.iter().any(|e| e.key == key);
        let added =
            top_updates.contains_key(key) || (key == "progress" && !progress_updates.is_empty());
        if exists || added {
            order.push(key);
        }
    }
    for e in entries {
        if !order.contains(&e.key.as_str()) {
            order.push(&e.key);
        }
    }

    let mut inner = String::new();
    for key in order {
        // A duplicated key keeps all its copies; only the last is the one read (and updated).
        let copies: Vec<&Entry> = entries.iter().filter(|e| e.key == key).collect();
        if copies.is_empty() {
            if key == "progress" {
                inner.push_str(&format!("progress:{nl}"));
                for child in PROGRESS_ORDER {
                    if let Some((_, u)) = progress_updates.iter().find(|(c, _)| *c == child) {
                        inner.push_str(&format!("  {child}: {}{nl}", u.new));
                    }
                }
            } else if let Some(u) = top_updates.get(key) {
                inner.push_str(&format!("{key}: {}{nl}", value_text(key, &u.new)));
            }
            continue;
        }
        for (i, entry) in copies.iter().enumerate() {
            inner.push_str(doc.slice(&entry.lead));
            let is_read_copy = i + 1 == copies.len();
            if !is_read_copy {
                inner.push_str(doc.slice(&entry.span));
            } else if key == "progress" && !progress_updates.is_empty() {
                inner.push_str(&render_progress(doc, entry, &progress_updates, nl));
            } else if let Some(u) = top_updates.get(key) {
                let comment = match &entry.value {
                    Value::Scalar(s) => s.comment.as_ref().map(|c| format!(" {c}")),
                    _ => None,
                }
                .unwrap_or_default();
                inner.push_str(&format!("{key}: {}{comment}{nl}", value_text(key, &u.new)));
            } else {
                inner.push_str(doc.slice(&entry.span));
            }
        }
    }
    match &doc.frontmatter {
        Some(fm) => {
            inner.push_str(doc.slice(&fm.trailer));
            format!(
                "{}{}{}",
                &doc.text[..fm.inner.start],
                inner,
                &doc.text[fm.inner.end..]
            )
        }
        None => format!("---{nl}{inner}---{nl}{}", doc.text),
    }
}

/// The `progress:` block with its children updated in place (indentation, comments and other
/// children kept) and missing children appended.
fn render_progress(
    doc: &Document,
    entry: &Entry,
    updates: &[(&str, &KeyUpdate)],
    nl: &str,
) -> String {
    let Value::Map(children) = &entry.value else {
        let mut out = format!("progress:{nl}");
        for child in PROGRESS_ORDER {
            if let Some((_, u)) = updates.iter().find(|(c, _)| *c == child) {
                out.push_str(&format!("  {child}: {}{nl}", u.new));
            }
        }
        return out;
    };
    let span = entry.span.clone();
    let indent = children
        .first()
        .map(|c| {
            let line = doc.slice(&c.line);
            line[..line.len() - line.trim_start().len()].to_string()
        })
        .unwrap_or_else(|| "  ".into());
    let rank = |key: &str| PROGRESS_ORDER.iter().position(|k| *k == key);
    // Children to add, in GSD's order; each goes before the first existing child that GSD
    // writes after it, else after the last child.
    let mut missing: Vec<(&str, &KeyUpdate)> = PROGRESS_ORDER
        .iter()
        .filter(|k| !children.iter().any(|c| c.key == **k))
        .filter_map(|k| updates.iter().find(|(c, _)| c == k).map(|(c, u)| (*c, *u)))
        .collect();
    let mut out = String::new();
    let mut pos = span.start;
    for child in children {
        if let Some(child_rank) = rank(&child.key) {
            let (before, after): (Vec<_>, Vec<_>) = missing
                .into_iter()
                .partition(|(k, _)| rank(k).is_some_and(|r| r < child_rank));
            missing = after;
            if !before.is_empty() {
                out.push_str(&doc.text[pos..child.line.start]);
                pos = child.line.start;
                for (k, u) in before {
                    out.push_str(&format!("{indent}{k}: {}{nl}", u.new));
                }
            }
        }
        if let Some((_, u)) = updates.iter().find(|(c, _)| *c == child.key) {
            out.push_str(&doc.text[pos..child.value_range.start]);
            out.push_str(&u.new);
            pos = child.value_range.end;
        }
    }
    let last_child_end = children.last().map_or(span.end, |c| c.line.end);
    out.push_str(&doc.text[pos..last_child_end]);
    for (k, u) in missing {
        if !out.ends_with('\n') {
            out.push_str(nl);
        }
        out.push_str(&format!("{indent}{k}: {}{nl}", u.new));
    }
    out.push_str(&doc.text[last_child_end..span.end]);
    out
}

static YAML_NUMBER: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)^[+-]?(?:(?:[0-9][0-9_]*|\.[0-9_]+)(?:\.[0-9_]*)?(?:e[+-]?[0-9]+)?|0o[0-7_]+|0x[0-9a-f_]+|0b[01_]+)$",
    )
    .expect("a fixed pattern compiles because it is a valid regex")
});
static YAML_DATE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"^\d{4}-\d{2}-\d{2}(?:(?:[Tt]|[ \t]+)\d{2}:\d{2}(?::\d{2}(?:\.\d*)?)?(?:[ \t]*(?:Z|[+-]\d{2}(?::?\d{2})?))?)?$",
    )
    .expect("a fixed pattern compiles because it is a valid regex")
});

/// A string value the way GSD's frontmatter writer spells it: bare when YAML would read it back
/// as the same string, else JSON-quoted.
pub fn yaml_scalar(value: &str) -> String {
    let keyword = ["null", "~", "true", "false", "yes", "no", "on", "off"]
        .iter()
        .any(|k| value.eq_ignore_ascii_case(k));
    let special_number = {
        let v = value.trim_start_matches(['+', '-']).to_ascii_lowercase();
        v == ".inf" || v == ".nan"
    };
    let needs_quotes = value.is_empty()
        || value.trim() != value
        || value.contains(['\r', '\n', '\t'])
        || value.starts_with([
            '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%',
            '@', '`',
        ])
        || value.contains(':')
        || value.contains('#')
        || value.contains(['[', ']', '{', '}', ','])
        || keyword
        || YAML_NUMBER.is_match(value)
        || special_number
        || YAML_DATE.is_match(value);
    if needs_quotes {
        serde_json::Value::String(value.to_string()).to_string()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "---\r\nstatus: planning\r\ngsd_state_version: 1\r\nprogress:\r\n  percent: 1\r\n---\r\n## Current Position\r\nStatus: Executing\r\n";
        let doc = Document::parse(text.to_string());
        let phases = crate::gsd::derive::PhaseCounts {
            phase_folders: 2,
            total_phases: 2,
            completed_phases: 1,
            total_plans: 4,
            completed_plans: 2,
            ..Default::default()
        };
        let derivation = crate::gsd::derive::derive(&doc, Some(phases));
        let plan = plan(&doc, &derivation, None, "2026-01-01T00:00:00.000Z").unwrap();
        assert_eq!(
            plan.new_text.unwrap(),
            "---\r\ngsd_state_version: 1\r\nstatus: executing\r\nlast_updated: \"2026-01-01T00:00:00.000Z\"\r\nprogress:\r\n  total_phases: 2\r\n  completed_phases: 1\r\n  total_plans: 4\r\n  completed_plans: 2\r\n  percent: 50\r\n---\r\n## Current Position\r\nStatus: Executing\r\n"
        );
    }

    #[test]
    fn yaml_scalars_like_gsd() {
        assert_eq!(yaml_scalar("executing"), "executing");
        assert_eq!(yaml_scalar("4"), "\"4\"");
        assert_eq!(yaml_scalar("4.5"), "\"4.5\"");
        assert_eq!(yaml_scalar("2026-06-01"), "\"2026-06-01\"");
        assert_eq!(yaml_scalar("Phase 4: done"), "\"Phase 4: done\"");
        assert_eq!(yaml_scalar("Code Quality"), "Code Quality");
        assert_eq!(yaml_scalar("null"), "\"null\"");
    }
}
