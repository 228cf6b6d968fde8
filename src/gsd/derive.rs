//! What the frontmatter should say according to the body and the phase folders ("Sync" in
//! `docs/gsd.md`): the field mapping, phase-folder counting and the key order GSD writes.

use super::document::Document;
use super::layout;
use super::rules::{compute_progress_percent, leading_date, normalize_status};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

/// The order GSD writes its keys in; every other key follows in its original order.
pub const KEY_ORDER: [&str; 13] = [
    "gsd_state_version",
    "milestone",
    "milestone_name",
    "current_phase",
    "current_phase_name",
    "current_plan",
    "status",
    "stopped_at",
    "paused_at",
    "last_updated",
    "last_activity",
    "last_activity_desc",
    "progress",
];

/// The order of the children of `progress` GSD writes.
pub const PROGRESS_ORDER: [&str; 5] = [
    "total_phases",
    "completed_phases",
    "total_plans",
    "completed_plans",
    "percent",
];

/// Where a derived value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A body line: its exact text and 1-based line number.
    Body {
        /// The line as written, without its line end.
        line: String,
        /// Its 1-based line number in the whole file (frontmatter included).
        line_no: usize,
    },
    /// The `.planning/phases/` folders (and ROADMAP.md).
    Phases,
}

/// One frontmatter value the body (or the phase folders) implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivedValue {
    /// `status`, or `progress.percent` for a child of `progress`.
    pub key: String,
    /// The value as it would be written into the frontmatter (without quotes).
    pub value: String,
    /// Numbers are written unquoted (progress counters).
    pub numeric: bool,
    /// The body line or the phase folders it was derived from.
    pub source: Source,
}

/// The counts read from `.planning/phases/` and ROADMAP.md.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct PhaseCounts {
    /// Folders directly under `.planning/phases/`.
    pub phase_folders: u64,
    /// `## Phase N:` headings of the current milestone in ROADMAP.md, struck-through ones excluded.
    pub roadmap_phases: u64,
    /// The larger of `phase_folders` and `roadmap_phases`.
    pub total_phases: u64,
    /// Phase folders with at least one plan and at least as many paired summaries as plans.
    pub completed_phases: u64,
    /// Plans over every phase folder (`*-PLAN.md`, `PLAN.md`, `plans/*`), superseded ones excluded.
    pub total_plans: u64,
    /// Plans that have a summary with the same stem.
    pub completed_plans: u64,
}

/// Everything derived, in GSD's key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Derivation {
    /// One value per key the body (or the phase folders) implies, in GSD's key order.
    pub values: Vec<DerivedValue>,
    /// The phase-folder counts, when there is a `.planning/phases/` folder (and they were asked
    /// for).
    pub phases: Option<PhaseCounts>,
}

impl Derivation {
    /// The derived value of `key` (`status`, `progress.percent`, …), when there is one.
    pub fn get(&self, key: &str) -> Option<&DerivedValue> {
        self.values.iter().find(|v| v.key == key)
    }
}

/// `4.5 of 7 (Name)` ⇒ ("4.5", Some("Name")); `None` for prose such as `none active`.
pub fn parse_position(value: &str) -> Option<(&str, Option<&str>)> {
    let (number, rest) = value.trim().split_once(char::is_whitespace)?;
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("of")?;
    if !number.starts_with(|c: char| c.is_ascii_digit())
        || !number
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    {
        return None;
    }
    let rest = rest.trim_start();
    let total_len = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if total_len == 0 {
        return None;
    }
    let after = rest[total_len..].trim_start();
    let name = after
        .strip_prefix('(')
        .and_then(|r| r.rfind(')').map(|close| r[..close].trim()))
        .filter(|n| !n.is_empty());
    Some((number, name))
}

fn absent_marker(v: &str) -> bool {
    let v = v.trim();
    v.is_empty() || v.eq_ignore_ascii_case("none") || v == "-" || v == "—"
}

