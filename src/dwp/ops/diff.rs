//! `diff`: what changed and what disagrees — state.json against the markdown
//! ([`state_vs_markdown`]), the plan's files at a revision against now ([`against`]), or a
//! candidate state against the current one ([`candidate`]). Text, markdown (for a pull-request
//! comment) and JSON are forms of one [`DiffOutcome`].
//!
//! An outcome holds plan text as it is: whoever shows it hides the project's `.env` values first.

use super::{OpError, paint};
use crate::dwp::decide::rebuild::gather;
use crate::dwp::history::diff::{
    Disagreement, FileDiff, GitDisagreement, PublishedFile, StateChange, file_diff,
    git_disagreements, published_change, state_changes, state_vs_markdown as compare,
};
use crate::dwp::history::{CheckMode, CrossCheck, cross_checks};
use crate::dwp::layout;
use crate::dwp::locate::{Git, GitProgress, open_plan};
use crate::dwp::model::State;
use crate::dwp::model::fingerprint::{self, FileHashes};
use crate::dwp::model::parse_json;
use crate::dwp::model::receipt::Receipt;
use crate::dwp::read::read_plan_file;
use crate::recovery::git::Repo;
use crate::recovery::hash::sha256_hex;
use crate::report::HintedError;
use planseal_recovery::read::Kind;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// `planseal diff PLAN_DIR [--against REV | --candidate FILE]`.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// The directory the command runs in; relative paths are taken from here.
    pub cwd: PathBuf,
    /// The plan folder as given.
    pub plan_dir: PathBuf,
    /// What the plan is compared with.
    pub mode: DiffMode,
}

/// What the plan is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffMode {
    /// state.json against the README and the task logs.
    StateVsMarkdown,
    /// The plan's files at this revision against the files now.
    Against(String),
    /// This candidate state.json (as given, relative to the working directory) against the
    /// current one.
    Candidate(PathBuf),
    /// Every file the receipt covers against the hash it recorded at publication, with the
    /// line diff where git holds the published bytes.
    SincePublication,
}

/// What one diff found (the `--json` document).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DiffOutcome {
    /// The plan folder's name (`PLAN_x`).
    pub plan: String,
    /// `state-vs-markdown`, `against`, `candidate`, `since-publication`.
    pub mode: &'static str,
    /// The revision compared with, as given (`against` mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against: Option<String>,
    /// The candidate file, as the working directory resolves it (`candidate` mode only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidate: Option<String>,
    /// What state.json and the markdown disagree on (`state-vs-markdown` mode).
    pub disagreements: Vec<Disagreement>,
    /// The semantic changes of state.json from the revision or the current state to now or the
    /// candidate (`against` and `candidate` modes).
    pub state_changes: Vec<StateChange>,
    /// The text diff of every plan file that differs (in `candidate` mode: state.json only).
    pub files: Vec<FileDiff>,
    /// What git and the plan disagree on (`state-vs-markdown` mode, in a repository): the
    /// findings of the history checks, under their ids.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub git: Vec<GitDisagreement>,
    /// Every file the receipt covers, compared with its recorded hash (`since-publication`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<PublishedFile>,
    /// What could not be told, said once each: history beyond a shallow clone, a repository
    /// that could not be read, published bytes git does not hold (hashes only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Runs the diff `opts.mode` asks for.
pub fn diff(opts: &DiffOptions, progress: Option<GitProgress>) -> Result<DiffOutcome, OpError> {
    match &opts.mode {
        DiffMode::StateVsMarkdown => state_vs_markdown(opts, progress),
        DiffMode::Against(rev) => against(opts, rev, progress),
        DiffMode::Candidate(file) => candidate(opts, file),
        DiffMode::SincePublication => since_publication(opts, progress),
    }
}

