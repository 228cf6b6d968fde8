//! `checkpoint context`: the session-start summary the protocol's SessionStart hook injects —
//! the active project, the story, the next steps, the last session, and whether the checkpoint
//! is stale (docs/checkpoint.md, "context"). It never refuses for lack of a chosen project: with
//! several projects and none chosen it lists them, as the protocol's hook does.

use super::CheckpointError;
use crate::checkpoint::doc::{self, AGENT_SECTIONS, blocks, find, sections};
use crate::checkpoint::generate::{is_session, session_date};
use crate::checkpoint::layout::{self, LEGACY_DIR, Target};
use crate::checkpoint::locate::{self, ResolveError, shown};
use crate::checkpoint::{gather, read_project_memory};
use crate::report::text::printable;
use crate::report::{Refusal, RefusalKind};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One project of the workspace, for the list shown when none is chosen.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProjectLine {
    /// The project's folder name under `projects/`.
    pub id: String,
    /// The first line of its `## Contexto Ativo`, when it has a checkpoint that says something.
    pub context: Option<String>,
    /// Whether it has a checkpoint.
    pub checkpoint: bool,
}

/// A file that changed after the checkpoint did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct NewerFile {
    /// `story`, `prd`, `architecture`, `adr` or `memory`.
    pub kind: &'static str,
    /// The file, as the user sees it.
    pub path: String,
}

/// The session-start summary.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ContextOutcome {
    /// `project`, `legacy`, or `choose` (several projects, none chosen).
    pub mode: &'static str,
    /// The active project, in multi-project mode.
    pub project: Option<String>,
    /// Every project, when one must be chosen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<ProjectLine>,
    /// The checkpoint, as the user sees it (none when one must be chosen).
    pub file: Option<String>,
    /// Whether the checkpoint exists.
    pub exists: bool,
    /// The value of its `> Ultima atualizacao:` line.
    pub updated: Option<String>,
    /// `## Contexto Ativo`, line by line (placeholders left out).
    pub active_context: Vec<String>,
    /// The stories in progress (from their files), else the one of the last session.
    pub stories: Vec<String>,
    /// The open `- [ ]` items of `## Proximos Passos` (else its lines).
    pub next_steps: Vec<String>,
    /// The most recent `### Sessão` entry, as written.
    pub last_session: Option<String>,
    /// The files that changed after the checkpoint: stories, PRD, architecture, ADRs, memory.
    pub stale: Vec<NewerFile>,
}

/// How many lines of a section the summary shows.
const MAX_LINES: usize = 12;

impl ContextOutcome {
    /// The text the hook injects; control characters escaped, `.env` values not yet hidden.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.mode == "choose" {
            out.push_str("Several projects and none chosen; ask the user which one to work on:\n");
            for p in &self.projects {
                let what = match (&p.context, p.checkpoint) {
                    (Some(c), _) => c.clone(),
                    (None, true) => "(its checkpoint says nothing yet)".into(),
                    (None, false) => "(no checkpoint yet)".into(),
                };
                out.push_str(&format!("  {} — {what}\n", p.id));
            }
            out.push_str("then: planseal checkpoint context --project ID\n");
            return printable(&out).into_owned();
        }
        let file = self.file.as_deref().unwrap_or_default();
        let project = self
            .project
            .as_ref()
            .map(|p| format!("project {p}"))
            .unwrap_or_else(|| format!("legacy {LEGACY_DIR}/"));
        if !self.exists {
            let flag = self
                .project
                .as_ref()
                .map(|p| format!(" --project {p}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "Checkpoint: {file} ({project}) does not exist yet: planseal checkpoint init{flag}\n"
            ));
            return printable(&out).into_owned();
        }
        let updated = self
            .updated
            .as_ref()
            .map(|u| format!(", updated {u}"))
            .unwrap_or_default();
        out.push_str(&format!("Checkpoint: {file} ({project}{updated})\n"));
        let mut list = |title: &str, lines: &[String]| {
            if !lines.is_empty() {
                out.push_str(&format!("{title}:\n"));
                for l in lines {
                    out.push_str(&format!("  {l}\n"));
                }
            }
        };
        list("Active context", &self.active_context);
        list("Story", &self.stories);
        list("Next steps", &self.next_steps);
        if let Some(s) = &self.last_session {
            let lines: Vec<String> = s
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string)
                .collect();
            list("Last session", &lines);
        }
        if self.stale.is_empty() {
            out.push_str(
                "Stale: no story, PRD, architecture, ADR or memory file changed after it\n",
            );
        } else {
            out.push_str(&format!(
                "Stale: {} file(s) changed after the checkpoint:\n",
                self.stale.len()
            ));
            for f in self.stale.iter().take(MAX_LINES) {
                out.push_str(&format!("  {} {}\n", f.kind, f.path));
            }
            if self.stale.len() > MAX_LINES {
                out.push_str(&format!("  … and {} more\n", self.stale.len() - MAX_LINES));
            }
            out.push_str("  update it: planseal checkpoint session add …, planseal checkpoint refresh --write\n");
        }
        printable(&out).into_owned()
    }
}

