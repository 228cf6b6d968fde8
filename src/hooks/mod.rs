//! What planseal registers in a repository (`planseal hooks install|uninstall`), one module per
//! kind of hook: [`merge`] — the merge driver for plan state files (`docs/merge.md`); [`claude`]
//! — Claude Code's settings (status line, SessionStart and Stop hooks; `docs/claude-code.md`);
//! [`git`] — planseal's git hooks (`docs/git-hooks.md`), with [`git_check`], what those hooks
//! check when git runs them. [`ops`] finds the repository's files through git (gix), edits them
//! and writes them through the one write path.

pub mod claude;
pub mod git;
pub mod git_check;
pub mod merge;
pub mod ops;
