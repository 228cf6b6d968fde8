//! The one way planseal reads a file: never blocking, never anything but a regular file, never
//! more than the file's kind allows, and — where a folder rule exists — never through a symlink
//! that leads out of the folder.
//!
//! Each read:
//! 1. resolves the name (for [`read_inside`]: inside its folder, or refused with
//!    [`ReadError::Outside`]);
//! 2. looks at what is there without opening it: anything that is not a regular file (a FIFO, a
//!    socket, a device, a folder) is refused with [`ReadError::NotRegularFile`] and never opened,
//!    since opening a FIFO for reading waits for a writer and a device may never end;
//! 3. refuses a file over the cap of its [`Kind`] ([`ReadError::TooLarge`]);
//! 4. opens it with `O_NONBLOCK` (and `O_NOFOLLOW` when the final name must not be a symlink),
//!    checks the open descriptor again (`fstat`), so a file swapped for a FIFO between the look
//!    and the open is refused too, and reads at most the cap.
//!
//! `docs/reading.md` lists the kinds and their caps.

use crate::paths::{PathError, check_relative, resolve_inside};
use std::fs::{File, Metadata, OpenOptions};
use std::io::{ErrorKind, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What a file is for, which decides how large it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A file a format keeps: DWP state.json, manifest, README, task and log files, receipt and
    /// marker, a candidate state; GSD STATE.md and ROADMAP; Reversa state.json; a checkpoint and
    /// its stories.
    Document,
    /// An append-only journal (`*.journal.ndjson`, `STATE_JOURNAL.ndjson`): it only grows.
    Journal,
    /// A lock's owner record or GSD's pid file: a few hundred bytes.
    LockRecord,
    /// A small settings file: `.env`, a project's `project.yaml`, GSD's active-workstream pointer.
    Settings,
}

impl Kind {
    /// The most bytes planseal reads of a file of this kind.
    pub const fn cap(self) -> u64 {
        match self {
            Kind::Document => 256 << 20,
            Kind::Journal => 1 << 30,
            Kind::LockRecord => 64 << 10,
            Kind::Settings => 1 << 20,
        }
    }

    /// How messages name the kind.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Document => "a plan or state file",
            Kind::Journal => "a journal",
            Kind::LockRecord => "a lock record",
            Kind::Settings => "a settings file",
        }
    }
}

/// Why a file was not read. Nothing is ever written because of a read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Something other than a regular file is where a file should be; it was never opened for
    /// reading (`not-a-regular-file`).
    #[error("{}: {what}, not a regular file; planseal never reads it", path.display())]
    NotRegularFile {
        /// The name as read.
        path: PathBuf,
        /// What it is: `a FIFO`, `a socket`, `a character device`, `a block device`, `a directory`,
        /// `a symlink`.
        what: &'static str,
    },
    /// The name leaves its folder: a symlink out, an absolute name or a `..` component
    /// (`symlink-escape`).
    #[error("{} leaves {}: {why}; it is not read", path.display(), root.display())]
    Outside {
        /// The name as read.
        path: PathBuf,
        /// The folder it must stay inside.
        root: PathBuf,
        /// Why it is outside (where the symlink leads).
        why: PathError,
    },
    /// The file is larger than planseal reads of its kind (`input-too-large`).
    #[error("{}: {size} bytes, more than the {cap} bytes planseal reads of {}", path.display(), kind.name())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size (at least; it may have grown while read).
        size: u64,
        /// The cap of its kind.
        cap: u64,
        /// Its kind.
        kind: Kind,
    },
    /// The operating system refused (permission denied, I/O error).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

impl ReadError {
    /// The stable refusal kind (`docs/refusals.md`); `io-error` for an operating-system error.
    pub fn kind(&self) -> &'static str {
        match self {
            ReadError::NotRegularFile { .. } => "not-a-regular-file",
            ReadError::Outside { .. } => "symlink-escape",
            ReadError::TooLarge { .. } => "input-too-large",
            ReadError::Io { .. } => "io-error",
        }
    }

    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            ReadError::NotRegularFile { path, .. }
            | ReadError::Outside { path, .. }
            | ReadError::TooLarge { path, .. }
            | ReadError::Io { path, .. } => path,
        }
    }

    /// The message without the path, led by the kind (`not-a-regular-file: a FIFO, …`), for a
    /// report that names the file itself.
    pub fn reason(&self) -> String {
        let full = self.to_string();
        let path = self.path().display().to_string();
        let rest = full
            .strip_prefix(&path)
            .map(|r| r.trim_start_matches(':').trim_start())
            .unwrap_or(&full);
        match self {
            ReadError::Io { .. } => rest.to_string(),
            _ => format!("{}: {rest}", self.kind()),
        }
    }

    /// Whether the operating system refused (as opposed to a rule of planseal's).
    pub fn is_io(&self) -> bool {
        matches!(self, ReadError::Io { .. })
    }
}

