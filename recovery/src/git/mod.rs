//! Git history reading through `gix` — no `git` process is ever spawned.
//!
//! This module knows nothing about plans. It opens the repository around a path and answers the
//! questions planseal's formats ask of history:
//! - a walk from `HEAD` over all parents that hands each commit's *message* to a caller predicate
//!   (no tree is read) — [`Repo::scan_messages`];
//! - the versions of one file along history, comparing tree ids level by level before any blob is
//!   read — [`Repo::file_versions`], [`Repo::file_at`];
//! - ancestry and existence — [`Repo::is_ancestor`], [`Repo::find_commit`], [`Repo::resolve`];
//! - the work tree's status for a set of paths — [`Repo::status`], [`Repo::is_tracked`];
//! - the last commits for the checkpoint protocol — [`Repo::last_commits`];
//! - what git hooks need: the hooks folder, ignored paths, staged paths — [`Repo::hooks_dir`],
//!   [`Repo::is_ignored`], [`Repo::staged_paths`].
//!
//! In a shallow clone a walk that reaches the boundary reports `truncated: true` instead of
//! failing: the caller decides what a partial answer means.
//!
//! Progress is reported only through the callback given to [`Repo::set_progress`]; the library
//! never prints.
//!
//! Every read failure is an error, never an answer: an object that cannot be read (corrupt,
//! missing, permission denied) is [`GitError::Read`] or [`GitError::Missing`] naming it, a
//! repository that is there but cannot be opened is [`GitError::Open`] or
//! [`GitError::ObjectFormatUnsupported`] — never "no repository".
//!
//! ## Limitations
//! - SHA-1 repositories only (the `sha1` feature of gix): a SHA-256 repository is
//!   [`GitError::ObjectFormatUnsupported`].
//! - Replace objects and grafts are not honoured.

mod file_history;
mod hooks;
mod place;
mod status;
mod walk;

pub use file_history::{FileHistory, FileVersion, HistoryOptions};
pub use place::{PlaceError, WorkTreePlace, work_tree_place};
pub use status::{BranchStatus, StatusEntry, StatusKind};
pub use walk::{MessageScan, Scan};

use gix::ObjectId;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// What went wrong while reading a repository.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// A `.git` was found above the path, but gix could not open the repository it belongs to
    /// (a corrupt `HEAD` or config, an unknown extension): the path *is* in a repository.
    #[error("cannot open the git repository around {path} ({repository}): {source}")]
    Open {
        /// Where the search started (canonical when possible).
        path: PathBuf,
        /// The nearest `.git` above the path: the repository that could not be opened.
        repository: PathBuf,
        /// gix's reason.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The repository records an object format (`extensions.objectformat`) this build cannot
    /// read.
    #[error(
        "the git repository {repository} uses the {format} object format, which planseal cannot read (gix {GIX_VERSION}, built for SHA-1 only)"
    )]
    ObjectFormatUnsupported {
        /// The repository's `.git`.
        repository: PathBuf,
        /// The format as the configuration names it (`sha256`).
        format: String,
    },
    /// Something the question needs (an object, `HEAD`, the index, the commit-graph, the
    /// work-tree status) could not be read, or is not what it should be.
    #[error("cannot read {what} from the git repository: {source}")]
    Read {
        /// What was being read, in words (`HEAD`, `commit 1a2b…`, `the shallow boundary`).
        what: String,
        /// The full hex id of the object, when one object was being read.
        object: Option<String>,
        /// The underlying error from gix.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An object the history refers to (a parent, a tree, a blob) is not in the object
    /// database: the repository is damaged, or it lies beyond a shallow clone's boundary.
    #[error("cannot read {what} from the git repository: the object is missing")]
    Missing {
        /// What was being read, in words (`commit 1a2b…`).
        what: String,
        /// The full hex id of the missing object.
        object: String,
    },
    /// A hex prefix matched several objects.
    #[error("`{prefix}` names more than one object; give more hex digits")]
    AmbiguousPrefix {
        /// The prefix as the caller gave it.
        prefix: String,
    },
    /// A revision the caller required does not name any commit.
    #[error("`{rev}` is not a revision of this repository")]
    UnknownRevision {
        /// The revision as the caller gave it.
        rev: String,
    },
    /// A path asked about is not inside the repository's work tree.
    #[error("{path} is outside the work tree {root}")]
    OutsideWorkTree {
        /// The path as it was asked about.
        path: PathBuf,
        /// The work tree's root (canonical).
        root: PathBuf,
    },
    /// The question needs a work tree (status, tracked files) and the repository is bare.
    #[error("the repository at {git_dir} has no work tree")]
    NoWorkTree {
        /// The bare repository's git directory.
        git_dir: PathBuf,
    },
}

