//! `gsd recover`: what earlier committed versions of STATE.md held that the current file lost —
//! sections, frontmatter keys, decisions, blockers — each with a stable id, and the restoration
//! of picked pieces into the current text, every other byte kept. Pure: versions in (the CLI
//! reads them from git), pieces and new text out.

use super::document::Document;
use std::borrow::Cow;
use std::collections::HashSet;

/// One earlier version of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// Short commit id.
    pub commit: String,
    /// The first line of the commit's message.
    pub subject: String,
    /// Committer time, ISO-8601 UTC.
    pub date: String,
    /// The whole STATE.md at that commit.
    pub text: String,
}

/// What kind of thing was lost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PieceKind {
    /// A whole body section: its heading line through the line before the next heading of the
    /// same or a higher level.
    Section,
    /// A top-level frontmatter key, with its children and list items.
    Key,
    /// A bullet of a `Decisions` list.
    Decision,
    /// A bullet of a `Blockers` list (`Blockers/Concerns`).
    Blocker,
}

/// Something an earlier version had and the current file does not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct LostPiece {
    /// `section:<heading>`, `key:<name>`, `decision:<n>-<hash>`, `blocker:<n>-<hash>` (see
    /// [`bullet_id`]).
    pub id: String,
    /// What was lost: a section, a key, a decision or a blocker.
    pub kind: PieceKind,
    /// The heading, the key, or the bullet's text.
    pub label: String,
    /// The exact text to restore (whole lines, ending with a line end).
    pub text: String,
    /// The newest version that still had it (short commit id).
    pub commit: String,
    /// That commit's subject line.
    pub subject: String,
    /// That commit's committer time, ISO-8601 UTC.
    pub date: String,
    /// Sections: the heading just above it in that version (title, level), its own level.
    #[serde(skip)]
    pub placement: Option<(String, usize, usize)>,
}

/// Why a restoration cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecoverError {
    /// A picked id (the value) is not among the lost pieces.
    #[error("`{0}` is not one of the lost pieces listed by `planseal gsd recover`")]
    UnknownPiece(String),
    /// A decision or blocker cannot be put back: the current file lacks the list it goes under.
    #[error("`{id}` belongs under a `{heading}` heading, which the current file does not have")]
    MissingList {
        /// The picked piece's id.
        id: String,
        /// The heading the list needs (`Decisions` or `Blockers/Concerns`).
        heading: String,
    },
}

fn with_line_end(s: &str, nl: &str) -> String {
    if s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}{nl}")
    }
}

/// The bullets of the list under a heading whose title satisfies `is_list`: each top-level bullet
/// line with its indented continuation lines.
fn bullets(doc: &Document, is_list: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out = Vec::new();
    for h in doc.headings.iter().filter(|h| is_list(&h.title)) {
        let text = &doc.text[h.line.end..h.section.end];
        let mut current: Option<String> = None;
        for line in text.split_inclusive('\n') {
            let trimmed = line.trim_start();
            let indent = line.len() - trimmed.len();
            let is_bullet = indent <= 1 && (trimmed.starts_with("- ") || trimmed.starts_with("* "));
            if is_bullet {
                out.extend(current.take());
                current = Some(line.to_string());
            } else if let Some(c) = current.as_mut()
                && indent >= 2
                && !trimmed.is_empty()
            {
                c.push_str(line);
            } else {
                out.extend(current.take());
            }
        }
        out.extend(current.take());
    }
    out.into_iter()
        .filter(|b| !is_placeholder(&bullet_text(b)))
        .collect()
}