/// The bytes of `path` (symlinks followed: for a file no folder rule applies to), `Ok(None)`
/// when nothing is there.
pub fn read(path: &Path, kind: Kind) -> Result<Option<Vec<u8>>, ReadError> {
    read_checked(path, kind, false)
}

/// The bytes of `path`, whose final name must not be a symlink (a lock record), `Ok(None)` when
/// nothing is there.
pub fn read_no_follow(path: &Path, kind: Kind) -> Result<Option<Vec<u8>>, ReadError> {
    read_checked(path, kind, true)
}

/// [`read`], a missing file being an error too (`NotFound`).
pub fn read_existing(path: &Path, kind: Kind) -> Result<Vec<u8>, ReadError> {
    read(path, kind)?.ok_or_else(|| ReadError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::from(ErrorKind::NotFound),
    })
}

/// Whether `path` holds exactly `expected` (`None`: that nothing is there), read as [`read`]
/// reads it but in pieces compared as they come, never held whole: a writer's compare-and-swap
/// under its lock. The same errors as [`read`].
pub fn holds(path: &Path, kind: Kind, expected: Option<&[u8]>) -> Result<bool, ReadError> {
    let Some((mut file, len)) = open_checked(path, kind, false)? else {
        return Ok(expected.is_none());
    };
    let Some(expected) = expected else {
        return Ok(false);
    };
    if len != expected.len() as u64 {
        // A file whose size is not the expected one differs; one over the cap is refused as
        // a read refuses it (checked when it was opened).
        return Ok(false);
    }
    let mut buffer = vec![0u8; (64 << 10).min(expected.len() + 1)];
    let mut seen = 0usize;
    loop {
        let n = match file.read(&mut buffer) {
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(source) => return Err(io_error(path, source)),
        };
        if n == 0 {
            return Ok(seen == expected.len());
        }
        if expected.get(seen..seen + n) != Some(&buffer[..n]) {
            return Ok(false);
        }
        seen += n;
    }
}

/// The bytes of `rel` inside `root`, never through a symlink leading out of `root` (also not a
/// dangling one), `Ok(None)` when nothing is there (or a component on the way is not a folder).
pub fn read_inside(root: &Path, rel: &str, kind: Kind) -> Result<Option<Vec<u8>>, ReadError> {
    let outside = |why| ReadError::Outside {
        path: root.join(rel),
        root: root.to_path_buf(),
        why,
    };
    check_relative(rel).map_err(outside)?;
    // Fast path: no component is a symlink (one lstat each), so the name is inside by
    // construction; O_NOFOLLOW keeps the last one from turning into a link meanwhile.
    let mut path = root.to_path_buf();
    let parts: Vec<&str> = rel
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    for (i, part) in parts.iter().enumerate() {
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
                return Ok(None);
            }
            Err(source) => return Err(ReadError::Io { path, source }),
            Ok(m) if m.file_type().is_symlink() => {
                return read_through_links(root, rel, kind).map_err(|e| match e {
                    Resolve::Outside(why) => outside(why),
                    Resolve::Read(e) => e,
                });
            }
            Ok(m) if i + 1 < parts.len() && !m.is_dir() => return Ok(None),
            Ok(_) => {}
        }
    }
    read_checked(&path, kind, true)
}

enum Resolve {
    Outside(PathError),
    Read(ReadError),
}

/// The careful path of [`read_inside`] for a name that crosses a symlink: the canonical form
/// must stay inside, and is then opened with `O_NOFOLLOW` (it holds no link by construction).
fn read_through_links(root: &Path, rel: &str, kind: Kind) -> Result<Option<Vec<u8>>, Resolve> {
    let joined = root.join(rel);
    match joined.canonicalize() {
        Ok(canon) => {
            let root_canon = root.canonicalize().map_err(|source| {
                Resolve::Read(ReadError::Io {
                    path: root.to_path_buf(),
                    source,
                })
            })?;
            if !canon.starts_with(&root_canon) {
                return Err(Resolve::Outside(PathError::SymlinkEscape(canon)));
            }
            // Shown under its own name, not the resolved one.
            read_checked(&canon, kind, true).map_err(|e| Resolve::Read(renamed(e, &joined)))
        }
        // A dangling link: one leading out is refused, one staying inside reads as missing.
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            match resolve_inside(root, rel, false) {
                Ok(_) | Err(PathError::Missing) => Ok(None),
                Err(why) => Err(Resolve::Outside(why)),
            }
        }
        Err(source) => Err(Resolve::Read(ReadError::Io {
            path: joined,
            source,
        })),
    }
}

