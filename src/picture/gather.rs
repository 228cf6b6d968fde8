//! What a report shows, collected from the commands that already compute it: `verify` gives every
//! finding and verdict, `status` the header of each plan (counts, approval, lock, marker, receipt),
//! `diff` the drift between state.json, the markdown and git, `log` the commits that name each
//! task, the plan's journal the transitions, publications, crashes and recoveries, and the GSD,
//! Reversa and checkpoint commands their own views. Nothing here re-derives what those compute;
//! it reads only what none of them returns (state.json's task times and gate runs, the amendment
//! records of the task logs, a checkpoint's sessions and story table). Read-only.

use crate::checkpoint::{self, doc, generate::is_session, stories::find_story_table};
use crate::dwp::history::PlanLog;
use crate::dwp::layout;
use crate::dwp::locate::{self, DiscoverError, DiscoverOptions, Git};
use crate::dwp::model::markdown::{Amendment, TaskBody, decode};
use crate::dwp::model::{Manifest, State, parse_json};
use crate::dwp::ops::diff::{DiffMode, DiffOptions, DiffOutcome, state_vs_markdown};
use crate::dwp::ops::log::{LogOptions, timeline};
use crate::dwp::ops::status::{OtherView, PlanView, StatusError, StatusView, status};
use crate::dwp::publish::Marker;
use crate::dwp::read::read_plan_file;
use crate::gsd::ops::{self as gsd_ops, StateFile};
use crate::report::{Report, Section, System, Verdict};
use crate::reversa::Summary;
use crate::reversa::ops::{self as reversa_ops, HistoryOutcome};
use crate::verify::{VerifyError, VerifyOptions, verify};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Which plans to show: the same selection as `verify` (cwd, PATH, `--plan`, `--dwp-dir`).
pub type GatherOptions = DiscoverOptions;

/// Why nothing could be gathered (a usage error: exit 2).
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    /// Finding the plans failed, or nothing of any format was found (verify's own error).
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// Finding the plans failed (status's look-up, the same as verify's).
    #[error(transparent)]
    Discover(#[from] DiscoverError),
}

impl GatherError {
    /// What to do about it, printed as the error's `hint:` line.
    pub fn hint(&self) -> &'static str {
        match self {
            GatherError::Verify(e) => e.hint(),
            GatherError::Discover(e) => e.hint(),
        }
    }
}

/// Every plan found, in the order `verify` lists them.
#[derive(Debug, Clone)]
pub struct Picture {
    /// One entry per DWP plan, then per GSD, Reversa and checkpoint file.
    pub plans: Vec<PlanPicture>,
}

impl Picture {
    /// The verdict over every plan, as `verify` gives it.
    pub fn verdict(&self) -> Verdict {
        Report {
            sections: self.plans.iter().map(|p| p.section.clone()).collect(),
        }
        .verdict()
    }
}

/// One plan (or one file of another format) and what each command says about it.
#[derive(Debug, Clone)]
pub struct PlanPicture {
    /// The format.
    pub system: System,
    /// The plan's name (`PLAN_x`), or the file as the user sees it for the other formats.
    pub name: String,
    /// The folder or file, relative to where the command runs when it lies below it.
    pub path: String,
    /// verify's section: every finding, with its hint.
    pub section: Section,
    /// What the format's own commands add.
    pub detail: Detail,
}

impl PlanPicture {
    /// verify's verdict for this plan alone.
    pub fn verdict(&self) -> Verdict {
        Report {
            sections: vec![self.section.clone()],
        }
        .verdict()
    }
}

/// What each format's commands add to verify's findings.
#[derive(Debug, Clone)]
pub enum Detail {
    /// A Deep Work Plan.
    Dwp(Box<DwpPicture>),
    /// A GSD `.planning/STATE.md`.
    Gsd(Box<GsdPicture>),
    /// A Reversa `.reversa/state.json`.
    Reversa(Box<ReversaPicture>),
    /// A checkpoint protocol file.
    Checkpoint(Box<CheckpointPicture>),
}

/// A DWP plan: status's header, state.json's tasks, diff's drift, log's commits, the journal.
#[derive(Debug, Clone)]
pub struct DwpPicture {
    /// `planseal status`'s view of the plan (counts, approval, lock, marker, receipt).
    pub view: PlanView,
    /// The plan's title (manifest.json `title`, else the README's heading is not read).
    pub title: Option<String>,
    /// When the plan was created (manifest.json `created_at`).
    pub created_at: Option<String>,
    /// state.json as read (`None` when missing or unparseable: status says which).
    pub state: Option<State>,
    /// `planseal diff`: state.json against the markdown and git, or why it could not be made.
    pub diff: Result<DiffOutcome, String>,
    /// `planseal log`: the commits that name each task, or why git could not be read; `None`
    /// when the plan is not in a git repository (there is no log to ask for).
    pub log: Option<Result<PlanLog, String>>,
    /// The journal's lines (each a JSON object), in order.
    pub journal: Vec<Value>,
    /// The journal ended in a line cut short (a writer died while appending it).
    pub journal_torn: bool,
    /// Line numbers of journal lines that are not JSON.
    pub journal_bad_lines: Vec<usize>,
    /// Why the journal could not be read, when it could not.
    pub journal_error: Option<String>,
    /// The amendment records of each task's log, by task id.
    pub amendments: Vec<(u64, Amendment)>,
    /// When the publication whose marker is still there started (the marker's `started_at`),
    /// when there is a marker that says.
    pub marker_started_at: Option<String>,
}

