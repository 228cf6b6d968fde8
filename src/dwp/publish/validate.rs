//! Step 4 of the transaction: the candidate against every artifact of the plan,
//! in this order — the first failure names the refusal:
//! 1. strict state rules on the candidate (it is completed, parses strictly, closed schema,
//!    semantics, gate rules with log pointers);
//! 2. every task record's Completion & Log: readable, not pending, `Skills disposition:`,
//!    `Documentation decision:` (a record that cannot be located is left to 3);
//! 3. the whole conformance check with the candidate in place of state.json, skipping only the
//!    marker check and the receipt check;
//! 4. the git cross-checks (`docs/history.md`) when the plan lives in a repository.
//!
//! Also the fingerprint and the covered files the receipt records. The plan is read and parsed
//! once for all of it ([`PlanFiles`]), git is opened once; the re-checks a publication makes
//! later ([`recheck_fingerprint`], [`reverify_published`]) only re-hash the fingerprinted files
//! and look at what the transaction itself wrote.

use super::FinalizeError;
use crate::dwp::check::{CheckOptions, check_read};
use crate::dwp::layout;
use crate::dwp::model::State;
use crate::dwp::model::fingerprint::{self, FileHashes, Fingerprint};
use crate::dwp::model::markdown::{LogStatus, TaskBody, decode, parse_readme};
use crate::dwp::model::receipt::{
    AcceptedException, GitSeal, RECEIPT_VERSION, Receipt, ReceiptExtension,
};
use crate::dwp::read::{FileRead, PlanDir, PlanFiles};
use crate::report::{Finding, Severity};
use planseal_recovery::hash::sha256_hex;
use serde_json::Value;
use std::path::Path;

/// What the validation looks at.
pub struct ValidationInput<'a> {
    /// The plan folder whose artifacts the candidate is checked against.
    pub plan_dir: &'a Path,
    /// The state bytes about to be published.
    pub candidate: &'a [u8],
    /// The strict parse of `candidate`, when the caller made it already.
    pub candidate_value: Option<&'a Value>,
    /// Where the candidate file lives, if it is a file (excluded from the clean-tree check).
    pub candidate_path: Option<&'a Path>,
    /// `--allow-dirty --reason TEXT`.
    pub allow_dirty_reason: Option<&'a str>,
    /// `--allow-unverified-git --reason TEXT`: seal although git could not be read.
    pub allow_unverified_git_reason: Option<&'a str>,
}

/// Everything the validation found, and what the receipt will record.
#[derive(Debug, Clone, Default)]
pub struct Validation {
    /// MUST failures; the candidate is publishable only when this is empty.
    pub failures: Vec<Finding>,
    /// Advisories met on the way, including a dirty work tree accepted with `--allow-dirty`.
    pub advisories: Vec<Finding>,
    /// Ids of the checks that passed, sorted, each once.
    pub checks_passed: Vec<String>,
    /// The artifact fingerprint of the plan as the candidate names its files.
    pub artifacts_sha256: String,
    /// Fingerprinted files → SHA-256 (`None`: absent).
    pub files: FileHashes,
    /// Gate logs cited by `log=` and `PLAN_ANALYSIS.md` → SHA-256.
    pub evidence_files: FileHashes,
    /// HEAD, branch and cleanliness of the repository; `None` outside a repository.
    pub git: Option<GitSeal>,
    /// What the user accepted and why (a dirty work tree with `--allow-dirty --reason`, git
    /// that could not be read with `--allow-unverified-git --reason`).
    pub exceptions: Vec<AcceptedException>,
    /// Checks that could not be made (`git-unreadable`): each refuses the publication unless
    /// accepted.
    pub unverified: Vec<Finding>,
    /// The names the fingerprint covers for this candidate, kept so that the re-checks of a
    /// publication re-hash the same files without parsing the candidate again.
    pub fingerprint_names: Vec<String>,
}

impl Validation {
    /// The receipt for `state_sha256` with what this validation established.
    pub fn receipt(&self, state_sha256: &str) -> Receipt {
        Receipt {
            state_sha256: state_sha256.to_string(),
            artifacts_sha256: self.artifacts_sha256.clone(),
            result: "verified".into(),
            planseal: Some(ReceiptExtension {
                receipt_version: RECEIPT_VERSION,
                tool_version: crate::TOOL_VERSION.to_string(),
                files: Some(self.files.clone()),
                evidence_files: Some(self.evidence_files.clone()),
                git: self.git.clone(),
                checks_passed: self.checks_passed.clone(),
                exceptions: self.exceptions.clone(),
            }),
        }
    }

