//! A DWP plan's life on one time axis: a lane per task from `started_at` to `completed_at` (or
//! per group of consecutive tasks, for a plan too long to draw one by one), each gate run on its
//! task's lane, the commits git names for each task, and the plan's own events from the journal
//! (publications, crashes, recoveries, approvals, rebuilds), plus reopens, blocks and amendment
//! records on the lanes of their tasks. Pure: it arranges what [`super::gather`] read.

use super::gather::DwpPicture;
use crate::dwp::model::TaskStatus;
use jiff::Timestamp;

/// From this many tasks on, consecutive tasks share a lane, so that no plan draws more lanes.
pub const MAX_LANES: usize = 200;

/// The arranged timeline of one plan.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The axis: from the earliest to the latest instant placed (`None`: no record has a time).
    pub span: Option<(Timestamp, Timestamp)>,
    /// The instant `PLANSEAL_FAKE_NOW` gives, when it lies on the axis.
    pub now: Option<Timestamp>,
    /// How many tasks share a lane (1: one lane per task).
    pub tasks_per_lane: usize,
    /// The lanes, in task order.
    pub lanes: Vec<Lane>,
    /// The commits that name a task, oldest first.
    pub commits: Vec<CommitMark>,
    /// The plan's own events, oldest first.
    pub events: Vec<Event>,
    /// What could not be placed on the axis, one sentence each.
    pub notes: Vec<String>,
}

/// One lane: a task, or a group of consecutive tasks.
#[derive(Debug, Clone, Default)]
pub struct Lane {
    /// The task ids on the lane, in order.
    pub tasks: Vec<u64>,
    /// The task's title (one task per lane only).
    pub title: Option<String>,
    /// The status of the task, or a summary of the group's (`12 completed, 1 in_progress`).
    pub status: String,
    /// The worst status on the lane, for its style: `completed`, `in_progress`, `blocked`,
    /// `skipped`, `pending` or `unknown`.
    pub style: &'static str,
    /// The spans of work on the lane.
    pub bars: Vec<Bar>,
    /// The gate runs recorded for its tasks.
    pub gates: Vec<GateMark>,
    /// Reopens, blocks and amendment records of its tasks.
    pub marks: Vec<TaskMark>,
}

/// One task's span of work.
#[derive(Debug, Clone)]
pub struct Bar {
    /// The task.
    pub task: u64,
    /// `started_at`.
    pub from: Timestamp,
    /// `completed_at`, or where the axis ends for a task still open.
    pub to: Timestamp,
    /// No `completed_at`: the task is still open.
    pub open: bool,
}

/// One recorded gate run.
#[derive(Debug, Clone)]
pub struct GateMark {
    /// The task it belongs to.
    pub task: u64,
    /// `last_run`.
    pub at: Timestamp,
    /// `passes`; `None` when the record does not say.
    pub passes: Option<bool>,
    /// The command, as recorded.
    pub command: String,
    /// The exit code, when recorded.
    pub exit_code: Option<i64>,
}

/// A reopen, a block or an amendment record on a task's lane.
#[derive(Debug, Clone)]
pub struct TaskMark {
    /// The task.
    pub task: u64,
    /// When.
    pub at: Timestamp,
    /// Which.
    pub kind: TaskMarkKind,
    /// What the record says (the reason, the amendment's number and disposition).
    pub text: String,
}

/// What happened to a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskMarkKind {
    /// A completed task moved back (journal).
    Reopened,
    /// The task became blocked (journal).
    Blocked,
    /// An `### Amendment <n> — <date>` record of its log (dated by day).
    Amendment,
}

impl TaskMarkKind {
    /// The word a mark is labelled with.
    pub fn word(self) -> &'static str {
        match self {
            TaskMarkKind::Reopened => "reopened",
            TaskMarkKind::Blocked => "blocked",
            TaskMarkKind::Amendment => "amendment",
        }
    }
}

