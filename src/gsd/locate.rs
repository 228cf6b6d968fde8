//! Which STATE.md a command works on, the project it belongs to, and which `.env` files are that
//! project's.
//!
//! The search is the one of GSD's statusline hook (walk up, workstreams, `config.json`), so every
//! command finds the file the statusline renders. It is cheap on purpose: the statusline runs on
//! every prompt.

use super::error::GsdError;
use super::layout::Format;
use super::layout::{
    self, ACTIVE_WORKSTREAM_FILE, CONFIG_FILE, PLANNING_DIR, WORKSTREAM_ENV, WORKSTREAMS_DIR,
};
use crate::report::redact::EnvRedactor;
use crate::report::{HintedError, Refusal, RefusalKind};
use planseal_recovery::read::ReadError;
use std::path::{Path, PathBuf};

/// How many folders the search climbs, the start included.
const MAX_LEVELS: usize = 10;

/// What the search depends on besides the start folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lookup {
    /// The search stops after this folder (the user's home).
    pub home: Option<PathBuf>,
    /// `GSD_WORKSTREAM`: the workstream asked for.
    pub workstream: Option<String>,
}

impl Lookup {
    /// `HOME` and `GSD_WORKSTREAM` of this process.
    pub fn from_env() -> Self {
        Self {
            home: std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(PathBuf::from),
            workstream: std::env::var(WORKSTREAM_ENV).ok(),
        }
    }
}

/// Where the state segment comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Located {
    /// A readable STATE.md and its text.
    File {
        /// The STATE.md found, as the search built its path from the start folder.
        path: PathBuf,
        /// Its whole text.
        text: String,
    },
    /// Workstream mode is on at `root` but no workstream resolves.
    NoActiveWorkstream {
        /// The project folder whose `.planning/workstreams/` was found.
        root: PathBuf,
    },
    /// A workstream resolved but its STATE.md does not exist yet.
    MissingWorkstreamState(PathBuf),
    /// No `.planning/STATE.md` within reach.
    NotFound,
}

/// The hook's search: from `start`, at most 10 levels up, stopping after the home directory. At
/// each level a readable `.planning/STATE.md` wins (one that cannot be read is passed over, as
/// the hook does); else, when `.planning/workstreams/` holds a
/// workstream, the active one (`GSD_WORKSTREAM`, else `.planning/active-workstream`) is used.
pub fn locate(start: &Path, home: Option<&Path>, env_workstream: Option<&str>) -> Located {
    search(start, home, env_workstream, false).unwrap_or(Located::NotFound)
}

/// The hook's search over folders the caller walked itself (the whole-line statusline walks
/// with JavaScript's path rules, see `hookline`): the first level with a readable
/// `.planning/STATE.md`, or with workstreams, answers.
pub fn locate_levels(levels: &[PathBuf], env_workstream: Option<&str>) -> Located {
    for current in levels {
        let planning = layout::planning_dir(current);
        let flat = layout::flat_state(&planning);
        if let Some(text) = read_text(&flat) {
            return Located::File { path: flat, text };
        }
        if has_workstreams(&planning) {
            return match active_workstream(&planning, env_workstream) {
                None => Located::NoActiveWorkstream {
                    root: current.clone(),
                },
                Some(ws) => {
                    let path = layout::workstream_state(&planning, &ws);
                    match read_text(&path) {
                        Some(text) => Located::File { path, text },
                        None => Located::MissingWorkstreamState(path),
                    }
                }
            };
        }
    }
    Located::NotFound
}

/// A STATE.md the strict search found but could not read (an OS error, or a file the reading
/// discipline refuses).
#[derive(Debug)]
pub struct Unreadable(pub ReadError);

/// The search; `strict` stops at a STATE.md that is there but cannot be read instead of passing
/// over it: for a command, an I/O error is never "not found" and never another file further up.
fn search(
    start: &Path,
    home: Option<&Path>,
    env_workstream: Option<&str>,
    strict: bool,
) -> Result<Located, Unreadable> {
    let read = |path: &Path| match read_text_checked(path) {
        Ok(text) => Ok(text),
        Err(e) if strict => Err(Unreadable(e)),
        Err(_) => Ok(None),
    };
    let mut current = start.to_path_buf();
    for _ in 0..MAX_LEVELS {
        let planning = layout::planning_dir(&current);
        let flat = layout::flat_state(&planning);
        if let Some(text) = read(&flat)? {
            return Ok(Located::File { path: flat, text });
        }
        if has_workstreams(&planning) {
            return Ok(match active_workstream(&planning, env_workstream) {
                None => Located::NoActiveWorkstream { root: current },
                Some(ws) => {
                    let path = layout::workstream_state(&planning, &ws);
                    match read(&path)? {
                        Some(text) => Located::File { path, text },
                        None => Located::MissingWorkstreamState(path),
                    }
                }
            });
        }
        let at_home = home.is_some_and(|h| h == current);
        match current.parent() {
            Some(parent) if !at_home && parent != current => current = parent.to_path_buf(),
            _ => break,
        }
    }
    Ok(Located::NotFound)
}

