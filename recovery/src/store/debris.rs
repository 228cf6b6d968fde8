//! What a killed writer leaves beside the files it writes, how each leftover is recognised by
//! its name, and its removal once its owner is provably dead.
//!
//! | leftover | name | made by |
//! |---|---|---|
//! | temp file of an atomic write | `.<file>.<tag>.<token>.tmp` | [`super::write_atomic`] (tag = pid) |
//! | lock staging folder | `<file>.lock.staging-<tag>.<token>/` | lock acquisition, before the rename onto the lock |
//! | released lock | `.<file>.lock.<tag>.<token>.released/` | lock release and `unlock`, after the rename away from the lock |
//!
//! `<tag>` is a [`NameTag`]: the pid of the process that made the leftover, and its start time
//! when the name carries it, so the owner can be proven dead without reading anything inside.
//! Staging folders of earlier versions (`<file>.lock.staging-<token>/`) carry no tag; their owner
//! record says who made them. A folder leftover may hold only an owner record (`owner.json`) and
//! its temp (`owner.json.tmp`); anything else is left in place and reported.

use super::process::{NameTag, OwnerStatus};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// The name of the owner record inside a lock directory.
pub const OWNER_FILE: &str = "owner.json";
/// The owner record while it is written, before it is renamed onto [`OWNER_FILE`].
pub const OWNER_TEMP: &str = "owner.json.tmp";
const STAGING: &str = ".staging-";
const RELEASED: &str = ".released";

/// What kind of leftover a name is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DebrisKind {
    /// The temp file of an atomic write of `file` (a file name in the same folder).
    Temp {
        /// The file the write was replacing.
        file: String,
    },
    /// A lock staging folder: the lock `lock` was never taken through it.
    Staging {
        /// The lock's name (`state.json.lock`).
        lock: String,
    },
    /// A lock renamed away on release: it no longer locks anything.
    Released {
        /// The lock's name (`state.json.lock`).
        lock: String,
    },
}

/// A leftover recognised by its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Debris {
    /// What it is.
    pub kind: DebrisKind,
    /// Who made it, when the name says (`None`: a staging folder of an earlier version).
    pub tag: Option<NameTag>,
}

fn is_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric())
}

impl Debris {
    /// Recognises a leftover by its file name; `None` for any other name.
    pub fn from_name(name: &str) -> Option<Self> {
        if let Some(rest) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) {
            let (rest, token) = rest.rsplit_once('.')?;
            let (file, tag) = rest.rsplit_once('.')?;
            if file.is_empty() || !is_token(token) {
                return None;
            }
            return Some(Debris {
                kind: DebrisKind::Temp {
                    file: file.to_string(),
                },
                tag: Some(NameTag::parse(tag)?),
            });
        }
        if let Some(rest) = name
            .strip_prefix('.')
            .and_then(|n| n.strip_suffix(RELEASED))
        {
            let (rest, token) = rest.rsplit_once('.')?;
            let (lock, tag) = rest.rsplit_once('.')?;
            if !lock.ends_with(".lock") || !is_token(token) {
                return None;
            }
            return Some(Debris {
                kind: DebrisKind::Released {
                    lock: lock.to_string(),
                },
                tag: Some(NameTag::parse(tag)?),
            });
        }
        let (lock, rest) = name.rsplit_once(STAGING)?;
        if !lock.ends_with(".lock") {
            return None;
        }
        let tag = match rest.split_once('.') {
            Some((tag, token)) if is_token(token) => Some(NameTag::parse(tag)?),
            Some(_) => return None,
            None if is_token(rest) => None,
            None => return None,
        };
        Some(Debris {
            kind: DebrisKind::Staging {
                lock: lock.to_string(),
            },
            tag,
        })
    }

    /// Whether this leftover is a folder (a staging folder or a released lock).
    pub fn is_folder(&self) -> bool {
        !matches!(self.kind, DebrisKind::Temp { .. })
    }
}

/// `<lock>.staging-<tag>.<token>` beside the lock: same folder, so the rename is atomic.
pub fn staging_path(lock_path: &Path, tag: &NameTag, token: &str) -> PathBuf {
    let mut name = lock_path.file_name().unwrap_or_default().to_os_string();
    name.push(format!("{STAGING}{tag}.{token}"));
    lock_path.with_file_name(name)
}

