//! What a checkpoint lost or gained between two versions: sections, story-table rows and
//! columns, sessions (`checkpoint diff --against REV`).

use super::doc::{AGENT_SECTIONS, blocks, find, sections};
use super::generate::is_session;
use super::stories::find_story_table;
use std::collections::HashSet;

fn norm(s: &str) -> String {
    s.trim().to_lowercase()
}

/// Items present in one version and not the other.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Delta {
    /// In the older version only, as written there.
    pub lost: Vec<String>,
    /// In the newer version only, as written there.
    pub gained: Vec<String>,
}

impl Delta {
    /// Each side's items whose key (trimmed, lower-cased) the other side lacks, in their order:
    /// one hash set per side, so the comparison is linear in the number of items.
    fn of(old: &[String], new: &[String]) -> Self {
        // Each item's key computed once; one hash set per side.
        let (old_keys, new_keys): (Vec<String>, Vec<String>) = (
            old.iter().map(|s| norm(s)).collect(),
            new.iter().map(|s| norm(s)).collect(),
        );
        let old_set: HashSet<&str> = old_keys.iter().map(String::as_str).collect();
        let new_set: HashSet<&str> = new_keys.iter().map(String::as_str).collect();
        let missing = |items: &[String], keys: &[String], other: &HashSet<&str>| -> Vec<String> {
            items
                .iter()
                .zip(keys)
                .filter(|(_, k)| !other.contains(k.as_str()))
                .map(|(s, _)| s.clone())
                .collect()
        };
        Self {
            lost: missing(old, &old_keys, &new_set),
            gained: missing(new, &new_keys, &old_set),
        }
    }
    /// Whether the two versions hold the same items (compared trimmed and case-insensitively).
    pub fn is_empty(&self) -> bool {
        self.lost.is_empty() && self.gained.is_empty()
    }
}

/// The whole comparison.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct CheckpointDiff {
    /// `##` sections, by heading (shown as written, compared normalised).
    pub sections: Delta,
    /// Rows of the story table, by story id.
    pub story_rows: Delta,
    /// Columns of the story table, by header cell.
    pub story_columns: Delta,
    /// Sessions of Ultimo Trabalho Realizado, by their `###` heading.
    pub sessions: Delta,
}

impl CheckpointDiff {
    /// Whether nothing was lost or gained anywhere.
    pub fn is_empty(&self) -> bool {
        self.sections.is_empty()
            && self.story_rows.is_empty()
            && self.story_columns.is_empty()
            && self.sessions.is_empty()
    }
    /// Whether anything of the older version is missing from the newer one (what `--exit-code` and
    /// the JSON's `lost_anything` report).
    pub fn lost_anything(&self) -> bool {
        !(self.sections.lost.is_empty()
            && self.story_rows.lost.is_empty()
            && self.story_columns.lost.is_empty()
            && self.sessions.lost.is_empty())
    }
}

struct Parts {
    sections: Vec<String>,
    rows: Vec<String>,
    columns: Vec<String>,
    sessions: Vec<String>,
}

fn parts(text: &str) -> Parts {
    let secs = sections(text);
    let mut p = Parts {
        sections: secs.iter().map(|s| s.heading.clone()).collect(),
        rows: Vec::new(),
        columns: Vec::new(),
        sessions: Vec::new(),
    };
    if let Some(s) = find(&secs, AGENT_SECTIONS[1].0)
        && let Some(t) = find_story_table(text, s.body_start, s.end)
    {
        p.rows = t.ids();
        p.columns = t.header.clone();
    }
    if let Some(s) = find(&secs, AGENT_SECTIONS[4].0) {
        p.sessions = blocks(text, s)
            .into_iter()
            .filter(|b| is_session(&b.key))
            .map(|b| b.heading)
            .collect();
    }
    p
}

/// Compares an older text with a newer one. Sections are compared by normalised heading, so
/// `Próximos Passos` → `Proximos Passos` is no change.
pub fn compare(old: &str, new: &str) -> CheckpointDiff {
    let (a, b) = (parts(old), parts(new));
    let key =
        |v: &[String]| -> Vec<String> { v.iter().map(|h| super::doc::normalize(h)).collect() };
    let mut sections = Delta::of(&key(&a.sections), &key(&b.sections));
    // show the headings as written
    let as_written = |headings: &[String], keys: &[String]| -> Vec<String> {
        let keys: HashSet<&String> = keys.iter().collect();
        headings
            .iter()
            .filter(|h| keys.contains(&super::doc::normalize(h)))
            .cloned()
            .collect()
    };
    sections.lost = as_written(&a.sections, &sections.lost);
    sections.gained = as_written(&b.sections, &sections.gained);
    CheckpointDiff {
        sections,
        story_rows: Delta::of(&a.rows, &b.rows),
        story_columns: Delta::of(&a.columns, &b.columns),
        sessions: Delta::of(&a.sessions, &b.sessions),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replaced_rich_table_is_seen() {
        let old = "## Status das Stories\n| Story | Título | Status |\n|---|---|---|\n| A-1.1 | x | Done |\n| A-1.2 | y | Draft |\n\n## Último Trabalho Realizado\n### Sessão 2026-01-01\n## Totais\n1\n";
        let new = "## Status das Stories\n| Story | Status |\n|---|---|\n| A-1.1 | Done |\n\n## Ultimo Trabalho Realizado\n### Sessão 2026-01-02\n";
        let d = compare(old, new);
        assert_eq!(d.sections.lost, ["Totais"]);
        assert!(d.sections.gained.is_empty());
        assert_eq!(d.story_rows.lost, ["A-1.2"]);
        assert_eq!(d.story_columns.lost, ["Título"]);
        assert_eq!(d.sessions.lost, ["Sessão 2026-01-01"]);
        assert_eq!(d.sessions.gained, ["Sessão 2026-01-02"]);
        assert!(d.lost_anything());
        assert!(compare(new, new).is_empty());
    }
}
