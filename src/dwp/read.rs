//! Reading one plan folder into memory, once (the only I/O of the checks). Every file is read at
//! most once and every later step (checks, fingerprint, receipt) works on these bytes.
//!
//! A name that resolves outside the plan through a symlink is never opened; a FIFO, socket or
//! device is never opened either (reading a FIFO would block), and a directory where a file should
//! be is reported as unreadable.

use crate::dwp::layout;
use planseal_recovery::paths::{PathError, check_relative, resolve_inside};
use planseal_recovery::read::{Kind, ReadError, read_opened};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Files above this size are not read (a plan file is a few kilobytes; this only guards memory).
pub const MAX_FILE_BYTES: u64 = Kind::Document.cap();

/// What reading one plan-relative name gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRead {
    /// Nothing by that name (or a component on the way is not a folder).
    Missing,
    /// The file's whole content.
    Bytes(Vec<u8>),
    /// The name leaves the plan folder (symlink, `..`, absolute): not opened.
    Outside(String),
    /// It exists but could not be read: why (permission denied, is a directory, FIFO, I/O error).
    Unreadable(String),
}

impl FileRead {
    /// The content when the file was read; `None` for every other outcome.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            FileRead::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// Something is there, read or not (outside the plan and unreadable count as existing).
    pub fn exists(&self) -> bool {
        !matches!(self, FileRead::Missing)
    }
}

/// What a `log=` pointer (or any plan-relative name that is only checked for existence) is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathStatus {
    /// A regular file inside the plan.
    File,
    /// Nothing there.
    Missing,
    /// The name leaves the plan folder (absolute, `..`, a symlink out); why.
    Outside(String),
    /// Something inside the plan that is not a regular file, or that cannot be inspected; why.
    NotAFile(String),
}

/// One plan folder as read.
#[derive(Debug, Clone)]
pub struct PlanFiles {
    /// The plan folder as given to [`PlanFiles::load`] (not canonicalised).
    pub dir: PathBuf,
    /// Folder name (the plan's identity).
    pub name: String,
    /// How the folder is shown in hints (relative to where the command runs).
    pub display: String,
    /// Every file read, by plan-relative name.
    pub files: BTreeMap<String, FileRead>,
    /// Names directly in the plan folder.
    pub listing: Vec<String>,
    /// `analysis_results/` exists and is a folder.
    pub analysis_results_dir: bool,
    /// The plan lives in a git work tree (an ancestor folder holds `.git`).
    pub in_git_work_tree: bool,
    /// The folder resolved once for every `log=` lookup (built on first use).
    resolved_dir: std::cell::OnceCell<PlanDir>,
    /// Task files read one at a time and dropped by a reader layered above this one (verify's
    /// streamed read): what it kept of them, opaque here. Their entries in `files` are empty
    /// placeholders.
    pub(crate) streamed: Option<std::rc::Rc<dyn StreamedFiles>>,
}

/// What a streamed read kept of the files whose bytes it dropped.
pub(crate) trait StreamedFiles: std::any::Any + std::fmt::Debug {
    /// Whether `rel` was read and dropped (its entry in [`PlanFiles::files`] holds no bytes).
    fn contains(&self, rel: &str) -> bool;
}

/// The fixed names read for every plan.
pub const FIXED_FILES: [&str; 9] = [
    layout::STATE_FILE,
    layout::MANIFEST_FILE,
    layout::README_FILE,
    layout::PROGRESS_FILE,
    layout::PROMPTS_FILE,
    layout::SECURITY_REVIEW_FILE,
    layout::SKILLS_CANDIDATES_FILE,
    layout::RECEIPT_FILE,
    layout::MARKER_FILE,
];

