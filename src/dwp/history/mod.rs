//! The plan's trace in git (`docs/history.md`): which commits name which task, the drift between
//! those commits and state.json that `verify` reports as advisories, and the git cross-checks
//! that `finalize` requires.
//!
//! A commit *names* task N of PLAN_x iff its subject (first line), right-trimmed, matches
//! `- Task ([0-9]+) of (PLAN_[a-z0-9_]+)$`; type and scope are not required.
//!
//! ```
//! use planseal::dwp::history::task_named;
//! assert_eq!(task_named("feat(x): y - Task 3 of PLAN_demo  "), Some((3, "PLAN_demo")));
//! assert_eq!(task_named("Task 3 of PLAN_demo"), None);
//! ```

pub mod diff;

use crate::dwp::layout;
use crate::dwp::model::State;
use crate::recovery::git::{CommitInfo, GitError, Repo, Scan, StatusEntry};
use crate::report::Finding;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

/// The task number and plan name a commit subject names, if it names one.
pub fn task_named(subject: &str) -> Option<(u64, &str)> {
    const MARK: &str = "- Task ";
    let s = subject.trim_end();
    // Only the last "- Task " can start a match that runs to the end of the line.
    let start = s.rfind(MARK)? + MARK.len();
    let rest = &s[start..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let number: u64 = rest[..digits].parse().ok()?;
    let plan = rest[digits..].strip_prefix(" of ")?;
    let name = plan.strip_prefix("PLAN_")?;
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
    {
        return None;
    }
    Some((number, plan))
}

/// The commits that name tasks of one plan, per task, most recent first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskCommits {
    /// For each task number, the commits whose subject names it, most recent first; a task no
    /// commit names has no entry.
    pub by_task: BTreeMap<u64, Vec<CommitInfo>>,
    /// Commits walked.
    pub walked: u64,
    /// The walk hit a shallow-clone boundary: older task commits may exist but cannot be read.
    pub truncated: bool,
}

impl TaskCommits {
    /// The most recent commit reachable from HEAD naming `task`: the one `rebuild` takes as the
    /// commit that completed it.
    pub fn latest(&self, task: u64) -> Option<&CommitInfo> {
        self.by_task.get(&task).and_then(|v| v.first())
    }
}

/// One walk from HEAD over all parents collecting the commits that name tasks of `plan_name`.
pub fn task_commits(repo: &Repo, plan_name: &str) -> Result<TaskCommits, GitError> {
    let scan = repo.scan_messages(|subject, _| match task_named(subject) {
        Some((_, plan)) if plan == plan_name => Scan::Take,
        _ => Scan::Skip,
    })?;
    let mut by_task: BTreeMap<u64, Vec<CommitInfo>> = BTreeMap::new();
    for commit in scan.commits {
        if let Some((n, _)) = task_named(&commit.subject) {
            by_task.entry(n).or_default().push(commit);
        }
    }
    for commits in by_task.values_mut() {
        // The walk is newest-first already; keep that order stable for equal times.
        commits.sort_by_key(|c| std::cmp::Reverse(c.committer_time.seconds));
    }
    Ok(TaskCommits {
        by_task,
        walked: scan.walked,
        truncated: scan.truncated,
    })
}

fn rebuild_hint(plan_dir: &Path) -> String {
    format!(
        "run `planseal rebuild {}` to see how state.json would be reconciled",
        plan_dir.display()
    )
}

/// The finding for a git check that could not be made: `git-unreadable` (an object, `HEAD`,
/// the index, the repository itself could not be read) or `git-object-format-unsupported` —
/// never a failure and never an advisory, the plan is UNVERIFIED. It names the repository
/// (`repository`: its git directory when it was opened) and, in `e`, the object.
pub fn unreadable_finding(repository: Option<&Path>, e: &GitError) -> Finding {
    let (id, message) = match e {
        GitError::ObjectFormatUnsupported { .. } => (
            "git-object-format-unsupported",
            format!("git checks not made: {e}"),
        ),
        GitError::Open { .. } => ("git-unreadable", format!("git checks not made: {e}")),
        _ => (
            "git-unreadable",
            match repository {
                Some(repo) => format!("git checks not made (repository {}): {e}", repo.display()),
                None => format!("git checks not made: {e}"),
            },
        ),
    };
    const ESCAPE: &str = "to seal the plan anyway: `planseal finalize … --allow-unverified-git --reason TEXT` (recorded in the receipt as an exception)";
    let hint = match e.object_id() {
        Some(object) => format!(
            "repair the repository (`git fsck` lists what is damaged; fetch object {object} again from a clone that has it), then run again; {ESCAPE}"
        ),
        None if id == "git-object-format-unsupported" => {
            format!("check the plan with a build that reads this object format; {ESCAPE}")
        }
        None => format!(
            "repair the repository (`git fsck` says what is damaged), then run again; {ESCAPE}"
        ),
    };
    Finding::unverified(id, message).hint(hint)
}

fn git_unreadable(plan: &str, repository: Option<&Path>, e: &GitError) -> Finding {
    unreadable_finding(repository, e).plan(plan)
}

/// How the git cross-checks judge what they find: the same checks, ids and hints for every
/// caller, only the severities differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckMode {
    /// `finalize`: every disagreement is a failure, and the work tree must be clean.
    Finalize,
    /// `verify` of a published plan (a receipt is present): every disagreement is a failure.
    Published,
    /// `verify` of a plan in progress: a missing commit is a failure, the rest advisories.
    InProgress,
}

