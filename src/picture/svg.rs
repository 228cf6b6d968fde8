//! The timeline as SVG: a time axis, a row of plan events, a row of commits linked to their
//! tasks, one lane per task (or per group of tasks) with its span of work, its gate runs and its
//! reopens, blocks and amendments, then a legend. Every mark has a shape and a word as well as a
//! colour, and a `<title>` (the hover text: the gate's command, the commit's subject). The same
//! bytes serve inline in the page and as a standalone `.svg` file.

use super::escape::Escaper;
use super::timeline::{EventKind, Lane, TaskMarkKind, Timeline};
use jiff::Timestamp;
use std::fmt::Write;

/// The drawing's width in user units; it scales to the width of the page.
const WIDTH: f64 = 1000.0;
/// Where the plot starts: lane labels and statuses sit left of it.
const PLOT_X0: f64 = 300.0;
/// Where it ends.
const PLOT_X1: f64 = 980.0;
/// The first lane's top.
const LANES_Y0: f64 = 96.0;

/// How the SVG is to be embedded.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// Prefixes every `id` of the drawing, so that several drawings share one page.
    pub id_prefix: &'a str,
    /// A file of its own: the XML namespace and a heading line naming the plan.
    pub standalone: bool,
    /// Where the drawing starts vertically (a standalone file stacks one per plan).
    pub y_offset: f64,
}

/// The drawing's height for `t`: the axis, the event and commit rows, the lanes, the legend.
pub fn height(t: &Timeline, standalone: bool) -> f64 {
    LANES_Y0 + t.lanes.len() as f64 * lane_height(t) + 46.0 + if standalone { 24.0 } else { 0.0 }
}

fn lane_height(t: &Timeline) -> f64 {
    if t.tasks_per_lane > 1 || t.lanes.len() > 60 {
        12.0
    } else {
        20.0
    }
}

/// `x` of an instant on the axis.
fn x_of(span: (Timestamp, Timestamp), at: Timestamp) -> f64 {
    let total = span.1.duration_since(span.0).as_secs_f64();
    let part = at.duration_since(span.0).as_secs_f64();
    let ratio = if total > 0.0 {
        (part / total).clamp(0.0, 1.0)
    } else {
        0.5
    };
    PLOT_X0 + ratio * (PLOT_X1 - PLOT_X0)
}

