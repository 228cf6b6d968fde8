//! How a writer whose change is in place reports what it could not confirm (`docs/exit-codes.md`,
//! exit 4): the `--json` document's `result` becomes `applied-unconfirmed`, and stderr says that
//! the change is in place, what was not confirmed, and what to do — never "error", and never a
//! hint to retry (the change would be applied twice).

use super::ExitCode;
use crate::recovery::store::{Confirmation, Unconfirmed, UnconfirmedStep};
use serde_json::Value;

/// The `result` of a writer's `--json` document when something was not confirmed.
pub const APPLIED_UNCONFIRMED: &str = "applied-unconfirmed";

/// 0 when everything was confirmed, 4 when the change is in place but something was not.
pub fn exit_code(confirmation: &Confirmation) -> ExitCode {
    if confirmation.is_confirmed() {
        ExitCode::Ok
    } else {
        ExitCode::AppliedUnconfirmed
    }
}

/// The writer's document as it is when everything was confirmed; otherwise `result` becomes
/// `applied-unconfirmed`, the result it would have had moves to `applied`, and `unconfirmed`
/// lists what was not confirmed (kind, path, reason, hint).
pub fn document(mut doc: Value, confirmation: &Confirmation) -> Value {
    let list = confirmation.unconfirmed();
    if list.is_empty() {
        return doc;
    }
    if let Value::Object(map) = &mut doc {
        let was = map
            .remove("result")
            .unwrap_or_else(|| Value::String("applied".into()));
        let entries: Vec<Value> = list.iter().map(entry).collect();
        let mut out = serde_json::Map::new();
        out.insert("result".into(), APPLIED_UNCONFIRMED.into());
        out.insert("applied".into(), was);
        out.insert("unconfirmed".into(), entries.into());
        out.extend(std::mem::take(map));
        *map = out;
    }
    doc
}

fn entry(u: &Unconfirmed) -> Value {
    serde_json::json!({
        "kind": u.step,
        "path": u.path.display().to_string(),
        "reason": u.reason,
        "message": u.message(),
        "hint": hint(u),
    })
}

/// The stderr lines: `applied-unconfirmed: …` per thing not confirmed, each with its hint.
/// Empty when everything was confirmed.
pub fn text(confirmation: &Confirmation) -> String {
    let mut out = String::new();
    for u in confirmation.unconfirmed() {
        out.push_str(&format!(
            "{APPLIED_UNCONFIRMED}: {}\n  hint: {}\n",
            super::text::printable(&u.message()),
            super::text::printable(&hint(u))
        ));
    }
    out
}

/// The caller's hint, or what to do for this kind.
fn hint(u: &Unconfirmed) -> String {
    if let Some(h) = &u.hint {
        return h.clone();
    }
    match u.step {
        UnconfirmedStep::FolderSync => {
            "do not run the command again (the change is applied); check the disk, then run `sync` to make it durable"
        }
        UnconfirmedStep::JournalLine => {
            "do not run the command again (the change is applied); only its journal line is missing"
        }
        UnconfirmedStep::LockRelease => {
            return format!(
                "`planseal unlock {}` removes what is left of the lock (its owner, this process, has ended)",
                u.path.display()
            );
        }
        UnconfirmedStep::Unfinished => "run `planseal status` to see what is left",
    }
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unconfirmed_write_is_applied_unconfirmed_with_the_reason() {
        let confirmed = Confirmation::Confirmed;
        let doc = serde_json::json!({"result": "applied", "task": 1});
        assert_eq!(document(doc.clone(), &confirmed), doc);
        assert_eq!(exit_code(&confirmed), ExitCode::Ok);
        assert_eq!(text(&confirmed), "");

        let c = Confirmation::Unconfirmed(vec![Unconfirmed::new(
            UnconfirmedStep::FolderSync,
            "/p",
            "fsync folder /p: Input/output error (os error 5)",
        )]);
        let out = document(doc, &c);
        assert_eq!(out["result"], "applied-unconfirmed");
        assert_eq!(out["applied"], "applied");
        assert_eq!(out["task"], 1);
        assert_eq!(out["unconfirmed"][0]["kind"], "folder-sync");
        assert!(
            out["unconfirmed"][0]["reason"]
                .as_str()
                .unwrap()
                .contains("os error 5")
        );
        assert_eq!(exit_code(&c), ExitCode::AppliedUnconfirmed);
        let t = text(&c);
        assert!(
            t.starts_with("applied-unconfirmed: the change is in place"),
            "{t}"
        );
        assert!(t.contains("do not run the command again"), "{t}");
    }
}
