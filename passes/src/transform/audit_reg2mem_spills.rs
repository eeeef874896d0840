//! `audit-reg2mem-spills` — prove that no `reg2mem` spill marker survived.
//!
//! **What:** counts `reg2mem_spill` metadata left anywhere in the module. A marker on an
//! alloca is a spill slot `mem2reg` failed to consume (counted by kind); a marker on
//! anything else (module, constant, undefined value, special register, function,
//! argument, block or non-alloca instruction) is an invalid placement.
//!
//! **Algorithm:** one read-only walk over every metadata list. The module is never
//! modified, and the pass never reports a change.
//!
//! **Preconditions:** none. **Failure:** upstream aborts compilation when markers remain
//! (the SPIR-V pipeline runs this right after `mem2reg-post-restructure`). With the
//! default `fatal=true` a remaining marker is a pass error that stops the pipeline; with
//! `fatal=false` the pass instead returns a refusal carrying the counters.
//!
//! **Report keys** (upstream order): `remaining_phi_spill`, `remaining_cross_block_spill`,
//! `remaining_invalid_spill`, `remaining_spill` (their sum). **Changed:** never.
//!
//! **Example:** `reg2mem,mem2reg,audit-reg2mem-spills` succeeds on any reducible input;
//! `reg2mem,audit-reg2mem-spills` fails as soon as one phi was demoted.

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::registry::{PassOptionInfo, PassOptions};
use xir_ir::inst::InstKind;
use xir_ir::metadata::SpillKind;
use xir_ir::{Metadata, Module};

/// The `audit-reg2mem-spills` pass.
#[derive(Copy, Clone, Debug)]
pub struct AuditReg2MemSpills {
    /// Remaining markers are an error (else a refusal).
    pub fatal: bool,
}

impl Default for AuditReg2MemSpills {
    fn default() -> Self {
        Self { fatal: true }
    }
}

crate::declare_pass! {
    AuditReg2MemSpills: module pass "audit-reg2mem-spills" {
        summary: "Fail if any reg2mem spill marker survived SSA recovery (never changes the IR)",
        form: Either,
        options: [PassOptionInfo {
            name: "fatal",
            default: "true",
            help: "remaining markers are a pass error (true) or a refusal with counters (false)",
        }],
        create: |o: &PassOptions| Ok::<_, String>(AuditReg2MemSpills {
            fatal: o.get_bool("fatal", true)?,
        }),
        counters: AuditReg2MemSpillsCounters {
            /// Phi spill markers left on allocas.
            remaining_phi_spill: Nothing,
            /// Cross-block spill markers left on allocas.
            remaining_cross_block_spill: Nothing,
            /// Markers anywhere else.
            remaining_invalid_spill: Nothing,
            /// All remaining markers.
            remaining_spill: Nothing,
        }
    }
}

/// Marker counts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SpillAudit {
    /// Phi spill markers on allocas.
    pub phi: u64,
    /// Cross-block spill markers on allocas.
    pub cross_block: u64,
    /// Markers anywhere else.
    pub invalid: u64,
}

impl SpillAudit {
    /// All remaining markers.
    pub fn total(&self) -> u64 {
        self.phi + self.cross_block + self.invalid
    }
    fn count(&mut self, list: &[Metadata], on_alloca: bool) {
        for m in list {
            if let Metadata::Reg2MemSpill(k) = m {
                match (on_alloca, k) {
                    (false, _) => self.invalid += 1,
                    (true, SpillKind::Phi) => self.phi += 1,
                    (true, SpillKind::CrossBlock) => self.cross_block += 1,
                }
            }
        }
    }
}

/// Counts the spill markers of `module`.
pub fn audit(module: &Module) -> SpillAudit {
    let mut a = SpillAudit::default();
    a.count(&module.metadata, false);
    for c in module.live_constants() {
        a.count(&module.constants[c].metadata, false);
    }
    for u in module.live_undefs() {
        a.count(&module.undefs[u].metadata, false);
    }
    for (_, md) in &module.special_registers {
        a.count(md, false);
    }
    for &fid in &module.func_order {
        let f = module.func(fid);
        a.count(&f.metadata, false);
        for &arg in &f.arg_order {
            a.count(&f.args[arg].metadata, false);
        }
        for &b in &f.block_order {
            a.count(&f.blocks[b].metadata, false);
            for &i in &f.blocks[b].insts {
                let d = &f.insts[i];
                a.count(&d.metadata, matches!(d.kind, InstKind::Alloca(_)));
            }
        }
    }
    a
}

impl Pass for AuditReg2MemSpills {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let a = audit(module);
        let counters = AuditReg2MemSpillsCounters {
            remaining_phi_spill: a.phi,
            remaining_cross_block_spill: a.cross_block,
            remaining_invalid_spill: a.invalid,
            remaining_spill: a.total(),
        };
        let report = counters.report();
        if a.total() == 0 {
            return Ok(PassRun::new(counters.changed(), report));
        }
        let msg = format!(
            "SSA recovery left {} reg2mem spill marker(s): {} phi alloca(s), {} cross-block \
             alloca(s), and {} invalid placement(s)",
            a.total(),
            a.phi,
            a.cross_block,
            a.invalid
        );
        if self.fatal {
            Err(PassError::new(msg))
        } else {
            Ok(PassRun::refused(msg, report))
        }
    }
}
