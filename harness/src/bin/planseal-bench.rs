//! `planseal-bench`: the timing runner of scripts/bench/all.sh (docs/performance.md).
//!
//! ```text
//! planseal-bench rounds SPEC_FILE   run the items of SPEC_FILE interleaved, round by round, and
//!                                   print each item's times and each ratio's per-round figures
//! planseal-bench read-tree DIR      read every file under DIR once (the I/O floor of a check)
//! ```
//!
//! Written in Rust so that no interpreter or `date` fork sits inside a timed interval: each timed
//! run is `Instant` around spawn + `wait4`, and `wait4` also gives the child's peak RSS.
//!
//! A spec file is a list of lines (`#` starts a comment; words split on blanks, `'…'` or `"…"`
//! keep blanks inside one word):
//!
//! ```text
//! runs 15                      timed rounds (default 10)
//! warmup 2                     untimed rounds first (default 1)
//! item NAME                    starts an item; the lines below belong to it
//!   dir DIR                    working folder of its commands
//!   stdin FILE                 stdin of its timed commands (default: empty)
//!   expect CODE                the exit code every timed command must give (default 0)
//!   prep ARGV…                 untimed, before every run of the item (repeatable)
//!   run ARGV…                  timed; several run lines are timed one after another, summed
//!   durable-write BYTES DIR    timed in this process: write BYTES to a temporary file in DIR,
//!                              fsync it, rename it over DIR/target, fsync DIR
//! ratio NAME = TERMS : TERMS   per round, the first sum over the second; TERMS is
//!                              `[K*]ITEM` joined by + or - (`finalize : verify + 3*write`)
//! ```
//!
//! Output, tab-separated, times in milliseconds, RSS in KiB (the largest of any timed run):
//! `item NAME min median max max_rss` and `ratio NAME min median max top bottom` (the last two:
//! medians of the two sums over the rounds). Item names must not contain `+`, `-`, `*` or `:`.
//! Exit 2 on a bad spec, or when a command fails or gives another exit code than expected.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "usage: planseal-bench rounds SPEC_FILE | read-tree DIR";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["rounds", spec] => rounds(Path::new(spec)),
        ["read-tree", dir] => read_tree(Path::new(dir)).map(|_| ()),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("planseal-bench: {message}");
            ExitCode::from(2)
        }
    }
}

/// Reads every regular file under `dir` into one reused buffer, as `cat` would, without
/// writing it anywhere. Returns the byte count.
fn read_tree(dir: &Path) -> Result<u64, String> {
    let mut buffer = Vec::with_capacity(1 << 16);
    let mut total = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries =
            fs::read_dir(&folder).map_err(|e| format!("cannot list {}: {e}", folder.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot list {}: {e}", folder.display()))?;
            let kind = entry
                .file_type()
                .map_err(|e| format!("cannot stat {}: {e}", entry.path().display()))?;
            if kind.is_dir() {
                pending.push(entry.path());
            } else if kind.is_file() {
                buffer.clear();
                File::open(entry.path())
                    .and_then(|mut f| f.read_to_end(&mut buffer))
                    .map_err(|e| format!("cannot read {}: {e}", entry.path().display()))?;
                total += buffer.len() as u64;
            }
        }
    }
    Ok(total)
}

/// One timed thing of a spec.
#[derive(Debug, Default)]
struct Item {
    name: String,
    dir: Option<PathBuf>,
    stdin: Option<PathBuf>,
    expect: i32,
    prep: Vec<Vec<String>>,
    run: Vec<Vec<String>>,
    durable_write: Option<(usize, PathBuf)>,
    times: Vec<f64>,
    max_rss_kib: i64,
}

/// `sum of coefficient × item time` over the terms.
type Terms = Vec<(f64, usize)>;

#[derive(Debug)]
struct Ratio {
    name: String,
    numerator: Terms,
    denominator: Terms,
}

#[derive(Debug)]
struct Spec {
    runs: usize,
    warmup: usize,
    items: Vec<Item>,
    ratios: Vec<Ratio>,
}

