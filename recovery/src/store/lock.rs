//! Exclusive locks, taken through a small per-format adapter ([`LockStyle`]).
//!
//! - [`LockStyle::Directory`]: `mkdir <file>.lock/` — atomic, and the same path the DWP helper
//!   uses, so the two tools exclude each other. planseal writes an owner record `owner.json`
//!   inside; an empty directory (the helper's, or a writer between its mkdir and its record) is
//!   held by an unknown owner.
//! - [`LockStyle::PidFile`]: GSD's `<file>.lock` created with O_EXCL holding the writer's pid.
//!   Taken over when that pid is not alive on this machine (what GSD's own tools do); a live
//!   owner is waited for, then refused.
//!
//! A lock is removed by anyone but its holder only through [`unlock`], and only when its owner is
//! provably dead (same host, and the pid is gone or belongs to a newer process) unless forced.

use super::StoreError;
use super::process::{current_pid, host_name, pid_alive, process_start_time, random_token};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The name of the owner record inside a lock directory.
pub const OWNER_FILE: &str = "owner.json";
const OWNER_TEMP: &str = "owner.json.tmp";

/// How a file is locked: each format keeps the lock its own tools take, so they exclude each
/// other.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockStyle {
    /// `<file>.lock/` directory with an owner record (DWP, Reversa, checkpoint).
    Directory,
    /// `<file>.lock` file created with O_EXCL holding the writer's pid (GSD). A live owner is
    /// waited for up to `wait`, then the lock is refused.
    PidFile {
        /// How long a live owner is waited for before the lock is refused.
        wait: Duration,
    },
}

impl LockStyle {
    /// GSD's pid file, waiting up to 30 s for a live owner (a dead pid's lock is taken over, as
    /// GSD's own tools do).
    pub fn gsd() -> Self {
        LockStyle::PidFile {
            wait: Duration::from_secs(30),
        }
    }

    /// Where the lock of `target` lives: `<target>.lock` (a folder or a file).
    pub fn lock_path(&self, target: &Path) -> PathBuf {
        let mut s = target.as_os_str().to_owned();
        s.push(".lock");
        PathBuf::from(s)
    }
}

/// The owner record planseal writes into a lock directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LockOwner {
    /// The owner's process id, meaningful only on `host`.
    pub pid: u32,
    /// The host name of the machine the owner ran on (`gethostname`); a pid is judged only on the
    /// same host.
    pub host: String,
    /// Process start time (`<boot id>:<ticks since boot>` on Linux); `None` when unknown.
    pub process_start: Option<String>,
    /// What the owner is doing, e.g. `update task 3 → completed`.
    pub operation: String,
    /// Random token: tells this owner's lock from a later one at the same path.
    pub token: String,
    /// The writing tool and its version.
    pub tool: String,
    /// When the lock was taken (UTC, ISO-8601).
    pub acquired_at: String,
}

impl LockOwner {
    /// The record for this process.
    pub fn for_this_process(operation: &str, tool: &str) -> Self {
        let pid = current_pid();
        LockOwner {
            pid,
            host: host_name(),
            process_start: process_start_time(pid),
            operation: operation.to_string(),
            token: random_token(),
            tool: tool.to_string(),
            acquired_at: crate::time::format_utc(
                jiff::Timestamp::now(),
                crate::time::TimestampShape::PythonIso,
            ),
        }
    }
}

/// Who holds a lock, as far as the lock itself tells.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LockHolder {
    /// A planseal owner record.
    Owner(LockOwner),
    /// An empty lock directory: the DWP helper's, or a writer that has not written its record.
    Unknown,
    /// A GSD pid file.
    Pid {
        /// The process id the pid file holds.
        pid: u32,
    },
    /// The lock exists but its content cannot be read or understood.
    Unreadable {
        /// What went wrong: the read error, or what the lock holds instead of a record or a pid.
        reason: String,
    },
}