/// What the cross-checks look at.
#[derive(Debug, Clone, Copy)]
pub struct CrossCheck<'a> {
    /// The plan folder.
    pub plan_dir: &'a Path,
    /// The plan folder as the hints show it.
    pub shown: &'a Path,
    /// The state whose recorded commits are checked.
    pub state: &'a State,
    /// The finalization candidate (left out of the work-tree check).
    pub candidate: Option<&'a Path>,
    /// Who asks, and so how severe each disagreement is.
    pub mode: CheckMode,
    /// The receipt's `git.head` (what HEAD was at publication), for [`CheckMode::Published`].
    pub published_head: Option<&'a str>,
}

/// Drift between the git log and state.json, as `verify` reports it for a plan in progress:
/// the cross-checks of [`cross_checks`] in [`CheckMode::InProgress`] plus the commits that name
/// tasks the state does not call completed. Empty when the plan is not in a repository.
pub fn drift_findings(plan_dir: &Path, state: &State) -> Vec<Finding> {
    cross_checks(&CrossCheck {
        plan_dir,
        shown: plan_dir,
        state,
        candidate: None,
        mode: CheckMode::InProgress,
        published_head: None,
    })
}

/// The git cross-checks that `finalize` requires ([`cross_checks`] in [`CheckMode::Finalize`]):
/// each completed task's `commit` exists, is an ancestor of HEAD and names the task; no two
/// tasks share a commit; `fp=` revisions exist; the work tree is clean apart from ignored
/// paths, the plan's own folder and `candidate`. A tracked `.dwp/` is an advisory. Beyond a
/// shallow boundary, advisories. Empty when the plan is not in a repository.
pub fn git_cross_checks(plan_dir: &Path, state: &State, candidate: Option<&Path>) -> Vec<Finding> {
    cross_checks(&CrossCheck {
        plan_dir,
        shown: plan_dir,
        state,
        candidate,
        mode: CheckMode::Finalize,
        published_head: None,
    })
}

/// The one implementation of the git cross-checks, shared by `verify` and `finalize`
/// (`docs/verify.md`): one commit walk from HEAD per call — for a published plan and for
/// finalize stopping as soon as every recorded commit, the published head and a commit naming
/// each completed task have been seen; for a plan in progress over the whole history. Empty
/// when the plan is not in a repository. When git cannot be read — the repository, or any
/// object a check rests on — the one finding is [`unreadable_finding`] (UNVERIFIED): no check
/// that a partial walk could answer wrongly (`commit-missing`, `commit-not-ancestor`, …) is
/// reported from it.
pub fn cross_checks(req: &CrossCheck<'_>) -> Vec<Finding> {
    let plan = crate::dwp::layout::plan_name(req.plan_dir);
    let repo = match Repo::discover(req.plan_dir) {
        Ok(Some(repo)) => repo,
        Ok(None) => return Vec::new(),
        Err(e) => return vec![git_unreadable(&plan, None, &e)],
    };
    cross_checks_in_repo(&repo, req)
}

/// [`cross_checks`] in a repository already open (`verify` opens it once per plan for every
/// git check).
pub fn cross_checks_in_repo(repo: &Repo, req: &CrossCheck<'_>) -> Vec<Finding> {
    let plan = crate::dwp::layout::plan_name(req.plan_dir);
    match cross_checks_in(repo, req, &plan) {
        Ok(findings) => findings,
        Err(e) => vec![git_unreadable(&plan, Some(repo.git_dir()), &e)],
    }
}

/// When `commit` descends from HEAD (a reset moved the branch back past it), the command that
/// brings it back without touching anything else: a fast-forward.
fn restore_history_hint(
    repo: &Repo,
    commit: &str,
    short: &str,
) -> Result<Option<String>, GitError> {
    Ok((repo.is_ancestor("HEAD", commit)? == Some(true)).then(|| {
        format!("if a reset dropped it by mistake, fast-forward back to it: `git merge --ff-only {short}`")
    }))
}

fn truncated_advisory(plan: &str, task: Option<u64>, what: String) -> Finding {
    let mut f = Finding::advisory(
        "history-truncated",
        format!("{what}; history truncated (shallow clone)"),
    )
    .plan(plan)
    .hint("fetch more history (`git fetch --unshallow`) to check it");
    f.task = task;
    f
}

/// A recorded commit as the repository knows it.
enum Recorded {
    Found(CommitInfo),
    Missing,
    Ambiguous,
}