/// The summary for a session starting in `cwd` (`project`: its `--project`).
pub fn context(cwd: &Path, project: Option<&str>) -> Result<ContextOutcome, CheckpointError> {
    let root = locate::find_root(cwd);
    let target = match locate::resolve(&root, cwd, project) {
        Ok(t) => t,
        Err(ResolveError::Ambiguous { candidates }) => return Ok(choose(&root, candidates)),
        Err(e) => {
            return Err(Refusal::new(
                RefusalKind::UnknownProject,
                format!("{}: {e}", root.display()),
            )
            .hint("pass --project ID with one of the projects listed, or none")
            .into());
        }
    };
    let mut outcome = ContextOutcome {
        mode: if target.project.is_some() {
            "project"
        } else {
            "legacy"
        },
        project: target.project.clone(),
        projects: Vec::new(),
        file: Some(shown(&target.checkpoint, cwd)),
        exists: target.checkpoint.is_file(),
        updated: None,
        active_context: Vec::new(),
        stories: Vec::new(),
        next_steps: Vec::new(),
        last_session: None,
        stale: Vec::new(),
    };
    if !outcome.exists {
        return Ok(outcome);
    }
    let g = gather(&target, None)?;
    let text = String::from_utf8_lossy(&g.bytes);
    let secs = sections(&text);
    outcome.updated = update_line(&text);
    if let Some(s) = find(&secs, AGENT_SECTIONS[0].0) {
        outcome.active_context = content_lines(s.body(&text));
    }
    if let Some(s) = find(&secs, AGENT_SECTIONS[5].0) {
        let lines = content_lines(s.body(&text));
        let open: Vec<String> = lines
            .iter()
            .filter(|l| l.starts_with("- [ ]") || l.starts_with("* [ ]"))
            .cloned()
            .collect();
        outcome.next_steps = if open.is_empty() { lines } else { open };
        outcome.next_steps.truncate(MAX_LINES);
    }
    if let Some(s) = find(&secs, AGENT_SECTIONS[4].0) {
        let latest = blocks(&text, s)
            .into_iter()
            .filter(|b| is_session(&b.key))
            .enumerate()
            .max_by(|(i, a), (j, b)| {
                session_date(&a.heading)
                    .cmp(&session_date(&b.heading))
                    .then(j.cmp(i))
            })
            .map(|(_, b)| text[b.start..b.end].trim_end().to_string());
        outcome.last_session = latest;
    }
    outcome.stories = g
        .stories
        .iter()
        .filter(|s| s.status.as_deref().is_some_and(in_progress))
        .map(|s| format!("{} ({})", s.id, s.status.as_deref().unwrap_or_default()))
        .collect();
    if outcome.stories.is_empty()
        && let Some(line) = outcome
            .last_session
            .as_deref()
            .and_then(|s| s.lines().find(|l| l.trim_start().starts_with("**Story")))
    {
        outcome
            .stories
            .push(line.trim().trim_end_matches(':').replace("**", ""));
    }
    outcome.stale = stale(&target, &g.stories, cwd);
    Ok(outcome)
}

/// Several projects and none chosen: each with the first line of its active context.
fn choose(root: &Path, ids: Vec<String>) -> ContextOutcome {
    let projects = ids
        .into_iter()
        .map(|id| {
            let t = layout::project_target(root, &id);
            let bytes =
                crate::recovery::read::read(&t.checkpoint, crate::recovery::read::Kind::Document)
                    .ok()
                    .flatten();
            let context = bytes.as_ref().and_then(|b| {
                let text = String::from_utf8_lossy(b);
                let secs = sections(&text);
                find(&secs, AGENT_SECTIONS[0].0)
                    .and_then(|s| content_lines(s.body(&text)).into_iter().next())
            });
            ProjectLine {
                id,
                context,
                checkpoint: bytes.is_some(),
            }
        })
        .collect();
    ContextOutcome {
        mode: "choose",
        project: None,
        projects,
        file: None,
        exists: false,
        updated: None,
        active_context: Vec::new(),
        stories: Vec::new(),
        next_steps: Vec::new(),
        last_session: None,
        stale: Vec::new(),
    }
}

