//! The invariants checked after every faulted run, and the recovery the product hints at.

use crate::fixture::{self, Writer, is_journal, plan_rel};
use crate::trace::{self, Outcome, Traced};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every invariant, in the order the report lists them.
pub const INVARIANTS: &[&str] = &[
    // every file the command may touch is its old bytes or its new bytes (or absent where it
    // was absent before or after)
    "old-or-new",
    // 0/4 ⇒ the new bytes are in place; 1/3 ⇒ the old bytes; never 2 or another code
    "exit-code",
    // a failure says so on stderr, and names every file it leaves and the command that
    // finishes it
    "message",
    // the hinted `recover` / `unlock` (and running the command again when nothing was applied)
    // succeed and end at the new bytes
    "recovery",
    // nothing beyond the clean run's files is left after the recovery (temp files, locks,
    // staging folders, markers)
    "no-debris",
    // each journal line's `before_sha256` is the previous line's `after_sha256` (per file)
    "journal-chain",
    // after the recovery `verify` finds exactly what it finds after a clean run
    "verifies",
];

/// A file or folder of the workspace (outside `.git`), its bytes with the workspace's
/// absolute path replaced (journals record absolute paths).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    File(Vec<u8>),
    Dir,
}

pub type Snapshot = BTreeMap<PathBuf, Entry>;

pub fn snapshot(root: &Path) -> Snapshot {
    let needle = root.to_string_lossy().into_owned();
    let mut out = Snapshot::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if rel == Path::new(".git") {
                continue;
            }
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                out.insert(rel, Entry::Dir);
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap_or_default();
                let text = String::from_utf8_lossy(&bytes);
                let bytes = if text.contains(&needle) {
                    text.replace(&needle, "@ROOT@").into_bytes()
                } else {
                    bytes
                };
                out.insert(rel, Entry::File(bytes));
            }
        }
    }
    out
}

/// What the clean run of a writer gives.
pub struct Clean {
    pub old: Snapshot,
    pub new: Snapshot,
    pub verify_fails: Vec<String>,
}

/// One broken invariant.
#[derive(Clone, Debug)]
pub struct Broken {
    pub invariant: &'static str,
    pub detail: String,
}

/// Paths whose state differs from `want` (a path absent from `want` must be absent), limited to
/// `paths`; journals skipped when `skip_journals`.
fn differing(
    now: &Snapshot,
    want: &Snapshot,
    paths: &BTreeSet<PathBuf>,
    skip_journals: bool,
) -> Vec<PathBuf> {
    paths
        .iter()
        .filter(|p| !(skip_journals && is_journal(p)))
        .filter(|p| now.get(*p) != want.get(*p))
        .cloned()
        .collect()
}

fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs the invariants on `root` after `out`, recovers as hinted and checks again.
pub fn check(root: &Path, writer: &Writer, clean: &Clean, out: &Outcome) -> Vec<Broken> {
    let mut broken = Vec::new();
    let mut fail = |invariant: &'static str, detail: String| {
        broken.push(Broken { invariant, detail });
    };
    let now = snapshot(root);
    // every path of the clean run, before or after (an untouched one must stay as it was)
    let touched: BTreeSet<PathBuf> = clean.old.keys().chain(clean.new.keys()).cloned().collect();
    let leftovers: Vec<PathBuf> = now
        .keys()
        .filter(|p| !touched.contains(*p))
        .cloned()
        .collect();

    // old or new, file by file
    let torn: Vec<PathBuf> = touched
        .iter()
        .filter(|p| now.get(*p) != clean.old.get(*p) && now.get(*p) != clean.new.get(*p))
        .filter(|p| !(is_journal(p) && journal_between(&now, clean, p, line_unconfirmed(out))))
        .filter(|p| !is_lock(p))
        .cloned()
        .collect();
    if !torn.is_empty() {
        fail(
            "old-or-new",
            format!("neither old nor new: {}", names(&torn)),
        );
    }

    // the exit code
    let not_new = differing(&now, &clean.new, &touched, false);
    let not_new_but_journals = differing(&now, &clean.new, &touched, true);
    let not_old = differing(&now, &clean.old, &touched, false);
    let state = if not_old.is_empty() {
        "nothing applied".to_string()
    } else if not_new_but_journals.is_empty() {
        format!("applied (not the old bytes: {})", names(&not_old))
    } else {
        format!("partly applied: {}", names(&not_old))
    };
    match out.code {
        _ if out.killed => {}
        Some(0) if !not_new.is_empty() => fail(
            "exit-code",
            format!("exit 0 but not the new bytes: {}", names(&not_new)),
        ),
        // applied or committed to be applied: not-yet-new only with the command that finishes it
        Some(4) if !not_new_but_journals.is_empty() && hinted_steps(root, out).is_empty() => fail(
            "exit-code",
            format!(
                "exit 4 but not the new bytes and no `planseal recover`/`planseal unlock` named: {}",
                names(&not_new_but_journals)
            ),
        ),
        Some(1) | Some(3) if !not_old.is_empty() => {
            fail("exit-code", format!("exit {:?} but {state}", out.code))
        }
        Some(0) | Some(1) | Some(3) | Some(4) => {}
        other => fail(
            "exit-code",
            format!(
                "exit {other:?} is no writer outcome ({state}): {}",
                first_line(out)
            ),
        ),
    }

    // the message
    if !out.killed && out.code != Some(0) {
        if out.stderr.trim().is_empty() {
            fail(
                "message",
                format!("exit {:?} with nothing on stderr", out.code),
            );
        } else if out.code == Some(3) && !out.stderr.contains("nothing was applied") {
            fail(
                "message",
                format!(
                    "exit 3 without \"nothing was applied\": {}",
                    first_line(out)
                ),
            );
        }
        if !out.stderr.trim().is_empty() && !leftovers.is_empty() {
            // a leftover inside a folder the message names counts as named
            let unnamed: Vec<PathBuf> = leftovers
                .iter()
                .filter(|p| {
                    !p.ancestors()
                        .filter_map(Path::file_name)
                        .any(|base| out.stderr.contains(base.to_string_lossy().as_ref()))
                })
                .cloned()
                .collect();
            if !unnamed.is_empty() {
                fail(
                    "message",
                    format!("leaves {} unnamed: {}", names(&unnamed), first_line(out)),
                );
            }
            let hints = ["planseal recover", "planseal unlock"];
            if !hints.iter().any(|h| out.stderr.contains(h)) {
                fail(
                    "message",
                    format!(
                        "leaves {} and names no command that finishes it: {}",
                        names(&leftovers),
                        first_line(out)
                    ),
                );
            }
        }
    }
    if out.code == Some(0) && !leftovers.is_empty() {
        fail(
            "no-debris",
            format!("exit 0 but left {}", names(&leftovers)),
        );
    }
    if let Some(bad) = broken_chain(&now) {
        fail("journal-chain", format!("after the run: {bad}"));
    }

    // the hinted recovery: every `planseal recover …`/`planseal unlock …` the message names,
    // then `recover` for a marker and `unlock` for a lock that are still there
    let hinted = hinted_steps(root, out);
    let mut steps = hinted.clone();
    let plan = root.join(plan_rel());
    if plan.join(".finalizing.json").exists() {
        steps.push(vec!["recover".to_string(), plan_rel()]);
    }
    // a lock the clean run does not end with, also where the run started with one (recover
    // takes over the dead finalizer's lock path)
    let locks_left: Vec<PathBuf> = now
        .keys()
        .filter(|p| p.to_string_lossy().ends_with(".lock") && !clean.new.contains_key(*p))
        .cloned()
        .collect();
    let leftover_locks = leftovers.iter().filter_map(|p| lock_of_leftover(p));
    for lock in leftover_locks.chain(locks_left) {
        let step = vec!["unlock".to_string(), lock.display().to_string()];
        if !steps.contains(&step) {
            steps.push(step);
        }
    }
    for (i, step) in steps.iter().enumerate() {
        let named = i < hinted.len();
        // a marker or lock the named commands already cleared needs no step of its own
        // (a lock's released or staging folder without the lock still gets its `unlock`)
        let cleared = match step[0].as_str() {
            "recover" => !plan.join(".finalizing.json").exists(),
            _ => {
                !root.join(&step[1]).exists()
                    && !leftovers_now(root)
                        .iter()
                        .any(|p| lock_of_leftover(p).is_some_and(|l| l == Path::new(&step[1])))
            }
        };
        if !named && cleared {
            continue;
        }
        let r = trace::run(root, step, Traced::Plain);
        if r.code != Some(0) {
            fail(
                "recovery",
                format!(
                    "`planseal {}` exits {:?}: {}",
                    step.join(" "),
                    r.code,
                    first_line(&r)
                ),
            );
        }
    }
    // running it again is the recovery only when nothing was applied (exit 1/3, or killed)
    let applied = matches!(out.code, Some(0) | Some(4)) && !out.killed;
    if !applied && !differing(&snapshot(root), &clean.new, &touched, true).is_empty() {
        let r = trace::run(root, &writer.args, Traced::Plain);
        if r.code != Some(0) {
            fail(
                "recovery",
                format!("running it again exits {:?}: {}", r.code, first_line(&r)),
            );
        }
    }
    let after = snapshot(root);
    let wrong = differing(&after, &clean.new, &touched, true);
    if !wrong.is_empty() {
        fail(
            "recovery",
            format!("after the recovery not the new bytes: {}", names(&wrong)),
        );
    }
    let debris: Vec<PathBuf> = after
        .keys()
        .filter(|p| !clean.new.contains_key(*p))
        .cloned()
        .collect();
    if !debris.is_empty() {
        fail(
            "no-debris",
            format!("after the recovery: {}", names(&debris)),
        );
    }
    if let Some(bad) = broken_chain(&after) {
        fail("journal-chain", format!("after the recovery: {bad}"));
    }
    let fails = verify_fails(root);
    if fails != clean.verify_fails {
        fail(
            "verifies",
            format!(
                "verify fails {fails:?} (a clean run: {:?})",
                clean.verify_fails
            ),
        );
    }
    broken
}