/// An instant as the drawing labels it: `2026-10-12 13:06 UTC`.
pub fn minute(at: Timestamp) -> String {
    at.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// A tick's label: the first one dated in full, the others by what differs from it (the time of
/// day, with the seconds when the whole axis spans less than ten minutes).
fn tick_label(
    at: Timestamp,
    first: Timestamp,
    total: jiff::SignedDuration,
    is_first: bool,
) -> String {
    let utc = jiff::tz::TimeZone::UTC;
    let clock = if total < jiff::SignedDuration::from_mins(10) {
        "%H:%M:%S"
    } else {
        "%H:%M"
    };
    if is_first {
        return at
            .to_zoned(utc)
            .strftime(&format!("%Y-%m-%d {clock} UTC"))
            .to_string();
    }
    let same_day = at.to_zoned(utc.clone()).date() == first.to_zoned(utc.clone()).date();
    let shape = if same_day {
        clock.to_string()
    } else {
        format!("%m-%d {clock}")
    };
    at.to_zoned(utc).strftime(&shape).to_string()
}

/// An instant in a hover text: to the second.
fn second(at: Timestamp) -> String {
    at.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// One plan's timeline as a `<g>` (standalone: inside its own `<svg>` once the caller wraps
/// it). `name` is the plan's name, shown in a standalone file.
pub fn drawing(t: &Timeline, name: &str, esc: &Escaper, frame: Frame<'_>) -> String {
    let mut out = String::new();
    let p = frame.id_prefix;
    let h = height(t, frame.standalone);
    let lh = lane_height(t);
    let _ = write!(
        out,
        "<g class=\"timeline-body\" transform=\"translate(0 {:.1})\" data-lanes=\"{}\" data-tasks-per-lane=\"{}\">",
        frame.y_offset,
        t.lanes.len(),
        t.tasks_per_lane
    );
    let top = if frame.standalone {
        let _ = write!(
            out,
            "<text class=\"heading\" x=\"8\" y=\"16\">{} — timeline</text>",
            esc.text(name)
        );
        24.0
    } else {
        0.0
    };
    let _ = write!(out, "<g transform=\"translate(0 {top:.1})\">");
    patterns(&mut out, p);
    out.push('\n');
    let Some(span) = t.span else {
        let _ = write!(
            out,
            "<text class=\"empty\" x=\"8\" y=\"40\">No record of this plan carries a time yet: nothing to draw.</text>"
        );
        lanes(&mut out, t, None, esc, lh, p);
        legend(&mut out, t, h - top - 40.0, p);
        out.push_str("</g></g>");
        return out;
    };
    axis(&mut out, t, span, lh);
    events(&mut out, t, span, esc);
    commits(&mut out, t, span, esc, lh);
    lanes(&mut out, t, Some(span), esc, lh, p);
    if let Some(now) = t.now {
        let x = x_of(span, now);
        let bottom = LANES_Y0 + t.lanes.len() as f64 * lh;
        let _ = write!(
            out,
            "<g class=\"now\"><title>now (PLANSEAL_FAKE_NOW): {}</title><line x1=\"{x:.1}\" y1=\"24\" x2=\"{x:.1}\" y2=\"{bottom:.1}\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">now</text></g>",
            second(now),
            bottom + 10.0
        );
    }
    legend(&mut out, t, h - top - 40.0, p);
    out.push_str("</g></g>");
    out
}

/// The hatches that tell open and blocked bars from completed ones without colour.
fn patterns(out: &mut String, p: &str) {
    let _ = write!(
        out,
        "<defs><pattern id=\"{p}-open\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect class=\"hatch-bg\" width=\"6\" height=\"6\"/><line class=\"hatch\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\"/></pattern>\
<pattern id=\"{p}-blocked\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\"><rect class=\"hatch-bg blocked\" width=\"6\" height=\"6\"/><path class=\"hatch\" d=\"M0 0L6 6M6 0L0 6\"/></pattern></defs>"
    );
}

fn axis(out: &mut String, t: &Timeline, span: (Timestamp, Timestamp), lh: f64) {
    let bottom = LANES_Y0 + t.lanes.len() as f64 * lh;
    out.push_str("<g class=\"axis\">");
    let _ = write!(
        out,
        "<line x1=\"{PLOT_X0:.1}\" y1=\"24\" x2=\"{PLOT_X1:.1}\" y2=\"24\"/>"
    );
    let total = span.1.duration_since(span.0);
    for i in 0..=4 {
        let at = span.0 + total / 4 * i;
        let x = x_of(span, at);
        let anchor = match i {
            0 => "start",
            4 => "end",
            _ => "middle",
        };
        let _ = write!(
            out,
            "<line class=\"tick\" x1=\"{x:.1}\" y1=\"20\" x2=\"{x:.1}\" y2=\"{bottom:.1}\"/><text x=\"{x:.1}\" y=\"14\" text-anchor=\"{anchor}\">{}</text>",
            tick_label(at, span.0, total, i == 0)
        );
    }
    let _ = writeln!(
        out,
        "<text class=\"row-label\" x=\"8\" y=\"50\">plan events</text><text class=\"row-label\" x=\"8\" y=\"80\">commits (git)</text></g>"
    );
}

/// The shape of an event, centred on (x, y), and its word.
fn event_shape(kind: EventKind, x: f64, y: f64) -> String {
    match kind {
        // a flag on a pole
        EventKind::Published => format!(
            "<path d=\"M{:.1} {:.1}v12M{:.1} {:.1}h9l-3 3.5 3 3.5h-9z\"/>",
            x,
            y - 6.0,
            x,
            y - 6.0
        ),
        // a lightning bolt
        EventKind::Crash => format!(
            "<path d=\"M{:.1} {:.1}l-5 7h4l-2 6 6-8h-4l2-5z\"/>",
            x + 1.0,
            y - 6.0
        ),
        // a ring with a plus
        EventKind::Recovery => format!(
            "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"5.5\"/><path class=\"inner\" d=\"M{:.1} {y:.1}h7M{x:.1} {:.1}v7\"/>",
            x - 3.5,
            y - 3.5
        ),
        // a triangle pointing up
        EventKind::Approved => format!("<path d=\"M{x:.1} {:.1}l6 10h-12z\"/>", y - 6.0),
        // a tall tick
        EventKind::Created => format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"3\" height=\"12\"/>",
            x - 1.5,
            y - 6.0
        ),
        EventKind::Other => format!("<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3\"/>"),
    }
}

/// The least distance between two event marks, in user units.
const EVENT_GAP: f64 = 13.0;

/// Where each event's mark goes: at its instant, but never closer than [`EVENT_GAP`] to the one
/// before, and the whole run kept inside the plot (events at the same instant sit side by side;
/// the hover text keeps the exact time).
fn event_xs(t: &Timeline, span: (Timestamp, Timestamp)) -> Vec<f64> {
    let mut xs: Vec<f64> = Vec::with_capacity(t.events.len());
    for e in &t.events {
        let x = x_of(span, e.at);
        xs.push(match xs.last() {
            Some(last) => x.max(last + EVENT_GAP),
            None => x,
        });
    }
    let mut limit = PLOT_X1;
    for x in xs.iter_mut().rev() {
        *x = x.min(limit);
        limit = *x - EVENT_GAP;
    }
    xs
}

/// Which event keeps its label when labels would overlap: the publication first, then crashes
/// and recoveries.
fn label_priority(kind: EventKind) -> u8 {
    match kind {
        EventKind::Published => 0,
        EventKind::Crash => 1,
        EventKind::Recovery => 2,
        EventKind::Approved => 3,
        EventKind::Created => 4,
        EventKind::Other => 5,
    }
}

/// Each event's label (x, y, anchor), or `None` where it would overlap another: labels go above
/// the marks or below them, right or left of their mark, the most telling events first. A mark without a label still says what it is by its shape, the legend and its
/// hover text.
fn event_labels(t: &Timeline, xs: &[f64]) -> Vec<Option<(f64, f64, &'static str)>> {
    let mut order: Vec<usize> = (0..t.events.len()).collect();
    order.sort_by_key(|&i| (label_priority(t.events[i].kind), i));
    let mut rows: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    let mut labels = vec![None; t.events.len()];
    for i in order {
        let x = xs[i];
        let width = t.events[i].kind.word().chars().count() as f64 * 5.2;
        let right = (x + 8.0, x + 8.0, "start");
        let left = (x - 8.0 - width, x - 8.0, "end");
        // Right of the mark unless that runs past the plot; then left of it.
        let sides = if x + 8.0 + width > PLOT_X1 + 15.0 {
            [left, right]
        } else {
            [right, left]
        };
        let place = (0..2)
            .flat_map(|r| sides.iter().map(move |side| (r, *side)))
            .find(|(r, (from, _, _))| {
                let to = from + width;
                rows[*r]
                    .iter()
                    .all(|&(a, b)| to + 4.0 < a || *from > b + 4.0)
                    && *from >= 0.0
                    && to <= WIDTH
            });
        if let Some((r, (from, label_x, anchor))) = place {
            rows[r].push((from, from + width));
            labels[i] = Some((label_x, if r == 0 { 38.0 } else { 63.0 }, anchor));
        }
    }
    labels
}

fn events(out: &mut String, t: &Timeline, span: (Timestamp, Timestamp), esc: &Escaper) {
    out.push_str("\n<g class=\"events\">\n");
    let xs = event_xs(t, span);
    let labels = event_labels(t, &xs);
    for ((e, x), label) in t.events.iter().zip(&xs).zip(labels) {
        let word = e.kind.word();
        let text = label
            .map(|(lx, ly, anchor)| {
                format!("<text x=\"{lx:.1}\" y=\"{ly:.1}\" text-anchor=\"{anchor}\">{word}</text>")
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "<g class=\"event event-{word}\"><title>{} — {}</title>{}{text}</g>",
            second(e.at),
            esc.text(&e.text),
            event_shape(e.kind, *x, 46.0)
        );
    }
    out.push_str("</g>\n");
}

fn lane_y(index: usize, lh: f64) -> f64 {
    LANES_Y0 + index as f64 * lh + lh / 2.0
}

fn commits(out: &mut String, t: &Timeline, span: (Timestamp, Timestamp), esc: &Escaper, lh: f64) {
    let lane_index = |task: u64| t.lanes.iter().position(|l| l.tasks.contains(&task));
    out.push_str("<g class=\"commits\">\n");
    let y = 76.0;
    for c in &t.commits {
        let x = x_of(span, c.at);
        let which = if c.latest {
            "completed it"
        } else {
            "an earlier commit"
        };
        let _ = write!(
            out,
            "<g class=\"commit{}\" data-task=\"{}\"><title>commit {} — task {} ({which}) — {}: {}</title>",
            if c.latest { "" } else { " earlier" },
            c.task,
            esc.text(&c.short),
            c.task,
            second(c.at),
            esc.text(&c.subject)
        );
        if let Some(i) = lane_index(c.task).filter(|_| t.tasks_per_lane == 1) {
            let _ = write!(
                out,
                "<line class=\"link\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\"/>",
                y + 5.0,
                lane_y(i, lh)
            );
        }
        let _ = writeln!(out, "<path d=\"M{x:.1} {:.1}l5 5-5 5-5-5z\"/></g>", y - 5.0);
    }
    out.push_str("</g>\n");
}

fn lane_label(lane: &Lane, esc: &Escaper) -> String {
    match (lane.tasks.first(), lane.tasks.last()) {
        (Some(a), Some(b)) if a != b => format!("Tasks {a}–{b}"),
        (Some(a), _) => format!(
            "{a} {}",
            lane.title
                .as_deref()
                .map(|t| esc.short(t, 30))
                .unwrap_or_default()
        ),
        _ => String::new(),
    }
}

fn lanes(
    out: &mut String,
    t: &Timeline,
    span: Option<(Timestamp, Timestamp)>,
    esc: &Escaper,
    lh: f64,
    p: &str,
) {
    let single = t.tasks_per_lane == 1;
    out.push_str("<g class=\"lanes\">\n");
    for (i, lane) in t.lanes.iter().enumerate() {
        let top = LANES_Y0 + i as f64 * lh;
        let mid = top + lh / 2.0;
        let tasks = match (lane.tasks.first(), lane.tasks.last()) {
            (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
            (Some(a), _) => a.to_string(),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "<g class=\"lane lane-{}\" data-task=\"{tasks}\"><title>{} — {}</title><rect class=\"stripe{}\" x=\"0\" y=\"{top:.1}\" width=\"{WIDTH:.0}\" height=\"{lh:.1}\"/>",
            lane.style,
            if single {
                format!(
                    "Task {tasks}{}",
                    lane.title
                        .as_deref()
                        .map(|t| format!(": {}", esc.text(t)))
                        .unwrap_or_default()
                )
            } else {
                format!("Tasks {}", tasks.replace('-', "–"))
            },
            esc.text(&lane.status),
            if i % 2 == 1 { " odd" } else { "" }
        );
        let font = if single { "" } else { " small" };
        let _ = write!(
            out,
            "<text class=\"lane-label{font}\" x=\"8\" y=\"{:.1}\">{}</text><text class=\"lane-status{font}\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            mid + 4.0,
            lane_label(lane, esc),
            PLOT_X0 - 6.0,
            mid + 4.0,
            esc.short(&lane.status, 28)
        );
        if let Some(span) = span {
            lane_marks(out, lane, span, esc, (top, lh), single, p);
        }
        out.push_str("</g>\n");
    }
    out.push_str("</g>\n");
}

fn lane_marks(
    out: &mut String,
    lane: &Lane,
    span: (Timestamp, Timestamp),
    esc: &Escaper,
    (top, lh): (f64, f64),
    single: bool,
    p: &str,
) {
    let mid = top + lh / 2.0;
    let bar_h = lh - 8.0;
    for b in &lane.bars {
        let x0 = x_of(span, b.from);
        let x1 = x_of(span, b.to).max(x0 + 3.0);
        // Open and blocked spans are hatched, so they differ from done ones in shape too.
        let fill = if lane.style == "blocked" && single {
            format!(" style=\"fill:url(#{p}-blocked)\"")
        } else if b.open {
            format!(" style=\"fill:url(#{p}-open)\"")
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<rect class=\"bar{}\"{fill} x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bar_h:.1}\"><title>task {} {} {}{}</title></rect>",
            if b.open { " open" } else { "" },
            top + 4.0,
            x1 - x0,
            b.task,
            second(b.from),
            if b.open { "→ still open" } else { "→" },
            if b.open {
                String::new()
            } else {
                format!(" {}", second(b.to))
            }
        );
    }
    let r = if single { 4.5 } else { 3.0 };
    for g in &lane.gates {
        let x = x_of(span, g.at);
        let (class, word) = match g.passes {
            Some(true) => ("pass", "passed"),
            Some(false) => ("fail", "failed"),
            None => ("unknown", "recorded without passes"),
        };
        let exit = g
            .exit_code
            .map(|c| format!(" (exit {c})"))
            .unwrap_or_default();
        let _ = write!(
            out,
            "<g class=\"gate gate-{class}\" data-task=\"{}\"><title>gate {word}{exit} — task {} — {}: {}</title>",
            g.task,
            g.task,
            second(g.at),
            esc.text(&g.command)
        );
        match g.passes {
            // a ring with a check mark
            Some(true) => {
                let _ = write!(
                    out,
                    "<circle cx=\"{x:.1}\" cy=\"{mid:.1}\" r=\"{r:.1}\"/><path class=\"inner\" d=\"M{:.1} {mid:.1}l{:.1} {:.1} {:.1} -{:.1}\"/>",
                    x - r * 0.55,
                    r * 0.4,
                    r * 0.45,
                    r * 0.75,
                    r * 0.9
                );
            }
            // a square with a cross, and the word
            Some(false) => {
                let _ = write!(
                    out,
                    "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/><path class=\"inner\" d=\"M{:.1} {:.1}l{:.1} {:.1}M{:.1} {:.1}l-{:.1} {:.1}\"/>",
                    x - r,
                    mid - r,
                    2.0 * r,
                    2.0 * r,
                    x - r * 0.6,
                    mid - r * 0.6,
                    r * 1.2,
                    r * 1.2,
                    x + r * 0.6,
                    mid - r * 0.6,
                    r * 1.2,
                    r * 1.2
                );
                if single {
                    let _ = write!(
                        out,
                        "<text class=\"mark-word\" x=\"{:.1}\" y=\"{:.1}\">fail</text>",
                        x - 8.0,
                        top + 2.0
                    );
                }
            }
            None => {
                let _ = write!(
                    out,
                    "<path d=\"M{x:.1} {:.1}l{r:.1} {r:.1}-{r:.1} {r:.1}-{r:.1}-{r:.1}z\"/><text class=\"mark-word\" x=\"{:.1}\" y=\"{:.1}\">?</text>",
                    mid - r,
                    x + r + 1.0,
                    mid + 3.0
                );
            }
        }
        out.push_str("</g>");
    }
    for m in &lane.marks {
        let x = x_of(span, m.at);
        let shape = match m.kind {
            // an arrow pointing back
            TaskMarkKind::Reopened => format!("<path d=\"M{:.1} {mid:.1}l7 -5v10z\"/>", x - 4.0),
            // a stop sign
            TaskMarkKind::Blocked => format!(
                "<path d=\"M{:.1} {:.1}h4l3 3v4l-3 3h-4l-3-3v-4z\"/>",
                x - 2.0,
                mid - 5.0
            ),
            // a page with a folded corner
            TaskMarkKind::Amendment => {
                format!("<path d=\"M{:.1} {:.1}h6l3 3v8h-9z\"/>", x - 4.5, mid - 5.5)
            }
        };
        let word = if single {
            format!(
                "<text class=\"mark-word\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                x + 6.0,
                top + 2.0,
                m.kind.word()
            )
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<g class=\"task-mark mark-{}\" data-task=\"{}\"><title>{} — task {} — {}</title>{shape}{word}</g>",
            m.kind.word(),
            m.task,
            m.kind.word(),
            m.task,
            esc.text(&format!("{}: {}", second(m.at), m.text))
        );
    }
}

/// The key: each shape with its word, so that nothing depends on colour alone.
fn legend(out: &mut String, t: &Timeline, y: f64, p: &str) {
    let y = if t.span.is_none() { y.max(60.0) } else { y };
    let mid = y + 8.0;
    out.push_str("<g class=\"legend\">\n");
    let items: [(&str, String); 9] = [
        (
            "bar",
            format!(
                "<rect class=\"bar\" x=\"8\" y=\"{:.1}\" width=\"22\" height=\"10\"/>",
                mid - 5.0
            ),
        ),
        (
            "bar open",
            format!(
                "<rect class=\"bar open\" style=\"fill:url(#{p}-open)\" x=\"8\" y=\"{:.1}\" width=\"22\" height=\"10\"/>",
                mid - 5.0
            ),
        ),
        (
            "gate gate-pass",
            format!(
                "<circle cx=\"14\" cy=\"{mid:.1}\" r=\"4.5\"/><path class=\"inner\" d=\"M11.5 {mid:.1}l1.8 2 3.4-4\"/>"
            ),
        ),
        (
            "gate gate-fail",
            format!(
                "<rect x=\"9.5\" y=\"{:.1}\" width=\"9\" height=\"9\"/><path class=\"inner\" d=\"M11.3 {:.1}l5.4 5.4M16.7 {:.1}l-5.4 5.4\"/>",
                mid - 4.5,
                mid - 2.7,
                mid - 2.7
            ),
        ),
        (
            "commit",
            format!("<path d=\"M14 {:.1}l5 5-5 5-5-5z\"/>", mid - 5.0),
        ),
        (
            "event event-published",
            event_shape(EventKind::Published, 14.0, mid),
        ),
        (
            "event event-crash",
            event_shape(EventKind::Crash, 14.0, mid),
        ),
        (
            "event event-recovered",
            event_shape(EventKind::Recovery, 14.0, mid),
        ),
        (
            "task-mark mark-reopened",
            format!("<path d=\"M10 {mid:.1}l7 -5v10z\"/>"),
        ),
    ];
    let words = [
        "task done",
        "task open",
        "gate passed",
        "gate failed",
        "commit",
        "published",
        "crash",
        "recovered",
        "reopened, blocked, amendment",
    ];
    for (i, ((class, shape), word)) in items.iter().zip(words).enumerate() {
        let (dx, dy) = ((i % 5) as f64 * 190.0 + 8.0, (i / 5) as f64 * 18.0);
        let _ = writeln!(
            out,
            "<g class=\"{class}\" transform=\"translate({dx:.1} {dy:.1})\">{shape}<text class=\"legend-word\" x=\"36\" y=\"{:.1}\">{word}</text></g>",
            mid + 4.0
        );
    }
    out.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::picture::timeline::Event;

    fn at(s: &str) -> Timestamp {
        s.parse().expect("instant")
    }

    #[test]
    fn events_at_one_instant_sit_side_by_side_inside_the_plot_and_keep_the_telling_labels() {
        let end = at("2026-01-01T12:00:00Z");
        let t = Timeline {
            events: [EventKind::Crash, EventKind::Recovery, EventKind::Published]
                .into_iter()
                .map(|kind| Event {
                    at: end,
                    kind,
                    text: String::new(),
                })
                .collect(),
            ..Timeline::default()
        };
        let span = (at("2026-01-01T10:00:00Z"), end);
        let xs = event_xs(&t, span);
        assert_eq!(xs.last().copied(), Some(PLOT_X1));
        for pair in xs.windows(2) {
            assert!(pair[1] - pair[0] >= EVENT_GAP - 1e-9, "{xs:?}");
        }
        // Two rows of labels hold two of three words this close: the publication's and the
        // crash's are the ones kept.
        let labels = event_labels(&t, &xs);
        assert!(
            labels[2].is_some(),
            "the publication is labelled: {labels:?}"
        );
        assert!(labels[0].is_some(), "the crash is labelled: {labels:?}");
    }

    #[test]
    fn tick_labels_name_the_date_once() {
        let first = at("2026-10-12T12:30:00Z");
        let total = jiff::SignedDuration::from_hours(3);
        assert_eq!(
            tick_label(first, first, total, true),
            "2026-10-12 12:30 UTC"
        );
        assert_eq!(
            tick_label(at("2026-10-12T13:15:00Z"), first, total, false),
            "13:15"
        );
        assert_eq!(
            tick_label(at("2026-10-13T01:00:00Z"), first, total, false),
            "10-13 01:00"
        );
    }
}
