//! One file per registered pass. [`PASSES`] lists them for the registry.

use crate::registry::PassInfo;

pub mod const_fold;
pub mod dce;
pub mod mem2reg;

/// Every real (non-test) pass implemented in this crate.
pub static PASSES: &[&PassInfo] = &[&const_fold::INFO, &dce::INFO, &mem2reg::INFO];
