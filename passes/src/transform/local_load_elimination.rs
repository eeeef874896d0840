//! `local-load-elimination` — reuse an earlier load of the same thread-local pointer.
//!
//! **What:** a `load` from a pointer into a `local` alloca is replaced by an earlier load
//! of the same pointer value when nothing in between may have written the variable.
//!
//! **Algorithm** (two sweeps per function, as upstream):
//! 1. *Straight-line chains* (a block, then its only successor while that successor has
//!    only this predecessor, from each unvisited block in reverse post-order): the
//!    earliest load per pointer value is remembered; any instruction naming a pointer
//!    into the variable that may write memory (the instruction table's `WRITES` effect:
//!    a `store`, a call, an atomic, …) forgets every pointer into that variable. A load
//!    of a remembered pointer takes the earlier load's value.
//! 2. *Dataflow over the CFG:* the loads reaching each block's end, per pointer, computed
//!    in reverse post-order until nothing changes (at most `2 × blocks + 2` rounds, then
//!    the sweep stops; every intermediate state is sound, because the sets only start
//!    empty and grow). A block starts with the loads every predecessor agrees on (the
//!    entry block with none); the same kills and reuse as in sweep 1 apply inside it.
//!
//! **Tracked pointers:** only pointers that trace through `gep` bases to a `local`
//! alloca whose address never escapes into a phi, a stored value or another lvalue
//! (`util::local_mem`). Pointers are compared as values.
//!
//! **Metadata:** an annotated load (any metadata) is never removed (its metadata would
//! have no owner); it may still serve as the earlier load.
//!
//! **Preconditions:** none (structured or plain CFG; reachable blocks only).
//! **Refusals:** none.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/local_load_elimination.cpp` at
//! `0a8eac2d` (the two sweeps, the agreement rule at merges, the report key). Differences:
//! what kills comes from the instruction table's effects (upstream: any use other than a
//! load or, in sweep 1, a `gep`; a `gep` in sweep 2 and read-only uses no longer kill);
//! the entry block starts empty even when it has predecessors; the dataflow is bounded;
//! a later upstream revision (`146d0b00`) also reuses loads of reference arguments,
//! which this pass does not (reference §6.2: local allocas only).
//!
//! **Report keys:** `removed_load`. **Changed:** `removed_load > 0` (instructions only).
//!
//! **Example:**
//! ```text
//! %a: i32 = load %p;
//! %b: i32 = load %p;            // removed; its uses read %a
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::effects::may_write;
use crate::util::local_mem::{LocalPointers, PointerMap, straight_line_chains};
use rustc_hash::FxHashMap;
use xir_ir::analysis::Cfg;
use xir_ir::edit::Rewriter;
use xir_ir::inst::InstKind;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, SecondaryMap, Value};

/// The `local-load-elimination` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LocalLoadElimination;

crate::declare_pass! {
    LocalLoadElimination: function pass "local-load-elimination" {
        summary: "Replaces a load of a thread-local pointer by an earlier load of it",
        form: Either,
        counters: LocalLoadEliminationCounters {
            /// Loads replaced by an earlier load.
            removed_load: Instructions,
        }
    }
}

impl FunctionPass for LocalLoadElimination {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut LocalLoadEliminationCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let ptrs = LocalPointers::compute(module.func(f));
        let mut rw = Rewriter::for_module(module, f);
        let mut removed = Removed::default();
        for chain in straight_line_chains(&cfg) {
            let mut loaded = PointerMap::default();
            let func = rw.func();
            for b in chain {
                scan_block(func, b, &ptrs, &mut loaded, &mut removed);
            }
        }
        removed.apply(&mut rw);
        dataflow(&mut rw, &cfg, &ptrs, &mut removed);
        counters.removed_load += removed.count;
        Ok(())
    }
}

/// Loads found redundant: load → the earlier load it reads the same value as.
#[derive(Default)]
struct Removed {
    pending: Vec<(InstId, InstId)>,
    /// Every removed load → its replacement (for resolving stale references).
    to: FxHashMap<InstId, InstId>,
    count: u64,
}

impl Removed {
    /// The load `l` stands for now (following earlier removals).
    fn resolve(&self, mut l: InstId) -> InstId {
        while let Some(&n) = self.to.get(&l) {
            l = n;
        }
        l
    }

    fn apply(&mut self, rw: &mut Rewriter<'_>) {
        for (load, earlier) in std::mem::take(&mut self.pending) {
            let earlier = self.resolve(earlier);
            rw.replace_all_uses(Value::Inst(load), Value::Inst(earlier));
            rw.remove(load);
            self.to.insert(load, earlier);
            self.count += 1;
        }
    }
}

/// Walks block `b`, updating the loads known per pointer and recording redundant loads.
fn scan_block(
    func: &Function,
    b: BlockId,
    ptrs: &LocalPointers,
    loaded: &mut PointerMap,
    removed: &mut Removed,
) {
    for &i in &func.blocks[b].insts {
        let d = &func.insts[i];
        if d.kind == InstKind::Load {
            let p = d.operands[0];
            let Some(base) = ptrs.base(p) else { continue };
            match loaded.get(p) {
                Some(earlier) if earlier != i => {
                    if d.metadata.is_empty() {
                        removed.pending.push((i, removed.resolve(earlier)));
                    }
                }
                Some(_) => {}
                None => loaded.insert(base, p, i),
            }
        } else if may_write(&d.kind) {
            for op in &d.operands {
                if let Some(base) = ptrs.base(*op) {
                    loaded.invalidate(base);
                }
            }
        }
    }
}

/// Sweep 2: the reaching-load dataflow.
fn dataflow(rw: &mut Rewriter<'_>, cfg: &Cfg, ptrs: &LocalPointers, removed: &mut Removed) {
    let Some(&entry) = cfg.rpo.first() else { return };
    let mut out: SecondaryMap<BlockId, Option<FxHashMap<Value, InstId>>> =
        SecondaryMap::with_default(None);
    let max_rounds = 2 * cfg.rpo.len() + 2;
    for _ in 0..max_rounds {
        let mut changed = false;
        for &b in &cfg.rpo {
            let mut current = PointerMap::default();
            if b != entry {
                let preds = cfg.preds(b);
                let mut agreed: Option<FxHashMap<Value, InstId>> = None;
                for p in preds {
                    let empty = FxHashMap::default();
                    let pm = out.get(*p).as_ref().unwrap_or(&empty);
                    agreed = Some(match agreed {
                        None => pm
                            .iter()
                            .map(|(k, v)| (*k, removed.resolve(*v)))
                            .collect(),
                        Some(mut a) => {
                            a.retain(|k, v| pm.get(k).is_some_and(|w| removed.resolve(*w) == *v));
                            a
                        }
                    });
                }
                for (p, l) in agreed.unwrap_or_default() {
                    if let Some(base) = ptrs.base(p) {
                        current.insert(base, p, l);
                    }
                }
            }
            scan_block(rw.func(), b, ptrs, &mut current, removed);
            let new_out: FxHashMap<Value, InstId> = current
                .at
                .into_iter()
                .map(|(k, v)| (k, removed.resolve(v)))
                .collect();
            if out.get(b).as_ref() != Some(&new_out) {
                out[b] = Some(new_out);
                changed = true;
            }
            removed.apply(rw);
        }
        if !changed {
            break;
        }
    }
}
