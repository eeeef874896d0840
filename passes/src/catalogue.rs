//! Upstream's pass catalogue (reference §6.1–6.3 and the pipeline entries of §7), derived
//! from the registry's list (`transform/mod.rs`): the implemented passes plus the ones not
//! implemented yet.
//!
//! The registry consults it to tell a pass that merely is *not implemented yet* (a
//! pipeline naming it fails to load, listing every such pass) from a misspelt name (an
//! error with suggestions).

use crate::transform::{NOT_IMPLEMENTED, PASSES};

/// Every upstream pass name: implemented (registry order) then not implemented (sorted).
pub fn upstream_names() -> impl Iterator<Item = &'static str> {
    PASSES
        .iter()
        .map(|p| p.name)
        .chain(NOT_IMPLEMENTED.iter().map(|p| p.0))
}

/// Whether `name` is an upstream pass name.
pub fn is_upstream_pass(name: &str) -> bool {
    summary(name).is_some()
}

/// The summary of upstream pass `name` (the registry's own, when it is implemented).
pub fn summary(name: &str) -> Option<&'static str> {
    PASSES
        .iter()
        .find(|p| p.name == name)
        .map(|p| p.summary)
        .or_else(|| {
            NOT_IMPLEMENTED
                .binary_search_by(|p| p.0.cmp(name))
                .ok()
                .map(|i| NOT_IMPLEMENTED[i].1)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_implemented_is_sorted_kebab_case_and_disjoint_from_the_registry() {
        for w in NOT_IMPLEMENTED.windows(2) {
            assert!(w[0].0 < w[1].0, "{} before {}", w[0].0, w[1].0);
        }
        for (n, s) in NOT_IMPLEMENTED {
            assert!(
                n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            );
            assert!(!s.is_empty());
            assert!(
                PASSES.iter().all(|p| p.name != *n),
                "{n} is implemented: remove its NOT_IMPLEMENTED line"
            );
        }
        assert!(is_upstream_pass("licm"));
        assert!(is_upstream_pass("dce"));
        assert!(!is_upstream_pass("lcim"));
        let mut all: Vec<&str> = upstream_names().collect();
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n, "a name is listed twice");
    }
}
