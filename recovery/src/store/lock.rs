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
//!
//! A lock folder never disappears piecemeal: it is first renamed away
//! (`.<file>.lock.<tag>.<token>.released`, see [`super::debris`]), then emptied and removed. A
//! process killed at any moment leaves the live lock or a released folder that the next writer,
//! `unlock` or `recover` removes — never an empty lock folder. Every acquisition sweeps the lock's
//! folder for leftovers of provably dead writers ([`super::debris::sweep`]).

pub use super::debris::{OWNER_FILE, OWNER_TEMP};
pub use super::process::OwnerStatus;

use super::StoreError;
use super::atomic::Durability;
use super::debris::{self, KeptDebris, Sweep};
use super::failpoint::crash_point;
use super::process::{
    NameTag, current_pid, host_name, pid_alive, process_start_time, random_token,
};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
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

/// Crash points: `store.release_after_rename` (the lock renamed away, its record still inside)
/// and `store.release_after_record_removal` (the released folder empty, not yet removed).
fn release_path(lock_path: &Path, style: &LockStyle, me: &LockOwner) -> Result<bool, StoreError> {
    match style {
        LockStyle::Directory => {
            // Our own record that cannot be read (EIO) is a failed release, not someone else's
            // lock: the caller reports it with the `unlock` that finishes it.
            let ours = |path: &Path| -> Result<bool, StoreError> {
                if let Some(e) = super::failpoint::io_fault("store.release_read_owner") {
                    return Err(StoreError::io(
                        "read owner record",
                        path.join(OWNER_FILE),
                        e,
                    ));
                }
                match read_dir_holder(path)? {
                    Some(LockHolder::Owner(o)) => Ok(o.token == me.token),
                    Some(LockHolder::Unreadable { reason }) => Err(StoreError::io(
                        "read owner record",
                        path.join(OWNER_FILE),
                        std::io::Error::other(reason),
                    )),
                    _ => Ok(false),
                }
            };
            if !ours(lock_path)? {
                return Ok(false);
            }
            let released = rename_away(lock_path, &me.token)?;
            crash_point("store.release_after_rename");
            // Forced away and retaken between our look and the rename: give it back.
            if !ours(&released)? {
                let _ = rename_no_replace(&released, lock_path);
                return Ok(false);
            }
            empty_released(&released)?;
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
    // Under the lock: what dead writers left beside it goes now (best effort).
    sweep_lock_folder(&guard.lock_path);
    crash_point("store.after_lock");
    Ok(guard)
}

/// Removes the leftovers of provably dead writers in the folder of `lock_path` (temp files,
/// staging folders, released locks; [`super::debris`]) and lists those it must keep.
pub fn sweep_lock_folder(lock_path: &Path) -> Sweep {
    sweep_folder(&super::atomic::parent_dir(lock_path))
}

/// [`sweep_lock_folder`] for any folder a writer writes into (a plan's `analysis_results/`).
pub fn sweep_folder(dir: &Path) -> Sweep {
    debris::sweep(dir, &|staging| match read_dir_holder(staging) {
        Ok(Some(LockHolder::Unknown)) => {
            OwnerStatus::Unknown("it holds no owner record".to_string())
        }
        Ok(Some(holder)) => owner_status(&holder),
        Ok(None) => OwnerStatus::Alive, // gone meanwhile: nothing to do
        Err(e) => OwnerStatus::Unknown(e.to_string()),
    })
}

/// Renames the lock folder to its released name: from here on it locks nothing.
fn rename_away(lock_path: &Path, token: &str) -> Result<PathBuf, StoreError> {
    let released = debris::released_path(lock_path, &NameTag::of_this_process(), token);
    // The released name is new (it carries a fresh token), so a plain rename is as good where
    // the file system has no RENAME_NOREPLACE.
    rename_no_replace(lock_path, &released)
        .or_else(|e| match e.raw_os_error() {
            Some(libc::EINVAL) | Some(libc::ENOSYS) => std::fs::rename(lock_path, &released),
            _ => Err(e),
        })
        .map_err(|e| StoreError::io("rename lock folder away", lock_path, e))?;
    Ok(released)
}

/// Empties and removes a released lock folder (someone sweeping it first is fine).
fn empty_released(released: &Path) -> Result<(), StoreError> {
    let record = released.join(OWNER_FILE);
    let removed = match super::failpoint::io_fault("store.empty_released") {
        Some(e) => Err(e),
        None => std::fs::remove_file(&record),
    };
    match removed {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(StoreError::io("remove", &record, e)),
    }
    crash_point("store.release_after_record_removal");
    debris::remove_owner_folder(released)
        .map(|_| ())
        .map_err(|e| StoreError::io("remove released lock folder", released, e))
}

/// Takes the lock directory with its owner record already inside: the record is written into a
/// staging directory beside the lock (`<file>.lock.staging-<tag>.<token>`, its name saying which
/// process made it), to a temp file that is fsynced and renamed onto `owner.json`; the staging
/// directory is then renamed onto the lock path with `RENAME_NOREPLACE`. A writer killed at any
/// moment therefore leaves either no lock or a lock whose owner can be proven dead — never the
/// empty directory of an unknown owner, which only `unlock --force` may clear — plus at most a
/// staging folder whose name proves its maker dead. The rename refuses an existing lock (the DWP
/// helper's plain `mkdir` included), so both tools still exclude each other. File systems
/// without `RENAME_NOREPLACE` fall back to `mkdir` + record.
/// Crash point: `store.acquire_after_staging` (staging folder made, no record yet).
fn acquire_dir(lock_path: &Path, owner: &LockOwner) -> Result<(), StoreError> {
    let staging = debris::staging_path(lock_path, &NameTag::of_this_process(), &owner.token);
    std::fs::create_dir(&staging)
        .map_err(|e| StoreError::io("create lock staging folder", &staging, e))?;
    crash_point("store.acquire_after_staging");
    if let Err(e) = write_owner_record(&staging, owner) {
        discard_staging(&staging);
        return Err(e);
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

/// The owner record, whole or not at all: temp file, fsync, rename onto `owner.json`.
fn write_owner_record(folder: &Path, owner: &LockOwner) -> Result<(), StoreError> {
    let temp = folder.join(OWNER_TEMP);
    let record = serde_json::to_vec_pretty(owner)
        .map_err(|e| StoreError::io("serialise owner record", &temp, std::io::Error::other(e)))?;
    super::atomic::create_synced(&temp, &record, Durability::Full)
        .map_err(|e| StoreError::io("write owner record", &temp, e))?;
    std::fs::rename(&temp, folder.join(OWNER_FILE))
        .map_err(|e| StoreError::io("rename owner record in", folder, e))
}

fn discard_staging(staging: &Path) {
    let _ = debris::remove_owner_folder(staging);
}

pub(super) fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
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

/// Puts the file `from` at `to` only when nothing is there yet: `RENAME_NOREPLACE`, or a hard
/// link where the file system has no such rename (then `from` stays behind; the caller removes
/// it). `AlreadyExists` when `to` exists.
pub(super) fn place_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    rename_no_replace(from, to).or_else(|e| match e.raw_os_error() {
        Some(libc::EINVAL) | Some(libc::ENOSYS) => std::fs::hard_link(from, to),
        _ => Err(e),
    })
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
    if let Err(e) = write_owner_record(lock_path, owner) {
        discard_staging(lock_path);
        return Err(e);
    }
    Ok(())
}

/// GSD's pid file, whole or not at all: the pid is written to a temp file beside the lock
/// (`.<file>.lock.<pid>-<ticks>.<token>.tmp`), fsynced, and renamed onto the lock path with
/// `RENAME_NOREPLACE` (a hard link where the file system has no such rename). A writer killed
/// at any moment leaves no lock or a lock holding its pid — never an empty pid file — plus at
/// most a temp file whose name proves its maker dead (swept like every other leftover).
fn acquire_pid_file(lock_path: &Path, pid: u32, wait: Duration) -> Result<(), StoreError> {
    let name = lock_path.file_name().unwrap_or_default().to_string_lossy();
    let temp = super::atomic::temp_path(&super::atomic::parent_dir(lock_path), &name);
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o666)
        .open(&temp)
        .and_then(|mut f| {
            crash_point("store.pid_temp_created");
            f.write_all(pid.to_string().as_bytes())?;
            f.sync_all()
        })
        .map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            StoreError::io("write pid file", &temp, e)
        })?;
    let result = place_pid_file(&temp, lock_path, wait);
    let _ = std::fs::remove_file(&temp); // gone already unless the lock was refused or linked
    result
}

