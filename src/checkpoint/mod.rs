//! Checkpoint protocol `PROJECT-CHECKPOINT.md`: sections, project resolution, generated sections
//! (docs/checkpoint.md).
//!
//! [`layout`] names the files, [`locate`] finds them, [`ops`] runs the `checkpoint` commands.
//!
//! ```
//! use planseal::checkpoint::generate::{env_keys, env_body};
//! let keys = env_keys(b"export API_KEY=sk-do-not-print\n# note\nPORT=8080\nPORT=9090\n");
//! assert_eq!(env_body(&keys), "\nKeys: API_KEY, PORT\n");
//! ```
//!
//! ## Limitations
//! - Story status is read from a story's front matter or its first `Status:` line; other
//!   layouts count as "no status" (the row is kept, its status cell is not touched).
//! - Staleness compares file modification times, which a fresh clone resets.

pub mod checks;
pub mod diff;
pub mod doc;
pub mod generate;
pub mod git;
pub mod layout;
pub mod locate;
pub mod ops;
pub mod restore;
pub mod session;
pub mod stories;

pub use layout::{Target, checkpoint_target};

use crate::report::{Finding, Section, System};
use checks::PrefixSource;
use std::path::{Path, PathBuf};

/// The checkpoint files `verify` should check when run at `root`.
pub fn detect(root: &Path) -> Vec<PathBuf> {
    locate::existing(root)
        .into_iter()
        .map(|t| t.checkpoint)
        .collect()
}

/// The prefix a project's `.project.yaml` sets: `prefix`, `story_prefix` or `code`, first present.
pub fn project_yaml_prefix(project_dir: &Path) -> Option<String> {
    let bytes = planseal_recovery::read::read(
        &project_dir.join(layout::PROJECT_YAML),
        planseal_recovery::read::Kind::Settings,
    )
    .ok()??;
    let text = String::from_utf8_lossy(&bytes);
    for key in ["prefix", "story_prefix", "code"] {
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix(key)
                && let Some(value) = rest.trim_start().strip_prefix(':')
            {
                let v = value.split(" #").next().unwrap_or(value).trim();
                let v = v.trim_matches(|c| c == '"' || c == '\'').trim();
                if !v.is_empty() {
                    return Some(v.to_string());
                }
            }
        }
    }
    None
}

/// The memory files a project's `.project.yaml` names under `memory:` (a path, a flow list
/// `[a, b]` or a block list of `- path` lines), relative to the project folder; `None` when the
/// file or the key is absent.
pub fn read_project_memory(project_dir: &Path) -> Option<Vec<PathBuf>> {
    let bytes = planseal_recovery::read::read(
        &project_dir.join(layout::PROJECT_YAML),
        planseal_recovery::read::Kind::Settings,
    )
    .ok()??;
    let text = String::from_utf8_lossy(&bytes);
    let clean = |v: &str| {
        let v = v.split(" #").next().unwrap_or(v).trim();
        v.trim_matches(|c| c == '"' || c == '\'').trim().to_string()
    };
    let mut lines = text.lines();
    let rest = lines.find_map(|l| {
        l.strip_prefix("memory")
            .and_then(|r| r.trim_start().strip_prefix(':'))
    })?;
    let inline = clean(rest);
    let names: Vec<String> = if let Some(list) = inline.strip_prefix('[') {
        list.trim_end_matches(']').split(',').map(clean).collect()
    } else if !inline.is_empty() {
        vec![inline]
    } else {
        lines
            .take_while(|l| l.starts_with([' ', '\t']) || l.trim().is_empty())
            .filter_map(|l| l.trim().strip_prefix("- ").map(clean))
            .collect()
    };
    Some(
        names
            .into_iter()
            .filter(|n| !n.is_empty())
            .map(|n| project_dir.join(n))
            .collect(),
    )
}

/// Everything a check or a refresh reads from disk for one checkpoint.
#[derive(Debug, Clone)]
pub struct Gathered {
    /// The checkpoint's bytes; empty when the file does not exist.
    pub bytes: Vec<u8>,
    /// Every story file (`*.md` under the checkpoint's `stories/` folder), sorted by path.
    pub stories: Vec<stories::StoryFile>,
    /// The `.env` bytes (compared for leaks, never shown), when the file exists.
    pub env: Option<Vec<u8>>,
    /// The prefix `--prefix` or the project's `.project.yaml` sets; `None` when neither does.
    pub configured_prefix: Option<PrefixSource>,
    /// The story file changed most recently after the checkpoint (relative to the workspace root),
    /// when one did.
    pub newer_story: Option<String>,
}