/// state.json against the markdown; a missing or unparseable state.json is one disagreement.
/// In a repository, also what git and state.json disagree on: the findings of the history
/// checks, under their ids (`docs/diff.md`).
pub fn state_vs_markdown(
    opts: &DiffOptions,
    progress: Option<GitProgress>,
) -> Result<DiffOutcome, OpError> {
    let mut plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Skip)?;
    let inputs = gather(&plan.dir, None)?;
    let mut outcome = DiffOutcome {
        plan: inputs.plan.clone(),
        mode: "state-vs-markdown",
        ..Default::default()
    };
    match &inputs.old_state {
        Some(state) => {
            outcome.disagreements = compare(state, &inputs.tasks, inputs.plan_status);
            match plan.open_git(progress) {
                Ok(()) => {
                    if plan.repo.is_some() {
                        let (rows, notes) = git_rows(&plan.dir, &opts.plan_dir, state);
                        outcome.git = rows;
                        outcome.notes = notes;
                    }
                }
                Err(e) => outcome.notes.push(format!(
                    "the repository could not be opened, git left out: {e}"
                )),
            }
        }
        None => outcome.disagreements.push(Disagreement {
            task: None,
            field: layout::STATE_FILE,
            state: None,
            markdown: Some(format!("{} task(s) in the README", inputs.tasks.len())),
            direction: "markdown-ahead",
            message: format!(
                "state.json {}; `planseal rebuild {}` regenerates it",
                if inputs.old_bytes.is_some() {
                    "does not parse"
                } else {
                    "is missing"
                },
                opts.plan_dir.display()
            ),
        }),
    }
    Ok(outcome)
}

/// What git and state.json disagree on, mapped to rows under the ids the history checks report,
/// judged as `verify` judges them: failures for a published plan (a receipt is present; its
/// `git.head` is checked too), advisories but for a missing commit otherwise. The work tree's
/// cleanliness is left out (that is finalize's). What history could not tell comes back as
/// notes.
fn git_rows(
    plan_dir: &Path,
    shown: &Path,
    state_value: &Value,
) -> (Vec<GitDisagreement>, Vec<String>) {
    let state = State::from_value(state_value);
    let receipt = read_plan_file(plan_dir, layout::RECEIPT_FILE)
        .ok()
        .flatten()
        .map(|b| Receipt::read(&b).ok());
    let published_head = receipt
        .as_ref()
        .and_then(|r| r.as_ref())
        .and_then(|r| r.planseal.as_ref())
        .and_then(|p| p.git.as_ref())
        .map(|g| g.head.clone());
    let findings = cross_checks(&CrossCheck {
        plan_dir,
        shown,
        state: &state,
        candidate: None,
        mode: if receipt.is_some() {
            CheckMode::Published
        } else {
            CheckMode::InProgress
        },
        published_head: published_head.as_deref(),
    });
    let (rows, notes) = git_disagreements(&findings);
    let mut texts: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for n in notes {
        if seen.insert(n.message.clone()) {
            texts.push(n.message);
        }
    }
    (rows, texts)
}

/// The plan's files at `rev` against now. The plan must be tracked by git at `rev`, which it
/// usually is not (`.dwp/` is git-ignored).
pub fn against(
    opts: &DiffOptions,
    rev: &str,
    progress: Option<GitProgress>,
) -> Result<DiffOutcome, OpError> {
    let plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Open(progress))?;
    let plan_dir = &plan.dir;
    let Some(repo) = plan.repo.as_ref() else {
        return Err(HintedError::usage(format!(
            "{} is not in a git repository; --against needs one",
            plan_dir.display()
        ))
        .into());
    };
    let commit = repo.resolve(rev)?.ok_or_else(|| {
        HintedError::usage(format!("`{rev}` is not a revision of this repository"))
    })?;
    let rel = repo.relative_to_work_tree(plan_dir)?;
    let mut outcome = DiffOutcome {
        plan: crate::dwp::layout::plan_name(plan_dir),
        mode: "against",
        against: Some(rev.to_string()),
        ..Default::default()
    };
    let mut tracked_then = false;
    let mut state_then = None;
    let mut state_now = None;
    for name in plan_files(plan_dir) {
        let then = repo.file_at(&commit, &format!("{rel}/{name}"))?;
        let now = read_plan_file(plan_dir, &name)?;
        tracked_then |= then.is_some();
        if name == layout::STATE_FILE {
            state_then = then.as_deref().and_then(|b| serde_json::from_slice(b).ok());
            state_now = now.as_deref().and_then(|b| serde_json::from_slice(b).ok());
        }
        if let Some(d) = file_diff(&name, then.as_deref(), now.as_deref()) {
            outcome.files.push(d);
        }
    }
    if !tracked_then {
        return Err(HintedError::usage(format!(
            "{rel} holds no plan file at {rev}: the plan is not tracked by git there (.dwp/ is usually git-ignored)"
        ))
        .hint("compare a candidate with --candidate instead")
        .into());
    }
    if state_then.is_some() || state_now.is_some() {
        let empty = Value::Object(Default::default());
        outcome.state_changes = state_changes(
            state_then.as_ref().unwrap_or(&empty),
            state_now.as_ref().unwrap_or(&empty),
        );
    }
    Ok(outcome)
}