fn place_pid_file(temp: &Path, lock_path: &Path, wait: Duration) -> Result<(), StoreError> {
    let started = Instant::now();
    loop {
        match place_no_replace(temp, lock_path) {
            Ok(()) => return Ok(()),
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
            continue; // released between our rename and our read
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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct UnlockOutcome {
    /// The lock that was removed: `<target>.lock`, a folder or a file.
    pub lock_path: PathBuf,
    /// Who held it, as the lock itself said just before removal.
    pub holder: LockHolder,
    /// What planseal could tell about that holder (alive, dead with the reason, or unknown).
    pub status: OwnerStatus,
    /// True when the owner was not provably dead and `force` was given.
    pub forced: bool,
    /// Leftovers of dead writers removed with the lock: the dead owner's temp files, staging
    /// folders and released locks beside it ([`super::debris`]).
    pub removed_temp_files: Vec<PathBuf>,
    /// Leftovers beside the lock that stay: their owner is not provably dead, or they hold
    /// something no writer puts there.
    pub kept_debris: Vec<KeptDebris>,
    /// The lock was renamed away — it locks nothing any more — but its released folder could not
    /// be emptied: what is left and why. Any later writer, `unlock` or `recover` removes it.
    pub left_behind: Option<KeptDebris>,
}

/// Removes the lock of `target` when its owner is provably dead, or — with `force` — whatever
/// the owner's state, then sweeps the leftovers of dead writers beside it. Everything is checked
/// before anything is removed: refuses with [`StoreError::OwnerNotProvablyDead`],
/// [`StoreError::LockUnexpectedContent`] (the lock folder holds something planseal does not
/// write), [`StoreError::LockPresent`] (the lock changed hands) or [`StoreError::NotLocked`],
/// and then nothing was removed. The lock goes atomically: renamed away first, then emptied.
/// The caller journals forced removals.
/// Crash point: `store.unlock_after_rename` (the lock renamed away, not yet emptied).
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
    let is_folder = std::fs::symlink_metadata(&lock_path).is_ok_and(|m| m.is_dir());
    if *style == LockStyle::Directory && is_folder {
        let odd = debris::unexpected_entries(&lock_path).map_err(|why| {
            StoreError::io("list lock folder", &lock_path, std::io::Error::other(why))
        })?;
        if !odd.is_empty() {
            return Err(StoreError::LockUnexpectedContent {
                lock_path,
                entries: odd.join(", "),
            });
        }
    }
    // The lock may have changed hands since we looked: remove only what we judged.
    let changed_hands = |now: Option<LockHolder>| StoreError::LockPresent {
        lock_path: lock_path.clone(),
        holder: now.unwrap_or(LockHolder::Unknown),
    };
    let now = inspect(target, style)?;
    if !now.as_ref().is_some_and(|h| same_holder(h, &holder)) {
        return Err(changed_hands(now));
    }
    let mut left_behind = None;
    if is_folder && *style == LockStyle::Directory {
        let released = rename_away(&lock_path, &random_token())?;
        crash_point("store.unlock_after_rename");
        let moved = read_dir_holder(&released)?;
        if !moved.as_ref().is_some_and(|h| same_holder(h, &holder)) {
            let _ = rename_no_replace(&released, &lock_path);
            return Err(changed_hands(moved));
        }
        // The rename was the removal: an error emptying the released folder does not bring the
        // lock back, so it is reported as a leftover, never as a failed unlock.
        left_behind = empty_released(&released).err().map(|e| KeptDebris {
            path: released.clone(),
            reason: format!("the released lock could not be emptied ({e})"),
        });
    } else {
        std::fs::remove_file(&lock_path)
            .map_err(|e| StoreError::io("remove lock", &lock_path, e))?;
    }
    let mut removed = match &holder {
        LockHolder::Owner(o) if dead => remove_temp_files_of(target, o.pid),
        _ => Vec::new(),
    };
    let sweep = sweep_lock_folder(&lock_path);
    removed.extend(sweep.removed);
    Ok(UnlockOutcome {
        lock_path,
        holder,
        status,
        forced: !dead,
        removed_temp_files: removed,
        kept_debris: sweep.kept,
        left_behind,
    })
}

/// The same holder, read at two moments (an unreadable record's reason names its path, which
/// the rename changes).
fn same_holder(a: &LockHolder, b: &LockHolder) -> bool {
    match (a, b) {
        (LockHolder::Unreadable { .. }, LockHolder::Unreadable { .. }) => true,
        _ => a == b,
    }
}

/// Removes the temp files the dead lock owner with this pid left of `target`
/// (`.<name>.<pid>-<ticks>.<token>.tmp`, see [`super::write_atomic`]), also when the pid now belongs to
/// another process: only the lock's holder writes `target`, and the lock was the dead owner's.
fn remove_temp_files_of(target: &Path, pid: u32) -> Vec<PathBuf> {
    let dir = super::atomic::parent_dir(target);
    let Some(name) = target.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let ours =
            debris::Debris::from_name(&entry.file_name().to_string_lossy()).is_some_and(|d| {
                matches!(&d.kind, debris::DebrisKind::Temp { file } if *file == name)
                    && d.tag.is_some_and(|t| t.pid == pid)
            });
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if ours && regular && std::fs::remove_file(entry.path()).is_ok() {
            removed.push(entry.path());
        }
    }
    removed
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

    fn legacy_staging(lock: &Path, owner: &LockOwner) -> PathBuf {
        let mut name = lock.file_name().unwrap().to_os_string();
        name.push(format!(".staging-{}", owner.token));
        let staging = lock.with_file_name(name);
        std::fs::create_dir(&staging).unwrap();
        std::fs::write(staging.join(OWNER_FILE), serde_json::to_vec(owner).unwrap()).unwrap();
        staging
    }

    #[test]
    fn a_dead_writers_staging_folder_is_cleared_and_a_live_ones_is_kept() {
        let (dir, t) = target();
        let lock = LockStyle::Directory.lock_path(&t);
        // Beyond pid_max: never a running process.
        let gone = NameTag {
            pid: 0x3fff_fff0,
            start_ticks: Some(1),
        };
        let mut dead = LockOwner::for_this_process("op", "tool 1");
        dead.pid = gone.pid;
        let dead_legacy = legacy_staging(&lock, &dead);
        let dead_empty = debris::staging_path(&lock, &gone, "ab12");
        std::fs::create_dir(&dead_empty).unwrap();
        let live = LockOwner::for_this_process("op", "tool 1");
        let live_legacy = legacy_staging(&lock, &live);
        let live_tagged = debris::staging_path(&lock, &NameTag::of_this_process(), "cd34");
        std::fs::create_dir(&live_tagged).unwrap();

        let g = acquire(&t, &LockStyle::Directory, "op", "tool 1").unwrap();
        assert!(!dead_legacy.exists() && !dead_empty.exists());
        assert!(live_legacy.exists() && live_tagged.exists());
        g.release().unwrap();
        assert_eq!(
            entries(dir.path()).len(),
            3,
            "state.json and the live staging folders"
        );
    }

    #[test]
    fn release_leaves_nothing_and_unlock_refuses_unexpected_content_removing_nothing() {
        let (dir, t) = target();
        let g = acquire(&t, &LockStyle::Directory, "op", "tool 1").unwrap();
        assert!(g.release().unwrap());
        assert_eq!(entries(dir.path()), vec!["state.json"]);

        let lock = LockStyle::Directory.lock_path(&t);
        std::fs::create_dir(&lock).unwrap();
        let mut dead = LockOwner::for_this_process("op", "tool 1");
        dead.pid = 0x3fff_fff0;
        let record = serde_json::to_vec(&dead).unwrap();
        std::fs::write(lock.join(OWNER_FILE), &record).unwrap();
        std::fs::write(lock.join("notes.txt"), b"mine").unwrap();
        let err = unlock(&t, &LockStyle::Directory, false).unwrap_err();
        assert_eq!(err.kind(), "lock-unexpected-content");
        assert_eq!(entries(dir.path()), vec!["state.json", "state.json.lock"]);
        assert_eq!(entries(&lock), vec!["notes.txt", OWNER_FILE]);
        assert_eq!(std::fs::read(lock.join(OWNER_FILE)).unwrap(), record);
        assert_eq!(std::fs::read(lock.join("notes.txt")).unwrap(), b"mine");
        std::fs::remove_file(lock.join("notes.txt")).unwrap();
        let out = unlock(&t, &LockStyle::Directory, false).unwrap();
        assert!(!out.forced);
        assert_eq!(entries(dir.path()), vec!["state.json"]);
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
