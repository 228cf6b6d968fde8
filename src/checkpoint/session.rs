//! A session entry of `## Ultimo Trabalho Realizado`, in the protocol's format (docs/checkpoint.md,
//! "session add"), and where it goes. Pure: the checkpoint text in, the new text out.
//!
//! ```text
//! ### Sessão 2026-10-05
//!
//! **Story CW-3.1 — Login com SSO** (InProgress):
//! - what was done (2–3 bullets)
//! - Arquivos: src/login.rs, src/sso.rs
//! - Testes: 4 novos, 120 total
//! ```
//!
//! A new date opens a new `### Sessão` at the top of the section (the most recent first); a
//! second entry on the same date goes at the end of that date's session. The placeholder body of
//! a fresh checkpoint is replaced.

use super::doc::{self, AGENT_SECTIONS, blocks, find, sections};
use super::generate::is_session;

/// One story's entry of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoryEntry<'a> {
    /// The story id as the user named it (`3.1`, `CW-3.1`).
    pub story: &'a str,
    /// The story's title, from its file.
    pub title: &'a str,
    /// The story's status, from its file.
    pub status: &'a str,
    /// What was done, one bullet each.
    pub did: &'a [String],
    /// The files created or changed.
    pub files: &'a [String],
    /// `(new, total)` tests.
    pub tests: (u64, u64),
}

/// Why the entry cannot be added; the file stays as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The checkpoint has no `## Ultimo Trabalho Realizado` section.
    #[error("the checkpoint has no `## Ultimo Trabalho Realizado` section")]
    SectionMissing,
}

/// The entry's lines (no trailing blank line), `\n` line ends.
pub fn entry_text(e: &StoryEntry<'_>) -> String {
    let mut out = format!("**Story {} — {}** ({}):\n", e.story, e.title, e.status);
    for d in e.did {
        out.push_str(&format!("- {d}\n"));
    }
    out.push_str(&format!("- Arquivos: {}\n", e.files.join(", ")));
    out.push_str(&format!(
        "- Testes: {} novos, {} total\n",
        e.tests.0, e.tests.1
    ));
    out
}

/// The heading of a session on `date` (`YYYY-MM-DD`).
pub fn session_heading(date: &str) -> String {
    format!("### Sessão {date}")
}

/// Whether a session heading names `date` (`YYYY-MM-DD`, or written `DD/MM/YYYY`).
fn names_date(heading: &str, date: &str) -> bool {
    if heading.contains(date) {
        return true;
    }
    let mut parts = date.split('-');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(y), Some(m), Some(d)) => heading.contains(&format!("{d}/{m}/{y}")),
        _ => false,
    }
}

/// What adding did: the new text, and whether the date's session was new.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added {
    /// The whole checkpoint after the addition.
    pub text: String,
    /// A new `### Sessão` was opened (false: the entry joined that date's session).
    pub new_session: bool,
}

/// Adds `entry` to the session of `date` (see the module comment).
pub fn add(text: &str, date: &str, entry: &StoryEntry<'_>) -> Result<Added, SessionError> {
    let nl = doc::newline_of(text);
    let secs = sections(text);
    let sec = find(&secs, AGENT_SECTIONS[4].0).ok_or(SessionError::SectionMissing)?;
    let body = with_newline(&entry_text(entry), nl);
    let all = blocks(text, sec);
    if let Some(b) = all
        .iter()
        .find(|b| is_session(&b.key) && names_date(&b.heading, date))
    {
        // After the session's last line, before its trailing blank lines.
        let content_end = b.start + text[b.start..b.end].trim_end().len();
        let mut out = String::with_capacity(text.len() + body.len() + 4);
        out.push_str(&text[..content_end]);
        out.push_str(nl);
        out.push_str(nl);
        out.push_str(&body);
        out.push_str(after_line_end(&text[content_end..]));
        return Ok(Added {
            text: out,
            new_session: false,
        });
    }
    let session = format!("{}{nl}{nl}{body}", session_heading(date));
    let mut out = String::with_capacity(text.len() + session.len() + 4);
    let section_body = sec.body(text);
    let first_block = all.first().map(|b| b.start);
    if doc::is_placeholder(section_body) {
        // A fresh checkpoint: the placeholder goes.
        out.push_str(&text[..sec.body_start]);
        out.push_str(nl);
        out.push_str(&session);
        out.push_str(nl);
        out.push_str(&text[sec.end..]);
    } else if let Some(at) = first_block {
        // Before the most recent session: the newest comes first.
        out.push_str(&text[..at]);
        out.push_str(&session);
        out.push_str(nl);
        out.push_str(&text[at..]);
    } else {
        // Prose and no session yet: the session follows the prose.
        let content_end = sec.body_start + section_body.trim_end().len();
        out.push_str(&text[..content_end]);
        out.push_str(nl);
        out.push_str(nl);
        out.push_str(&session);
        out.push_str(after_line_end(&text[content_end..]));
    }
    Ok(Added {
        text: out,
        new_session: true,
    })
}