fn cross_checks_in(
    repo: &Repo,
    req: &CrossCheck<'_>,
    plan: &str,
) -> Result<Vec<Finding>, GitError> {
    let (state, mode, shown) = (req.state, req.mode, req.shown);
    let soft = |id: &str, msg: String| match mode {
        CheckMode::InProgress => Finding::advisory(id, msg),
        _ => Finding::fail(id, msg),
    };
    let mut out = Vec::new();
    let shallow = repo.is_shallow();

    // 1. The recorded commits of the completed tasks, looked up by id (no walk).
    let completed: BTreeSet<u64> = state
        .tasks
        .iter()
        .filter(|t| t.is_completed())
        .filter_map(|t| t.id)
        .collect();
    // A full id is only looked up when the walk does not reach it (its subject comes from the
    // walk); a prefix is resolved first.
    let mut recorded: Vec<(u64, String, Recorded)> = Vec::new();
    let mut deferred: HashSet<String> = HashSet::new();
    for task in state.tasks.iter().filter(|t| t.is_completed()) {
        let (Some(n), Some(commit)) = (task.id, task.commit.as_deref()) else {
            continue;
        };
        let text = commit.trim();
        if text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            let full = text.to_ascii_lowercase();
            deferred.insert(full.clone());
            recorded.push((
                n,
                commit.to_string(),
                Recorded::Found(CommitInfo {
                    id: full,
                    short: String::new(),
                    subject: String::new(),
                    committer_time: Default::default(),
                    parents: Vec::new(),
                }),
            ));
            continue;
        }
        let found = match repo.find_commit(commit) {
            Ok(Some(c)) => Recorded::Found(c),
            Ok(None) => Recorded::Missing,
            Err(GitError::AmbiguousPrefix { .. }) => Recorded::Ambiguous,
            Err(e) => return Err(e),
        };
        recorded.push((n, commit.to_string(), found));
    }

    // 2. One walk: the commits naming the plan's tasks, which wanted commits HEAD reaches, and
    // the commits carrying a wanted subject (a squash or rebase merge keeps the subject). Only
    // ids and subjects are kept; a commit a finding shows is looked up afterwards.
    let head = req
        .published_head
        .filter(|_| mode == CheckMode::Published)
        .map(str::trim)
        .filter(|h| h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_ascii_lowercase);
    let mut want: HashSet<String> = HashSet::new();
    let mut own_ids: HashSet<String> = HashSet::new();
    let mut subjects: HashSet<String> = HashSet::new();
    for (_, _, r) in &recorded {
        if let Recorded::Found(c) = r {
            want.insert(c.id.clone());
            own_ids.insert(c.id.clone());
            if !c.subject.is_empty() {
                subjects.insert(c.subject.trim_end().to_string());
            }
        }
    }
    if let Some(h) = &head {
        want.insert(h.clone());
    }
    // A plan in progress walks the whole history: a commit naming a task the state does not
    // call completed yet (a writer killed after the commit) may lie anywhere. A published plan
    // (and finalize) stops once every recorded commit and the published head were seen.
    let may_stop = mode != CheckMode::InProgress;
    let mut unnamed: BTreeSet<u64> = completed.clone();
    let mut reached: HashMap<String, String> = HashMap::new();
    let mut named: BTreeMap<u64, (String, String)> = BTreeMap::new();
    let mut carriers: BTreeMap<String, String> = BTreeMap::new();
    let scan_subjects = |subjects: &HashSet<String>,
                         carriers: &mut BTreeMap<String, String>|
     -> Result<(), GitError> {
        repo.scan_ids(|id, subject| {
            let s = subject.trim_end();
            if !own_ids.contains(id) && subjects.contains(s) && !carriers.contains_key(s) {
                carriers.insert(s.to_string(), id.to_string());
            }
            Scan::Skip
        })?;
        Ok(())
    };
    let scan = repo.scan_ids(|id, subject| {
        if let Some((n, p)) = task_named(subject)
            && p == plan
        {
            named
                .entry(n)
                .or_insert_with(|| (id.to_string(), subject.to_string()));
            unnamed.remove(&n);
        }
        if want.remove(id) {
            reached.insert(id.to_string(), subject.to_string());
        }
        let s = subject.trim_end();
        if !own_ids.contains(id) && subjects.contains(s) && !carriers.contains_key(s) {
            carriers.insert(s.to_string(), id.to_string());
        }
        if may_stop && want.is_empty() && unnamed.is_empty() {
            Scan::Stop
        } else {
            Scan::Skip
        }
    })?;
    let truncated = scan.truncated;
    // The deferred full ids: subjects from the walk; the unreached ones looked up now.
    let mut late_subjects: HashSet<String> = HashSet::new();
    for (_, _, r) in &mut recorded {
        let Recorded::Found(c) = r else { continue };
        if !deferred.contains(&c.id) {
            continue;
        }
        if let Some(subject) = reached.get(&c.id) {
            c.subject = subject.clone();
            continue;
        }
        match repo.find_commit(&c.id)? {
            Some(info) => {
                let s = info.subject.trim_end().to_string();
                if !subjects.contains(&s) {
                    late_subjects.insert(s);
                }
                *c = info;
            }
            None => *r = Recorded::Missing,
        }
    }
    if !late_subjects.is_empty() && !truncated {
        // An unreachable commit whose subject the walk did not know to look for: one more walk
        // (only in this broken case) for a commit that carries it.
        scan_subjects(&late_subjects, &mut carriers)?;
    }
    let info_of = |id: &str| -> Result<Option<CommitInfo>, GitError> { repo.find_commit(id) };
    // The commits naming tasks, looked up only where a finding may show them: tasks the state
    // does not call completed (or does not have) and tasks whose recorded commit is missing.
    let mut by_task: BTreeMap<u64, Vec<CommitInfo>> = BTreeMap::new();
    for (n, (id, subject)) in &named {
        let needs_info = !completed.contains(n)
            || recorded
                .iter()
                .any(|(m, _, r)| m == n && matches!(r, Recorded::Missing));
        let info = if needs_info { info_of(id)? } else { None };
        by_task
            .entry(*n)
            .or_default()
            .push(info.unwrap_or_else(|| CommitInfo {
                id: id.clone(),
                short: id[..id.len().min(7)].to_string(),
                subject: subject.clone(),
                committer_time: Default::default(),
                parents: Vec::new(),
            }));
    }
    let unreached_subjects: HashSet<String> = recorded
        .iter()
        .filter_map(|(_, _, r)| match r {
            Recorded::Found(c) if !reached.contains_key(&c.id) => {
                Some(c.subject.trim_end().to_string())
            }
            _ => None,
        })
        .collect();
    let mut by_subject: BTreeMap<String, CommitInfo> = BTreeMap::new();
    for (subject, id) in carriers
        .iter()
        .filter(|(s, _)| unreached_subjects.contains(*s))
    {
        if let Some(info) = info_of(id)? {
            by_subject.insert(subject.clone(), info);
        }
    }
    let reached: HashSet<String> = reached.into_keys().collect();
    let commits = TaskCommits {
        by_task,
        walked: scan.walked,
        truncated,
    };

    // A plan none of whose recorded commits this repository has, and none of whose tasks any
    // commit names, was not made here (a copied plan, a fixture inside another project): one
    // advisory says so instead of a failure per task. finalize stays strict.
    let foreign = mode != CheckMode::Finalize
        && !recorded.is_empty()
        && recorded
            .iter()
            .all(|(_, _, r)| matches!(r, Recorded::Missing))
        && commits.by_task.is_empty()
        && !shallow;
    if foreign {
        let mut f = Finding::advisory(
            "plan-not-from-this-repository",
            format!(
                "none of the {} commit(s) state.json records is in this repository and no commit names a task of {plan}: git checks skipped",
                recorded.len()
            ),
        )
        .plan(plan)
        .hint("run verify in the repository the plan was made in");
        f.task = None;
        return Ok(vec![f]);
    }

    // 3. Each recorded commit.
    let mut by_commit: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut flagged: BTreeSet<u64> = BTreeSet::new();
    let rewritten = |n: u64, recorded: &str, carrier: &CommitInfo, why: &str| -> Finding {
        let msg = format!(
            "task {n}: commit {recorded} {why}, but commit {} on HEAD's history carries the task now (a squash or rebase merge): \"{}\"",
            carrier.short,
            carrier.subject.trim_end()
        );
        let hint = format!(
            "record commit {} for task {n}: {}",
            carrier.short,
            rebuild_hint(shown)
        );
        match mode {
            CheckMode::Finalize => Finding::fail("commit-not-ancestor", msg),
            _ => Finding::advisory("commit-rewritten", msg),
        }
        .plan(plan)
        .task(n)
        .hint(hint)
    };
    for (n, text, r) in &recorded {
        let n = *n;
        match r {
            Recorded::Ambiguous => {
                flagged.insert(n);
                out.push(
                    Finding::fail(
                        "commit-missing",
                        format!("task {n}: commit {text} is ambiguous in this repository"),
                    )
                    .plan(plan)
                    .task(n)
                    .hint("record more hex digits of the commit in state.json"),
                );
            }
            Recorded::Missing => {
                flagged.insert(n);
                // Its subject is unknown, so nothing can be said to carry it; a commit naming
                // the task is shown in the hint.
                if shallow {
                    out.push(truncated_advisory(
                        plan,
                        Some(n),
                        format!("task {n}: commit {text} is not in this shallow clone"),
                    ));
                } else {
                    out.push(
                        Finding::fail(
                            "commit-missing",
                            format!("task {n}: commit {text} does not exist in this repository"),
                        )
                        .plan(plan)
                        .task(n)
                        .hint(match commits.latest(n) {
                            Some(c) => format!(
                                "commit {} names task {n}: if it completed the task, record it — {}",
                                c.short,
                                rebuild_hint(shown)
                            ),
                            None => rebuild_hint(shown),
                        }),
                    );
                }
            }
            Recorded::Found(commit) => {
                by_commit.entry(commit.id.clone()).or_default().push(n);
                if !reached.contains(&commit.id) {
                    flagged.insert(n);
                    let carrier = by_subject.get(commit.subject.trim_end());
                    if let Some(c) = carrier {
                        out.push(rewritten(n, &commit.short, c, "is not reachable from HEAD"));
                    } else if truncated {
                        out.push(truncated_advisory(
                            plan,
                            Some(n),
                            format!(
                                "task {n}: cannot tell whether commit {} is an ancestor of HEAD",
                                commit.short
                            ),
                        ));
                    } else {
                        let hint = restore_history_hint(repo, &commit.id, &commit.short)?
                            .unwrap_or_else(|| {
                                format!(
                                    "bring the commit back onto this branch (`git merge {}`), or reopen task {n} if its work is meant to be gone (an amendment in its log, then `planseal update … --task {n} --status in_progress --reopen-reason …`)",
                                    commit.short
                                )
                            });
                        out.push(
                            soft(
                                "commit-not-ancestor",
                                format!(
                                    "task {n}: commit {} is not reachable from HEAD (was the branch reset or rebased?)",
                                    commit.short
                                ),
                            )
                            .plan(plan)
                            .task(n)
                            .hint(hint),
                        );
                    }
                    continue;
                }
                match task_named(&commit.subject) {
                    Some((m, p)) if m == n && p == plan => {}
                    _ => {
                        flagged.insert(n);
                        let commit = &match repo.find_commit(&commit.id)? {
                            Some(info) if commit.short.is_empty() => info,
                            _ => commit.clone(),
                        };
                        out.push(
                        soft(
                            "commit-subject-mismatch",
                            format!(
                                "task {n}: the subject of commit {} does not name `Task {n} of {plan}`: \"{}\"",
                                commit.short,
                                commit.subject.trim_end()
                            ),
                        )
                        .plan(plan)
                        .task(n)
                        .hint(format!(
                            "record the commit whose subject ends in `- Task {n} of {plan}` (see `planseal log {}`)",
                            shown.display()
                        )),
                    )
                    }
                }
            }
        }
    }
    for (id, tasks) in &by_commit {
        if tasks.len() > 1 {
            let list: Vec<String> = tasks.iter().map(u64::to_string).collect();
            out.push(
                soft(
                    "commit-shared",
                    format!(
                        "tasks {} record the same commit {}",
                        list.join(", "),
                        &id[..id.len().min(12)]
                    ),
                )
                .plan(plan)
                .task(tasks[0])
                .hint("each task records the commit that completed it"),
            );
        }
    }
    let checked = recorded.len();
    if checked > 0
        && !out
            .iter()
            .any(|f| f.severity != crate::report::Severity::Pass)
    {
        out.push(
            Finding::pass(
                "task-commits",
                format!(
                    "{checked} task commit(s) exist, are ancestors of HEAD and name their tasks"
                ),
            )
            .plan(plan),
        );
    }

    // 4. The head the plan was published at.
    if let Some(h) = &head {
        let short = &h[..12];
        if reached.contains(h) {
            out.push(
                Finding::pass(
                    "published-head-contained",
                    format!("HEAD contains the commit {short} the plan was published at"),
                )
                .plan(plan),
            );
        } else if truncated {
            out.push(truncated_advisory(
                plan,
                None,
                format!(
                    "cannot tell whether HEAD contains the commit {short} the plan was published at"
                ),
            ));
        } else {
            out.push(
                Finding::fail(
                    "published-head-not-contained",
                    format!(
                        "HEAD no longer contains the commit {short} the plan was published at (was the branch reset or rebased?)"
                    ),
                )
                .plan(plan)
                .hint(match restore_history_hint(repo, h, short)? {
                    Some(ff) => format!(
                        "{ff}; if the new history is meant, re-seal the plan with `planseal finalize {}`",
                        shown.display()
                    ),
                    None => format!(
                        "check out a branch that contains {short}, or, if the new history is meant, re-seal the plan with `planseal finalize {}`",
                        shown.display()
                    ),
                }),
            );
        }
    }

    // 5. fp= revisions in gate evidence.
    let mut fp_seen = BTreeSet::new();
    let mut fp_ok = 0usize;
    for task in &state.tasks {
        let n = task.id.unwrap_or_default();
        for gate in &task.gates {
            for rev in fp_revisions(gate.evidence_text()) {
                if !fp_seen.insert((n, rev.to_string())) {
                    continue;
                }
                let exists = match repo.commit_exists(rev) {
                    Ok(b) => b,
                    // An ambiguous prefix names something that exists.
                    Err(GitError::AmbiguousPrefix { .. }) => true,
                    Err(e) => return Err(e),
                };
                if exists {
                    fp_ok += 1;
                } else if shallow {
                    out.push(truncated_advisory(
                        plan,
                        Some(n),
                        format!("task {n}: gate revision fp={rev} is not in this shallow clone"),
                    ));
                } else {
                    out.push(
                        soft(
                            "fp-revision-missing",
                            format!(
                                "task {n}: gate evidence cites fp={rev}, which is no commit of this repository"
                            ),
                        )
                        .plan(plan)
                        .task(n)
                        .group("fp-revision-missing")
                        .hint("re-run the gate at an existing revision and record it"),
                    );
                }
            }
        }
    }
    if fp_ok > 0 && !out.iter().any(|f| f.id == "fp-revision-missing") {
        out.push(
            Finding::pass(
                "fp-revisions",
                format!("{fp_ok} gate revision(s) (fp=) exist"),
            )
            .plan(plan),
        );
    }

    if mode == CheckMode::Finalize {
        worktree_checks(repo, req.plan_dir, plan, req.candidate, &mut out)?;
    } else {
        drift_into(shown, plan, state, &commits, &flagged, &mut out);
    }
    Ok(out)
}

