//! Named crash points for the crash tests (cargo feature `failpoints`; no-ops otherwise).
//!
//! Configure them with the environment variable `FAILPOINTS`, in the `fail` crate's
//! syntax: `name=action;name=action`, e.g. `FAILPOINTS=store.after_rename=return` or
//! `store.after_temp_write=1*off->return(137)` (crash at the second hit). Any action that
//! "returns" ends the process at once with `_exit` (exit code 137 unless the action carries
//! another number) — no unwinding, no destructors, no lock release: exactly what `kill -9` leaves.
//!
//! Names used by the store: `store.after_lock`, `store.after_recheck`, `store.after_temp_write`,
//! `store.after_rename`, `store.after_journal_append`, `store.before_release`, and inside the lock
//! `store.acquire_after_staging`, `store.release_after_rename`,
//! `store.release_after_record_removal`, `store.unlock_after_rename`, `store.pid_temp_created` (GSD's
//! pid-file temp made, no pid in it yet). Other writers add
//! their own (`finalize.after_marker`, …) by calling [`crash_point`].
//!
//! Fault points ([`io_fault`]) make one system call of the store fail instead, with the errno
//! the action carries: `FAILPOINTS=store.fsync_dir=return(EIO)`, `store.write_temp=return(ENOSPC)`,
//! `store.rename=1*off->return(EACCES)` (the second rename). Names: `store.create_temp`,
//! `store.write_temp`, `store.fsync_temp`, `store.rename`, `store.fsync_dir`, `store.journal_write` (also the first line of a new journal),
//! `store.release_read_owner` (reading the own owner record when the lock is released).

/// Ends the process here when the crash point `name` is armed; does nothing otherwise.
#[inline]
pub fn crash_point(name: &str) {
    #[cfg(feature = "failpoints")]
    {
        configure_once();
        fail::eval(name, |arg| {
            let code = arg
                .and_then(|a| a.trim().parse::<i32>().ok())
                .unwrap_or(137);
            // SAFETY: _exit ends the process immediately; nothing after it runs.
            unsafe { libc::_exit(code) }
        });
    }
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
}

/// The error the fault point `name` is armed with (`return(EIO)`, `return(ENOSPC)`,
/// `return(EACCES)`, `return(EROFS)` or a number; EIO when none is given); `None` when it is
/// not armed, and always in builds without the `failpoints` feature.
#[inline]
pub fn io_fault(name: &str) -> Option<std::io::Error> {
    #[cfg(feature = "failpoints")]
    {
        configure_once();
        fail::eval(name, |arg| {
            let errno = match arg.as_deref().map(str::trim) {
                Some("ENOSPC" | "enospc") => libc::ENOSPC,
                Some("EACCES" | "eacces") => libc::EACCES,
                Some("EROFS" | "erofs") => libc::EROFS,
                Some(n) => n.parse::<i32>().unwrap_or(libc::EIO),
                None => libc::EIO,
            };
            std::io::Error::from_raw_os_error(errno)
        })
    }
    #[cfg(not(feature = "failpoints"))]
    {
        let _ = name;
        None
    }
}

#[cfg(feature = "failpoints")]
fn configure_once() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let Ok(spec) = std::env::var("FAILPOINTS") else {
            return;
        };
        for item in spec.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            if let Some((name, action)) = item.split_once('=') {
                // A malformed action is ignored: this is a test-only switch.
                let _ = fail::cfg(name.trim(), action.trim());
            }
        }
    });
}
