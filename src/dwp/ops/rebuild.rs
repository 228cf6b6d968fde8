//! `rebuild`: state.json regenerated from every record the plan has — the markdown, the
//! on-disk or committed state.json, the journal, the task logs and the git log (the rules are in
//! docs/history.md). Without `write` it only says, one line per value, what would change and
//! where the value comes from. A rebuilt state that reads completed is published through the
//! finalization transaction (receipt included). `manifest` restores a lost manifest.json from
//! git instead.

use super::OpError;
use crate::clock::Clock;
use crate::dwp::decide::rebuild::{
    Change, GatherOptions, Source, committed_manifest, corrupt_copy_name, gather_with,
    manifest_suggestion, rebuild as decide, state_bytes, write, write_manifest,
};
use crate::dwp::layout;
use crate::dwp::locate::{Git, GitProgress, open_plan};
use crate::dwp::publish::{self, Candidate, FinalizeRequest};
use crate::recovery::hash::sha256_hex;
use crate::report::{Refusal, RefusalKind};
use crate::write::Confirmation;
use serde::Serialize;
use serde_json::Value;
use std::path::PathBuf;

/// `planseal rebuild PLAN_DIR [--write] [--from REV] [--manifest]`.
#[derive(Debug, Clone, Default)]
pub struct RebuildOptions {
    /// The directory the command runs in; relative paths are taken from here.
    pub cwd: PathBuf,
    /// The plan folder as given.
    pub plan_dir: PathBuf,
    /// Write the rebuilt state.json (and a reconciliation entry in PROGRESS.md) when it differs.
    pub write: bool,
    /// Take the committed state.json (or, with `manifest`, manifest.json) of this revision
    /// instead of the newest that holds one.
    pub from: Option<String>,
    /// Restore a lost manifest.json byte for byte from git instead of rebuilding state.json.
    pub manifest: bool,
    /// The SHA-256 of state.json as the caller last read it: refused (`stale-snapshot`) when
    /// the state the rebuild starts from is another.
    pub expected_sha256: Option<String>,
}

/// How the rebuilt state was (or would be) published.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Publication {
    /// Not completed: state.json is written by the rebuild's own transaction.
    Direct,
    /// Completed: published through the finalization transaction, the receipt written with it.
    Finalize,
}

/// What the rebuild found and did (the `--json` document).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RebuildOutcome {
    /// The plan folder's name (`PLAN_x`).
    pub plan: String,
    /// state.json (and PROGRESS.md) were written: `write` was asked for and something changed.
    pub written: bool,
    /// The rebuilt state differs from the current one.
    pub changed: bool,
    /// The fields that change, in order, each with its source.
    pub changes: Vec<Change>,
    /// Values kept against a conflicting source, and values that could not be recovered.
    pub reports: Vec<Change>,
    /// One line per change, as the text form prints them.
    pub lines: Vec<String>,
    /// The rebuilt state.
    pub state: Value,
    /// The SHA-256 of the state.json written; `None` when nothing was.
    pub state_sha256: Option<String>,
    /// Where the state the rebuild started from came from: `on-disk`, `committed <short>`,
    /// `journal`, or `new` (the markdown alone).
    pub started_from: String,
    /// Journal lines replayed onto that state.
    pub journal_lines_replayed: usize,
    /// The copy an unparseable state.json is (or, on a dry run, would be) kept as.
    pub corrupt_copy: Option<String>,
    /// How the rebuilt state is published.
    pub publication: Publication,
    /// The receipt written by the finalization transaction, when it ran.
    pub receipt_sha256: Option<String>,
    /// `--manifest`: the commit manifest.json was (or would be) restored from.
    pub manifest_from: Option<String>,
    /// `--from REV` was given but state.json on disk parses, and it wins: the revision was not
    /// read.
    pub from_ignored: bool,
    /// A dry run of a completed state the finalization would refuse: what `--write` would
    /// refuse with (kind, message, hint).
    pub would_refuse: Option<Refusal>,
    /// A dry run that found changes `--write` would apply: the command that applies them, with
    /// the plan folder as given.
    pub write_command: Option<String>,
    /// What the write, past its first rename, could not confirm (the binary then reports
    /// `applied-unconfirmed`, exit 4).
    #[serde(skip)]
    pub confirmation: Confirmation,
}

/// `planseal rebuild PLAN_DIR … --write`, the dry run's own arguments kept.
fn write_command(opts: &RebuildOptions) -> String {
    let mut cmd = format!("planseal rebuild {}", opts.plan_dir.display());
    if opts.manifest {
        cmd.push_str(" --manifest");
    }
    if let Some(rev) = &opts.from {
        cmd.push_str(&format!(" --from {rev}"));
    }
    cmd + " --write"
}