/// The plan files compared with a revision: the fixed set, then every task file now present.
fn plan_files(plan_dir: &Path) -> Vec<String> {
    let mut files: Vec<String> = [
        layout::README_FILE,
        layout::PROGRESS_FILE,
        layout::PROMPTS_FILE,
        layout::MANIFEST_FILE,
        layout::STATE_FILE,
        layout::SECURITY_REVIEW_FILE,
        layout::SKILLS_CANDIDATES_FILE,
        layout::RECEIPT_FILE,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut tasks: Vec<String> = std::fs::read_dir(plan_dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".task_") && n.ends_with(".md"))
                .collect()
        })
        .unwrap_or_default();
    tasks.sort();
    files.extend(tasks);
    files
}

/// Every file the receipt covers against the hash it recorded: state.json (`state_sha256`), the
/// fingerprinted files and the evidence files (planseal's per-file maps). A changed file's line
/// diff is shown when git holds its published bytes: the file at the receipt's `git.head`, or
/// else at HEAD, whose hash equals the recorded one. Otherwise (`.dwp/` git-ignored, or the file
/// changed in git since) only the hashes are compared, and a note says so. A receipt without
/// per-file maps (the DWP helper's) gets them from HEAD when HEAD holds the published state and
/// files (their fingerprint is the recorded one); else it names state.json and, for the rest,
/// whether the artifact fingerprint still holds.
pub fn since_publication(
    opts: &DiffOptions,
    progress: Option<GitProgress>,
) -> Result<DiffOutcome, OpError> {
    let mut plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Skip)?;
    let dir = plan.dir.clone();
    let bytes = match read_plan_file(&dir, layout::RECEIPT_FILE)? {
        Some(b) => b,
        None => {
            return Err(HintedError::usage(format!(
                "{}: no receipt ({}), so the plan was never published",
                opts.plan_dir.display(),
                layout::RECEIPT_FILE
            ))
            .hint("compare state.json with the markdown: run `planseal diff PLAN` without --since-publication")
            .into());
        }
    };
    let receipt = Receipt::read(&bytes).map_err(|e| {
        HintedError::usage(format!("the receipt cannot be read: {e}"))
            .hint("`planseal verify` says what is wrong with it; `planseal finalize` re-seals a completed plan")
    })?;
    let mut outcome = DiffOutcome {
        plan: layout::plan_name(&dir),
        mode: "since-publication",
        ..Default::default()
    };
    let mut recorded: FileHashes = FileHashes::new();
    recorded.insert(
        layout::STATE_FILE.to_string(),
        Some(receipt.state_sha256.clone()).filter(|h| !h.is_empty()),
    );
    let mut per_file = receipt.files().is_some();
    for map in [receipt.files(), receipt.evidence_files()]
        .into_iter()
        .flatten()
    {
        for (name, digest) in map {
            recorded.insert(name.clone(), digest.clone());
        }
    }
    let mut notes: Vec<String> = Vec::new();
    if let Err(e) = plan.open_git(progress) {
        notes.push(format!(
            "the repository could not be opened, hashes only: {e}"
        ));
    }
    let git = plan.repo.as_ref();
    let head = receipt
        .planseal
        .as_ref()
        .and_then(|p| p.git.as_ref())
        .map(|g| g.head.clone())
        .filter(|h| !h.is_empty());
    let rel = git.and_then(|r| r.relative_to_work_tree(&dir).ok());
    // A receipt without per-file hashes (the DWP helper's): when the plan is tracked and its
    // files at HEAD give the recorded fingerprint, git holds every published file, and their
    // hashes are the ones published.
    if !per_file
        && let (Some(repo), Some(rel)) = (git, &rel)
        && let Some(files) = published_at_head(repo, rel, &receipt)
    {
        recorded.extend(files);
        per_file = true;
    }
    let mut hashes_only: Vec<String> = Vec::new();
    for (name, then) in &recorded {
        let now_bytes = read_plan_file(&dir, name)?;
        let now = now_bytes.as_deref().map(sha256_hex);
        let change = published_change(then.as_deref(), now.as_deref());
        let mut row = PublishedFile {
            path: name.clone(),
            change,
            recorded: then.clone(),
            current: now,
            published_from: None,
            diff: None,
        };
        if change != "unchanged" {
            let published = match (git, &rel, then) {
                (Some(repo), Some(rel), Some(digest)) => {
                    published_bytes(repo, head.as_deref(), &join_rel(rel, name), digest)
                }
                _ => None,
            };
            match published {
                Some((from, old)) => {
                    row.published_from = Some(from);
                    row.diff = file_diff(name, Some(&old), now_bytes.as_deref());
                }
                None if then.is_none() => {
                    row.diff = file_diff(name, None, now_bytes.as_deref());
                }
                None => hashes_only.push(name.clone()),
            }
        }
        outcome.published.push(row);
    }
    if !per_file {
        let names = fingerprint::artifact_names_of(
            &read_plan_file(&dir, layout::STATE_FILE)?
                .and_then(|b| parse_json(&b).ok())
                .unwrap_or_else(|| Value::Object(Default::default())),
        );
        let current = fingerprint::artifacts_sha256(&dir, &names)
            .map(|f| f.hex)
            .unwrap_or_default();
        if current != receipt.artifacts_sha256 {
            outcome.published.push(PublishedFile {
                path: "artifacts_sha256".into(),
                change: "modified",
                recorded: Some(receipt.artifacts_sha256.clone()),
                current: Some(current),
                published_from: None,
                diff: None,
            });
        }
        notes.push(
            "the receipt records no per-file hashes (it was written by the DWP helper): the fingerprinted files are compared as one (artifacts_sha256)".into(),
        );
    }
    if !hashes_only.is_empty() {
        let why = match (git, &rel) {
            (None, _) => "the plan is not in a git repository".to_string(),
            (Some(_), _) if head.is_none() => {
                "git holds no copy matching the recorded hash at HEAD (the receipt records no git.head)".to_string()
            }
            _ => format!(
                "git holds no copy matching the recorded hash at {} or HEAD (.dwp/ is usually git-ignored)",
                short(head.as_deref().unwrap_or_default())
            ),
        };
        notes.push(format!("hashes only for {}: {why}", hashes_only.join(", ")));
    }
    outcome.notes = notes;
    outcome.files = outcome
        .published
        .iter()
        .filter_map(|p| p.diff.clone())
        .collect();
    Ok(outcome)
}