    fn absorb(&mut self, findings: Vec<Finding>) {
        for f in findings {
            match f.severity {
                Severity::Pass => self.checks_passed.push(f.id),
                Severity::Advisory => self.advisories.push(f),
                Severity::Fail => self.failures.push(f),
                Severity::Unverified => self.unverified.push(f),
            }
        }
    }
}

/// The fingerprinted names: the six fixed ones plus every file locator (v2/v5) or v1 `file`.
pub fn fingerprint_names(candidate: &Value) -> Vec<String> {
    fingerprint::artifact_names_of(candidate)
}

/// Hashes the fingerprinted files of the plan on disk as the candidate names them (the
/// re-check a publication makes after its marker: what is on disk now).
pub fn fingerprint(plan_dir: &Path, candidate: &[u8]) -> Result<Fingerprint, FinalizeError> {
    let value: Value = serde_json::from_slice(candidate).unwrap_or(Value::Null);
    fingerprint::fingerprint(&PlanDir::new(plan_dir), &fingerprint_names(&value), true)
        .map_err(|e| FinalizeError::io(plan_dir, e))
}

/// The artifact fingerprint (hex) of the files `names` as they are on disk now: the re-check a
/// publication makes before its marker and after its rename. Every file is hashed again,
/// whatever the validation read: that is the guard against an edit during the publication.
pub(crate) fn recheck_fingerprint(
    plan_dir: &Path,
    names: &[String],
) -> Result<String, FinalizeError> {
    fingerprint::fingerprint(&PlanDir::new(plan_dir), names, false)
        .map(|fp| fp.hex)
        .map_err(|e| FinalizeError::io(plan_dir, e))
}

/// The re-verification after state.json was replaced, against the validation made under the
/// lock: state.json holds exactly the validated candidate, every fingerprinted file hashes as
/// it did (`artifacts_sha256`), and every gate log the receipt covers is still a file. The
/// markdown is not checked again: equal hashes mean the same bytes the validation checked, and
/// the only file the publication wrote among them is state.json, compared byte for byte.
/// Returns the artifact fingerprint now and what no longer holds (empty: the publication
/// stands).
pub(crate) fn reverify_published(
    plan_dir: &Path,
    published: &[u8],
    candidate: &[u8],
    validation: &Validation,
) -> Result<(String, Vec<Finding>), FinalizeError> {
    let hex = recheck_fingerprint(plan_dir, &validation.fingerprint_names)?;
    let mut failures = Vec::new();
    if published != candidate {
        failures.push(
            Finding::fail(
                "state-changed-after-publication",
                "state.json no longer holds the candidate that was validated and published",
            )
            .file(layout::STATE_FILE),
        );
    }
    let plan = PlanDir::new(plan_dir);
    for (rel, hash) in &validation.evidence_files {
        if hash.is_none() || rel == layout::PLAN_ANALYSIS_FILE {
            continue;
        }
        // One lstat for the usual plain file; a symlink or anything else takes the careful path.
        let still_a_file = std::fs::symlink_metadata(plan_dir.join(rel))
            .is_ok_and(|m| m.file_type().is_file())
            || matches!(
                plan.resolve(rel),
                Ok(crate::dwp::read::Resolved::Inside {
                    regular_file: true,
                    ..
                })
            );
        if !still_a_file {
            failures.push(
                Finding::fail(
                    "log-pointer-missing",
                    format!("{rel}: the gate log the receipt covers is no longer there"),
                )
                .file(rel.clone())
                .hint("restore the log, then run `planseal recover`"),
            );
        }
    }
    Ok((hex, failures))
}

/// The files a receipt covers.
pub struct Covered {
    /// The artifact fingerprint over the fingerprinted files.
    pub artifacts_sha256: String,
    /// Fingerprinted files → SHA-256 (`None`: absent).
    pub files: FileHashes,
    /// `PLAN_ANALYSIS.md` and every gate log cited by a `log=` pointer that resolves inside the
    /// plan folder → SHA-256.
    pub evidence_files: FileHashes,
}

/// The files the receipt covers for this candidate, read from disk.
pub fn covered_files(plan_dir: &Path, candidate: &[u8]) -> Result<Covered, FinalizeError> {
    let name = layout::plan_name(plan_dir);
    let files = PlanFiles::load(plan_dir, &name)
        .map_err(|why| FinalizeError::io(plan_dir, std::io::Error::other(why)))?;
    let value: Value = serde_json::from_slice(candidate).unwrap_or(Value::Null);
    covered_in(&files, &value, &fingerprint_names(&value))
}

