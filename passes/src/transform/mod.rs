//! One file per registered pass. [`PASSES`] lists them for the registry.

use crate::registry::PassInfo;

pub mod audit_reg2mem_spills;
pub mod const_fold;
pub mod dce;
pub mod destructure_cfg;
pub mod lower_break_continue;
pub mod mem2reg;
pub mod phi_cleanup;
pub mod reg2mem;
pub mod restructure_cfg;
pub mod simplify_cfg;

/// Every real (non-test) pass implemented in this crate.
pub static PASSES: &[&PassInfo] = &[
    &dce::INFO,
    &const_fold::INFO,
    &mem2reg::INFO,
    &reg2mem::INFO,
    &audit_reg2mem_spills::INFO,
    &phi_cleanup::INFO,
    &simplify_cfg::INFO,
    &destructure_cfg::INFO,
    &lower_break_continue::INFO,
    &restructure_cfg::INFO,
];
