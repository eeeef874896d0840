//! `licm` — hoist loop-invariant instructions of a structured loop into its prepare block.
//!
//! **What:** in each structured `loop` whose prepare block ends in `cond_br`, the
//! instructions of the loop's body region whose operands do not change inside the loop
//! and that are safe to execute speculatively are moved into the prepare block, just
//! before its `cond_br`.
//!
//! **Algorithm** (as upstream's `licm.cpp`, read at LuisaCompute `0c84a1aa`; facts only):
//! 1. The body region is every block reached from the loop's body and update blocks
//!    along successor edges without passing through the prepare or merge block (nested
//!    constructs included).
//! 2. Invariant to start with: every instruction outside the region and the prepare
//!    block; constants and arguments. Then, to a fixed point: an instruction of the
//!    prepare block whose operands are all invariant is invariant (it stays where it is);
//!    so is a region instruction whose operands are all invariant, that is pure in the
//!    instruction table and safe to speculate — an `arithmetic` op the table calls
//!    speculatable ([`ArithmeticOp::is_speculatable`]: not division, remainder, shifts or
//!    dynamic element access), a `bitwise_cast`, or a size / device-address query of a
//!    directly bound resource. Never: phis, allocas, terminators, memory reads, numeric
//!    casts (an out-of-range float→int cast), GEPs (an out-of-range index), bindless or
//!    sampling queries. Special registers and `undefined` values count as varying, as
//!    upstream counts them.
//! 3. The region's invariant instructions, in block-list order, are ordered so that each
//!    comes after the ones it uses, then moved before the prepare block's `cond_br`.
//!    Loops are revisited until a round moves nothing, so an instruction can leave a
//!    nest one level per round.
//!
//! **Note:** a structured loop's prepare block runs on every iteration (it computes the
//! condition), so this shortens the body, as upstream's pass does, rather than taking the
//! work out of the loop; the speculation rules matter because the prepare block also runs
//! on the exiting iteration.
//!
//! **Preconditions:** none (plain `cond_br` loops of a destructured CFG are not `loop`
//! instructions and are left alone). **Refusals:** none.
//!
//! **Report keys:** `hoisted`. **Changed:** `hoisted > 0`.
//!
//! **Example:**
//! ```text
//! loop prepare %p, body %b, …      %b: { %s: f32 = arithmetic sin %x; … }
//! →  %p: { …; %s: f32 = arithmetic sin %x; cond_br %c, %b, %m; }
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::edit::splice_at;
use xir_ir::inst::InstKind;
use xir_ir::op::{CastOp, ResourceQueryOp};
use xir_ir::{BlockId, FuncId, Function, InstId, Module, SecondaryMap, Value};

/// The `licm` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Licm;

crate::declare_pass! {
    Licm: function pass "licm" {
        summary: "Hoists loop-invariant, speculatable instructions of structured loops into the prepare block",
        form: Either,
        counters: LicmCounters {
            /// Instructions moved into a prepare block.
            hoisted: Instructions,
        }
    }
}

impl FunctionPass for Licm {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut LicmCounters,
    ) -> Result<(), PassError> {
        let func = module.func_mut(f);
        loop {
            let loops: Vec<InstId> = func
                .placed_insts()
                .filter(|i| matches!(func.insts[*i].kind, InstKind::Loop { .. }))
                .collect();
            // Block-list positions, so that a loop's region comes out in list order
            // without a scan of the whole list per loop (hoisting moves no block).
            let mut position: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(u32::MAX);
            for (k, &b) in func.block_order.iter().enumerate() {
                position[b] = k as u32;
            }
            let mut moved = 0;
            for l in loops {
                moved += hoist_from_loop(func, l, &position);
            }
            if moved == 0 {
                break;
            }
            counters.hoisted += moved as u64;
        }
        Ok(())
    }
}