/// `.<lock>.<tag>.<token>.released` beside the lock: where a lock goes on its way out.
pub fn released_path(lock_path: &Path, tag: &NameTag, token: &str) -> PathBuf {
    let lock = lock_path.file_name().unwrap_or_default().to_string_lossy();
    lock_path.with_file_name(format!(".{lock}.{tag}.{token}{RELEASED}"))
}

/// A leftover that was not removed, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct KeptDebris {
    /// The leftover.
    pub path: PathBuf,
    /// Why it stays: its owner is not provably dead, or it holds what no writer puts there.
    pub reason: String,
}

/// What [`sweep`] did in one folder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Sweep {
    /// The leftovers removed: their owners were provably dead.
    pub removed: Vec<PathBuf>,
    /// The leftovers left in place: owner not provably dead, or unexpected content.
    pub kept: Vec<KeptDebris>,
}

impl Sweep {
    /// Adds another folder's sweep to this one.
    pub fn extend(&mut self, other: Sweep) {
        self.removed.extend(other.removed);
        self.kept.extend(other.kept);
    }
}

/// The names inside a folder leftover that are not an owner record or its temp, or a reason it
/// cannot be emptied safely (`Err`).
pub fn unexpected_entries(folder: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(folder).map_err(|e| format!("cannot be listed: {e}"))?;
    let mut odd = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot be listed: {e}"))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let regular = entry.file_type().is_ok_and(|t| t.is_file());
        if !regular || (name != OWNER_FILE && name != OWNER_TEMP) {
            odd.push(name);
        }
    }
    odd.sort();
    Ok(odd)
}

