//! Property tests of the marker and receipt formats: any candidate text round-trips through a
//! planseal marker with the helper's two keys first; the parsers never panic on arbitrary bytes;
//! a receipt round-trips byte for byte.

use planseal::dwp::publish::{
    AcceptedException, GitSeal, MARKER_FILE, Marker, MarkerExtension, Receipt, ReceiptExtension,
};
use planseal::recovery::hash::sha256_hex;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn hex64() -> impl Strategy<Value = String> {
    proptest::collection::vec(0u8..16, 64).prop_map(|v| {
        v.iter()
            .map(|d| char::from_digit(u32::from(*d), 16).unwrap())
            .collect()
    })
}

proptest! {
    #[test]
    fn any_candidate_round_trips_through_a_marker(
        candidate in any::<String>(),
        artifacts in hex64(),
        before in hex64(),
        started in "[0-9T:.+-]{0,40}",
    ) {
        let m = Marker {
            candidate_sha256: sha256_hex(candidate.as_bytes()),
            artifacts_sha256: artifacts.clone(),
            planseal: Some(MarkerExtension {
                marker_version: 1,
                state_sha256_before: before,
                tool_version: "planseal 0.1.0".into(),
                started_at: started,
                candidate: candidate.clone(),
                companions: Vec::new(),
            }),
        };
        let bytes = m.to_bytes();
        let head = format!(
            "{{\"candidate_sha256\": \"{}\", \"artifacts_sha256\": \"{artifacts}\", ",
            sha256_hex(candidate.as_bytes())
        );
        prop_assert!(bytes.starts_with(head.as_bytes()));
        prop_assert!(!bytes.contains(&b'\n'), "{MARKER_FILE} is one line");
        prop_assert_eq!(Marker::parse(&bytes).unwrap(), m);
    }

    #[test]
    fn the_parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = Marker::parse(&bytes);
        let _ = Receipt::parse(&bytes);
    }

    #[test]
    fn a_receipt_round_trips_byte_for_byte(
        files in proptest::collection::btree_map("[a-z0-9_./]{1,20}", hex64(), 0..6),
        reason in any::<String>(),
        clean in any::<bool>(),
        state in hex64(),
        artifacts in hex64(),
    ) {
        let r = Receipt {
            state_sha256: state,
            artifacts_sha256: artifacts,
            result: "verified".into(),
            planseal: Some(ReceiptExtension {
                receipt_version: 1,
                tool_version: "planseal 0.1.0".into(),
                files: Some(files.iter().map(|(k, v)| (k.clone(), Some(v.clone()))).collect()),
                evidence_files: Some(BTreeMap::new()),
                git: Some(GitSeal { head: "a".repeat(40), branch: None, clean }),
                checks_passed: vec!["x".into()],
                exceptions: vec![AcceptedException {
                    kind: "worktree-dirty".into(),
                    reason,
                    subjects: files.keys().cloned().collect(),
                }],
            }),
        };
        let bytes = r.to_bytes();
        let parsed = Receipt::parse(&bytes).unwrap();
        prop_assert_eq!(&parsed, &r);
        prop_assert_eq!(parsed.to_bytes(), bytes);
    }
}
