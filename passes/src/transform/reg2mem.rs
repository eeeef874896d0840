//! `reg2mem` — demote phis and cross-block values to local variables.
//!
//! **What:** produces phi-free IR in which no value is used in a block its definition
//! does not dominate, as `restructure-cfg` and autodiff require. The spill allocas it
//! creates are marked so that `mem2reg` consumes them later and
//! `audit-reg2mem-spills` can prove it did.
//!
//! **Algorithm** (per function with a body):
//! 1. *Phis* (every owned block, reachable or not): an unused phi is deleted; a phi whose
//!    incomings other than itself and `undefined` are one constant, argument or special
//!    register (or nothing) is replaced by it (phis carrying metadata are never replaced);
//!    every other phi gets a `local` alloca marked `reg2mem_spill = phi` (taking over the
//!    phi's `name`), a `store` of each non-`undefined` incoming value just before the
//!    terminator of its incoming block, and becomes a `load` of the alloca in place. All
//!    loads of one block's former phis sit at the block's start and read before any of the
//!    stores at the ends of its predecessors write, so the parallel-copy meaning of phis is
//!    kept.
//! 2. *Cross-block values:* a non-phi, non-lvalue instruction in a reachable block that
//!    has a use in another reachable block its block does not dominate gets an alloca
//!    marked `reg2mem_spill = cross_block` (taking over its `name`), a `store` right after
//!    it, and one reload just before each such use.
//! 3. *Hoisting:* the new allocas go right after the entry block's leading allocas,
//!    followed by every other alloca of a reachable block that is not part of that
//!    prefix, in traversal order (an already canonical prefix is not touched). All
//!    insertions are batched (one rebuild per affected block), so the pass is linear in
//!    the function size.
//!
//! All walks are iterative. **Preconditions:** none (structured or plain CFG).
//! **Refusals:** none. Step 2 only ever fires on input the verifier rejects (a use its
//! definition does not dominate), which is exactly what it exists to legalise.
//!
//! **Differences from upstream, on purpose:** upstream names slots `_phi_<n>` /
//! `_xblock_<n>` from process-global counters and adds `comment` metadata; here a slot
//! carries only its marker plus the spilled value's own `name`, so output is
//! deterministic and `mem2reg` (which keeps allocas with other metadata) can always
//! consume it, giving `reg2mem,mem2reg` an exact round trip. No initial store of
//! `undefined` is emitted (an unstored slot reads as undefined anyway).
//!
//! **Report keys** (upstream order): `lowered_phi` (phis removed, by simplification or
//! demotion), `lowered_cross_block_value`, `hoisted_alloca`. **Changed:** any counter is
//! non-zero (upstream's `changed()`).
//!
//! **Example:**
//! ```text
//! %m:  %x: i32 = phi (%a, %l), (%b, %r)
//! →  entry: %s: i32 = alloca local  [reg2mem_spill = phi]
//!    %l: store %s, %a; br %m   %r: store %s, %b; br %m   %m: %x: i32 = load %s
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::is_invariant;
use crate::util::edit::{InsertionPlan, UseCounts, ValueSubst, alloca_prefix_len, splice_at};
use crate::util::effects::is_lvalue;
use crate::util::phi::incomings;
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::metadata::SpillKind;
use xir_ir::op::AllocaOp;
use xir_ir::uses::UseMap;
use xir_ir::{FuncId, Function, InstId, Metadata, Module, Type, Value};

/// The `reg2mem` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Reg2Mem;

crate::declare_pass! {
    Reg2Mem: function pass "reg2mem" {
        summary: "Demote phis and non-dominated cross-block values to marked local allocas",
        form: Either,
        counters: Reg2MemCounters {
            /// Phis removed, by simplification or demotion.
            lowered_phi: Instructions,
            /// Values spilled because a use is not dominated by the definition.
            lowered_cross_block_value: Instructions,
            /// Allocas moved to the entry block's alloca prefix.
            hoisted_alloca: Instructions,
        }
    }
}

impl FunctionPass for Reg2Mem {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut Reg2MemCounters,
    ) -> Result<(), PassError> {
        let mut slots = Vec::new();
        counters.lowered_phi += lower_phis(module, f, &mut slots);
        let func = module.func_mut(f);
        counters.lowered_cross_block_value += lower_cross_block_values(func, &mut slots);
        counters.hoisted_alloca += hoist_allocas(func, &slots);
        Ok(())
    }
}

/// A new, still detached, marked spill alloca of `ty` (placed by [`hoist_allocas`]).
fn create_slot(f: &mut Function, ty: Type, kind: SpillKind, names: Vec<Metadata>) -> InstId {
    let mut data = InstData::new(InstKind::Alloca(AllocaOp::Local), Some(ty), []);
    data.metadata.push(Metadata::Reg2MemSpill(kind));
    data.metadata.extend(names);
    f.create_inst(data)
}

fn names_of(f: &Function, i: InstId) -> Vec<Metadata> {
    f.insts[i]
        .metadata
        .iter()
        .filter(|m| matches!(m, Metadata::Name(_)))
        .cloned()
        .collect()
}