/// `rest` without its first line ending (the text after a line's content).
fn after_line_end(rest: &str) -> &str {
    rest.strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))
        .unwrap_or(rest)
}

fn with_newline(s: &str, nl: &str) -> String {
    if nl == "\n" {
        s.to_string()
    } else {
        s.replace('\n', nl)
    }
}

/// A story's title: the front matter's `title:`, else its first `# ` heading (without a leading
/// `Story X.Y:` / `X.Y —` label), else `None`.
pub fn story_title(text: &str) -> Option<String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) == Some("---") {
        for l in lines.by_ref() {
            if l.trim() == "---" {
                break;
            }
            if let Some((k, v)) = l.split_once(':')
                && k.trim().eq_ignore_ascii_case("title")
            {
                let v = v.trim().trim_matches(|c| c == '"' || c == '\'').trim();
                if !v.is_empty() {
                    return Some(v.to_string());
                }
            }
        }
    }
    let heading = text
        .lines()
        .find_map(|l| crate::markdown::heading(l.trim_end()).filter(|h| h.level == 1))?
        .text;
    // `Story 3.1: Login` / `3.1 — Login` ⇒ `Login`.
    let without_label = heading
        .split_once(": ")
        .or_else(|| heading.split_once(" — "))
        .or_else(|| heading.split_once(" - "))
        .filter(|(label, _)| label.chars().any(|c| c.is_ascii_digit()) && label.len() <= 24)
        .map_or(heading, |(_, rest)| rest);
    Some(without_label.trim().to_string()).filter(|t| !t.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry<'a>(did: &'a [String], files: &'a [String]) -> StoryEntry<'a> {
        StoryEntry {
            story: "3.1",
            title: "Login",
            status: "InProgress",
            did,
            files,
            tests: (4, 120),
        }
    }

    #[test]
    fn a_placeholder_is_replaced_and_the_same_date_joins_its_session() {
        let text = "# C\n\n## Ultimo Trabalho Realizado\n\n(nenhum trabalho registrado)\n\n## Proximos Passos\n\n- [ ] x\n";
        let did = vec!["a".to_string(), "b".to_string()];
        let files = vec!["src/a.rs".to_string()];
        let a = add(text, "2026-10-05", &entry(&did, &files)).unwrap();
        assert!(a.new_session);
        assert_eq!(
            a.text,
            "# C\n\n## Ultimo Trabalho Realizado\n\n### Sessão 2026-10-05\n\n**Story 3.1 — Login** (InProgress):\n- a\n- b\n- Arquivos: src/a.rs\n- Testes: 4 novos, 120 total\n\n## Proximos Passos\n\n- [ ] x\n"
        );
        let b = add(&a.text, "2026-10-05", &entry(&did, &files)).unwrap();
        assert!(!b.new_session);
        assert!(
            b.text.contains(
                "- Testes: 4 novos, 120 total\n\n**Story 3.1 — Login** (InProgress):\n- a\n"
            ),
            "{}",
            b.text
        );
        assert!(
            b.text
                .ends_with("- Testes: 4 novos, 120 total\n\n## Proximos Passos\n\n- [ ] x\n"),
            "{}",
            b.text
        );
        let c = add(&b.text, "2026-10-06", &entry(&did, &files)).unwrap();
        assert!(
            c.text
                .contains("## Ultimo Trabalho Realizado\n\n### Sessão 2026-10-06\n\n**Story"),
            "{}",
            c.text
        );
        assert!(
            c.text.contains("total\n\n### Sessão 2026-10-05\n"),
            "{}",
            c.text
        );
    }

    #[test]
    fn titles_from_front_matter_or_heading() {
        assert_eq!(
            story_title("---\ntitle: \"SSO\"\n---\n# x\n").as_deref(),
            Some("SSO")
        );
        assert_eq!(
            story_title("# Story 3.1: Login com SSO\n").as_deref(),
            Some("Login com SSO")
        );
        assert_eq!(story_title("# Login\n").as_deref(), Some("Login"));
        assert_eq!(story_title("no heading\n"), None);
    }
}
