//! The report in the formats CI systems read (`docs/ci.md`): GitHub Actions workflow commands,
//! SARIF 2.1.0 and JUnit XML. Each names files relative to the repository root, which is what
//! those tools resolve paths against; [`Locator`] turns a section and its finding into that path.

pub mod github;
pub mod junit;
pub mod sarif;

use super::{Finding, Section, Severity, System};
use std::path::{Component, Path, PathBuf};

/// A file (relative to the repository root, `/`-separated) and, when known, a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The path from the repository root, e.g. `.dwp/plans/PLAN_x/README.md`.
    pub file: String,
    /// The line the finding is about.
    pub line: Option<usize>,
}

/// Where the sections' paths are read from and what they are made relative to.
#[derive(Debug, Clone)]
pub struct Locator {
    /// The folder a relative section path is relative to (verify's working directory).
    cwd: PathBuf,
    /// The repository root the locations are relative to.
    root: PathBuf,
}

impl Locator {
    /// Section paths relative to `cwd`; locations relative to `root`.
    pub fn new(cwd: impl Into<PathBuf>, root: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            root: root.into(),
        }
    }

    /// The file a finding is about: the file it names — relative to its plan folder (DWP) or to
    /// the folder of its system's file, else to the repository root when only that exists — or,
    /// when it names none, the section's own file (a DWP plan's `README.md`). `None` for a file
    /// outside the repository.
    pub fn locate(&self, section: &Section, finding: Option<&Finding>) -> Option<Location> {
        let own = self.cwd.join(&section.path);
        let (base, own_file) = match section.system {
            System::Dwp => (own.clone(), own.join("README.md")),
            System::Reversa => {
                // `.reversa/state.json` names files relative to the project root.
                let project = own.parent().and_then(Path::parent).unwrap_or(&own);
                (project.to_path_buf(), own.clone())
            }
            System::Gsd | System::Checkpoint => {
                (own.parent().unwrap_or(&own).to_path_buf(), own.clone())
            }
        };
        let file = match finding.and_then(|f| f.file.as_deref()) {
            Some(named) => self.resolve(&base, named),
            None => own_file,
        };
        Some(Location {
            file: self.relative(&file)?,
            line: finding.and_then(|f| f.line),
        })
    }

    /// `named` as a path: absolute as it is; else below `base` when it exists there, else below
    /// the root when it exists there (a git status entry), else below `base`.
    fn resolve(&self, base: &Path, named: &str) -> PathBuf {
        let named = Path::new(named);
        if named.is_absolute() {
            return named.to_path_buf();
        }
        let in_base = base.join(named);
        if in_base.exists() {
            return in_base;
        }
        let in_root = self.root.join(named);
        if in_root.exists() { in_root } else { in_base }
    }

    /// `path` from the root, `/`-separated, `.` and `..` folded; `None` when it is not below the
    /// root.
    fn relative(&self, path: &Path) -> Option<String> {
        let folded = fold(path);
        let root = fold(&self.root);
        let rel = match folded.strip_prefix(&root) {
            Ok(rel) => rel.to_path_buf(),
            // A symlinked spelling of the same folder (a temp dir): compare the real paths.
            Err(_) => {
                let real_root = self.root.canonicalize().ok()?;
                let real = real_parent(&folded)?;
                real.strip_prefix(&real_root).ok()?.to_path_buf()
            }
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        (!parts.is_empty()).then(|| parts.join("/"))
    }
}

/// `path` with `.` and `..` folded away lexically.
fn fold(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The real path of `path`'s folder, with its file name put back (the file may be missing).
fn real_parent(path: &Path) -> Option<PathBuf> {
    let parent = path.parent()?.canonicalize().ok()?;
    Some(match path.file_name() {
        Some(name) => parent.join(name),
        None => parent,
    })
}

/// The findings a CI report shows: everything but the checks that held.
fn reported(section: &Section) -> impl Iterator<Item = &Finding> {
    section
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Pass)
}

/// The text a report shows for a finding: its message, then its hint on a line of its own.
fn message_with_hint(f: &Finding) -> String {
    let message = super::text::printable(&f.message);
    match &f.hint {
        Some(hint) => format!("{message}\nhint: {}", super::text::printable(hint)),
        None => message.into_owned(),
    }
}

/// `Plan: PLAN_x`, `GSD: .planning/STATE.md`, …: how a section is named in reports.
fn section_title(section: &Section) -> String {
    format!("{}: {}", section.system.header(), section.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_relative_to_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let plan = root.join("sub/.dwp/plans/PLAN_x");
        std::fs::create_dir_all(&plan).unwrap();
        std::fs::write(plan.join("state.json"), "{}").unwrap();
        std::fs::write(root.join("tracked.txt"), "x").unwrap();
        // verify ran in sub/: the section path is relative to it
        let locator = Locator::new(root.join("sub"), root);
        let section = Section::new(System::Dwp, "PLAN_x", ".dwp/plans/PLAN_x");
        let at = |f: Option<&Finding>| locator.locate(&section, f).map(|l| (l.file, l.line));
        assert_eq!(
            at(None),
            Some(("sub/.dwp/plans/PLAN_x/README.md".to_string(), None))
        );
        let named = Finding::fail("x", "y").file("state.json").line(3);
        assert_eq!(
            at(Some(&named)),
            Some(("sub/.dwp/plans/PLAN_x/state.json".to_string(), Some(3)))
        );
        // a path git reports (relative to the work tree) that is not in the plan folder
        let dirty = Finding::fail("worktree-dirty", "y").file("tracked.txt");
        assert_eq!(at(Some(&dirty)), Some(("tracked.txt".to_string(), None)));
        // outside the repository: no location
        let outside = Finding::fail("x", "y").file("/elsewhere/file");
        assert_eq!(at(Some(&outside)), None);

        let gsd_file = root.join(".planning/STATE.md");
        let gsd = Section::new(
            System::Gsd,
            gsd_file.display().to_string(),
            gsd_file.display().to_string(),
        );
        assert_eq!(
            locator.locate(&gsd, Some(&Finding::fail("g", "m").line(7))),
            Some(Location {
                file: ".planning/STATE.md".into(),
                line: Some(7)
            })
        );
        let reversa_file = root.join(".reversa/state.json");
        let reversa = Section::new(
            System::Reversa,
            reversa_file.display().to_string(),
            reversa_file.display().to_string(),
        );
        assert_eq!(
            locator
                .locate(&reversa, Some(&Finding::fail("r", "m").file("docs/a.md")))
                .map(|l| l.file),
            Some("docs/a.md".into())
        );
    }
}
