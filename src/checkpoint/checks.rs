//! The checks of one PROJECT-CHECKPOINT.md (`docs/checkpoint.md`). Pure: the caller reads the
//! files.

use super::doc::{
    AGENT_SECTIONS, ENV_SECTION, GIT_SECTION, OTHER_SECTIONS, blocks, find, is_placeholder,
    normalize, sections, trim_eol,
};
use super::generate::is_session;
use super::stories::{StoryFile, StoryLookup, cell_key, find_story_table};
use crate::report::Finding;
use std::collections::HashMap;

/// Where the story-id prefix came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "source", content = "prefix")]
pub enum PrefixSource {
    /// `--prefix P` on the command line.
    Flag(String),
    /// The project's `.project.yaml`: its `prefix`, `story_prefix` or `code`, the first present.
    ProjectYaml(String),
    /// The prefix most existing ids share.
    Majority(String),
    /// No prefix is configured and none is shared by most ids.
    Unknown,
}

/// What the checks need besides the checkpoint text.
#[derive(Debug, Clone)]
pub struct Inputs<'a> {
    /// `projects/<id>/` mode (story ids must carry the prefix).
    pub multi_project: bool,
    /// `--prefix` or the `.project.yaml` value, when one is set.
    pub configured_prefix: Option<PrefixSource>,
    /// Every story file (`*.md` under the checkpoint's `stories/` folder), sorted by path.
    pub stories: &'a [StoryFile],
    /// The `.env` bytes, when the file exists (only compared, never shown).
    pub env: Option<&'a [u8]>,
    /// The newest story file, when it changed after the checkpoint.
    pub newer_story: Option<String>,
}

fn section_findings(text: &str, inputs: &Inputs, out: &mut Vec<Finding>) {
    let secs = sections(text);
    let mut missing = 0;
    for (key, heading) in AGENT_SECTIONS {
        if find(&secs, key).is_none() {
            missing += 1;
            out.push(
                Finding::fail(
                    "checkpoint-section-missing",
                    format!("required section `## {heading}` is missing"),
                )
                .hint(format!(
                    "add `## {heading}` (headings match ignoring accents and case)"
                )),
            );
        }
    }
    if missing == 0 {
        out.push(Finding::pass(
            "checkpoint-sections",
            "the six required agent sections are present",
        ));
    }
    let mut generated = vec![GIT_SECTION];
    if inputs.env.is_some() {
        generated.push(ENV_SECTION);
    }
    for (key, heading) in generated {
        if find(&secs, key).is_none() {
            out.push(
                Finding::advisory(
                    "checkpoint-generated-section-missing",
                    format!("generated section `## {heading}` is missing"),
                )
                .hint("planseal checkpoint refresh --write"),
            );
        }
    }
    let mut seen = std::collections::HashSet::new();
    for s in &secs {
        let known = AGENT_SECTIONS.iter().any(|(k, _)| *k == s.key)
            || s.key == GIT_SECTION.0
            || s.key == ENV_SECTION.0
            || OTHER_SECTIONS.contains(&s.key.as_str());
        if known && !seen.insert(s.key.clone()) {
            out.push(
                Finding::advisory(
                    "checkpoint-section-duplicate",
                    format!("section `## {}` appears more than once", s.heading),
                )
                .hint("merge the two sections; tools update only the first"),
            );
        }
    }
    for (key, heading) in AGENT_SECTIONS {
        if let Some(s) = find(&secs, key)
            && is_placeholder(s.body(text))
        {
            out.push(
                Finding::advisory(
                    "checkpoint-section-placeholder",
                    format!("section `## {heading}` holds only a placeholder"),
                )
                .hint("the agent that acted last should fill it in"),
            );
        }
    }
}

/// `**Story X.Y — título** (status):`
fn is_story_line(line: &str) -> bool {
    let t = line.trim();
    let Some(rest) = t.strip_prefix("**Story ") else {
        return false;
    };
    let Some((title, after)) = rest.split_once("**") else {
        return false;
    };
    let dash = title.contains(" — ") || title.contains(" – ") || title.contains(" - ");
    let after = after.trim();
    dash && after.starts_with('(') && after.ends_with("):")
}