/// A commit that names a task.
#[derive(Debug, Clone)]
pub struct CommitMark {
    /// Committer time.
    pub at: Timestamp,
    /// The short id.
    pub short: String,
    /// The subject.
    pub subject: String,
    /// The task it names.
    pub task: u64,
    /// It is the task's latest commit (the one that completed it), not an earlier one.
    pub latest: bool,
}

/// An event of the whole plan.
#[derive(Debug, Clone)]
pub struct Event {
    /// When.
    pub at: Timestamp,
    /// Which.
    pub kind: EventKind,
    /// One sentence.
    pub text: String,
}

/// The kinds of plan events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// The plan was created (manifest.json `created_at`).
    Created,
    /// The user approved the plan.
    Approved,
    /// A publication: the completed state and its receipt.
    Published,
    /// A writer died: its lock or marker was left behind.
    Crash,
    /// A recovery: an interrupted publication finished or rolled back, a dead writer's lock
    /// removed, state.json rebuilt.
    Recovery,
    /// Anything else the journal records.
    Other,
}

impl EventKind {
    /// The word an event is labelled with.
    pub fn word(self) -> &'static str {
        match self {
            EventKind::Created => "created",
            EventKind::Approved => "approved",
            EventKind::Published => "published",
            EventKind::Crash => "crash",
            EventKind::Recovery => "recovered",
            EventKind::Other => "journal",
        }
    }
}

fn parse_time(s: &str) -> Option<Timestamp> {
    s.trim().parse::<Timestamp>().ok()
}

fn status_rank(style: &str) -> u8 {
    match style {
        "blocked" => 5,
        "in_progress" => 4,
        "unknown" => 3,
        "pending" => 2,
        "skipped" => 1,
        _ => 0,
    }
}

fn style_of(status: Option<TaskStatus>) -> &'static str {
    match status {
        Some(TaskStatus::Completed) => "completed",
        Some(TaskStatus::InProgress) => "in_progress",
        Some(TaskStatus::Blocked) => "blocked",
        Some(TaskStatus::Skipped) => "skipped",
        Some(TaskStatus::Pending) => "pending",
        _ => "unknown",
    }
}