/// Rebuilds the plan's state (stamped with the clock's time) and, when asked and it differs,
/// writes it. Refused while a publication is interrupted: the two would race.
pub fn rebuild(
    opts: &RebuildOptions,
    clock: &mut Clock,
    progress: Option<GitProgress>,
) -> Result<RebuildOutcome, OpError> {
    let mut plan = open_plan(&opts.cwd, &opts.plan_dir, Git::Skip)?;
    if plan.dir.join(layout::MARKER_FILE).exists() {
        return Err(Refusal::new(
            RefusalKind::MarkerPresent,
            format!(
                "{}: a publication was interrupted ({}); a rebuild would race it",
                plan.dir.display(),
                layout::MARKER_FILE
            ),
        )
        .hint(format!(
            "run `planseal recover {}` first",
            plan.dir.display()
        ))
        .into());
    }
    plan.open_git(progress)?;
    let options = GatherOptions {
        from: opts.from.clone(),
    };
    // `failpoints` builds: `rebuild.gather=return(EIO)` fails reading the inputs.
    if let Some(source) = planseal_recovery::store::io_fault("rebuild.gather") {
        let what = format!("reading {}", plan.dir.display());
        return Err(OpError::Read { what, source });
    }
    let inputs = gather_with(&plan.dir, plan.repo.as_ref(), &options)?;
    // The caller's guard; the write then checks, under the lock, that state.json is still
    // these bytes.
    super::check_expected_sha256(
        opts.expected_sha256.as_deref(),
        inputs.old_bytes.as_deref().map(sha256_hex).as_deref(),
    )?;
    let now = clock.now_iso();
    if opts.manifest {
        return restore_manifest(opts, &plan.dir, plan.repo.as_ref(), &inputs, &now);
    }
    let rebuilt = decide(&inputs, &now);
    let completed = rebuilt.state["status"] == "completed";
    let publication = if completed {
        Publication::Finalize
    } else {
        Publication::Direct
    };
    let corrupt_copy = match &inputs.old_bytes {
        Some(bytes) if inputs.old_state.is_none() => Some(corrupt_copy_name(bytes)),
        _ => None,
    };
    let mut state_sha256 = None;
    let mut receipt_sha256 = None;
    let mut written = false;
    let mut confirmation = Confirmation::Confirmed;
    // A completed state is checked the way the finalization will check it, before anything is
    // written (and on a dry run, to say whether --write would publish it).
    let blocked_publication = if completed && rebuilt.changed() {
        let validation = publish::validate_candidate(&publish::ValidationInput {
            plan_dir: &plan.dir,
            candidate: &state_bytes(&inputs, &rebuilt),
            candidate_value: None,
            candidate_path: None,
            allow_dirty_reason: None,
            allow_unverified_git_reason: None,
        })?;
        (!validation.failures.is_empty())
            .then(|| unpublishable(&plan.dir, &inputs, &rebuilt, validation.failures))
    } else {
        None
    };
    if opts.write && rebuilt.changed() {
        let new_bytes = state_bytes(&inputs, &rebuilt);
        // A completed state is the finalization's candidate (checked above, so a refusal
        // writes nothing): state.json is replaced only inside that transaction, with its
        // receipt. When the state before is lost, does not parse or reads completed, the
        // finalization is told it restores the state.
        let as_candidate = completed;
        let restores_state = inputs
            .old_state
            .as_ref()
            .is_none_or(|s| s["status"] == "completed");
        let finalize_request = |candidate: Candidate| {
            let mut req = FinalizeRequest::new(plan.dir.clone(), candidate);
            req.operation = "rebuild".into();
            req.clock = clock.clone();
            req.restores_state = restores_state;
            req.expected_sha256 = inputs.old_bytes.as_deref().map(sha256_hex);
            req.journal_entry = Some(crate::dwp::decide::rebuild::journal_line(
                &now,
                "rebuild+finalize",
                &inputs,
                &rebuilt.state,
                (
                    inputs.old_bytes.as_deref().map(sha256_hex),
                    Some(sha256_hex(&new_bytes)),
                ),
                &rebuilt.changes.iter().map(Change::line).collect::<Vec<_>>(),
            ));
            req
        };
        let candidate = || Candidate::Bytes {
            bytes: new_bytes.clone(),
            origin: "the rebuilt state".into(),
        };
        if let Some(refusal) = blocked_publication.clone() {
            return Err(refusal.into());
        }
        if as_candidate {
            // One transaction: the PROGRESS.md entry (and the copy of an unparseable
            // state.json) are written by the finalization, after its marker and before
            // state.json, so a failure before its commit point leaves every file as it was.
            let (companions, _) = crate::dwp::decide::rebuild::publication_companions(
                &plan.dir, &inputs, &rebuilt, &now,
            )?;
            let mut req = finalize_request(candidate());
            req.companions = companions;
            let published = publish::finalize(&req, &mut |_| {})?;
            state_sha256 = Some(published.state_sha256.clone());
            receipt_sha256 = Some(sha256_hex(&published.receipt_bytes));
            confirmation = published.confirmation;
        } else {
            let w = write(&plan.dir, &inputs, &rebuilt, &now, true)?;
            state_sha256 = w.after_sha256;
            confirmation = w.confirmation;
        }
        written = true;
    }
    let (started_from, replayed) = match (&inputs.old_state, &inputs.base) {
        (Some(_), _) => ("on-disk".to_string(), 0),
        (None, Some(base)) => (
            match &base.origin {
                Some(Source::CommittedState(short)) => format!("committed {short}"),
                _ => "journal".to_string(),
            },
            base.replayed,
        ),
        (None, None) => ("new".to_string(), 0),
    };
    let changed = rebuilt.changed();
    Ok(RebuildOutcome {
        plan: inputs.plan,
        written,
        changed,
        lines: rebuilt.changes.iter().map(Change::line).collect(),
        changes: rebuilt.changes,
        reports: rebuilt.reports,
        state: rebuilt.state,
        state_sha256,
        started_from,
        journal_lines_replayed: replayed,
        corrupt_copy,
        publication,
        receipt_sha256,
        manifest_from: None,
        from_ignored: opts.from.is_some() && inputs.old_state.is_some(),
        write_command: (!opts.write && changed && blocked_publication.is_none())
            .then(|| write_command(opts)),
        would_refuse: blocked_publication,
        confirmation,
    })
}