/// A GSD STATE.md: status's glance and `gsd status`.
#[derive(Debug, Clone)]
pub struct GsdPicture {
    /// `planseal status`'s view (the statusline, the lock).
    pub view: OtherView,
    /// `planseal gsd status`: fields, progress counters, phase folders, statusline; or why not.
    pub status: Result<gsd_ops::StatusOutcome, String>,
}

/// A Reversa state file: status's glance, the summary and the never-remove history.
#[derive(Debug, Clone)]
pub struct ReversaPicture {
    /// `planseal status`'s view (the lock).
    pub view: OtherView,
    /// `planseal reversa status`'s summary: phases and progress (`None` when the file does not
    /// parse).
    pub summary: Option<Summary>,
    /// `planseal reversa history`: the commits that broke the never-remove rule; or why the
    /// history could not be read (no repository).
    pub history: Result<HistoryOutcome, String>,
}

/// A checkpoint file: status's glance, its sessions and its story table.
#[derive(Debug, Clone)]
pub struct CheckpointPicture {
    /// `planseal status`'s view (the open next steps, the lock).
    pub view: OtherView,
    /// The project id in multi-project mode.
    pub project: Option<String>,
    /// How many story files were found.
    pub story_files: usize,
    /// The session entries of the last-work section, in file order: heading and body lines.
    pub sessions: Vec<(String, Vec<String>)>,
    /// The story table as written: header cells, then each row's cells.
    pub story_table: Option<(Vec<String>, Vec<Vec<String>>)>,
}

/// Runs `a` on a thread of its own (with the main thread's 8 MiB of stack, as verify's workers
/// have) while this thread runs `b`; both here, one after the other, when no thread can be
/// started. What a report gathers are independent reads, so it costs about the longest of them
/// rather than their sum.
fn in_parallel<A: Send, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B) {
    let job = std::sync::Mutex::new(Some(a));
    let take = || job.lock().unwrap_or_else(|e| e.into_inner()).take();
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn_scoped(scope, || take().map(|a| a()));
        let b = b();
        let a = match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            Err(_) => None,
        };
        // The thread never started (or never took the job): run it here.
        match a.or_else(|| take().map(|a| a())) {
            Some(a) => (a, b),
            None => unreachable!("the job runs on the thread or here"),
        }
    })
}

/// `f` of every item, in the items' order, on up to one thread per core (each worker takes the
/// next item not taken); on this thread alone when no other can be started.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    if workers <= 1 {
        return items.iter().map(&f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return done;
            };
            done.push((i, f(item)));
        }
    };
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .stack_size(8 << 20)
                    .spawn_scoped(scope, work)
                    .ok()
            })
            .collect();
        // This thread works too, and takes whatever a thread that could not start would have.
        for (i, r) in work() {
            slots[i] = Some(r);
        }
        for handle in handles {
            let done = handle
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            for (i, r) in done {
                slots[i] = Some(r);
            }
        }
    });
    slots.into_iter().flatten().collect()
}

