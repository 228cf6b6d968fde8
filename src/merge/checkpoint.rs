//! `PROJECT-CHECKPOINT.md`, merged by its `## ` sections (`docs/merge.md`):
//!
//! - the generated sections (`## Git Recente`, `## Ambiente Detectado`) are regenerated after
//!   the merge from the repository and the workspace's `.env` keys, as `checkpoint refresh`
//!   writes them (when those cannot be read, they are merged like the others);
//! - `## Último Trabalho Realizado` holds the union of both sides' sessions (a session one side
//!   pruned stays pruned), newest first, the 3 most recent kept;
//! - the `> Ultima atualizacao:` line takes the later date of the two;
//! - every other section is merged line by line.
//!
//! The sections and the generated parts are [`crate::checkpoint`]'s own ([`doc`], [`generate`]).

use super::json::merge_set;
use super::text::{Markers, Sections, merge_lines, merge_sections};
use super::{Inputs, Merged, Sides, later_text};
use crate::checkpoint::doc::{
    self, AGENT_SECTIONS, ENV_SECTION, GIT_SECTION, blocks, lines_with_offsets, normalize, sections,
};
use crate::checkpoint::generate::{self, is_session, session_date, touch_update_line};
use serde_json::Value;

/// What the `> Ultima atualizacao:` value is replaced by while the sections merge, so that the
/// two sides' dates never conflict.
const UPDATE_TOKEN: &str = "\u{0}";

/// The merge (see the module comment); `None` when a side is not UTF-8.
pub fn merge(sides: &Sides<'_>, markers: &Markers, inputs: &Inputs) -> Option<Merged> {
    let text = |b: &[u8]| std::str::from_utf8(b).ok().map(str::to_owned);
    let (ours, theirs) = (text(sides.ours)?, text(sides.theirs)?);
    let base = text(sides.base).unwrap_or_default();
    let markers = markers.for_text(&ours);
    let newline = doc::newline_of(&ours);
    let later_update = match (update_value(&ours), update_value(&theirs)) {
        (Some(o), Some(t)) => Some(if later_text(&o, &t).is_lt() { t } else { o }),
        (o, t) => o.or(t),
    };
    let masked = |t: &str| touch_update_line(t, UPDATE_TOKEN);
    let (b, o, t) = (masked(&base), masked(&ours), masked(&theirs));
    let regenerated = |key: &str| {
        (key == GIT_SECTION.0 && inputs.git.is_some())
            || (key == ENV_SECTION.0 && inputs.env_keys.is_some())
    };
    let mut notes = Vec::new();
    let merged = merge_sections(&cut(&b), &cut(&o), &cut(&t), newline, |key, bs, os, ts| {
        let key = key.split('\u{0}').next().unwrap_or(key);
        let (bs, os, ts) = (bs.unwrap_or(""), os.unwrap_or(""), ts.unwrap_or(""));
        if regenerated(key) {
            return Some(os.to_string());
        }
        if key == AGENT_SECTIONS[4].0
            && let Some(union) = sessions_union(bs, os, ts, newline)
        {
            return Some(union);
        }
        let m = merge_lines(bs, os, ts, &markers);
        if m.conflicts > 0 {
            notes.push(format!(
                "section `{}` was changed differently on both sides",
                if key.is_empty() {
                    "(before the first section)"
                } else {
                    key
                }
            ));
        }
        Some(m.text)
    });
    let mut merged = match &later_update {
        Some(v) => touch_update_line(&merged, v),
        None => merged,
    };
    if !notes.is_empty() {
        return Some(Merged::conflicted(merged.into_bytes(), notes));
    }
    let refreshed = generate::refresh(
        &merged,
        &generate::Inputs {
            git: inputs.git.as_ref(),
            env_keys: inputs.env_keys.as_deref(),
            stories: &[],
            prune_sessions: false,
            now: later_update.as_deref().unwrap_or(""),
        },
    );
    if let Ok((text, _)) = refreshed {
        merged = text;
    }
    Some(Merged::clean(merged.into_bytes()))
}

/// The value of the `> Ultima atualizacao:` line, when there is one.
fn update_value(text: &str) -> Option<String> {
    lines_with_offsets(text).find_map(|(_, line)| {
        let bare = doc::trim_eol(line);
        (bare.trim_start().starts_with('>') && normalize(bare).starts_with("ultima atualizacao"))
            .then(|| bare.split_once(':').map(|(_, v)| v.trim().to_string()))
            .flatten()
    })
}

