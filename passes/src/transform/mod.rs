//! One file per registered pass. [`PASSES`] lists them for the registry.

use crate::registry::PassInfo;

/// Every real (non-test) pass implemented in this crate.
pub static PASSES: &[&PassInfo] = &[];
