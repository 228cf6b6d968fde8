//! The one write path of planseal. Every file any command changes goes through here.
//!
//! - [`Target`]: the file to write, how it is locked (a lock folder with an owner record, or
//!   GSD's pid file), where its journal lives and the folder every write must stay inside. Each
//!   format builds its targets in its `layout` module; nothing else knows the lock style or the
//!   journal's place.
//! - [`Writer::commit`]: the guarded write of one file — lock, re-read and compare with the bytes
//!   the caller decided on (compare-and-swap), atomic durable replace, one journal line, release.
//! - [`Transaction`]: several files under one lock, in the caller's order, with named crash
//!   points between the steps (the finalization transaction, `rebuild --write`). It collects
//!   what each applied step could not confirm; [`Transaction::close`] hands it back.
//! - [`Confirmation`]: what an applied write could not confirm — the change is in place, so it
//!   is reported as "applied, durability not confirmed" (exit 4), never as a plain error.
//! - [`JournalEntry`]: the one shape of a journal line, for every format (`docs/journal.md`).
//! - [`refusal_of`]: the one mapping from a store error to the refusal a user can act on.
//! - [`write_output`]: a file made for people to read (the page `planseal report` writes):
//!   replaced atomically, with no lock and no journal line, since no plan tool reads it.
//!
//! The file store itself (locks, atomic replace, the journal file) is `planseal-recovery`'s;
//! this module is the only part of planseal that calls it to change files.

// A store error carries the lock owner's record so it can be shown; errors are rare and never
// on a hot path, so their size does not matter.
#![allow(clippy::result_large_err)]

mod journal;
mod output;
mod refusal;
mod target;
mod transaction;
pub mod wait;

/// What an applied write could not confirm (the store's types, so the CLI never names the
/// store).
pub use crate::recovery::store::{Confirmation, Unconfirmed, UnconfirmedStep};
pub use journal::{JournalEntry, Transition, after_sha256, before_sha256};
pub use output::{create_folder, write_output, write_scratch};
pub use refusal::{WriteError, lock_owner_state, refusal_of};
pub use target::Target;
pub use transaction::Transaction;

use crate::recovery::hash::sha256_hex;
use crate::recovery::store::{self, CommitRequest, Durability};

/// Writes through the store, stamping every lock and journal line with this tool's version.
#[derive(Debug, Clone, Copy)]
pub struct Writer {
    durability: Durability,
}

/// What a single-file commit changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// SHA-256 of the bytes replaced (`None` when the file was created).
    pub before_sha256: Option<String>,
    /// SHA-256 of the bytes now in the file.
    pub after_sha256: String,
    /// What after the rename could not be confirmed (folder sync, journal line, lock release);
    /// the write itself happened and stays.
    pub confirmation: Confirmation,
}

impl Default for Writer {
    fn default() -> Self {
        Self::from_env()
    }
}

impl Writer {
    /// A writer with full durability, unless `PLANSEAL_BENCH_NO_FSYNC=1` (only the benchmark
    /// that measures what fsync costs sets it).
    pub fn from_env() -> Self {
        let durability = if std::env::var_os("PLANSEAL_BENCH_NO_FSYNC").is_some_and(|v| v == "1") {
            Durability::NoSync
        } else {
            Durability::Full
        };
        Self { durability }
    }

    /// Whether this writer's commits are fsynced ([`Durability::Full`]) or not (the benchmark's
    /// [`Durability::NoSync`]).
    pub fn durability(&self) -> Durability {
        self.durability
    }

    /// Replaces `target` with `new` if it still holds `old` (`None`: it must not exist yet), and
    /// journals `entry` with both hashes filled in. A refusal or an error leaves the file as it
    /// was (an I/O error is before the rename: nothing applied); once the rename happened the
    /// result is `Ok`, and what could not be confirmed after it is in
    /// [`Committed::confirmation`]. The lock's owner record is stamped with the entry's time.
    pub fn commit(
        &self,
        target: &Target,
        old: Option<&[u8]>,
        new: &[u8],
        mut entry: JournalEntry,
    ) -> Result<Committed, WriteError> {
        entry.before_sha256 = None;
        entry.after_sha256 = None;
        self.commit_hashed(target, old, new, entry)
    }