/// Why a checkpoint could not be gathered.
#[derive(Debug, thiserror::Error)]
pub enum GatherError {
    /// A file or folder could not be read (a missing checkpoint is not an error).
    #[error("cannot read {path}: {source}")]
    Io {
        /// The checkpoint, the `stories/` folder or the `.env`.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A file is refused under the reading discipline (`docs/reading.md`): a FIFO, a folder or
    /// a device in its place, or a file over its cap.
    #[error(transparent)]
    Refused(#[from] crate::report::Refusal),
}

/// A file under the reading discipline, `None` when it does not exist.
fn read(path: &Path) -> Result<Option<Vec<u8>>, GatherError> {
    planseal_recovery::read::read(path, planseal_recovery::read::Kind::Document).map_err(read_error)
}

fn read_error(e: planseal_recovery::read::ReadError) -> GatherError {
    match crate::report::read_refusal(&e) {
        Some(refusal) => GatherError::Refused(refusal),
        None => GatherError::Io {
            path: e.path().to_path_buf(),
            source: match e {
                planseal_recovery::read::ReadError::Io { source, .. } => source,
                other => std::io::Error::other(other.reason()),
            },
        },
    }
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GatherError + '_ {
    move |source| GatherError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads the checkpoint (when it exists), the story files, `.env` and the prefix settings.
pub fn gather(target: &Target, prefix_flag: Option<&str>) -> Result<Gathered, GatherError> {
    let bytes = read(&target.checkpoint)?.unwrap_or_default();
    let stories = stories::read_stories(&target.stories).map_err(|e| match e {
        stories::StoriesError::Io(e) => io(&target.stories)(e),
        stories::StoriesError::Read(e) => read_error(e),
    })?;
    let env_path = target.env_file();
    let env = crate::report::redact::read_env_file(&env_path).map_err(io(&env_path))?;
    let configured_prefix = match prefix_flag {
        Some(p) => Some(PrefixSource::Flag(p.to_string())),
        None => project_yaml_prefix(&target.project_dir).map(PrefixSource::ProjectYaml),
    };
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let newer_story = modified(&target.checkpoint).and_then(|cp| {
        stories
            .iter()
            .filter_map(|s| modified(&s.path).map(|m| (m, s)))
            .filter(|(m, _)| *m > cp)
            .max_by_key(|(m, _)| *m)
            .map(|(_, s)| {
                s.path
                    .strip_prefix(&target.root)
                    .unwrap_or(&s.path)
                    .display()
                    .to_string()
            })
    });
    Ok(Gathered {
        bytes,
        stories,
        env,
        configured_prefix,
        newer_story,
    })
}

/// The findings for a gathered checkpoint, every `.env` value of the workspace hidden from them.
pub fn findings(target: &Target, g: &Gathered) -> Vec<Finding> {
    // The messages quote headings, story ids and cells: never let a .env value through.
    let redactor = crate::report::redact::EnvRedactor::from_env_bytes(g.env.as_deref());
    findings_as_read(target, g)
        .into_iter()
        .map(|f| redactor.clean_finding(f))
        .collect()
}

/// The findings for a gathered checkpoint, quoting the file as it is (for a caller that hides the
/// `.env` values from everything it shows anyway).
pub fn findings_as_read(target: &Target, g: &Gathered) -> Vec<Finding> {
    let text = match std::str::from_utf8(&g.bytes) {
        Ok(t) => t,
        Err(e) => {
            return vec![
                Finding::fail(
                    "checkpoint-unreadable",
                    format!(
                        "the checkpoint is not UTF-8 text (byte {})",
                        e.valid_up_to()
                    ),
                )
                .hint("save the file as UTF-8"),
            ];
        }
    };
    let inputs = checks::Inputs {
        multi_project: target.project.is_some(),
        configured_prefix: g.configured_prefix.clone(),
        stories: &g.stories,
        env: g.env.as_deref(),
        newer_story: g.newer_story.clone(),
    };
    checks::check_text(text, &inputs)
}

/// The verify section for one PROJECT-CHECKPOINT.md.
pub fn check(path: &Path) -> Section {
    let name = path.display().to_string();
    let mut section = Section::new(System::Checkpoint, name.clone(), name);
    let target = layout::target_for(path);
    if !path.exists() {
        section.unverified = Some(format!("{} does not exist", path.display()));
        return section;
    }
    match gather(&target, None) {
        Ok(g) => section.findings = findings(&target, &g),
        Err(e) => section.unverified = Some(e.to_string()),
    }
    section
}
