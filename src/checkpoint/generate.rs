//! The generated parts of a checkpoint (`docs/checkpoint.md`), computed without I/O: `## Git
//! Recente`, `## Ambiente Detectado`, the story table refresh, session pruning, the `> Ultima
//! atualizacao:` line and the `init` skeleton. Everything not regenerated stays byte for byte.

use super::doc::{
    self, AGENT_SECTIONS, ENV_SECTION, GIT_SECTION, blocks, find, normalize, sections,
};
use super::stories::{StoryFile, find_story_table};

/// What `## Git Recente` shows, read from the repository by the caller.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct GitSummary {
    /// The last commits, newest first: (short hash, subject).
    pub commits: Vec<(String, String)>,
    /// `None` when HEAD is detached.
    pub branch: Option<String>,
    /// Tracked files with unstaged changes.
    pub modified: usize,
}

/// The keys of a `.env` file, each once, in the order of their first assignment
/// ([`crate::dotenv::keys`]). The value part of a line is never kept.
pub fn env_keys(bytes: &[u8]) -> Vec<String> {
    crate::dotenv::keys(bytes)
}

/// The body of `## Git Recente` (no blank line after the heading), `\n` line ends.
pub fn git_body(git: Option<&GitSummary>) -> String {
    let mut out = String::new();
    let empty = GitSummary::default();
    let git = git.unwrap_or(&empty);
    if git.commits.is_empty() {
        out.push_str("(nenhum commit encontrado)\n");
    }
    for (short, subject) in git.commits.iter().take(5) {
        out.push_str(&format!("- `{short} {subject}`\n"));
    }
    out.push('\n');
    if let Some(b) = &git.branch {
        out.push_str(&format!("Branch: `{b}`\n"));
    }
    out.push_str(&format!("Arquivos modificados: {}\n", git.modified));
    out
}

/// The body of `## Ambiente Detectado` (a blank line after the heading): keys only.
pub fn env_body(keys: &[String]) -> String {
    if keys.is_empty() {
        "\nKeys: (nenhuma)\n".into()
    } else {
        format!("\nKeys: {}\n", keys.join(", "))
    }
}

/// Splits a section's text into its content and the blank lines that follow it.
fn split_trailing_blank(s: &str) -> (&str, &str) {
    let content_end = s.trim_end().len();
    match s[content_end..].find('\n') {
        Some(nl) => s.split_at(content_end + nl + 1),
        None => (s, ""),
    }
}

fn with_newline(s: &str, nl: &str) -> String {
    if nl == "\n" {
        s.to_string()
    } else {
        s.replace('\n', nl)
    }
}

/// Rewrites the section with key `key` in place (heading line kept as written, the blank lines
/// after it kept), or appends `## {heading}` at the end when absent.
fn put_section(text: &str, key: &str, heading: &str, body: &str) -> String {
    let nl = doc::newline_of(text);
    let body = with_newline(body, nl);
    let secs = sections(text);
    if let Some(s) = find(&secs, key) {
        let heading_line = &text[s.start..s.body_start];
        let heading_line = if heading_line.ends_with('\n') {
            heading_line.to_string()
        } else {
            format!("{heading_line}{nl}")
        };
        let (_, trailing) = split_trailing_blank(&text[s.start..s.end]);
        let trailing = if trailing.is_empty() && s.end < text.len() {
            nl
        } else {
            trailing
        };
        return format!(
            "{}{heading_line}{body}{trailing}{}",
            &text[..s.start],
            &text[s.end..]
        );
    }
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(nl);
    }
    if !out.is_empty() && !out.ends_with(&format!("{nl}{nl}")) {
        out.push_str(nl);
    }
    out.push_str(&format!("## {heading}{nl}{body}"));
    out
}

/// What a refresh changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Changes {
    /// The ids of the stories that got a new row in the story table.
    pub rows_added: Vec<String>,
    /// (story, old status cell, new status).
    pub statuses_updated: Vec<(String, String, String)>,
    /// The generated sections whose body changed where they stand (`Git Recente`, `Ambiente
    /// Detectado`).
    pub sections_rewritten: Vec<String>,
    /// The generated sections that were absent and were appended at the end.
    pub sections_added: Vec<String>,
    /// The exact text of each pruned session (for the journal).
    pub sessions_removed: Vec<String>,
}

/// Why a refresh cannot be computed; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefreshError {
    /// `--prune-sessions` cannot order the sessions: this `###` heading (the value) carries no
    /// date.
    #[error(
        "cannot tell which sessions are the most recent: `### {0}` has no date (YYYY-MM-DD or DD/MM/YYYY)"
    )]
    SessionWithoutDate(String),
}