fn session_findings(text: &str, out: &mut Vec<Finding>) {
    let secs = sections(text);
    let Some(sec) = find(&secs, AGENT_SECTIONS[4].0) else {
        return;
    };
    let all = blocks(text, sec);
    let sessions: Vec<_> = all.iter().filter(|b| is_session(&b.key)).collect();
    if sessions.len() > 3 {
        out.push(
            Finding::fail(
                "checkpoint-too-many-sessions",
                format!(
                    "`## {}` holds {} sessions; the protocol keeps the 3 most recent",
                    sec.heading,
                    sessions.len()
                ),
            )
            .hint("planseal checkpoint refresh --prune-sessions --write (the removed text goes to the journal)"),
        );
    }
    for b in &all {
        if !is_session(&b.key) {
            out.push(Finding::advisory(
                "checkpoint-session-format",
                format!(
                    "`### {}` in `## {}` is not a `### Sessão <date>` entry",
                    b.heading, sec.heading
                ),
            ));
            continue;
        }
        let mut problems = Vec::new();
        let has_date = b
            .heading
            .split(|c: char| !c.is_ascii_digit())
            .any(|p| p.len() == 4);
        if !has_date {
            problems.push("the heading has no date".to_string());
        }
        let body = &text[b.start..b.end];
        let lines: Vec<&str> = body.lines().skip(1).collect();
        let starts: Vec<usize> = (0..lines.len())
            .filter(|&i| is_story_line(lines[i]))
            .collect();
        if starts.is_empty() {
            problems.push("no `**Story X.Y — título** (status):` line".into());
        }
        for (n, &s) in starts.iter().enumerate() {
            let end = starts.get(n + 1).copied().unwrap_or(lines.len());
            let entry = &lines[s + 1..end];
            let bullets: Vec<String> = entry
                .iter()
                .map(|l| normalize(l.trim_start_matches([' ', '\t'])))
                .collect();
            let raw_bullets = entry
                .iter()
                .filter(|l| l.trim_start().starts_with("- "))
                .count();
            let story = lines[s].trim().trim_end_matches(':');
            if raw_bullets == 0 {
                problems.push(format!("{story} has no bullets"));
            }
            if !bullets.iter().any(|l| l.starts_with("arquivos")) {
                problems.push(format!("{story} has no `- Arquivos:` bullet"));
            }
            if !bullets.iter().any(|l| l.starts_with("testes")) {
                problems.push(format!("{story} has no `- Testes:` bullet"));
            }
        }
        for p in problems {
            out.push(
                Finding::advisory(
                    "checkpoint-session-format",
                    format!("`### {}`: {p}", b.heading),
                )
                .hint("format: ### Sessão <date> / **Story X.Y — título** (status): / - bullets / - Arquivos: … / - Testes: …"),
            );
        }
    }
}

fn next_steps_findings(text: &str, out: &mut Vec<Finding>) {
    let secs = sections(text);
    let Some(sec) = find(&secs, AGENT_SECTIONS[5].0) else {
        return;
    };
    let body = sec.body(text);
    if is_placeholder(body) {
        return;
    }
    let has_checkbox = body.lines().any(|l| {
        let t = l.trim_start();
        let t = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .or_else(|| {
                let digits = t.chars().take_while(char::is_ascii_digit).count();
                (digits > 0)
                    .then(|| t[digits..].strip_prefix(". "))
                    .flatten()
            });
        t.is_some_and(|t| t.starts_with("[ ]") || t.starts_with("[x]") || t.starts_with("[X]"))
    });
    if !has_checkbox {
        out.push(
            Finding::advisory(
                "checkpoint-next-steps-checkbox",
                format!("`## {}` has no checkboxes", sec.heading),
            )
            .hint("write each step as `- [ ] step` so agents can tick it off"),
        );
    }
}

