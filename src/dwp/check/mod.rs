//! The conformance check of one plan (`docs/verify.md`): the current-era (v2/v5) checks in the
//! order of items 1–18, the legacy path for v1 and state-less plans, and the receipt check of
//! item 16.
//!
//! [`check_plan`] (verify) reads the folder once, streaming its task files and state.json (see
//! `stream.rs`: each task file is checked and dropped, the state parsed task by task), and hands
//! the result to [`check_files`], which only looks at it (plus the existence of `log=` targets).
//! [`check_read`] checks a plan read whole ([`crate::dwp::read::PlanFiles::load`], finalize's
//! read) with the same checks.
//!
//! Finding ids are the labels recorded from the original checker (`fixtures/vectors/dwp/README.md`
//! §6–§7) where one applies, and planseal's own otherwise (`receipt-missing`, `receipt-mismatch`,
//! …). `docs/verify.md` lists them.

mod current;
mod drift;
pub mod gates;
mod legacy;
pub(crate) mod md;
pub mod receipt;
mod seed;
pub mod semantics;
pub mod shape;
mod state_doc;
mod stream;
mod writers;

use crate::dwp::layout;
use crate::dwp::read::{FileRead, PlanFiles};
use crate::recovery::git::{GitError, Repo};
use crate::report::{Finding, Section, Severity, System};
use std::cell::RefCell;
use std::path::Path;
use std::path::PathBuf;
use std::rc::Rc;

/// Which checks to leave out: finalize and recover re-verify a plan without the marker they are
/// resolving and the receipt they are about to write: the receipt is what a publication
/// produces, never its precondition.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Do not stop at a `.finalizing.json` publication marker (the plan is checked as if it
    /// were absent).
    pub skip_marker: bool,
    /// Leave out the receipt check (`analysis_results/FINALIZATION.json`).
    pub skip_receipt: bool,
    /// Check these bytes in place of state.json (a finalization candidate).
    pub state_override: Option<Vec<u8>>,
    /// Leave out the git drift advisories (finalize and recover run their own git cross-checks).
    pub skip_git_drift: bool,
    /// The repositories already opened by this run (`verify` of several plans): each is opened
    /// once, and its commit walk is made once. `None`: the plan opens its own.
    pub repositories: Option<Rc<Repositories>>,
}

/// The repositories one `verify` run has opened, by the folder that holds `.git`: the plans of
/// one repository share its [`Repo`], whose complete commit walk is replayed from memory.
#[derive(Debug, Default)]
pub struct Repositories {
    opened: RefCell<Vec<(PathBuf, Opened)>>,
}

/// A repository as opening it turned out: open, not a repository after all, or unreadable.
pub type Opened = Rc<Result<Option<Repo>, GitError>>;

impl Repositories {
    /// The repository `dir` lies in, opened on first use.
    pub fn open(&self, dir: &Path) -> Opened {
        let start = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        let root = start
            .ancestors()
            .find(|d| d.join(".git").exists())
            .map(Path::to_path_buf);
        if let Some(root) = &root
            && let Some((_, repo)) = self.opened.borrow().iter().find(|(r, _)| r == root)
        {
            return repo.clone();
        }
        let repo = Rc::new(Repo::discover(dir));
        if let Some(root) = root {
            self.opened.borrow_mut().push((root, repo.clone()));
        }
        repo
    }
}

/// Reads and checks one plan folder. `display_name` heads the section (`PLAN_x`, or
/// `repo:PLAN_x` for an orchestrator-hub child); `display_path` is shown as its path.
pub fn check_plan(
    dir: &Path,
    name: &str,
    display_name: &str,
    display_path: &str,
    opts: &CheckOptions,
) -> Section {
    match stream::load_streamed(dir, name) {
        Ok(mut files) => {
            files.display = display_path.to_string();
            check_read(&mut files, display_name, opts)
        }
        Err(why) => {
            let mut section = Section::new(System::Dwp, display_name, display_path);
            section.unverified = Some(format!("the plan folder cannot be listed: {why}"));
            section
        }
    }
}

