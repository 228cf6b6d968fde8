//! What planseal registers in a repository (`planseal hooks install|uninstall`), one module per
//! kind of hook: [`merge`] — the merge driver for plan state files (`docs/merge.md`); [`claude`]
//! — Claude Code's settings (status line, SessionStart and Stop hooks; `docs/claude-code.md`). [`ops`]
//! finds the repository's files through git (gix), edits them and writes them through the one
//! write path. Other kinds (agent hooks, git hooks) go beside `merge` as modules of their own and
//! as flags of the same two commands.

pub mod claude;
pub mod merge;
pub mod ops;
