//! The `--wait[=DURATION]` flag every writer shares, and the retry around a writer's run
//! (the policy is the library's: `planseal::write::wait`).

use crate::print_err;
use planseal::write::wait;
use std::time::Duration;

#[derive(clap::Args, Debug, Clone, Default)]
pub(super) struct WaitArg {
    /// Wait up to DURATION (default 30s; 500ms, 2m, or seconds) for another writer's lock or
    /// write to finish, then try again from a fresh read, instead of refusing at once
    #[arg(
        long,
        value_name = "DURATION",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "30s",
        value_parser = wait::parse_duration
    )]
    pub wait: Option<Duration>,
}

impl WaitArg {
    /// Runs `attempt` once, or with `--wait` until it gets past the other writer (see
    /// `planseal::write::wait::retrying`). Says once on stderr what it waits for.
    pub(super) fn run<T>(&self, attempt: impl FnMut() -> anyhow::Result<T>) -> anyhow::Result<T> {
        let limit = self.wait.unwrap_or(Duration::ZERO);
        wait::retrying(limit, attempt, super::refusal_ref, |refusal| {
            print_err(&format!(
                "waiting up to {}: {}: {}\n",
                shown(limit),
                refusal.kind,
                planseal::report::text::printable(&refusal.message)
            ));
        })
    }
}

fn shown(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// The flags every guarded writer of plan files shares: the caller's snapshot, the dry run, the
/// wait for another writer.
#[derive(clap::Args, Debug, Clone, Default)]
pub(super) struct GuardArgs {
    /// SHA-256 of state.json as you last read it; refused if it changed since
    #[arg(long = "expected-sha256", value_name = "HEX")]
    pub expected_sha256: Option<String>,
    /// Print the change as a unified diff (and what it would meet); write nothing
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub wait: WaitArg,
}
