//! `--wait`: retry a write that lost a race with another writer, the way git waits on a lock
//! file (`core.lockTimeout`), instead of every caller writing its own retry loop.
//!
//! Only two refusals are worth waiting for, because time alone can clear them:
//! - `lock-present` whose owner is alive or unknown (another process holds the lock now; an
//!   empty lock is what the DWP helper leaves while it runs). A lock whose owner is provably
//!   dead is never waited for: it will not go away, and taking it over is `planseal unlock`'s
//!   decision, not a writer's. It gets one more look, though: a writer that released its lock
//!   and exited between our read of its owner record and the liveness check looks dead too, and
//!   then the second attempt finds the lock gone (or held by someone else).
//! - `state-changed`: the file changed between the writer's read and its lock. The whole
//!   operation runs again from a fresh read, so the change is decided on the new bytes. When the
//!   caller pinned the bytes with `--expected-sha256`, that fresh read refuses with
//!   `stale-snapshot`, which is never retried: the caller's expectation is stale, and only the
//!   caller can decide again.

use crate::report::refusal::{LockOwnerState, Refusal, RefusalKind};
use std::hash::{BuildHasher, Hasher};
use std::time::{Duration, Instant};

/// The default of a bare `--wait`.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// The first pause between attempts; it doubles up to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(2);
/// The longest pause: a writer waits for a lock that is released within this much of its end.
const MAX_PAUSE: Duration = Duration::from_millis(100);

/// Whether waiting and trying again can clear this refusal (see the module comment).
pub fn worth_waiting(refusal: &Refusal) -> bool {
    match refusal.kind {
        RefusalKind::LockPresent => refusal.owner != Some(LockOwnerState::Dead),
        RefusalKind::StateChanged => true,
        _ => false,
    }
}

fn is_dead_lock(refusal: &Refusal) -> bool {
    refusal.kind == RefusalKind::LockPresent && refusal.owner == Some(LockOwnerState::Dead)
}

