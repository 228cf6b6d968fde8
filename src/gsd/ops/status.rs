//! `gsd status`: every field, the normalised status, the derived percent, and where the
//! frontmatter and what the body (and phase folders) imply disagree.

use super::{StateFile, derive_with_phases, read_state};
use crate::gsd::derive::{Derivation, PhaseCounts, Source};
use crate::gsd::document::{Document, FieldStyle, Value};
use crate::gsd::error::GsdError;
use crate::gsd::rules::{compute_progress_percent, normalize_status};
use crate::gsd::statusline::{Format, render_text};
use crate::report::ExitCode;
use crate::report::text::printable;
use serde::Serialize;
use std::fmt::Write;

/// `gsd status`: which STATE.md, and whether a problem should end the command with 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusOptions {
    /// The STATE.md to report on.
    pub state: StateFile,
    /// Exit 1 on a disagreement or a failing check of `gsd check`.
    pub exit_code: bool,
}

/// What `gsd status` reports; its JSON form is the `--json` document.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StatusOutcome {
    /// The STATE.md, as the user sees it.
    pub file: String,
    /// Each frontmatter key with its value as JSON (a list as an array, a map as an object).
    pub frontmatter: serde_json::Map<String, serde_json::Value>,
    /// Every body field line, in file order.
    pub body_fields: Vec<BodyFieldRow>,
    /// The status as the frontmatter and the body state it, and GSD's normalisation.
    pub status: StatusReport,
    /// The progress percent as written, and as computed from the counters and from the phase
    /// folders.
    pub percent: PercentReport,
    /// The counts of the phase folders, when there is a `phases/` folder.
    pub phases: Option<PhaseCounts>,
    /// Every frontmatter value that differs from what the body or the phase folders give.
    pub disagreements: Vec<Disagreement>,
    /// What GSD's statusline hook shows for this file, in both forms.
    pub statusline: StatuslinePair,
    /// The exit code the command ends with: 1 under `exit_code` when there is a disagreement or a
    /// failing check, else 0.
    #[serde(skip)]
    pub exit_code: ExitCode,
}

/// One body field (`Status: Executing`, `**Phase:** 2`, a table row).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct BodyFieldRow {
    /// The field's name, as written.
    pub name: String,
    /// The field's value, trimmed.
    pub value: String,
    /// How it is spelled: `plain` (`Field: value`), `bold` (`**Field:** value`) or `table`
    /// (`| Field | value |`).
    pub style: &'static str,
    /// 1-based.
    pub line: usize,
}

/// The status, as stated in the frontmatter and in the body, and what GSD makes of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StatusReport {
    /// The frontmatter's `status:`; `None` when absent or null.
    pub frontmatter: Option<String>,
    /// The value of the body's first `Status` field; `None` when there is none.
    pub body: Option<String>,
    /// GSD's normalisation of the body's status (else the frontmatter's).
    pub normalized: String,
}

/// The progress percent, as written and as computed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct PercentReport {
    /// `progress.percent` as written.
    pub frontmatter: Option<String>,
    /// The percent GSD computes from the `progress:` counters (`docs/gsd.md`, "The progress
    /// percent"); `None` without data.
    pub from_counters: Option<u64>,
    /// The percent the phase folders give; `None` without a `phases/` folder.
    pub from_phase_folders: Option<u64>,
}

/// A frontmatter value that is not what the body or the phase folders give.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Disagreement {
    /// The key, `progress.percent` for a child of `progress`.
    pub key: String,
    /// `None`: the key is absent.
    pub frontmatter: Option<String>,
    /// The value the body or the phase folders give.
    pub derived: String,
    /// `line N: …` or `phase folders`.
    pub source: String,
}

/// The statusline segment in both of GSD's forms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct StatuslinePair {
    /// The segment in GSD's default form (`formatGsdState`).
    pub full: String,
    /// The segment in GSD's compact form (`formatGsdStateCompact`).
    pub compact: String,
}