/// Derives the frontmatter values from the body of `doc` (and the phase counts when given).
pub fn derive(doc: &Document, phases: Option<PhaseCounts>) -> Derivation {
    let mut values = Vec::new();
    let position = doc
        .heading("Current Position", &[2, 3])
        .map(|h| h.section.clone());
    let scope = position.as_ref();
    let body_range = doc.body_start..doc.text.len();
    let field = |name: &str| {
        doc.field(name, scope)
            .or_else(|| doc.field(name, Some(&body_range)))
    };
    let mut push = |key: &str, value: &str, numeric: bool, source: Source| {
        values.push(DerivedValue {
            key: key.to_string(),
            value: value.to_string(),
            numeric,
            source,
        });
    };
    let body_source = |f: &super::document::BodyField| Source::Body {
        line: doc.slice(&f.line).to_string(),
        line_no: doc.line_number(f.line.start),
    };

    let session = doc
        .heading("Session", &[2])
        .or_else(|| doc.heading("Session Continuity", &[2]))
        .map(|h| h.section.clone());
    let session_field = |name: &str| {
        session
            .as_ref()
            .and_then(|s| doc.field(name, Some(s)))
            .filter(|f| !absent_marker(&f.value))
    };

    if let Some(f) = field("Phase")
        && let Some((number, name)) = parse_position(&f.value)
    {
        push("current_phase", number, false, body_source(f));
        if let Some(name) = name {
            push("current_phase_name", name, false, body_source(f));
        }
    } else {
        if let Some(f) = field("Current Phase").filter(|f| !absent_marker(&f.value)) {
            push("current_phase", &f.value, false, body_source(f));
        }
        if let Some(f) = field("Current Phase Name").filter(|f| !absent_marker(&f.value)) {
            push("current_phase_name", &f.value, false, body_source(f));
        }
    }
    if let Some(f) = field("Plan")
        && let Some((number, _)) = parse_position(&f.value)
    {
        push("current_plan", number, false, body_source(f));
    } else if let Some(f) = field("Current Plan").filter(|f| !absent_marker(&f.value)) {
        push("current_plan", &f.value, false, body_source(f));
    }
    let paused = session_field("Paused at");
    if let Some(f) = field("Status").filter(|f| !f.value.is_empty()) {
        let status = normalize_status(&f.value, paused.map(|p| p.value.as_str()));
        push("status", &status, false, body_source(f));
    }
    if let Some(f) = session_field("Stopped at") {
        push("stopped_at", &f.value, false, body_source(f));
    }
    if let Some(f) = paused {
        push("paused_at", &f.value, false, body_source(f));
    }
    if let Some(f) = field("Last activity")
        && let Some(date) = leading_date(&f.value)
    {
        push("last_activity", date, false, body_source(f));
    }
    if let Some(p) = &phases {
        push(
            "progress.total_phases",
            &p.total_phases.to_string(),
            true,
            Source::Phases,
        );
        push(
            "progress.completed_phases",
            &p.completed_phases.to_string(),
            true,
            Source::Phases,
        );
        push(
            "progress.total_plans",
            &p.total_plans.to_string(),
            true,
            Source::Phases,
        );
        push(
            "progress.completed_plans",
            &p.completed_plans.to_string(),
            true,
            Source::Phases,
        );
        if let Some(pct) = compute_progress_percent(
            Some(p.completed_plans),
            Some(p.total_plans),
            Some(p.completed_phases),
            Some(p.total_phases),
        ) {
            push("progress.percent", &pct.to_string(), true, Source::Phases);
        }
    }
    Derivation { values, phases }
}

/// Counts plans, summaries and phases under `<planning>/phases/`: plans are
/// `*-PLAN.md` / `PLAN.md` in a phase folder plus the files of its `plans/`, minus those marked
/// `status: superseded`; a summary counts only when paired with a plan (same stem); a phase is
/// complete with ≥ 1 plan and summaries ≥ plans; `total_phases` is the larger of the folder
/// count and the `## Phase N:` headings of the current milestone in ROADMAP.md (struck-through
/// phases excluded). `None` when there is no `phases/` folder, or when something in it cannot be
/// read.
pub fn count_phases(planning: &Path, milestone: Option<&str>) -> Option<PhaseCounts> {
    count_phases_checked(planning, milestone).ok().flatten()
}

