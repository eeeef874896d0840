//! One file per registered pass. [`PASSES`] lists them for the registry.

use crate::registry::PassInfo;

pub mod audit_reg2mem_spills;
pub mod const_fold;
pub mod dce;
pub mod mem2reg;
pub mod reg2mem;

/// Every real (non-test) pass implemented in this crate.
pub static PASSES: &[&PassInfo] = &[
    &dce::INFO,
    &const_fold::INFO,
    &mem2reg::INFO,
    &reg2mem::INFO,
    &audit_reg2mem_spills::INFO,
];