/// Gathers every plan `opts` selects: verify on one thread, while status and each plan's own
/// views are gathered on others.
pub fn gather(opts: &GatherOptions) -> Result<Picture, GatherError> {
    let verify_opts = VerifyOptions {
        cwd: opts.cwd.clone(),
        path: opts.path.clone(),
        plan: opts.plan.clone(),
        dwp_dir: opts.dwp_dir.clone(),
        gsd: Vec::new(),
    };
    // verify, the largest part, runs on this thread (its allocations in the process's main heap);
    // status and each plan's own views on others.
    let (rest, report) = in_parallel(
        || -> Result<_, GatherError> {
            let view = status(opts).map_err(|e| match e {
                StatusError::Discover(d) => GatherError::Discover(d),
                StatusError::NothingFound(p) => GatherError::Verify(VerifyError::NothingFound(p)),
            })?;
            let plan_dirs = locate::discover(opts)?;
            let StatusView { plans, others } = view;
            let pairs: Vec<(PathBuf, PlanView)> = plan_dirs
                .into_iter()
                .map(|loc| loc.dir)
                .zip(plans)
                .collect();
            let details: Vec<(DwpPicture, PathBuf)> = par_map(&pairs, |(dir, view)| {
                (dwp(dir, &opts.cwd, view.clone()), dir.clone())
            });
            Ok((details, others))
        },
        || verify(&verify_opts),
    );
    let report = report?;
    let (details, others) = rest?;
    let mut sections = report.sections.into_iter();
    let mut out = Vec::new();
    for (mut detail, loc) in details {
        let Some(section) = sections.next() else {
            break;
        };
        if let Some(state) = &detail.state {
            detail.amendments = amendments(&loc, state, &section);
        }
        out.push(PlanPicture {
            system: System::Dwp,
            name: detail.view.plan.clone(),
            path: detail.view.path.clone(),
            section,
            detail: Detail::Dwp(Box::new(detail)),
        });
    }
    // The other formats' files, found as verify and status found them and in the same order.
    let root = locate::find_root(&opts.cwd);
    let mut files: Vec<PathBuf> = Vec::new();
    if !others.is_empty() {
        files.extend(crate::gsd::detect(&root));
        files.extend(crate::reversa::detect(&root));
        files.extend(checkpoint::detect(&root));
    }
    for ((file, view), mut section) in files.into_iter().zip(others).zip(sections) {
        // verify names these files by their full path; the page names them as status does.
        section.name = view.file.clone();
        section.path = view.file.clone();
        let (system, detail) = match section.system {
            System::Gsd => (
                System::Gsd,
                Detail::Gsd(Box::new(gsd(&file, &opts.cwd, view))),
            ),
            System::Reversa => (
                System::Reversa,
                Detail::Reversa(Box::new(reversa(&file, &opts.cwd, view))),
            ),
            _ => (
                System::Checkpoint,
                Detail::Checkpoint(Box::new(checkpoint_picture(&file, &root, view))),
            ),
        };
        out.push(PlanPicture {
            system,
            name: section.name.clone(),
            path: section.path.clone(),
            section,
            detail,
        });
    }
    Ok(Picture { plans: out })
}

/// An error of another command as the page shows it: paths below `cwd` relative to it, as the
/// rest of the page names them (and so that the page does not depend on where the folder is).
fn said(error: impl std::fmt::Display, cwd: &Path) -> String {
    let text = error.to_string();
    let prefix = format!("{}/", cwd.display());
    text.replace(&prefix, "")
}

fn dwp(dir: &Path, cwd: &Path, view: PlanView) -> DwpPicture {
    let diff_opts = DiffOptions {
        cwd: cwd.to_path_buf(),
        plan_dir: dir.to_path_buf(),
        mode: DiffMode::StateVsMarkdown,
    };
    let (diff, rest) = in_parallel(
        || state_vs_markdown(&diff_opts, None).map_err(|e| said(e, cwd)),
        || dwp_own_reads(dir, cwd),
    );
    let (log, manifest, state, journal) = rest;
    let (journal, journal_torn, journal_bad_lines, journal_error) = journal;
    let marker_started_at = view
        .marker
        .then(|| read_plan_file(dir, layout::MARKER_FILE).ok().flatten())
        .flatten()
        .and_then(|b| Marker::parse(&b).ok())
        .and_then(|m| m.planseal)
        .map(|p| p.started_at);
    DwpPicture {
        view,
        title: manifest.as_ref().and_then(|m| m.title.clone()),
        created_at: manifest.and_then(|m| m.created_at),
        state,
        diff,
        log,
        journal,
        journal_torn,
        journal_bad_lines,
        journal_error,
        amendments: Vec::new(),
        marker_started_at,
    }
}

/// The journal's lines, whether its tail was cut short, its bad line numbers, and why it could
/// not be read.
type JournalLines = (Vec<Value>, bool, Vec<usize>, Option<String>);

/// What one plan's own reads give: log's timeline, manifest.json, state.json and the journal.
type OwnReads = (
    Option<Result<PlanLog, String>>,
    Option<Manifest>,
    Option<State>,
    JournalLines,
);

