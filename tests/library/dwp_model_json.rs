//! Strict JSON parsing: never panics, agrees with serde_json on valid documents, refuses
//! repeated keys wherever they are.

use planseal::dwp::check::semantics::{CheckMode, check_state};
use planseal::dwp::model::schema::{validate_manifest, validate_state};
use planseal::dwp::model::{JsonError, State, parse_json};
use proptest::prelude::*;
use serde_json::Value;

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_]{0,6}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse_json(&bytes);
    }

    #[test]
    fn never_panics_on_near_json(text in "[\\[\\]{}\",: 0-9a-z\\\\\n-]{0,120}") {
        let _ = parse_json(text.as_bytes());
    }

    #[test]
    fn agrees_with_serde_json_on_valid_documents(v in json_value(), pretty in any::<bool>()) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        prop_assert_eq!(parse_json(text.as_bytes()).unwrap(), v);
    }

    #[test]
    fn a_repeated_key_is_always_found(v in json_value(), key in "[a-z]{1,5}") {
        let text = format!("{{\"outer\": [{{\"{key}\": 1, \"{key}\": {v}}}]}}");
        match parse_json(text.as_bytes()) {
            Err(JsonError::DuplicateKey { key: k, path, .. }) => {
                prop_assert_eq!(k, key);
                prop_assert_eq!(path, "$.outer[0]");
            }
            other => prop_assert!(false, "{:?}", other),
        }
    }

    #[test]
    fn truncation_is_an_error_never_a_value(v in json_value(), cut in 0usize..400) {
        let text = serde_json::to_string_pretty(&serde_json::json!({"tasks": [v]})).unwrap();
        let cut = cut.min(text.len() - 1);
        if text.is_char_boundary(cut) {
            prop_assert!(parse_json(&text.as_bytes()[..cut]).is_err());
        }
    }

    /// The whole reading chain takes any JSON without panicking.
    #[test]
    fn model_schema_and_semantics_never_panic(v in json_value(), tasks in prop::collection::vec(json_value(), 0..4)) {
        let mut doc = serde_json::json!({
            "schema": "https://deepworkplan.com/schema/plan-state/v5.json", "tasks": tasks, "x": v
        });
        let _ = validate_state(&doc);
        let _ = validate_manifest(&doc);
        let _ = check_state(&State::from_value(&doc), CheckMode::Strict);
        doc["schema"] = Value::from("https://deepworkplan.com/schema/plan-state/v1.json");
        let _ = validate_state(&doc);
        let _ = planseal::dwp::check::gates::state_gate_findings(&State::from_value(&doc), None);
    }
}

#[test]
fn messages_name_the_position() {
    let e = parse_json(b"{\n  \"a\": 1,\n  \"a\": 2\n}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "duplicate key `a` at $ (line 3, column 5): keep one of them"
    );
    let e = parse_json(b"{\n  \"a\": [1,\n").unwrap_err();
    assert!(
        e.to_string().starts_with("the JSON is cut short at line 3"),
        "{e}"
    );
    let e = parse_json(b"{\"a\": \"\xc3\x28\"}").unwrap_err();
    assert_eq!(
        e.to_string(),
        "the file is not UTF-8 (invalid byte at line 1, column 8)"
    );
}

proptest! {
    /// The bytes a candidate is published as depend on its values only, never on its layout,
    /// and serialising them again changes nothing; a marker hash binds the file in any layout.
    #[test]
    fn a_candidate_publishes_the_same_bytes_in_any_layout(v in json_value()) {
        use planseal::dwp::publish::candidate::{bytes_with_hash, differences, published_bytes};
        let compact = v.to_string().into_bytes();
        let pretty = serde_json::to_vec_pretty(&v).unwrap();
        let published = published_bytes(&compact).unwrap();
        prop_assert_eq!(&published_bytes(&pretty).unwrap(), &published);
        prop_assert_eq!(&published_bytes(&published).unwrap(), &published);
        let sha = planseal::recovery::hash::sha256_hex(&published);
        prop_assert_eq!(bytes_with_hash(&compact, &sha), Some(published.clone()));
        prop_assert!(differences(&v, &v, 5).is_empty());
    }
}