/// The plan's files as one revision of git holds them (`rel`: the plan folder, work-tree
/// relative), for the fingerprint.
struct PlanAtRevision<'a> {
    repo: &'a Repo,
    rev: String,
    rel: &'a str,
}

impl fingerprint::ArtifactSource for PlanAtRevision<'_> {
    fn artifact(&self, name: &str) -> std::io::Result<fingerprint::Artifact<'_>> {
        match self.repo.file_at(&self.rev, &join_rel(self.rel, name)) {
            Ok(Some(b)) => Ok(fingerprint::Artifact::Bytes(b.into())),
            Ok(None) => Ok(fingerprint::Artifact::Absent),
            Err(e) => Err(std::io::Error::other(e.to_string())),
        }
    }
}

/// The per-file hashes of the fingerprinted files at HEAD, when HEAD holds the published
/// state.json (its hash is `state_sha256`) and the files its names give the receipt's
/// `artifacts_sha256`.
fn published_at_head(repo: &Repo, rel: &str, receipt: &Receipt) -> Option<FileHashes> {
    let rev = repo.resolve("HEAD").ok()??;
    let source = PlanAtRevision { repo, rev, rel };
    let state_then = repo
        .file_at(&source.rev, &join_rel(rel, layout::STATE_FILE))
        .ok()?
        .filter(|b| sha256_hex(b) == receipt.state_sha256)?;
    let names = fingerprint::artifact_names_of(&parse_json(&state_then).ok()?);
    let fp = fingerprint::fingerprint(&source, &names, true).ok()?;
    (fp.hex == receipt.artifacts_sha256).then(|| fp.files_map())
}