/// The drift advisories of `verify`: commits naming tasks the state does not call completed (or
/// does not have), and completed tasks no walked commit names (left out for a task whose
/// recorded commit a cross-check already reported).
fn drift_into(
    shown: &Path,
    plan: &str,
    state: &State,
    commits: &TaskCommits,
    flagged: &BTreeSet<u64>,
    out: &mut Vec<Finding>,
) {
    let hint = rebuild_hint(shown);
    let mark = out.len();
    let ids: BTreeSet<u64> = state.tasks.iter().filter_map(|t| t.id).collect();
    for (n, list) in &commits.by_task {
        let Some(latest) = list.first() else { continue };
        match state.task(*n) {
            None => out.push(
                Finding::advisory(
                    "commit-names-unknown-task",
                    format!(
                        "commit {} names task {n}, which the plan does not have ({} task(s)): \"{}\"",
                        latest.short,
                        ids.len(),
                        latest.subject.trim_end()
                    ),
                )
                .plan(plan)
                .task(*n)
                .hint(hint.clone()),
            ),
            Some(task) if !task.is_completed() => {
                let status = task.status_raw.as_deref().unwrap_or("without a status");
                out.push(
                    Finding::advisory(
                        "commit-names-incomplete-task",
                        format!(
                            "commit {} names task {n}, but state.json says it is {status}",
                            latest.short
                        ),
                    )
                    .plan(plan)
                    .task(*n)
                    .hint(hint.clone()),
                );
            }
            Some(_) => {}
        }
    }
    // The reverse: a completed task that no commit names, in a plan whose tasks make commits.
    let makes_commits =
        !commits.by_task.is_empty() || state.tasks.iter().any(|t| t.commit.is_some());
    if makes_commits {
        for task in state.tasks.iter().filter(|t| t.is_completed()) {
            let Some(n) = task.id else { continue };
            if commits.by_task.contains_key(&n) || flagged.contains(&n) {
                continue;
            }
            if commits.truncated {
                out.push(truncated_advisory(
                    plan,
                    Some(n),
                    format!("no commit naming task {n} before the shallow-clone boundary"),
                ));
            } else {
                out.push(
                    Finding::advisory(
                        "completed-task-not-in-history",
                        format!(
                            "task {n} is completed in state.json but no commit reachable from HEAD names it"
                        ),
                    )
                    .plan(plan)
                    .task(n)
                    .hint(hint.clone()),
                );
            }
        }
    }
    if out.len() == mark
        && !commits.by_task.is_empty()
        && !out
            .iter()
            .any(|f| f.severity != crate::report::Severity::Pass)
    {
        out.push(
            Finding::pass(
                "commit-drift",
                format!(
                    "git history agrees with state.json ({} task(s) named by commits)",
                    commits.by_task.len()
                ),
            )
            .plan(plan),
        );
    }
}

