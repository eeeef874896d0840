//! `local-store-forward` — forward stored values to later loads of thread-local variables.
//!
//! **What:** a `load` from a pointer into a `local` alloca is replaced by the value the
//! memory is known to hold there, taken from a `store`. Stores are never deleted (that is
//! `dead-store-elimination`'s and `dce`'s job).
//!
//! **Algorithm** (three sweeps per function, as upstream):
//! 1. *Straight-line chains* (a block, then its only successor while that successor has
//!    only this predecessor, from each unvisited block in reverse post-order): the latest
//!    store per pointer value is remembered; a store to a variable first forgets every
//!    pointer into that variable, and so does any other instruction naming a pointer into
//!    it that may write memory (the instruction table's `WRITES` effect: a call, an
//!    atomic, a ray-query update, …); a `gep` or a reading use changes nothing. A load
//!    from a remembered pointer takes the stored value. Pointers are compared as values:
//!    two separate `gep`s with equal indices are different pointers.
//! 2. *Single store:* a variable whose only writing use (a use by an instruction with the
//!    `WRITES` effect) is one `store` to the whole variable: every load
//!    from it or from a `gep` into it that the store dominates (an earlier instruction
//!    of the same block, or a dominating block) takes the stored value, through an
//!    `arithmetic extract` with the GEP chain's indices when it reads a part. Skipped when
//!    the stored value is an `arithmetic insert` or depends (through operands) on the
//!    load itself.
//! 3. *Uniform stores:* a variable whose only writing uses are stores, all of the whole
//!    variable and of the same value: every load dominated by one of
//!    those stores takes that value (again through `extract` for a part).
//!
//! **Tracked pointers:** only pointers that trace through `gep` bases to a `local`
//! alloca, and only allocas whose address never escapes into a phi, a stored value or
//! another lvalue (`util::local_mem`). Shared allocas, reference arguments and resources
//! are never touched.
//!
//! **Metadata:** an annotated load (any metadata) is retained: its metadata would have no
//! unique owner.
//!
//! **Preconditions:** none (structured or plain CFG; reachable blocks only).
//! **Refusals:** none; loads that do not qualify stay.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/local_store_forward.cpp` at
//! `cf470e63` (the three sweeps, the insert and dependence exclusions, the report key).
//! Differences: what may write comes from the instruction table's effects, where
//! upstream counts every use other than a load or a `gep` as a write (a read-only use,
//! such as a cooperative-vector load from the variable, no longer blocks forwarding);
//! upstream's chain sweep also forgets stores when a non-local pointer is used (it never
//! remembers those); escaping allocas are excluded here; the
//! dependence walk is bounded (4,096 values, then the load is kept); annotated loads are
//! kept (reference §6.2).
//!
//! **Report keys:** `removed_load`. **Changed:** `removed_load > 0` (instructions only).
//!
//! **Example:**
//! ```text
//! %p: i32 = alloca local;
//! %0: void = store %p, %a;
//! %v: i32 = load %p;            // removed; its uses read %a
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::effects::may_write;
use crate::util::local_mem::{LocalPointers, PointerMap, positions, straight_line_chains};
use rustc_hash::{FxHashMap, FxHashSet};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::inst::InstKind;
use xir_ir::op::ArithmeticOp;
use xir_ir::{FuncId, Function, InstId, Module, Value};

/// The `local-store-forward` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LocalStoreForward;

crate::declare_pass! {
    LocalStoreForward: function pass "local-store-forward" {
        summary: "Forwards a stored value to later loads of the same thread-local variable",
        form: Either,
        counters: LocalStoreForwardCounters {
            /// Loads replaced by a stored value.
            removed_load: Instructions,
        }
    }
}

/// Values visited before the dependence walk of sweep 2 gives up (and keeps the load).
const DEPENDENCE_BUDGET: usize = 4096;