/// The gix release this build reads repositories with (what an unsupported format is checked
/// against).
pub const GIX_VERSION: &str = "0.90";

impl GitError {
    fn read(
        what: impl Into<String>,
        source: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        GitError::Read {
            what: what.into(),
            object: None,
            source: Box::new(source),
        }
    }

    /// A failure to read one object: `kind` is `commit`, `tree`, `blob` or `object`.
    pub(crate) fn object(
        kind: &str,
        id: impl std::fmt::Display,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        GitError::Read {
            what: format!("{kind} {id}"),
            object: Some(id.to_string()),
            source: source.into(),
        }
    }

    /// The full hex id of the object that could not be read, when the failure was one object.
    pub fn object_id(&self) -> Option<&str> {
        match self {
            GitError::Read { object, .. } => object.as_deref(),
            GitError::Missing { object, .. } => Some(object),
            _ => None,
        }
    }
}

pub use crate::time::{TimestampShape, format_utc};

/// A commit time as git records it: seconds since the Unix epoch and the committer's UTC offset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommitTime {
    /// Seconds since the Unix epoch (UTC), as in the commit's `committer` header.
    pub seconds: i64,
    /// Offset from UTC in seconds (east positive).
    pub offset_seconds: i32,
}

impl CommitTime {
    /// `YYYY-MM-DDTHH:MM:SS+00:00`, the instant in UTC as the plan files write timestamps
    /// ([`TimestampShape::PythonIso`]); `@SECONDS` for a time jiff cannot hold (beyond the years
    /// -9999 and 9999).
    pub fn to_utc_iso(&self) -> String {
        match jiff::Timestamp::from_second(self.seconds) {
            Ok(ts) => format_utc(ts, TimestampShape::PythonIso),
            Err(_) => format!("@{}", self.seconds),
        }
    }
}

/// One commit as the readers report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitInfo {
    /// Full hex id (40 digits).
    pub id: String,
    /// Shortest unique prefix, at least 7 digits (what `git log --oneline` prints).
    pub short: String,
    /// First line of the message, without its line ending.
    pub subject: String,
    /// When the commit was committed (the committer's time, not the author's).
    pub committer_time: CommitTime,
    /// Full hex ids of the parents, in order.
    pub parents: Vec<String>,
}

/// Where `HEAD` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeadInfo {
    /// The commit `HEAD` resolves to; `None` on an unborn branch.
    pub id: Option<String>,
    /// Short branch name (`main`); `None` when `HEAD` is detached.
    pub branch: Option<String>,
}

/// A progress event of a long walk; the caller decides whether and how to show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// What is being walked (`"commits"`, `"file history"`).
    pub task: &'static str,
    /// Commits looked at so far.
    pub commits: u64,
    /// `true` on the last event of a walk.
    pub done: bool,
}

type ProgressFn = Box<dyn Fn(Progress)>;

