//! `sccp` — sparse conditional constant propagation.
//!
//! **What:** finds the phis and `arithmetic` instructions that hold one constant on every
//! execution, assuming that branches on constants go only one way, replaces them by that
//! constant and removes them; then turns a plain `cond_br` whose condition is a known
//! `bool` and an `indexed_branch` whose selector is a known integer into a `br` to the
//! taken block, dropping this block's incomings from the phis of the blocks no longer
//! branched to.
//!
//! **Algorithm** (Wegman–Zadeck, as upstream's `sccp.cpp`, read at LuisaCompute
//! `16ba40f5`; facts only): a lattice TOP → CONSTANT → BOTTOM per instruction result.
//! Constants are CONSTANT; arguments, special registers and `undefined` values are
//! BOTTOM (a runtime value is never assumed); every instruction other than a phi or
//! `arithmetic` is BOTTOM once its block executes. Two worklists — blocks found
//! executable, and instructions whose operands changed — run to a fixed point from the
//! body block. A phi meets the incomings on *executable edges* only; `arithmetic` over
//! CONSTANT operands is evaluated by [`util::const_eval`](crate::util::const_eval)
//! (shared with `const-fold`: it declines NaN, subnormals, ambiguous signed zeros,
//! division by zero, `MIN / -1`, out-of-range shifts — a declined evaluation is BOTTOM).
//! Edges: `cond_br` and `indexed_branch` follow a CONSTANT condition or selector to one
//! target; every other terminator — structured `if` and `switch` included, whose frame
//! this pass never rewrites — makes all its successors executable.
//!
//! **Not rewritten:** structured terminators; the canonical false form `cond_br c, body,
//! merge` of a loop prepare block; instructions carrying metadata (a module-interned
//! constant cannot own one occurrence's annotation). Blocks left unreachable stay for
//! `dce` / `simplify-cfg` to remove.
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Report keys:** `folded_inst` (phis and arithmetic replaced by a constant),
//! `removed_branch` (`cond_br` / `indexed_branch` turned into `br`).
//! **Changed:** either is non-zero.
//!
//! **Example:**
//! ```text
//! %h: %i: i32 = phi (%zero, %entry), (%i2, %latch)   // %i2 = %i * 1: %i is always 0
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::const_eval::eval_arithmetic;
use crate::util::constant::{as_bool, as_selector, select_case};
use crate::util::edit::{ValueSubst, replace_terminator_with_branch};
use crate::util::phi::drop_incomings_from;
use crate::util::reach::{is_loop_prepare_exit, loop_prepares};
use smallvec::SmallVec;
use std::collections::HashSet;
use xir_ir::inst::InstKind;
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, ConstId, FuncId, InstId, Module, SecondaryMap, Value};

/// The `sccp` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Sccp;

crate::declare_pass! {
    Sccp: function pass "sccp" {
        summary: "Sparse conditional constant propagation over phis and arithmetic",
        form: Either,
        counters: SccpCounters {
            /// Phis and arithmetic instructions replaced by the constant they always hold.
            folded_inst: Instructions,
            /// Plain `cond_br` / `indexed_branch` on a known value turned into `br`.
            removed_branch: ControlFlow,
        }
    }
}

/// The lattice value of an instruction result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
enum Lattice {
    /// Not known yet (optimistic start).
    #[default]
    Top,
    /// Always this constant.
    Constant(ConstId),
    /// Varies, or unknown.
    Bottom,
}

impl Lattice {
    fn meet(self, other: Lattice) -> Lattice {
        match (self, other) {
            (Lattice::Top, x) | (x, Lattice::Top) => x,
            (Lattice::Constant(a), Lattice::Constant(b)) if a == b => self,
            _ => Lattice::Bottom,
        }
    }
}

/// The solver's state for one function.
struct Solver {
    lattice: SecondaryMap<InstId, Lattice>,
    executable: SecondaryMap<BlockId, bool>,
    edges: HashSet<(BlockId, BlockId)>,
    block_work: Vec<BlockId>,
    inst_work: Vec<InstId>,
    uses: UseMap,
}

impl FunctionPass for Sccp {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut SccpCounters,
    ) -> Result<(), PassError> {
        let Some(entry) = module.func(f).body else {
            return Ok(());
        };
        let mut s = Solver {
            lattice: SecondaryMap::default(),
            executable: SecondaryMap::with_default(false),
            edges: HashSet::new(),
            block_work: Vec::new(),
            inst_work: Vec::new(),
            uses: UseMap::compute(module.func(f)),
        };
        s.executable[entry] = true;
        s.block_work.push(entry);
        let first_new = module.constants.len();
        s.solve(module, f);
        s.fold_values(module, f, counters);
        s.fold_branches(module, f, counters);
        drop_unused_new_constants(module, f, first_new);
        Ok(())
    }
}

