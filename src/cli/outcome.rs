//! The print step of a writer, and the exit code of an error that is not a refusal.
//!
//! A writer whose change is in place prints through [`deliver`]: it marks the run as applied
//! (so a report that cannot be written to stdout ends with 4, not 3), prints the outcome — as
//! `applied-unconfirmed` with what was not confirmed, when something was not — and returns 0 or 4
//! (`docs/exit-codes.md`: 0 and 4 ⇒ applied, 1 and 3 ⇒ nothing applied).

use super::Context;
use crate::{print_err, print_json, print_out};
use planseal::dwp::publish::FinalizeError;
use planseal::report::{ExitCode, HintedError, applied};
use planseal::write::{Confirmation, WriteError};

/// Prints a writer's outcome: its JSON document or `text` on stdout, then on stderr what was not
/// confirmed. `confirmation` is `None` when nothing was written (a dry run, nothing to change):
/// the outcome is printed as it is and the run is not applied. Returns 0, or 4 when the change is
/// in place but something after its commit point was not confirmed.
pub(super) fn deliver<T: serde::Serialize>(
    ctx: &Context,
    outcome: &T,
    text: &str,
    confirmation: Option<&Confirmation>,
) -> anyhow::Result<ExitCode> {
    let confirmed = Confirmation::Confirmed;
    let confirmation_given = confirmation.is_some();
    if confirmation.is_some() {
        crate::mark_applied();
    }
    let confirmation = confirmation.unwrap_or(&confirmed);
    if ctx.json {
        print_json(writer_document(
            outcome,
            confirmation_given.then_some(confirmation),
        )?);
    } else {
        print_out(text);
    }
    print_err(&applied::text(confirmation));
    Ok(applied::exit_code(confirmation))
}

/// The `--json` document of a writer's outcome (what `planseal <cmd> --json` prints and what the
/// MCP tools return): `applied` when it wrote (`confirmation` given) unless the outcome says
/// otherwise, `ok` when it did not (a dry run); `applied-unconfirmed` with what was not confirmed.
pub(crate) fn writer_document<T: serde::Serialize>(
    outcome: &T,
    confirmation: Option<&Confirmation>,
) -> anyhow::Result<serde_json::Value> {
    let confirmed = Confirmation::Confirmed;
    let written = if confirmation.is_some() {
        "applied"
    } else {
        "ok"
    };
    let doc = planseal::report::envelope::seal(serde_json::to_value(outcome)?, written);
    Ok(applied::document(doc, confirmation.unwrap_or(&confirmed)))
}

/// The `--json` document of a read-only command's outcome: `result` `ok` unless the outcome
/// says otherwise (what `print_json` seals).
pub(crate) fn read_document<T: serde::Serialize>(outcome: &T) -> anyhow::Result<serde_json::Value> {
    Ok(planseal::report::envelope::seal(
        serde_json::to_value(outcome)?,
        "ok",
    ))
}

/// The hint and exit code of an error that is not a refusal: a [`HintedError`] carries its own;
/// a writer's I/O error before its commit point is 3 (nothing was applied: the temp file is
/// removed, the target untouched); anything else is 2.
pub(super) fn error_code(err: &anyhow::Error) -> (Option<String>, ExitCode) {
    let io_hint = |read: bool| {
        Some(
            if read {
                "nothing was applied; the file could not be read: check the disk and its permissions, then retry"
            } else {
                "nothing was applied; check the folder's permissions and free space, then retry"
            }
            .to_string(),
        )
    };
    if let Some(h) = err.downcast_ref::<HintedError>() {
        return (h.hint.clone(), h.code);
    }
    match (
        err.downcast_ref::<WriteError>(),
        err.downcast_ref::<FinalizeError>(),
    ) {
        (Some(WriteError::Io { op, .. }), _) => (io_hint(*op == "read"), ExitCode::Io),
        (_, Some(FinalizeError::Io { .. })) => (io_hint(false), ExitCode::Io),
        _ => (None, ExitCode::UsageOrUnverified),
    }
}

/// A writer that cannot read an input (EIO on a task file, state.json, .git/HEAD) stops before
/// its commit point: exit 3, "nothing was applied" — not 2, which is for usage errors and
/// UNVERIFIED. Refusals and usage errors keep their codes.
pub(super) fn unreadable_input_is_io(err: anyhow::Error) -> anyhow::Error {
    let (_, code) = error_code(&err);
    // An OS error somewhere in the chain (a missing file is bad input, not an I/O error), or a
    // repository git could not read (its HEAD, an object): either way nothing was applied.
    let os_error = err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() != std::io::ErrorKind::NotFound)
            || cause
                .downcast_ref::<planseal::recovery::git::GitError>()
                .is_some()
    });
    if code != ExitCode::UsageOrUnverified
        || !os_error
        || super::refusal_ref(&err).is_some()
        || err.downcast_ref::<HintedError>().is_some()
    {
        return err;
    }
    HintedError {
        message: format!("{err:#}"),
        hint: Some(
            "nothing was applied; check the file and the disk, then run the command again".into(),
        ),
        code: ExitCode::Io,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use planseal_recovery::read::ReadError;

    #[test]
    fn a_writers_read_error_before_its_commit_point_is_exit_3_nothing_applied() {
        let eio = || std::io::Error::from_raw_os_error(libc::EIO);
        for err in [
            WriteError::read(ReadError::Io {
                path: "/p/state.json".into(),
                source: eio(),
            }),
            WriteError::reading("/p/.git/HEAD", eio()),
        ] {
            let text = err.to_string();
            let (hint, code) = error_code(&anyhow::Error::from(err));
            assert_eq!(code, ExitCode::Io);
            assert!(text.starts_with("read /p/"), "{text}");
            assert!(hint.unwrap().starts_with("nothing was applied"));
        }
    }
}