/// The covered files of a plan already read, for the candidate `value` whose fingerprinted
/// files are `names`.
fn covered_in(
    files: &PlanFiles,
    value: &Value,
    names: &[String],
) -> Result<Covered, FinalizeError> {
    let fp = fingerprint::fingerprint(files, names, true)
        .map_err(|e| FinalizeError::io(&files.dir, e))?;
    let mut evidence = FileHashes::new();
    // A file that exists but cannot be read (EIO) is an error, never left out of the receipt.
    let mut cover = |rel: &str, read: &FileRead| -> Result<(), FinalizeError> {
        match read {
            FileRead::Bytes(bytes) => {
                evidence.insert(rel.to_string(), Some(sha256_hex(bytes)));
            }
            FileRead::Unreadable(why) => {
                return Err(FinalizeError::io(
                    &files.dir.join(rel),
                    std::io::Error::other(why.clone()),
                ));
            }
            FileRead::Missing | FileRead::Outside(_) => {}
        }
        Ok(())
    };
    cover(
        layout::PLAN_ANALYSIS_FILE,
        files.get(layout::PLAN_ANALYSIS_FILE),
    )?;
    for log in log_pointers(value) {
        cover(&log, &crate::dwp::read::read_inside(&files.dir, &log))?;
    }
    Ok(Covered {
        artifacts_sha256: fp.hex.clone(),
        files: fp.files_map(),
        evidence_files: evidence,
    })
}