/// The refusal of a rebuilt state that reads completed but that the finalization would refuse:
/// nothing is written (a completed state is never written around the finalization), and the hint
/// names the way to record what no source holds.
fn unpublishable(
    plan_dir: &std::path::Path,
    inputs: &crate::dwp::decide::rebuild::Inputs,
    rebuilt: &crate::dwp::decide::rebuild::Rebuilt,
    failures: Vec<crate::report::Finding>,
) -> Refusal {
    let first = failures.first().map(|f| f.id.clone()).unwrap_or_default();
    let message = failures
        .first()
        .map(|f| f.message.clone())
        .unwrap_or_default();
    // Tasks the rebuild moved to completed whose completion no source records.
    let no_record: std::collections::HashSet<u64> = rebuilt
        .reports
        .iter()
        .filter(|r| {
            r.source == Source::Unrecoverable
                && matches!(r.field.as_str(), "completed_at" | "gates")
        })
        .filter_map(|r| r.task)
        .collect();
    let unrecorded: Vec<u64> = rebuilt
        .changes
        .iter()
        .filter(|c| c.field == "status" && c.new.as_ref().is_some_and(|v| v == "completed"))
        .filter_map(|c| c.task)
        .filter(|n| no_record.contains(n))
        .collect();
    let dir = plan_dir.display();
    let in_git = inputs.git.is_some();
    let update = |n: u64| update_command(plan_dir, inputs, n, in_git);
    let hint = match (unrecorded.as_slice(), inputs.old_state.is_some()) {
        ([n], true) => format!(
            "no record gives task {n}'s completion (its time, its gates): record it with `{}`; that publishes the plan through the finalization",
            update(*n)
        ),
        (tasks, true) if !tasks.is_empty() => format!(
            "no record gives the completion of task(s) {}: record each with `planseal update {}/state.json --task N --status completed` (with its --gate and, in a repository, --commit), the last one publishes the plan",
            tasks
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            dir
        ),
        _ => format!(
            "no source holds what these checks need and planseal never invents it: restore state.json from a backup or a commit (`planseal rebuild {dir} --from REV`), then run the rebuild again"
        ),
    };
    Refusal::new(
        RefusalKind::Check(first),
        format!(
            "{dir}: the rebuilt state reads completed but the finalization would refuse it — {} check(s) failed, first: {message}; nothing was written (a completed state is published only with its receipt)",
            failures.len()
        ),
    )
    .hint(hint)
    .details(failures)
}