impl Timeline {
    /// The timeline of one plan; `now` is `PLANSEAL_FAKE_NOW` (the page never reads the real
    /// clock), where an open task's bar ends when it is later than every record.
    pub fn of(plan: &DwpPicture, now: Option<Timestamp>) -> Timeline {
        let mut t = Timeline::default();
        let tasks = plan.state.as_ref().map(|s| &s.tasks[..]).unwrap_or(&[]);
        let n = tasks.len();
        t.tasks_per_lane = if n > MAX_LANES {
            n.div_ceil(MAX_LANES)
        } else {
            1
        };
        let mut lane_of = std::collections::HashMap::new();
        let mut unplaced = 0usize;
        // Open bars end where the axis ends; their end is filled in once the axis is known.
        let mut open: Vec<(usize, usize)> = Vec::new();
        for chunk in tasks.chunks(t.tasks_per_lane.max(1)) {
            let index = t.lanes.len();
            let mut lane = Lane::default();
            let mut counts: Vec<(&'static str, usize)> = Vec::new();
            for task in chunk {
                let id = task.id.unwrap_or(task.index as u64 + 1);
                lane.tasks.push(id);
                lane_of.insert(id, index);
                let style = style_of(task.status);
                match counts.iter_mut().find(|(s, _)| *s == style) {
                    Some((_, c)) => *c += 1,
                    None => counts.push((style, 1)),
                }
                if lane.tasks.len() == 1 || status_rank(style) > status_rank(lane.style) {
                    lane.style = style;
                }
                let started = task.started_at.as_deref().and_then(parse_time);
                let completed = task.completed_at.as_deref().and_then(parse_time);
                match (started, completed) {
                    (Some(from), Some(to)) => lane.bars.push(Bar {
                        task: id,
                        from,
                        to: to.max(from),
                        open: false,
                    }),
                    (Some(from), None) => {
                        open.push((index, lane.bars.len()));
                        lane.bars.push(Bar {
                            task: id,
                            from,
                            to: from,
                            open: true,
                        });
                    }
                    (None, Some(to)) => lane.bars.push(Bar {
                        task: id,
                        from: to,
                        to,
                        open: false,
                    }),
                    (None, None) => {}
                }
                if task.started_at.is_some() && started.is_none()
                    || task.completed_at.is_some() && completed.is_none()
                {
                    unplaced += 1;
                }
                for g in &task.gates {
                    match g.last_run.as_deref().and_then(parse_time) {
                        Some(at) => lane.gates.push(GateMark {
                            task: id,
                            at,
                            passes: g.passes,
                            command: g.command.clone().unwrap_or_default(),
                            exit_code: g.exit_code,
                        }),
                        None => unplaced += 1,
                    }
                }
            }
            lane.status = if chunk.len() == 1 {
                chunk[0]
                    .status_raw
                    .clone()
                    .unwrap_or_else(|| "no status".into())
            } else {
                counts
                    .iter()
                    .map(|(s, c)| format!("{c} {s}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            if chunk.len() == 1 {
                lane.title = chunk[0].title.clone();
            }
            t.lanes.push(lane);
        }
        t.add_commits(plan, &lane_of);
        let journaled = t.add_journal(plan, &lane_of);
        for (task, a) in &plan.amendments {
            let Some(&index) = lane_of.get(task) else {
                continue;
            };
            if journaled.contains(&(*task, u64::from(a.number))) {
                continue;
            }
            let at = a.date.and_then(|d| {
                d.to_zoned(jiff::tz::TimeZone::UTC)
                    .ok()
                    .map(|z| z.timestamp())
            });
            match at {
                Some(at) => t.lanes[index].marks.push(TaskMark {
                    task: *task,
                    at,
                    kind: TaskMarkKind::Amendment,
                    text: format!(
                        "Amendment {} — {}{}",
                        a.number,
                        a.date_raw.trim(),
                        a.disposition()
                            .map(|d| format!(" ({})", d.trim()))
                            .unwrap_or_default()
                    ),
                }),
                None => unplaced += 1,
            }
        }
        if let Some(at) = plan.created_at.as_deref().and_then(parse_time) {
            t.events.push(Event {
                at,
                kind: EventKind::Created,
                text: "plan created (manifest.json created_at)".into(),
            });
        }
        if let Some(at) = plan.marker_started_at.as_deref().and_then(parse_time) {
            t.events.push(Event {
                at,
                kind: EventKind::Crash,
                text: "a publication started here and was interrupted: its marker .finalizing.json is still there (planseal recover finishes it)".into(),
            });
        }
        if plan.journal_torn {
            t.notes.push(
                "the journal's last line was cut short: a writer died while appending it".into(),
            );
        }
        if !plan.journal_bad_lines.is_empty() {
            t.notes.push(format!(
                "journal line(s) {} are not JSON and were skipped",
                plan.journal_bad_lines
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if unplaced > 0 {
            t.notes.push(format!(
                "{unplaced} record(s) carry a time that is not an ISO-8601 instant and are not drawn"
            ));
        }
        t.events.sort_by_key(|e| e.at);
        t.commits.sort_by_key(|c| c.at);
        t.settle_axis(now, &open);
        t
    }

    fn add_commits(&mut self, plan: &DwpPicture, lane_of: &std::collections::HashMap<u64, usize>) {
        let Some(Ok(log)) = &plan.log else {
            return;
        };
        let mut seen = std::collections::HashSet::new();
        for task in &log.tasks {
            if !lane_of.contains_key(&task.task) {
                continue;
            }
            let all = task
                .commit
                .iter()
                .map(|c| (c, true))
                .chain(task.earlier_commits.iter().map(|c| (c, false)));
            for (c, latest) in all {
                let Some(at) = parse_time(&c.committed_at) else {
                    continue;
                };
                if seen.insert((c.id.clone(), task.task)) {
                    self.commits.push(CommitMark {
                        at,
                        short: c.short.clone(),
                        subject: c.subject.clone(),
                        task: task.task,
                        latest,
                    });
                }
            }
        }
    }

    /// The journal's transitions that the state no longer shows (reopens, blocks) on their
    /// tasks' lanes, and its publications, crashes and recoveries as plan events.
    /// Returns the (task, number) of the amendments the journal dates (`amend` lines), which
    /// the task logs' records, dated by day only, need not mark again.
    fn add_journal(
        &mut self,
        plan: &DwpPicture,
        lane_of: &std::collections::HashMap<u64, usize>,
    ) -> std::collections::BTreeSet<(u64, u64)> {
        let mut journaled_amendments = std::collections::BTreeSet::new();
        for line in &plan.journal {
            let Some(at) = line["time"].as_str().and_then(parse_time) else {
                continue;
            };
            let op = line["operation"].as_str().unwrap_or_default();
            let reason = line["reason"]
                .as_str()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            let task = line["task"].as_u64();
            let (from, to) = (line["from"].as_str(), line["to"].as_str());
            let mut task_mark = |kind: TaskMarkKind, text: String| {
                if let Some(&index) = task.and_then(|id| lane_of.get(&id)) {
                    self.lanes[index].marks.push(TaskMark {
                        task: task.unwrap_or_default(),
                        at,
                        kind,
                        text,
                    });
                }
            };
            // Whichever writer moved it (update, amend): a completed task moved back is a reopen.
            if from == Some("completed") && to.is_some_and(|s| s != "completed") {
                task_mark(
                    TaskMarkKind::Reopened,
                    format!("reopened: completed → {}{reason}", to.unwrap_or("?")),
                );
            } else if to == Some("blocked") && from != Some("blocked") {
                task_mark(TaskMarkKind::Blocked, format!("blocked{reason}"));
            }
            if op == "amend" {
                let number = line["amendment"].as_u64();
                if let Some(n) = number {
                    journaled_amendments.insert((task.unwrap_or_default(), n));
                }
                task_mark(
                    TaskMarkKind::Amendment,
                    format!(
                        "Amendment {} recorded (amend)",
                        number.map_or_else(|| "?".to_string(), |n| n.to_string())
                    ),
                );
            }
            let mut event = |kind: EventKind, text: String| {
                self.events.push(Event { at, kind, text });
            };
            match op {
                "update+finalize" | "finalize" | "rebuild+finalize" => {
                    event(EventKind::Published, format!("published ({op}){reason}"))
                }
                "recover" => {
                    event(
                        EventKind::Recovery,
                        "recover finished the interrupted publication".into(),
                    );
                    event(EventKind::Published, "published (by recover)".into());
                }
                "recover --rollback" => event(
                    EventKind::Recovery,
                    "interrupted publication rolled back by recover".into(),
                ),
                "rebuild" | "rebuild --manifest" => event(
                    EventKind::Recovery,
                    format!("{op}: the plan's state regenerated from the markdown and git"),
                ),
                "approve" => event(
                    EventKind::Approved,
                    format!(
                        "approved{}",
                        line["approved_by"]
                            .as_str()
                            .map(|b| format!(" by {b}"))
                            .unwrap_or_default()
                    ),
                ),
                _ if op == "unlock" || op.contains("remove stale lock") => {
                    let holder = &line["holder"];
                    if let Some(since) = holder["acquired_at"].as_str().and_then(parse_time) {
                        self.events.push(Event {
                            at: since,
                            kind: EventKind::Crash,
                            text: format!(
                                "crash: {} (pid {}) took the lock and died holding it",
                                holder["operation"].as_str().unwrap_or("a writer"),
                                holder["pid"]
                                    .as_u64()
                                    .map(|p| p.to_string())
                                    .unwrap_or_else(|| "?".into())
                            ),
                        });
                    }
                    self.events.push(Event {
                        at,
                        kind: EventKind::Recovery,
                        text: format!("{op}: the dead writer's lock removed{reason}"),
                    });
                }
                // A task's own steps: its lane shows them.
                _ if op.starts_with("update") || op == "amend" || op == "task done" => {}
                other => event(EventKind::Other, format!("{other}{reason}")),
            }
        }
        journaled_amendments
    }

    /// The axis from the earliest to the latest instant placed; open bars end at its end, or at
    /// `now` when that is later.
    fn settle_axis(&mut self, now: Option<Timestamp>, open: &[(usize, usize)]) {
        let mut times: Vec<Timestamp> = Vec::new();
        for lane in &self.lanes {
            for b in &lane.bars {
                times.push(b.from);
                times.push(b.to);
            }
            times.extend(lane.gates.iter().map(|g| g.at));
            times.extend(lane.marks.iter().map(|m| m.at));
        }
        times.extend(self.commits.iter().map(|c| c.at));
        times.extend(self.events.iter().map(|e| e.at));
        let (Some(&first), Some(&last)) = (times.iter().min(), times.iter().max()) else {
            return;
        };
        let mut end = last;
        if let Some(now) = now
            && now >= first
            && (now <= last || !open.is_empty())
        {
            end = end.max(now);
            self.now = Some(now);
        }
        for &(lane, bar) in open {
            let b = &mut self.lanes[lane].bars[bar];
            b.to = end.max(b.from);
        }
        // A single instant still gets a visible axis: a minute either side.
        let (first, end) = if first == end {
            (
                first - jiff::SignedDuration::from_secs(60),
                end + jiff::SignedDuration::from_secs(60),
            )
        } else {
            (first, end)
        };
        self.span = Some((first, end));
    }

    /// How many gate runs failed, over every lane.
    pub fn failed_gates(&self) -> usize {
        self.lanes
            .iter()
            .flat_map(|l| &l.gates)
            .filter(|g| g.passes == Some(false))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dwp::model::State;
    use crate::dwp::ops::status::{Counts, PlanView};
    use serde_json::{Value, json};

    fn plan(state: Value, journal: Vec<Value>) -> DwpPicture {
        DwpPicture {
            view: PlanView {
                plan: "PLAN_t".into(),
                path: "p".into(),
                state: "ok",
                unreadable: None,
                status: None,
                counts: Counts::default(),
                current_task: None,
                checkpoint: None,
                blocker: None,
                approval: None,
                lock: None,
                marker: false,
                receipt: "none",
                receipt_changes: Vec::new(),
                attention: Vec::new(),
                next: Vec::new(),
            },
            title: None,
            created_at: None,
            state: Some(State::from_value(&state)),
            diff: Err("no".into()),
            log: None,
            journal,
            journal_torn: false,
            journal_bad_lines: Vec::new(),
            journal_error: None,
            amendments: Vec::new(),
            marker_started_at: None,
        }
    }

    fn task(id: u64, status: &str, start: Option<&str>, end: Option<&str>) -> Value {
        json!({"id": id, "title": format!("T{id}"), "status": status,
               "started_at": start, "completed_at": end, "gates": []})
    }

    #[test]
    fn one_lane_per_task_and_open_bars_end_at_the_axis_end() {
        let state = json!({"tasks": [
            task(1, "completed", Some("2026-01-01T10:00:00Z"), Some("2026-01-01T11:00:00Z")),
            task(2, "in_progress", Some("2026-01-01T11:30:00Z"), None),
            task(3, "pending", None, None),
        ]});
        let t = Timeline::of(&plan(state, Vec::new()), None);
        assert_eq!(t.tasks_per_lane, 1);
        assert_eq!(t.lanes.len(), 3);
        let (first, last) = t.span.expect("an axis");
        assert_eq!(first, "2026-01-01T10:00:00Z".parse::<Timestamp>().unwrap());
        assert_eq!(last, "2026-01-01T11:30:00Z".parse::<Timestamp>().unwrap());
        assert!(t.lanes[1].bars[0].open);
        assert!(t.lanes[2].bars.is_empty());
        // a later PLANSEAL_FAKE_NOW carries the open bar to now
        let now: Timestamp = "2026-01-01T13:00:00Z".parse().unwrap();
        let t = Timeline::of(
            &plan(
                json!({"tasks": [task(1, "in_progress", Some("2026-01-01T11:30:00Z"), None)]}),
                Vec::new(),
            ),
            Some(now),
        );
        assert_eq!(t.lanes[0].bars[0].to, now);
        assert_eq!(t.now, Some(now));
    }

    #[test]
    fn a_long_plan_groups_consecutive_tasks_into_at_most_max_lanes() {
        let tasks: Vec<Value> = (1..=5000)
            .map(|i| {
                task(
                    i,
                    "completed",
                    Some("2026-01-01T10:00:00Z"),
                    Some("2026-01-01T11:00:00Z"),
                )
            })
            .collect();
        let t = Timeline::of(&plan(json!({ "tasks": tasks }), Vec::new()), None);
        assert_eq!(t.tasks_per_lane, 25);
        assert_eq!(t.lanes.len(), MAX_LANES);
        assert_eq!(t.lanes[0].tasks, (1..=25).collect::<Vec<u64>>());
        assert_eq!(t.lanes[0].status, "25 completed");
    }

    #[test]
    fn the_journal_gives_reopens_crashes_recoveries_and_publications() {
        let state = json!({"tasks": [task(1, "completed", Some("2026-01-01T10:00:00Z"), Some("2026-01-01T12:00:00Z"))]});
        let journal = vec![
            json!({"time": "2026-01-01T11:00:00Z", "operation": "update", "task": 1,
                        "from": "completed", "to": "in_progress", "reason": "criterion revised"}),
            json!({"time": "2026-01-01T12:10:00Z", "operation": "recover: remove stale lock",
                        "holder": {"acquired_at": "2026-01-01T12:05:00Z", "operation": "finalize", "pid": 42}}),
            json!({"time": "2026-01-01T12:11:00Z", "operation": "recover", "task": 1}),
            json!({"time": "2026-01-01T12:20:00Z", "operation": "finalize"}),
        ];
        let t = Timeline::of(&plan(state, journal), None);
        let marks = &t.lanes[0].marks;
        assert_eq!(marks.len(), 1);
        assert_eq!(marks[0].kind, TaskMarkKind::Reopened);
        assert!(
            marks[0].text.ends_with("criterion revised"),
            "{}",
            marks[0].text
        );
        let kinds: Vec<EventKind> = t.events.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                EventKind::Crash,
                EventKind::Recovery,
                EventKind::Recovery,
                EventKind::Published,
                EventKind::Published
            ]
        );
        assert!(t.events[0].text.contains("finalize (pid 42)"));
    }

    #[test]
    fn an_amend_line_marks_its_amendment_and_the_reopen_it_backs() {
        let state = json!({"tasks": [task(1, "in_progress", Some("2026-01-01T10:00:00Z"), None)]});
        let journal = vec![
            json!({"time": "2026-01-01T11:00:00Z", "operation": "amend", "task": 1,
                   "from": "completed", "to": "in_progress", "amendment": 1,
                   "reason": "Amendment 1: the criterion was wrong"}),
            json!({"time": "2026-01-01T11:30:00Z", "operation": "task done", "task": 1,
                   "from": "in_progress", "to": "in_progress"}),
        ];
        let t = Timeline::of(&plan(state, journal), None);
        let kinds: Vec<TaskMarkKind> = t.lanes[0].marks.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, [TaskMarkKind::Reopened, TaskMarkKind::Amendment]);
        assert!(t.events.is_empty(), "a task's own steps are no plan event");
    }
}