/// Step 1. Returns the number of phis removed; new slots are appended to `slots`.
fn lower_phis(module: &mut Module, fid: FuncId, slots: &mut Vec<InstId>) -> u64 {
    let f = module.func(fid);
    let phis: Vec<InstId> = f
        .placed_insts()
        .filter(|i| matches!(f.insts[*i].kind, InstKind::Phi))
        .collect();
    if phis.is_empty() {
        return 0;
    }
    let counts = UseCounts::compute(f);
    let mut subst = ValueSubst::new();
    let mut dead = Vec::new();
    let mut plan = InsertionPlan::new();
    for &p in &phis {
        let f = module.func(fid);
        let ty = f.insts[p].ty.expect("invariant: phi has a type");
        let inc = incomings(f, p, &subst);
        if counts.get(p) == 0 {
            dead.push(p);
            continue;
        }
        if f.insts[p].metadata.is_empty() {
            let me = Value::Inst(p);
            let mut others = inc
                .iter()
                .map(|x| x.0)
                .filter(|v| *v != me && !matches!(v, Value::Undef(_)));
            let first = others.next();
            let unique = first.filter(|u| others.all(|v| v == *u));
            match (first, unique) {
                (None, _) => {
                    subst.replace(p, Value::Undef(module.undef(ty)));
                    dead.push(p);
                    continue;
                }
                (Some(_), Some(u)) if is_invariant(u) => {
                    subst.replace(p, u);
                    dead.push(p);
                    continue;
                }
                _ => {}
            }
        }
        let f = module.func_mut(fid);
        let names = names_of(f, p);
        let slot = create_slot(f, ty, SpillKind::Phi, names);
        slots.push(slot);
        for (v, b) in inc {
            if let (false, Some(t)) = (matches!(v, Value::Undef(_)), f.terminator(b)) {
                let store = InstData::new(InstKind::Store, None, [Value::Inst(slot), v]);
                plan.insert_before(f, t, store);
            }
        }
        let d = &mut f.insts[p];
        d.kind = InstKind::Load;
        d.operands.clear();
        d.operands.push(Value::Inst(slot));
        d.metadata.clear();
    }
    let f = module.func_mut(fid);
    plan.apply(f);
    subst.apply(f);
    f.remove_insts(&dead);
    phis.len() as u64
}

/// Step 2. Returns the number of values spilled; new slots are appended to `slots`.
fn lower_cross_block_values(f: &mut Function, slots: &mut Vec<InstId>) -> u64 {
    let cfg = Cfg::compute(f);
    let dom = DomTree::compute(f, &cfg);
    let uses = UseMap::compute(f);
    let mut spills: Vec<(InstId, Vec<(InstId, u32)>)> = Vec::new();
    for &b in &cfg.rpo {
        for &i in &f.blocks[b].insts {
            let d = &f.insts[i];
            if d.kind.is_terminator()
                || d.ty.is_none()
                || is_lvalue(&d.kind)
                || matches!(d.kind, InstKind::Phi)
            {
                continue;
            }
            let far: Vec<(InstId, u32)> = uses
                .uses(Value::Inst(i))
                .iter()
                .filter(|u| {
                    let ud = &f.insts[u.inst];
                    !matches!(ud.kind, InstKind::Phi)
                        && ud
                            .block
                            .is_some_and(|ub| ub != b && dom.contains(ub) && !dom.dominates(b, ub))
                })
                .map(|u| (u.inst, u.index))
                .collect();
            if !far.is_empty() {
                spills.push((i, far));
            }
        }
    }
    let n = spills.len() as u64;
    let mut plan = InsertionPlan::new();
    for (i, far) in spills {
        let ty = f.insts[i].ty.expect("checked above");
        let names = names_of(f, i);
        let slot = create_slot(f, ty, SpillKind::CrossBlock, names);
        slots.push(slot);
        let store = InstData::new(InstKind::Store, None, [Value::Inst(slot), Value::Inst(i)]);
        plan.insert_after(f, i, store);
        for (user, index) in far {
            let load = InstData::new(InstKind::Load, Some(ty), [Value::Inst(slot)]);
            let reload = plan.insert_before(f, user, load);
            f.insts[user].operands[index as usize] = Value::Inst(reload);
        }
    }
    plan.apply(f);
    n
}

/// Step 3: places the new `slots` after the entry block's leading allocas, followed by
/// every other alloca of a reachable block. Returns the number of allocas moved.
fn hoist_allocas(f: &mut Function, slots: &[InstId]) -> u64 {
    let Some(entry) = f.body else { return 0 };
    let cfg = Cfg::compute(f);
    let prefix = alloca_prefix_len(f, entry);
    let mut moving = Vec::new();
    for &b in &cfg.rpo {
        let skip = if b == entry { prefix } else { 0 };
        for &i in &f.blocks[b].insts[skip..] {
            if matches!(f.insts[i].kind, InstKind::Alloca(_)) {
                moving.push(i);
            }
        }
    }
    f.remove_insts(&moving);
    let mut placed: Vec<InstId> = slots.to_vec();
    placed.extend(moving.iter().copied());
    splice_at(f, entry, prefix, &placed);
    moving.len() as u64
}
