//! `clear-spirv-inactive-payloads` — empties blocks no executable edge reaches.
//!
//! **What:** after `restructure-cfg` every executable transfer is an explicit operand
//! edge. Each owned block that ordinary reachability (terminator successor operands
//! from the body, no condition folded) never reaches keeps its identity, but its
//! instructions are replaced by one `unreachable "SPIR-V legalization cleared an
//! inactive block payload"`; phi incomings from such blocks are removed. Each cleared
//! block is classified with the structural closure
//! ([`xir_ir::analysis::closure`]): a *disconnected role block* (a merge, loop body or
//! update the closure still names: its identity stays required) or a *true orphan*
//! (outside the closure). A block that already holds exactly one `unreachable` is left
//! alone, so the pass is idempotent. Construct terminators of live blocks — including a
//! loop prepare's `cond_br` — are never folded.
//!
//! **Algorithm** (per definition): compute the closure and ordinary reachability; check
//! that no instruction in a live block uses a value defined in an inactive block (all
//! definitions are checked before the first mutation); drop the phi incomings of live
//! blocks that name an inactive block; then clear each inactive block. Linear in the
//! size of the function.
//!
//! **Preconditions:** none beyond a verified module (meant for the post-restructure
//! boundary of `spirv-post-restructure`).
//!
//! **Refusals** (module byte-identical): a definition whose structural closure names a
//! block it does not own, or a live instruction using a value defined in an inactive
//! block (upstream asserts both; the verifier rejects such modules before the pass can
//! see them, so neither has a counter).
//!
//! **Upstream followed:** LuisaCompute `src/backends/common/spirv_codegen/utils.cpp`,
//! `clear_spirv_codegen_inactive_block_payloads` and its pipeline entry (report keys,
//! the message, the closure classification, the already-cleared skip), and the seed
//! *spirv-codegen* "Structural closure and inactive payload".
//!
//! **Report keys:** `cleared_inactive_block`, `cleared_true_orphan_block`,
//! `cleared_disconnected_role_block`, `removed_instruction`, `removed_phi_incoming`.
//! **Changed:** a block cleared or a phi incoming removed.
//!
//! **Example:**
//! ```text
//! %m: { %x: i32 = load %p; %s: void = store %q, %x; %b: void = br %after; }  (no edge reaches %m)
//! →  %m: { %u: void = unreachable "SPIR-V legalization cleared an inactive block payload"; }
//! ```

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::analysis::StructuralClosure;
use xir_ir::analysis::closure::Membership;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::text::print::printed_block_labels;
use xir_ir::{BlockId, FuncId, Function, Module, SecondaryMap, Value};

/// The message of every `unreachable` this pass writes.
pub const CLEARED_MESSAGE: &str = "SPIR-V legalization cleared an inactive block payload";

/// The `clear-spirv-inactive-payloads` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct ClearSpirvInactivePayloads;

crate::declare_pass! {
    ClearSpirvInactivePayloads: module pass "clear-spirv-inactive-payloads" {
        summary: "Replaces the payload of blocks no executable edge reaches by `unreachable`.",
        form: Either,
        counters: ClearSpirvInactivePayloadsCounters {
            /// Blocks whose payload was replaced.
            cleared_inactive_block: ControlFlow,
            /// … of which outside the structural closure.
            cleared_true_orphan_block: ControlFlow,
            /// … of which disconnected structural role blocks.
            cleared_disconnected_role_block: ControlFlow,
            /// Instructions removed from cleared blocks.
            removed_instruction: ControlFlow,
            /// Phi incomings from inactive blocks removed.
            removed_phi_incoming: Instructions,
        }
    }
}

/// One definition's plan.
struct Plan {
    f: FuncId,
    inactive: Vec<(BlockId, Membership)>,
    live: SecondaryMap<BlockId, bool>,
}

fn label(m: &Module, f: FuncId, b: BlockId) -> String {
    printed_block_labels(m, f, &[b])
        .pop()
        .flatten()
        .unwrap_or_else(|| "an unlisted block".into())
}

fn plan(m: &Module, f: FuncId) -> Result<Option<Plan>, String> {
    let func = m.func(f);
    let closure = StructuralClosure::compute(func).map_err(|e| {
        format!(
            "{}: its structural closure names a block it does not own (as a {})",
            describe_function(m, f),
            e.role
        )
    })?;
    let live = crate::util::reach::reachable(func);
    let inactive: Vec<(BlockId, Membership)> = func
        .block_order
        .iter()
        .filter(|b| !live[**b])
        .map(|b| (*b, closure.membership(*b)))
        .collect();
    if inactive.is_empty() {
        return Ok(None);
    }
    for &b in func.block_order.iter().filter(|b| live[**b]) {
        for &i in &func.blocks[b].insts {
            for v in &func.inst(i).operands {
                if let Value::Inst(d) = v
                    && let Some(db) = func.inst(*d).block
                    && !live[db]
                {
                    return Err(format!(
                        "{}: block {} uses a value defined in inactive block {}",
                        describe_function(m, f),
                        label(m, f, b),
                        label(m, f, db)
                    ));
                }
            }
        }
    }
    Ok(Some(Plan { f, inactive, live }))
}

fn is_cleared(func: &Function, b: BlockId) -> bool {
    matches!(func.blocks[b].insts.as_slice(),
        [only] if matches!(func.inst(*only).kind, InstKind::Unreachable { .. }))
}

fn apply(m: &mut Module, p: &Plan, c: &mut ClearSpirvInactivePayloadsCounters) {
    let func = m.func_mut(p.f);
    let mut dead: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &(b, _) in &p.inactive {
        dead[b] = true;
    }
    for k in 0..func.block_order.len() {
        let b = func.block_order[k];
        if !p.live[b] {
            continue;
        }
        for j in 0..func.blocks[b].insts.len() {
            let i = func.blocks[b].insts[j];
            let d = func.inst_mut(i);
            if !d.is_phi() {
                continue;
            }
            c.removed_phi_incoming += d.phi_retain(|_, b| !dead[b]) as u64;
        }
    }
    for &(b, membership) in &p.inactive {
        if is_cleared(func, b) {
            continue;
        }
        let insts = std::mem::take(&mut func.blocks[b].insts);
        c.removed_instruction += insts.len() as u64;
        for i in insts {
            func.inst_mut(i).block = None;
        }
        Cursor::at_end(func, b).unreachable(CLEARED_MESSAGE);
        c.cleared_inactive_block += 1;
        match membership {
            Membership::TrueOrphan => c.cleared_true_orphan_block += 1,
            _ => c.cleared_disconnected_role_block += 1,
        }
    }
}

impl Pass for ClearSpirvInactivePayloads {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = ClearSpirvInactivePayloadsCounters::default();
        let mut plans = Vec::new();
        for &f in &module.func_order {
            if module.func(f).body.is_none() {
                continue;
            }
            match plan(module, f) {
                Ok(Some(p)) => plans.push(p),
                Ok(None) => {}
                Err(reason) => return Ok(PassRun::refused(reason, c.report())),
            }
        }
        for p in &plans {
            apply(module, p, &mut c);
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}