    /// [`commit`](Self::commit) for a caller that may have hashed the contents already: a
    /// `before_sha256` or `after_sha256` that `entry` carries must be the SHA-256 of `old` or
    /// `new` (an update hashes what it read while parsing it); it is journaled and reported as
    /// given, not computed again. A hash left out is computed on another core while this one
    /// takes the lock and writes, so the journal line always has both. The compare-and-swap
    /// under the lock still compares the bytes.
    pub fn commit_hashed(
        &self,
        target: &Target,
        old: Option<&[u8]>,
        new: &[u8],
        mut entry: JournalEntry,
    ) -> Result<Committed, WriteError> {
        target.check_writable(&[])?;
        let known_before = entry.before_sha256.take().filter(|_| old.is_some());
        let known_after = entry.after_sha256.take();
        let entry_hashes_known = known_after.is_some() && (old.is_none() || known_before.is_some());
        debug_assert!(known_after.as_deref().is_none_or(|h| h == sha256_hex(new)));
        debug_assert!(
            known_before
                .as_deref()
                .is_none_or(|h| old.is_some_and(|b| h == sha256_hex(b)))
        );
        let request = CommitRequest {
            target: target.path(),
            lock: target.lock_style().clone(),
            operation: &entry.lock_label(),
            tool: crate::TOOL_VERSION,
            acquired_at: Some(&entry.time),
            expected_bytes: old,
            new_bytes: new,
            journal: Some(target.journal()),
            durability: self.durability,
            known_sha256: None,
        };
        // The disk work (lock, re-check, replace) stays on this thread, in its order; the hashes
        // are pure work beside it.
        let hashes = || {
            let before = known_before.or_else(|| old.map(sha256_hex));
            (before, known_after.unwrap_or_else(|| sha256_hex(new)))
        };
        let (placed, (before, after)) = if entry_hashes_known {
            (store::place(&request), hashes())
        } else {
            crate::parallel::beside(|| store::place(&request), hashes)
        };
        let placed = placed.map_err(|e| refusal_of(e, target))?;
        entry.before_sha256 = before.clone();
        entry.after_sha256 = Some(after.clone());
        let confirmation = placed.finish(Some(&entry.to_value()));
        Ok(Committed {
            before_sha256: before,
            after_sha256: after,
            confirmation,
        })
    }

    /// Takes the lock of `target` for a transaction over several files. `operation` goes into
    /// the owner record, `time` is when the lock is taken (from the command's clock).
    pub fn begin<'t>(
        &self,
        target: &'t Target,
        operation: &str,
        time: &str,
    ) -> Result<Transaction<'t>, WriteError> {
        Transaction::begin(target, operation, time, self.durability)
    }

    /// Replaces `path` whole, atomically (a temp file beside it, renamed over it), for a file
    /// another program handed over for this one write and reads back itself — git's merge-driver
    /// `%A`: no lock (git holds the file for the driver's run and nothing else knows its name),
    /// no journal line (git, not planseal, installs the result, and an aborted merge must leave
    /// no trace), and no fsync (git reads it back at once and stores the result with its own
    /// durability). An error leaves `path` as it was.
    pub fn replace_handed_over(
        &self,
        path: &std::path::Path,
        bytes: &[u8],
    ) -> Result<Confirmation, WriteError> {
        output::replace_unlocked(path, bytes, Durability::NoSync)
    }

    /// Appends a line to `target`'s journal with no file write around it (a removed lock).
    pub fn journal_only(&self, target: &Target, entry: &JournalEntry) -> Result<(), WriteError> {
        target.placed().map_err(|e| refusal_of(e, target))?;
        target
            .journal()
            .append(entry, self.durability)
            .map_err(|e| refusal_of(e, target))
    }
}