impl PlanFiles {
    /// Reads the fixed files and every `N.task_*.md` of the listing. Task files named only by
    /// the state are added later with [`PlanFiles::read_more`].
    pub fn load(dir: &Path, name: &str) -> Result<Self, String> {
        let mut plan = Self::load_fixed(dir, name)?;
        let task_files: Vec<String> = plan
            .listing
            .iter()
            .filter(|n| is_task_file_name(n))
            .cloned()
            .collect();
        for rel in task_files {
            let read = read_inside(dir, &rel);
            plan.files.insert(rel, read);
        }
        Ok(plan)
    }

    /// Lists the folder and reads only the fixed files; the task files are left to the caller.
    pub(crate) fn load_fixed(dir: &Path, name: &str) -> Result<Self, String> {
        let mut listing = Vec::new();
        let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
            listing.push(entry.file_name().to_string_lossy().into_owned());
        }
        listing.sort();
        let mut files = BTreeMap::new();
        for rel in FIXED_FILES {
            files.insert(rel.to_string(), read_inside(dir, rel));
        }
        Ok(Self {
            dir: dir.to_path_buf(),
            name: name.to_string(),
            display: dir.display().to_string(),
            files,
            analysis_results_dir: dir.join(layout::RESULTS_DIR).is_dir(),
            in_git_work_tree: dir.ancestors().any(|a| a.join(".git").exists()),
            listing,
            resolved_dir: std::cell::OnceCell::new(),
            streamed: None,
        })
    }

    /// Reads plan-relative names not read yet (task files named by the state's locators).
    pub fn read_more<'a>(&mut self, names: impl IntoIterator<Item = &'a str>) {
        for rel in names {
            if !self.files.contains_key(rel) {
                let read = read_inside(&self.dir, rel);
                self.files.insert(rel.to_string(), read);
            }
        }
    }

    /// The plan folder for `log=` lookups: canonicalised once per plan, not once per task.
    pub fn plan_dir(&self) -> &PlanDir {
        self.resolved_dir.get_or_init(|| PlanDir::new(&self.dir))
    }

    /// Whether `rel` was read by the streamed read (its bytes are no longer held).
    pub(crate) fn is_streamed(&self, rel: &str) -> bool {
        self.streamed.as_ref().is_some_and(|s| s.contains(rel))
    }

    /// What reading `rel` gave; [`FileRead::Missing`] for a name that was not read.
    pub fn get(&self, rel: &str) -> &FileRead {
        self.files.get(rel).unwrap_or(&FileRead::Missing)
    }

    /// The bytes of `rel` when it was read; `None` when it is missing, unreadable, outside the
    /// plan or was not read.
    pub fn bytes(&self, rel: &str) -> Option<&[u8]> {
        self.get(rel).bytes()
    }

    /// The file as text (invalid UTF-8 replaced; the checks report it separately).
    pub fn text(&self, rel: &str) -> Option<std::borrow::Cow<'_, str>> {
        // Strict validation first (fast on ASCII); the lossy walk only for invalid bytes.
        self.bytes(rel).map(|b| match std::str::from_utf8(b) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(b),
        })
    }

    /// Where a plan-relative pointer leads, without opening it.
    pub fn path_status(&self, rel: &str) -> PathStatus {
        match planseal_recovery::paths::resolve_inside(&self.dir, rel, true) {
            Ok(p) => match std::fs::metadata(&p) {
                Ok(m) if m.is_file() => PathStatus::File,
                Ok(_) => PathStatus::NotAFile("not a regular file".into()),
                Err(e) => PathStatus::NotAFile(e.to_string()),
            },
            Err(planseal_recovery::paths::PathError::Missing) => PathStatus::Missing,
            Err(planseal_recovery::paths::PathError::Io(e)) => PathStatus::NotAFile(e),
            Err(e) => PathStatus::Outside(e.to_string()),
        }
    }

    /// Every name that exists but could not be read, with why.
    pub fn unreadable(&self) -> Vec<(String, String)> {
        self.files
            .iter()
            .filter_map(|(k, v)| match v {
                FileRead::Unreadable(why) => Some((k.clone(), why.clone())),
                _ => None,
            })
            .collect()
    }
}