/// The prefix of a story id (`CW` in `CW-3.1`), if it has one.
pub fn id_prefix(id: &str) -> Option<&str> {
    let (p, rest) = id.split_once('-')?;
    let ok = !p.is_empty()
        && p.chars().all(|c| c.is_ascii_alphanumeric())
        && p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && rest.chars().next().is_some_and(|c| c.is_ascii_digit());
    ok.then_some(p)
}

fn story_findings(text: &str, inputs: &Inputs, out: &mut Vec<Finding>) {
    let secs = sections(text);
    let table =
        find(&secs, AGENT_SECTIONS[1].0).and_then(|s| find_story_table(text, s.body_start, s.end));
    let row_ids: Vec<String> = table.as_ref().map(|t| t.ids()).unwrap_or_default();
    // The first row naming each cell (folded as `StoryFile::matches` compares): each story looks
    // its names up instead of scanning the table (stories × rows).
    let mut first_row: HashMap<String, usize> = HashMap::new();
    if let Some(t) = &table {
        for (i, (_, r)) in t.rows.iter().enumerate() {
            if let Some(cell) = t.row_cells(r).get(t.story_col) {
                first_row.entry(cell_key(cell)).or_insert(i);
            }
        }
    }
    let before = out.len();
    for s in inputs.stories {
        let row = table.as_ref().and_then(|t| {
            s.names()
                .iter()
                .filter_map(|name| first_row.get(&name.to_ascii_lowercase()).copied())
                .min()
                .map(|i| &t.rows[i])
        });
        let Some((_, row)) = row else {
            out.push(
                Finding::fail(
                    "checkpoint-story-missing-row",
                    format!("story `{}` has no row in the story table", s.id),
                )
                .file(s.path.display().to_string())
                .hint(
                    "planseal checkpoint refresh --write adds the missing rows (and keeps yours)",
                ),
            );
            continue;
        };
        let t = table
            .as_ref()
            .expect("a row was found, so the table exists");
        if let (Some(col), Some(status)) = (t.status_col, &s.status) {
            let cell = t.row_cells(row).get(col).cloned().unwrap_or_default();
            let (c, st) = (normalize(&cell), normalize(status));
            if !(c == st || (!st.is_empty() && c.contains(&st))) {
                out.push(
                    Finding::advisory(
                        "checkpoint-story-status-differs",
                        format!(
                            "story `{}`: the table says `{cell}`, the story file says `{status}`",
                            s.id
                        ),
                    )
                    .hint("planseal checkpoint refresh --write updates the status cell"),
                );
            }
        }
    }
    let lookup = StoryLookup::new(inputs.stories);
    for id in &row_ids {
        if lookup.find(id).is_none() {
            out.push(
                Finding::advisory(
                    "checkpoint-story-unknown-row",
                    format!("the story table lists `{id}`, but no story file has that id"),
                )
                .hint("create the story file, or mark the row as planned"),
            );
        }
    }
    if out.len() == before && !inputs.stories.is_empty() {
        out.push(Finding::pass(
            "checkpoint-story-table",
            format!(
                "the story table lists all {} story file(s)",
                inputs.stories.len()
            ),
        ));
    }
    if !inputs.multi_project {
        return;
    }
    let mut ids: Vec<&str> = row_ids.iter().map(String::as_str).collect();
    ids.extend(inputs.stories.iter().map(|s| s.id.as_str()));
    if ids.is_empty() {
        return;
    }
    let prefix = match &inputs.configured_prefix {
        Some(PrefixSource::Flag(p) | PrefixSource::ProjectYaml(p)) => Some(p.clone()),
        _ => {
            // Each prefix as first spelled, in order of first appearance (ties keep that order).
            let mut counts: Vec<(String, usize)> = Vec::new();
            let mut slot: HashMap<String, usize> = HashMap::new();
            for id in &ids {
                if let Some(p) = id_prefix(id) {
                    let at = *slot.entry(p.to_ascii_lowercase()).or_insert_with(|| {
                        counts.push((p.to_string(), 0));
                        counts.len() - 1
                    });
                    counts[at].1 += 1;
                }
            }
            counts.sort_by_key(|c| std::cmp::Reverse(c.1));
            match counts.as_slice() {
                [(p, _)] => Some(p.clone()),
                [(p, n), (_, m), ..] if n > m => Some(p.clone()),
                _ => None,
            }
        }
    };
    let Some(prefix) = prefix else {
        out.push(
            Finding::advisory(
                "checkpoint-story-prefix-unknown",
                "story-id prefix check skipped: no prefix is configured and no prefix is shared by most ids",
            )
            .hint("set `prefix:` in the project's .project.yaml, or pass --prefix"),
        );
        return;
    };
    let before = out.len();
    let mut seen = std::collections::HashSet::new();
    for id in ids {
        if !seen.insert(id.to_lowercase()) {
            continue;
        }
        let ok = id_prefix(id).is_some_and(|p| p.eq_ignore_ascii_case(&prefix));
        if !ok {
            out.push(
                Finding::fail(
                    "checkpoint-story-prefix",
                    format!("story id `{id}` lacks the project prefix `{prefix}-`"),
                )
                .hint(format!(
                    "in multi-project mode ids read `{prefix}-<epic>.<story>`"
                )),
            );
        }
    }
    if out.len() == before {
        out.push(Finding::pass(
            "checkpoint-story-prefix",
            format!("story ids carry the project prefix `{prefix}-`"),
        ));
    }
}

