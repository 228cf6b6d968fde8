//! Where planseal gets the time from, and how it writes it.
//!
//! Every timestamp planseal writes comes from a [`Clock`], one [`Clock::now`] call per value, in
//! the order the DWP helper takes them (docs/update.md, "The test clock"). The system clock is
//! the default; tests (and anyone replaying the recorded vectors) set a fixed clock through the
//! environment:
//!
//! - `PLANSEAL_FAKE_NOW=2026-10-05T09:00:00+00:00` — the k-th call (k = 0, 1, …) returns that
//!   instant plus k × `PLANSEAL_FAKE_NOW_STEP_US` microseconds (default 1 250 000, the 1.25 s step
//!   of the vectors' fixed clock);
//! - `PLANSEAL_FAKE_NOW=t0,t1,t2` — a comma-separated list handed out in order; after the last,
//!   the clock keeps stepping from it.
//!
//! Timestamps are written by one function, [`format_utc`], in the shape the file's owner uses
//! ([`TimestampShape`]). Plan files and planseal's own records take Python's
//! `datetime.isoformat()` of a UTC instant: `YYYY-MM-DDTHH:MM:SS+00:00`, or with exactly six
//! fractional digits when the microseconds are not 0 (never `Z`); nanoseconds are cut, not
//! rounded. GSD's `STATE.md` takes JavaScript's `toISOString()` (milliseconds and `Z`), the
//! checkpoint records whole seconds and `Z`.
//!
//! ```
//! use planseal::clock::Clock;
//! let mut c = Clock::fixed("2026-10-05T09:00:00+00:00".parse().unwrap(), 1_250_000);
//! assert_eq!(c.now_iso(), "2026-10-05T09:00:00+00:00");
//! assert_eq!(c.now_iso(), "2026-10-05T09:00:01.250000+00:00");
//! ```

use jiff::{SignedDuration, Timestamp};

/// The environment variable that fixes the clock.
pub const FAKE_NOW_ENV: &str = "PLANSEAL_FAKE_NOW";
/// The step of the fixed clock in microseconds.
pub const FAKE_STEP_ENV: &str = "PLANSEAL_FAKE_NOW_STEP_US";
const DEFAULT_STEP_US: i64 = 1_250_000;

/// A source of instants.
#[derive(Debug, Clone)]
pub struct Clock {
    source: Source,
    calls: usize,
}

#[derive(Debug, Clone)]
enum Source {
    System,
    Sequence {
        values: Vec<Timestamp>,
        step: SignedDuration,
    },
}

impl Default for Clock {
    /// The system clock.
    fn default() -> Self {
        Self::system()
    }
}

/// A clock setting that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error(
    "{var}={value:?}: {reason} (expected an ISO-8601 instant such as 2026-10-05T09:00:00+00:00, or a comma-separated list of them)"
)]
pub struct ClockError {
    /// The environment variable that holds the bad setting (`PLANSEAL_FAKE_NOW` or
    /// `PLANSEAL_FAKE_NOW_STEP_US`).
    pub var: &'static str,
    /// The variable's value, as read.
    pub value: String,
    /// Why the value cannot be used.
    pub reason: String,
}

impl Clock {
    /// The real time.
    pub fn system() -> Self {
        Clock {
            source: Source::System,
            calls: 0,
        }
    }

    /// `start + k × step_us` for the k-th call.
    pub fn fixed(start: Timestamp, step_us: i64) -> Self {
        Self::sequence(vec![start], step_us)
    }

    /// The given instants in order, then stepping on from the last one.
    pub fn sequence(values: Vec<Timestamp>, step_us: i64) -> Self {
        if values.is_empty() {
            return Self::system();
        }
        Clock {
            source: Source::Sequence {
                values,
                step: SignedDuration::from_micros(step_us),
            },
            calls: 0,
        }
    }