/// The lock a leftover belongs to: the lock itself (`X.lock`), its released folder
/// (`.X.lock.<tag>.<token>.released`) or its staging folder (`X.lock.staging-<tag>.<token>`).
/// `planseal unlock X.lock` is what clears each of them once its writer is dead.
fn lock_of_leftover(p: &Path) -> Option<PathBuf> {
    let name = p.file_name()?.to_string_lossy().into_owned();
    let lock = if name.ends_with(".lock") {
        name
    } else if let Some(rest) = name
        .strip_prefix('.')
        .filter(|_| name.ends_with(".released"))
    {
        rest[..rest.find(".lock.")? + ".lock".len()].to_string()
    } else {
        name[..name.find(".lock.staging-")? + ".lock".len()].to_string()
    };
    Some(p.with_file_name(lock))
}

/// The locks and lock folders in the workspace now (relative paths).
fn leftovers_now(root: &Path) -> Vec<PathBuf> {
    snapshot(root).into_keys().collect()
}

/// The `planseal recover ARG` / `planseal unlock [--flag…] ARG` commands stderr names, as
/// argument vectors (an absolute path in the workspace made relative to it).
fn hinted_steps(root: &Path, out: &Outcome) -> Vec<Vec<String>> {
    let trim = |w: &str| {
        w.trim_matches(|c: char| "`'\"(),;:".contains(c))
            .trim_end_matches('.')
            .to_string()
    };
    let words: Vec<String> = out.stderr.split_whitespace().map(trim).collect();
    let mut steps: Vec<Vec<String>> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if w != "planseal" {
            continue;
        }
        let Some(cmd) = words
            .get(i + 1)
            .filter(|c| *c == "recover" || *c == "unlock")
        else {
            continue;
        };
        let mut step = vec![cmd.clone()];
        for arg in &words[i + 2..] {
            let arg = match Path::new(arg).strip_prefix(root) {
                Ok(rel) => rel.display().to_string(),
                Err(_) => arg.clone(),
            };
            let flag = arg.starts_with('-');
            step.push(arg);
            if !flag {
                break;
            }
        }
        // `planseal unlock FILE` with the placeholder FILE is an explanation, not a command
        let placeholder = step
            .last()
            .is_some_and(|a| a.chars().all(|c| c.is_ascii_uppercase()));
        if step.len() > 1 && !placeholder && !steps.contains(&step) {
            steps.push(step);
        }
    }
    steps
}