/// `<digits>.task_<anything>.md`, the shape of a Full plan's task file in a folder listing.
pub fn is_task_file_name(name: &str) -> bool {
    let Some((num, rest)) = name.split_once('.') else {
        return false;
    };
    !num.is_empty()
        && num.bytes().all(|b| b.is_ascii_digit())
        && rest.starts_with("task_")
        && rest.ends_with(".md")
}

/// Reads `rel` inside `dir` under the reading discipline (`docs/reading.md`): never through a
/// symlink out of the plan, never anything but a regular file, at most [`MAX_FILE_BYTES`].
pub fn read_inside(dir: &Path, rel: &str) -> FileRead {
    match read_plan_file(dir, rel) {
        Ok(Some(bytes)) => FileRead::Bytes(bytes),
        Ok(None) => FileRead::Missing,
        Err(ReadError::Outside { why, .. }) => FileRead::Outside(why.to_string()),
        Err(e) => FileRead::Unreadable(e.reason()),
    }
}

/// The bytes of `rel` inside the plan folder `plan_dir`, `Ok(None)` when it does not exist; the
/// one read of a plan file for every command (verify, the writers, diff, log, status).
pub fn read_plan_file(plan_dir: &Path, rel: &str) -> Result<Option<Vec<u8>>, ReadError> {
    planseal_recovery::read::read_inside(plan_dir, rel, Kind::Document)
}

/// [`read_plan_file`] for a path given whole (`<plan>/state.json`): its folder is the plan.
pub fn read_plan_path(path: &Path) -> Result<Option<Vec<u8>>, ReadError> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    read_plan_file(dir, &name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_file_names() {
        assert!(is_task_file_name("1.task_a.md"));
        assert!(is_task_file_name("12.task_final_review.md"));
        assert!(!is_task_file_name("task_a.md"));
        assert!(!is_task_file_name("1.tasks_a.md"));
        assert!(!is_task_file_name("a.task_a.md"));
    }

    #[test]
    fn a_plan_folders_read_and_look_up_give_what_the_whole_path_gives() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"out").unwrap();
        let t = tempfile::tempdir().unwrap();
        let root = t.path();
        std::fs::write(root.join("a.md"), b"hi").unwrap();
        std::fs::create_dir_all(root.join("logs/deep")).unwrap();
        std::fs::write(root.join("logs/t1.log"), b"ok").unwrap();
        std::os::unix::fs::symlink("a.md", root.join("link-in.md")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), root.join("link-out.md"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("dir-out")).unwrap();
        std::os::unix::fs::symlink("gone.md", root.join("dangling.md")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("fifo"))
            .status()
            .unwrap();
        assert!(made.success());
        let names = [
            "a.md",
            "gone.md",
            "logs",
            "logs/t1.log",
            "logs/deep",
            "logs/none.log",
            "link-in.md",
            "link-out.md",
            "dir-out/secret",
            "dangling.md",
            "fifo",
            "./a.md",
            "a.md/x",
            "../x",
            "",
            "\\x",
            "C:x",
            "/etc/hostname",
        ];
        let plan = PlanDir::new(root);
        let inside = |name: &str, regular_file| {
            Ok(Resolved::Inside {
                path: root.join(name),
                regular_file,
            })
        };
        for round in 0..2 {
            // twice: the second time from the folders already open
            for name in names {
                assert_eq!(plan.read(name), read_inside(root, name), "{name} ({round})");
            }
            assert_eq!(plan.resolve("a.md"), inside("a.md", true));
            assert_eq!(plan.resolve("logs/t1.log"), inside("logs/t1.log", true));
            assert_eq!(plan.resolve("logs/deep"), inside("logs/deep", false));
            assert_eq!(plan.resolve("fifo"), inside("fifo", false));
            assert_eq!(plan.resolve("link-in.md"), inside("link-in.md", true));
            for missing in ["gone.md", "logs/none.log", "dangling.md", "a.md/x"] {
                assert_eq!(plan.resolve(missing), Ok(Resolved::Missing), "{missing}");
            }
            for out in ["link-out.md", "dir-out/secret", "../x"] {
                assert!(
                    matches!(
                        plan.resolve(out),
                        Err(PathError::SymlinkEscape(_) | PathError::ParentComponent)
                    ),
                    "{out}: {:?}",
                    plan.resolve(out)
                );
            }
        }
    }

    #[test]
    fn never_opens_what_is_not_a_plain_file_inside() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join(layout::README_FILE)).unwrap();
        std::fs::write(t.path().join("ok.md"), b"hi").unwrap();
        let fifo = t.path().join(layout::PROGRESS_FILE);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(matches!(
            read_inside(t.path(), layout::README_FILE),
            FileRead::Unreadable(_)
        ));
        assert!(matches!(
            read_inside(t.path(), layout::PROGRESS_FILE),
            FileRead::Unreadable(_)
        ));
        assert_eq!(
            read_inside(t.path(), "ok.md"),
            FileRead::Bytes(b"hi".to_vec())
        );
        assert_eq!(read_inside(t.path(), "gone.md"), FileRead::Missing);
        assert!(matches!(
            read_inside(t.path(), "../x"),
            FileRead::Outside(_)
        ));
    }
}