/// A bullet's text without its marker, continuation lines joined (whitespace runs as one
/// space). Borrowed when it is already so: every body line goes through here.
fn bullet_text(bullet: &str) -> Cow<'_, str> {
    let t = bullet.trim_start();
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .unwrap_or(t)
        .trim();
    if !t.contains("  ") && !t.chars().any(|c| c.is_whitespace() && c != ' ') {
        return Cow::Borrowed(t);
    }
    Cow::Owned(t.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn is_placeholder(text: &str) -> bool {
    let t = text
        .trim()
        .trim_end_matches('.')
        .trim_matches(|c: char| c == '_' || c == '*' || c == '(' || c == ')')
        .to_ascii_lowercase();
    t.is_empty() || t == "none" || t == "none yet" || t == "nothing yet" || t == "n/a"
}

/// A heading whose list holds decisions: `Decisions`, in any case.
fn is_decisions(title: &str) -> bool {
    title.eq_ignore_ascii_case("decisions")
}

/// A heading whose list holds blockers: one that starts with `Blockers` (`Blockers/Concerns`).
fn is_blockers(title: &str) -> bool {
    let t = title.to_ascii_lowercase();
    t.starts_with("blockers")
}

/// The id of a lost decision or blocker: its position in the list of the newest version that
/// still had it, and the first 6 hex digits of the SHA-256 of its text (`decision:2-1f0c3a`).
/// Both depend only on that version and the bullet, so the id stays the same when other pieces
/// are lost later (a running counter over the listing would shift).
pub fn bullet_id(kind: PieceKind, position: usize, text: &str) -> String {
    let prefix = if kind == PieceKind::Decision {
        "decision"
    } else {
        "blocker"
    };
    let hash = crate::recovery::hash::sha256_hex(text.as_bytes());
    format!("{prefix}:{position}-{}", &hash[..6])
}

/// Every piece an earlier version has and `current` lacks, newest version first.
pub fn find_lost(current: &Document, versions: &[Version]) -> Vec<LostPiece> {
    let current_titles: HashSet<String> = current
        .headings
        .iter()
        .map(|h| h.title.to_lowercase())
        .collect();
    let current_keys: HashSet<&str> = current
        .frontmatter
        .iter()
        .flat_map(|f| f.entries.iter().map(|e| e.key.as_str()))
        .collect();
    let current_bullets: HashSet<Cow<'_, str>> = current
        .body()
        .lines()
        .map(bullet_text)
        .filter(|t| !t.is_empty())
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    for version in versions {
        let doc = Document::parse(version.text.clone());
        let piece = |kind, id: String, label: String, text: String, placement| LostPiece {
            id,
            kind,
            label,
            text,
            commit: version.commit.clone(),
            subject: version.subject.clone(),
            date: version.date.clone(),
            placement,
        };
        for (i, h) in doc.headings.iter().enumerate() {
            let key = h.title.to_lowercase();
            if h.title.is_empty()
                || current_titles.contains(&key)
                || !seen.insert(format!("s:{key}"))
            {
                continue;
            }
            let before = i.checked_sub(1).map(|p| {
                (
                    doc.headings[p].title.clone(),
                    doc.headings[p].level,
                    h.level,
                )
            });
            out.push(piece(
                PieceKind::Section,
                format!("section:{}", h.title),
                h.title.clone(),
                with_line_end(doc.slice(&h.section), doc.newline),
                before.or(Some((String::new(), 0, h.level))),
            ));
        }
        for e in doc.frontmatter.iter().flat_map(|f| f.entries.iter()) {
            if current_keys.contains(e.key.as_str()) || !seen.insert(format!("k:{}", e.key)) {
                continue;
            }
            out.push(piece(
                PieceKind::Key,
                format!("key:{}", e.key),
                e.key.clone(),
                with_line_end(doc.slice(&e.span), doc.newline),
                None,
            ));
        }
        for (kind, is_list) in [
            (PieceKind::Decision, is_decisions as fn(&str) -> bool),
            (PieceKind::Blocker, is_blockers as fn(&str) -> bool),
        ] {
            for (position, b) in bullets(&doc, is_list).iter().enumerate() {
                let text = bullet_text(b);
                if current_bullets.contains(&text) || !seen.insert(format!("b:{text}")) {
                    continue;
                }
                out.push(piece(
                    kind,
                    bullet_id(kind, position + 1, &text),
                    text.into_owned(),
                    with_line_end(b, doc.newline),
                    None,
                ));
            }
        }
    }
    out
}

/// Restores the picked pieces (ids, case-insensitive) into `current_text`, in the order listed
/// by [`find_lost`]. Pieces already present again (a bullet inside a restored section) are
/// skipped.
pub fn restore(
    current_text: &str,
    lost: &[LostPiece],
    picks: &[String],
) -> Result<String, RecoverError> {
    for p in picks {
        if !lost.iter().any(|l| l.id.eq_ignore_ascii_case(p)) {
            return Err(RecoverError::UnknownPiece(p.clone()));
        }
    }
    let mut text = current_text.to_string();
    for piece in lost
        .iter()
        .filter(|l| picks.iter().any(|p| p.eq_ignore_ascii_case(&l.id)))
    {
        let doc = Document::parse(text.clone());
        text = match piece.kind {
            PieceKind::Section => {
                if doc.heading(&piece.label, &[1, 2, 3, 4, 5, 6]).is_some() {
                    continue;
                }
                insert_section(&doc, piece)
            }
            PieceKind::Key => {
                if doc.entry(&piece.label).is_some() {
                    continue;
                }
                insert_key(&doc, piece)
            }
            PieceKind::Decision | PieceKind::Blocker => {
                if doc.body().lines().any(|l| bullet_text(l) == piece.label) {
                    continue;
                }
                insert_bullet(&doc, piece)?
            }
        };
    }
    Ok(text)
}

fn splice(text: &str, at: usize, insert: &str) -> String {
    format!("{}{}{}", &text[..at], insert, &text[at..])
}

/// Where a section goes: after the heading that preceded it in the old version (at the end of
/// that heading's section when it was a sibling or deeper, before its first sub-heading when it
/// was the parent), else at the end of the file.
fn insert_section(doc: &Document, piece: &LostPiece) -> String {
    let nl = doc.newline;
    let mut block = piece.text.clone();
    let end_of_file = || {
        let mut t = doc.text.clone();
        if !t.is_empty() && !t.ends_with('\n') {
            t.push_str(nl);
        }
        if !t.is_empty() && !t.ends_with(&format!("{nl}{nl}")) {
            t.push_str(nl);
        }
        format!("{t}{block}")
    };
    let Some((prev_title, prev_level, own_level)) = &piece.placement else {
        return end_of_file();
    };
    let Some(prev) = doc.headings.iter().find(|h| {
        !prev_title.is_empty() && h.level == *prev_level && h.title.eq_ignore_ascii_case(prev_title)
    }) else {
        return end_of_file();
    };
    let at = if prev.level < *own_level {
        doc.headings
            .iter()
            .find(|h| h.line.start > prev.line.start && h.line.start < prev.section.end)
            .map_or(prev.section.end, |h| h.line.start)
    } else {
        prev.section.end
    };
    if at == doc.text.len() {
        return end_of_file();
    }
    // Keep a blank line between the restored section and what follows it.
    if !block.ends_with(&format!("{nl}{nl}")) {
        block.push_str(nl);
    }
    splice(&doc.text, at, &block)
}

fn insert_key(doc: &Document, piece: &LostPiece) -> String {
    match &doc.frontmatter {
        Some(fm) if !fm.deviations.unclosed => splice(&doc.text, fm.trailer.start, &piece.text),
        _ => {
            let nl = doc.newline;
            format!("---{nl}{}---{nl}{}", piece.text, doc.text)
        }
    }
}

fn insert_bullet(doc: &Document, piece: &LostPiece) -> Result<String, RecoverError> {
    let (heading_name, is_list): (&str, fn(&str) -> bool) = match piece.kind {
        PieceKind::Decision => ("Decisions", is_decisions),
        _ => ("Blockers/Concerns", is_blockers),
    };
    let Some(h) = doc.headings.iter().find(|h| is_list(&h.title)) else {
        return Err(RecoverError::MissingList {
            id: piece.id.clone(),
            heading: heading_name.into(),
        });
    };
    // After the last non-blank line of the list's own text (before any sub-heading).
    let own_end = doc
        .headings
        .iter()
        .find(|x| x.line.start > h.line.start && x.line.start < h.section.end)
        .map_or(h.section.end, |x| x.line.start);
    let region = &doc.text[h.line.end..own_end];
    let mut at = h.line.end;
    let mut offset = h.line.end;
    for line in region.split_inclusive('\n') {
        offset += line.len();
        if !line.trim().is_empty() {
            at = offset;
        }
    }
    let nl = doc.newline;
    let mut insert = piece.text.clone();
    let mut prefix = String::new();
    if at == h.line.end {
        // The heading line itself has no line end in `line`; step over it.
        at = doc.text[h.line.end..]
            .find('\n')
            .map_or(doc.text.len(), |i| h.line.end + i + 1);
        prefix.push_str(nl);
    } else if !doc.text[..at].ends_with('\n') {
        prefix.push_str(nl);
    }
    if at == doc.text.len() && !insert.ends_with('\n') {
        insert.push_str(nl);
    }
    Ok(splice(&doc.text, at, &format!("{prefix}{insert}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version {
            commit: "abc1234".into(),
            subject: "s".into(),
            date: "2026-10-05T09:00:00Z".into(),
            text: text.into(),
        }
    }

    const OLD: &str = "---\nstatus: executing\nnotes: keep me\n---\n# State\n\n## Accumulated Context\n\n### Decisions\n\n- Use Rust\n- Keep JSON order\n\n### Blockers/Concerns\n\n- Waiting on creds\n\n## Session Continuity\n\nStopped at: x\n";
    const NOW: &str = "---\nstatus: executing\n---\n# State\n\n## Accumulated Context\n\n### Decisions\n\n- Use Rust\n\n## Session Continuity\n\nStopped at: x\n";

    #[test]
    fn finds_and_restores_every_kind() {
        let lost = find_lost(&Document::parse(NOW.into()), &[v(OLD)]);
        let ids: Vec<_> = lost.iter().map(|l| l.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "section:Blockers/Concerns",
                "key:notes",
                "decision:2-72f36e",
                "blocker:1-889084"
            ]
        );
        let all: Vec<String> = ids.iter().map(|s| s.to_string()).collect();
        let restored = restore(NOW, &lost, &all).unwrap();
        assert_eq!(restored, OLD);
    }

    #[test]
    fn bullet_ids_do_not_shift_when_another_piece_is_lost() {
        let before = find_lost(&Document::parse(NOW.into()), &[v(OLD)]);
        // A newer version loses an earlier decision too: walked first, it comes first.
        let newest = NOW.replace("- Use Rust\n", "");
        let after = find_lost(&Document::parse(newest), &[v(NOW), v(OLD)]);
        let id_of = |lost: &[LostPiece], label: &str| {
            lost.iter().find(|l| l.label == label).map(|l| l.id.clone())
        };
        assert_eq!(
            id_of(&after, "Use Rust").as_deref(),
            Some("decision:1-697161")
        );
        for label in ["Keep JSON order", "Waiting on creds"] {
            assert_eq!(id_of(&after, label), id_of(&before, label), "{label}");
        }
    }

    #[test]
    fn unknown_pick_is_refused() {
        let lost = find_lost(&Document::parse(NOW.into()), &[v(OLD)]);
        assert_eq!(
            restore(NOW, &lost, &["section:Nope".into()]),
            Err(RecoverError::UnknownPiece("section:Nope".into()))
        );
    }
}
