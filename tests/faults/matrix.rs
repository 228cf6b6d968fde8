//! The fault matrix of one writer: count its points, fail each (or a seeded sample), check.

use crate::check::{self, Clean, INVARIANTS};
use crate::fixture::{self, Writer};
use crate::trace::{self, Point, Traced};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The faults of a write-path point; a read point gets only EIO.
pub const FAULTS: &[(&str, &str)] = &[
    ("EIO", "error=EIO"),
    ("ENOSPC", "error=ENOSPC"),
    ("SIGKILL", "signal=KILL"),
];

/// How many read points the default run fails with EIO for update and finalize.
const READ_SAMPLE: usize = 12;
/// The default run's sample of (point, fault) runs for every other writer.
const OTHER_SAMPLE: usize = 50;
/// The sample's seed (fixed: the same points on every run, so a failure reproduces).
pub const SEED: u64 = 0x5eed_13f4;

/// `PLANSEAL_FAULTS_ALL=1` (scripts/faults.sh --all): every point of every writer, every read
/// point included.
pub fn all_points() -> bool {
    std::env::var_os("PLANSEAL_FAULTS_ALL").is_some_and(|v| v == "1")
}

/// A small seeded generator (xorshift64*): the sample is the same on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n.max(1) as u64) as usize
    }
}

/// One faulted run to make.
#[derive(Clone, Debug)]
struct Run {
    point: Point,
    fault: &'static str,
    action: &'static str,
}

/// What a writer's matrix found.
pub struct Report {
    pub writer: &'static str,
    /// Main-thread totals of each syscall in the clean run.
    pub totals: BTreeMap<&'static str, usize>,
    pub write_points: usize,
    pub read_points: usize,
    pub runs: usize,
    /// invariant → (held, failed)
    pub tally: BTreeMap<&'static str, (usize, usize)>,
    /// One line per broken invariant of a run.
    pub failures: Vec<String>,
}

impl Report {
    pub fn failed(&self) -> usize {
        self.tally.values().map(|(_, f)| f).sum()
    }

    pub fn render(&self) -> String {
        let mut s = String::new();
        let points: Vec<String> = self
            .totals
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(
            s,
            "faults: {} — {} write-path points, {} read points; {} runs (points × faults); main-thread calls: {}",
            self.writer,
            self.write_points,
            self.read_points,
            self.runs,
            points.join(", ")
        );
        for inv in INVARIANTS {
            let (held, failed) = self.tally.get(inv).copied().unwrap_or_default();
            let _ = writeln!(s, "  {inv:<14} held {held:>4}  failed {failed:>4}");
        }
        for f in &self.failures {
            let _ = writeln!(s, "  FAIL {f}");
        }
        s
    }
}

/// Counts `writer`'s points on a copy of `template`.
fn count(template: &fixture::Template, writer: &Writer) -> trace::Counted {
    let (_tmp, root) = fixture::copy_of(template);
    let log = root.with_extension("strace");
    let out = trace::run(&root, &writer.args, Traced::Count(&log));
    assert_eq!(
        out.code,
        Some(0),
        "{}: counting run: {}",
        writer.name,
        out.stderr
    );
    let text = std::fs::read_to_string(&log).expect("strace log");
    trace::parse(&text, &root)
}

/// The runs of the matrix: every write point × every fault, reads sampled; a seeded sample of
/// [`OTHER_SAMPLE`] runs for a writer without the full matrix (unless [`all_points`]).
fn plan_runs(writer: &Writer, counted: &trace::Counted) -> Vec<Run> {
    let all = all_points();
    let mut rng = Rng::new(SEED ^ writer.name.len() as u64);
    let mut writes: Vec<Run> = Vec::new();
    for p in &counted.writes {
        for (fault, action) in FAULTS {
            writes.push(Run {
                point: p.clone(),
                fault,
                action,
            });
        }
    }
    let reads: Vec<Run> = counted
        .reads
        .iter()
        .map(|p| Run {
            point: p.clone(),
            fault: "EIO",
            action: "error=EIO",
        })
        .collect();
    if all {
        return writes.into_iter().chain(reads).collect();
    }
    let sample = |mut pool: Vec<Run>, n: usize, rng: &mut Rng| {
        let mut picked = Vec::new();
        while picked.len() < n && !pool.is_empty() {
            picked.push(pool.swap_remove(rng.below(pool.len())));
        }
        picked.sort_by_key(|r: &Run| (r.point.syscall, r.point.when, r.fault));
        picked
    };
    if writer.full_by_default {
        let mut runs = writes;
        runs.extend(sample(reads, READ_SAMPLE, &mut rng));
        runs
    } else {
        sample(
            writes.into_iter().chain(reads).collect(),
            OTHER_SAMPLE,
            &mut rng,
        )
    }
}

/// The whole matrix of `writer`.
pub fn run_matrix(writer: &Writer) -> Report {
    let template = fixture::template(writer.setup);
    let clean: Clean = check::clean_run(&template, writer);
    let counted = count(&template, writer);
    let runs = plan_runs(writer, &counted);
    let mut tally: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for run in &runs {
        let (_tmp, root) = fixture::copy_of(&template);
        let out = trace::run(
            &root,
            &writer.args,
            Traced::Inject {
                syscall: run.point.syscall,
                when: run.point.when,
                action: run.action,
            },
        );
        let broken = check::check(&root, writer, &clean, &out);
        // PLANSEAL_FAULTS_VERBOSE=1: the whole stderr of every run that broke an invariant
        if !broken.is_empty() && std::env::var_os("PLANSEAL_FAULTS_VERBOSE").is_some() {
            eprintln!(
                "--- {} {}#{} {}: exit {:?}\n{}",
                writer.name, run.point.syscall, run.point.when, run.fault, out.code, out.stderr
            );
        }
        for inv in INVARIANTS {
            let entry = tally.entry(inv).or_default();
            if broken.iter().any(|b| b.invariant == *inv) {
                entry.1 += 1;
            } else {
                entry.0 += 1;
            }
        }
        for b in broken {
            failures.push(format!(
                "{} · {}#{} ({}){} · {} · exit {} → {}: {}",
                writer.name,
                run.point.syscall,
                run.point.when,
                run.point.what,
                if run.point.collateral {
                    " [collateral: a worker thread reaches this count too]"
                } else {
                    ""
                },
                run.fault,
                if out.killed {
                    "killed".to_string()
                } else {
                    format!("{:?}", out.code)
                },
                b.invariant,
                b.detail
            ));
        }
    }
    Report {
        writer: writer.name,
        totals: counted.totals,
        write_points: counted.writes.len(),
        read_points: counted.reads.len(),
        runs: runs.len(),
        tally,
        failures,
    }
}
