//! Facts about processes that a lock owner record carries: host name, pid liveness, process start
//! time (to tell a reused pid from the original owner) and a random token; and the verdict on an
//! owner ([`OwnerStatus`]), also for the short owner tag a leftover file's name carries
//! ([`NameTag`]).

use serde::Serialize;
use std::fmt;
use std::io::Read;

/// Whether a lock's (or a leftover file's) owner is still working.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "status", content = "reason", rename_all = "kebab-case")]
pub enum OwnerStatus {
    /// The owner process runs on this machine.
    Alive,
    /// Provably gone: same host, and the pid is not alive or belongs to a newer process.
    Dead(String),
    /// Cannot be decided (empty directory, other host, unreadable record, a running pid whose
    /// start time is not known).
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

/// The owner a leftover's name carries: `<pid>` or `<pid>-<start ticks>` (the process start time
/// in clock ticks since boot, field 22 of `/proc/<pid>/stat`).
///
/// The ticks alone prove death against pid reuse: a running process whose start ticks differ
/// from the recorded ones is not the writer (a process keeps its start time for life, and none
/// outlives a reboot). Equal ticks count as alive, so a coincidence after a reboot only keeps a
/// leftover longer, never removes a live writer's file. A name without ticks (the temp files of
/// `write_atomic` before the ticks were added, `.<file>.<pid>.<token>.tmp`) proves death only when the pid is not running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NameTag {
    /// The process id of the writer that made the leftover.
    pub pid: u32,
    /// Its start time in clock ticks since boot, when the name carries it.
    pub start_ticks: Option<u64>,
}

impl NameTag {
    /// The tag of this process.
    pub fn of_this_process() -> Self {
        static TICKS: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
        let pid = current_pid();
        NameTag {
            pid,
            start_ticks: *TICKS.get_or_init(|| process_start_ticks(pid)),
        }
    }

    /// Reads `<pid>` or `<pid>-<ticks>`; `None` for anything else.
    pub fn parse(text: &str) -> Option<Self> {
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let (pid, ticks) = match text.split_once('-') {
            Some((pid, ticks)) if digits(ticks) => (pid, Some(ticks.parse().ok()?)),
            Some(_) => return None,
            None => (text, None),
        };
        if !digits(pid) {
            return None;
        }
        Some(NameTag {
            pid: pid.parse().ok()?,
            start_ticks: ticks,
        })
    }

    /// Alive, dead (the pid is not running, or runs with other start ticks) or unknown (the pid
    /// runs and its start time is not in the name or cannot be read). A pid is judged on this
    /// machine: names carry no host.
    pub fn status(&self) -> OwnerStatus {
        let pid = self.pid;
        if !pid_alive(pid) {
            return OwnerStatus::Dead(format!("pid {pid} is not running"));
        }
        match (self.start_ticks, process_start_ticks(pid)) {
            (Some(recorded), Some(now)) if recorded != now => OwnerStatus::Dead(format!(
                "pid {pid} now belongs to another process (started at tick {now}, the writer at tick {recorded})"
            )),
            (Some(_), Some(_)) => OwnerStatus::Alive,
            (None, _) => OwnerStatus::Unknown(format!(
                "pid {pid} is running, and the name carries no start time to tell it from the writer"
            )),
            (Some(_), None) => OwnerStatus::Unknown(format!(
                "pid {pid} is running, and its start time cannot be read"
            )),
        }
    }
}

impl fmt::Display for NameTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.start_ticks {
            Some(ticks) => write!(f, "{}-{ticks}", self.pid),
            None => write!(f, "{}", self.pid),
        }
    }
}

/// This machine's host name (`gethostname`), or `"unknown-host"` when it cannot be read.
pub fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for `buf.len()` bytes; gethostname writes at most that many.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return "unknown-host".to_string();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// The id of this process.
pub fn current_pid() -> u32 {
    std::process::id()
}

/// True when a process with this pid exists on this machine (signal 0 delivered, or refused
/// only for lack of permission).
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: kill with signal 0 sends nothing; it only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    if rc == 0 {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// The start time of a process in clock ticks since boot (field 22 of `/proc/<pid>/stat`),
/// prefixed with the boot id so that a reboot also counts as "another process". `None` when
/// `/proc` is not available or the process does not exist.
pub fn process_start_time(pid: u32) -> Option<String> {
    let ticks = process_start_ticks(pid)?;
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    Some(if boot.is_empty() {
        ticks.to_string()
    } else {
        format!("{boot}:{ticks}")
    })
}

/// Field 22 of `/proc/<pid>/stat`: when the process started, in clock ticks since boot.
pub fn process_start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may itself contain spaces or ')'.
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Fields after the name start at field 3 (state); starttime is field 22.
    after_name.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// 16 random bytes as hex, from the kernel's generator; falls back to a hash of time and pid.
pub fn random_token() -> String {
    let mut bytes = [0u8; 16];
    if !fill_random(&mut bytes) {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(current_pid());
        if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
            h.write_u128(d.as_nanos());
        }
        let a = h.finish();
        h.write_u64(a);
        let b = h.finish();
        bytes[..8].copy_from_slice(&a.to_le_bytes());
        bytes[8..].copy_from_slice(&b.to_le_bytes());
    }
    crate::hash::to_hex(&bytes)
}

/// Fills `bytes` from `getrandom(2)` (one call, no file to open and close: a writer takes three
/// tokens), else from `/dev/urandom`; `false` when neither answers.
fn fill_random(bytes: &mut [u8; 16]) -> bool {
    // SAFETY: the kernel writes at most `bytes.len()` bytes into the buffer it is given.
    let got = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if usize::try_from(got) == Ok(bytes.len()) {
        return true;
    }
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(bytes))
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_alive_and_has_a_start_time() {
        assert!(pid_alive(current_pid()));
        let a = process_start_time(current_pid()).expect("Linux test host has /proc");
        assert_eq!(Some(a), process_start_time(current_pid()));
    }

    #[test]
    fn a_finished_child_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!pid_alive(pid));
        assert!(!pid_alive(0));
    }

    #[test]
    fn name_tags_read_back_and_judge_their_owner() {
        let me = NameTag::of_this_process();
        assert_eq!(NameTag::parse(&me.to_string()), Some(me));
        assert_eq!(me.status(), OwnerStatus::Alive);
        let pid_only = NameTag::parse(&current_pid().to_string()).unwrap();
        assert!(matches!(pid_only.status(), OwnerStatus::Unknown(_)));
        let reused = NameTag {
            start_ticks: me.start_ticks.map(|t| t + 1),
            ..me
        };
        assert!(matches!(reused.status(), OwnerStatus::Dead(_)));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let gone = child.id();
        child.wait().unwrap();
        assert!(matches!(
            NameTag::parse(&gone.to_string()).unwrap().status(),
            OwnerStatus::Dead(_)
        ));
        for bad in ["", "-", "12-", "-3", "a1", "1-2-3", "1-x"] {
            assert_eq!(NameTag::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn tokens_differ() {
        let a = random_token();
        assert_eq!(a.len(), 32);
        assert_ne!(a, random_token());
    }
}
