//! `restructure-cfg` guard (flag) variables: an exit the structured form cannot take
//! directly is taken one construct at a time.
//!
//! When the walk (step 5) meets an edge `x → y` that no structured exit allows from
//! where `x` stands — typically a `switch` case inside a loop that leaves the loop or
//! continues it (`break` there would name the switch), or an arm that reaches a second
//! join point of its selection that cannot be copied — it asks for a guard: the nearest
//! enclosing construct merge `via` that `x` may reach (the switch's merge, its own
//! selection's merge) and from whose position `y` is one step closer. The walk is then
//! rerun on the plain CFG it started from, rewritten here:
//!
//! ```text
//! x: … br y                      x: … br G          G: store %flag, K; br D
//! (preds of via): br via    →    (preds of via): br D
//!                                D: %v = load %flag; store %flag, 0
//!                                   %c = binary_equal %v, K; cond_br %c, y, via
//! ```
//!
//! `D` takes `via`'s place as the construct's merge; its `if` leaves to `y` from the
//! enclosing construct (a `break`/`continue` of the loop there, or the next guard out when
//! `y` is further away still: the walk asks again). One `u32` local per `via` (allocated
//! and zeroed at the top of the body, so every load reads a stored value, and reset by
//! `D` after each load, so it is zero everywhere except between a `G` and its `D`);
//! each further target `y'` of the same `via` gets the next selector value and a link
//! `cond_br (%v == K'), y', via` appended to `D`'s chain (an `if` chain, not a `switch`:
//! a `switch` case could not `break` or `continue` an enclosing loop). The local stays
//! phi-free, as the precondition asks; `mem2reg` promotes it.
//!
//! Guards are created only when an edge needs one, so a definition that restructures
//! without them is unchanged. Each guard variable counts in `guard_variables`.

use super::Failure;
use crate::util::effects::is_lvalue;
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::entity::SecondaryMap;
use xir_ir::inst::{InstData, InstKind};
use xir_ir::op::{AllocaOp, ArithmeticOp};
use xir_ir::{BlockId, Function, Globals, InstId, Type, Value};

/// What the walk asks for: route `froms → to` through the merge `via`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardRequest {
    /// The blocks whose terminators branch to `to`.
    pub froms: Vec<BlockId>,
    /// The target the structured form cannot reach from them.
    pub to: BlockId,
    /// Where the guard takes the edges.
    pub via: Via,
}

/// The block a guard's dispatch stands in front of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// A merge block of the plain CFG every `from` may reach (or a dispatch block made
    /// for an earlier request).
    Merge(BlockId),
    /// A selection whose only merge is one the walk made to forward its exits to
    /// `target` (not a block of the plain CFG): a new dispatch block becomes its merge,
    /// taking those forwarded edges (`forwarded → target`, selector 1) and the request's
    /// own (selector 2), and branching on to whichever target was chosen.
    NewMerge {
        /// Blocks whose terminators branch to `target` through the forwarding merge.
        forwarded: Vec<BlockId>,
        /// The block the forwarding merge leads to.
        target: BlockId,
        /// The selection's block: the dispatch block is its merge on the rerun even when
        /// the selection does not branch to it directly (its exits all leave through a
        /// nested construct, so the dispatch block is no dominator-tree child of it).
        header: BlockId,
    },
}

/// One guard variable: the dispatch chain in front of its `via` block.
struct Group {
    slot: InstId,
    /// The `load` in the dispatch block.
    load: InstId,
    /// The original merge the chain falls through to; `None` for a dispatch made as a
    /// new merge ([`Via::NewMerge`]): its chain ends in a `br` to its last target.
    via: Option<BlockId>,
    /// The dispatch block (the merge's new place).
    dispatch: BlockId,
    /// The chain's last block: its `cond_br`'s else edge goes to `via` (without `via`:
    /// it ends in `br` to the last target).
    tail: BlockId,
    /// Targets in selector order (selector = index + 1).
    targets: Vec<BlockId>,
}