impl fmt::Display for LockHolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockHolder::Owner(o) => write!(
                f,
                "held by pid {} on host {} since {} ({}; {})",
                o.pid, o.host, o.acquired_at, o.operation, o.tool
            ),
            LockHolder::Unknown => f.write_str(
                "held by an unknown owner (empty lock directory, as the DWP helper or a crashed writer leaves it)",
            ),
            LockHolder::Pid { pid } => write!(f, "held by pid {pid} (pid file)"),
            LockHolder::Unreadable { reason } => write!(f, "held by an unreadable owner ({reason})"),
        }
    }
}

/// Whether a lock's owner is still working.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "kebab-case")]
pub enum OwnerStatus {
    /// The owner process runs on this machine.
    Alive,
    /// Provably gone: same host, and the pid is not alive or belongs to a newer process.
    Dead(String),
    /// Cannot be decided (empty directory, other host, unreadable record).
    Unknown(String),
}

impl fmt::Display for OwnerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OwnerStatus::Alive => f.write_str("owner is alive"),
            OwnerStatus::Dead(r) => write!(f, "owner is dead: {r}"),
            OwnerStatus::Unknown(r) => write!(f, "owner unknown: {r}"),
        }
    }
}

/// The form [`process_start_time`] writes: clock ticks, after an optional `boot-id:`.
fn is_start_time(recorded: &str) -> bool {
    let ticks = recorded.rsplit_once(':').map_or(recorded, |(_, t)| t);
    !ticks.is_empty() && ticks.bytes().all(|b| b.is_ascii_digit())
}

/// Decides whether a holder is alive, dead or unknown. Dead needs proof: recorded on this host,
/// and the pid is not running or its process start time differs from the recorded one.
pub fn owner_status(holder: &LockHolder) -> OwnerStatus {
    match holder {
        LockHolder::Owner(o) => {
            let here = host_name();
            if o.host != here {
                return OwnerStatus::Unknown(format!(
                    "recorded on host {}, this is {here}",
                    o.host
                ));
            }
            if !pid_alive(o.pid) {
                return OwnerStatus::Dead(format!("pid {} is not running", o.pid));
            }
            match (&o.process_start, process_start_time(o.pid)) {
                // A start time that is not one this code writes proves nothing: the pid runs.
                (Some(recorded), _) if !is_start_time(recorded) => OwnerStatus::Unknown(format!(
                    "pid {} is running, and the owner record's process start `{recorded}` cannot be compared with it",
                    o.pid
                )),
                (Some(recorded), Some(now)) if *recorded != now => OwnerStatus::Dead(format!(
                    "pid {} now belongs to another process (started {now}, owner started {recorded})",
                    o.pid
                )),
                _ => OwnerStatus::Alive,
            }
        }
        LockHolder::Pid { pid } => {
            if pid_alive(*pid) {
                OwnerStatus::Alive
            } else {
                OwnerStatus::Dead(format!("pid {pid} is not running"))
            }
        }
        LockHolder::Unknown => OwnerStatus::Unknown(
            "the lock directory is empty, so nothing says who made it".to_string(),
        ),
        LockHolder::Unreadable { reason } => OwnerStatus::Unknown(reason.clone()),
    }
}

/// A held lock. Release it with [`LockGuard::release`]; dropping it releases too (best effort).
/// A process that dies (or hits a crash point) leaves the lock behind, as it must.
#[derive(Debug)]
pub struct LockGuard {
    lock_path: PathBuf,
    style: LockStyle,
    owner: LockOwner,
    released: bool,
}

impl LockGuard {
    /// The lock's path: `<target>.lock`, a folder or a file depending on the style.
    pub fn lock_path(&self) -> &Path {
        &self.lock_path
    }

    /// The owner record this guard wrote (for a pid file, only its pid is on disk).
    pub fn owner(&self) -> &LockOwner {
        &self.owner
    }

    /// Removes the lock if it is still ours (same token / pid). Returns whether it was removed.
    pub fn release(mut self) -> Result<bool, StoreError> {
        self.released = true;
        release_path(&self.lock_path, &self.style, &self.owner)
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if !self.released {
            let _ = release_path(&self.lock_path, &self.style, &self.owner);
        }
    }
}