/// A plan folder whose canonical path is computed once, so that checking thousands of
/// relative paths costs one `canonicalize` per existing file (none per missing one).
#[derive(Debug)]
pub struct PlanDir {
    root: std::path::PathBuf,
    canonical: Option<std::path::PathBuf>,
    /// Relative directory prefixes already seen to be plain directories (no symlink).
    plain_dirs: std::cell::RefCell<std::collections::HashSet<std::path::PathBuf>>,
    /// Those directories (and the plan folder, under the empty prefix) opened once, so that a
    /// name in them is looked at with one component to walk, not the whole path again.
    open_dirs: std::cell::RefCell<Vec<(std::path::PathBuf, Option<std::os::fd::OwnedFd>)>>,
}

impl Clone for PlanDir {
    /// The same folder, with nothing looked up yet.
    fn clone(&self) -> Self {
        PlanDir::resolved(&self.root, self.canonical.clone())
    }
}

/// What a name in a plan folder is, as a look that does not follow it sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EntryKind {
    Symlink,
    Dir,
    File,
    Other,
}

impl EntryKind {
    fn of(meta: std::fs::Metadata) -> EntryKind {
        use std::os::unix::fs::MetadataExt;
        EntryKind::of_mode(meta.mode())
    }

    /// The kind a `stat` mode gives.
    fn of_mode(mode: u32) -> EntryKind {
        match mode & libc::S_IFMT {
            libc::S_IFLNK => EntryKind::Symlink,
            libc::S_IFDIR => EntryKind::Dir,
            libc::S_IFREG => EntryKind::File,
            _ => EntryKind::Other,
        }
    }
}