/// log's timeline, manifest.json, state.json and the journal of one plan.
fn dwp_own_reads(dir: &Path, cwd: &Path) -> OwnReads {
    // log reads the README and state.json again for its task list: only worth it with git.
    let in_git = locate::open_plan(cwd, dir, Git::Open(None))
        .map(|p| p.repo.is_some())
        .unwrap_or(true);
    let log = in_git.then(|| {
        timeline(
            &LogOptions {
                cwd: cwd.to_path_buf(),
                plan_dir: dir.to_path_buf(),
            },
            None,
        )
        .map(|o| o.log)
        .map_err(|e| said(e, cwd))
    });
    let manifest = read_plan_file(dir, layout::MANIFEST_FILE)
        .ok()
        .flatten()
        .and_then(|b| parse_json(&b).ok())
        .map(|v| Manifest::from_value(&v));
    // The page draws what state.json holds; verify already says whether it is well formed, so
    // the plain parser does here (the strict one, which tracks every path for its messages,
    // costs several times more on a large plan).
    let state = read_plan_file(dir, layout::STATE_FILE)
        .ok()
        .flatten()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
        .map(|v| State::from_value(&v));
    let journal = match layout::journal(dir).read() {
        Ok(read) => (
            read.entries.into_iter().filter(Value::is_object).collect(),
            read.torn_tail,
            read.bad_lines,
            None,
        ),
        Err(e) => (Vec::new(), false, Vec::new(), Some(said(e, cwd))),
    };
    (log, manifest, state, journal)
}

/// The amendment records of the plan's task logs. The method mirrors each one in PROGRESS.md, so
/// only when PROGRESS.md names an amendment are the task files read for them; otherwise only those
/// of the tasks verify found an amendment record in (`amendment-not-mirrored` and the like), so a
/// plan without amendments costs no second read of its task files.
fn amendments(dir: &Path, state: &State, section: &Section) -> Vec<(u64, Amendment)> {
    let mirrored = read_plan_file(dir, layout::PROGRESS_FILE)
        .ok()
        .flatten()
        .is_some_and(|b| mentions_amendment(&b));
    let flagged: std::collections::BTreeSet<u64> = section
        .findings
        .iter()
        .filter(|f| f.id.starts_with("amendment-"))
        .filter_map(|f| f.task)
        .collect();
    let mut out = Vec::new();
    for task in &state.tasks {
        let (Some(id), Some(file)) = (task.id, task.artifact_file()) else {
            continue;
        };
        if !mirrored && !flagged.contains(&id) {
            continue;
        }
        let Ok(Some(bytes)) = read_plan_file(dir, file) else {
            continue;
        };
        if !mentions_amendment(&bytes) {
            continue;
        }
        if let Ok(text) = decode(&bytes) {
            out.extend(
                TaskBody::new(text)
                    .amendments()
                    .into_iter()
                    .map(|a| (id, a)),
            );
        }
    }
    out
}

/// The text names an amendment (any case), as an amendment record's heading does.
fn mentions_amendment(bytes: &[u8]) -> bool {
    bytes
        .windows(9)
        .any(|w| w.eq_ignore_ascii_case(b"amendment"))
}

fn gsd(file: &Path, cwd: &Path, view: OtherView) -> GsdPicture {
    let status = gsd_ops::status(&gsd_ops::StatusOptions {
        state: StateFile {
            path: file.to_path_buf(),
            shown: view.file.clone(),
        },
        exit_code: false,
    })
    .map_err(|e| said(e, cwd));
    GsdPicture { view, status }
}

fn reversa(file: &Path, cwd: &Path, view: OtherView) -> ReversaPicture {
    let place = reversa_ops::Place {
        cwd: cwd.to_path_buf(),
        file: Some(file.to_path_buf()),
    };
    let summary = reversa_ops::status(&place).ok().and_then(|s| s.summary);
    let history = reversa_ops::history(&place).map_err(|e| said(e, cwd));
    ReversaPicture {
        view,
        summary,
        history,
    }
}

fn checkpoint_picture(file: &Path, root: &Path, view: OtherView) -> CheckpointPicture {
    let target = checkpoint::layout::target_for(file);
    let place = checkpoint::ops::Place {
        cwd: root.to_path_buf(),
        project: target.project.clone(),
    };
    let story_files = checkpoint::ops::status(&place, None)
        .map(|s| s.story_files)
        .unwrap_or_default();
    let text = planseal_recovery::read::read(file, planseal_recovery::read::Kind::Document)
        .ok()
        .flatten()
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let sections = doc::sections(&text);
    let sessions = doc::find(&sections, doc::AGENT_SECTIONS[4].0)
        .map(|sec| {
            doc::blocks(&text, sec)
                .into_iter()
                .filter(|b| is_session(&b.key))
                .map(|b| {
                    let body = text[b.start..b.end]
                        .lines()
                        .skip(1)
                        .map(str::trim_end)
                        .filter(|l| !l.trim().is_empty())
                        .map(str::to_string)
                        .collect();
                    (b.heading, body)
                })
                .collect()
        })
        .unwrap_or_default();
    let story_table = doc::find(&sections, doc::AGENT_SECTIONS[1].0)
        .and_then(|sec| find_story_table(&text, sec.body_start, sec.end))
        .map(|t| {
            let rows = t.rows.iter().map(|(_, r)| t.row_cells(r)).collect();
            (t.header, rows)
        });
    CheckpointPicture {
        view,
        project: target.project,
        story_files,
        sessions,
        story_table,
    }
}