/// `fp=` revisions cited in gate evidence (`fp=6037c9f+clean` → `6037c9f`).
pub fn fp_revisions(evidence: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = evidence;
    while let Some(pos) = rest.find("fp=") {
        let before_ok = pos == 0
            || !rest.as_bytes()[pos - 1].is_ascii_alphanumeric()
                && rest.as_bytes()[pos - 1] != b'_';
        let after = &rest[pos + 3..];
        let hex = after.bytes().take_while(|b| b.is_ascii_hexdigit()).count();
        if before_ok && (4..=40).contains(&hex) {
            out.push(&after[..hex]);
        }
        rest = after;
    }
    out
}

/// Work tree cleanliness and a tracked `.dwp/`: what only `finalize` asks.
fn worktree_checks(
    repo: &Repo,
    plan_dir: &Path,
    plan: &str,
    candidate: Option<&Path>,
    out: &mut Vec<Finding>,
) -> Result<(), GitError> {
    if repo.work_tree().is_some() {
        let plan_rel = repo.relative_to_work_tree(plan_dir)?;
        let candidate_rel = match candidate {
            Some(c) => repo.relative_to_work_tree(c).ok(),
            None => None,
        };
        let dirty: Vec<StatusEntry> = repo
            .status(&[])?
            .into_iter()
            .filter(|e| !is_under(&e.path, &plan_rel))
            .filter(|e| candidate_rel.as_deref() != Some(e.path.as_str()))
            .collect();
        if dirty.is_empty() {
            out.push(Finding::pass("worktree-clean", "the work tree is clean").plan(plan));
        }
        for entry in &dirty {
            out.push(
                Finding::fail(
                    "worktree-dirty",
                    format!(
                        "the work tree is not clean: {} ({})",
                        entry.path,
                        entry.kind.as_str()
                    ),
                )
                .plan(plan)
                .file(entry.path.clone())
                .group("worktree-dirty")
                .hint("commit or stash the change before finalizing"),
            );
        }
        // A tracked .dwp/ (or plan folder) is allowed, but unusual.
        let dwp_rel = dwp_root_of(&plan_rel);
        if repo.is_tracked(&dwp_rel)? {
            out.push(
                Finding::advisory(
                    "dwp-tracked",
                    format!(
                        "{dwp_rel}/ is tracked by git; plans are normally git-ignored working state"
                    ),
                )
                .plan(plan)
                .hint(format!(
                    "add `{dwp_rel}/` to .gitignore unless the plan is meant to be committed"
                )),
            );
        }
    }
    Ok(())
}