/// What `name` is in the folder open as `fd`, looked at without following it.
fn look_at(fd: std::os::fd::RawFd, name: &std::ffi::CStr) -> std::io::Result<EntryKind> {
    // SAFETY: an all-zero `stat` is a valid value for the call to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `fd` is open, `name` is NUL-terminated, `st` is a live local.
    let rc = unsafe { libc::fstatat(fd, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(EntryKind::of_mode(st.st_mode))
}

/// What a relative path inside a plan folder leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolved {
    /// An existing entry inside the plan.
    Inside {
        /// The joined, not canonical, path.
        path: std::path::PathBuf,
        /// It is a regular file (through a symlink that stays inside, too): known from the
        /// look-up itself, so a caller never stats it again.
        regular_file: bool,
    },
    /// Nothing there (a missing file, or a dangling link that stays inside).
    Missing,
}

impl PlanDir {
    /// The plan folder `root`, canonicalised now; when that fails (the folder is gone),
    /// [`PlanDir::resolve`] reports an I/O error.
    pub fn new(root: &Path) -> PlanDir {
        PlanDir {
            root: root.to_path_buf(),
            canonical: root.canonicalize().ok(),
            plain_dirs: Default::default(),
            open_dirs: Default::default(),
        }
    }

    /// [`PlanDir::new`] for a folder whose canonical path is known already (`None`: it could
    /// not be resolved): threads that read the same plan resolve it once between them.
    pub fn resolved(root: &Path, canonical: Option<std::path::PathBuf>) -> PlanDir {
        PlanDir {
            root: root.to_path_buf(),
            canonical,
            plain_dirs: Default::default(),
            open_dirs: Default::default(),
        }
    }

    /// The plan folder as given to [`PlanDir::new`].
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Resolves `rel` inside the plan: refused when absolute, with a `..` component, or leaving
    /// the plan through a symlink (also a dangling one).
    pub fn resolve(&self, rel: &str) -> Result<Resolved, PathError> {
        check_relative(rel)?;
        let Some(canonical_root) = &self.canonical else {
            return Err(PathError::Io(format!(
                "{}: the plan folder cannot be resolved",
                self.root.display()
            )));
        };
        // Fast path: with no `..` (checked above) and no symlink on the way, the path cannot
        // leave the plan. One `lstat` per new component instead of a full `realpath`.
        let rel_path = Path::new(rel);
        let mut prefix = std::path::PathBuf::new();
        let components: Vec<_> = rel_path.components().collect();
        for (i, component) in components.iter().enumerate() {
            prefix.push(component);
            let last = i + 1 == components.len();
            if !last && self.plain_dirs.borrow().contains(&prefix) {
                continue;
            }
            let looked = if last {
                self.look_in_open_dir(&prefix).unwrap_or_else(|| {
                    std::fs::symlink_metadata(self.root.join(&prefix)).map(EntryKind::of)
                })
            } else {
                std::fs::symlink_metadata(self.root.join(&prefix)).map(EntryKind::of)
            };
            match looked {
                Ok(EntryKind::Symlink) => {
                    return self.resolve_through_links(rel, canonical_root);
                }
                // not a symlink: what lstat saw is what the name is
                Ok(kind) if last => {
                    return Ok(Resolved::Inside {
                        path: self.root.join(rel),
                        regular_file: kind == EntryKind::File,
                    });
                }
                Ok(EntryKind::Dir) => {
                    self.plain_dirs.borrow_mut().insert(prefix.clone());
                }
                // a file used as a directory, or nothing there: the target cannot exist
                Ok(_) => return Ok(Resolved::Missing),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                    ) =>
                {
                    return Ok(Resolved::Missing);
                }
                Err(e) => {
                    return Err(PathError::Io(format!(
                        "{}: {e}",
                        self.root.join(&prefix).display()
                    )));
                }
            }
        }
        // `rel` had no normal component (e.g. `.`): the plan folder itself
        Ok(Resolved::Inside {
            path: self.root.join(rel),
            regular_file: false,
        })
    }

    /// What the last component of `prefix` is, looked at (not followed) inside its already
    /// checked folder's open descriptor; `None` when that folder cannot be opened so (the caller
    /// then looks at the whole path, as before).
    fn look_in_open_dir(&self, prefix: &Path) -> Option<std::io::Result<EntryKind>> {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::CString::new(prefix.file_name()?.as_bytes()).ok()?;
        let fd = self.open_dir(prefix.parent().unwrap_or(Path::new("")))?;
        Some(look_at(fd, &name))
    }

    /// The folder `prefix` of the plan (the plan folder itself for an empty prefix), opened
    /// once as a descriptor to look names up in; `None` when it cannot be opened so.
    fn open_dir(&self, prefix: &Path) -> Option<std::os::fd::RawFd> {
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        use std::os::unix::ffi::OsStrExt;
        let mut open = self.open_dirs.borrow_mut();
        if let Some((_, fd)) = open.iter().find(|(p, _)| p == prefix) {
            return fd.as_ref().map(|fd| fd.as_raw_fd());
        }
        let path = std::ffi::CString::new(self.root.join(prefix).as_os_str().as_bytes()).ok()?;
        // The plan folder itself is opened as given; a folder inside it was seen to be a plain
        // directory and must still be one (O_NOFOLLOW).
        let mut flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
        if !prefix.as_os_str().is_empty() {
            flags |= libc::O_NOFOLLOW;
        }
        // SAFETY: `path` is a NUL-terminated string that outlives the call.
        let raw = unsafe { libc::open(path.as_ptr(), flags) };
        // SAFETY: a descriptor open() just returned is owned by nothing else.
        let fd = (raw >= 0).then(|| unsafe { OwnedFd::from_raw_fd(raw) });
        let raw = fd.as_ref().map(|fd| fd.as_raw_fd());
        open.push((prefix.to_path_buf(), fd));
        raw
    }

    /// The plan file `rel`, as [`read_inside`] reads it. A regular file directly in the plan
    /// folder is looked at and opened through the folder's descriptor, one name to look up
    /// instead of the whole path twice; anything else (a name in a subfolder, a symlink, a FIFO,
    /// a file over the cap, any error) is read the whole way, which decides what it is.
    pub fn read(&self, rel: &str) -> FileRead {
        self.read_plain(rel)
            .unwrap_or_else(|| read_inside(&self.root, rel))
    }

    fn read_plain(&self, rel: &str) -> Option<FileRead> {
        use std::os::fd::FromRawFd;
        // Only a plain name: whatever the name rules refuse (absolute, `..`, a drive) is refused
        // the whole way, with its reason.
        if rel.contains('/') || rel == "." || check_relative(rel).is_err() {
            return None;
        }
        let name = std::ffi::CString::new(rel).ok()?;
        let fd = self.open_dir(Path::new(""))?;
        match look_at(fd, &name) {
            Ok(EntryKind::File) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Some(FileRead::Missing),
            _ => return None,
        }
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
        // SAFETY: `fd` is open and `name` is a NUL-terminated string that outlives the call.
        let raw = unsafe { libc::openat(fd, name.as_ptr(), flags) };
        if raw < 0 {
            return None;
        }
        // SAFETY: a descriptor openat() just returned is owned by nothing else.
        let file = unsafe { std::fs::File::from_raw_fd(raw) };
        // What the descriptor refuses (not a file, over the cap, an I/O error) is read the whole
        // way again, which names it.
        read_opened(&self.root.join(rel), file, Kind::Document)
            .ok()
            .map(FileRead::Bytes)
    }

    /// The careful path for a name that crosses a symlink somewhere.
    fn resolve_through_links(
        &self,
        rel: &str,
        canonical_root: &Path,
    ) -> Result<Resolved, PathError> {
        let joined = self.root.join(rel);
        match joined.canonicalize() {
            Ok(canon) if canon.starts_with(canonical_root) => {
                let regular_file = std::fs::metadata(&canon).is_ok_and(|m| m.is_file());
                Ok(Resolved::Inside {
                    path: joined,
                    regular_file,
                })
            }
            Ok(canon) => Err(PathError::SymlinkEscape(canon)),
            // let the recovery crate's resolver tell a dangling escape from a missing target
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match resolve_inside(&self.root, rel, true) {
                    Ok(_) | Err(PathError::Missing) => Ok(Resolved::Missing),
                    Err(e) => Err(e),
                }
            }
            Err(e) => Err(PathError::Io(format!("{}: {e}", joined.display()))),
        }
    }
}
