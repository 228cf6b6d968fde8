//! The exit codes of every command, in one place.
//!
//! The rule for callers: **1 and 3 ⇒ nothing was applied; 0 and 4 ⇒ the change was applied.**
//! 0, 1 and 2 mean what they mean for the DWP helper `update-state.py`, so planseal replaces it
//! in existing scripts. `docs/exit-codes.md` says the same for users.

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, schemars::JsonSchema)]
#[repr(u8)]
pub enum ExitCode {
    /// Success: CONFORMANT, or a writer applied its change.
    Ok = 0,
    /// Refused, NOT CONFORMANT, or a difference under `--exit-code`: nothing was written.
    Failed = 1,
    /// A usage error, or UNVERIFIED (something could not be read or checked).
    UsageOrUnverified = 2,
    /// A writer's I/O error before its commit point: nothing was applied.
    Io = 3,
    /// The rename happened but its durability could not be confirmed: the change was applied.
    AppliedUnconfirmed = 4,
}

impl ExitCode {
    /// The process exit status.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Whether a writer's change is in place when the command ends with this code.
    pub fn applied(self) -> bool {
        matches!(self, ExitCode::Ok | ExitCode::AppliedUnconfirmed)
    }

    /// `Failed` when `failed` and the caller asked for it (`--exit-code`), `Ok` otherwise.
    pub fn failed_if(failed: bool) -> Self {
        if failed {
            ExitCode::Failed
        } else {
            ExitCode::Ok
        }
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code.code())
    }
}

#[cfg(test)]
mod tests {
    use super::ExitCode;

    #[test]
    fn the_rule_for_callers() {
        let all = [
            ExitCode::Ok,
            ExitCode::Failed,
            ExitCode::UsageOrUnverified,
            ExitCode::Io,
            ExitCode::AppliedUnconfirmed,
        ];
        let codes: Vec<u8> = all.iter().map(|c| c.code()).collect();
        assert_eq!(codes, [0, 1, 2, 3, 4]);
        assert!(ExitCode::Ok.applied() && ExitCode::AppliedUnconfirmed.applied());
        assert!(!ExitCode::Failed.applied() && !ExitCode::Io.applied());
    }
}