/// Checks a plan already read (its `display` is the section's path). With
/// `opts.state_override`, the override takes state.json's place in `files`.
pub fn check_read(files: &mut PlanFiles, display_name: &str, opts: &CheckOptions) -> Section {
    let mut section = Section::new(System::Dwp, display_name, files.display.clone());
    if let Some(candidate) = &opts.state_override {
        files.files.insert(
            crate::dwp::layout::STATE_FILE.into(),
            FileRead::Bytes(candidate.clone()),
        );
    }
    let unreadable = files.unreadable();
    if !unreadable.is_empty() {
        let why: Vec<String> = unreadable
            .iter()
            .map(|(file, why)| format!("{file}: {why}"))
            .collect();
        section.unverified = Some(why.join("; "));
        return section;
    }
    section.findings = check_files(files, opts);
    // finalize and recover re-verify under their own lock (they skip the marker or check a
    // candidate): what writers left and git's copies of the files are not theirs to report.
    let own_check = opts.skip_marker || opts.state_override.is_some();
    // The repository is opened once for every git check of the plan.
    let repo = if files.in_git_work_tree && !(own_check && opts.skip_git_drift) {
        Some(match &opts.repositories {
            Some(shared) => shared.open(&files.dir),
            None => Rc::new(Repo::discover(&files.dir)),
        })
    } else {
        None
    };
    if let Some(opened) = repo.as_deref()
        && !own_check
    {
        match opened {
            Ok(Some(repo)) => git_file_checks(repo, files, &mut section.findings),
            Ok(None) => {}
            // The repository is there but cannot be opened: never "no repository".
            Err(e) => section
                .findings
                .push(crate::dwp::history::unreadable_finding(None, e)),
        }
    }
    // What a killed writer left comes first: its lock refuses every command the other hints
    // name until it is removed.
    let marker = files.get(layout::MARKER_FILE).exists();
    let writers = if own_check {
        Vec::new()
    } else {
        writers::writer_findings(files, marker)
    };
    if !writers.is_empty() {
        let failed = writers.iter().any(|f| f.severity == Severity::Fail);
        if failed {
            section
                .findings
                .retain(|f| f.id != "semantic-review-required");
        }
        section.findings.splice(0..0, writers);
    }
    // Drift against the git log: only for a plan in a work tree, on state.json itself.
    if files.in_git_work_tree && !opts.skip_git_drift && opts.state_override.is_none() {
        let state = files
            .bytes(crate::dwp::layout::STATE_FILE)
            .and_then(|b| serde_json::from_slice(b).ok());
        if let Some(state) = state.as_ref().map(crate::dwp::model::State::from_value) {
            let receipt = files.bytes(layout::RECEIPT_FILE).map(|b| {
                crate::dwp::model::receipt::Receipt::read(b)
                    .ok()
                    .and_then(|r| r.planseal)
                    .and_then(|p| p.git)
                    .map(|g| g.head)
            });
            drift::merge_drift(
                repo.as_deref(),
                &files.dir,
                &files.display,
                &state,
                receipt.as_ref().map(|h| h.as_deref()),
                &mut section.findings,
            );
        }
    }
    for f in &mut section.findings {
        f.plan.get_or_insert_with(|| display_name.to_string());
    }
    section
}

/// Every finding for a plan already read. Pure apart from the existence checks of `log=` targets.
pub fn check_files(files: &PlanFiles, opts: &CheckOptions) -> Vec<Finding> {
    let mut out = Out::default();
    // 1. An interrupted publication stops everything (both eras).
    if !opts.skip_marker && files.get(layout::MARKER_FILE).exists() {
        out.fail(
            "marker-present",
            "interrupted finalization (.finalizing.json present) — inspect artifacts and recover before claiming completion",
        )
        .file(layout::MARKER_FILE)
        .hint(format!(
            "run `planseal recover {}` to finish or roll back the interrupted publication",
            files.display
        ));
        return out.done();
    }
    for (rel, read) in &files.files {
        if let FileRead::Outside(why) = read {
            out.fail(
                "file-outside-plan",
                format!("{rel} leaves the plan folder ({why}); it was not read"),
            )
            .file(rel.clone())
            .hint("replace the link with the file itself");
        }
    }
    match files.get(layout::STATE_FILE) {
        FileRead::Missing => {
            if let Some(evidence) = state_layer_evidence(files) {
                state_missing(files, &evidence, &mut out);
                return out.done();
            }
            legacy::check(files, None, opts, &mut out)
        }
        FileRead::Bytes(bytes) => {
            // The streamed read parsed state.json already and dropped its bytes.
            let parsed = if opts.state_override.is_none() {
                stream::parsed_state(files)
            } else {
                None
            };
            let (read, state_bytes) = match parsed {
                Some((read, sha)) => (
                    match read {
                        Ok(doc) => Ok(std::borrow::Cow::Borrowed(doc)),
                        Err(why) => Err(why.clone()),
                    },
                    StateBytes::Hashed(sha),
                ),
                None => (
                    state_doc::StateDoc::read(bytes).map(std::borrow::Cow::Owned),
                    StateBytes::Bytes(bytes),
                ),
            };
            let state = match read {
                Ok(doc) => doc,
                Err(why) => {
                    out.fail("state-unparseable", format!("state.json does not parse: {why}"))
                        .file(layout::STATE_FILE)
                        .hint(format!("repair the JSON, or regenerate it from every record with `planseal rebuild {} --write` (the unparseable file is kept as a copy)", files.display));
                    return out.done();
                }
            };
            let url = state
                .top()
                .get("schema")
                .and_then(|s| s.as_str())
                .unwrap_or("");
            match crate::dwp::model::Era::from_state_url(url) {
                None => {
                    out.fail(
                        "unsupported-schema",
                        format!(
                            "state.json schema {} is not supported (supported: {})",
                            if url.is_empty() {
                                "(missing)".to_string()
                            } else {
                                format!("\"{url}\"")
                            },
                            shape::STATE_SCHEMAS.join(", ")
                        ),
                    )
                    .file(layout::STATE_FILE)
                    .hint("a newer DWP version wrote this plan: upgrade planseal");
                }
                Some(shape::Era::V1) => {
                    legacy::check(files, Some((state_bytes, state.top())), opts, &mut out)
                }
                Some(era) => current::check(files, state_bytes, &state, era, opts, &mut out),
            }
        }
        // Outside: reported above; unreadable never gets here.
        _ => {}
    }
    out.done()
}

