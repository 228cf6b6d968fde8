//! The one timestamp writer of the workspace.

/// How a timestamp is spelled. All shapes write the instant in UTC and cut what they do not show
/// (never round), so a time is never written as later than it was.
///
/// This crate holds the one timestamp writer of the workspace, [`format_utc`], because commit
/// times and lock records need it and this crate cannot depend on planseal; planseal's `clock`
/// module re-exports both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimestampShape {
    /// Python's `datetime.isoformat()` of an aware UTC datetime, the DWP helpers' spelling:
    /// `2026-10-05T09:00:00+00:00`, or with exactly six fractional digits when the microseconds
    /// are not 0 (`2026-10-05T09:00:01.250000+00:00`). Never `Z`; nanoseconds are cut.
    PythonIso,
    /// JavaScript's `Date.prototype.toISOString()`, GSD's spelling: always three fractional
    /// digits and `Z` (`2026-10-05T09:00:01.250Z`).
    JsMillisZ,
    /// Whole seconds and `Z` (`2026-10-05T09:00:01Z`), the checkpoint protocol's spelling.
    SecondsZ,
}

/// `t` written in `shape` (see [`TimestampShape`]).
///
/// ```
/// use planseal_recovery::time::{TimestampShape, format_utc};
/// let t: jiff::Timestamp = "2026-10-05T11:00:01.25+02:00".parse().unwrap();
/// assert_eq!(format_utc(t, TimestampShape::PythonIso), "2026-10-05T09:00:01.250000+00:00");
/// assert_eq!(format_utc(t, TimestampShape::JsMillisZ), "2026-10-05T09:00:01.250Z");
/// assert_eq!(format_utc(t, TimestampShape::SecondsZ), "2026-10-05T09:00:01Z");
/// ```
pub fn format_utc(t: jiff::Timestamp, shape: TimestampShape) -> String {
    // The civil time, not the timestamp, carries the fraction: before 1970 the timestamp's
    // sub-second part is negative, the clock time's never is.
    let dt = jiff::tz::TimeZone::UTC.to_datetime(t);
    let pattern = match shape {
        TimestampShape::PythonIso if dt.subsec_nanosecond() < 1_000 => "%Y-%m-%dT%H:%M:%S+00:00",
        // `%.6f` always writes six digits, cut from the nanoseconds.
        TimestampShape::PythonIso => "%Y-%m-%dT%H:%M:%S%.6f+00:00",
        TimestampShape::JsMillisZ => "%Y-%m-%dT%H:%M:%S%.3fZ",
        TimestampShape::SecondsZ => "%Y-%m-%dT%H:%M:%SZ",
    };
    jiff::fmt::strtime::format(pattern, dt).expect(
        "every field of these patterns is in a civil date and time, so formatting cannot fail",
    )
}
