//! `dead-store-elimination` — remove stores to thread-local variables overwritten before
//! any read.
//!
//! **What:** a `store` to a pointer into a `local` alloca is deleted when a later store to
//! the same pointer value follows on every path and nothing in between may read the
//! variable.
//!
//! **Algorithm:** straight-line chains (a block, then its only successor while that
//! successor has only this predecessor, from each unvisited reachable block in reverse
//! post-order). Walking a chain, the last store per pointer value is remembered; a store
//! to a remembered pointer makes the remembered store dead. A `load` from a pointer into
//! the variable, or any other instruction naming such a pointer that has a memory effect
//! in the instruction table (`READS` or `WRITES`: a call, an atomic, a ray-query access,
//! a cooperative load or store, …), forgets every remembered store to that variable. A
//! `gep` (no effect) forgets nothing. Pointers are compared as values, so a store to a
//! part never kills a store to the whole, nor the other way round.
//!
//! **Tracked pointers:** only pointers that trace through `gep` bases to a `local`
//! alloca whose address never escapes into a phi, a stored value or another lvalue
//! (`util::local_mem`). Stores to shared memory, reference arguments and resources are
//! never touched.
//!
//! **Metadata:** an annotated dead store (any metadata) is retained: the overwriting
//! store is not a unique owner for its metadata.
//!
//! **Preconditions:** none (structured or plain CFG; reachable blocks only).
//! **Refusals:** none.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/dead_store_elimination.cpp` at
//! `0c84a1aa` (the chain walk, the kills, annotated stores retained, the report key).
//! Differences: upstream first runs the same walk block by block and then along chains;
//! the chain walk alone finds the same stores (every block is in exactly one chain, and
//! the remembered stores at a block's start only add candidates), so it runs once here;
//! what reads comes from the instruction table's effects (upstream: any use other than
//! a store's pointer or a `gep`); escaping allocas are excluded.
//!
//! **Report keys:** `eliminated_store`. **Changed:** `eliminated_store > 0`
//! (instructions only).
//!
//! **Example:**
//! ```text
//! %0: void = store %p, %a;      // removed
//! %1: void = store %p, %b;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::effects::{may_read, may_write};
use crate::util::local_mem::{LocalPointers, PointerMap, straight_line_chains};
use xir_ir::analysis::Cfg;
use xir_ir::edit::Rewriter;
use xir_ir::inst::InstKind;
use xir_ir::{FuncId, InstId, Module};

/// The `dead-store-elimination` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct DeadStoreElimination;

crate::declare_pass! {
    DeadStoreElimination: function pass "dead-store-elimination" {
        summary: "Removes stores to thread-local variables overwritten before any read",
        form: Either,
        counters: DeadStoreEliminationCounters {
            /// Stores deleted.
            eliminated_store: Instructions,
        }
    }
}

impl FunctionPass for DeadStoreElimination {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut DeadStoreEliminationCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let ptrs = LocalPointers::compute(module.func(f));
        let mut dead: Vec<InstId> = Vec::new();
        {
            let func = module.func(f);
            for chain in straight_line_chains(&cfg) {
                let mut last = PointerMap::default();
                for b in chain {
                    for &i in &func.blocks[b].insts {
                        let d = &func.insts[i];
                        match d.kind {
                            InstKind::Store => {
                                let p = d.operands[0];
                                let Some(base) = ptrs.base(p) else { continue };
                                if let Some(prev) = last.get(p)
                                    && func.insts[prev].metadata.is_empty()
                                {
                                    dead.push(prev);
                                }
                                last.insert(base, p, i);
                            }
                            _ if may_read(&d.kind) || may_write(&d.kind) => {
                                for op in &d.operands {
                                    if let Some(base) = ptrs.base(*op) {
                                        last.invalidate(base);
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        if !dead.is_empty() {
            let mut rw = Rewriter::for_module(module, f);
            for &s in &dead {
                rw.remove(s);
            }
        }
        counters.eliminated_store += dead.len() as u64;
        Ok(())
    }
}