/// What shows that a plan without state.json had a state layer: a v2/v5 manifest, a receipt
/// or a state journal (git's memory of a committed state.json is asked in [`git_file_checks`]).
fn state_layer_evidence(files: &PlanFiles) -> Option<String> {
    let manifest_era = files
        .bytes(layout::MANIFEST_FILE)
        .and_then(|b| serde_json::from_slice::<serde_json::Value>(b).ok())
        .and_then(|v| {
            v.get("schema")
                .and_then(|s| s.as_str())
                .and_then(crate::dwp::model::Era::from_manifest_url)
        });
    if let Some(era) = manifest_era
        && era != shape::Era::V1
    {
        return Some(format!("manifest.json is a {} manifest", era_label(era)));
    }
    if files.get(layout::RECEIPT_FILE).exists() {
        return Some(format!(
            "a publication receipt ({}) is present",
            layout::RECEIPT_FILE
        ));
    }
    if files.dir.join(layout::JOURNAL_FILE).exists() {
        return Some(format!(
            "the state journal ({}) is present",
            layout::JOURNAL_FILE
        ));
    }
    None
}

fn era_label(era: shape::Era) -> &'static str {
    match era {
        shape::Era::V1 => "v1",
        shape::Era::V2 => "v2",
        _ => "v5",
    }
}

fn state_missing(files: &PlanFiles, evidence: &str, out: &mut Out) {
    out.fail(
        "state-missing",
        format!("state.json is missing, but the plan had a state layer: {evidence}"),
    )
    .file(layout::STATE_FILE)
    .hint(format!(
        "rebuild it from the markdown, git and the journal: `planseal rebuild {}` to see it, `planseal rebuild {} --write` to write it",
        files.display, files.display
    ));
}

