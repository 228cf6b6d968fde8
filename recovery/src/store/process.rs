//! Facts about processes that a lock owner record carries: host name, pid liveness, process start
//! time (to tell a reused pid from the original owner) and a random token.

use std::io::Read;

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
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may itself contain spaces or ')'.
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Fields after the name start at field 3 (state); starttime is field 22.
    let ticks = after_name.split_whitespace().nth(22 - 3)?;
    ticks.parse::<u64>().ok()?;
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    Some(if boot.is_empty() {
        ticks.to_string()
    } else {
        format!("{boot}:{ticks}")
    })
}

/// 16 random bytes as hex, from `/dev/urandom`; falls back to a hash of time and pid.
pub fn random_token() -> String {
    let mut bytes = [0u8; 16];
    let ok = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok();
    if !ok {
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
    fn tokens_differ() {
        let a = random_token();
        assert_eq!(a.len(), 32);
        assert_ne!(a, random_token());
    }
}