/// A journal is append-only: a writer of several steps (rebuild: its own line, then the
/// publication's) may stop between them, so any whole-line prefix of the new journal that
/// extends the old one is "old or new" too; whether its lines are true is the chain's check.
fn journal_between(now: &Snapshot, clean: &Clean, path: &Path, may_miss_lines: bool) -> bool {
    let bytes = |s: &Snapshot| match s.get(path) {
        Some(Entry::File(b)) => b.clone(),
        _ => Vec::new(),
    };
    let (now, old, new) = (bytes(now), bytes(&clean.old), bytes(&clean.new));
    if !now.starts_with(&old) || !(now.is_empty() || now.ends_with(b"\n")) {
        return false;
    }
    if new.starts_with(&now) {
        return true;
    }
    // A writer that said a journal line was not written (exit 4, `journal-line`) may be missing
    // that line and still have written a later one: the lines it has are the clean run's, in order.
    may_miss_lines && {
        let mut wanted = new[old.len().min(new.len())..].split_inclusive(|&b| b == b'\n');
        now[old.len()..]
            .split_inclusive(|&b| b == b'\n')
            .all(|line| wanted.any(|w| w == line))
    }
}

/// A lock and what is inside it are no content: which owner holds it is the no-debris and the
/// recovery invariants' business (a killed `recover` leaves its own lock where the dead
/// finalizer's was — neither the old lock nor none, and rightly so).
fn is_lock(path: &Path) -> bool {
    path.components()
        .any(|c| c.as_os_str().to_string_lossy().ends_with(".lock"))
}

/// Whether the writer reported one of its journal lines as not written (`applied-unconfirmed`).
fn line_unconfirmed(out: &Outcome) -> bool {
    out.code == Some(4) && out.stderr.contains("journal line")
}

fn first_line(out: &Outcome) -> String {
    let text = if out.stderr.trim().is_empty() {
        &out.stdout
    } else {
        &out.stderr
    };
    text.lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(160)
        .collect()
}

/// The failing finding ids of `verify --json` (sorted), or its exit code when it prints none.
pub fn verify_fails(root: &Path) -> Vec<String> {
    let r = trace::run(root, &["--json".into(), "verify".into()], Traced::Plain);
    let Ok(doc) = serde_json::from_str::<Value>(&r.stdout) else {
        return vec![format!("verify exit {:?}: {}", r.code, first_line(&r))];
    };
    let mut ids: Vec<String> = doc["sections"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["findings"].as_array().into_iter().flatten())
        .filter(|f| f["severity"] == "fail")
        .filter_map(|f| f["id"].as_str().map(str::to_string))
        .collect();
    ids.sort();
    ids.dedup();
    ids.insert(
        0,
        format!("verdict {}", doc["verdict"].as_str().unwrap_or("?")),
    );
    ids
}

/// The first break of a journal's chain, if any: a line that is not whole JSON, or a line whose
/// `before_sha256` is not the `after_sha256` of the line before it for the same file.
pub fn broken_chain(snap: &Snapshot) -> Option<String> {
    for (path, entry) in snap {
        let (true, Entry::File(bytes)) = (is_journal(path), entry) else {
            continue;
        };
        let text = String::from_utf8_lossy(bytes);
        let mut last: BTreeMap<String, String> = BTreeMap::new();
        for (i, line) in text.lines().enumerate() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                return Some(format!("{} line {}: not whole JSON", path.display(), i + 1));
            };
            let (Some(before), Some(after)) =
                (v["before_sha256"].as_str(), v["after_sha256"].as_str())
            else {
                continue;
            };
            let file = v["file"].as_str().unwrap_or("").to_string();
            if let Some(prev) = last.get(&file)
                && prev != before
            {
                return Some(format!(
                    "{} line {}: before_sha256 {} is not the previous after_sha256 {} ({})",
                    path.display(),
                    i + 1,
                    &before[..12.min(before.len())],
                    &prev[..12.min(prev.len())],
                    v["operation"].as_str().unwrap_or("?")
                ));
            }
            last.insert(file, after.to_string());
        }
        if !text.is_empty() && !text.ends_with('\n') {
            return Some(format!("{}: last line torn", path.display()));
        }
    }
    None
}

/// The writer's clean run on a copy of `template`: old and new snapshots and verify's answer.
pub fn clean_run(template: &fixture::Template, writer: &Writer) -> Clean {
    let (_tmp, root) = fixture::copy_of(template);
    let old = snapshot(&root);
    let out = trace::run(&root, &writer.args, Traced::Plain);
    assert_eq!(
        out.code,
        Some(0),
        "{}: the clean run fails: {}",
        writer.name,
        out.stderr
    );
    let new = snapshot(&root);
    assert_ne!(old, new, "{}: the clean run changes nothing", writer.name);
    Clean {
        old,
        new,
        verify_fails: verify_fails(&root),
    }
}