/// A refresh request.
#[derive(Debug, Clone, Default)]
pub struct Inputs<'a> {
    /// `None` leaves `## Git Recente` alone (the repository could not be read).
    pub git: Option<&'a GitSummary>,
    /// `None` when there is no `.env` (the section is then left alone).
    pub env_keys: Option<&'a [String]>,
    /// The story files, each of which must have a row in the story table.
    pub stories: &'a [StoryFile],
    /// Remove the sessions beyond the 3 most recent (by the date in their heading).
    pub prune_sessions: bool,
    /// Written into an existing `> Ultima atualizacao:` line when anything else changed.
    pub now: &'a str,
}

fn status_matches(cell: &str, status: &str) -> bool {
    let c = normalize(cell);
    let s = normalize(status);
    c == s || (!s.is_empty() && c.contains(&s))
}

fn refresh_story_table(text: &str, stories: &[StoryFile], changes: &mut Changes) -> String {
    let secs = sections(text);
    let Some(sec) = find(&secs, AGENT_SECTIONS[1].0) else {
        return text.to_string();
    };
    let nl = doc::newline_of(text);
    let Some(table) = find_story_table(text, sec.body_start, sec.end) else {
        if stories.is_empty() {
            return text.to_string();
        }
        let mut t = format!("| Story | Status |{nl}|-------|--------|{nl}");
        for s in stories {
            t.push_str(&format!(
                "| {} | {} |{nl}",
                s.id,
                s.status.as_deref().unwrap_or("")
            ));
            changes.rows_added.push(s.id.clone());
        }
        let (content, trailing) = split_trailing_blank(sec.body(text));
        let new_body = if doc::is_placeholder(content) {
            format!("{nl}{t}")
        } else {
            format!("{content}{nl}{t}")
        };
        let trailing = if trailing.is_empty() && sec.end < text.len() {
            nl
        } else {
            trailing
        };
        return format!(
            "{}{new_body}{trailing}{}",
            &text[..sec.body_start],
            &text[sec.end..]
        );
    };
    let mut out = String::with_capacity(text.len() + 256);
    let mut cursor = 0;
    let mut matched = vec![false; stories.len()];
    let lookup = super::stories::StoryLookup::new(stories);
    for (at, row) in &table.rows {
        let cells = super::stories::cells(row);
        let Some(&(sa, sb)) = cells.get(table.story_col) else {
            continue;
        };
        let id = row[sa..sb].trim();
        let Some(si) = lookup.find(id) else {
            continue;
        };
        matched[si] = true;
        let (Some(col), Some(status)) = (table.status_col, stories[si].status.as_deref()) else {
            continue;
        };
        let Some(&(a, b)) = cells.get(col) else {
            continue;
        };
        let raw = &row[a..b];
        if status_matches(raw, status) {
            continue;
        }
        let lead = &raw[..raw.len() - raw.trim_start().len()];
        let tail = &raw[raw.trim_end().len()..];
        let lead = if lead.is_empty() { " " } else { lead };
        let tail = if tail.is_empty() { " " } else { tail };
        out.push_str(&text[cursor..at + a]);
        out.push_str(&format!("{lead}{status}{tail}"));
        cursor = at + b;
        changes
            .statuses_updated
            .push((id.to_string(), raw.trim().to_string(), status.to_string()));
    }
    out.push_str(&text[cursor..table.end]);
    if !out.ends_with('\n') {
        out.push_str(nl);
    }
    for (s, was) in stories.iter().zip(&matched) {
        if *was {
            continue;
        }
        let mut cells = vec![String::new(); table.header.len().max(1)];
        cells[table.story_col] = s.id.clone();
        if let (Some(col), Some(st)) = (table.status_col, &s.status)
            && col < cells.len()
        {
            cells[col] = st.clone();
        }
        out.push_str(&format!("| {} |{nl}", cells.join(" | ")));
        changes.rows_added.push(s.id.clone());
    }
    out.push_str(&text[table.end..]);
    out
}

/// A session heading's date as a sortable (y, m, d).
pub fn session_date(heading: &str) -> Option<(u32, u32, u32)> {
    let digits: Vec<&str> = heading
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .collect();
    for w in digits.windows(3) {
        let n: Vec<u32> = w.iter().filter_map(|p| p.parse().ok()).collect();
        if n.len() != 3 {
            continue;
        }
        if w[0].len() == 4 && (1..=12).contains(&n[1]) && (1..=31).contains(&n[2]) {
            return Some((n[0], n[1], n[2]));
        }
        if w[2].len() == 4 && (1..=12).contains(&n[1]) && (1..=31).contains(&n[0]) {
            return Some((n[2], n[1], n[0]));
        }
    }
    None
}