fn release_path(lock_path: &Path, style: &LockStyle, me: &LockOwner) -> Result<bool, StoreError> {
    match style {
        LockStyle::Directory => {
            let ours = matches!(read_dir_holder(lock_path)?, Some(LockHolder::Owner(o)) if o.token == me.token);
            if !ours {
                return Ok(false);
            }
            let owner = lock_path.join(OWNER_FILE);
            std::fs::remove_file(&owner).map_err(|e| StoreError::io("remove", &owner, e))?;
            std::fs::remove_dir(lock_path)
                .map_err(|e| StoreError::io("remove lock folder", lock_path, e))?;
            Ok(true)
        }
        LockStyle::PidFile { .. } => {
            let ours = matches!(read_pid_holder(lock_path)?, Some(LockHolder::Pid { pid }) if pid == me.pid);
            if !ours {
                return Ok(false);
            }
            std::fs::remove_file(lock_path).map_err(|e| StoreError::io("remove", lock_path, e))?;
            Ok(true)
        }
    }
}

/// Takes the lock of `target` for `operation`, or refuses with [`StoreError::LockPresent`].
/// Crash point: `store.after_lock` (after the owner record is in place).
pub fn acquire(
    target: &Path,
    style: &LockStyle,
    operation: &str,
    tool: &str,
) -> Result<LockGuard, StoreError> {
    acquire_at(target, style, operation, tool, None)
}

/// [`acquire`], with the owner record's `acquired_at` given by the caller's clock (`None`: the
/// system clock).
pub fn acquire_at(
    target: &Path,
    style: &LockStyle,
    operation: &str,
    tool: &str,
    acquired_at: Option<&str>,
) -> Result<LockGuard, StoreError> {
    let lock_path = style.lock_path(target);
    let mut owner = LockOwner::for_this_process(operation, tool);
    if let Some(at) = acquired_at {
        owner.acquired_at = at.to_string();
    }
    match style {
        LockStyle::Directory => acquire_dir(&lock_path, &owner)?,
        LockStyle::PidFile { wait } => acquire_pid_file(&lock_path, owner.pid, *wait)?,
    }
    let guard = LockGuard {
        lock_path,
        style: style.clone(),
        owner,
        released: false,
    };
    super::failpoint::crash_point("store.after_lock");
    Ok(guard)
}

/// Takes the lock directory with its owner record already inside: the record is written into a
/// staging directory beside the lock, which is then renamed onto the lock path with
/// `RENAME_NOREPLACE`. A writer killed at any moment therefore leaves either no lock or a lock
/// whose owner can be proven dead — never the empty directory of an unknown owner, which only
/// `unlock --force` may clear. The rename refuses an existing lock (the DWP helper's plain
/// `mkdir` included), so both tools still exclude each other. File systems without
/// `RENAME_NOREPLACE` fall back to `mkdir` + record.
fn acquire_dir(lock_path: &Path, owner: &LockOwner) -> Result<(), StoreError> {
    remove_dead_staging_dirs(lock_path);
    let staging = staging_path(lock_path, &owner.token);
    std::fs::create_dir(&staging)
        .map_err(|e| StoreError::io("create lock staging folder", &staging, e))?;
    let record = serde_json::to_vec_pretty(owner).map_err(|e| {
        StoreError::io("serialise owner record", &staging, std::io::Error::other(e))
    })?;
    if let Err(e) = std::fs::write(staging.join(OWNER_FILE), &record) {
        discard_staging(&staging);
        return Err(StoreError::io("write owner record in", &staging, e));
    }
    match rename_no_replace(&staging, lock_path) {
        Ok(()) => Ok(()),
        Err(e)
            if e.kind() == std::io::ErrorKind::AlreadyExists
                || e.raw_os_error() == Some(libc::ENOTEMPTY) =>
        {
            discard_staging(&staging);
            let holder = read_dir_holder(lock_path)?.unwrap_or(LockHolder::Unknown);
            Err(StoreError::LockPresent {
                lock_path: lock_path.to_path_buf(),
                holder,
            })
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL) | Some(libc::ENOSYS)) => {
            discard_staging(&staging);
            acquire_dir_by_mkdir(lock_path, owner)
        }
        Err(e) => {
            discard_staging(&staging);
            Err(StoreError::io("create lock folder", lock_path, e))
        }
    }
}