/// Guard variables of one definition (they survive reruns of the walk).
#[derive(Default)]
pub(super) struct Guards {
    groups: Vec<Group>,
    /// `(selection block, dispatch block)` of each [`Via::NewMerge`].
    designated: Vec<(BlockId, BlockId)>,
    u32_ty: Option<Type>,
    bool_ty: Option<Type>,
}

impl Guards {
    /// Guard variables created.
    pub(super) fn count(&self) -> u64 {
        self.groups.len() as u64
    }

    /// `(selection block, dispatch block)` of each dispatch made as a new merge: the walk
    /// takes that block as the selection's merge.
    pub(super) fn designated_merges(&self) -> &[(BlockId, BlockId)] {
        &self.designated
    }

    /// Applies `r` to `func` (the plain CFG the walk started from). `Ok(false)` when
    /// the request cannot be met (the caller reports the walk's own failure).
    pub(super) fn apply(
        &mut self,
        func: &mut Function,
        g: &mut Globals<'_>,
        r: &GuardRequest,
    ) -> Result<bool, Failure> {
        if r.froms.is_empty() {
            return Ok(false);
        }
        let gi = match &r.via {
            Via::Merge(via) => {
                if r.to == *via {
                    return Ok(false);
                }
                // The group whose dispatch block (or original merge) is `via`.
                match self
                    .groups
                    .iter()
                    .position(|gr| gr.dispatch == *via || gr.via == Some(*via))
                {
                    Some(gi) => gi,
                    None => {
                        let preds: Vec<BlockId> = Cfg::compute(func).preds(*via).to_vec();
                        let gi = self.new_group(func, g, *via, Some(*via));
                        let d = self.groups[gi].dispatch;
                        for p in preds {
                            super::exits::retarget(func, p, *via, d);
                        }
                        gi
                    }
                }
            }
            Via::NewMerge {
                forwarded,
                target,
                header,
            } => {
                if forwarded.is_empty() || r.to == *target {
                    return Ok(false);
                }
                let gi = self.new_group(func, g, *target, None);
                self.designated.push((*header, self.groups[gi].dispatch));
                self.route(func, g, gi, forwarded, *target);
                gi
            }
        };
        self.route(func, g, gi, &r.froms, r.to);
        Ok(spill_undominated(func))
    }

    /// Step 3: a loop leaving to several blocks (`exits`: edges `u → v`, `targets`: the
    /// distinct `v` in order) gets a dispatch block as its single exit target: each exit
    /// stores the selector of its target (index + 1) and goes to it, and its `if` chain
    /// goes on to the chosen target (the last one without a test). Returns the dispatch
    /// block and the chain's other blocks, or `None` when a value would have to be passed
    /// through a local and cannot (a pointer).
    pub(super) fn loop_exits(
        &mut self,
        func: &mut Function,
        g: &mut Globals<'_>,
        exits: &[(BlockId, BlockId)],
        targets: &[BlockId],
    ) -> Option<(BlockId, Vec<BlockId>)> {
        let gi = self.new_group(func, g, targets[0], None);
        for &t in targets {
            let froms: Vec<BlockId> = exits.iter().filter(|e| e.1 == t).map(|e| e.0).collect();
            self.route(func, g, gi, &froms, t);
        }
        let d = self.groups[gi].dispatch;
        let mut chain = Vec::new();
        let mut b = d;
        while let Some(t) = func.terminator(b)
            && matches!(func.inst(t).kind, InstKind::ConditionalBranch)
        {
            b = func.inst(t).operands[2].as_block().expect("verified");
            chain.push(b);
        }
        spill_undominated(func).then_some((d, chain))
    }