/// Runs `attempt` until it succeeds, fails with something that is not worth waiting for, or
/// `limit` has passed since the first attempt (then the last refusal is returned as it is).
/// `refusal_of` says which errors are refusals; `on_wait` is called once, with the refusal, before
/// the first pause (the binary says what it waits for). `limit` zero: one attempt, no wait.
pub fn retrying<T, E>(
    limit: Duration,
    mut attempt: impl FnMut() -> Result<T, E>,
    refusal_of: impl for<'e> Fn(&'e E) -> Option<&'e Refusal>,
    mut on_wait: impl FnMut(&Refusal),
) -> Result<T, E> {
    let start = Instant::now();
    let mut pause = FIRST_PAUSE;
    let mut jitter = Jitter::new();
    let mut waited = false;
    let mut last_dead: Option<String> = None;
    loop {
        let err = match attempt() {
            Ok(done) => return Ok(done),
            Err(e) => e,
        };
        let Some(refusal) = refusal_of(&err) else {
            return Err(err);
        };
        if is_dead_lock(refusal) {
            // The same dead owner twice in a row: it is really there.
            if last_dead.as_deref() == Some(refusal.message.as_str()) {
                return Err(err);
            }
            last_dead = Some(refusal.message.clone());
            continue;
        }
        if !worth_waiting(refusal) {
            return Err(err);
        }
        let left = limit.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Err(err);
        }
        if !waited {
            on_wait(refusal);
            waited = true;
        }
        // Half the pause fixed, half random: writers that collided once do not collide again
        // in lock-step.
        let half = pause / 2;
        let sleep = (half + jitter.up_to(half)).min(left);
        std::thread::sleep(sleep);
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// A small pseudo-random source for the jitter, seeded differently in every process and call.
struct Jitter(u64);

impl Jitter {
    fn new() -> Self {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u32(std::process::id());
        Self(h.finish() | 1)
    }

    /// A duration in `0..=max`.
    fn up_to(&mut self, max: Duration) -> Duration {
        // xorshift64
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let nanos = max.as_nanos() as u64;
        Duration::from_nanos(if nanos == 0 { 0 } else { self.0 % (nanos + 1) })
    }
}

/// Reads a `--wait` value: `30s`, `500ms`, `2m`, or a bare number of seconds (`5`, `0.5`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let scale = match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        _ => {
            return Err(format!(
                "`{text}`: the unit must be ms, s or m (e.g. 500ms, 30s, 2m)"
            ));
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration (e.g. 500ms, 30s, 2m)"))?;
    let secs = value * scale;
    if !secs.is_finite() || secs > 24.0 * 3600.0 {
        return Err(format!("`{text}`: at most 24 hours"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn itself(r: &Refusal) -> Option<&Refusal> {
        Some(r)
    }

    fn lock(owner: LockOwnerState) -> Refusal {
        Refusal::new(RefusalKind::LockPresent, "locked").owner(owner)
    }

    #[test]
    fn a_live_or_unknown_lock_and_a_moved_file_are_worth_waiting_for_a_dead_lock_is_not() {
        assert!(worth_waiting(&lock(LockOwnerState::Alive)));
        assert!(worth_waiting(&lock(LockOwnerState::Unknown)));
        assert!(!worth_waiting(&lock(LockOwnerState::Dead)));
        assert!(worth_waiting(&Refusal::new(
            RefusalKind::StateChanged,
            "moved"
        )));
        assert!(!worth_waiting(&Refusal::new(
            RefusalKind::StaleSnapshot,
            "stale"
        )));
        assert!(!worth_waiting(&Refusal::new(
            RefusalKind::UnknownTask,
            "no"
        )));
    }

    #[test]
    fn retrying_stops_at_the_first_success_and_tells_once_that_it_waits() {
        let tries = Cell::new(0);
        let told = Cell::new(0);
        let got: Result<u32, Refusal> = retrying(
            Duration::from_secs(5),
            || {
                tries.set(tries.get() + 1);
                if tries.get() < 4 {
                    Err(lock(LockOwnerState::Alive))
                } else {
                    Ok(7)
                }
            },
            itself,
            |_| told.set(told.get() + 1),
        );
        assert_eq!(got.unwrap(), 7);
        assert_eq!((tries.get(), told.get()), (4, 1));
    }

    #[test]
    fn a_dead_lock_gets_one_more_look_and_a_released_one_lets_the_write_through() {
        // The same dead owner twice: refused after the second look, without waiting.
        let tries = Cell::new(0);
        let got: Result<(), Refusal> = retrying(
            Duration::from_secs(5),
            || {
                tries.set(tries.get() + 1);
                Err(lock(LockOwnerState::Dead))
            },
            itself,
            |_| panic!("a dead owner is not waited for"),
        );
        assert_eq!(got.unwrap_err().owner, Some(LockOwnerState::Dead));
        assert_eq!(tries.get(), 2);
        // A writer that exited right after releasing: the second attempt gets through.
        let tries = Cell::new(0);
        let got: Result<u8, Refusal> = retrying(
            Duration::from_secs(5),
            || {
                tries.set(tries.get() + 1);
                if tries.get() == 1 {
                    Err(lock(LockOwnerState::Dead))
                } else {
                    Ok(1)
                }
            },
            itself,
            |_| panic!("nothing to wait for"),
        );
        assert_eq!(got.unwrap(), 1);
    }

    #[test]
    fn retrying_never_retries_a_stale_snapshot() {
        {
            let refusal = Refusal::new(RefusalKind::StaleSnapshot, "stale");
            let tries = Cell::new(0);
            let got: Result<(), Refusal> = retrying(
                Duration::from_secs(5),
                || {
                    tries.set(tries.get() + 1);
                    Err(refusal.clone())
                },
                itself,
                |_| panic!("nothing to wait for"),
            );
            assert_eq!(got.unwrap_err().kind, refusal.kind);
            assert_eq!(tries.get(), 1);
        }
    }

    #[test]
    fn retrying_gives_up_after_the_limit_with_the_last_refusal() {
        let start = Instant::now();
        let got: Result<(), Refusal> = retrying(
            Duration::from_millis(150),
            || Err(lock(LockOwnerState::Alive)),
            itself,
            |_| {},
        );
        assert_eq!(got.unwrap_err().kind, RefusalKind::LockPresent);
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(150), "{took:?}");
        assert!(took < Duration::from_secs(2), "{took:?}");
    }

    #[test]
    fn a_zero_limit_is_one_attempt() {
        let tries = Cell::new(0);
        let _: Result<(), Refusal> = retrying(
            Duration::ZERO,
            || {
                tries.set(tries.get() + 1);
                Err(lock(LockOwnerState::Alive))
            },
            itself,
            |_| {},
        );
        assert_eq!(tries.get(), 1);
    }

    #[test]
    fn durations_read_as_documented() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("5"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("5h").unwrap_err().contains("unit"));
        assert!(parse_duration("abc").is_err());
        assert!(parse_duration("100000m").unwrap_err().contains("24 hours"));
    }
}
