//! `planseal report`: a picture of every plan found (`docs/report.md`) — one self-contained HTML
//! page (inline CSS and SVG, no script, nothing fetched), the timeline alone as SVG, or a
//! markdown summary for a CI comment with the SVG beside it.
//!
//! [`gather`] collects what the other commands compute (verify, status, diff, log, the journal,
//! the GSD, Reversa and checkpoint views); [`timeline`] lays a plan's life on a time axis;
//! [`html`], [`svg`] and [`markdown`] draw it; [`report`] writes the files. The same inputs give
//! the same bytes: the page never reads the real clock (only `PLANSEAL_FAKE_NOW`, passed in as
//! [`ReportOptions::now`]), and every string from a plan is escaped, with the project's `.env`
//! values hidden first.

pub mod escape;
pub mod gather;
pub mod html;
pub mod markdown;
pub mod svg;
pub mod timeline;

use crate::clock::{Clock, ClockError, FAKE_NOW_ENV};
use crate::recovery::hash::sha256_hex;
use crate::report::redact::EnvRedactor;
use crate::report::{System, Verdict};
use crate::write::{Confirmation, WriteError, write_output};
use escape::Escaper;
use gather::{GatherError, GatherOptions, Picture};
use jiff::Timestamp;
use serde::Serialize;
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// What the report is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// One HTML page with every plan.
    Html,
    /// The timelines alone, one SVG file.
    Svg,
    /// A markdown summary, and the timelines as an SVG file beside it.
    Markdown,
}

impl Format {
    /// The file written when `--out` is not given.
    pub fn default_file(self) -> &'static str {
        match self {
            Format::Html => "planseal-report.html",
            Format::Svg => "planseal-timeline.svg",
            Format::Markdown => "planseal-report.md",
        }
    }
}

/// `planseal report [PATH] [--out FILE] [--format …] [--dry-run]`.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// Which plans: the same selection as `verify`.
    pub select: GatherOptions,
    /// What to write.
    pub format: Format,
    /// The file to write (relative to `select.cwd`); [`Format::default_file`] when `None`.
    pub out: Option<PathBuf>,
    /// `PLANSEAL_FAKE_NOW`: where an open task's bar ends when later than every record. The real
    /// clock is never read, so that a page depends on its inputs only.
    pub now: Option<Timestamp>,
    /// Write nothing; say what would change in each file as a unified diff.
    pub dry_run: bool,
}

/// `PLANSEAL_FAKE_NOW`'s first instant, when it is set (the report's only notion of now).
pub fn now_from_env() -> Result<Option<Timestamp>, ClockError> {
    if std::env::var_os(FAKE_NOW_ENV).is_none() {
        return Ok(None);
    }
    Ok(Some(Clock::from_env()?.now()))
}

/// Why no report was written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// Nothing was found, or the selection named nothing (exit 2).
    #[error(transparent)]
    Gather(#[from] GatherError),
    /// A file could not be written: nothing was (the ones before it stay as written).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// `--out` names a folder, not a file.
    #[error("--out {0}: a folder, not a file")]
    OutIsFolder(PathBuf),
}

impl ReportError {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            ReportError::Gather(e) => e.hint(),
            ReportError::Write(_) => "check that the folder of --out exists and can be written",
            ReportError::OutIsFolder(_) => "pass a file name, such as --out report.html",
        }
    }
}

/// One file the report wrote (or would write).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct WrittenFile {
    /// The file, relative to where the command runs when it lies below it.
    pub path: String,
    /// Its size in bytes.
    pub bytes: usize,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// With `--dry-run`: the unified diff from the file as it is to what would be written
    /// (empty when they are equal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Where it is.
    #[serde(skip)]
    pub full_path: PathBuf,
}

/// One plan the report covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Covered {
    /// `dwp`, `gsd`, `reversa` or `checkpoint`.
    pub system: System,
    /// The plan's name, or the file as the user sees it.
    pub name: String,
    /// verify's verdict for it.
    pub verdict: Verdict,
}

/// What `planseal report` did (the `--json` document).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ReportOutcome {
    /// `applied` (the page is written), or `ok` for a dry run.
    pub result: &'static str,
    /// Nothing was written: the files are what a run without `--dry-run` would write.
    pub dry_run: bool,
    /// What was written.
    pub format: Format,
    /// The files, the main one first.
    pub files: Vec<WrittenFile>,
    /// Every plan covered, in order.
    pub plans: Vec<Covered>,
    /// verify's verdict over all of them.
    pub verdict: Verdict,
    /// What the writes could not confirm after their rename (a folder sync).
    #[serde(skip)]
    pub confirmation: Option<Confirmation>,
}

impl ReportOutcome {
    /// The text the command prints: each file written, then the plans.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let verb = if !self.dry_run {
            "wrote"
        } else {
            "would write"
        };
        for f in &self.files {
            let _ = writeln!(out, "{verb} {} ({} bytes)", f.path, f.bytes);
            if let Some(diff) = &f.diff {
                out.push_str(if diff.is_empty() {
                    "  (no change)\n"
                } else {
                    diff
                });
            }
        }
        let _ = writeln!(
            out,
            "{} plan(s), verdict {}:",
            self.plans.len(),
            self.verdict.as_str()
        );
        for p in &self.plans {
            let _ = writeln!(out, "  {} — {}", p.name, p.verdict.as_str());
        }
        out
    }
}