/// A phase folder, a plan or ROADMAP.md that is there but could not be read (an OS error).
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {source}", path.display())]
pub struct PhaseReadError {
    /// The folder or file.
    pub path: PathBuf,
    /// The operating system's error.
    pub source: std::io::Error,
}

/// [`count_phases`], an OS error reading what is there being an error rather than "no phases":
/// a writer must not derive the frontmatter from a partial count.
pub fn count_phases_checked(
    planning: &Path,
    milestone: Option<&str>,
) -> Result<Option<PhaseCounts>, PhaseReadError> {
    let phases_dir = planning.join(layout::PHASES_DIR);
    let Some(mut folders) = entries(&phases_dir, |t| t.is_dir())? else {
        return Ok(None);
    };
    folders.sort();
    let mut counts = PhaseCounts {
        phase_folders: folders.len() as u64,
        ..PhaseCounts::default()
    };
    for folder in &folders {
        let (plans, summaries) = plans_and_summaries(folder)?;
        let done = plans
            .iter()
            .filter(|stem| summaries.contains(*stem))
            .count() as u64;
        let total = plans.len() as u64;
        counts.total_plans += total;
        counts.completed_plans += done;
        if total > 0 && done >= total {
            counts.completed_phases += 1;
        }
    }
    counts.roadmap_phases = read_text_checked(&planning.join(layout::ROADMAP_FILE))?
        .map(|text| roadmap_phase_count(&text, milestone))
        .unwrap_or(0);
    counts.total_phases = counts.phase_folders.max(counts.roadmap_phases);
    Ok(Some(counts))
}

/// The entries of `dir` whose type `keep` accepts; `None` when `dir` is absent or not a folder.
fn entries(
    dir: &Path,
    keep: impl Fn(std::fs::FileType) -> bool,
) -> Result<Option<Vec<PathBuf>>, PhaseReadError> {
    let failed = |source| PhaseReadError {
        path: dir.to_path_buf(),
        source,
    };
    let listing = match std::fs::read_dir(dir) {
        Ok(listing) => listing,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(failed(e)),
    };
    let mut out = Vec::new();
    for entry in listing {
        let entry = entry.map_err(failed)?;
        if keep(entry.file_type().map_err(failed)?) {
            out.push(entry.path());
        }
    }
    Ok(Some(out))
}

/// The plan stems and summary stems of one phase folder.
fn plans_and_summaries(folder: &Path) -> Result<(Vec<String>, Vec<String>), PhaseReadError> {
    let mut plans = Vec::new();
    let mut summaries = Vec::new();
    for (dir, every_file_is_a_plan) in [
        (folder.to_path_buf(), false),
        (folder.join(layout::PHASE_PLANS_DIR), true),
        (folder.join(layout::PHASE_SUMMARIES_DIR), false),
    ] {
        let mut files = entries(&dir, |t| t.is_file())?.unwrap_or_default();
        files.sort();
        for path in files {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(stem) = summary_stem(&name) {
                summaries.push(stem.to_string());
            } else if let Some(stem) = plan_stem(&name)
                .or(every_file_is_a_plan.then(|| name.strip_suffix(".md").unwrap_or(&name)))
                && !is_superseded(&path)?
            {
                plans.push(stem.to_string());
            }
        }
    }
    Ok((plans, summaries))
}

fn plan_stem(name: &str) -> Option<&str> {
    if name == layout::PLAN_FILE {
        return Some("");
    }
    name.strip_suffix(layout::PLAN_SUFFIX)
}

fn summary_stem(name: &str) -> Option<&str> {
    if name == layout::SUMMARY_FILE {
        return Some("");
    }
    name.strip_suffix(layout::SUMMARY_SUFFIX)
}