fn renamed(e: ReadError, shown: &Path) -> ReadError {
    let path = shown.to_path_buf();
    match e {
        ReadError::NotRegularFile { what, .. } => ReadError::NotRegularFile { path, what },
        ReadError::TooLarge {
            size, cap, kind, ..
        } => ReadError::TooLarge {
            path,
            size,
            cap,
            kind,
        },
        ReadError::Io { source, .. } => ReadError::Io { path, source },
        outside @ ReadError::Outside { .. } => outside,
    }
}

/// What a non-regular file is, in words.
pub fn what_it_is(meta: &Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symlink"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a file"
    }
}

fn check_meta(path: &Path, meta: &Metadata, kind: Kind) -> Result<(), ReadError> {
    if !meta.is_file() {
        return Err(ReadError::NotRegularFile {
            path: path.to_path_buf(),
            what: what_it_is(meta),
        });
    }
    if meta.len() > kind.cap() {
        return Err(too_large(path, meta.len(), kind));
    }
    Ok(())
}

fn too_large(path: &Path, size: u64, kind: Kind) -> ReadError {
    ReadError::TooLarge {
        path: path.to_path_buf(),
        size,
        cap: kind.cap(),
        kind,
    }
}

fn read_checked(path: &Path, kind: Kind, no_follow: bool) -> Result<Option<Vec<u8>>, ReadError> {
    let Some((file, len)) = open_checked(path, kind, no_follow)? else {
        return Ok(None);
    };
    read_capped(path, file, len, kind).map(Some)
}

/// The last step of a read for a file its caller opened itself (through a folder's descriptor,
/// say): the descriptor checked as [`read`] checks it — a regular file within the cap of `kind`
/// — and its bytes read, never more than the cap. `path` names the file in errors.
pub fn read_opened(path: &Path, file: File, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let meta = file.metadata().map_err(|e| io_error(path, e))?;
    check_meta(path, &meta, kind)?;
    read_capped(path, file, meta.len(), kind)
}

/// The bytes of `file`, of about `len`, refused past the cap of `kind` (the file may have grown
/// since it was looked at).
fn read_capped(path: &Path, file: File, len: u64, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(kind.cap() + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| io_error(path, source))?;
    if bytes.len() as u64 > kind.cap() {
        return Err(too_large(path, bytes.len() as u64, kind));
    }
    Ok(bytes)
}

