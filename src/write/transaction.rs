//! Several files changed under one lock, in the caller's order.
//!
//! The caller decides the order and the commit point (for the finalization transaction: the
//! marker); the transaction makes each step durable before the next one starts and names the
//! crash points between them. Dropping a transaction without [`Transaction::finish`] releases
//! the lock (best effort); a crash point ends the process with the lock still held, as a killed
//! writer would.
//!
//! Each step is atomic: an error from [`Transaction::replace`] or [`Transaction::remove`] means
//! that file was not touched. What fails after a step is in place (syncing the folder) is not an
//! error: the transaction collects it, and [`Transaction::close`] returns it with the lock
//! release, so a caller past its commit point reports "applied, durability not confirmed".

use super::{JournalEntry, Target, WriteError, refusal_of};
use crate::recovery::hash::sha256_hex;
use crate::recovery::store::{
    self, Confirmation, Durability, LockGuard, StoreError, Unconfirmed, UnconfirmedStep,
};
use std::cell::RefCell;
use std::path::Path;

/// An open transaction: the lock of its target is held.
#[derive(Debug)]
pub struct Transaction<'t> {
    target: &'t Target,
    guard: LockGuard,
    durability: Durability,
    /// What the steps applied so far could not confirm.
    confirmation: RefCell<Confirmation>,
}

impl<'t> Transaction<'t> {
    pub(super) fn begin(
        target: &'t Target,
        operation: &str,
        time: &str,
        durability: Durability,
    ) -> Result<Self, WriteError> {
        // A journal with no place refuses before the lock is taken.
        target.placed().map_err(|e| refusal_of(e, target))?;
        let guard = store::acquire_at(
            target.path(),
            target.lock_style(),
            operation,
            crate::TOOL_VERSION,
            Some(time),
        )
        .map_err(|e| refusal_of(e, target))?;
        // Under the lock: a dead finalizer's receipt and journal temps in analysis_results/ go.
        target.sweep_journal_folder();
        Ok(Self {
            target,
            guard,
            durability,
            confirmation: RefCell::new(Confirmation::Confirmed),
        })
    }

    /// The target whose lock this transaction holds.
    pub fn target(&self) -> &Target {
        self.target
    }

    /// The bytes of `path` now, under the lock (`None` when it does not exist).
    pub fn read(&self, path: &Path) -> Result<Option<Vec<u8>>, WriteError> {
        crate::recovery::read::read(path, crate::recovery::read::Kind::Document)
            .map_err(|e| self.map(StoreError::Read(e)))
    }

    /// Refuses (`state-changed`) when `path` no longer holds `expected` (`None`: absent).
    pub fn expect_unchanged(&self, path: &Path, expected: Option<&[u8]>) -> Result<(), WriteError> {
        let current = self.read(path)?;
        if current.as_deref() == expected {
            return Ok(());
        }
        let hash = |b: Option<&[u8]>| b.map(sha256_hex).unwrap_or_else(|| "<absent>".into());
        Err(self.map(StoreError::StateChanged {
            path: path.to_path_buf(),
            expected: hash(expected),
            actual: hash(current.as_deref()),
        }))
    }

    /// Replaces `path` with `bytes`: temp file, fsync, rename, fsync the folder. An error means
    /// `path` was not touched (the temp file is removed); a folder that cannot be synced after
    /// the rename is collected as not confirmed.
    pub fn replace(&self, path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
        let confirmation =
            store::replace_atomic(path, bytes, self.durability).map_err(|e| self.map(e))?;
        self.collect(confirmation);
        Ok(())
    }

    /// [`replace`](Self::replace) giving the new file the permission bits `mode` (an executable
    /// git hook: `0o755`; a file moved back: its own bits).
    pub fn replace_with_mode(
        &self,
        path: &Path,
        bytes: &[u8],
        mode: u32,
    ) -> Result<(), WriteError> {
        let confirmation =
            store::replace_atomic_with_mode(path, bytes, Some(mode), self.durability)
                .map_err(|e| self.map(e))?;
        self.collect(confirmation);
        Ok(())
    }

    /// Removes `path` and makes the removal durable. An error means `path` is still there; a
    /// folder that cannot be synced after the removal is collected as not confirmed.
    pub fn remove(&self, path: &Path) -> Result<(), WriteError> {
        if let Some(confirmation) =
            store::remove_atomic(path, self.durability).map_err(|e| self.map(e))?
        {
            self.collect(confirmation);
        }
        Ok(())
    }

    /// Appends `entry` to the target's journal.
    pub fn journal(&self, entry: &JournalEntry) -> Result<(), WriteError> {
        self.target
            .journal()
            .append(entry, self.durability)
            .map_err(|e| self.map(e))
    }

    /// Appends `entry` to the target's journal after the commit point: a failure is collected
    /// as not confirmed (the change stays), never returned.
    pub fn journal_applied(&self, entry: &JournalEntry) {
        let journal = self.target.journal();
        if let Err(e) = journal.append(entry, self.durability) {
            self.note(Unconfirmed::new(
                UnconfirmedStep::JournalLine,
                journal.path(),
                e.to_string(),
            ));
        }
    }

    /// Records something the caller could not confirm past its commit point.
    pub fn note(&self, unconfirmed: Unconfirmed) {
        self.confirmation.borrow_mut().push(unconfirmed);
    }

    /// What the steps applied so far could not confirm.
    pub fn confirmation(&self) -> Confirmation {
        self.confirmation.borrow().clone()
    }

    fn collect(&self, confirmation: Confirmation) {
        for u in confirmation.unconfirmed() {
            self.note(u.clone());
        }
    }

    /// A named crash point between two steps (builds with the `failpoints` feature end the
    /// process there on request, like `kill -9`).
    pub fn step(&self, name: &str) {
        store::crash_point(name);
    }

    /// Releases the lock: the transaction is over.
    pub fn finish(self) -> Result<(), WriteError> {
        let target = self.target;
        self.guard
            .release()
            .map(|_| ())
            .map_err(|e| refusal_of(e, target))
    }

    /// Releases the lock after the commit point: what the steps could not confirm, and a lock
    /// that could not be released, come back as the transaction's [`Confirmation`] — the
    /// change is in place either way.
    pub fn close(self) -> Confirmation {
        let mut confirmation = self.confirmation.take();
        let lock = self.target.lock_path();
        if let Err(e) = self.guard.release() {
            confirmation.push(
                Unconfirmed::new(UnconfirmedStep::LockRelease, lock, e.to_string()).hint(format!(
                    "`planseal unlock {}` removes the lock once this process has ended",
                    self.target.shown()
                )),
            );
        }
        confirmation
    }

    fn map(&self, e: StoreError) -> WriteError {
        refusal_of(e, self.target)
    }
}
