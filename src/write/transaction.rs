//! Several files changed under one lock, in the caller's order.
//!
//! The caller decides the order and the commit point (for the finalization transaction: the
//! marker); the transaction makes each step durable before the next one starts and names the
//! crash points between them. Dropping a transaction without [`Transaction::finish`] releases
//! the lock (best effort); a crash point ends the process with the lock still held, as a killed
//! writer would.

use super::{JournalEntry, Target, WriteError, refusal_of};
use crate::recovery::hash::sha256_hex;
use crate::recovery::store::{self, Durability, LockGuard, StoreError};
use std::path::Path;

/// An open transaction: the lock of its target is held.
#[derive(Debug)]
pub struct Transaction<'t> {
    target: &'t Target,
    guard: LockGuard,
    durability: Durability,
}

impl<'t> Transaction<'t> {
    pub(super) fn begin(
        target: &'t Target,
        operation: &str,
        time: &str,
        durability: Durability,
    ) -> Result<Self, WriteError> {
        let guard = store::acquire_at(
            target.path(),
            target.lock_style(),
            operation,
            crate::TOOL_VERSION,
            Some(time),
        )
        .map_err(|e| refusal_of(e, target))?;
        Ok(Self {
            target,
            guard,
            durability,
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

    /// Replaces `path` with `bytes`: temp file, fsync, rename, fsync the folder.
    pub fn replace(&self, path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
        store::write_atomic(path, bytes, self.durability).map_err(|e| self.map(e))
    }

    /// Removes `path` and makes the removal durable.
    pub fn remove(&self, path: &Path) -> Result<(), WriteError> {
        store::remove_durable(path, self.durability)
            .map(|_| ())
            .map_err(|e| self.map(e))
    }

    /// Appends `entry` to the target's journal.
    pub fn journal(&self, entry: &JournalEntry) -> Result<(), WriteError> {
        self.target
            .journal()
            .append(&entry.to_value(), self.durability)
            .map_err(|e| self.map(e))
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

    fn map(&self, e: StoreError) -> WriteError {
        refusal_of(e, self.target)
    }
}
