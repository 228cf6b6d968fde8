//! Property tests of the plan reader behind verify: whatever relative name a plan file names
//! (state locators, log pointers), reading it never yields the bytes of a file outside the plan
//! folder, and plan-name discovery accepts exactly `PLAN_[a-z0-9_]+`.

use planseal::dwp::locate::is_plan_name;
use planseal::dwp::read::{FileRead, read_inside};
use proptest::prelude::*;

const SECRET: &[u8] = b"outside the plan";

fn fixture() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let plan = tmp.path().join("plan");
    std::fs::create_dir_all(plan.join("sub")).unwrap();
    std::fs::write(tmp.path().join("secret"), SECRET).unwrap();
    std::fs::write(plan.join("inside.md"), b"inside").unwrap();
    std::fs::write(plan.join("sub/inside.md"), b"inside too").unwrap();
    std::os::unix::fs::symlink(tmp.path().join("secret"), plan.join("link")).unwrap();
    std::os::unix::fs::symlink(tmp.path(), plan.join("up")).unwrap();
    std::os::unix::fs::symlink("sub", plan.join("sublink")).unwrap();
    tmp
}

fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("..".to_string()),
        Just(".".to_string()),
        Just("".to_string()),
        Just("sub".to_string()),
        Just("inside.md".to_string()),
        Just("link".to_string()),
        Just("up".to_string()),
        Just("sublink".to_string()),
        Just("secret".to_string()),
        "[a-z]{1,3}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn reading_never_leaves_the_plan(parts in prop::collection::vec(component(), 1..5), absolute in any::<bool>()) {
        let tmp = fixture();
        let plan = tmp.path().join("plan");
        let mut rel = parts.join("/");
        if absolute {
            rel = format!("{}/{rel}", tmp.path().display());
        }
        match read_inside(&plan, &rel) {
            FileRead::Bytes(b) => prop_assert_ne!(b.as_slice(), SECRET, "{} read the outside file", rel),
            FileRead::Missing | FileRead::Outside(_) | FileRead::Unreadable(_) => {}
        }
    }

    #[test]
    fn plan_names_are_exactly_plan_underscore_lower_digits(
        name in prop_oneof!["[A-Za-z0-9_-]{0,12}", "PLAN_[a-zA-Z0-9_.-]{0,6}", "plan_[a-z]{0,3}"]
    ) {
        let expected = name.starts_with("PLAN_")
            && name.len() > 5
            && name[5..].bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        prop_assert_eq!(is_plan_name(&name), expected);
    }
}