/// The text cut at its `## ` headings: (normalised heading with its occurrence number, text);
/// the text before the first heading has the key "".
fn cut(text: &str) -> Sections {
    let secs = sections(text);
    let mut out: Sections = Vec::new();
    let first = secs.first().map_or(text.len(), |s| s.start);
    if first > 0 {
        out.push((String::new(), text[..first].to_string()));
    }
    for s in &secs {
        let seen = out
            .iter()
            .filter(|(k, _)| k.split('\u{0}').next() == Some(s.key.as_str()))
            .count();
        out.push((
            format!("{}\u{0}{seen}", s.key),
            text[s.start..s.end].to_string(),
        ));
    }
    out
}

/// The sessions section both sides changed: ours' heading and text before the first session
/// (merged line by line when both changed it without conflict), then the 3-way union of the
/// sessions, newest first. `None` when the text before the sessions conflicts or a block is not
/// a session.
fn sessions_union(base: &str, ours: &str, theirs: &str, newline: &str) -> Option<String> {
    // Each side's part before its first block, and its blocks (trailing blank lines trimmed).
    let split = |text: &str| -> Option<(String, Vec<Value>, String)> {
        let secs = sections(text);
        let sec = secs.first()?;
        let found = blocks(text, sec);
        if found.iter().any(|b| !is_session(&b.key)) {
            return None;
        }
        let intro_end = found.first().map_or(sec.end, |b| b.start);
        let last_end = found.last().map_or(sec.end, |b| b.end);
        let body = text[..last_end].trim_end().len();
        let trailing = text[body..].to_string();
        let blocks = found
            .iter()
            .map(|b| Value::String(text[b.start..b.end].trim_end().to_string()))
            .collect();
        Some((text[..intro_end].to_string(), blocks, trailing))
    };
    let (oi, ob, otail) = split(ours)?;
    let (ti, tb, _) = split(theirs)?;
    let (bi, bb) = split(base).map_or((String::new(), Vec::new()), |(i, b, _)| (i, b));
    let intro = merge_lines(&bi, &oi, &ti, &Markers::default());
    if intro.conflicts > 0 {
        return None;
    }
    let mut union = merge_set(&bb, &ob, &tb);
    let date = |v: &Value| {
        v.as_str()
            .and_then(|s| s.lines().next())
            .and_then(session_date)
    };
    // Newest first, on equal dates ours' order (a stable sort); the 3 most recent stay, as
    // `checkpoint refresh --prune-sessions` keeps them (without dates nothing can be pruned).
    union.sort_by_key(|v| std::cmp::Reverse(date(v)));
    if union.iter().all(|v| date(v).is_some()) {
        union.truncate(3);
    }
    let mut out = intro.text;
    let sep = format!("{newline}{newline}");
    let bodies: Vec<&str> = union.iter().filter_map(Value::as_str).collect();
    out.push_str(&bodies.join(&sep));
    out.push_str(if otail.is_empty() { newline } else { &otail });
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# Project Checkpoint\n\n> Ultima atualizacao: 2026-03-02\n\n## Contexto Ativo\n\nStory 1.2.\n\n## Último Trabalho Realizado\n\n### Sessão 2026-03-02\n\n- a\n\n### Sessão 2026-03-01\n\n- b\n\n## Próximos Passos\n\n- [ ] x\n";

    fn run(base: &str, ours: &str, theirs: &str) -> Merged {
        merge(
            &Sides::texts(base, ours, theirs),
            &Markers::default(),
            &Inputs::default(),
        )
        .expect("UTF-8")
    }

    #[test]
    fn sessions_of_both_sides_are_kept_newest_first_and_pruned_to_three() {
        let ours = BASE
            .replace(
                "> Ultima atualizacao: 2026-03-02",
                "> Ultima atualizacao: 2026-03-04",
            )
            .replace(
                "## Último Trabalho Realizado\n\n",
                "## Último Trabalho Realizado\n\n### Sessão 2026-03-04\n\n- o\n\n",
            );
        let theirs = BASE
            .replace(
                "> Ultima atualizacao: 2026-03-02",
                "> Ultima atualizacao: 2026-03-03",
            )
            .replace(
                "## Último Trabalho Realizado\n\n",
                "## Último Trabalho Realizado\n\n### Sessão 2026-03-03\n\n- t\n\n",
            );
        let m = run(BASE, &ours, &theirs);
        assert!(m.is_clean(), "{:?}", m.notes);
        assert_eq!(
            String::from_utf8(m.bytes).unwrap(),
            "# Project Checkpoint\n\n> Ultima atualizacao: 2026-03-04\n\n## Contexto Ativo\n\nStory 1.2.\n\n## Último Trabalho Realizado\n\n### Sessão 2026-03-04\n\n- o\n\n### Sessão 2026-03-03\n\n- t\n\n### Sessão 2026-03-02\n\n- a\n\n## Próximos Passos\n\n- [ ] x\n"
        );
    }
}
