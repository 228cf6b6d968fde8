//! # planseal-recovery
//!
//! What survives a crash and what git remembers. This crate knows nothing about plans: it hashes
//! bytes, resolves paths that must stay inside a folder, and (in later modules) owns the
//! transactional file store and the git history reader that every planseal format uses.
//!
//! ```
//! use planseal_recovery::hash::sha256_hex;
//! assert_eq!(
//!     sha256_hex(b""),
//!     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
//! );
//! ```
//!
//! ## Limitations
//! - Paths are checked against the file system as it is at the moment of the call; a concurrent
//!   writer that swaps a directory for a symlink afterwards is not detected.

pub mod git;
pub mod hash;
pub mod paths;
pub mod read;
pub mod scratch_repo;
pub mod store;
pub mod time;