impl Solver {
    fn value(&self, v: Value) -> Lattice {
        match v {
            Value::Const(c) => Lattice::Constant(c),
            Value::Inst(i) => self.lattice[i],
            _ => Lattice::Bottom,
        }
    }

    /// The constant `v` always holds, as a value (for the shared condition readers).
    fn known(&self, v: Value) -> Option<Value> {
        match self.value(v) {
            Lattice::Constant(c) => Some(Value::Const(c)),
            _ => None,
        }
    }

    fn solve(&mut self, module: &mut Module, f: FuncId) {
        loop {
            if let Some(b) = self.block_work.pop() {
                let insts = module.func(f).blocks[b].insts.clone();
                for i in insts {
                    self.visit(module, f, i);
                }
            } else if let Some(i) = self.inst_work.pop() {
                let placed = module.func(f).insts[i].block;
                if placed.is_some_and(|b| self.executable[b]) {
                    self.visit(module, f, i);
                }
            } else {
                break;
            }
        }
    }

    fn visit(&mut self, module: &mut Module, f: FuncId, i: InstId) {
        let d = &module.func(f).insts[i];
        let new = match &d.kind {
            InstKind::Phi => {
                let Some(b) = d.block else { return };
                let mut r = Lattice::Top;
                for (v, from) in d.phi_incoming() {
                    if self.edges.contains(&(from, b)) {
                        r = r.meet(self.value(v));
                    }
                }
                r
            }
            InstKind::Arithmetic(op) => {
                let op = *op;
                let mut consts: SmallVec<[ConstId; 3]> = SmallVec::new();
                let mut top = false;
                let mut bottom = false;
                for v in &d.operands {
                    match self.value(*v) {
                        Lattice::Constant(c) => consts.push(c),
                        Lattice::Top => top = true,
                        Lattice::Bottom => bottom = true,
                    }
                }
                match (bottom, top, d.ty) {
                    (true, _, _) | (_, _, None) => Lattice::Bottom,
                    (false, true, _) => Lattice::Top,
                    (false, false, Some(ty)) => {
                        let operands: SmallVec<[_; 3]> = consts
                            .iter()
                            .map(|c| {
                                let cd = &module.constants[*c];
                                (cd.ty, &cd.bytes[..])
                            })
                            .collect();
                        let bytes = eval_arithmetic(&module.types, op, ty, &operands);
                        drop(operands);
                        match bytes {
                            Some(bytes) => Lattice::Constant(module.constant(ty, &bytes)),
                            None => Lattice::Bottom,
                        }
                    }
                }
            }
            k if k.is_terminator() => {
                self.visit_terminator(module, f, i);
                return;
            }
            _ if d.ty.is_some() => Lattice::Bottom,
            _ => return,
        };
        let old = self.lattice[i];
        let merged = old.meet(new);
        if merged != old {
            self.lattice[i] = merged;
            let users: SmallVec<[InstId; 8]> =
                self.uses.insts.get(i).iter().map(|u| u.inst).collect();
            self.inst_work.extend(users);
        }
    }

    fn visit_terminator(&mut self, module: &Module, f: FuncId, t: InstId) {
        let func = module.func(f);
        let d = &func.insts[t];
        let Some(b) = d.block else { return };
        let targets: SmallVec<[BlockId; 4]> = match &d.kind {
            InstKind::ConditionalBranch => {
                let c = d.operands.first().and_then(|c| self.known(*c));
                match (c.and_then(|c| as_bool(module, c)), d.operands.get(1), d.operands.get(2)) {
                    (Some(true), Some(Value::Block(x)), _) | (Some(false), _, Some(Value::Block(x))) => {
                        SmallVec::from_slice(&[*x])
                    }
                    _ => d.successors().collect(),
                }
            }
            InstKind::IndexedBranch { labels } => {
                let blocks: SmallVec<[BlockId; 8]> = d.successors().collect();
                let sel = d
                    .operands
                    .first()
                    .and_then(|v| self.known(*v))
                    .and_then(|v| as_selector(module, v));
                match sel {
                    Some(sel) if !blocks.is_empty() => {
                        SmallVec::from_slice(&[select_case(sel, labels, blocks[0], &blocks[1..])])
                    }
                    _ => blocks.into_iter().collect(),
                }
            }
            _ => d.successors().collect(),
        };
        for to in targets {
            self.mark_edge(func, b, to);
        }
    }