/// The checks that need git's memory of the plan's own files: a missing state.json that was
/// committed (`state-missing`), and a tracked manifest.json changed since the commit that added
/// it without a migration entry in PROGRESS.md (`manifest-altered`). A history that cannot be
/// read is `git-unreadable` (UNVERIFIED), never a failure and never an advisory.
fn git_file_checks(
    repo: &crate::recovery::git::Repo,
    files: &PlanFiles,
    findings: &mut Vec<Finding>,
) {
    use crate::dwp::history;
    if findings.iter().any(|f| f.id == "marker-present") {
        return;
    }
    let unreadable = |e: &GitError| history::unreadable_finding(Some(repo.git_dir()), e);
    if !files.get(layout::STATE_FILE).exists() {
        if findings.iter().any(|f| f.id == "state-missing") {
            return;
        }
        match history::committed_file(repo, &files.dir, layout::STATE_FILE) {
            Ok(Some(commit)) => {
                let mut out = Out::default();
                state_missing(
                    files,
                    &format!("git holds a committed state.json (commit {})", commit.short),
                    &mut out,
                );
                *findings = out.done();
            }
            Ok(None) => {}
            Err(e) => findings.push(unreadable(&e)),
        }
        return;
    }
    let Some(now) = files.bytes(layout::MANIFEST_FILE) else {
        return;
    };
    let Ok(now_value) = serde_json::from_slice::<serde_json::Value>(now) else {
        return;
    };
    let (commit, first) =
        match history::first_committed_version(repo, &files.dir, layout::MANIFEST_FILE) {
            Ok(Some(found)) => found,
            Ok(None) => return,
            Err(e) => {
                findings.push(unreadable(&e));
                return;
            }
        };
    let Ok(first_value) = serde_json::from_slice::<serde_json::Value>(&first) else {
        return;
    };
    let changed = changed_fields(&first_value, &now_value);
    let new = if changed.is_empty() {
        Finding::pass(
            "manifest-unaltered",
            format!(
                "manifest.json equals the version commit {} added",
                commit.short
            ),
        )
    } else if files
        .text(layout::PROGRESS_FILE)
        .is_some_and(|t| has_migration_entry(&t))
    {
        Finding::advisory(
            "manifest-migrated",
            format!(
                "manifest.json differs from the version commit {} added ({}); PROGRESS.md records a migration",
                commit.short,
                changed.join(", ")
            ),
        )
        .file(layout::MANIFEST_FILE)
    } else {
        Finding::fail(
            "manifest-altered",
            format!(
                "manifest.json was changed after the plan was materialised (commit {} added it): {} changed, and PROGRESS.md records no migration",
                commit.short,
                changed.join(", ")
            ),
        )
        .file(layout::MANIFEST_FILE)
        .hint(format!(
            "restore the manifest as it was created (`planseal rebuild {} --manifest --from {}`), or record the migration in PROGRESS.md (a dated entry naming the manifest migration)",
            files.display, commit.short
        ))
    };
    if new.severity == Severity::Fail {
        findings.retain(|f| f.id != "semantic-review-required");
    }
    let at = match findings.last() {
        Some(last) if last.id == "semantic-review-required" => findings.len() - 1,
        _ => findings.len(),
    };
    findings.insert(at, new);
}

/// The top-level fields whose values differ between two JSON objects (added and removed ones
/// included), sorted.
fn changed_fields(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return if a == b {
            Vec::new()
        } else {
            vec!["(the whole document)".into()]
        };
    };
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .map(|k| k.to_string())
        .collect()
}

/// A PROGRESS.md line that records a migration of the manifest: it says `migration` (or
/// `migrated`, any case) and names the manifest.
fn has_migration_entry(progress: &str) -> bool {
    progress.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.contains("migrat") && l.contains("manifest")
    })
}

pub(crate) const SEMANTIC_REVIEW: &str = "semantic review required: whether each acceptance criterion is really satisfied, affected-test coverage and the actual security review are beyond a file check";

/// The findings of one plan as they are produced.
#[derive(Default)]
pub(crate) struct Out {
    pub(crate) findings: Vec<Finding>,
}

impl Out {
    fn push(&mut self, f: Finding) -> &mut Finding {
        self.findings.push(f);
        self.findings.last_mut().expect("just pushed")
    }
    pub(crate) fn pass(&mut self, id: &str, msg: impl Into<String>) -> &mut Finding {
        self.push(Finding::pass(id, msg))
    }
    pub(crate) fn fail(&mut self, id: &str, msg: impl Into<String>) -> &mut Finding {
        self.push(Finding::fail(id, msg))
    }
    pub(crate) fn advisory(&mut self, id: &str, msg: impl Into<String>) -> &mut Finding {
        self.push(Finding::advisory(id, msg))
    }
    pub(crate) fn failed(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Fail)
    }
    pub(crate) fn failures_since(&self, mark: usize) -> bool {
        self.findings[mark..]
            .iter()
            .any(|f| f.severity == Severity::Fail)
    }
    pub(crate) fn mark(&self) -> usize {
        self.findings.len()
    }
    fn done(mut self) -> Vec<Finding> {
        if !self.failed() && !self.findings.is_empty() {
            self.advisory("semantic-review-required", SEMANTIC_REVIEW);
        }
        self.findings
    }
}

/// Mutating builders on a pushed finding.
pub(crate) trait FindingExt {
    fn task(&mut self, t: u64) -> &mut Self;
    fn file(&mut self, f: impl Into<String>) -> &mut Self;
    fn line(&mut self, l: usize) -> &mut Self;
    fn hint(&mut self, h: impl Into<String>) -> &mut Self;
    fn group(&mut self, g: impl Into<String>) -> &mut Self;
}