    /// A new guard local (zeroed at the top of the body) and a dispatch block that loads
    /// and clears it, then branches to `next` (the original merge `via`, or the first
    /// target of a new merge).
    fn new_group(&mut self, func: &mut Function, g: &mut Globals<'_>, next: BlockId, via: Option<BlockId>) -> usize {
        let u32_ty = *self.u32_ty.get_or_insert_with(|| g.types.u32());
        let entry = func.body.expect("definition");
        let slot = entry_local(func, u32_ty);
        let zero = Value::Const(g.constant(u32_ty, &0u32.to_le_bytes()));
        func.insert_inst_at(
            entry,
            func.position(slot).expect("placed") + 1,
            InstData::new(InstKind::Store, None, [Value::Inst(slot), zero]),
        );
        let d = func.create_block();
        let load = func.append_inst(d, InstData::new(InstKind::Load, Some(u32_ty), [Value::Inst(slot)]));
        func.append_inst(d, InstData::new(InstKind::Store, None, [Value::Inst(slot), zero]));
        func.append_inst(d, InstData::new(InstKind::Branch, None, [Value::Block(next)]));
        self.groups.push(Group {
            slot,
            load,
            via,
            dispatch: d,
            tail: d,
            targets: if via.is_none() { vec![next] } else { Vec::new() },
        });
        self.groups.len() - 1
    }

    /// Makes each of `froms` store the selector of `to` (added to group `gi`'s chain
    /// when new) and go to the dispatch block instead of branching to `to`.
    fn route(&mut self, func: &mut Function, g: &mut Globals<'_>, gi: usize, froms: &[BlockId], to: BlockId) {
        let u32_ty = *self.u32_ty.get_or_insert_with(|| g.types.u32());
        let bool_ty = *self.bool_ty.get_or_insert_with(|| g.types.bool());
        let konst = |g: &mut Globals<'_>, k: u32| Value::Const(g.constant(u32_ty, &k.to_le_bytes()));
        let gr = &mut self.groups[gi];
        let k = match gr.targets.iter().position(|&t| t == to) {
            Some(i) => i as u32 + 1,
            None => {
                gr.targets.push(to);
                let k = gr.targets.len() as u32;
                // A new link. With `via`: the tail's fall-through to `via` becomes
                // `cond_br (v == k), to, via`. Without: the tail's `br last` becomes
                // `cond_br (v == k - 1), last, L` and the new link `L` ends in `br to`.
                let (link, test, then, otherwise) = match gr.via {
                    Some(via) => {
                        let link = if k == 1 {
                            gr.tail
                        } else {
                            let b = func.create_block();
                            func.append_inst(b, InstData::new(InstKind::Branch, None, [Value::Block(via)]));
                            set_else(func, gr.tail, b);
                            b
                        };
                        (link, k, to, via)
                    }
                    None => {
                        let b = func.create_block();
                        func.append_inst(b, InstData::new(InstKind::Branch, None, [Value::Block(to)]));
                        (gr.tail, k - 1, gr.targets[k as usize - 2], b)
                    }
                };
                let kv = konst(g, test);
                let t = func.terminator(link).expect("terminated");
                let c = func.insert_inst_before(
                    t,
                    InstData::new(
                        InstKind::Arithmetic(ArithmeticOp::BinaryEqual),
                        Some(bool_ty),
                        [Value::Inst(gr.load), kv],
                    ),
                );
                let d = func.inst_mut(t);
                d.kind = InstKind::ConditionalBranch;
                d.operands.clear();
                d.operands.extend([Value::Inst(c), Value::Block(then), Value::Block(otherwise)]);
                gr.tail = if gr.via.is_some() { link } else { otherwise };
                k
            }
        };
        let kv = konst(g, k);
        let (slot, dispatch) = (gr.slot, gr.dispatch);
        let mut froms = froms.to_vec();
        froms.sort();
        froms.dedup();
        for x in froms {
            let b = func.create_block();
            func.append_inst(b, InstData::new(InstKind::Store, None, [Value::Inst(slot), kv]));
            func.append_inst(b, InstData::new(InstKind::Branch, None, [Value::Block(dispatch)]));
            super::exits::retarget(func, x, to, b);
        }
    }
}