    fn mark_edge(&mut self, func: &xir_ir::Function, from: BlockId, to: BlockId) {
        if !func.has_block(to) || !self.edges.insert((from, to)) {
            return;
        }
        if !self.executable[to] {
            self.executable[to] = true;
            self.block_work.push(to);
        } else {
            let phis = func.blocks[to]
                .insts
                .iter()
                .copied()
                .filter(|i| matches!(func.insts[*i].kind, InstKind::Phi));
            self.inst_work.extend(phis);
        }
    }

    /// Replaces every unannotated phi and arithmetic instruction with a CONSTANT lattice
    /// value by the constant, and removes it.
    fn fold_values(&self, module: &mut Module, f: FuncId, counters: &mut SccpCounters) {
        let func = module.func_mut(f);
        let mut subst = ValueSubst::new();
        let mut folded = Vec::new();
        for i in func.placed_insts() {
            let d = &func.insts[i];
            if !matches!(d.kind, InstKind::Phi | InstKind::Arithmetic(_)) || !d.metadata.is_empty() {
                continue;
            }
            if let Lattice::Constant(c) = self.lattice[i] {
                subst.replace(i, Value::Const(c));
                folded.push(i);
            }
        }
        subst.apply(func);
        func.remove_insts(&folded);
        counters.folded_inst += folded.len() as u64;
    }

    /// Turns plain branches on known values in executable blocks into `br`.
    fn fold_branches(&self, module: &mut Module, f: FuncId, counters: &mut SccpCounters) {
        let func = module.func(f);
        let prepares = loop_prepares(func);
        let mut rewrites: Vec<(BlockId, BlockId, SmallVec<[BlockId; 8]>)> = Vec::new();
        for &b in &func.block_order {
            if !self.executable[b] {
                continue;
            }
            let Some(t) = func.terminator(b) else { continue };
            let d = &func.insts[t];
            let kept = match &d.kind {
                InstKind::ConditionalBranch => {
                    let (Some(c), Some(Value::Block(tb)), Some(Value::Block(fb))) = (
                        d.operands.first().and_then(|c| self.known(*c)).and_then(|c| as_bool(module, c)),
                        d.operands.get(1),
                        d.operands.get(2),
                    ) else {
                        continue;
                    };
                    if !c && is_loop_prepare_exit(func, &prepares, b, *tb, *fb) {
                        continue;
                    }
                    if c { *tb } else { *fb }
                }
                InstKind::IndexedBranch { labels } => {
                    let blocks: SmallVec<[BlockId; 8]> = d.successors().collect();
                    let Some(sel) = d
                        .operands
                        .first()
                        .and_then(|v| self.known(*v))
                        .and_then(|v| as_selector(module, v))
                    else {
                        continue;
                    };
                    if blocks.is_empty() {
                        continue;
                    }
                    select_case(sel, labels, blocks[0], &blocks[1..])
                }
                _ => continue,
            };
            let mut dropped: SmallVec<[BlockId; 8]> =
                d.successors().filter(|s| *s != kept).collect();
            dropped.sort();
            dropped.dedup();
            rewrites.push((b, kept, dropped));
        }
        let func = module.func_mut(f);
        for (b, kept, dropped) in rewrites {
            for s in dropped {
                drop_incomings_from(func, s, b);
            }
            replace_terminator_with_branch(func, b, kept);
            counters.removed_branch += 1;
        }
    }
}

/// Removes the constants the solver interned (index `first_new` on) that no instruction of
/// `f` uses in the end — values that later met to BOTTOM, or annotated instructions left in
/// place — so the module prints as if they had never been made.
fn drop_unused_new_constants(module: &mut Module, f: FuncId, first_new: usize) {
    let fresh: Vec<ConstId> = module.constants.keys().skip(first_new).collect();
    if fresh.is_empty() {
        return;
    }
    let mut used: HashSet<ConstId> = HashSet::new();
    let func = module.func(f);
    for i in func.placed_insts() {
        used.extend(func.insts[i].operands.iter().filter_map(|v| v.as_const()));
    }
    for c in fresh {
        if !used.contains(&c) {
            module.remove_constant(c);
        }
    }
}