/// The STATE.md a command works on: `file` (relative to `cwd`) when given, else the one the
/// statusline would render. A STATE.md the search reaches but cannot read stops it: a refusal
/// for a file the reading discipline refuses, else an I/O error — exit 3 (nothing applied) for a
/// command that writes (`writing`), exit 2 for one that only reads.
pub fn state_file(
    file: Option<&Path>,
    cwd: &Path,
    lookup: &Lookup,
    writing: bool,
) -> Result<PathBuf, GsdError> {
    if let Some(file) = file {
        return Ok(cwd.join(file));
    }
    let found = search(
        cwd,
        lookup.home.as_deref(),
        lookup.workstream.as_deref(),
        true,
    )
    .map_err(|Unreadable(e)| unreadable_state(&e, writing))?;
    match found {
        Located::File { path, .. } => Ok(path),
        Located::NoActiveWorkstream { root } => Err(Refusal::new(
            RefusalKind::NoActiveWorkstream,
            format!(
                "{} is in workstream mode but no workstream is active",
                layout::planning_dir(&root).display()
            ),
        )
        .hint("set GSD_WORKSTREAM=<name>, or pass the workstream's STATE.md")
        .into()),
        Located::MissingWorkstreamState(path) => Err(HintedError::usage(format!(
            "{}: the active workstream has no STATE.md yet",
            path.display()
        ))
        .into()),
        Located::NotFound => Err(HintedError::usage(format!(
            "no .planning/STATE.md found from {} upwards",
            cwd.display()
        ))
        .hint("run inside a GSD project or pass FILE")
        .into()),
    }
}

/// Why a STATE.md could not be read, as the error a command stops with: a refusal (exit 1) for a
/// file the reading discipline refuses; for an I/O error exit 3 when the command writes (nothing
/// was applied), else exit 2.
pub fn unreadable_state(e: &ReadError, writing: bool) -> GsdError {
    if let Some(refusal) = crate::report::read_refusal(e) {
        return refusal.into();
    }
    let message = format!(
        "{}: cannot read STATE.md: {}",
        e.path().display(),
        e.reason()
    );
    if writing {
        HintedError::input_io(message).into()
    } else {
        HintedError::usage(message)
            .hint("check the path and its permissions")
            .into()
    }
}

/// A file's text as Node reads it with `'utf8'`: invalid sequences become U+FFFD. `None` when
/// it is absent or cannot be read.
pub fn read_text(path: &Path) -> Option<String> {
    read_text_checked(path).ok().flatten()
}

/// [`read_text`], keeping why a file that is there could not be read.
fn read_text_checked(path: &Path) -> Result<Option<String>, ReadError> {
    let bytes = planseal_recovery::read::read(path, planseal_recovery::read::Kind::Document)?;
    Ok(bytes.map(|bytes| match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }))
}

/// Workstream mode: `.planning/workstreams/` holds at least one folder.
pub fn has_workstreams(planning: &Path) -> bool {
    std::fs::read_dir(planning.join(WORKSTREAMS_DIR)).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_type().is_ok_and(|t| t.is_dir()))
    })
}

/// GSD's rule for a workstream name: letters, digits, `.`, `-`, `_`, and not a path step.
pub fn valid_workstream_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
}

/// The workstream that resolves: the environment first, else the shared pointer file; a name
/// counts only when it is valid and its folder exists.
pub fn active_workstream(planning: &Path, env_workstream: Option<&str>) -> Option<String> {
    let resolves = |name: &str| {
        valid_workstream_name(name) && planning.join(WORKSTREAMS_DIR).join(name).is_dir()
    };
    if let Some(name) = env_workstream.map(str::trim).filter(|n| !n.is_empty()) {
        return resolves(name).then(|| name.to_string());
    }
    let stored = planseal_recovery::read::read(
        &planning.join(ACTIVE_WORKSTREAM_FILE),
        planseal_recovery::read::Kind::Settings,
    )
    .ok()??;
    let stored = String::from_utf8_lossy(&stored);
    let name = stored.trim();
    resolves(name).then(|| name.to_string())
}

