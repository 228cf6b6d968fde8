//! `.env` read as dotenv loaders read it (`planseal::dotenv`): one test per syntax, and the
//! redactor hides each value as a program gets it.

use planseal::dotenv::{entries, keys};
use planseal::report::redact::EnvRedactor;

fn value_of(text: &str, key: &str) -> String {
    entries(text.as_bytes())
        .into_iter()
        .find(|e| e.key == key)
        .unwrap_or_else(|| panic!("{key} not found in {text:?}"))
        .value
}

#[test]
fn an_unquoted_value_ends_before_an_inline_comment() {
    assert_eq!(value_of("A=abc123 # note\n", "A"), "abc123");
    assert_eq!(
        value_of("A=abc#123\n", "A"),
        "abc#123",
        "no space: part of the value"
    );
    assert_eq!(value_of("A =  spaced value  \n", "A"), "spaced value");
}

#[test]
fn export_comments_and_blank_lines() {
    let text = "# KEY=commented\n\nexport B=bee1\n  C=see2\nnot an assignment\n1BAD=x\n";
    assert_eq!(keys(text.as_bytes()), ["B", "C"]);
    assert_eq!(value_of(text, "B"), "bee1");
}

#[test]
fn double_quotes_apply_escapes_and_span_lines() {
    assert_eq!(
        value_of("A=\"a\\nb\\t\\\"c\\\"\" # after\n", "A"),
        "a\nb\t\"c\""
    );
    assert_eq!(
        value_of("A=\"line one\nline two\"\nB=x\n", "A"),
        "line one\nline two"
    );
    assert_eq!(keys(b"A=\"one\nB=inside\"\nC=after\n"), ["A", "C"]);
}

#[test]
fn single_quotes_are_literal() {
    assert_eq!(
        value_of("A='a\\nb # not a comment'\n", "A"),
        "a\\nb # not a comment"
    );
}

#[test]
fn the_redactor_hides_the_value_a_program_gets_and_the_spelling_in_the_file() {
    let r = EnvRedactor::from_env_bytes(Some(
        b"TOKEN=tok-1234 # rotated\nMULTI=\"first\\nsecond-part\"\n",
    ));
    let shown = r.clean("a tok-1234 b; first\nsecond-part; \"first\\nsecond-part\"");
    assert!(!shown.contains("tok-1234"), "{shown}");
    assert!(!shown.contains("second-part"), "{shown}");
}