fn rounds(spec_path: &Path) -> Result<(), String> {
    let text = fs::read_to_string(spec_path)
        .map_err(|e| format!("cannot read the spec {}: {e}", spec_path.display()))?;
    let mut spec = parse_spec(&text).map_err(|e| format!("{}: {e}", spec_path.display()))?;
    for round in 0..spec.warmup + spec.runs {
        for item in &mut spec.items {
            let elapsed = run_item(item)?;
            if round >= spec.warmup {
                item.times.push(elapsed.as_secs_f64() * 1000.0);
            }
        }
    }
    let mut out = std::io::stdout().lock();
    for item in &spec.items {
        let (min, median, max) = summary(&item.times);
        writeln!(
            out,
            "item\t{}\t{min:.3}\t{median:.3}\t{max:.3}\t{}",
            item.name, item.max_rss_kib
        )
        .map_err(|e| e.to_string())?;
    }
    for ratio in &spec.ratios {
        let sum = |terms: &Terms, r: usize| {
            terms
                .iter()
                .map(|(k, i)| k * spec.items[*i].times[r])
                .sum::<f64>()
        };
        let top: Vec<f64> = (0..spec.runs).map(|r| sum(&ratio.numerator, r)).collect();
        let bottom: Vec<f64> = (0..spec.runs).map(|r| sum(&ratio.denominator, r)).collect();
        let per_round: Vec<f64> = top.iter().zip(&bottom).map(|(t, b)| t / b).collect();
        let (min, median, max) = summary(&per_round);
        let (_, top_median, _) = summary(&top);
        let (_, bottom_median, _) = summary(&bottom);
        writeln!(
            out,
            "ratio\t{}\t{min:.3}\t{median:.3}\t{max:.3}\t{top_median:.3}\t{bottom_median:.3}",
            ratio.name
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Min, median (mean of the middle two for an even count) and max.
fn summary(values: &[f64]) -> (f64, f64, f64) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    if n == 0 {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    (sorted[0], median, sorted[n - 1])
}

/// Prepares (untimed) and runs one item; returns the timed part.
fn run_item(item: &mut Item) -> Result<Duration, String> {
    for argv in &item.prep {
        let status = command(argv, item.dir.as_deref(), None)?
            .status()
            .map_err(|e| format!("item {}: cannot start {}: {e}", item.name, argv[0]))?;
        if !status.success() {
            return Err(format!(
                "item {}: prep `{}` failed ({status})",
                item.name,
                argv.join(" ")
            ));
        }
    }
    if let Some((bytes, dir)) = &item.durable_write {
        return durable_write(*bytes, dir).map_err(|e| format!("item {}: {e}", item.name));
    }
    let mut total = Duration::ZERO;
    for argv in &item.run {
        let mut cmd = command(argv, item.dir.as_deref(), item.stdin.as_deref())?;
        let start = Instant::now();
        let child = cmd
            .spawn()
            .map_err(|e| format!("item {}: cannot start {}: {e}", item.name, argv[0]))?;
        let (status, rss_kib) = wait_with_rss(child.id())?;
        total += start.elapsed();
        item.max_rss_kib = item.max_rss_kib.max(rss_kib);
        if status.code() != Some(item.expect) {
            return Err(format!(
                "item {}: `{}` gave {status}, expected exit {} (run it by hand to see why)",
                item.name,
                argv.join(" "),
                item.expect
            ));
        }
    }
    Ok(total)
}

fn command(argv: &[String], dir: Option<&Path>, stdin: Option<&Path>) -> Result<Command, String> {
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    match stdin {
        Some(path) => {
            let file =
                File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
            cmd.stdin(file);
        }
        None => {
            cmd.stdin(Stdio::null());
        }
    }
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    Ok(cmd)
}

/// Reaps the child with `wait4`, which also gives its peak resident set (KiB on Linux).
fn wait_with_rss(pid: u32) -> Result<(ExitStatus, i64), String> {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value for the kernel to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: pid is our own unreaped child; both pointers are to live locals.
        let got = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if got == pid as libc::pid_t {
            return Ok((ExitStatus::from_raw(status), usage.ru_maxrss));
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(format!("wait4 of child {pid}: {error}"));
        }
    }
}

/// The durable replace of one file, as a careful writer does it: temporary file, fsync,
/// rename over the target, fsync of the folder so the rename itself survives a crash.
fn durable_write(bytes: usize, dir: &Path) -> Result<Duration, String> {
    let content = vec![b'x'; bytes];
    let temporary = dir.join(".bench-durable.tmp");
    let target = dir.join("bench-durable.json");
    let start = Instant::now();
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(&temporary)
        .map_err(|e| format!("cannot create {}: {e}", temporary.display()))?;
    file.write_all(&content)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", temporary.display()))?;
    drop(file);
    fs::rename(&temporary, &target)
        .map_err(|e| format!("cannot rename over {}: {e}", target.display()))?;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| format!("cannot fsync the folder {}: {e}", dir.display()))?;
    Ok(start.elapsed())
}

/// Splits a line into words: blanks separate, `'…'` and `"…"` keep their content as is.
fn words(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => current.push(other),
                        None => return Err(format!("unclosed {c} in `{line}`")),
                    }
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        out.push(current);
    }
    Ok(out)
}