impl FindingExt for Finding {
    fn task(&mut self, t: u64) -> &mut Self {
        self.task = Some(t);
        self
    }
    fn file(&mut self, f: impl Into<String>) -> &mut Self {
        self.file = Some(f.into());
        self
    }
    fn line(&mut self, l: usize) -> &mut Self {
        self.line = Some(l);
        self
    }
    fn hint(&mut self, h: impl Into<String>) -> &mut Self {
        self.hint = Some(h.into());
        self
    }
    fn group(&mut self, g: impl Into<String>) -> &mut Self {
        self.group = Some(g.into());
        self
    }
}

/// Compares two dotted versions numerically (`2.3` == `2.3.0`).
pub(crate) fn version_parts(v: &str) -> Option<(u64, u64, u64)> {
    let mut it = v.trim().split('.');
    let a = it.next()?.parse().ok()?;
    let b = it.next().unwrap_or("0").parse().ok()?;
    let c = it.next().unwrap_or("0").parse().ok()?;
    Some((a, b, c))
}

/// README.md (the plan stops when it is missing), then PROGRESS.md and PROMPTS.md: the same for
/// the current-era and the legacy path. Returns the README facts the later checks use.
pub(crate) fn required_markdown(files: &PlanFiles, out: &mut Out) -> Option<md::ReadmeFacts> {
    let Some(readme) = files.text(layout::README_FILE) else {
        out.fail("readme-missing", "README.md is missing")
            .file(layout::README_FILE)
            .hint("restore README.md: it is the plan's source of truth");
        return None;
    };
    utf8_check(files, layout::README_FILE, out);
    let facts = md::ReadmeFacts::read(&readme);
    for (rel, id) in [
        (layout::PROGRESS_FILE, "progress-missing"),
        (layout::PROMPTS_FILE, "prompts-missing"),
    ] {
        if files.get(rel).exists() {
            utf8_check(files, rel, out);
            out.pass(
                &format!("{}-present", id.trim_end_matches("-missing")),
                format!("{rel} present"),
            );
        } else {
            out.fail(id, format!("{rel} is missing"))
                .file(rel)
                .hint(format!("restore {rel}"));
        }
    }
    Some(facts)
}

/// state.json's bytes, or only their SHA-256 when the streamed read has dropped them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum StateBytes<'a> {
    /// The bytes.
    Bytes(&'a [u8]),
    /// Their SHA-256, lower-case hex.
    Hashed(&'a str),
}

impl StateBytes<'_> {
    /// The SHA-256 of the bytes, lower-case hex.
    pub(crate) fn sha256(self) -> String {
        match self {
            StateBytes::Bytes(b) => planseal_recovery::hash::sha256_hex(b),
            StateBytes::Hashed(h) => h.to_string(),
        }
    }
}

/// Why a markdown file's bytes are not plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TextProblem {
    /// Not valid UTF-8: the offset of the first bad byte.
    NotUtf8(usize),
    /// A NUL byte at this offset.
    Nul(usize),
}

/// The text problem of a markdown file's bytes, if any.
pub(crate) fn text_problem(bytes: &[u8]) -> Option<TextProblem> {
    if let Err(e) = crate::dwp::model::markdown::decode(bytes) {
        Some(TextProblem::NotUtf8(e.offset))
    } else {
        bytes.iter().position(|&c| c == 0).map(TextProblem::Nul)
    }
}

/// Reports a markdown file that is not valid UTF-8 text or holds NUL bytes (the checks go on with
/// replacement characters).
pub(crate) fn utf8_check(files: &PlanFiles, rel: &str, out: &mut Out) {
    let problem = match stream::streamed_task(files, rel) {
        Some(streamed) => streamed.problem,
        None => match files.bytes(rel) {
            Some(b) => text_problem(b),
            None => return,
        },
    };
    match problem {
        None => {}
        Some(TextProblem::NotUtf8(offset)) => {
            out.fail(
                "file-not-utf8",
                format!("{rel} is not valid UTF-8 (first bad byte at offset {offset})"),
            )
            .file(rel.to_string())
            .hint("save the file as UTF-8");
        }
        Some(TextProblem::Nul(at)) => {
            out.fail(
                "file-has-nul-byte",
                format!("{rel} holds a NUL byte at offset {at}; it is not a text file"),
            )
            .file(rel.to_string())
            .hint("remove the NUL byte(s); plan files are plain UTF-8 text");
        }
    }
}