/// The `planseal update` that records task `n`'s completion: `--gate` from the task log's
/// `Gate record:` lines when the state has no passing gate for it, `--commit` in a repository.
fn update_command(
    plan_dir: &std::path::Path,
    inputs: &crate::dwp::decide::rebuild::Inputs,
    n: u64,
    in_git: bool,
) -> String {
    let mut cmd = format!(
        "planseal update {}/state.json --task {n} --status completed",
        plan_dir.display()
    );
    let has_passing_gate = inputs
        .old_state
        .as_ref()
        .and_then(|s| s["tasks"].as_array())
        .and_then(|tasks| tasks.iter().find(|t| t["id"].as_u64() == Some(n)))
        .and_then(|t| t["gates"].as_array())
        .is_some_and(|g| g.iter().any(|g| g["passes"] == true));
    if !has_passing_gate {
        let lines: Vec<String> = inputs
            .tasks
            .iter()
            .find(|t| t.id == n)
            .map(|t| {
                t.gate_lines
                    .iter()
                    .filter_map(|g| {
                        let command = g.command.as_ref()?;
                        let exit = g.exit_code?;
                        Some(format!(
                            " --gate '{}|{exit}|{}'",
                            command.replace('\'', "'\\''"),
                            g.items_text().replace('\'', "'\\''")
                        ))
                    })
                    .collect()
            })
            .unwrap_or_default();
        if lines.is_empty() {
            cmd.push_str(" --gate '<command>|<exit code>|<evidence>'");
        } else {
            cmd.extend(lines);
        }
    }
    if in_git {
        let commit = inputs
            .git
            .as_ref()
            .and_then(|g| g.get(&n))
            .map(|g| g.id.clone())
            .unwrap_or_else(|| "<the task's commit>".into());
        cmd.push_str(&format!(" --commit {commit}"));
    }
    cmd
}

fn restore_manifest(
    opts: &RebuildOptions,
    plan_dir: &std::path::Path,
    repo: Option<&crate::recovery::git::Repo>,
    inputs: &crate::dwp::decide::rebuild::Inputs,
    now: &str,
) -> Result<RebuildOutcome, OpError> {
    let manifest_path = plan_dir.join(layout::MANIFEST_FILE);
    let current = crate::dwp::read::read_plan_file(plan_dir, layout::MANIFEST_FILE)?;
    // An altered manifest goes back to the version of `--from REV` only when git also holds
    // the altered bytes (HEAD's copy): nothing is lost, the alteration stays in history.
    let altered_but_committed = match (&current, repo, &opts.from) {
        (Some(bytes), Some(repo), Some(_)) => repo
            .relative_to_work_tree(&manifest_path)
            .ok()
            .and_then(|rel| repo.file_at("HEAD", &rel).ok().flatten())
            .is_some_and(|head| head == *bytes),
        _ => false,
    };
    if current.is_some() && !altered_but_committed {
        return Err(Refusal::new(
            RefusalKind::UsageError,
            format!(
                "{}: manifest.json exists; `rebuild --manifest` restores a lost one, or an altered one from `--from REV` when HEAD holds the altered bytes",
                plan_dir.display()
            ),
        )
        .hint("commit the manifest as it is first (so the change stays in history), then `planseal rebuild PLAN_DIR --manifest --from REV`; or record a deliberate change as a migration in PROGRESS.md")
        .into());
    }
    let copy = match repo {
        Some(repo) => committed_manifest(repo, plan_dir, opts.from.as_deref())?,
        None => None,
    };
    let Some(copy) = copy else {
        let suggested: Vec<String> = manifest_suggestion(inputs)
            .into_iter()
            .map(|(k, v, s)| format!("{k} = {v} (source: {s})"))
            .collect();
        let whence = match (&opts.from, repo) {
            (_, None) => "the plan is not in a git repository".to_string(),
            (Some(rev), _) => format!("revision {rev} does not hold it"),
            (None, _) => "no commit reachable from HEAD holds it".to_string(),
        };
        return Err(Refusal::new(
            RefusalKind::ManifestUnrecoverable,
            format!(
                "{}: manifest.json cannot be restored: {whence}; planseal never derives a manifest (it records the plan's creation, not its live scope). The README and state.json suggest: {}",
                plan_dir.display(),
                suggested.join("; ")
            ),
        )
        .hint("recreate manifest.json by hand from those values (keep created_at and created_by as they were) and record it as a migration entry in PROGRESS.md")
        .into());
    };
    let line = format!(
        "manifest.json: {} → {} bytes (source: commit {})",
        if current.is_some() {
            "(altered)"
        } else {
            "(absent)"
        },
        copy.bytes.len(),
        copy.commit
    );
    let mut lines = vec![line];
    let mut confirmation = Confirmation::Confirmed;
    let written = opts.write && current.as_deref() != Some(&copy.bytes[..]);
    if written {
        (lines, confirmation) = write_manifest(plan_dir, inputs, &copy, current.as_deref(), now)?;
    }
    Ok(RebuildOutcome {
        plan: inputs.plan.clone(),
        written,
        changed: current.as_deref() != Some(&copy.bytes[..]),
        changes: Vec::new(),
        reports: Vec::new(),
        lines,
        state: Value::Null,
        state_sha256: None,
        started_from: "on-disk".into(),
        journal_lines_replayed: 0,
        corrupt_copy: None,
        publication: Publication::Direct,
        receipt_sha256: None,
        manifest_from: Some(copy.commit),
        from_ignored: false,
        would_refuse: None,
        write_command: (!opts.write && current.as_deref() != Some(&copy.bytes[..]))
            .then(|| write_command(opts)),
        confirmation,
    })
}