/// Is this `### ` block a session entry?
pub fn is_session(key: &str) -> bool {
    key.starts_with("sessao") || key.starts_with("session")
}

/// Removes the sessions beyond the 3 most recent (by the date in their heading); their exact
/// text goes into `changes.sessions_removed`.
pub fn prune(text: &str, changes: &mut Changes) -> Result<String, RefreshError> {
    let secs = sections(text);
    let Some(sec) = find(&secs, AGENT_SECTIONS[4].0) else {
        return Ok(text.to_string());
    };
    let sessions: Vec<_> = blocks(text, sec)
        .into_iter()
        .filter(|b| is_session(&b.key))
        .collect();
    if sessions.len() <= 3 {
        return Ok(text.to_string());
    }
    let mut dated = Vec::new();
    for (i, b) in sessions.iter().enumerate() {
        let d = session_date(&b.heading)
            .ok_or_else(|| RefreshError::SessionWithoutDate(b.heading.clone()))?;
        dated.push((d, i));
    }
    // Most recent first; on equal dates the one written higher up counts as newer.
    dated.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut remove: Vec<usize> = dated[3..].iter().map(|x| x.1).collect();
    remove.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for i in remove {
        let b = &sessions[i];
        let mut end = b.end;
        if end == sec.end {
            // keep the blank lines that separate the section from the next one
            let (content, _) = split_trailing_blank(&text[b.start..b.end]);
            end = b.start + content.len();
        }
        changes
            .sessions_removed
            .push(text[b.start..end].to_string());
        out.push_str(&text[cursor..b.start]);
        cursor = end;
    }
    out.push_str(&text[cursor..]);
    Ok(out)
}

/// Rewrites the value of an existing `> Ultima atualizacao:` line (the line's style kept).
pub fn touch_update_line(text: &str, now: &str) -> String {
    for (at, line) in doc::lines_with_offsets(text) {
        let bare = doc::trim_eol(line);
        if !bare.trim_start().starts_with('>') {
            continue;
        }
        if !normalize(bare).starts_with("ultima atualizacao") {
            continue;
        }
        let Some(colon) = bare.find(':') else {
            continue;
        };
        let old_value = bare[colon + 1..].trim();
        // keep a date-only line date-only
        let value = if old_value.len() == 10 && now.len() >= 10 {
            &now[..10]
        } else {
            now
        };
        let eol = &line[bare.len()..];
        return format!(
            "{}{} {value}{eol}{}",
            &text[..at],
            &bare[..=colon],
            &text[at + line.len()..]
        );
    }
    text.to_string()
}

/// The whole refresh. Sections other than the generated ones and the story table are kept
/// byte for byte; the update line changes only when something else did.
pub fn refresh(text: &str, inputs: &Inputs) -> Result<(String, Changes), RefreshError> {
    let mut changes = Changes::default();
    let mut out = refresh_story_table(text, inputs.stories, &mut changes);
    if inputs.prune_sessions {
        out = prune(&out, &mut changes)?;
    }
    let generated = [
        (GIT_SECTION, inputs.git.map(|g| git_body(Some(g)))),
        (ENV_SECTION, inputs.env_keys.map(env_body)),
    ];
    for ((key, heading), body) in generated {
        let Some(body) = body else { continue };
        let existed = find(&sections(&out), key).is_some();
        let next = put_section(&out, key, heading, &body);
        if next != out {
            if existed {
                changes.sections_rewritten.push(heading.to_string());
            } else {
                changes.sections_added.push(heading.to_string());
            }
            out = next;
        }
    }
    if out != text {
        out = touch_update_line(&out, inputs.now);
    }
    Ok((out, changes))
}