/// Whether `i` may be executed on a path that did not execute it (step 2's kinds).
fn speculatable(func: &Function, i: InstId) -> bool {
    let kind = &func.insts[i].kind;
    if !kind.is_pure() {
        return false;
    }
    match kind {
        InstKind::Arithmetic(op) => op.is_speculatable(),
        InstKind::Cast(op) => *op == CastOp::BitwiseCast,
        InstKind::ResourceQuery(op, access) => {
            access.is_default()
                && matches!(
                    op,
                    ResourceQueryOp::BufferSize
                        | ResourceQueryOp::ByteBufferSize
                        | ResourceQueryOp::Texture2dSize
                        | ResourceQueryOp::Texture3dSize
                        | ResourceQueryOp::BufferDeviceAddress
                )
        }
        _ => false,
    }
}

/// Hoists what it can out of the body region of `loop_inst`; returns how many moved.
/// `position` is each owned block's place in the block list. The work is proportional to
/// the region, not the function.
fn hoist_from_loop(func: &mut Function, loop_inst: InstId, position: &SecondaryMap<BlockId, u32>) -> usize {
    let d = &func.insts[loop_inst];
    let (InstKind::Loop {
        body: Some(body),
        update: Some(update),
        merge: Some(merge),
    }, Some(prepare)) = (d.kind.clone(), d.operand_blocks().next())
    else {
        return 0;
    };
    let Some(prep_term) = func.terminator(prepare) else {
        return 0;
    };
    if !matches!(func.insts[prep_term].kind, InstKind::ConditionalBranch) {
        return 0;
    }
    // Step 1: the body region.
    let mut region: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut region_blocks: Vec<BlockId> = Vec::new();
    let mut work = Vec::new();
    for b in [body, update] {
        if b != prepare && b != merge && func.has_block(b) && !region[b] {
            region[b] = true;
            work.push(b);
        }
    }
    while let Some(b) = work.pop() {
        region_blocks.push(b);
        let Some(t) = func.terminator(b) else { continue };
        for s in func.insts[t].successors() {
            if s != prepare && s != merge && func.has_block(s) && !region[s] {
                region[s] = true;
                work.push(s);
            }
        }
    }
    region_blocks.sort_by_key(|b| position[*b]);
    // Step 2: invariance to a fixed point. Placed instructions outside the region and the
    // prepare block are invariant; inside, `inside_invariant` says.
    let mut inside_invariant: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
    let is_invariant = |func: &Function, inside: &SecondaryMap<InstId, bool>, j: InstId| match func.insts[j].block {
        Some(b) if !region[b] && b != prepare => true,
        Some(_) => inside[j],
        None => false,
    };
    let operands_invariant = |func: &Function, inside: &SecondaryMap<InstId, bool>, i: InstId| {
        func.insts[i].operands.iter().all(|v| match v {
            Value::Const(_) | Value::Arg(_) => true,
            Value::Inst(j) => is_invariant(func, inside, *j),
            _ => false,
        })
    };
    loop {
        let mut changed = false;
        for b in std::iter::once(prepare).chain(region_blocks.iter().copied()) {
            for &i in &func.blocks[b].insts {
                let k = &func.insts[i].kind;
                if inside_invariant[i]
                    || k.is_terminator()
                    || matches!(k, InstKind::Phi | InstKind::Alloca(_))
                    || !operands_invariant(func, &inside_invariant, i)
                {
                    continue;
                }
                if b == prepare || speculatable(func, i) {
                    inside_invariant[i] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Step 3: candidates in block-list order, then dependencies first.
    let candidates: Vec<InstId> = region_blocks
        .iter()
        .flat_map(|b| func.blocks[*b].insts.iter().copied())
        .filter(|i| inside_invariant[*i] && !func.insts[*i].kind.is_terminator())
        .collect();
    if candidates.is_empty() {
        return 0;
    }
    let mut pending: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
    for &i in &candidates {
        pending[i] = true;
    }
    let mut order = Vec::with_capacity(candidates.len());
    while order.len() < candidates.len() {
        let before = order.len();
        for &i in &candidates {
            if pending[i]
                && !func.insts[i]
                    .operands
                    .iter()
                    .any(|v| matches!(v, Value::Inst(j) if pending[*j]))
            {
                pending[i] = false;
                order.push(i);
            }
        }
        if order.len() == before {
            // A dependency cycle among non-phi instructions is invalid SSA: move nothing.
            return 0;
        }
    }
    func.remove_insts(&order);
    let pos = func.blocks[prepare].insts.len() - 1;
    splice_at(func, prepare, pos, &order);
    order.len()
}