/// Removes a folder that holds at most an owner record and its temp. Something else removed
/// it meanwhile: fine. Returns whether this call removed it.
pub fn remove_owner_folder(folder: &Path) -> std::io::Result<bool> {
    for name in [OWNER_FILE, OWNER_TEMP] {
        match std::fs::remove_file(folder.join(name)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    match std::fs::remove_dir(folder) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// Removes every leftover in `dir` whose owner is provably dead; keeps (and lists) those whose
/// owner cannot be proven dead and those holding unexpected entries; leaves a live owner's alone.
/// `untagged` judges a staging folder whose name carries no tag (an earlier version's: its owner
/// record decides). Best effort: a leftover that cannot be removed is listed as kept.
pub fn sweep(dir: &Path, untagged: &dyn Fn(&Path) -> OwnerStatus) -> Sweep {
    let mut out = Sweep::default();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut found: Vec<(PathBuf, Debris)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name();
            if !may_be_debris(name.as_encoded_bytes()) {
                return None;
            }
            let debris = Debris::from_name(&name.to_string_lossy())?;
            Some((e.path(), debris))
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, debris) in found {
        let status = match &debris.tag {
            Some(tag) => tag.status(),
            None => untagged(&path),
        };
        let why = match status {
            OwnerStatus::Alive => continue,
            OwnerStatus::Unknown(why) => {
                out.kept.push(KeptDebris {
                    path,
                    reason: format!("its owner is not provably dead: {why}"),
                });
                continue;
            }
            OwnerStatus::Dead(why) => why,
        };
        match remove_dead(&path, &debris) {
            Ok(true) => out.removed.push(path),
            Ok(false) => {}
            Err(reason) => out.kept.push(KeptDebris {
                path,
                reason: format!("its owner is dead ({why}), but it {reason}"),
            }),
        }
    }
    out
}

/// Whether [`Debris::from_name`] can read `name` at all: a temp file or a released lock starts
/// with a dot, a staging folder's name holds `.lock.staging-`. Most entries of a plan folder are
/// its task files, and this look costs no search set-up per name.
fn may_be_debris(name: &[u8]) -> bool {
    name.first() == Some(&b'.') || name.windows(6).any(|w| w == b".lock.")
}

fn remove_dead(path: &Path, debris: &Debris) -> Result<bool, String> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(format!("cannot be inspected: {e}")),
    };
    if debris.is_folder() != meta.is_dir() || meta.file_type().is_symlink() {
        return Err(format!(
            "is a {} where a writer leaves a {}",
            if meta.file_type().is_symlink() {
                "symlink"
            } else if meta.is_dir() {
                "folder"
            } else {
                "file"
            },
            if debris.is_folder() { "folder" } else { "file" }
        ));
    }
    if !debris.is_folder() {
        return match std::fs::remove_file(path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(format!("cannot be removed: {e}")),
        };
    }
    let odd = unexpected_entries(path)?;
    if !odd.is_empty() {
        return Err(format!(
            "holds entries no writer puts there ({}); check them and remove it by hand",
            odd.join(", ")
        ));
    }
    remove_owner_folder(path).map_err(|e| format!("cannot be removed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(pid: u32, ticks: Option<u64>) -> Option<NameTag> {
        Some(NameTag {
            pid,
            start_ticks: ticks,
        })
    }

    #[test]
    fn names_are_recognised_in_every_form() {
        let temp = |file: &str| DebrisKind::Temp { file: file.into() };
        let lock = |l: &str| l.to_string();
        let cases = [
            (
                ".state.json.4242.a1b2c3d4.tmp",
                temp("state.json"),
                tag(4242, None),
            ),
            (
                ".state.json.42-9001.a1b2.tmp",
                temp("state.json"),
                tag(42, Some(9001)),
            ),
            (
                ".FINALIZATION.json.7.x.tmp",
                temp("FINALIZATION.json"),
                tag(7, None),
            ),
            (
                "state.json.lock.staging-42-9001.ab12",
                DebrisKind::Staging {
                    lock: lock("state.json.lock"),
                },
                tag(42, Some(9001)),
            ),
            (
                "state.json.lock.staging-d4e5f6",
                DebrisKind::Staging {
                    lock: lock("state.json.lock"),
                },
                None,
            ),
            (
                ".state.json.lock.42-9001.ab12.released",
                DebrisKind::Released {
                    lock: lock("state.json.lock"),
                },
                tag(42, Some(9001)),
            ),
        ];
        for (name, _, _) in &cases {
            assert!(may_be_debris(name.as_bytes()), "{name}");
        }
        for (name, kind, tag) in cases {
            assert_eq!(
                Debris::from_name(name),
                Some(Debris { kind, tag }),
                "{name}"
            );
        }
        for name in [
            "state.json",
            "state.json.4242.a1.tmp",
            ".state.json.tmp",
            ".state.json.pid.a1.tmp",
            ".state.json.lock.x.ab.released",
            ".notes.42-1.ab.released",
            "state.json.lock.staging-1.a-b",
            "notes.staging-1.ab",
        ] {
            assert_eq!(Debris::from_name(name), None, "{name}");
        }
        let me = NameTag::of_this_process();
        let lock = Path::new("/p/state.json.lock");
        let staged = staging_path(lock, &me, "ab12");
        let released = released_path(lock, &me, "ab12");
        for p in [staged, released] {
            let d = Debris::from_name(&p.file_name().unwrap().to_string_lossy()).unwrap();
            assert_eq!(d.tag, Some(me), "{}", p.display());
        }
    }

    /// The sweep's cheap look skips no name that [`Debris::from_name`] reads: every sequence of
    /// up to five pieces of such names, and the task files a plan folder is full of are skipped.
    #[test]
    fn the_cheap_look_passes_every_name_a_writer_leaves() {
        let pieces = [
            ".",
            "lock",
            ".lock",
            ".staging-",
            "42-9001",
            "ab12",
            ".tmp",
            ".released",
            "state.json",
            "x",
        ];
        let mut names = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = names
                .iter()
                .flat_map(|n| pieces.iter().map(move |p| format!("{n}{p}")))
                .collect();
            names.extend(longer);
            names.dedup();
        }
        let mut recognised = 0;
        for name in &names {
            if Debris::from_name(name).is_some() {
                recognised += 1;
                assert!(may_be_debris(name.as_bytes()), "{name}");
            }
        }
        assert!(recognised > 100, "{recognised}");
        for task_file in [
            "12.task_add_limiter.md",
            "README.md",
            "PROGRESS.md",
            "state.json",
        ] {
            assert!(!may_be_debris(task_file.as_bytes()), "{task_file}");
        }
    }
}
