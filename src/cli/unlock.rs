//! `planseal unlock PATH`: shows who holds the lock of a state file and removes it when its owner
//! is provably dead (SPEC §1.8: same host, and the pid is not alive or its process start time
//! differs from the recorded one). A live or unknown owner (an empty lock directory, as the DWP
//! helper leaves it) needs `--force --reason TEXT`; every removal is journaled.

use super::Context;
use crate::print_out;
use planseal::recovery::store::{self, Durability, Journal, LockHolder, LockStyle, StoreError};
use planseal::report::Refusal;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Examples:\n  planseal unlock .dwp/plans/PLAN_x                   show the owner; remove the lock if it is dead\n  \
planseal unlock .planning/STATE.md                  GSD's pid-file lock\n  \
planseal unlock .dwp/plans/PLAN_x --force --reason \"helper crashed, checked with ps\"\n\n\
PATH may be the state file (state.json, STATE.md, …), its lock \
(state.json.lock) or a DWP plan folder.\nExit codes: 0 removed (or nothing to remove), 1 refused \
(owner alive or unknown), 2 usage error."
)]
pub struct Args {
    /// The locked file, its lock, or a plan folder
    #[arg(value_name = "PATH")]
    pub path: PathBuf,
    /// Remove the lock even though its owner is not provably dead (needs --reason)
    #[arg(long, requires = "reason")]
    pub force: bool,
    /// Why the lock is forced (recorded in the journal)
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

/// The file a PATH argument is about, and its lock style (a lock file is GSD's pid file).
fn target_of(path: &Path) -> (PathBuf, LockStyle) {
    let mut target = path.to_path_buf();
    if path.is_dir()
        && path.join("state.json").is_file()
        && path.extension().is_none_or(|e| e != "lock")
    {
        target = path.join("state.json");
    } else if let Some(stripped) = path
        .to_str()
        .and_then(|s| s.trim_end_matches('/').strip_suffix(".lock"))
    {
        target = PathBuf::from(stripped);
    }
    let lock = LockStyle::Directory.lock_path(&target);
    let style = if lock.is_file() {
        LockStyle::gsd()
    } else {
        LockStyle::Directory
    };
    (target, style)
}

/// Where a removal is journaled: a DWP plan's `analysis_results/STATE_JOURNAL.ndjson`, or
/// `<file>.journal.ndjson` beside any other file.
fn journal_for(target: &Path) -> Journal {
    let dir = target.parent().unwrap_or(Path::new("."));
    let is_dwp_state = target.file_name().is_some_and(|n| n == "state.json")
        && (dir.join("manifest.json").is_file()
            || dir
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("PLAN_")));
    if is_dwp_state {
        Journal::inside(dir, super::update::journal_path(dir))
    } else {
        let mut p = target.as_os_str().to_owned();
        p.push(".journal.ndjson");
        Journal::new(PathBuf::from(p))
    }
}

pub fn run(args: Args, ctx: &Context) -> anyhow::Result<i32> {
    // A `.env` value quoted in a plan file, a log or a commit subject is never printed.
    crate::redact_output_for(&ctx.cwd.join(&args.path));
    let (target, style) = target_of(&ctx.cwd.join(&args.path));
    let reason = args.reason.as_deref().map(str::trim).unwrap_or_default();
    if args.force && reason.is_empty() {
        return Err(
            Refusal::new("usage-error", "--force needs a non-empty --reason")
                .hint("say why the lock is safe to remove: --reason TEXT")
                .into(),
        );
    }
    // Read the clock before anything is removed: a bad PLANSEAL_FAKE_NOW must not leave a lock
    // removed without its journal line.
    let mut clock = planseal::clock::Clock::from_env()?;
    let outcome = match store::unlock(&target, &style, args.force) {
        Ok(o) => o,
        Err(StoreError::NotLocked { lock_path }) => {
            if ctx.json {
                let doc = serde_json::json!({ "result": "not-locked", "lock_path": lock_path });
                print_out(&format!("{doc:#}\n"));
            } else {
                print_out(&format!(
                    "{}: not locked, nothing to remove\n",
                    lock_path.display()
                ));
            }
            return Ok(0);
        }
        Err(StoreError::OwnerNotProvablyDead {
            lock_path,
            holder,
            status,
        }) => {
            let details = match &holder {
                LockHolder::Unknown => {
                    "nothing records who made it (the DWP helper leaves its lock empty)".to_string()
                }
                other => other.to_string(),
            };
            return Err(Refusal::new(
                "lock-owner-alive",
                format!(
                    "{}: {details} — {status}; the lock was left in place",
                    lock_path.display()
                ),
            )
            .hint(format!(
                "wait for the owner to finish; if you are sure no writer runs, `planseal unlock {} --force --reason TEXT`",
                args.path.display()
            ))
            .into());
        }
        // Another process took or replaced the lock between our two looks: nothing was removed.
        Err(StoreError::LockPresent { lock_path, holder }) => {
            return Err(Refusal::new(
                "lock-present",
                format!(
                    "{}: the lock changed hands while it was being judged ({holder}); nothing was removed",
                    lock_path.display()
                ),
            )
            .hint(format!(
                "run `planseal unlock {}` again to judge the new owner",
                args.path.display()
            ))
            .into());
        }
        Err(e) => return Err(anyhow::Error::new(e)),
    };
    let entry = serde_json::json!({
        "time": clock.now_iso(),
        "tool": planseal::TOOL_VERSION,
        "operation": "unlock",
        "target": target.file_name().map(|n| n.to_string_lossy().into_owned()),
        "holder": outcome.holder,
        "owner_status": outcome.status,
        "reason": args.reason,
        "forced": if outcome.forced { vec!["unlock --force"] } else { Vec::new() },
        "removed_temp_files": outcome.removed_temp_files.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy()).collect::<Vec<_>>(),
    });
    let journal = journal_for(&target);
    journal.append(&entry, Durability::Full).map_err(|e| {
        anyhow::Error::new(e).context(format!(
            "{} was removed, but its journal line could not be appended to {}",
            outcome.lock_path.display(),
            journal.path().display()
        ))
    })?;
    if ctx.json {
        let doc = serde_json::json!({
            "result": "removed",
            "lock_path": outcome.lock_path,
            "holder": outcome.holder,
            "owner_status": outcome.status,
            "forced": outcome.forced,
            "reason": args.reason,
            "removed_temp_files": outcome.removed_temp_files,
        });
        print_out(&format!("{doc:#}\n"));
    } else {
        print_out(&format!(
            "removed {}\n  owner: {}\n  {}{}\n",
            outcome.lock_path.display(),
            outcome.holder,
            outcome.status,
            if outcome.forced {
                format!("\n  forced: {reason} (journaled)")
            } else {
                String::new()
            }
        ));
    }
    Ok(0)
}
