//! Report schemas, derived from the registry: every pass publishes its declared key set,
//! in order, zero-valued, on a module without functions; keys are unique snake_case; and
//! each pass file's `//!` header names the pass and every report key it publishes (the
//! upstream key sets are documented there, §8 counts).

use crate::pass::PassContext;
use crate::registry::PassOptions;
use crate::transform::{HEADERS, PASSES};
use xir_ir::Module;

#[test]
fn empty_module_publishes_the_full_zero_schema() {
    for info in PASSES.iter().chain(crate::test_passes::TEST_PASSES) {
        let name = info.name;
        let pass = (info.create)(&PassOptions::default()).expect("default options");
        let mut m = Module::new();
        let Ok(r) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pass.run(&mut m, &mut PassContext::default())
        })) else {
            continue; // test-panic
        };
        let r = r.expect("runs");
        if r.refusal.is_some() && info.test_only {
            continue;
        }
        let keys: Vec<&str> = r.report.entries().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, info.report_keys, "{name}: published keys");
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), keys.len(), "{name}: a key repeats");
        for k in &keys {
            assert!(
                k.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{name}: key {k} is not snake_case"
            );
        }
        if info.test_only {
            continue;
        }
        assert!(r.report.entries().iter().all(|(_, v)| *v == 0), "{name}");
        assert!(!r.changed.any() && r.refusal.is_none(), "{name}");
    }
}

#[test]
fn every_pass_header_names_the_pass_and_its_report_keys() {
    assert_eq!(HEADERS.len(), PASSES.len());
    for (name, source) in HEADERS {
        let info = PASSES.iter().find(|p| p.name == *name).expect("listed");
        let header: String = source
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            header.starts_with(&format!("//! `{name}` — ")),
            "{name}: the header starts with the pass name"
        );
        for k in info.report_keys {
            assert!(
                header.contains(&format!("`{k}`")),
                "{name}: the header does not document report key `{k}`"
            );
        }
        for section in ["**Preconditions:**", "**Report keys", "**Example"] {
            assert!(header.contains(section), "{name}: header lacks {section}");
        }
    }
}