/// `gsd status`: reads the file and its phase folders, and reports; nothing is written.
pub fn status(opts: &StatusOptions) -> Result<StatusOutcome, GsdError> {
    let path = &opts.state.path;
    let (_, text) = read_state(path)?;
    let doc = Document::parse(text);
    let derivation = derive_with_phases(&doc, path);
    let frontmatter = doc
        .frontmatter
        .iter()
        .flat_map(|f| f.entries.iter())
        .map(|e| (e.key.clone(), value_json(&e.value)))
        .collect();
    let body_fields = doc
        .fields
        .iter()
        .map(|f| BodyFieldRow {
            name: f.name.clone(),
            value: f.value.clone(),
            style: match f.style {
                FieldStyle::Plain => "plain",
                FieldStyle::Bold => "bold",
                FieldStyle::Table => "table",
            },
            line: doc.line_number(f.line.start),
        })
        .collect();
    let body_status = doc.field("Status", None).map(|f| f.value.clone());
    let normalized = normalize_status(
        body_status
            .as_deref()
            .or(doc.scalar("status"))
            .unwrap_or(""),
        doc.scalar("paused_at"),
    );
    let n = |k: &str| doc.child("progress", k).and_then(|c| c.scalar.as_u64());
    let from_counters = compute_progress_percent(
        n("completed_plans"),
        n("total_plans"),
        n("completed_phases"),
        n("total_phases"),
    );
    let from_phase_folders = derivation
        .get("progress.percent")
        .and_then(|v| v.value.parse::<u64>().ok());
    let stated = doc
        .child("progress", "percent")
        .and_then(|c| c.scalar.as_str().map(str::to_string));
    let disagreements = disagreements(&doc, &derivation);
    // --exit-code: a disagreement, or a check of `gsd check` that fails.
    let exit_code = ExitCode::failed_if(
        opts.exit_code && (!disagreements.is_empty() || crate::gsd::check(path).failed()),
    );
    Ok(StatusOutcome {
        file: opts.state.shown.clone(),
        frontmatter,
        body_fields,
        status: StatusReport {
            frontmatter: doc.scalar("status").map(str::to_string),
            body: body_status,
            normalized,
        },
        percent: PercentReport {
            frontmatter: stated,
            from_counters,
            from_phase_folders,
        },
        phases: derivation.phases,
        disagreements,
        statusline: StatuslinePair {
            full: render_text(&doc.text, Format::Full),
            compact: render_text(&doc.text, Format::Compact),
        },
        exit_code,
    })
}

fn value_json(value: &Value) -> serde_json::Value {
    let scalar = |s: &crate::gsd::document::Scalar| {
        s.as_str()
            .map_or(serde_json::Value::Null, serde_json::Value::from)
    };
    match value {
        Value::Scalar(s) => scalar(s),
        Value::Map(children) => serde_json::Value::Object(
            children
                .iter()
                .map(|c| (c.key.clone(), scalar(&c.scalar)))
                .collect(),
        ),
        Value::FlowList(items) | Value::BlockList(items) => {
            items.iter().filter_map(|s| s.as_str()).collect()
        }
        Value::Empty => serde_json::Value::Null,
    }
}

/// Where the frontmatter and what the body (and phase folders) imply disagree.
fn disagreements(doc: &Document, derivation: &Derivation) -> Vec<Disagreement> {
    derivation
        .values
        .iter()
        .filter_map(|d| {
            let current = match d.key.split_once('.') {
                Some((p, c)) => doc.child(p, c).and_then(|c| c.scalar.as_str()),
                None => doc.scalar(&d.key),
            };
            if current.map(str::trim) == Some(d.value.as_str()) {
                return None;
            }
            let source = match &d.source {
                Source::Body { line, line_no } => format!("line {line_no}: {}", line.trim()),
                Source::Phases => "phase folders".into(),
            };
            Some(Disagreement {
                key: d.key.clone(),
                frontmatter: current.map(str::to_string),
                derived: d.value.clone(),
                source,
            })
        })
        .collect()
}

impl StatusOutcome {
    /// The text report; file text in it is quoted with [`printable`].
    pub fn to_text(&self) -> String {
        let mut out = format!("GSD: {}\n", self.file);
        out.push_str("frontmatter:\n");
        if self.frontmatter.is_empty() {
            out.push_str("  (none)\n");
        }
        for (k, v) in &self.frontmatter {
            let _ = writeln!(out, "  {k}: {v}");
        }
        out.push_str("body fields:\n");
        for f in &self.body_fields {
            let _ = writeln!(out, "  {}: {} (line {})", f.name, f.value, f.line);
        }
        let _ = writeln!(
            out,
            "status: {} (frontmatter {}, body {})",
            self.status.normalized,
            self.status.frontmatter.as_deref().unwrap_or("-"),
            self.status.body.as_deref().unwrap_or("-")
        );
        let percent = |v: Option<u64>| v.map_or("-".to_string(), |v| format!("{v}%"));
        let _ = writeln!(
            out,
            "percent: frontmatter {}, from counters {}, from phase folders {}",
            self.percent
                .frontmatter
                .as_ref()
                .map_or("-".to_string(), |s| format!("{s}%")),
            percent(self.percent.from_counters),
            percent(self.percent.from_phase_folders)
        );
        if let Some(p) = &self.phases {
            let _ = writeln!(
                out,
                "phase folders: {} phases ({} folders, {} in ROADMAP.md), {} complete; {}/{} plans done",
                p.total_phases,
                p.phase_folders,
                p.roadmap_phases,
                p.completed_phases,
                p.completed_plans,
                p.total_plans
            );
        }
        if self.disagreements.is_empty() {
            out.push_str("disagreements: none\n");
        } else {
            out.push_str("disagreements:\n");
            for d in &self.disagreements {
                let _ = writeln!(
                    out,
                    "  {}: frontmatter {} but {} gives `{}`",
                    d.key,
                    d.frontmatter
                        .as_ref()
                        .map_or("(absent)".to_string(), |v| format!("`{v}`")),
                    d.source,
                    d.derived,
                );
            }
        }
        let _ = writeln!(out, "statusline: {}", self.statusline.full);
        printable(&out).into_owned()
    }
}
