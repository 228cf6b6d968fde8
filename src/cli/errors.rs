//! The one mapping from errors to output and exit codes: refusals, usage errors and the errors a
//! command could not get past, each printed on stderr (and as one JSON document with `--json`).

use crate::{print_err, print_json};
use planseal::dwp::publish::FinalizeError;
use planseal::report::{ExitCode, HintedError, Refusal, envelope};
use planseal::unlock::UnlockError;
use planseal::write::WriteError;

pub(crate) fn refusal_ref(err: &anyhow::Error) -> Option<&Refusal> {
    if let Some(r) = err.downcast_ref::<Refusal>() {
        return Some(r);
    }
    if let Some(WriteError::Refused(r)) = err.downcast_ref::<WriteError>() {
        return Some(r);
    }
    if let Some(FinalizeError::Refused(r)) = err.downcast_ref::<FinalizeError>() {
        return Some(r);
    }
    if let Some(UnlockError::Write(WriteError::Refused(r))) = err.downcast_ref::<UnlockError>() {
        return Some(r);
    }
    None
}

/// The one mapping from errors to output and exit codes: a [`Refusal`] is exit 1 with its kind
/// leading the stderr message (and a JSON document on stdout with `--json`); anything else is an
/// error the command could not get past, exit 2 (3 for a writer's I/O error before its commit
/// point) — its hint, when it has one, on its own line.
pub(super) fn report_error(err: &anyhow::Error, json: bool) -> ExitCode {
    if let Some(refusal) = refusal_ref(err) {
        print_err(&render_refusal(refusal));
        if json {
            print_json(error_document(err));
        }
        return ExitCode::Failed;
    }
    let (hint, code) = super::outcome::error_code(err);
    let mut text = format!("planseal: error: {err}\n");
    for cause in err.chain().skip(1) {
        text.push_str(&format!("  caused by: {cause}\n"));
    }
    if let Some(h) = &hint {
        text.push_str(&format!("  hint: {h}\n"));
    }
    print_err(&text);
    if json {
        print_json(error_document(err));
    }
    code
}

/// The `--json` document of an error a command could not get past: a refusal's document, or
/// `result: error` with its kind (`usage-error`, `io-error`, `error`), message and hint. What
/// `planseal <cmd> --json` prints for it, and what the MCP tools return.
pub(crate) fn error_document(err: &anyhow::Error) -> serde_json::Value {
    if let Some(refusal) = refusal_ref(err) {
        return envelope::refused(refusal);
    }
    let (hint, code) = super::outcome::error_code(err);
    let kind = match code {
        ExitCode::Io => "io-error",
        _ if err.downcast_ref::<HintedError>().is_some() => "usage-error",
        _ => "error",
    };
    envelope::error(
        kind,
        &format!("{err:#}"),
        hint.as_deref(),
        serde_json::Map::new(),
    )
}

/// A usage error is exit 2 with the stable kind `usage-error` leading stderr (`docs/exit-codes.md`)
/// and, with `--json`, a JSON document on stdout, so scripts can tell it from a refusal without
/// parsing prose.
pub(super) fn report_usage_error(e: &clap::Error, json: bool) -> ExitCode {
    // The values a usage error echoes may be a `.env` value pasted on the command line.
    if let Ok(cwd) = std::env::current_dir() {
        crate::redact_output_for(&cwd);
    }
    let rendered = e.render().to_string();
    let body = rendered.strip_prefix("error: ").unwrap_or(&rendered);
    print_err(&format!("usage-error: {body}"));
    if json {
        // The whole complaint on one line (clap lists missing arguments on lines of their
        // own), and the arguments it names as a list.
        let message = body
            .lines()
            .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let arguments: Vec<String> = match e.get(clap::error::ContextKind::InvalidArg) {
            Some(clap::error::ContextValue::String(s)) => vec![s.clone()],
            Some(clap::error::ContextValue::Strings(list)) => list.clone(),
            _ => Vec::new(),
        };
        let mut fields = serde_json::Map::new();
        fields.insert("arguments".into(), arguments.into());
        print_json(envelope::error(
            "usage-error",
            &message,
            Some("run the command with --help for its options and examples"),
            fields,
        ));
    }
    ExitCode::UsageOrUnverified
}

/// `kind: message`, each detail on its own line, then `  hint: …`.
pub(crate) fn render_refusal(r: &Refusal) -> String {
    use planseal::report::text::printable;
    let mut s = format!("{}: {}\n", r.kind, printable(&r.message));
    for d in &r.details {
        let task = d.task.map(|t| format!(" (task {t})")).unwrap_or_default();
        s.push_str(&format!("  - {}{task}: {}\n", d.id, printable(&d.message)));
    }
    if let Some(h) = &r.hint {
        s.push_str(&format!("  hint: {}\n", printable(h)));
    }
    s
}
