//! Pointers into thread-local variables, shared by the local memory passes
//! (`local-store-forward`, `local-load-elimination`, `dead-store-elimination`).
//!
//! A pointer *traces* to its base by following `gep` bases (upstream's
//! `trace_pointer_base_value`); it is *local* when that base is a `local` alloca.
//! Unlike upstream, a local alloca whose address escapes into a value that outlives the
//! instruction using it — a phi incoming, the value operand of a store, the operand of an
//! instruction making another lvalue other than a `gep` base — is not tracked at all:
//! such an alias is not seen again by the passes' instruction-at-a-time invalidation
//! (every other instruction naming the pointer is a use *at its position*: a call, an
//! atomic, a ray-query read, …, and the passes invalidate there). The verifier rejects
//! all three today (lvalues are allocas, GEPs and reference arguments only); the check
//! keeps the passes sound should that change.
//!
//! [`straight_line_chains`] is the block walk the three passes share: chains of blocks
//! where each has one successor edge and the next one predecessor edge, started from
//! each unvisited reachable block in reverse post-order.

use rustc_hash::FxHashMap;
use xir_ir::analysis::Cfg;
use xir_ir::inst::InstKind;
use xir_ir::op::AllocaOp;
use xir_ir::{BlockId, Function, InstId, SecondaryMap, Value};

/// The tracked local base of every pointer-valued instruction of one function.
pub struct LocalPointers {
    /// Traced base of each alloca/GEP instruction: a tracked local alloca, or `None`.
    base: SecondaryMap<InstId, Option<InstId>>,
}

impl LocalPointers {
    /// Traces every instruction of `f` (iteratively; a cyclic GEP chain, which the
    /// verifier rejects, traces to nothing).
    pub fn compute(f: &Function) -> Self {
        let mut raw: SecondaryMap<InstId, Option<InstId>> = SecondaryMap::with_default(None);
        let mut done: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
        let limit = f.insts.len();
        let mut path = Vec::new();
        for i in f.placed_insts() {
            path.clear();
            let mut cur = Value::Inst(i);
            let mut found = None;
            for _ in 0..=limit {
                let Value::Inst(c) = cur else { break };
                if *done.get(c) {
                    found = *raw.get(c);
                    break;
                }
                let d = &f.insts[c];
                match d.kind {
                    InstKind::Alloca(AllocaOp::Local) => {
                        found = Some(c);
                        path.push(c);
                        break;
                    }
                    InstKind::Gep => {
                        path.push(c);
                        match d.operands.first() {
                            Some(b) => cur = *b,
                            None => break,
                        }
                    }
                    _ => {
                        path.push(c);
                        break;
                    }
                }
            }
            for &p in &path {
                raw[p] = found;
                done[p] = true;
            }
        }
        // Allocas whose address escapes into a longer-lived alias are not tracked.
        let mut escaped: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
        for i in f.placed_insts() {
            let d = &f.insts[i];
            for (k, op) in d.operands.iter().enumerate() {
                let Value::Inst(o) = op else { continue };
                let Some(b) = *raw.get(*o) else { continue };
                let aliasing = match d.kind {
                    InstKind::Phi => true,
                    InstKind::Store => k == 1,
                    InstKind::Gep => k != 0,
                    ref other => other.tag().is_lvalue(),
                };
                if aliasing {
                    escaped[b] = true;
                }
            }
        }
        for i in f.placed_insts() {
            if let Some(b) = *raw.get(i)
                && *escaped.get(b)
            {
                raw[i] = None;
            }
        }
        LocalPointers { base: raw }
    }

    /// The tracked local alloca `v` points into, if any.
    #[inline]
    pub fn base(&self, v: Value) -> Option<InstId> {
        match v {
            Value::Inst(i) => *self.base.get(i),
            _ => None,
        }
    }
}

/// Pointers remembered per tracked base, for invalidating every pointer into one
/// variable at once (a write or an opaque use of the variable).
#[derive(Default)]
pub struct PointerMap {
    /// Pointer → the instruction remembered for it (a store or a load).
    pub at: FxHashMap<Value, InstId>,
    by_base: FxHashMap<InstId, Vec<Value>>,
}

impl PointerMap {
    /// Remembers `inst` for `ptr` (whose tracked base is `base`).
    pub fn insert(&mut self, base: InstId, ptr: Value, inst: InstId) {
        if self.at.insert(ptr, inst).is_none() {
            self.by_base.entry(base).or_default().push(ptr);
        }
    }

    /// Forgets every pointer into `base`.
    pub fn invalidate(&mut self, base: InstId) {
        if let Some(ptrs) = self.by_base.remove(&base) {
            for p in ptrs {
                self.at.remove(&p);
            }
        }
    }

    /// The instruction remembered for `ptr`.
    pub fn get(&self, ptr: Value) -> Option<InstId> {
        self.at.get(&ptr).copied()
    }
}

/// The straight-line chains of `cfg` (see the module docs), each in execution order;
/// every reachable block is in exactly one chain.
pub fn straight_line_chains(cfg: &Cfg) -> Vec<Vec<BlockId>> {
    let mut visited: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut chains = Vec::new();
    for &start in &cfg.rpo {
        let mut b = start;
        let mut chain = Vec::new();
        while !*visited.get(b) {
            visited[b] = true;
            chain.push(b);
            let succs = cfg.succs(b);
            if succs.len() != 1 || cfg.preds(succs[0]).len() != 1 {
                break;
            }
            b = succs[0];
        }
        if !chain.is_empty() {
            chains.push(chain);
        }
    }
    chains
}

/// The position of every placed instruction within its block.
pub fn positions(f: &Function) -> SecondaryMap<InstId, u32> {
    let mut pos = SecondaryMap::with_default(0);
    for &b in &f.block_order {
        for (k, &i) in f.blocks[b].insts.iter().enumerate() {
            pos[i] = k as u32;
        }
    }
    pos
}