/// The path of `file` of the plan folder relative to the work tree, when the repository has a
/// work tree around the plan.
fn plan_file_rel(repo: &Repo, plan_dir: &Path, file: &str) -> Result<Option<String>, GitError> {
    if repo.work_tree().is_none() {
        return Ok(None);
    }
    let plan_rel = repo.relative_to_work_tree(plan_dir)?;
    Ok(Some(if plan_rel.is_empty() {
        file.to_string()
    } else {
        format!("{plan_rel}/{file}")
    }))
}

/// The newest commit that holds (or deleted) `file` of the plan folder, when git ever had it:
/// how `verify` learns that a missing state.json was once committed. Only asked when the plan
/// folder still has a tracked file (otherwise no walk is made).
pub fn committed_file(
    repo: &Repo,
    plan_dir: &Path,
    file: &str,
) -> Result<Option<CommitInfo>, GitError> {
    let Some(path) = plan_file_rel(repo, plan_dir, file)? else {
        return Ok(None);
    };
    let plan_rel = repo.relative_to_work_tree(plan_dir)?;
    if !repo.is_tracked(&path)? && !repo.is_tracked(&plan_rel)? {
        return Ok(None);
    }
    let history = repo.file_versions(
        &path,
        &crate::recovery::git::HistoryOptions {
            limit: Some(1),
            ..Default::default()
        },
    )?;
    Ok(history.versions.into_iter().next().map(|v| v.commit))
}

/// The version of a tracked `file` of the plan folder that the commit which added it holds,
/// with that commit: what `verify` compares manifest.json with. `Ok(None)` when HEAD does not
/// hold the file; the walk reads history only then.
pub fn first_committed_version(
    repo: &Repo,
    plan_dir: &Path,
    file: &str,
) -> Result<Option<(CommitInfo, Vec<u8>)>, GitError> {
    let Some(path) = plan_file_rel(repo, plan_dir, file)? else {
        return Ok(None);
    };
    // Committed at HEAD, looked up in HEAD's tree: loading the index of a large repository
    // would cost more than the whole check.
    if !repo.in_head_tree(&path)? {
        return Ok(None);
    }
    let history = repo.file_versions(
        &path,
        &crate::recovery::git::HistoryOptions {
            with_content: true,
            ..Default::default()
        },
    )?;
    Ok(history
        .versions
        .into_iter()
        .last()
        .and_then(|v| v.content.map(|c| (v.commit, c))))
}