/// A file's text under the reading discipline; `None` when it is missing, refused or not UTF-8;
/// an OS error reading a file that is there is an error.
fn read_text_checked(path: &Path) -> Result<Option<String>, PhaseReadError> {
    match planseal_recovery::read::read(path, planseal_recovery::read::Kind::Document) {
        Ok(bytes) => Ok(bytes.and_then(|b| String::from_utf8(b).ok())),
        Err(planseal_recovery::read::ReadError::Io { path, source }) => {
            Err(PhaseReadError { path, source })
        }
        Err(_) => Ok(None),
    }
}

/// A plan file whose frontmatter says `status: superseded`.
fn is_superseded(path: &Path) -> Result<bool, PhaseReadError> {
    let Some(text) = read_text_checked(path)? else {
        return Ok(false);
    };
    let Some(rest) = text.strip_prefix("---") else {
        return Ok(false);
    };
    Ok(rest
        .lines()
        .skip(1)
        .take_while(|l| l.trim_end() != "---")
        .any(|l| {
            l.split_once(':').is_some_and(|(k, v)| {
                k.trim() == "status"
                    && v.trim()
                        .trim_matches(['"', '\''])
                        .eq_ignore_ascii_case("superseded")
            })
        }))
}

/// `## Phase N:` headings (levels 2–4) of the milestone section naming `milestone` (all of them
/// when no heading names it), struck-through ones excluded.
pub fn roadmap_phase_count(text: &str, milestone: Option<&str>) -> u64 {
    let lines: Vec<&str> = text.lines().collect();
    let names_milestone = |title: &str| {
        milestone.is_some_and(|m| {
            !m.is_empty()
                && title
                    .split_whitespace()
                    .any(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.') == m)
        })
    };
    let milestone_heading = |line: &str| -> Option<usize> {
        let (level, title) = super::document::heading(line)?;
        names_milestone(title).then_some(level)
    };
    let (from, to) = match lines.iter().position(|l| milestone_heading(l).is_some()) {
        Some(start) => {
            let level = milestone_heading(lines[start]).unwrap_or(1);
            let end = lines[start + 1..]
                .iter()
                .position(|l| {
                    super::document::heading(l).is_some_and(|(lvl, title)| {
                        lvl <= level && !title.to_ascii_lowercase().starts_with("phase ")
                    })
                })
                .map_or(lines.len(), |i| start + 1 + i);
            (start + 1, end)
        }
        None => (0, lines.len()),
    };
    lines[from..to]
        .iter()
        .filter(|l| {
            super::document::heading(l)
                .is_some_and(|(lvl, title)| (2..=4).contains(&lvl) && is_phase_title(title))
        })
        .count() as u64
}

fn is_phase_title(title: &str) -> bool {
    if title.starts_with("~~") {
        return false;
    }
    let Some(rest) = title.strip_prefix("Phase ") else {
        return false;
    };
    let number_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    number_len > 0 && rest[number_len..].starts_with(':')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions() {
        assert_eq!(
            parse_position("4 of 17 (Observability)"),
            Some(("4", Some("Observability")))
        );
        assert_eq!(parse_position("4.5 of 7"), Some(("4.5", None)));
        assert_eq!(parse_position("none active (waiting)"), None);
        assert_eq!(parse_position("2 of 3 in current phase"), Some(("2", None)));
    }

    #[test]
    fn roadmap_counts_current_milestone_without_struck_phases() {
        let text = "# Roadmap\n## v1.0 Old\n## Phase 1: a\n## v2.0 New\n### Phase 1: x\n### Phase 2: y\n### ~~Phase 3: z~~\n### Phase 3.5: w\n## v3.0 Later\n### Phase 9: q\n";
        assert_eq!(roadmap_phase_count(text, Some("v2.0")), 3);
        assert_eq!(roadmap_phase_count(text, None), 5);
    }
}