fn io_error(path: &Path, source: std::io::Error) -> ReadError {
    ReadError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Steps 2 to 4 of every read (see the module docs): the file opened, with its length as the
/// open descriptor gives it; `Ok(None)` when nothing is there.
fn open_checked(
    path: &Path,
    kind: Kind,
    no_follow: bool,
) -> Result<Option<(File, u64)>, ReadError> {
    // Looked at before opening: a FIFO or a device is never opened at all.
    let looked = if no_follow {
        std::fs::symlink_metadata(path)
    } else {
        std::fs::metadata(path)
    };
    match looked {
        Ok(meta) => check_meta(path, &meta, kind)?,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Ok(None);
        }
        Err(e) => return Err(io_error(path, e)),
    }
    let mut flags = libc::O_NONBLOCK;
    if no_follow {
        flags |= libc::O_NOFOLLOW;
    }
    let file: File = match OpenOptions::new().read(true).custom_flags(flags).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) && no_follow => {
            return Err(ReadError::NotRegularFile {
                path: path.to_path_buf(),
                what: "a symlink",
            });
        }
        Err(e) => return Err(io_error(path, e)),
    };
    // The descriptor again: what was opened may not be what was looked at.
    let meta = file.metadata().map_err(|e| io_error(path, e))?;
    check_meta(path, &meta, kind)?;
    Ok(Some((file, meta.len())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mkfifo(path: &Path) {
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(made.success());
    }

    #[test]
    fn a_regular_file_is_read_and_a_missing_one_is_none() {
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("a"), b"hi").unwrap();
        assert_eq!(
            read(&t.path().join("a"), Kind::Document).unwrap(),
            Some(b"hi".to_vec())
        );
        assert!(read(&t.path().join("b"), Kind::Document).unwrap().is_none());
        assert!(
            read_inside(t.path(), "a/b", Kind::Document)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_file_opened_by_its_caller_is_checked_and_read_as_a_read_would() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("a");
        std::fs::write(&path, b"hi").unwrap();
        let opened = |p: &Path| File::open(p).unwrap();
        assert_eq!(
            read_opened(&path, opened(&path), Kind::Document).unwrap(),
            b"hi"
        );
        let folder = read_opened(t.path(), opened(t.path()), Kind::Document).unwrap_err();
        assert_eq!(folder.kind(), "not-a-regular-file");
        // Over the cap (a sparse file): refused by its length, as a read refuses it.
        File::create(&path)
            .unwrap()
            .set_len(Kind::Document.cap() + 1)
            .unwrap();
        let over = read_opened(&path, opened(&path), Kind::Document).unwrap_err();
        assert_eq!(over.kind(), read(&path, Kind::Document).unwrap_err().kind());
        assert_eq!(over.kind(), "input-too-large");
    }

    #[test]
    fn holds_compares_in_pieces_what_a_read_would_give() {
        let t = tempfile::tempdir().unwrap();
        let path = t.path().join("state.json");
        let data: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        assert!(holds(&path, Kind::Document, Some(&data)).unwrap());
        let mut late = data.clone();
        *late.last_mut().unwrap() ^= 1;
        assert!(!holds(&path, Kind::Document, Some(&late)).unwrap());
        let mut early = data.clone();
        early[3] ^= 1;
        assert!(!holds(&path, Kind::Document, Some(&early)).unwrap());
        assert!(!holds(&path, Kind::Document, Some(&data[..data.len() - 1])).unwrap());
        assert!(!holds(&path, Kind::Document, None).unwrap());
        assert!(holds(&t.path().join("gone"), Kind::Document, None).unwrap());
        assert!(!holds(&t.path().join("gone"), Kind::Document, Some(b"x")).unwrap());
        std::fs::write(&path, b"").unwrap();
        assert!(holds(&path, Kind::Document, Some(b"")).unwrap());
        mkfifo(&t.path().join("fifo"));
        let e = holds(&t.path().join("fifo"), Kind::Document, Some(b"")).unwrap_err();
        assert_eq!(e.kind(), "not-a-regular-file");
    }

    #[test]
    fn fifo_device_and_folder_are_never_read() {
        let t = tempfile::tempdir().unwrap();
        mkfifo(&t.path().join("fifo"));
        std::fs::create_dir(t.path().join("dir")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", t.path().join("zero")).unwrap();
        for (name, what) in [
            ("fifo", "a FIFO"),
            ("dir", "a directory"),
            ("zero", "a character device"),
        ] {
            let e = read(&t.path().join(name), Kind::Document).unwrap_err();
            assert_eq!(e.kind(), "not-a-regular-file", "{name}");
            assert!(e.to_string().contains(what), "{e}");
        }
        // inside the folder too: the link to /dev/zero leaves it first
        let e = read_inside(t.path(), "fifo", Kind::Document).unwrap_err();
        assert_eq!(e.kind(), "not-a-regular-file");
        let e = read_inside(t.path(), "zero", Kind::Document).unwrap_err();
        assert_eq!(e.kind(), "symlink-escape");
    }

    #[test]
    fn a_file_over_its_cap_is_refused_naming_the_cap() {
        let t = tempfile::tempdir().unwrap();
        let big = t.path().join("owner.json");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(Kind::LockRecord.cap() + 1)
            .unwrap();
        let e = read(&big, Kind::LockRecord).unwrap_err();
        assert_eq!(e.kind(), "input-too-large");
        assert!(e.to_string().contains(&Kind::LockRecord.cap().to_string()));
        assert!(read(&big, Kind::Document).is_ok());
    }

    #[test]
    fn links_are_followed_only_inside() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x"), b"out").unwrap();
        let t = tempfile::tempdir().unwrap();
        std::fs::write(t.path().join("in"), b"in").unwrap();
        std::os::unix::fs::symlink("in", t.path().join("link-in")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("x"), t.path().join("link-out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("gone"), t.path().join("dangling")).unwrap();
        assert_eq!(
            read_inside(t.path(), "link-in", Kind::Document).unwrap(),
            Some(b"in".to_vec())
        );
        for name in ["link-out", "dangling", "../x", "/etc/passwd"] {
            let e = read_inside(t.path(), name, Kind::Document).unwrap_err();
            assert_eq!(e.kind(), "symlink-escape", "{name}");
        }
        let e = read_no_follow(&t.path().join("link-in"), Kind::LockRecord).unwrap_err();
        assert_eq!(e.kind(), "not-a-regular-file");
    }
}