fn is_under(path: &str, dir: &str) -> bool {
    dir.is_empty() || path == dir || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// `.dwp` for `.dwp/plans/PLAN_x`; the plan folder itself when it is not under a `.dwp`.
fn dwp_root_of(plan_rel: &str) -> String {
    let parts: Vec<&str> = plan_rel.split('/').collect();
    match parts.iter().position(|p| *p == ".dwp") {
        Some(i) => parts[..=i].join("/"),
        None => plan_rel.to_string(),
    }
}

/// What `planseal log` shows: the plan's timeline from git.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct PlanLog {
    /// The plan folder's name (`PLAN_x`).
    pub plan: String,
    /// `None` when the plan is not inside a git work tree.
    pub repository: Option<RepositorySummary>,
    /// One entry per task the README index or state.json knows, in task order.
    pub tasks: Vec<TaskTimeline>,
    /// Every disagreement found, in task order.
    pub differences: Vec<LogDifference>,
    /// Commits walked.
    pub walked: u64,
    /// The walk hit a shallow-clone boundary.
    pub truncated: bool,
    /// Why a source could not be read (README.md, state.json), if one could not.
    pub notes: Vec<String>,
}

/// The repository the plan lives in, as `planseal log` describes it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct RepositorySummary {
    /// The full id of the commit `HEAD` resolves to; `None` on an unborn branch.
    pub head: Option<String>,
    /// The short name of the checked-out branch (`main`); `None` when `HEAD` is detached.
    pub branch: Option<String>,
    /// The clone is shallow: commits beyond its boundary cannot be read.
    pub shallow: bool,
}

/// A commit as the log prints it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct LoggedCommit {
    /// The full hexadecimal id (40 digits).
    pub id: String,
    /// The shortest unique prefix, at least 7 digits.
    pub short: String,
    /// The first line of the message, trailing whitespace removed.
    pub subject: String,
    /// Committer time, UTC, `+00:00`.
    pub committed_at: String,
}

impl From<&CommitInfo> for LoggedCommit {
    fn from(c: &CommitInfo) -> Self {
        LoggedCommit {
            id: c.id.clone(),
            short: c.short.clone(),
            subject: c.subject.trim_end().to_string(),
            committed_at: c.committer_time.to_utc_iso(),
        }
    }
}

/// One task of the timeline: what the README, state.json and git each say about it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct TaskTimeline {
    /// The task number.
    pub task: u64,
    /// The title from the README index, else from state.json; `None` when neither has one.
    pub title: Option<String>,
    /// README checkbox: `Some(true)` checked, `None` when the index does not list the task.
    pub readme_checked: Option<bool>,
    /// The status state.json records, as written.
    pub state_status: Option<String>,
    /// The `commit` state.json records.
    pub recorded_commit: Option<String>,
    /// The most recent commit reachable from HEAD that names the task (it completed it).
    pub commit: Option<LoggedCommit>,
    /// Older commits naming the same task, most recent first.
    pub earlier_commits: Vec<LoggedCommit>,
}

/// One disagreement between git and the plan.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct LogDifference {
    /// `completed-without-commit`, `commit-names-incomplete-task`, `commit-names-unknown-task`.
    pub kind: &'static str,
    /// The task number the difference is about.
    pub task: u64,
    /// The commit involved (the one naming the task); `None` for `completed-without-commit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<LoggedCommit>,
    /// The difference as one sentence for the text report.
    pub message: String,
}