/// An open repository with its work tree (if any).
pub struct Repo {
    repo: gix::Repository,
    work_tree: Option<PathBuf>,
    git_dir: PathBuf,
    shallow: HashSet<ObjectId>,
    progress: Option<ProgressFn>,
    /// The last complete walk of [`Repo::scan_ids`], replayed by the next one: several plans in
    /// one repository cost one walk.
    walk_memo: std::cell::RefCell<Option<walk::WalkMemo>>,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("work_tree", &self.work_tree)
            .field("git_dir", &self.git_dir)
            .field("shallow", &!self.shallow.is_empty())
            .finish()
    }
}

impl Repo {
    /// Opens the repository that contains `path` (searching upwards). `Ok(None)` when `path` is
    /// not inside any repository — a plan without git.
    ///
    /// The configuration is git's: the repository's, the user's and the system's, each located
    /// as git locates it — `GIT_CONFIG_GLOBAL` and `GIT_CONFIG_SYSTEM` name other files,
    /// `GIT_CONFIG_NOSYSTEM=1` skips the system's. gix's default open options do exactly that;
    /// its isolated ones would drop the user's and the system's files always, unlike git. So
    /// those variables are how a caller keeps a user's settings (`core.abbrev`, a broken
    /// `~/.gitconfig`) out, as the test suite does.
    pub fn discover(path: &Path) -> Result<Option<Repo>, GitError> {
        let start = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let Some(nearest) = start.ancestors().find(|dir| dir.join(".git").exists()) else {
            return Ok(None);
        };
        let dot_git = nearest.join(".git");
        let cannot_open =
            |source: Box<dyn std::error::Error + Send + Sync>| match unsupported_object_format(
                &dot_git,
            ) {
                Some(format) => GitError::ObjectFormatUnsupported {
                    repository: dot_git.clone(),
                    format,
                },
                None => GitError::Open {
                    path: start.clone(),
                    repository: dot_git.clone(),
                    source,
                },
            };
        let mut repo = gix::discover(&start).map_err(|e| cannot_open(Box::new(e)))?;
        // gix passes over a `.git` it cannot open and may find a repository further up: that
        // would answer for another project's history.
        if !is_same_repository(&repo, nearest, &dot_git) {
            return Err(cannot_open(
                format!(
                    "{} is not a repository git can open (a repository further up was found instead)",
                    dot_git.display()
                )
                .into(),
            ));
        }
        // One command reads one snapshot of the object database: without this, every prefix
        // lookup (short ids) re-checks the pack folder for new packs.
        repo.objects.refresh_never();
        // No object cache: every commit is read once per walk, and the file-history lookup keeps
        // its own per-tree answers — copying each object into a cache only costs time.
        let git_dir = repo.git_dir().to_path_buf();
        let work_tree = repo
            .workdir()
            .map(|p| p.canonicalize().unwrap_or_else(|_| p.to_path_buf()));
        let shallow = repo
            .shallow_commits()
            .map_err(|e| GitError::read("the shallow boundary", e))?
            .map(|commits| commits.iter().copied().collect())
            .unwrap_or_default();
        Ok(Some(Repo {
            repo,
            work_tree,
            git_dir,
            shallow,
            progress: None,
            walk_memo: std::cell::RefCell::new(None),
        }))
    }

    /// Receive [`Progress`] events during long walks.
    pub fn set_progress(&mut self, callback: impl Fn(Progress) + 'static) {
        self.progress = Some(Box::new(callback));
    }

    fn report(&self, task: &'static str, commits: u64, done: bool) {
        if let Some(cb) = &self.progress {
            cb(Progress {
                task,
                commits,
                done,
            });
        }
    }

    /// The work tree root (canonical), `None` for a bare repository.
    pub fn work_tree(&self) -> Option<&Path> {
        self.work_tree.as_deref()
    }

    /// The repository's git directory: the `.git` folder, or the repository itself when bare.
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The folder every work tree of the repository shares — the main `.git` also for a linked
    /// work tree (whose own git directory is `.git/worktrees/<name>`): where the repository's
    /// `config` lives.
    pub fn common_dir(&self) -> &Path {
        self.repo.common_dir()
    }