/// The receipt check shared by both eras (item 16, planseal's stricter part).
pub(crate) fn receipt_check(
    files: &PlanFiles,
    state_bytes: StateBytes<'_>,
    state: &crate::dwp::model::State,
    standard_major: Option<u64>,
    opts: &CheckOptions,
    out: &mut Out,
) {
    if opts.skip_receipt {
        return;
    }
    let reseal = format!(
        "re-seal the plan with `planseal finalize {}`",
        files.display
    );
    match receipt::check_receipt_hashed(files, &state_bytes.sha256(), state) {
        receipt::ReceiptCheck::Matches => {
            out.pass(
                "receipt-matches",
                "publication receipt matches state.json and the fingerprinted plan files",
            );
            unverified_git_exceptions(files, &reseal, out);
        }
        receipt::ReceiptCheck::Missing => {
            if standard_major == Some(5) {
                out.fail(
                    "receipt-missing",
                    "completed plan has no publication receipt (analysis_results/FINALIZATION.json)",
                )
                .file(layout::RECEIPT_FILE)
                .hint(format!("publish the plan through the finalizer: {reseal}"));
            } else {
                out.advisory(
                    "receipt-missing",
                    "completed plan has no publication receipt (analysis_results/FINALIZATION.json); required from standard 5.x",
                )
                .file(layout::RECEIPT_FILE)
                .hint(reseal);
            }
        }
        receipt::ReceiptCheck::Unparseable(why) => {
            out.fail(
                "receipt-mismatch",
                format!("publication receipt cannot be read: {why}"),
            )
            .file(layout::RECEIPT_FILE)
            .hint(reseal);
        }
        receipt::ReceiptCheck::Mismatch(diffs) => {
            out.fail(
                "receipt-mismatch",
                format!(
                    "publication receipt does not match the plan: {}",
                    diffs.join("; ")
                ),
            )
            .file(layout::RECEIPT_FILE)
            .hint(format!(
                "if the change is intended, {reseal}; otherwise restore the changed file(s)"
            ));
        }
    }
}

/// A receipt sealed with `--allow-unverified-git`: accepted, and each such exception shown as
/// the advisory `git-unverified-accepted` — the seal holds, but its git checks were never made.
fn unverified_git_exceptions(files: &PlanFiles, reseal: &str, out: &mut Out) {
    use crate::dwp::model::receipt::Receipt;
    const GIT_KINDS: [&str; 2] = ["git-unreadable", "git-object-format-unsupported"];
    let Some(receipt) = files
        .bytes(layout::RECEIPT_FILE)
        .and_then(|b| Receipt::read(b).ok())
    else {
        return;
    };
    let exceptions = receipt.planseal.map(|p| p.exceptions).unwrap_or_default();
    for e in exceptions
        .iter()
        .filter(|e| GIT_KINDS.contains(&e.kind.as_str()))
    {
        out.advisory(
            "git-unverified-accepted",
            format!(
                "the plan was sealed although git could not be read ({}), accepted: {}",
                e.kind, e.reason
            ),
        )
        .file(layout::RECEIPT_FILE)
        .hint(format!(
            "once the repository is repaired, {reseal} to record checked git history"
        ));
    }
}

/// SECURITY_REVIEW.md of a completed plan (item 16, both eras).
pub(crate) fn security_review_check(files: &PlanFiles, out: &mut Out) {
    let rel = layout::SECURITY_REVIEW_FILE;
    match files.text(rel) {
        None => {
            out.fail(
                "security-review-missing",
                "completed plan has no analysis_results/SECURITY_REVIEW.md",
            )
            .file(rel)
            .hint(
                "the Final Review writes the security review; write it before claiming completion",
            );
        }
        Some(text) => match md::security_review(&text) {
            Ok(()) => {
                out.pass(
                    "security-review-clear",
                    "security review reports no unresolved critical finding",
                );
            }
            Err(md::SecurityVerdict::Open) => {
                out.fail(
                    "security-review-open-critical",
                    "security review reports an unresolved critical finding",
                )
                .file(rel)
                .hint("resolve the finding (or record its explicit acceptance) before completion");
            }
            Err(md::SecurityVerdict::Unclear) => {
                out.fail(
                    "security-review-critical-unclear",
                    "security review mentions a critical finding without saying it is resolved, fixed or accepted",
                )
                .file(rel)
                .hint("state the outcome, e.g. \"0 unresolved critical findings\" or \"fixed in <commit>\"");
            }
        },
    }
}