impl RebuildOutcome {
    /// Where the rebuild started, one line per change and per report (each with its source),
    /// then what was (or would be) done.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if let Some(commit) = &self.manifest_from {
            for l in &self.lines {
                out.push_str(l);
                out.push('\n');
            }
            out.push_str(&if !self.changed {
                format!(
                    "manifest.json already equals the copy of commit {commit}; nothing to change\n"
                )
            } else if self.written {
                format!("restored manifest.json from commit {commit} and noted it in PROGRESS.md\n")
            } else {
                format!("would restore manifest.json from commit {commit}\n")
            });
            push_write_hint(&mut out, self.write_command.as_deref());
            return out;
        }
        match self.started_from.as_str() {
            "on-disk" if self.from_ignored => out.push_str(
                "--from is not used: state.json on disk parses, and it wins over a committed copy\n",
            ),
            "on-disk" => {}
            "new" => out.push_str("state.json is missing or does not parse, and no committed copy or journal line has it: rebuilt from the markdown and git\n"),
            from => out.push_str(&format!(
                "state.json is missing or does not parse: started from {}, {} journal line(s) replayed\n",
                if from == "journal" {
                    "the journal alone".to_string()
                } else {
                    format!("the state.json of commit {}", &from["committed ".len()..])
                },
                self.journal_lines_replayed
            )),
        }
        if let Some(copy) = &self.corrupt_copy {
            out.push_str(&format!(
                "the unparseable state.json {} kept as {copy}\n",
                if self.written { "was" } else { "would be" }
            ));
        }
        for c in self.changes.iter().chain(&self.reports) {
            out.push_str(&c.line());
            out.push('\n');
        }
        let finalize = self.publication == Publication::Finalize;
        match (&self.state_sha256, self.changed) {
            (_, false) => out.push_str(
                "state.json already agrees with the markdown and git; nothing to change\n",
            ),
            (Some(sha), true) if finalize => out.push_str(&format!(
                "published the completed state through the finalization transaction ({} change(s), sha256 {}, receipt {}) and a reconciliation entry in PROGRESS.md\n",
                self.changes.len(),
                &sha[..12],
                layout::RECEIPT_FILE
            )),
            (Some(sha), true) => out.push_str(&format!(
                "wrote state.json ({} change(s), sha256 {}) and a reconciliation entry in PROGRESS.md\n",
                self.changes.len(),
                &sha[..12]
            )),
            (None, true) if self.would_refuse.is_some() => {
                let r = self.would_refuse.as_ref().expect("checked");
                out.push_str(&format!(
                    "{} change(s); nothing written. The rebuilt state reads completed, and --write would refuse it ({}): the finalization's checks fail\n",
                    self.changes.len(),
                    r.kind.as_str()
                ));
                for f in &r.details {
                    out.push_str(&format!("  - {}\n", f.message));
                }
                if let Some(h) = &r.hint {
                    out.push_str(&format!("  hint: {h}\n"));
                }
            }
            (None, true) => {
                out.push_str(&format!(
                    "{} change(s); nothing written{}\n",
                    self.changes.len(),
                    if finalize {
                        " (the state is completed, so --write publishes it through the finalization transaction)"
                    } else {
                        ""
                    }
                ));
                push_write_hint(&mut out, self.write_command.as_deref());
            }
        }
        out
    }
}

fn push_write_hint(out: &mut String, command: Option<&str>) {
    if let Some(cmd) = command {
        out.push_str(&format!("  hint: run `{cmd}` to apply\n"));
    }
}