    /// `true` in a shallow clone: some commits' parents are not in the repository.
    pub fn is_shallow(&self) -> bool {
        !self.shallow.is_empty()
    }

    /// Where `HEAD` points.
    pub fn head(&self) -> Result<HeadInfo, GitError> {
        let head = self.repo.head().map_err(|e| GitError::read("HEAD", e))?;
        let branch = head.referent_name().map(|name| name.shorten().to_string());
        let branch = if head.is_detached() { None } else { branch };
        let id = match head.id() {
            Some(id) => Some(self.peel_to_commit(id.detach())?.to_hex().to_string()),
            None => None,
        };
        Ok(HeadInfo { id, branch })
    }

    pub(crate) fn head_commit_id(&self) -> Result<Option<ObjectId>, GitError> {
        let head = self.repo.head().map_err(|e| GitError::read("HEAD", e))?;
        match head.id() {
            Some(id) => Ok(Some(self.peel_to_commit(id.detach())?)),
            None => Ok(None),
        }
    }

    /// Follows tags to the commit they point at.
    fn peel_to_commit(&self, id: ObjectId) -> Result<ObjectId, GitError> {
        let object = self
            .repo
            .find_object(id)
            .map_err(|e| GitError::object("object", id, e))?;
        let commit = object
            .peel_to_commit()
            .map_err(|e| GitError::object("the commit behind object", id, e))?;
        Ok(commit.id)
    }