/// Keys of `.env` whose value (6 characters or more) appears in the checkpoint. The values are
/// compared here and never leave this function.
fn leaked_keys(env: &[u8], text: &str) -> Vec<String> {
    let env = String::from_utf8_lossy(env);
    let mut out = Vec::new();
    for line in env.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            continue;
        }
        let t = t.strip_prefix("export ").map(str::trim_start).unwrap_or(t);
        let Some((key, value)) = t.split_once('=') else {
            continue;
        };
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
        if value.chars().count() >= 6
            && text.contains(value)
            && !out.iter().any(|k| k == key.trim())
        {
            out.push(key.trim().to_string());
        }
    }
    out
}

fn env_findings(text: &str, inputs: &Inputs, out: &mut Vec<Finding>) {
    let secs = sections(text);
    if let Some(s) = find(&secs, ENV_SECTION.0) {
        let lines_with_values = s
            .body(text)
            .lines()
            .filter(|l| {
                let t = trim_eol(l).trim();
                !t.is_empty() && !normalize(t).starts_with("keys") && t.contains('=')
            })
            .count();
        if lines_with_values > 0 {
            out.push(
                Finding::fail(
                    "checkpoint-env-value-leaked",
                    format!("`## {}` holds {lines_with_values} `KEY=value` line(s); it must list keys only", s.heading),
                )
                .hint("planseal checkpoint refresh --write rewrites it as `Keys: …`; rotate any secret that was committed"),
            );
        }
    }
    if let Some(env) = inputs.env {
        let keys = leaked_keys(env, text);
        if !keys.is_empty() {
            out.push(
                Finding::fail(
                    "checkpoint-env-value-leaked",
                    format!("the value of .env key(s) {} appears in the checkpoint", keys.join(", ")),
                )
                .hint("remove the value from the checkpoint and rotate the secret if it was committed"),
            );
        }
    }
}

