//! planseal's git hooks (`planseal hooks install|uninstall --git`, `docs/git-hooks.md`): the
//! small shell script planseal writes into the repository's hooks folder, and the decision of
//! what installing or uninstalling one hook changes — pure, so that the rules can be tested
//! without a repository.
//!
//! A hook that is already there and is not planseal's is never overwritten: it moves to
//! `<hook>.pre-planseal` (same bytes, same permission bits) and planseal's script runs it first,
//! stopping with its exit status when it fails. Uninstalling puts it back.
//!
//! Each step leaves a state the next run understands, so an install or an uninstall cut short
//! (a crash between its two writes) is finished by running the command again:
//! - install moves the foreign hook by writing its copy first and replacing the hook second;
//!   a copy equal to the hook is such a leftover, and the install goes on;
//! - uninstall restores the hook first and removes the copy second; a copy equal to the restored
//!   hook is such a leftover, and the uninstall removes it.

use serde::Serialize;

/// A git hook planseal can be installed as.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum GitHook {
    /// Before a commit is made: verify the plans the commit touches (or every plan when `.dwp/`
    /// is ignored).
    PreCommit,
    /// Before a push: verify every plan.
    PrePush,
    /// After the message is written: a `- Task N of PLAN_x` subject must name a task in progress.
    CommitMsg,
}

impl GitHook {
    /// Every hook, in the order they are installed.
    pub const ALL: [GitHook; 3] = [GitHook::PreCommit, GitHook::PrePush, GitHook::CommitMsg];

    /// git's name of the hook (the file name in the hooks folder).
    pub fn as_str(self) -> &'static str {
        match self {
            GitHook::PreCommit => "pre-commit",
            GitHook::PrePush => "pre-push",
            GitHook::CommitMsg => "commit-msg",
        }
    }
}

/// The line that marks a hook file as planseal's own.
pub const MARKER: &str = "# planseal git hook";

/// What a foreign hook is renamed to while planseal's hook chains it.
pub const CHAINED_SUFFIX: &str = ".pre-planseal";

/// The permission bits of the hook planseal writes.
pub const HOOK_MODE: u32 = 0o755;

/// `program` as one shell word: left as it is when every character is plain, else in single
/// quotes.
pub fn shell_word(program: &str) -> String {
    let plain = !program.is_empty()
        && program
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@%".contains(c));
    if plain {
        program.to_string()
    } else {
        format!("'{}'", program.replace('\'', "'\\''"))
    }
}

/// The hook script for `hook`, which runs `program hook <name> "$@"` — after the chained hook
/// `<name>.pre-planseal` beside it, when there is one that may be executed (as git itself runs
/// only executable hooks), stopping with that hook's exit status when it fails.
pub fn script(program: &str, hook: GitHook) -> String {
    let name = hook.as_str();
    format!(
        "#!/bin/sh\n\
{MARKER}: {name} (planseal hooks install --git; docs/git-hooks.md)\n\
# `planseal hooks uninstall --git --git-hook {name}` removes it and puts back the hook it chains.\n\
chained=\"$(dirname \"$0\")/{name}{CHAINED_SUFFIX}\"\n\
if [ -f \"$chained\" ] && [ -x \"$chained\" ]; then\n\
\t\"$chained\" \"$@\" || exit $?\n\
fi\n\
exec {} hook {name} \"$@\"\n",
        shell_word(program)
    )
}

/// Whether `bytes` are a hook planseal wrote (any version, any program path).
pub fn is_planseal_hook(bytes: &[u8]) -> bool {
    bytes
        .split(|b| *b == b'\n')
        .take(3)
        .any(|line| line.starts_with(MARKER.as_bytes()))
}

/// A hook file as found: its bytes and permission bits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The permission bits (`0o7777` mask).
    pub mode: u32,
}

/// One write of a plan: the file (the hook, or its chained copy) and what it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Write the chained copy `<hook>.pre-planseal` with these bytes and bits.
    WriteChained(Found),
    /// Write the hook with these bytes and bits.
    WriteHook(Found),
    /// Remove the chained copy.
    RemoveChained,
    /// Remove the hook.
    RemoveHook,
}

/// Why a hook cannot be installed or uninstalled safely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conflict {
    /// Install: the hook is someone else's and `<hook>.pre-planseal` holds other bytes already:
    /// chaining would lose one of them.
    ChainedExists,
    /// Uninstall: the hook is no longer planseal's, yet `<hook>.pre-planseal` is still there:
    /// putting it back would lose the hook that replaced planseal's.
    Replaced,
}