/// The standard checkpoint a project gets when it has none (`checkpoint init`).
pub fn skeleton(inputs: &Inputs) -> String {
    let mut out = format!(
        "# Project Checkpoint\n\n> Ultima atualizacao: {}\n",
        inputs.now
    );
    let placeholders = [
        "(atualizado pelos agentes)",
        "(nenhuma story encontrada)",
        "(nenhuma decisao registrada)",
        "(atualizado pelos agentes)",
        "(nenhum trabalho registrado)",
        "(atualizado pelos agentes)",
    ];
    for ((_, heading), placeholder) in AGENT_SECTIONS.iter().zip(placeholders) {
        out.push_str(&format!("\n## {heading}\n\n{placeholder}\n"));
    }
    out.push_str(&format!("\n## {}\n{}", GIT_SECTION.1, git_body(inputs.git)));
    if let Some(keys) = inputs.env_keys {
        out.push_str(&format!("\n## {}\n{}", ENV_SECTION.1, env_body(keys)));
    }
    let (with_table, _) = (
        refresh_story_table(&out, inputs.stories, &mut Changes::default()),
        (),
    );
    with_table
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::PathBuf;

    fn story(id: &str, status: &str) -> StoryFile {
        StoryFile {
            id: id.into(),
            stem: id.into(),
            status: Some(status.into()),
            path: PathBuf::new(),
        }
    }

    #[test]
    fn env_keys_never_values() {
        let keys = env_keys(b"# comment\n\nexport API_KEY=sk-secret\nDB_URL = postgres://u:p@h/db\nAPI_KEY=again\n  PORT=80  \nnot a line\n=novalue\n");
        assert_eq!(keys, ["API_KEY", "DB_URL", "PORT"]);
    }

    #[test]
    fn git_section_layout() {
        let g = GitSummary {
            commits: vec![
                ("abc1234".into(), "first".into()),
                ("def5678".into(), "second".into()),
            ],
            branch: Some("main".into()),
            modified: 2,
        };
        let text = "# C\n\n## Git Recente\nold\n\n## Ambiente Detectado\n\nKeys: OLD\n";
        let keys = vec!["A".to_string(), "B".to_string()];
        let (out, ch) = refresh(
            text,
            &Inputs {
                git: Some(&g),
                env_keys: Some(&keys),
                now: "2026-01-02",
                ..Default::default()
            },
        )
        .expect("refresh");
        assert_eq!(
            out,
            "# C\n\n## Git Recente\n- `abc1234 first`\n- `def5678 second`\n\nBranch: `main`\nArquivos modificados: 2\n\n## Ambiente Detectado\n\nKeys: A, B\n"
        );
        assert_eq!(ch.sections_rewritten, ["Git Recente", "Ambiente Detectado"]);
        let detached = GitSummary {
            commits: vec![],
            branch: None,
            modified: 0,
        };
        assert_eq!(
            git_body(Some(&detached)),
            "(nenhum commit encontrado)\n\nArquivos modificados: 0\n"
        );
    }

    #[test]
    fn absent_generated_sections_are_appended_and_update_line_touched() {
        let text = "# C\n\n> Ultima atualizacao: 2020-01-01\n\n## Contexto Ativo\n\nx\n";
        let keys = vec!["K".to_string()];
        let none = GitSummary::default();
        let (out, _) = refresh(
            text,
            &Inputs {
                git: Some(&none),
                env_keys: Some(&keys),
                now: "2026-03-04T05:06:07Z",
                ..Default::default()
            },
        )
        .expect("refresh");
        assert_eq!(
            out,
            "# C\n\n> Ultima atualizacao: 2026-03-04\n\n## Contexto Ativo\n\nx\n\n## Git Recente\n(nenhum commit encontrado)\n\nArquivos modificados: 0\n\n## Ambiente Detectado\n\nKeys: K\n"
        );
        let (again, ch) = refresh(
            &out,
            &Inputs {
                git: Some(&none),
                env_keys: Some(&keys),
                now: "2027-01-01T00:00:00Z",
                ..Default::default()
            },
        )
        .expect("refresh");
        assert_eq!(
            again, out,
            "a second refresh with the same inputs changes nothing"
        );
        assert_eq!(ch, Changes::default());
    }

    #[test]
    fn rich_table_keeps_rows_and_columns() {
        let text = "## Status das Stories\n\n| Story | Título | Status | Dono |\n|---|---|---|---|\n| CW-1.1 | Login | ✅ Done | ana |\n| CW-1.2 | Logout | Draft | rui |\n| CW-9.9 | planejada | Idea | - |\n\n## Totais\n";
        let stories = [
            story("CW-1.1", "Done"),
            story("CW-1.2", "InProgress"),
            story("CW-1.3", "Draft"),
        ];
        let (out, ch) = refresh(
            text,
            &Inputs {
                stories: &stories,
                ..Default::default()
            },
        )
        .expect("refresh");
        assert!(out.starts_with("## Status das Stories\n\n| Story | Título | Status | Dono |\n|---|---|---|---|\n| CW-1.1 | Login | ✅ Done | ana |\n| CW-1.2 | Logout | InProgress | rui |\n| CW-9.9 | planejada | Idea | - |\n| CW-1.3 |  | Draft |  |\n\n## Totais\n"), "{out}");
        assert_eq!(ch.rows_added, ["CW-1.3"]);
        assert_eq!(
            ch.statuses_updated,
            [(
                "CW-1.2".to_string(),
                "Draft".to_string(),
                "InProgress".to_string()
            )]
        );
    }

    #[test]
    fn prune_keeps_three_most_recent_and_records_the_rest() {
        let text = "## Ultimo Trabalho Realizado\n\n### Sessão 2026-03-04\nd\n\n### Sessão 2026-03-01\na\n\n### Sessão 03/03/2026\nc\n\n### Sessão 2026-03-02\nb\n\n## Proximos Passos\n- [ ] x\n";
        let (out, ch) = refresh(
            text,
            &Inputs {
                prune_sessions: true,
                git: None,
                ..Default::default()
            },
        )
        .expect("refresh");
        assert!(out.starts_with("## Ultimo Trabalho Realizado\n\n### Sessão 2026-03-04\nd\n\n### Sessão 03/03/2026\nc\n\n### Sessão 2026-03-02\nb\n\n## Proximos Passos\n"), "{out}");
        assert_eq!(ch.sessions_removed, ["### Sessão 2026-03-01\na\n\n"]);
        let undated = "## Ultimo Trabalho Realizado\n### Sessão a\n### Sessão b\n### Sessão c\n### Sessão d\n";
        assert!(
            refresh(
                undated,
                &Inputs {
                    prune_sessions: true,
                    ..Default::default()
                }
            )
            .is_err()
        );
    }

    #[test]
    fn crlf_files_get_crlf() {
        let text = "# C\r\n\r\n## Git Recente\r\nold\r\n";
        let none = GitSummary::default();
        let (out, _) = refresh(
            text,
            &Inputs {
                git: Some(&none),
                ..Default::default()
            },
        )
        .expect("refresh");
        assert_eq!(
            out,
            "# C\r\n\r\n## Git Recente\r\n(nenhum commit encontrado)\r\n\r\nArquivos modificados: 0\r\n"
        );
    }

    proptest! {
        // Whatever a .env holds, the keys never carry any part of a value.
        #[test]
        fn env_keys_hold_no_value(lines in proptest::collection::vec(("(export )?[A-Za-z_][A-Za-z0-9_]{0,6}", " ?= ?", "[a-z0-9=#\\- ]{0,10}"), 0..10)) {
            let text: String = lines.iter().map(|(k, sep, v)| format!("{k}{sep}{v}\n")).collect();
            for key in env_keys(text.as_bytes()) {
                prop_assert!(!key.contains('=') && !key.contains(' '));
                prop_assert!(lines.iter().any(|(k, _, _)| k.trim_start_matches("export ") == key));
            }
        }

        // Whatever the table and the story files, every original row keeps its story cell and
        // every cell but the status cell, and no column is lost.
        #[test]
        fn table_refresh_never_drops(
            rows in proptest::collection::vec(("[A-Z]{1,3}-[0-9]\\.[0-9]", "[a-z ]{0,6}", "[A-Za-z]{1,8}"), 0..6),
            files in proptest::collection::vec(("[A-Z]{1,3}-[0-9]\\.[0-9]", "[A-Za-z]{1,8}"), 0..6),
        ) {
            let mut text = String::from("# C\n\n## Status das Stories\n\n| Story | Notes | Status | Extra |\n|---|---|---|---|\n");
            for (id, note, st) in &rows {
                text.push_str(&format!("| {id} | {note} | {st} | keep |\n"));
            }
            text.push_str("\n## Proximos Passos\n\n- [ ] x\n");
            let stories: Vec<StoryFile> = files.iter().map(|(id, st)| story(id, st)).collect();
            let (out, _) = refresh(&text, &Inputs { stories: &stories, ..Default::default() }).expect("refresh");
            let secs = sections(&out);
            let sec = find(&secs, "status das stories").expect("section kept");
            let table = find_story_table(&out, sec.body_start, sec.end).expect("table kept");
            prop_assert_eq!(&table.header, &vec!["Story".to_string(), "Notes".into(), "Status".into(), "Extra".into()]);
            for (i, (id, note, _)) in rows.iter().enumerate() {
                let cells = table.row_cells(&table.rows[i].1);
                prop_assert_eq!(&cells[0], id);
                prop_assert_eq!(&cells[1], &note.trim().to_string());
                prop_assert_eq!(&cells[3], "keep");
            }
            prop_assert!(table.rows.len() >= rows.len());
            prop_assert!(out.ends_with("\n## Proximos Passos\n\n- [ ] x\n"));
        }
    }
}