impl FunctionPass for LocalStoreForward {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut LocalStoreForwardCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let dom = cx.analyses.get::<DomTree>(module, f);
        let ptrs = LocalPointers::compute(module.func(f));
        let mut rw = Rewriter::for_module(module, f);
        counters.removed_load += forward_straight_line(&mut rw, &cfg, &ptrs);
        counters.removed_load += forward_from_whole_stores(&mut rw, &cfg, &dom, &ptrs, Sweep::Single);
        counters.removed_load += forward_from_whole_stores(&mut rw, &cfg, &dom, &ptrs, Sweep::Uniform);
        Ok(())
    }
}

/// Sweep 1: forwarding along straight-line chains.
fn forward_straight_line(rw: &mut Rewriter<'_>, cfg: &Cfg, ptrs: &LocalPointers) -> u64 {
    let mut removable: Vec<(InstId, InstId)> = Vec::new();
    {
        let func = rw.func();
        for chain in straight_line_chains(cfg) {
            let mut latest = PointerMap::default();
            for b in chain {
                for &i in &func.blocks[b].insts {
                    let d = &func.insts[i];
                    match d.kind {
                        InstKind::Load => {
                            if let Some(s) = latest.get(d.operands[0])
                                && d.metadata.is_empty()
                            {
                                removable.push((i, s));
                            }
                        }
                        InstKind::Store => {
                            let p = d.operands[0];
                            if let Some(base) = ptrs.base(p) {
                                latest.invalidate(base);
                                latest.insert(base, p, i);
                            }
                        }
                        _ if may_write(&d.kind) => {
                            for op in &d.operands {
                                if let Some(base) = ptrs.base(*op) {
                                    latest.invalidate(base);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    for &(load, store) in &removable {
        // Read the store's value now: an earlier replacement may have rewritten it.
        let v = rw.inst(store).operands[1];
        rw.replace_all_uses(Value::Inst(load), v);
        rw.remove(load);
    }
    removable.len() as u64
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Sweep {
    /// Sweep 2: one writing use, a whole store.
    Single,
    /// Sweep 3: only loads, stores and GEPs; all stores whole and of one value.
    Uniform,
}

/// Per-variable facts gathered for sweeps 2 and 3.
#[derive(Default)]
struct VarFacts {
    /// Uses by instructions that may write (sweep 2's store count).
    writing_uses: u32,
    /// Stores to the whole variable.
    whole_stores: Vec<InstId>,
    /// A store to a part (through a GEP).
    partial_store: bool,
    /// A use by an instruction other than a store that may write (a call, an atomic, …).
    other_write: bool,
}

/// Sweeps 2 and 3: forwarding from whole-variable stores that dominate the load.
fn forward_from_whole_stores(
    rw: &mut Rewriter<'_>,
    cfg: &Cfg,
    dom: &DomTree,
    ptrs: &LocalPointers,
    sweep: Sweep,
) -> u64 {
    // Variable → the value every load it dominates reads, and the stores that prove it.
    let mut plan: Vec<(InstId, Value)> = Vec::new();
    {
        let func = rw.func();
        let mut vars: FxHashMap<InstId, VarFacts> = FxHashMap::default();
        for i in func.placed_insts() {
            let d = &func.insts[i];
            for (k, op) in d.operands.iter().enumerate() {
                let Some(base) = ptrs.base(*op) else { continue };
                let v = vars.entry(base).or_default();
                match (&d.kind, k) {
                    (InstKind::Store, 0) => {
                        v.writing_uses += 1;
                        if *op == Value::Inst(base) {
                            v.whole_stores.push(i);
                        } else {
                            v.partial_store = true;
                        }
                    }
                    _ if may_write(&d.kind) => {
                        v.writing_uses += 1;
                        v.other_write = true;
                    }
                    _ => {}
                }
            }
        }
        let pos = positions(func);
        let dominates = |s: InstId, l: InstId| -> bool {
            let (Some(sb), Some(lb)) = (func.insts[s].block, func.insts[l].block) else {
                return false;
            };
            if !dom.contains(sb) || !dom.contains(lb) {
                return false;
            }
            if sb == lb {
                pos.get(s) < pos.get(l)
            } else {
                dom.dominates(sb, lb)
            }
        };
        let mut value_of: FxHashMap<InstId, (Value, Vec<InstId>)> = FxHashMap::default();
        for (&base, v) in &vars {
            let chosen = match sweep {
                Sweep::Single => (v.writing_uses == 1 && v.whole_stores.len() == 1)
                    .then(|| v.whole_stores.clone()),
                Sweep::Uniform => {
                    let first = v.whole_stores.first().map(|s| func.insts[*s].operands[1]);
                    (!v.other_write
                        && !v.partial_store
                        && first.is_some()
                        && v.whole_stores
                            .iter()
                            .all(|s| Some(func.insts[*s].operands[1]) == first))
                    .then(|| v.whole_stores.clone())
                }
            };
            if let Some(stores) = chosen {
                let value = func.insts[stores[0]].operands[1];
                value_of.insert(base, (value, stores));
            }
        }
        if value_of.is_empty() {
            return 0;
        }
        // Loads read from a dependence walk are computed once per stored value.
        let mut depends: FxHashMap<Value, Option<FxHashSet<InstId>>> = FxHashMap::default();
        for &b in &cfg.rpo {
            for &l in &func.blocks[b].insts {
                let d = &func.insts[l];
                if d.kind != InstKind::Load || !d.metadata.is_empty() {
                    continue;
                }
                let Some(base) = ptrs.base(d.operands[0]) else { continue };
                let Some((value, stores)) = value_of.get(&base) else { continue };
                if !stores.iter().any(|s| dominates(*s, l)) {
                    continue;
                }
                if sweep == Sweep::Single {
                    if is_insert(func, *value) {
                        continue;
                    }
                    let reached = depends
                        .entry(*value)
                        .or_insert_with(|| operand_closure(func, *value));
                    if reached.as_ref().is_none_or(|set| set.contains(&l)) {
                        continue;
                    }
                }
                plan.push((l, *value));
            }
        }
    }
    for &(load, value) in &plan {
        let ty = rw.inst(load).ty.expect("a load has a result type");
        let indices = gep_indices(rw, rw.inst(load).operands[0]);
        let replacement = if indices.is_empty() {
            value
        } else {
            let mut operands = Vec::with_capacity(indices.len() + 1);
            operands.push(value);
            operands.extend(indices);
            rw.at(InsertPoint::Before(load))
                .arith(ArithmeticOp::Extract, ty, &operands)
        };
        rw.replace_all_uses(Value::Inst(load), replacement);
        rw.remove(load);
    }
    plan.len() as u64
}

/// Whether `v` is an `arithmetic insert`.
fn is_insert(func: &Function, v: Value) -> bool {
    matches!(v, Value::Inst(i) if func.insts[i].kind == InstKind::Arithmetic(ArithmeticOp::Insert))
}

/// The instructions `v` depends on through operands, or `None` past the budget.
fn operand_closure(func: &Function, v: Value) -> Option<FxHashSet<InstId>> {
    let mut seen: FxHashSet<InstId> = FxHashSet::default();
    let mut work = vec![v];
    while let Some(x) = work.pop() {
        let Value::Inst(i) = x else { continue };
        if !seen.insert(i) {
            continue;
        }
        if seen.len() > DEPENDENCE_BUDGET {
            return None;
        }
        work.extend(func.insts[i].operands.iter().copied());
    }
    Some(seen)
}

/// The indices of the GEP chain from the variable to `ptr`, outermost first.
fn gep_indices(rw: &Rewriter<'_>, ptr: Value) -> Vec<Value> {
    let mut groups: Vec<&[Value]> = Vec::new();
    let mut cur = ptr;
    while let Value::Inst(i) = cur {
        let d = rw.inst(i);
        if d.kind != InstKind::Gep {
            break;
        }
        groups.push(&d.operands[1..]);
        cur = d.operands[0];
    }
    groups.iter().rev().flat_map(|g| g.iter().copied()).collect()
}