/// GSD's `statusline.state_format` setting: the first `.planning/config.json` walking up from
/// `start` (same bounds as the STATE.md search), read as a flat or nested key.
pub fn configured_format(start: &Path, home: Option<&Path>) -> Format {
    let mut current = start.to_path_buf();
    for _ in 0..MAX_LEVELS {
        let candidate = current.join(PLANNING_DIR).join(CONFIG_FILE);
        if candidate.exists() {
            let compact =
                planseal_recovery::read::read(&candidate, planseal_recovery::read::Kind::Settings)
                    .ok()
                    .flatten()
                    .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
                    .is_some_and(|cfg| {
                        let flat = cfg.get("statusline.state_format");
                        let nested = || cfg.get("statusline")?.get("state_format");
                        flat.or_else(nested).and_then(|v| v.as_str()) == Some("compact")
                    });
            return if compact {
                Format::Compact
            } else {
                Format::Full
            };
        }
        let at_home = home.is_some_and(|h| h == current);
        match current.parent() {
            Some(parent) if !at_home && parent != current => current = parent.to_path_buf(),
            _ => break,
        }
    }
    Format::Full
}

/// The working directory Claude Code names in the JSON it passes to statusline commands.
pub fn workspace_dir_from_json(input: &[u8]) -> Option<PathBuf> {
    let v: serde_json::Value = serde_json::from_slice(input).ok()?;
    let dir = v
        .get("workspace")
        .and_then(|w| w.get("current_dir"))
        .and_then(|d| d.as_str())
        .filter(|d| !d.is_empty())
        .or_else(|| {
            v.get("cwd")
                .and_then(|d| d.as_str())
                .filter(|d| !d.is_empty())
        })?;
    Some(PathBuf::from(dir))
}

/// The GSD state files `verify` should check at a repository or workspace root:
/// `.planning/STATE.md` and each workstream's `.planning/workstreams/<ws>/STATE.md`.
pub fn detect(root: &Path) -> Vec<PathBuf> {
    let planning = layout::planning_dir(root);
    let mut found = Vec::new();
    let flat = layout::flat_state(&planning);
    if flat.is_file() {
        found.push(flat);
    }
    if let Ok(entries) = std::fs::read_dir(planning.join(WORKSTREAMS_DIR)) {
        let mut streams: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path().join(layout::STATE_FILE))
            .filter(|p| p.is_file())
            .collect();
        streams.sort();
        found.extend(streams);
    }
    found
}

/// The project root a STATE.md belongs to: the folder holding its `.planning/` (workstreams
/// included), else the file's own folder.
pub fn project_root(state_file: &Path) -> PathBuf {
    let dir = state_file.parent().unwrap_or(Path::new("."));
    dir.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == PLANNING_DIR))
        .and_then(Path::parent)
        .unwrap_or(dir)
        .to_path_buf()
}

/// The `.env` values a command on this STATE.md must never print: the project root's `.env`
/// and, when the project sits below the root of a git work tree, that root's `.env` too.
pub fn env_redactor(state: &Path) -> EnvRedactor {
    let root = project_root(state);
    let mut redactor = EnvRedactor::for_folder(&root);
    if let Some(repo_root) = root.ancestors().skip(1).find(|a| a.join(".git").exists())
        && !root.join(".git").exists()
    {
        redactor = redactor.merge(EnvRedactor::for_folder(repo_root));
    }
    redactor
}

/// The statusline's redactor: the project root's `.env` only — one open on top of the render,
/// nothing else is read.
pub fn statusline_env_redactor(state: &Path) -> EnvRedactor {
    EnvRedactor::for_folder(&project_root(state))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_root_is_above_the_planning_folder() {
        assert_eq!(
            project_root(Path::new("/p/.planning/STATE.md")),
            Path::new("/p")
        );
        assert_eq!(
            project_root(Path::new("/p/.planning/workstreams/api/STATE.md")),
            Path::new("/p")
        );
        assert_eq!(project_root(Path::new("/p/x/STATE.md")), Path::new("/p/x"));
    }

    #[test]
    fn a_given_file_is_taken_as_it_is() {
        let got = state_file(
            Some(Path::new("a/STATE.md")),
            Path::new("/w"),
            &Lookup::default(),
            false,
        );
        assert_eq!(got.ok(), Some(PathBuf::from("/w/a/STATE.md")));
    }
}