    /// Resolves a revision (`HEAD~2`, `main`, a hex prefix, …) to a commit id.
    /// `Ok(None)` when it names nothing in this repository.
    pub fn resolve(&self, rev: &str) -> Result<Option<String>, GitError> {
        match self.repo.rev_parse_single(rev) {
            Ok(id) => match self.peel_to_commit(id.detach()) {
                Ok(commit) => Ok(Some(commit.to_hex().to_string())),
                Err(_) => Ok(None),
            },
            Err(e) => {
                let text = e.to_string();
                if text.contains("ambiguous") || text.contains("Ambiguous") {
                    Err(GitError::AmbiguousPrefix {
                        prefix: rev.to_string(),
                    })
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// The commit a full id or a hex prefix (≥ 4 digits) names; `Ok(None)` when no commit has
    /// it — which, in a shallow clone, may mean it lies beyond the boundary.
    pub fn find_commit(&self, id_or_prefix: &str) -> Result<Option<CommitInfo>, GitError> {
        let Some(id) = self.lookup_commit_id(id_or_prefix)? else {
            return Ok(None);
        };
        Ok(Some(self.commit_info(id)?))
    }

    /// `true` when a commit with this full id or hex prefix exists.
    pub fn commit_exists(&self, id_or_prefix: &str) -> Result<bool, GitError> {
        Ok(self.lookup_commit_id(id_or_prefix)?.is_some())
    }

    fn lookup_commit_id(&self, id_or_prefix: &str) -> Result<Option<ObjectId>, GitError> {
        let text = id_or_prefix.trim();
        if text.len() < 4 || text.len() > 40 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let id = if text.len() == 40 {
            match ObjectId::from_hex(text.as_bytes()) {
                Ok(id) => id,
                Err(_) => return Ok(None),
            }
        } else {
            let prefix = match gix::hash::Prefix::from_hex(&text.to_ascii_lowercase()) {
                Ok(p) => p,
                Err(_) => return Ok(None),
            };
            match self.repo.objects.lookup_prefix(prefix, None) {
                Ok(Some(Ok(id))) => id,
                Ok(Some(Err(()))) => {
                    return Err(GitError::AmbiguousPrefix {
                        prefix: text.to_string(),
                    });
                }
                Ok(None) => return Ok(None),
                Err(e) => return Err(GitError::read(format!("objects with prefix {text}"), e)),
            }
        };
        match self.repo.try_find_header(id) {
            Ok(Some(header)) if header.kind() == gix::objs::Kind::Commit => Ok(Some(id)),
            Ok(_) => Ok(None),
            Err(e) => Err(GitError::object("object", id, e)),
        }
    }

    /// Reads one commit's id, short id, subject, committer time and parents.
    pub(crate) fn commit_info(&self, id: ObjectId) -> Result<CommitInfo, GitError> {
        let mut buf = Vec::new();
        let data = self.read_commit_raw(id, &mut buf)?;
        let parsed = walk::ParsedCommit::parse(id, data)?;
        Ok(self.info_from_parsed(&parsed))
    }

    pub(crate) fn read_commit_raw<'b>(
        &self,
        id: ObjectId,
        buf: &'b mut Vec<u8>,
    ) -> Result<&'b [u8], GitError> {
        use gix::objs::Find;
        match self.repo.objects.try_find(&id, buf) {
            Ok(Some(data)) if data.kind == gix::objs::Kind::Commit => Ok(data.data),
            Ok(Some(data)) => Err(GitError::object(
                "commit",
                id,
                format!("object is a {}, not a commit", data.kind),
            )),
            Ok(None) => Err(GitError::Missing {
                what: format!("commit {id}"),
                object: id.to_string(),
            }),
            Err(e) => Err(GitError::object("commit", id, e)),
        }
    }

    pub(crate) fn short_id(&self, id: ObjectId) -> String {
        use gix::prelude::ObjectIdExt;
        let prefix = id.attach(&self.repo).shorten_or_id();
        let text = prefix.to_string();
        if text.len() >= 7 {
            text
        } else {
            id.to_hex_with_len(7).to_string()
        }
    }

    pub(crate) fn is_shallow_boundary(&self, id: &ObjectId) -> bool {
        self.shallow.contains(id)
    }

    pub(crate) fn gix(&self) -> &gix::Repository {
        &self.repo
    }

    /// The path of `path` relative to the work tree root, with `/` separators. `path` may be
    /// absolute or relative to the current directory.
    pub fn relative_to_work_tree(&self, path: &Path) -> Result<String, GitError> {
        let root = self
            .work_tree
            .as_ref()
            .ok_or_else(|| GitError::NoWorkTree {
                git_dir: self.git_dir.clone(),
            })?;
        let absolute = if path.is_absolute() {
            path.to_path_buf()
        } else {
            std::env::current_dir()
                .map_err(|e| GitError::read("the current directory", e))?
                .join(path)
        };
        // Canonicalise the longest existing ancestor so that symlinked temp dirs still match.
        let resolved = place::resolve_existing(&absolute);
        let rel = resolved
            .strip_prefix(root)
            .map_err(|_| GitError::OutsideWorkTree {
                path: path.to_path_buf(),
                root: root.clone(),
            })?;
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        Ok(parts.join("/"))
    }
}

/// The object format `.git/config` names when it is one this build cannot read (`sha256`), read
/// with gix's config parser; `None` when the file is absent, unreadable or names SHA-1.
fn unsupported_object_format(dot_git: &Path) -> Option<String> {
    let config = dot_git.join("config");
    if !config.is_file() {
        return None;
    }
    let file = gix::config::File::from_path_no_includes(config, gix::config::Source::Local).ok()?;
    let format = file.string("extensions.objectformat")?.to_string();
    (!format.eq_ignore_ascii_case("sha1")).then_some(format)
}

/// `repo` is the repository of the nearest `.git`: its work tree is that folder, or its git
/// directory is that `.git`.
fn is_same_repository(repo: &gix::Repository, nearest: &Path, dot_git: &Path) -> bool {
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    repo.workdir()
        .is_some_and(|w| canonical(w) == canonical(nearest))
        || canonical(repo.git_dir()) == canonical(dot_git)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_time_formats_utc_with_offset_suffix() {
        let t = CommitTime {
            seconds: 1_791_191_640,
            offset_seconds: 3600,
        };
        assert_eq!(t.to_utc_iso(), "2026-10-05T09:14:00+00:00");
    }

    fn at_nanos(ns: i128) -> jiff::Timestamp {
        jiff::Timestamp::from_nanosecond(ns).expect("in range")
    }

    /// `(nanoseconds since the epoch, expected)`, checked against CPython 3.11
    /// `datetime.isoformat()` of the same UTC datetime cut to microseconds.
    #[test]
    fn python_iso_shape() {
        for (ns, want) in [
            (0, "1970-01-01T00:00:00+00:00"),
            // Below a microsecond nothing shows, not even `.000000`.
            (999, "1970-01-01T00:00:00+00:00"),
            (1_000, "1970-01-01T00:00:00.000001+00:00"),
            (1_999_999_999, "1970-01-01T00:00:01.999999+00:00"),
            // Before 1970 the fraction is the clock time's, cut towards the earlier time.
            (-1, "1969-12-31T23:59:59.999999+00:00"),
            (-250_000_000, "1969-12-31T23:59:59.750000+00:00"),
            (-1_000_000_000, "1969-12-31T23:59:59+00:00"),
            (-62_135_596_800_000_000_000, "0001-01-01T00:00:00+00:00"),
        ] {
            assert_eq!(
                format_utc(at_nanos(ns), TimestampShape::PythonIso),
                want,
                "{ns}"
            );
        }
        // Python stops at the years 1 and 9999; jiff goes on. The year keeps four characters
        // counting its sign, as planseal always wrote it.
        let before_year_1: jiff::Timestamp = "-000001-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            format_utc(before_year_1, TimestampShape::PythonIso),
            "-001-01-01T00:00:00+00:00"
        );
        assert_eq!(
            format_utc(jiff::Timestamp::MIN, TimestampShape::PythonIso),
            "-9999-01-02T01:59:59+00:00"
        );
        assert_eq!(
            format_utc(jiff::Timestamp::MAX, TimestampShape::PythonIso),
            "9999-12-30T22:00:00.999999+00:00"
        );
    }

    /// `(nanoseconds since the epoch, expected)`, checked against Node's `toISOString()` of the
    /// same millisecond.
    #[test]
    fn js_millis_z_shape() {
        for (ns, want) in [
            (0, "1970-01-01T00:00:00.000Z"),
            (1_250_000_000, "1970-01-01T00:00:01.250Z"),
            (1_999_999_999, "1970-01-01T00:00:01.999Z"),
            (-1, "1969-12-31T23:59:59.999Z"),
            (-250_000_000, "1969-12-31T23:59:59.750Z"),
            (-1_000_000_000, "1969-12-31T23:59:59.000Z"),
            (-62_135_596_800_000_000_000, "0001-01-01T00:00:00.000Z"),
        ] {
            assert_eq!(
                format_utc(at_nanos(ns), TimestampShape::JsMillisZ),
                want,
                "{ns}"
            );
        }
    }

    #[test]
    fn seconds_z_shape() {
        for (ns, want) in [
            (0, "1970-01-01T00:00:00Z"),
            (1_999_999_999, "1970-01-01T00:00:01Z"),
            (-1, "1969-12-31T23:59:59Z"),
            (-1_000_000_000, "1969-12-31T23:59:59Z"),
        ] {
            assert_eq!(
                format_utc(at_nanos(ns), TimestampShape::SecondsZ),
                want,
                "{ns}"
            );
        }
    }

    #[test]
    fn commit_times_before_1970_and_beyond_jiff() {
        let t = CommitTime {
            seconds: -1,
            offset_seconds: -3600,
        };
        assert_eq!(t.to_utc_iso(), "1969-12-31T23:59:59+00:00");
        let far = CommitTime {
            seconds: i64::MAX,
            offset_seconds: 0,
        };
        assert_eq!(far.to_utc_iso(), format!("@{}", i64::MAX));
    }

    #[test]
    fn a_folder_outside_any_repository_is_no_repository() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(Repo::discover(dir.path()).expect("discover").is_none());
    }
}