/// The bytes of `path` (work-tree relative) at `head` or else at HEAD whose SHA-256 is `digest`,
/// with where they were found (`git <short id>`).
fn published_bytes(
    repo: &Repo,
    head: Option<&str>,
    path: &str,
    digest: &str,
) -> Option<(String, Vec<u8>)> {
    let mut revs: Vec<String> = head.map(str::to_string).into_iter().collect();
    if let Ok(Some(id)) = repo.resolve("HEAD")
        && !revs.contains(&id)
    {
        revs.push(id);
    }
    revs.into_iter().find_map(|rev| {
        let bytes = repo.file_at(&rev, path).ok()??;
        (sha256_hex(&bytes) == digest).then(|| (format!("git {}", short(&rev)), bytes))
    })
}

fn short(id: &str) -> &str {
    &id[..id.len().min(7)]
}

fn join_rel(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    }
}

/// A candidate state.json against the current one: what finalize would publish.
pub fn candidate(opts: &DiffOptions, file: &Path) -> Result<DiffOutcome, OpError> {
    let plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Skip)?;
    let path = opts.cwd.join(file);
    let cand_bytes = planseal_recovery::read::read_existing(&path, Kind::Document)?;
    let cand = parse_json(&cand_bytes).map_err(|e| {
        HintedError::usage(format!(
            "{}: the candidate is not valid JSON ({e})",
            path.display()
        ))
        .hint("fix the file")
    })?;
    let current_bytes = read_plan_file(&plan.dir, layout::STATE_FILE)?;
    let current = current_bytes
        .as_deref()
        .and_then(|b| parse_json(b).ok())
        .unwrap_or_else(|| Value::Object(Default::default()));
    Ok(DiffOutcome {
        plan: crate::dwp::layout::plan_name(&plan.dir),
        mode: "candidate",
        candidate: Some(file.display().to_string()),
        state_changes: state_changes(&current, &cand),
        files: file_diff(
            layout::STATE_FILE,
            current_bytes.as_deref(),
            Some(&cand_bytes),
        )
        .into_iter()
        .collect(),
        ..Default::default()
    })
}

impl DiffOutcome {
    /// A difference was found (`--exit-code` exits 1).
    pub fn differs(&self) -> bool {
        self.count() > 0
    }

    /// How many differences: disagreements, git disagreements, state changes, and files that
    /// differ (changed since publication, or with a line diff).
    fn count(&self) -> usize {
        let files = if self.mode == "since-publication" {
            self.published
                .iter()
                .filter(|p| p.change != "unchanged")
                .count()
        } else {
            self.files.len()
        };
        self.disagreements.len() + self.git.len() + self.state_changes.len() + files
    }

    fn title(&self) -> String {
        match self.mode {
            "against" => format!(
                "{} — changes since {}",
                self.plan,
                self.against.as_deref().unwrap_or("?")
            ),
            "candidate" => format!(
                "{} — candidate {} vs state.json",
                self.plan,
                self.candidate.as_deref().unwrap_or("?")
            ),
            "since-publication" => format!("{} — changes since publication", self.plan),
            _ => format!("{} — state.json vs the markdown", self.plan),
        }
    }