/// Every finding for one checkpoint text.
pub fn check_text(text: &str, inputs: &Inputs) -> Vec<Finding> {
    let mut out = Vec::new();
    section_findings(text, inputs, &mut out);
    session_findings(text, &mut out);
    next_steps_findings(text, &mut out);
    story_findings(text, inputs, &mut out);
    env_findings(text, inputs, &mut out);
    if let Some(newer) = &inputs.newer_story {
        out.push(
            Finding::advisory(
                "checkpoint-stale",
                format!("the checkpoint is older than the newest story change ({newer})"),
            )
            .hint("update the story table and `Último Trabalho` (planseal checkpoint refresh --write)"),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Severity;

    fn ids(text: &str, inputs: &Inputs) -> Vec<String> {
        check_text(text, inputs)
            .into_iter()
            .filter(|f| f.severity != Severity::Pass)
            .map(|f| f.id)
            .collect()
    }

    fn plain<'a>() -> Inputs<'a> {
        Inputs {
            multi_project: false,
            configured_prefix: None,
            stories: &[],
            env: None,
            newer_story: None,
        }
    }

    const GOOD: &str = "# Project Checkpoint\n\n## Contexto Ativo\n\nstory 1.1\n\n## Status das Stories\n\n| Story | Status |\n|---|---|\n\n## Decisões Tomadas\n\n- Postgres\n\n## Ambiente Configurado\n\n- deploy: fly\n\n## Último Trabalho Realizado\n\n### Sessão 2026-03-01\n\n**Story 1.1 — Login** (Done):\n- fez o login\n- Arquivos: src/login.rs\n- Testes: 3 novos, 10 total\n\n## Próximos Passos\n\n- [ ] logout\n\n## Git Recente\n(nenhum commit encontrado)\n\nArquivos modificados: 0\n";

    #[test]
    fn a_good_checkpoint_has_no_findings() {
        assert_eq!(ids(GOOD, &plain()), Vec::<String>::new());
    }

    #[test]
    fn missing_sections_and_format() {
        let text = GOOD
            .replace("## Decisões Tomadas", "## Decisions")
            .replace("- [ ] logout", "logout")
            .replace("- Testes: 3 novos, 10 total\n", "");
        assert_eq!(
            ids(&text, &plain()),
            [
                "checkpoint-section-missing",
                "checkpoint-session-format",
                "checkpoint-next-steps-checkbox"
            ]
        );
        let env = b"API_TOKEN=abcdef123456\n";
        let leaked =
            format!("{GOOD}\n## Ambiente Detectado\n\nKeys: API_TOKEN\nAPI_TOKEN=abcdef123456\n");
        let inputs = Inputs {
            env: Some(env),
            ..plain()
        };
        let found = check_text(&leaked, &inputs);
        let leaks: Vec<&Finding> = found
            .iter()
            .filter(|f| f.id == "checkpoint-env-value-leaked")
            .collect();
        assert_eq!(leaks.len(), 2);
        assert!(found.iter().all(|f| !f.message.contains("abcdef123456")));
    }

    #[test]
    fn stories_and_prefixes() {
        let stories = vec![
            StoryFile {
                id: "CW-1.1".into(),
                stem: "1.1".into(),
                status: Some("Done".into()),
                path: "s/1.1.md".into(),
            },
            StoryFile {
                id: "2.1".into(),
                stem: "2.1".into(),
                status: Some("Draft".into()),
                path: "s/2.1.md".into(),
            },
        ];
        let text = GOOD.replace(
            "|---|---|\n",
            "|---|---|\n| CW-1.1 | InProgress |\n| CW-7.7 | Idea |\n",
        );
        let inputs = Inputs {
            multi_project: true,
            stories: &stories,
            ..plain()
        };
        assert_eq!(
            ids(&text, &inputs),
            [
                "checkpoint-story-status-differs",
                "checkpoint-story-missing-row",
                "checkpoint-story-unknown-row",
                "checkpoint-story-prefix"
            ]
        );
        let inputs = Inputs {
            multi_project: true,
            configured_prefix: Some(PrefixSource::ProjectYaml("LMAS".into())),
            stories: &[],
            ..plain()
        };
        assert_eq!(
            ids(&text, &inputs),
            [
                "checkpoint-story-unknown-row",
                "checkpoint-story-unknown-row",
                "checkpoint-story-prefix",
                "checkpoint-story-prefix"
            ]
        );
    }

    #[test]
    fn too_many_sessions() {
        let mut text = GOOD.to_string();
        let extra = "### Sessão 2026-02-0N\n\n**Story 1.0 — Setup** (Done):\n- x\n- Arquivos: a\n- Testes: 0\n\n";
        for n in 1..=3 {
            text = text.replace(
                "## Próximos Passos",
                &format!("{}## Próximos Passos", extra.replace('N', &n.to_string())),
            );
        }
        assert_eq!(ids(&text, &plain()), ["checkpoint-too-many-sessions"]);
    }
}