/// The steps that install planseal's hook (`ours`), in order, given the hook and its chained
/// copy as found. Empty when it is installed already.
pub fn plan_install(
    hook: Option<&Found>,
    chained: Option<&Found>,
    ours: &[u8],
) -> Result<Vec<Step>, Conflict> {
    let write_ours = Step::WriteHook(Found {
        bytes: ours.to_vec(),
        mode: HOOK_MODE,
    });
    match hook {
        // Planseal's: brought up to date (another program path); its chained copy stays.
        Some(h) if is_planseal_hook(&h.bytes) => {
            if h.bytes == ours && h.mode == HOOK_MODE {
                Ok(Vec::new())
            } else {
                Ok(vec![write_ours])
            }
        }
        // A foreign hook: moved aside, then replaced.
        Some(h) => match chained {
            None => Ok(vec![Step::WriteChained(h.clone()), write_ours]),
            // An install cut short after the copy: go on.
            Some(c) if c == h => Ok(vec![write_ours]),
            Some(_) => Err(Conflict::ChainedExists),
        },
        None => Ok(vec![write_ours]),
    }
}

/// The steps that uninstall planseal's hook, in order. Empty when there is nothing of
/// planseal's.
pub fn plan_uninstall(
    hook: Option<&Found>,
    chained: Option<&Found>,
) -> Result<Vec<Step>, Conflict> {
    match (hook, chained) {
        (Some(h), Some(c)) if is_planseal_hook(&h.bytes) => {
            Ok(vec![Step::WriteHook(c.clone()), Step::RemoveChained])
        }
        (Some(h), None) if is_planseal_hook(&h.bytes) => Ok(vec![Step::RemoveHook]),
        (Some(_), None) => Ok(Vec::new()),
        // An uninstall cut short after the hook was put back: the copy goes.
        (Some(h), Some(c)) if c == h => Ok(vec![Step::RemoveChained]),
        (Some(_), Some(_)) => Err(Conflict::Replaced),
        // planseal's hook was removed by hand: the chained one goes back where it was.
        (None, Some(c)) => Ok(vec![Step::WriteHook(c.clone()), Step::RemoveChained]),
        (None, None) => Ok(Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(bytes: &[u8], mode: u32) -> Found {
        Found {
            bytes: bytes.to_vec(),
            mode,
        }
    }

    /// Applies steps to a (hook, chained) pair.
    fn apply(
        mut hook: Option<Found>,
        mut chained: Option<Found>,
        steps: &[Step],
    ) -> (Option<Found>, Option<Found>) {
        for s in steps {
            match s {
                Step::WriteChained(f) => chained = Some(f.clone()),
                Step::WriteHook(f) => hook = Some(f.clone()),
                Step::RemoveChained => chained = None,
                Step::RemoveHook => hook = None,
            }
        }
        (hook, chained)
    }

    #[test]
    fn install_then_uninstall_is_the_identity_and_install_is_idempotent() {
        let ours = script("/opt/bin/planseal", GitHook::PreCommit);
        let foreign = found(b"#!/bin/sh\necho mine\n", 0o700);
        for start in [None, Some(foreign.clone())] {
            let steps = plan_install(start.as_ref(), None, ours.as_bytes()).unwrap();
            let (h, c) = apply(start.clone(), None, &steps);
            assert!(is_planseal_hook(&h.as_ref().unwrap().bytes));
            assert_eq!(c, start, "the foreign hook is chained");
            assert!(
                plan_install(h.as_ref(), c.as_ref(), ours.as_bytes())
                    .unwrap()
                    .is_empty()
            );
            let steps = plan_uninstall(h.as_ref(), c.as_ref()).unwrap();
            assert_eq!(apply(h, c, &steps), (start, None));
        }
    }

    #[test]
    fn a_run_cut_short_is_finished_by_the_next_one() {
        let ours = script("/p", GitHook::CommitMsg);
        let foreign = found(b"#!/bin/sh\nexit 0\n", 0o755);
        // install stopped after the copy
        let steps = plan_install(Some(&foreign), Some(&foreign), ours.as_bytes()).unwrap();
        assert_eq!(steps.len(), 1);
        // uninstall stopped after the hook was put back
        let steps = plan_uninstall(Some(&foreign), Some(&foreign)).unwrap();
        assert_eq!(steps, vec![Step::RemoveChained]);
    }

    #[test]
    fn what_cannot_be_done_safely_is_a_conflict() {
        let ours = script("/p", GitHook::PreCommit);
        let a = found(b"a", 0o755);
        let b = found(b"b", 0o755);
        assert_eq!(
            plan_install(Some(&a), Some(&b), ours.as_bytes()),
            Err(Conflict::ChainedExists)
        );
        assert_eq!(plan_uninstall(Some(&a), Some(&b)), Err(Conflict::Replaced));
        // a foreign hook alone is not planseal's to remove
        assert!(plan_uninstall(Some(&a), None).unwrap().is_empty());
    }

    #[test]
    fn the_script_quotes_the_program_and_passes_the_arguments() {
        let s = script("/opt/my tools/planseal", GitHook::CommitMsg);
        assert!(s.starts_with("#!/bin/sh\n# planseal git hook: commit-msg"));
        assert!(s.ends_with("exec '/opt/my tools/planseal' hook commit-msg \"$@\"\n"));
        assert!(s.contains("commit-msg.pre-planseal"));
        assert!(is_planseal_hook(s.as_bytes()));
        assert!(!is_planseal_hook(b"#!/bin/sh\nplanseal hook pre-commit\n"));
    }
}