/// The new paths through a dispatch block can bypass the definition of a value used
/// after it (a value of the plain CFG crossing blocks). Every executed path still runs
/// the definition before the use (the guard only inserts blocks into original paths),
/// so each such value is passed through a new local: stored after its definition,
/// loaded before each use that it no longer dominates; a `getelementptr` is recomputed
/// before each such use when its operands are available there. `false` for any other
/// lvalue (a pointer cannot be stored in a local).
fn spill_undominated(func: &mut Function) -> bool {
    let (cfg, dom) = graph(func);
    let mut broken: Vec<(InstId, Vec<(InstId, usize)>)> = Vec::new();
    // Position of each broken definition in `broken` (`u32::MAX` = none).
    let mut index: SecondaryMap<InstId, u32> = SecondaryMap::with_default(u32::MAX);
    for &b in &cfg.rpo {
        for &u in &func.blocks[b].insts {
            for (k, op) in func.inst(u).operands.iter().enumerate() {
                let Value::Inst(d) = *op else { continue };
                let Some(db) = func.inst(d).block else { continue };
                if db == b || dom.dominates(db, b) {
                    continue;
                }
                match *index.get(d) {
                    u32::MAX => {
                        index[d] = broken.len() as u32;
                        broken.push((d, vec![(u, k)]));
                    }
                    i => broken[i as usize].1.push((u, k)),
                }
            }
        }
    }
    // A pointer cannot be stored in a local; a `getelementptr` whose operands are all
    // available at each use is recomputed there instead (it has no effect).
    let available = |o: &Value, u: InstId| match *o {
        Value::Inst(o) => {
            let (ob, ub) = (func.inst(o).block, func.inst(u).block);
            match (ob, ub) {
                (Some(ob), Some(ub)) if ob == ub => func.position(o) < func.position(u),
                (Some(ob), Some(ub)) => dom.dominates(ob, ub),
                _ => false,
            }
        }
        _ => true,
    };
    let mut remat = Vec::new();
    let mut spill = Vec::new();
    for (d, uses) in broken {
        let data = func.inst(d);
        if is_lvalue(&data.kind) || data.ty.is_none() {
            let ok = matches!(data.kind, InstKind::Gep)
                && uses
                    .iter()
                    .all(|&(u, _)| data.operands.iter().all(|o| available(o, u)));
            if !ok {
                return false;
            }
            remat.push((d, uses));
        } else {
            spill.push((d, uses));
        }
    }
    for (d, uses) in remat {
        for (u, k) in uses {
            let c = func.insert_inst_before(u, func.inst(d).clone());
            func.inst_mut(u).operands[k] = Value::Inst(c);
        }
    }
    for (d, uses) in spill {
        let ty = func.inst(d).ty.expect("checked above");
        let slot = entry_local(func, ty);
        let db = func.inst(d).block.expect("placed");
        let pos = func.position(d).expect("placed") + 1;
        func.insert_inst_at(db, pos, InstData::new(InstKind::Store, None, [Value::Inst(slot), Value::Inst(d)]));
        for (u, k) in uses {
            let l = func.insert_inst_before(u, InstData::new(InstKind::Load, Some(ty), [Value::Inst(slot)]));
            func.inst_mut(u).operands[k] = Value::Inst(l);
        }
    }
    true
}

/// Makes the `cond_br` ending `b` fall through to `new` instead of its else target.
fn set_else(func: &mut Function, b: BlockId, new: BlockId) {
    let t = func.terminator(b).expect("terminated");
    let d = func.inst_mut(t);
    debug_assert!(matches!(d.kind, InstKind::ConditionalBranch));
    d.operands[2] = Value::Block(new);
}

/// The CFG and dominator tree of `func` as it is now.
pub(super) fn graph(func: &Function) -> (Cfg, DomTree) {
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    (cfg, dom)
}

/// A new `alloca local` of `ty` after the allocas that open the body's entry block.
fn entry_local(func: &mut Function, ty: Type) -> InstId {
    let entry = func.body.expect("definition");
    let prefix = func.blocks[entry]
        .insts
        .iter()
        .take_while(|i| matches!(func.inst(**i).kind, InstKind::Alloca(_)))
        .count();
    func.insert_inst_at(
        entry,
        prefix,
        InstData::new(InstKind::Alloca(AllocaOp::Local), Some(ty), []),
    )
}