    /// The clock the environment asks for: [`FAKE_NOW_ENV`] if set, the system clock otherwise.
    pub fn from_env() -> Result<Self, ClockError> {
        let Some(raw) = std::env::var_os(FAKE_NOW_ENV) else {
            return Ok(Self::system());
        };
        let raw = raw.to_string_lossy().into_owned();
        let step = match std::env::var(FAKE_STEP_ENV) {
            Ok(s) => s.trim().parse::<i64>().map_err(|e| ClockError {
                var: FAKE_STEP_ENV,
                value: s.clone(),
                reason: e.to_string(),
            })?,
            Err(_) => DEFAULT_STEP_US,
        };
        let mut values = Vec::new();
        for part in raw.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            values.push(part.parse::<Timestamp>().map_err(|e| ClockError {
                var: FAKE_NOW_ENV,
                value: raw.clone(),
                reason: e.to_string(),
            })?);
        }
        if values.is_empty() {
            return Err(ClockError {
                var: FAKE_NOW_ENV,
                value: raw,
                reason: "no instant given".to_string(),
            });
        }
        Ok(Self::sequence(values, step))
    }

    /// How many instants were handed out.
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// The next instant.
    pub fn now(&mut self) -> Timestamp {
        let k = self.calls;
        self.calls += 1;
        match &self.source {
            Source::System => Timestamp::now(),
            Source::Sequence { values, step } => match values.get(k) {
                Some(t) => *t,
                None => {
                    let last = values[values.len() - 1];
                    let extra = (k - (values.len() - 1)) as i32;
                    last.checked_add(*step * extra).unwrap_or(last)
                }
            },
        }
    }

    /// The next instant, formatted by [`format_timestamp`].
    pub fn now_iso(&mut self) -> String {
        format_timestamp(self.now())
    }
}

// The one timestamp writer and the shapes it knows. It lives in the recovery crate, which needs
// it for commit times and cannot depend on planseal.
pub use crate::recovery::time::{TimestampShape, format_utc};

/// `YYYY-MM-DDTHH:MM:SS[.ffffff]+00:00` in UTC (Python's `isoformat()` of an aware UTC datetime):
/// [`format_utc`] in [`TimestampShape::PythonIso`].
pub fn format_timestamp(t: Timestamp) -> String {
    format_utc(t, TimestampShape::PythonIso)
}

/// `YYYY-MM-DDTHH:MM:SSZ` in UTC, whole seconds (the checkpoint protocol's spelling):
/// [`format_utc`] in [`TimestampShape::SecondsZ`].
pub fn format_timestamp_seconds_z(t: Timestamp) -> String {
    format_utc(t, TimestampShape::SecondsZ)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_clock_alternates_the_two_shapes() {
        let mut c = Clock::fixed("2026-10-12T13:06:00+00:00".parse().unwrap(), 1_250_000);
        let got: Vec<String> = (0..4).map(|_| c.now_iso()).collect();
        assert_eq!(
            got,
            [
                "2026-10-12T13:06:00+00:00",
                "2026-10-12T13:06:01.250000+00:00",
                "2026-10-12T13:06:02.500000+00:00",
                "2026-10-12T13:06:03.750000+00:00"
            ]
        );
        assert_eq!(c.calls(), 4);
    }

    #[test]
    fn sequence_then_steps_on() {
        let mut c = Clock::sequence(
            vec![
                "2026-01-01T00:00:00Z".parse().unwrap(),
                "2026-01-01T00:00:00.000001Z".parse().unwrap(),
            ],
            1_000_000,
        );
        assert_eq!(c.now_iso(), "2026-01-01T00:00:00+00:00");
        assert_eq!(c.now_iso(), "2026-01-01T00:00:00.000001+00:00");
        assert_eq!(c.now_iso(), "2026-01-01T00:00:01.000001+00:00");
    }

    #[test]
    fn a_fixed_clock_before_1970_steps_in_clock_time() {
        let mut c = Clock::fixed("1969-12-31T23:59:58.5Z".parse().unwrap(), 250_000);
        let got: Vec<String> = (0..3).map(|_| c.now_iso()).collect();
        assert_eq!(
            got,
            [
                "1969-12-31T23:59:58.500000+00:00",
                "1969-12-31T23:59:58.750000+00:00",
                "1969-12-31T23:59:59+00:00"
            ]
        );
    }

    #[test]
    fn other_offsets_are_written_in_utc_and_nanos_truncated() {
        let t: Timestamp = "2026-10-05T11:00:00.123456789+02:00".parse().unwrap();
        assert_eq!(format_timestamp(t), "2026-10-05T09:00:00.123456+00:00");
        assert_eq!(format_timestamp_seconds_z(t), "2026-10-05T09:00:00Z");
    }
}
