//! Running passes directly, without the pipeline framework — the baseline for measuring
//! the framework's overhead (registry lookup, option parsing, form checks, records,
//! timing, stats).
//!
//! [`run_direct`] calls each pass's implementation in sequence through static dispatch
//! with one shared [`PassContext`]. Analyses stay correct because every per-function pass
//! invalidates the functions it changed (see [`PerFunction`]). Nothing else happens
//! between passes: no verification, no timing, no records.
//!
//! ```
//! use xir_passes::direct::{DirectPass, run_direct};
//! let mut m = xir_ir::Module::new();
//! let runs = run_direct(&mut m, &[DirectPass::Mem2Reg, DirectPass::Dce]).unwrap();
//! assert_eq!(runs.len(), 2);
//! ```

use crate::pass::{Pass, PassContext, PassError, PassRun, PerFunction};
use crate::transform::audit_reg2mem_spills::AuditReg2MemSpills;
use crate::transform::const_fold::ConstFold;
use crate::transform::dce::Dce;
use crate::transform::mem2reg::Mem2Reg;
use crate::transform::phi_cleanup::PhiCleanup;
use crate::transform::reg2mem::Reg2Mem;
use crate::transform::simplify_cfg::SimplifyCfg;
use xir_ir::Module;

/// A pass that [`run_direct`] can run, with its default options.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DirectPass {
    /// `dce`.
    Dce,
    /// `const-fold`.
    ConstFold,
    /// `mem2reg`.
    Mem2Reg,
    /// `reg2mem`.
    Reg2Mem,
    /// `audit-reg2mem-spills` (fatal).
    AuditReg2MemSpills,
    /// `phi-cleanup`.
    PhiCleanup,
    /// `simplify-cfg`.
    SimplifyCfg,
}

impl DirectPass {
    /// Every direct pass.
    pub const ALL: [DirectPass; 7] = [
        Self::Dce,
        Self::ConstFold,
        Self::Mem2Reg,
        Self::Reg2Mem,
        Self::AuditReg2MemSpills,
        Self::PhiCleanup,
        Self::SimplifyCfg,
    ];
    /// The registry name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Dce => "dce",
            Self::ConstFold => "const-fold",
            Self::Mem2Reg => "mem2reg",
            Self::Reg2Mem => "reg2mem",
            Self::AuditReg2MemSpills => "audit-reg2mem-spills",
            Self::PhiCleanup => "phi-cleanup",
            Self::SimplifyCfg => "simplify-cfg",
        }
    }
    /// Looks a pass up by its registry name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
    /// Runs this pass once.
    pub fn run(self, module: &mut Module, cx: &mut PassContext) -> Result<PassRun, PassError> {
        match self {
            Self::Dce => PerFunction(Dce).run(module, cx),
            Self::ConstFold => PerFunction(ConstFold).run(module, cx),
            Self::Mem2Reg => PerFunction(Mem2Reg).run(module, cx),
            Self::Reg2Mem => PerFunction(Reg2Mem).run(module, cx),
            Self::AuditReg2MemSpills => AuditReg2MemSpills::default().run(module, cx),
            Self::PhiCleanup => PerFunction(PhiCleanup).run(module, cx),
            Self::SimplifyCfg => PerFunction(SimplifyCfg).run(module, cx),
        }
    }
}

/// Parses a comma-separated list of pass names (`"mem2reg,dce"`).
pub fn parse_list(list: &str) -> Result<Vec<DirectPass>, String> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|n| DirectPass::from_name(n).ok_or_else(|| format!("no direct pass named '{n}'")))
        .collect()
}

/// Runs `passes` in order on `module`, directly (see the module docs). Stops at the first
/// error. Returns each pass's run.
pub fn run_direct(module: &mut Module, passes: &[DirectPass]) -> Result<Vec<PassRun>, PassError> {
    let mut cx = PassContext::default();
    passes.iter().map(|p| p.run(module, &mut cx)).collect()
}