fn parse_spec(text: &str) -> Result<Spec, String> {
    let mut spec = Spec {
        runs: 10,
        warmup: 1,
        items: Vec::new(),
        ratios: Vec::new(),
    };
    let mut ratio_lines = Vec::new();
    for (number, raw) in text.lines().enumerate() {
        let line = raw.trim_start();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |m: String| format!("line {}: {m}", number + 1);
        let w = words(line).map_err(at)?;
        let rest = || w[1..].to_vec();
        let number_of = |s: &str| {
            s.parse::<usize>()
                .map_err(|_| at(format!("`{s}` is not a whole number")))
        };
        if w[0] == "ratio" {
            ratio_lines.push((number + 1, w[1..].join(" ")));
            continue;
        }
        if w[0] == "item" {
            let [_, name] = w.as_slice() else {
                return Err(at("`item NAME` takes one name".into()));
            };
            spec.items.push(Item {
                name: name.clone(),
                ..Item::default()
            });
            continue;
        }
        match (w[0].as_str(), w.len()) {
            ("runs", 2) => spec.runs = number_of(&w[1])?,
            ("warmup", 2) => spec.warmup = number_of(&w[1])?,
            (key, _) => {
                let Some(item) = spec.items.last_mut() else {
                    return Err(at(format!("`{key}` outside an item")));
                };
                match (key, w.len()) {
                    ("dir", 2) => item.dir = Some(PathBuf::from(&w[1])),
                    ("stdin", 2) => item.stdin = Some(PathBuf::from(&w[1])),
                    ("expect", 2) => {
                        item.expect = w[1]
                            .parse()
                            .map_err(|_| at(format!("`{}` is not an exit code", w[1])))?
                    }
                    ("prep", n) if n > 1 => item.prep.push(rest()),
                    ("run", n) if n > 1 => item.run.push(rest()),
                    ("durable-write", 3) => {
                        item.durable_write = Some((number_of(&w[1])?, PathBuf::from(&w[2])))
                    }
                    _ => return Err(at(format!("cannot read `{line}`"))),
                }
            }
        }
    }
    if spec.runs == 0 {
        return Err("runs must be at least 1".into());
    }
    for item in &spec.items {
        if item.run.is_empty() == item.durable_write.is_none() {
            return Err(format!(
                "item {} needs either run lines or one durable-write",
                item.name
            ));
        }
    }
    for (number, text) in ratio_lines {
        let at = |m: String| format!("line {number}: {m}");
        let (name, formula) = text
            .split_once('=')
            .ok_or_else(|| at("`ratio NAME = TERMS : TERMS`".into()))?;
        let (top, bottom) = formula
            .split_once(':')
            .ok_or_else(|| at("a ratio needs `:` between its two sums".into()))?;
        spec.ratios.push(Ratio {
            name: name.trim().to_string(),
            numerator: terms(top, &spec.items).map_err(at)?,
            denominator: terms(bottom, &spec.items).map_err(at)?,
        });
    }
    Ok(spec)
}

/// Parses `[K*]ITEM` terms joined by `+` or `-`.
fn terms(text: &str, items: &[Item]) -> Result<Terms, String> {
    let spaced = text.replace('+', " + ").replace('-', " - ");
    let mut out = Vec::new();
    let mut sign = 1.0;
    for token in spaced.split_whitespace() {
        match token {
            "+" => sign = 1.0,
            "-" => sign = -1.0,
            term => {
                let (k, name) = match term.split_once('*') {
                    Some((k, name)) => (
                        k.parse::<f64>()
                            .map_err(|_| format!("`{k}` is not a number"))?,
                        name,
                    ),
                    None => (1.0, term),
                };
                let index = items
                    .iter()
                    .position(|i| i.name == name)
                    .ok_or_else(|| format!("no item named `{name}`"))?;
                out.push((sign * k, index));
                sign = 1.0;
            }
        }
    }
    if out.is_empty() {
        return Err(format!("`{text}` names no item"));
    }
    Ok(out)
}
