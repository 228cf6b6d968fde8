//! The DWP commands as library calls: each reads what it needs, decides, writes through
//! [`crate::write`], and returns a typed outcome the binary prints as text or JSON.

pub mod update;
