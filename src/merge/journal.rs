//! A tracked journal (`analysis_results/STATE_JOURNAL.ndjson`, a `<file>.journal.ndjson` left
//! beside its file): the union of both sides' lines, ordered by their `time`, never a textual
//! conflict. A journal only ever grows, so a line either side holds stays; a line both hold is
//! kept once. The hash chain of the lines (each line's `before_sha256` is the previous one's
//! `after_sha256`) breaks where the branches join: the next planseal writer and `rebuild` see
//! the break and report it, as they report any change planseal did not journal.

use super::{Merged, Sides, later_text};
use std::cmp::Ordering;
use std::collections::HashMap;

/// A journal's complete lines (without their line end) and the unterminated tail a crash may
/// have left.
fn split(text: &str) -> (Vec<&str>, Option<&str>) {
    let mut lines: Vec<&str> = text.split('\n').collect();
    let tail = lines.pop().filter(|t| !t.is_empty());
    let lines = lines
        .into_iter()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    (lines, tail)
}

/// The `time` of a journal line, when it is a JSON object that has one.
fn time_of(line: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    v.get("time")?.as_str().map(str::to_owned)
}

/// The union (see the module comment); `None` when a side is not UTF-8 (merged line by line).
pub fn merge(sides: &Sides<'_>) -> Option<Merged> {
    let ours = std::str::from_utf8(sides.ours).ok()?;
    let theirs = std::str::from_utf8(sides.theirs).ok()?;
    let (ours_lines, ours_tail) = split(ours);
    let (theirs_lines, theirs_tail) = split(theirs);
    // Ours' lines, then each of theirs' that ours does not hold (as often as theirs holds it
    // beyond ours' count).
    let mut left: HashMap<&str, usize> = HashMap::new();
    for l in &ours_lines {
        *left.entry(l).or_default() += 1;
    }
    let mut lines: Vec<&str> = ours_lines.clone();
    for l in theirs_lines {
        match left.get_mut(l) {
            Some(n) if *n > 0 => *n -= 1,
            _ => lines.push(l),
        }
    }
    // Ordered by time; a line without one keeps the time of the line before it in its file.
    let mut keyed: Vec<(Option<String>, usize, &str)> = Vec::with_capacity(lines.len());
    let mut last: Option<String> = None;
    for (i, l) in lines.iter().enumerate() {
        if i == ours_lines.len() {
            last = None;
        }
        if let Some(t) = time_of(l) {
            last = Some(t);
        }
        keyed.push((last.clone(), i, l));
    }
    keyed.sort_by(|a, b| match (&a.0, &b.0) {
        (Some(x), Some(y)) => later_text(x, y).then(a.1.cmp(&b.1)),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    let mut out = String::with_capacity(ours.len() + theirs.len());
    for (_, _, l) in keyed {
        out.push_str(l);
        out.push('\n');
    }
    // A torn tail (a killed append) stays last, as readers expect it; two different ones: the
    // first becomes a whole line that readers skip.
    let mut tails: Vec<&str> = ours_tail.into_iter().collect();
    tails.extend(theirs_tail.filter(|t| Some(*t) != ours_tail));
    out.push_str(&tails.join("\n"));
    Some(Merged::clean(out.into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(time: &str, op: &str) -> String {
        format!("{{\"time\": \"{time}\", \"operation\": \"{op}\"}}\n")
    }

    #[test]
    fn lines_of_both_sides_in_time_order_once() {
        let base = line("2026-10-05T09:00:00+00:00", "a");
        let ours = format!("{base}{}", line("2026-10-05T09:02:00+00:00", "o"));
        let theirs = format!("{base}{}", line("2026-10-05T09:01:00+00:00", "t"));
        let merged = merge(&Sides::texts(&base, &ours, &theirs)).unwrap();
        assert!(merged.is_clean());
        assert_eq!(
            String::from_utf8(merged.bytes).unwrap(),
            format!(
                "{base}{}{}",
                line("2026-10-05T09:01:00+00:00", "t"),
                line("2026-10-05T09:02:00+00:00", "o")
            )
        );
    }

    #[test]
    fn a_torn_tail_stays_last() {
        let ours = format!("{}{{\"time\": \"2026", line("2026-10-05T09:00:00Z", "a"));
        let theirs = line("2026-10-05T09:05:00Z", "b");
        let merged = merge(&Sides {
            base: b"",
            ours: ours.as_bytes(),
            theirs: theirs.as_bytes(),
        })
        .unwrap();
        let text = String::from_utf8(merged.bytes).unwrap();
        assert!(text.ends_with("\n{\"time\": \"2026"), "{text}");
        assert_eq!(text.lines().count(), 3);
    }
}