/// The `.env` values of every place a plan lives, each read as verify reads them.
fn redactor_for(opts: &GatherOptions, picture: &Picture) -> EnvRedactor {
    let start = opts
        .cwd
        .join(opts.path.as_deref().unwrap_or(Path::new(".")));
    let mut redactor = EnvRedactor::for_target(&start);
    for p in &picture.plans {
        let found = EnvRedactor::for_target(&opts.cwd.join(&p.path));
        if !found.is_empty() {
            redactor = redactor.merge(found);
        }
    }
    redactor
}

/// The bytes of each file the options ask for: (path, bytes), the main file first.
pub fn render(
    picture: &Picture,
    esc: &Escaper,
    format: Format,
    out: &Path,
    now: Option<Timestamp>,
) -> Vec<(PathBuf, Vec<u8>)> {
    match format {
        Format::Html => vec![(
            out.to_path_buf(),
            html::page(picture, esc, now).into_bytes(),
        )],
        Format::Svg => vec![(out.to_path_buf(), svg_file(picture, esc, now).into_bytes())],
        Format::Markdown => {
            let svg_path = out.with_extension("svg");
            let link = svg_path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            vec![
                (
                    out.to_path_buf(),
                    markdown::summary(picture, esc, &link).into_bytes(),
                ),
                (svg_path, svg_file(picture, esc, now).into_bytes()),
            ]
        }
    }
}

/// Every DWP plan's timeline stacked in one standalone SVG file.
pub fn svg_file(picture: &Picture, esc: &Escaper, now: Option<Timestamp>) -> String {
    let mut body = String::new();
    let mut y = 0.0;
    for (i, plan) in picture.plans.iter().enumerate() {
        let gather::Detail::Dwp(d) = &plan.detail else {
            continue;
        };
        let t = timeline::Timeline::of(d, now);
        let prefix = format!("p{}", i + 1);
        body.push_str(&svg::drawing(
            &t,
            &plan.name,
            esc,
            svg::Frame {
                id_prefix: &prefix,
                standalone: true,
                y_offset: y,
            },
        ));
        y += svg::height(&t, true) + 12.0;
    }
    if body.is_empty() {
        body.push_str("<text x=\"8\" y=\"24\">No Deep Work Plan here: no timeline to draw.</text>");
        y = 40.0;
    }
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1000 {y:.0}\" width=\"1000\" height=\"{y:.0}\" role=\"img\"><title>planseal timeline — {}</title><style>{}</style><rect width=\"1000\" height=\"{y:.0}\" fill=\"#ffffff\"/>{body}</svg>\n",
        picture
            .plans
            .iter()
            .filter(|p| p.system == System::Dwp)
            .map(|p| esc.text(&p.name))
            .collect::<Vec<_>>()
            .join(", "),
        html::TIMELINE_CSS
    )
}

/// `path` relative to `cwd` when it lies below it.
fn shown(path: &Path, cwd: &Path) -> String {
    path.strip_prefix(cwd).unwrap_or(path).display().to_string()
}

/// Gathers, draws and writes (or, with `dry_run`, only compares).
pub fn report(opts: &ReportOptions) -> Result<ReportOutcome, ReportError> {
    let cwd = &opts.select.cwd;
    let out = cwd.join(
        opts.out
            .as_deref()
            .unwrap_or(Path::new(opts.format.default_file())),
    );
    if out.is_dir() {
        return Err(ReportError::OutIsFolder(
            opts.out.clone().unwrap_or_else(|| out.clone()),
        ));
    }
    let picture = gather::gather(&opts.select)?;
    let esc = Escaper::new(redactor_for(&opts.select, &picture));
    let mut files = Vec::new();
    let mut unconfirmed = Vec::new();
    for (path, bytes) in render(&picture, &esc, opts.format, &out, opts.now) {
        let diff = opts.dry_run.then(|| {
            let old = std::fs::read(&path).unwrap_or_default();
            let name = shown(&path, cwd);
            crate::report::text::unified_diff(
                &String::from_utf8_lossy(&old),
                &String::from_utf8_lossy(&bytes),
                &name,
            )
        });
        if !opts.dry_run
            && let Confirmation::Unconfirmed(list) = write_output(&path, &bytes)?
        {
            unconfirmed.extend(list);
        }
        files.push(WrittenFile {
            path: shown(&path, cwd),
            bytes: bytes.len(),
            sha256: sha256_hex(&bytes),
            diff,
            full_path: path,
        });
    }
    let plans = picture
        .plans
        .iter()
        .map(|p| Covered {
            system: p.system,
            name: esc.clean(&p.name),
            verdict: p.verdict(),
        })
        .collect();
    Ok(ReportOutcome {
        result: if opts.dry_run { "ok" } else { "applied" },
        dry_run: opts.dry_run,
        format: opts.format,
        files,
        plans,
        verdict: picture.verdict(),
        confirmation: (!opts.dry_run).then_some(if unconfirmed.is_empty() {
            Confirmation::Confirmed
        } else {
            Confirmation::Unconfirmed(unconfirmed)
        }),
    })
}