/// Every `log=` pointer in the gate evidence of the candidate (`\blog=([^\s;]+)`, case-sensitive).
fn log_pointers(candidate: &Value) -> Vec<String> {
    let re = regex::Regex::new(r"\blog=([^\s;]+)")
        .expect("the log pointer pattern is a valid regex because it is a constant");
    let mut out = Vec::new();
    for task in candidate
        .get("tasks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for gate in task
            .get("gates")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(ev) = gate.get("evidence").and_then(Value::as_str) {
                for cap in re.captures_iter(ev) {
                    out.push(cap[1].to_string());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Step 4: every check of the candidate. Failures are collected, not thrown: the caller refuses
/// with all of them, the first naming the refusal.
pub fn validate_candidate(input: &ValidationInput<'_>) -> Result<Validation, FinalizeError> {
    validate_candidate_with(input, &[])
}

/// [`validate_candidate`] with `overlay` (plan-relative name → bytes) read in place of the files
/// on disk: the plan as it will be once the publication has written them too.
pub(crate) fn validate_candidate_with(
    input: &ValidationInput<'_>,
    overlay: &[(String, Vec<u8>)],
) -> Result<Validation, FinalizeError> {
    let mut v = Validation::default();
    let name = layout::plan_name(input.plan_dir);
    // The plan read once, with the candidate in state.json's place.
    let mut files = match PlanFiles::load(input.plan_dir, &name) {
        Ok(files) => files,
        Err(why) => {
            v.failures.push(
                Finding::fail(
                    "plan-unreadable",
                    format!(
                        "the plan could not be checked: the plan folder cannot be listed: {why}"
                    ),
                )
                .hint("fix the permissions or the unreadable file, then run again"),
            );
            return Ok(v);
        }
    };
    files.display = input.plan_dir.display().to_string();
    for (name, bytes) in overlay {
        files
            .files
            .insert(name.clone(), FileRead::Bytes(bytes.clone()));
    }
    files.files.insert(
        layout::STATE_FILE.into(),
        FileRead::Bytes(input.candidate.to_vec()),
    );
    // The candidate parsed once: strictly when it can be, for the checks and the covered files.
    let strict = match input.candidate_value {
        Some(value) => Ok(std::borrow::Cow::Borrowed(value)),
        None => {
            crate::dwp::check::shape::parse_strict(input.candidate).map(std::borrow::Cow::Owned)
        }
    };
    let lenient;
    let candidate_value: &Value = match &strict {
        Ok(value) => value,
        Err(_) => {
            lenient = serde_json::from_slice(input.candidate).unwrap_or(Value::Null);
            &lenient
        }
    };
    v.fingerprint_names = fingerprint_names(candidate_value);
    let covered = covered_in(&files, candidate_value, &v.fingerprint_names)?;
    v.artifacts_sha256 = covered.artifacts_sha256;
    v.files = covered.files;
    v.evidence_files = covered.evidence_files;

    // 1. strict state rules
    let value = match strict {
        Ok(value) => value,
        Err(why) => {
            v.failures.push(
                Finding::fail(
                    "candidate-unparseable",
                    format!("the candidate is not valid JSON ({why})"),
                )
                .hint("pass the complete state file the plan should be published with"),
            );
            return Ok(v);
        }
    };
    if value.get("status").and_then(Value::as_str) != Some("completed") {
        v.failures.push(
            Finding::fail(
                "candidate-not-completed",
                "the candidate's status is not `completed`: only a completed state can be published",
            )
            .hint("complete the last task with `planseal update … --status completed`"),
        );
        return Ok(v);
    }
    let strict = crate::dwp::check::semantics::validate_candidate(&value, input.plan_dir);
    if strict.is_empty() {
        v.checks_passed.push("candidate-valid".into());
    }
    v.absorb(strict);
    if !v.failures.is_empty() {
        return Ok(v);
    }
    let state = State::from_value(&value);

    // 2. task records
    v.absorb(task_record_findings(&files, &value));

    // 3. the conformance check with the candidate in place
    let section = check_read(
        &mut files,
        &name,
        &CheckOptions {
            skip_marker: true,
            skip_receipt: true,
            state_override: Some(input.candidate.to_vec()),
            skip_git_drift: true,
            repositories: None,
        },
    );
    if let Some(why) = &section.unverified {
        v.failures.push(
            Finding::fail(
                "plan-unreadable",
                format!("the plan could not be checked: {why}"),
            )
            .hint("fix the permissions or the unreadable file, then run again"),
        );
    }
    v.absorb(
        section
            .findings
            .into_iter()
            .filter(|f| f.id != "semantic-review-required")
            .collect(),
    );

    // 4. git, opened once for the cross-checks (with the one clean-tree status) and the seal
    let mut dirty = Vec::new();
    let mut git_findings = Vec::new();
    match planseal_recovery::git::Repo::discover(input.plan_dir) {
        Ok(Some(repo)) => {
            let cross = crate::dwp::history::cross_checks_in_repo(
                &repo,
                &crate::dwp::history::CrossCheck {
                    plan_dir: input.plan_dir,
                    shown: input.plan_dir,
                    state: &state,
                    candidate: input.candidate_path,
                    mode: crate::dwp::history::CheckMode::Finalize,
                    published_head: None,
                },
            );
            for f in cross {
                if f.id == "worktree-dirty" && f.severity == Severity::Fail {
                    dirty.push(f);
                } else {
                    git_findings.push(f);
                }
            }
            match git_seal(&repo, dirty.is_empty()) {
                Ok(seal) => v.git = Some(seal),
                // A repository that cannot be read is never "no repository".
                Err(e) => {
                    if !git_findings
                        .iter()
                        .any(|f| f.severity == Severity::Unverified)
                    {
                        git_findings
                            .push(crate::dwp::history::unreadable_finding(None, &e).plan(&name));
                    }
                }
            }
        }
        Ok(None) => v.advisories.push(Finding::advisory(
            "git-not-applicable",
            "the plan is not in a git repository: git checks not applicable",
        )),
        Err(e) => {
            git_findings.push(crate::dwp::history::unreadable_finding(None, &e).plan(&name));
        }
    }
    match input.allow_dirty_reason {
        Some(reason) if !dirty.is_empty() => {
            v.exceptions.push(AcceptedException {
                kind: "worktree-dirty".into(),
                reason: reason.to_string(),
                subjects: dirty.iter().filter_map(|f| f.file.clone()).collect(),
            });
            for f in dirty {
                v.advisories.push(Finding {
                    severity: Severity::Advisory,
                    message: format!("{} (accepted: {reason})", f.message),
                    ..f
                });
            }
        }
        _ => {
            for f in &mut dirty {
                f.hint = Some(
                    "commit or stash the change, or accept it with `--allow-dirty --reason TEXT` (recorded in the receipt)"
                        .into(),
                );
            }
            git_findings.extend(dirty);
        }
    }
    v.absorb(git_findings);
    accept_unverified_git(&mut v, input.allow_unverified_git_reason);

    v.checks_passed.sort();
    v.checks_passed.dedup();
    Ok(v)
}

/// Git that could not be read refuses the publication (a failure with the way out in its hint),
/// unless `--allow-unverified-git --reason` accepts it: then an exception the receipt records
/// (the finding id, the reason, the message naming the repository and the object) and an
/// advisory.
fn accept_unverified_git(v: &mut Validation, reason: Option<&str>) {
    let unverified = std::mem::take(&mut v.unverified);
    for f in unverified {
        match reason {
            Some(reason) => {
                v.exceptions.push(AcceptedException {
                    kind: f.id.clone(),
                    reason: reason.to_string(),
                    subjects: vec![f.message.clone()],
                });
                v.advisories.push(Finding {
                    severity: Severity::Advisory,
                    message: format!("{} (accepted: {reason})", f.message),
                    ..f
                });
            }
            // The finding's hint names the repository's repair and the escape.
            None => v.failures.push(Finding {
                severity: Severity::Fail,
                ..f
            }),
        }
    }
}

/// HEAD / branch / clean of the repository the plan lives in. A HEAD that cannot be read is an
/// error; with `--allow-unverified-git` the receipt then records no git seal.
fn git_seal(
    repo: &planseal_recovery::git::Repo,
    clean: bool,
) -> Result<GitSeal, planseal_recovery::git::GitError> {
    let head = repo.head()?;
    Ok(GitSeal {
        head: head.id.unwrap_or_default(),
        branch: head.branch,
        clean,
    })
}

/// Every task record has a readable Completion & Log that is not pending, a `Skills
/// disposition:` and a `Documentation decision:` (the helper's publish rule). A record that
/// cannot be located (missing file, removed anchor) is left to the conformance check.
fn task_record_findings(files: &PlanFiles, candidate: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let no_tasks = Vec::new();
    let tasks = candidate
        .get("tasks")
        .and_then(Value::as_array)
        .unwrap_or(&no_tasks);
    // The README is parsed only for a plan with inline records (Lite, or a task without a file).
    let readme = std::cell::OnceCell::new();
    let readme = || {
        readme.get_or_init(|| {
            let bytes = files.bytes(layout::README_FILE).unwrap_or_default();
            parse_readme(decode(bytes).unwrap_or(""))
        })
    };
    let mut all_ok = true;
    for (i, task) in tasks.iter().enumerate() {
        let n = task
            .get("id")
            .and_then(Value::as_u64)
            .unwrap_or(i as u64 + 1);
        let file = match task.get("locator") {
            Some(loc) if loc.get("kind").and_then(Value::as_str) == Some("file") => {
                loc.get("value").and_then(Value::as_str)
            }
            Some(_) => None,
            None => task.get("file").and_then(Value::as_str),
        };
        let read_now;
        let text;
        let (body, shown) = match file {
            Some(f) => {
                // Read with the plan when it is a task file of the listing, now otherwise.
                let read = match files.files.get(f) {
                    Some(read) => read,
                    None => {
                        read_now = crate::dwp::read::read_inside(&files.dir, f);
                        &read_now
                    }
                };
                let FileRead::Bytes(bytes) = read else {
                    continue;
                };
                text = String::from_utf8_lossy(bytes);
                (TaskBody::new(&text), f.to_string())
            }
            None => {
                let Some(record) = u32::try_from(n)
                    .ok()
                    .and_then(|n| readme().inline.record(n))
                else {
                    continue;
                };
                (record.body.clone(), format!("README.md (task {n})"))
            }
        };
        let mut items = Vec::new();
        match body.completion_log() {
            None => items.push("log-section-unreadable"),
            // planseal is stricter than "not pending": a completed task's log
            // must say so; any other task (skipped) still needs a Status that is not pending.
            Some(log) => match log.log_status() {
                None => items.push("log-status-missing"),
                Some(LogStatus::Pending) => items.push("log-status-pending"),
                Some(LogStatus::Completed) => {}
                Some(_) if task.get("status").and_then(Value::as_str) == Some("completed") => {
                    items.push("log-status-not-completed")
                }
                Some(_) => {}
            },
        }
        if !body.has_skills_disposition() {
            items.push("skills-disposition-missing");
        }
        if !body.has_documentation_decision() {
            items.push("documentation-decision-missing");
        }
        if !items.is_empty() {
            all_ok = false;
            out.push(
                Finding::fail(
                    "task-record-unpublishable",
                    format!(
                        "task {n}: its record in {shown} cannot be published: {}",
                        items.join(", ")
                    ),
                )
                .task(n)
                .file(shown)
                .hint("fill in the Completion & Log (Status: completed, Skills disposition:, Documentation decision:) before publishing"),
            );
        }
    }
    if all_ok {
        out.push(Finding::pass(
            "task-records-publishable",
            "every task record has a completed Completion & Log with skills disposition and documentation decision",
        ));
    }
    out
}