    /// The terminal form: disagreements, state changes, unified diffs, a count.
    pub fn to_text(&self, color: bool) -> String {
        let mut out = format!("Plan: {}\n", paint(&self.title(), "1", color));
        for d in &self.disagreements {
            out.push_str(&format!(
                "  {} {} [{}]\n",
                paint("!", "33", color),
                d.message,
                d.direction
            ));
        }
        if !self.git.is_empty() {
            out.push_str("Git:\n");
            for g in &self.git {
                let mark = if g.severity == crate::report::Severity::Fail {
                    paint("✗", "31", color)
                } else {
                    paint("!", "33", color)
                };
                out.push_str(&format!("  {mark} {} [{}]\n", g.message, g.id));
                if let Some(h) = &g.hint {
                    out.push_str(&format!("    hint: {h}\n"));
                }
            }
        }
        let changed: Vec<&PublishedFile> = self
            .published
            .iter()
            .filter(|p| p.change != "unchanged")
            .collect();
        if !self.published.is_empty() {
            let same = self.published.len() - changed.len();
            out.push_str(&format!(
                "Files the receipt covers: {} changed, {same} unchanged\n",
                changed.len()
            ));
            for p in &changed {
                let from = match &p.published_from {
                    Some(f) => format!(" (published bytes from {f})"),
                    None if p.diff.is_some() => String::new(),
                    None => " (hashes only)".to_string(),
                };
                out.push_str(&format!(
                    "  {} {} {}{from}\n",
                    paint("~", "33", color),
                    p.path,
                    p.change
                ));
            }
        }
        if !self.state_changes.is_empty() {
            out.push_str("State changes:\n");
            for c in &self.state_changes {
                let mark = if c.kind == "status-moved-backwards" || c.kind.ends_with("removed") {
                    paint("-", "31", color)
                } else {
                    paint("+", "32", color)
                };
                out.push_str(&format!("  {mark} {} [{}]\n", c.message, c.kind));
            }
        }
        for f in &self.files {
            out.push_str(&format!("File {} ({}):\n", f.path, f.change));
            for line in f.unified.lines() {
                let painted = if line.starts_with("+++") || line.starts_with("---") {
                    paint(line, "1", color)
                } else if line.starts_with('+') {
                    paint(line, "32", color)
                } else if line.starts_with('-') {
                    paint(line, "31", color)
                } else if line.starts_with("@@") {
                    paint(line, "36", color)
                } else {
                    line.to_string()
                };
                out.push_str(&painted);
                out.push('\n');
            }
        }
        for n in &self.notes {
            out.push_str(&format!("note: {n}\n"));
        }
        if self.differs() {
            let n = self.count();
            out.push_str(&format!("{n} difference(s).\n"));
        } else {
            out.push_str("No differences.\n");
        }
        out
    }

    /// The pull-request comment form: a table of disagreements, a list of state changes, and
    /// each file's diff folded in a `<details>` block.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("### planseal diff: {}\n\n", self.title());
        if !self.differs() {
            out.push_str("No differences.\n");
            return out;
        }
        if !self.disagreements.is_empty() {
            out.push_str(
                "| task | field | state.json | markdown | direction |\n|---|---|---|---|---|\n",
            );
            for d in &self.disagreements {
                out.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    d.task
                        .map(|t| t.to_string())
                        .unwrap_or_else(|| "plan".into()),
                    d.field,
                    cell(d.state.as_deref()),
                    cell(d.markdown.as_deref()),
                    d.direction
                ));
            }
            out.push('\n');
        }
        if !self.git.is_empty() {
            out.push_str("**Git**\n\n");
            for g in &self.git {
                out.push_str(&format!("- {} (`{}`)\n", g.message, g.id));
            }
            out.push('\n');
        }
        let changed: Vec<&PublishedFile> = self
            .published
            .iter()
            .filter(|p| p.change != "unchanged")
            .collect();
        if !changed.is_empty() {
            out.push_str("**Changed since publication**\n\n");
            for p in changed {
                out.push_str(&format!("- `{}` {}\n", p.path, p.change));
            }
            out.push('\n');
        }
        for n in &self.notes {
            out.push_str(&format!("> note: {n}\n\n"));
        }
        if !self.state_changes.is_empty() {
            out.push_str("**State changes**\n\n");
            for c in &self.state_changes {
                out.push_str(&format!("- {} (`{}`)\n", c.message, c.kind));
            }
            out.push('\n');
        }
        for f in &self.files {
            // A diff that itself holds a fence needs a longer one around it.
            let fence = if f.unified.contains("```") {
                "````"
            } else {
                "```"
            };
            out.push_str(&format!(
                "<details><summary>{} ({})</summary>\n\n{fence}diff\n{}{fence}\n\n</details>\n\n",
                f.path, f.change, f.unified
            ));
        }
        out
    }
}

/// A table cell: pipes escaped, one line.
fn cell(s: Option<&str>) -> String {
    s.unwrap_or("—").replace('|', "\\|").replace('\n', " ")
}