/// The non-blank lines of a section body, placeholders left out, at most [`MAX_LINES`].
fn content_lines(body: &str) -> Vec<String> {
    if doc::is_placeholder(body) {
        return Vec::new();
    }
    body.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(MAX_LINES)
        .map(str::to_string)
        .collect()
}

/// The value of the `> Ultima atualizacao:` line.
fn update_line(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let t = l.trim_start();
        (t.starts_with('>') && doc::normalize(t).starts_with("ultima atualizacao"))
            .then(|| t.split_once(':').map(|(_, v)| v.trim().to_string()))
            .flatten()
    })
}

fn in_progress(status: &str) -> bool {
    let n = doc::normalize(status);
    ["inprogress", "in progress", "em andamento", "doing", "wip"]
        .iter()
        .any(|s| n == *s)
}

/// Every story, PRD, architecture, ADR and memory file changed after the checkpoint
/// (modification times; docs/checkpoint.md lists where each kind is looked for).
fn stale(
    target: &Target,
    stories: &[crate::checkpoint::stories::StoryFile],
    cwd: &Path,
) -> Vec<NewerFile> {
    let Some(since) = modified(&target.checkpoint) else {
        return Vec::new();
    };
    let mut found: Vec<(&'static str, PathBuf)> =
        stories.iter().map(|s| ("story", s.path.clone())).collect();
    for (kind, path) in watched(target) {
        collect(&path, kind, 0, &mut found);
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found.dedup_by(|a, b| a.1 == b.1);
    found
        .into_iter()
        .filter(|(_, p)| p != &target.checkpoint && modified(p).is_some_and(|m| m > since))
        .map(|(kind, p)| NewerFile {
            kind,
            path: shown(&p, cwd),
        })
        .collect()
}

/// The documents and memory files the protocol's monitoring scope names, by kind.
fn watched(target: &Target) -> Vec<(&'static str, PathBuf)> {
    let mut out = Vec::new();
    let dir = &target.project_dir;
    if target.project.is_some() {
        out.push(("prd", dir.join("prd")));
        out.push(("architecture", dir.join("architecture")));
        out.push(("adr", dir.join("adr")));
    }
    // `docs/prd*.md`, `docs/architecture*.md`, `docs/adr-*.md` (and the same beside a project's
    // checkpoint).
    for folder in [target.root.join(LEGACY_DIR), dir.clone()] {
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for e in entries.filter_map(Result::ok) {
                let name = e.file_name().to_string_lossy().to_lowercase();
                let kind = if name.starts_with("prd") {
                    "prd"
                } else if name.starts_with("architecture") {
                    "architecture"
                } else if name.starts_with("adr-") || name == "adr" || name == "adrs" {
                    "adr"
                } else {
                    continue;
                };
                out.push((kind, e.path()));
            }
        }
    }
    match read_project_memory(dir) {
        Some(paths) => out.extend(paths.into_iter().map(|p| ("memory", p))),
        None => {
            for base in [&target.root, dir] {
                out.push(("memory", base.join("CLAUDE.md")));
                out.push(("memory", base.join(".claude")));
            }
        }
    }
    out
}

/// The files at `path` (the file itself, or every file under the folder, a few levels deep).
fn collect(path: &Path, kind: &'static str, depth: usize, out: &mut Vec<(&'static str, PathBuf)>) {
    const MAX_DEPTH: usize = 4;
    const MAX_FILES: usize = 5000;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return;
    };
    if meta.is_file() {
        out.push((kind, path.to_path_buf()));
    } else if meta.is_dir() && depth < MAX_DEPTH {
        let Ok(entries) = std::fs::read_dir(path) else {
            return;
        };
        for e in entries.filter_map(Result::ok) {
            if out.len() >= MAX_FILES {
                return;
            }
            collect(&e.path(), kind, depth + 1, out);
        }
    }
}

fn modified(p: &Path) -> Option<SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}