/// Reads README.md and state.json of `plan_dir` (either may be missing) and the task commits of
/// `repo`, and lines them up.
pub fn plan_log(plan_dir: &Path, repo: Option<&Repo>) -> Result<PlanLog, GitError> {
    use crate::dwp::model::markdown::{decode, parse_readme};
    let plan = crate::dwp::layout::plan_name(plan_dir);
    let mut notes = Vec::new();

    let mut readme_tasks: BTreeMap<u64, (bool, String)> = BTreeMap::new();
    match crate::dwp::read::read_plan_file(plan_dir, layout::README_FILE) {
        Ok(Some(bytes)) => match decode(&bytes) {
            Ok(text) => {
                for e in parse_readme(text).task_index.entries {
                    readme_tasks
                        .entry(u64::from(e.task))
                        .or_insert((e.checked, e.title));
                }
            }
            Err(e) => notes.push(format!("README.md: {e}")),
        },
        Ok(None) => notes.push("README.md is missing".into()),
        Err(e) => notes.push(format!("README.md: {}", e.reason())),
    }
    let state = match crate::dwp::read::read_plan_file(plan_dir, layout::STATE_FILE) {
        Ok(Some(bytes)) => match crate::dwp::model::parse_json(&bytes) {
            Ok(v) => Some(State::from_value(&v)),
            Err(e) => {
                notes.push(format!("state.json cannot be read: {e}"));
                None
            }
        },
        Ok(None) => {
            notes.push("state.json is missing".into());
            None
        }
        Err(e) => {
            notes.push(format!("state.json: {}", e.reason()));
            None
        }
    };

    let (commits, repository) = match repo {
        Some(repo) => {
            let head = repo.head()?;
            (
                task_commits(repo, &plan)?,
                Some(RepositorySummary {
                    head: head.id,
                    branch: head.branch,
                    shallow: repo.is_shallow(),
                }),
            )
        }
        None => (TaskCommits::default(), None),
    };

    let mut numbers: BTreeSet<u64> = readme_tasks.keys().copied().collect();
    if let Some(state) = &state {
        numbers.extend(state.tasks.iter().filter_map(|t| t.id));
    }
    let mut tasks = Vec::new();
    let mut differences = Vec::new();
    for &n in &numbers {
        let state_task = state.as_ref().and_then(|s| s.task(n));
        let readme = readme_tasks.get(&n);
        let list = commits.by_task.get(&n);
        let commit = list.and_then(|l| l.first()).map(LoggedCommit::from);
        let earlier = list
            .map(|l| l.iter().skip(1).map(LoggedCommit::from).collect())
            .unwrap_or_default();
        let title = readme
            .map(|(_, t)| t.clone())
            .filter(|t| !t.is_empty())
            .or_else(|| state_task.and_then(|t| t.title.clone()));
        if repository.is_some() {
            let checked = readme.is_some_and(|(c, _)| *c);
            if checked && commit.is_none() && !commits.truncated {
                differences.push(LogDifference {
                    kind: "completed-without-commit",
                    task: n,
                    commit: None,
                    message: format!("task {n} is completed in README.md but no commit names it"),
                });
            }
            if let Some(c) = &commit
                && !state_task.is_some_and(|t| t.is_completed())
            {
                let status = match (&state, state_task) {
                    (None, _) => "there is no readable state.json".to_string(),
                    (Some(_), None) => "state.json does not list it".to_string(),
                    (Some(_), Some(t)) => format!(
                        "state.json says {}",
                        t.status_raw.as_deref().unwrap_or("no status")
                    ),
                };
                differences.push(LogDifference {
                    kind: "commit-names-incomplete-task",
                    task: n,
                    commit: Some(c.clone()),
                    message: format!("commit {} names task {n}, but {status}", c.short),
                });
            }
        }
        tasks.push(TaskTimeline {
            task: n,
            title,
            readme_checked: readme.map(|(c, _)| *c),
            state_status: state_task.and_then(|t| t.status_raw.clone()),
            recorded_commit: state_task.and_then(|t| t.commit.clone()),
            commit,
            earlier_commits: earlier,
        });
    }
    for (n, list) in &commits.by_task {
        if numbers.contains(n) {
            continue;
        }
        if let Some(c) = list.first() {
            let c = LoggedCommit::from(c);
            differences.push(LogDifference {
                kind: "commit-names-unknown-task",
                task: *n,
                message: format!(
                    "commit {} names task {n}, which the plan does not have",
                    c.short
                ),
                commit: Some(c),
            });
        }
    }
    differences.sort_by_key(|d| d.task);
    Ok(PlanLog {
        plan,
        repository,
        tasks,
        differences,
        walked: commits.walked,
        truncated: commits.truncated,
        notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn matcher_follows_the_spec_regex_cases() {
        assert_eq!(
            task_named(
                "feat(ratelimit): add token bucket limiter - Task 1 of PLAN_http_rate_limit"
            ),
            Some((1, "PLAN_http_rate_limit"))
        );
        assert_eq!(
            task_named("fix: x - Task 12 of PLAN_a_1\t \r"),
            Some((12, "PLAN_a_1"))
        );
        assert_eq!(task_named("x - Task 1 of PLAN_Upper"), None);
        assert_eq!(task_named("x - Task 1 of PLAN_"), None);
        assert_eq!(task_named("x - Task one of PLAN_a"), None);
        assert_eq!(task_named("x - Task 1 of PLAN_a trailing"), None);
        assert_eq!(task_named("x -Task 1 of PLAN_a"), None);
        assert_eq!(
            task_named("- Task 2 of PLAN_a - Task 3 of PLAN_b"),
            Some((3, "PLAN_b"))
        );
        assert_eq!(
            task_named("x - Task 99999999999999999999999 of PLAN_a"),
            None
        );
    }

    #[test]
    fn fp_revisions_are_found_in_evidence() {
        assert_eq!(
            fp_revisions("scope=unit; fp=6037c9f+clean; ran=12/12"),
            vec!["6037c9f"]
        );
        assert_eq!(fp_revisions("fp=abc"), Vec::<&str>::new());
        assert_eq!(fp_revisions("xfp=6037c9f"), Vec::<&str>::new());
        assert_eq!(
            fp_revisions("fp=1234567; fp=89abcdef"),
            vec!["1234567", "89abcdef"]
        );
    }

    #[test]
    fn paths_under_the_plan_folder() {
        assert!(is_under(
            ".dwp/plans/PLAN_x/state.json",
            ".dwp/plans/PLAN_x"
        ));
        assert!(!is_under(
            ".dwp/plans/PLAN_xy/state.json",
            ".dwp/plans/PLAN_x"
        ));
        assert_eq!(dwp_root_of(".dwp/plans/PLAN_x"), ".dwp");
        assert_eq!(dwp_root_of("sub/.dwp/plans/PLAN_x"), "sub/.dwp");
        assert_eq!(dwp_root_of("plans/PLAN_x"), "plans/PLAN_x");
    }

    proptest! {
        #[test]
        fn matcher_agrees_with_the_spec_regex(subject in "[a-zA-Z0-9 ():_\\-\t]{0,20}(- Task [0-9]{1,4} of PLAN_[a-z0-9_A]{0,6}[ \t]{0,2}x?)?") {
            let re = regex::Regex::new(r"- Task ([0-9]+) of (PLAN_[a-z0-9_]+)$").expect("valid");
            let trimmed = subject.trim_end();
            let expected = re.captures(trimmed).map(|c| (c[1].parse::<u64>().expect("small"), c.get(2).expect("group").as_str().to_string()));
            let ours = task_named(&subject).map(|(n, p)| (n, p.to_string()));
            prop_assert_eq!(ours, expected);
        }
    }
}