/// `<lock>.staging-<token>` beside the lock: same directory, so the rename is atomic.
fn staging_path(lock_path: &Path, token: &str) -> PathBuf {
    let mut name = lock_path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".staging-{token}"));
    lock_path.with_file_name(name)
}

fn discard_staging(staging: &Path) {
    let _ = std::fs::remove_file(staging.join(OWNER_FILE));
    let _ = std::fs::remove_dir(staging);
}

/// A writer killed between creating its staging folder and the rename leaves the folder behind;
/// it never was a lock, so it is removed once its owner is provably dead.
fn remove_dead_staging_dirs(lock_path: &Path) {
    let (Some(dir), Some(lock_name)) = (lock_path.parent(), lock_path.file_name()) else {
        return;
    };
    let prefix = format!("{}.staging-", lock_name.to_string_lossy());
    let Ok(entries) = std::fs::read_dir(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        if !entry.file_name().to_string_lossy().starts_with(&prefix) {
            continue;
        }
        let staging = entry.path();
        let dead = match read_dir_holder(&staging) {
            Ok(Some(holder)) => matches!(owner_status(&holder), OwnerStatus::Dead(_)),
            _ => false,
        };
        if dead {
            discard_staging(&staging);
        }
    }
}

fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let from = CString::new(from.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    let to = CString::new(to.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: both pointers are valid NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            libc::RENAME_NOREPLACE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn acquire_dir_by_mkdir(lock_path: &Path, owner: &LockOwner) -> Result<(), StoreError> {
    match std::fs::create_dir(lock_path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let holder = read_dir_holder(lock_path)?.unwrap_or(LockHolder::Unknown);
            return Err(StoreError::LockPresent {
                lock_path: lock_path.to_path_buf(),
                holder,
            });
        }
        Err(e) => return Err(StoreError::io("create lock folder", lock_path, e)),
    }
    // Written to a temp name and renamed, so a reader never sees half a record.
    let temp = lock_path.join(OWNER_TEMP);
    let record = serde_json::to_vec_pretty(owner)
        .map_err(|e| StoreError::io("serialise owner record", &temp, std::io::Error::other(e)))?;
    let written = std::fs::write(&temp, &record)
        .and_then(|()| std::fs::rename(&temp, lock_path.join(OWNER_FILE)));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        let _ = std::fs::remove_dir(lock_path);
        return Err(StoreError::io("write owner record in", lock_path, e));
    }
    Ok(())
}

fn acquire_pid_file(lock_path: &Path, pid: u32, wait: Duration) -> Result<(), StoreError> {
    let started = Instant::now();
    loop {
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(lock_path)
        {
            Ok(mut f) => {
                // A pid file we could not fill would read as an unreadable owner and block every
                // later writer: remove it again.
                return f.write_all(pid.to_string().as_bytes()).map_err(|e| {
                    let _ = std::fs::remove_file(lock_path);
                    StoreError::io("write pid file", lock_path, e)
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(StoreError::io("create lock file", lock_path, e)),
        }
        let holder = read_pid_holder(lock_path)?;
        if let Some(LockHolder::Pid { pid: other }) = &holder
            && !pid_alive(*other)
        {
            // The owner is gone: take over, as GSD's own tools do. Re-read just before removing
            // so a lock that changed hands meanwhile is left alone.
            if read_pid_holder(lock_path)? == holder {
                let _ = std::fs::remove_file(lock_path);
            }
            continue;
        }
        let Some(holder) = holder else {
            continue; // released between our open and our read
        };
        if started.elapsed() >= wait {
            return Err(StoreError::LockPresent {
                lock_path: lock_path.to_path_buf(),
                holder,
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn read_dir_holder(lock_path: &Path) -> Result<Option<LockHolder>, StoreError> {
    let meta = match std::fs::symlink_metadata(lock_path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(StoreError::io("inspect lock", lock_path, e)),
    };
    if !meta.is_dir() {
        return Ok(Some(LockHolder::Unreadable {
            reason: "the lock path is not a directory".to_string(),
        }));
    }
    let owner_path = lock_path.join(OWNER_FILE);
    match crate::read::read_no_follow(&owner_path, crate::read::Kind::LockRecord) {
        Ok(Some(bytes)) => Ok(Some(match serde_json::from_slice::<LockOwner>(&bytes) {
            Ok(o) => LockHolder::Owner(o),
            Err(e) => LockHolder::Unreadable {
                reason: format!("{}: {e}", owner_path.display()),
            },
        })),
        Ok(None) => Ok(Some(LockHolder::Unknown)),
        Err(e) => Ok(Some(LockHolder::Unreadable {
            reason: e.to_string(),
        })),
    }
}

fn read_pid_holder(lock_path: &Path) -> Result<Option<LockHolder>, StoreError> {
    let read = crate::read::read_no_follow(lock_path, crate::read::Kind::LockRecord)
        .map(|bytes| bytes.map(|b| String::from_utf8_lossy(&b).into_owned()));
    match read {
        Ok(None) => Ok(None),
        Ok(Some(text)) => Ok(Some(match text.trim().parse::<u32>() {
            Ok(pid) => LockHolder::Pid { pid },
            Err(_) => LockHolder::Unreadable {
                reason: format!("pid file holds {:?}, not a pid", text.trim()),
            },
        })),
        Err(e) => Err(e.into()),
    }
}

/// Who holds the lock of `target`, or `None` when it is not locked.
pub fn inspect(target: &Path, style: &LockStyle) -> Result<Option<LockHolder>, StoreError> {
    let lock_path = style.lock_path(target);
    match style {
        LockStyle::Directory => read_dir_holder(&lock_path),
        LockStyle::PidFile { .. } => read_pid_holder(&lock_path),
    }
}

/// What [`unlock`] removed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnlockOutcome {
    /// The lock that was removed: `<target>.lock`, a folder or a file.
    pub lock_path: PathBuf,
    /// Who held it, as the lock itself said just before removal.
    pub holder: LockHolder,
    /// What planseal could tell about that holder (alive, dead with the reason, or unknown).
    pub status: OwnerStatus,
    /// True when the owner was not provably dead and `force` was given.
    pub forced: bool,
    /// Temp files of the dead owner's interrupted atomic write, removed with its lock.
    pub removed_temp_files: Vec<PathBuf>,
}

/// Removes the lock of `target` when its owner is provably dead, or — with `force` — whatever
/// the owner's state. Refuses with [`StoreError::OwnerNotProvablyDead`] otherwise, and with
/// [`StoreError::NotLocked`] when there is no lock. The caller journals forced removals.
pub fn unlock(target: &Path, style: &LockStyle, force: bool) -> Result<UnlockOutcome, StoreError> {
    let lock_path = style.lock_path(target);
    let Some(holder) = inspect(target, style)? else {
        return Err(StoreError::NotLocked { lock_path });
    };
    let status = owner_status(&holder);
    let dead = matches!(status, OwnerStatus::Dead(_));
    if !dead && !force {
        return Err(StoreError::OwnerNotProvablyDead {
            lock_path,
            holder,
            status,
        });
    }
    // The lock may have changed hands since we looked: remove only what we judged.
    if inspect(target, style)?.as_ref() != Some(&holder) {
        return Err(StoreError::LockPresent {
            lock_path: lock_path.clone(),
            holder: inspect(target, style)?.unwrap_or(LockHolder::Unknown),
        });
    }
    match style {
        LockStyle::Directory => remove_lock_dir(&lock_path)?,
        LockStyle::PidFile { .. } => std::fs::remove_file(&lock_path)
            .map_err(|e| StoreError::io("remove lock file", &lock_path, e))?,
    }
    let removed_temp_files = match &holder {
        LockHolder::Owner(o) if dead => remove_temp_files_of(target, o.pid),
        _ => Vec::new(),
    };
    Ok(UnlockOutcome {
        lock_path,
        holder,
        status,
        forced: !dead,
        removed_temp_files,
    })
}

/// Removes the temp files a dead writer with this pid left beside `target`
/// (`.<name>.<pid>.<token>.tmp`, see [`super::write_atomic`]). Best effort: they are garbage, never
/// read by anyone.
fn remove_temp_files_of(target: &Path, pid: u32) -> Vec<PathBuf> {
    let dir = super::atomic::parent_dir(target);
    let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let prefix = format!(".{name}.{pid}.");
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        if file.starts_with(&prefix)
            && file.ends_with(".tmp")
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed.push(entry.path());
        }
    }
    removed
}

fn remove_lock_dir(lock_path: &Path) -> Result<(), StoreError> {
    if !std::fs::symlink_metadata(lock_path).is_ok_and(|m| m.is_dir()) {
        return std::fs::remove_file(lock_path)
            .map_err(|e| StoreError::io("remove lock", lock_path, e));
    }
    for name in [OWNER_FILE, OWNER_TEMP] {
        let p = lock_path.join(name);
        match std::fs::remove_file(&p) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io("remove", &p, e)),
        }
    }
    if let Err(e) = std::fs::remove_dir(lock_path) {
        let entries: Vec<String> = std::fs::read_dir(lock_path)
            .map(|rd| {
                rd.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        if entries.is_empty() {
            return Err(StoreError::io("remove lock folder", lock_path, e));
        }
        return Err(StoreError::LockNotEmpty {
            lock_path: lock_path.to_path_buf(),
            entries: entries.join(", "),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let t = dir.path().join("state.json");
        std::fs::write(&t, b"{}\n").unwrap();
        (dir, t)
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_lock_appears_with_its_owner_record_and_leaves_no_staging_folder() {
        let (dir, t) = target();
        let g = acquire(&t, &LockStyle::Directory, "op", "tool 1").unwrap();
        // Regression (crash loop, round 90): a kill between mkdir and the owner record used to
        // leave an empty lock directory that only `unlock --force` could clear.
        assert!(g.lock_path().join(OWNER_FILE).is_file());
        assert_eq!(entries(dir.path()), vec!["state.json", "state.json.lock"]);
        assert!(g.release().unwrap());
        assert_eq!(entries(dir.path()), vec!["state.json"]);
    }

    #[test]
    fn an_empty_lock_directory_still_excludes_and_nothing_is_left_behind() {
        let (dir, t) = target();
        std::fs::create_dir(LockStyle::Directory.lock_path(&t)).unwrap();
        let err = acquire(&t, &LockStyle::Directory, "op", "tool 1").unwrap_err();
        assert_eq!(err.kind(), "lock-present");
        assert_eq!(entries(dir.path()), vec!["state.json", "state.json.lock"]);
        assert!(entries(&dir.path().join("state.json.lock")).is_empty());
    }

    #[test]
    fn a_dead_writers_staging_folder_is_cleared_and_a_live_ones_is_kept() {
        let (dir, t) = target();
        let lock = LockStyle::Directory.lock_path(&t);
        let mut dead = LockOwner::for_this_process("op", "tool 1");
        dead.pid = 0x3fff_fff0; // beyond pid_max: never a running process
        let dead_staging = staging_path(&lock, &dead.token);
        std::fs::create_dir(&dead_staging).unwrap();
        std::fs::write(
            dead_staging.join(OWNER_FILE),
            serde_json::to_vec(&dead).unwrap(),
        )
        .unwrap();
        let live = LockOwner::for_this_process("op", "tool 1");
        let live_staging = staging_path(&lock, &live.token);
        std::fs::create_dir(&live_staging).unwrap();
        std::fs::write(
            live_staging.join(OWNER_FILE),
            serde_json::to_vec(&live).unwrap(),
        )
        .unwrap();

        let g = acquire(&t, &LockStyle::Directory, "op", "tool 1").unwrap();
        assert!(!dead_staging.exists());
        assert!(live_staging.exists());
        g.release().unwrap();
        assert_eq!(
            entries(dir.path()).len(),
            2,
            "state.json and the live staging folder"
        );
    }

    #[test]
    fn directory_lock_excludes_and_releases() {
        let (_d, t) = target();
        let g = acquire(&t, &LockStyle::Directory, "op", "tool 1").unwrap();
        let err = acquire(&t, &LockStyle::Directory, "op2", "tool 1").unwrap_err();
        match err {
            StoreError::LockPresent {
                holder: LockHolder::Owner(o),
                ..
            } => {
                assert_eq!(o.pid, std::process::id());
                assert_eq!(o.operation, "op");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(
            owner_status(&inspect(&t, &LockStyle::Directory).unwrap().unwrap()),
            OwnerStatus::Alive
        );
        assert!(g.release().unwrap());
        assert!(!t.with_extension("json.lock").exists());
    }

    #[test]
    fn empty_directory_is_an_unknown_owner_that_needs_force() {
        let (_d, t) = target();
        let lock = LockStyle::Directory.lock_path(&t);
        std::fs::create_dir(&lock).unwrap();
        assert_eq!(
            inspect(&t, &LockStyle::Directory).unwrap(),
            Some(LockHolder::Unknown)
        );
        let err = unlock(&t, &LockStyle::Directory, false).unwrap_err();
        assert_eq!(err.kind(), "lock-owner-alive");
        let out = unlock(&t, &LockStyle::Directory, true).unwrap();
        assert!(out.forced);
        assert!(!lock.exists());
        assert_eq!(
            unlock(&t, &LockStyle::Directory, false).unwrap_err().kind(),
            "not-locked"
        );
    }

    #[test]
    fn dead_owner_is_removed_without_force() {
        let (_d, t) = target();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let lock = LockStyle::Directory.lock_path(&t);
        std::fs::create_dir(&lock).unwrap();
        let mut owner = LockOwner::for_this_process("update", "planseal test");
        owner.pid = pid;
        std::fs::write(lock.join(OWNER_FILE), serde_json::to_vec(&owner).unwrap()).unwrap();
        let out = unlock(&t, &LockStyle::Directory, false).unwrap();
        assert!(!out.forced);
        assert!(matches!(out.status, OwnerStatus::Dead(_)));
        assert!(!lock.exists());
    }

    #[test]
    fn reused_pid_counts_as_dead_and_other_host_as_unknown() {
        let mut owner = LockOwner::for_this_process("update", "t");
        owner.process_start = Some("other-boot:1".to_string());
        assert!(matches!(
            owner_status(&LockHolder::Owner(owner.clone())),
            OwnerStatus::Dead(_)
        ));
        owner.host = "elsewhere.invalid".to_string();
        assert!(matches!(
            owner_status(&LockHolder::Owner(owner)),
            OwnerStatus::Unknown(_)
        ));
    }

    /// Regression: an owner record whose process start time does not parse was judged dead
    /// (it differs from any real start time) although its pid is alive. An unprovable owner is
    /// never dead.
    #[test]
    fn an_unparseable_start_time_with_a_live_pid_is_unknown_not_dead() {
        let mut owner = LockOwner::for_this_process("update", "t");
        for garbage in ["", "yesterday", "boot:abc", "12:34:x"] {
            owner.process_start = Some(garbage.to_string());
            assert!(
                matches!(
                    owner_status(&LockHolder::Owner(owner.clone())),
                    OwnerStatus::Unknown(_)
                ),
                "{garbage:?}"
            );
        }
        owner.process_start = process_start_time(owner.pid);
        assert!(matches!(
            owner_status(&LockHolder::Owner(owner)),
            OwnerStatus::Alive
        ));
    }

    #[test]
    fn pid_file_lock_takes_over_a_dead_pid_and_refuses_a_live_one() {
        let (_d, t) = target();
        let style = LockStyle::PidFile {
            wait: Duration::from_millis(120),
        };
        let lock = style.lock_path(&t);
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        std::fs::write(&lock, dead.to_string()).unwrap();
        let g = acquire(&t, &style, "sync", "t").unwrap();
        assert_eq!(
            std::fs::read_to_string(&lock).unwrap(),
            std::process::id().to_string()
        );
        // Our own live pid holds it now: a second acquire waits, then refuses.
        let err = acquire(&t, &style, "sync", "t").unwrap_err();
        assert_eq!(err.kind(), "lock-present");
        assert!(g.release().unwrap());
        assert!(!lock.exists());
    }
}
