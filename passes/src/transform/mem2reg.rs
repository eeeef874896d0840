//! `mem2reg` — promote local variables to SSA values.
//!
//! **What:** replaces loads and stores of a `local` alloca by SSA values, inserting phis
//! where different stores meet, and deletes the alloca.
//!
//! **Algorithm** (LLVM-style, per function; allocas in reverse post-order):
//! 1. *Promotable:* a `local` alloca in a reachable block whose every use is a `load` of it
//!    or a `store` *to* it (never storing the pointer itself), all in reachable blocks. Its
//!    metadata may only be `name` and `reg2mem_spill` (spill markers left by `reg2mem` are
//!    consumed here); the stores must be unannotated, and so must the loads, except that a
//!    load from a spill alloca may carry a `name`. Shared allocas, allocas reached through
//!    GEPs or passed to calls are left alone.
//! 2. *Per block:* walk its loads and stores in order: a load after a known value (an
//!    earlier load or store in the block) takes that value; a store overwritten later in
//!    the block is deleted. Afterwards each block has at most one upward-exposed load and
//!    one store. An alloca that is now only stored to is deleted with its stores.
//! 3. *Phi placement:* live-in blocks are found backwards from the blocks with an
//!    upward-exposed load, stopping at storing blocks; phis go on the iterated dominance
//!    frontier of the storing blocks, restricted to live-in blocks (pruned SSA). A new phi
//!    copies the alloca's `name` metadata.
//! 4. *Renaming:* an upward-exposed load takes its block's phi, else the value reaching the
//!    end of the nearest dominator that stores or has a phi, else `undefined`. Each phi
//!    gets one incoming per distinct predecessor, computed the same way from the
//!    predecessor's end (`undefined` from unreachable predecessors).
//! 5. Inserted phis that are unused, or whose incomings are one invariant value ignoring
//!    `undefined`, are removed again. All replacements are applied in one sweep.
//!
//! Everything is iterative (worklists); the CFG is never changed.
//!
//! **Preconditions:** none (structured or plain CFG; reachable code only).
//! **Refusals:** none; allocas that do not qualify stay as they are.
//!
//! **Report keys** (upstream order): `promoted_alloca`, `removed_store`, `removed_load`,
//! `inserted_phi`. **Changed:** any counter is non-zero (equivalently `promoted_alloca > 0`).
//!
//! **Example:**
//! ```text
//! %p: i32 = alloca local;  store %p, %a  (in %then)  store %p, %b  (in %else)
//! %v: i32 = load %p        (in %merge)   →   %v: i32 = phi (%a, %then), (%b, %else)
//! ```

use crate::analysis::DomFrontiers;
use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::edit::{ValueSubst, phi_prefix_len, splice_at};
use crate::util::phi::{eliminate_phis, redundant_phi};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::op::AllocaOp;
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, FuncId, Function, InstId, Metadata, Module, SecondaryMap, Type, Value};

/// The `mem2reg` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Mem2Reg;

crate::declare_pass! {
    Mem2Reg: function pass "mem2reg" {
        summary: "Promote local allocas accessed only by loads and stores to SSA values and phis",
        form: Either,
        counters: Mem2RegCounters {
            /// Allocas promoted (deleted).
            promoted_alloca: Instructions,
            /// Stores deleted.
            removed_store: Instructions,
            /// Loads replaced by the value they read.
            removed_load: Instructions,
            /// Phis inserted (and kept).
            inserted_phi: Instructions,
        }
    }
}

impl FunctionPass for Mem2Reg {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        info: &mut Mem2RegCounters,
    ) -> Result<(), PassError> {
        let cfg = cx.analyses.get::<Cfg>(module, f);
        let dom = cx.analyses.get::<DomTree>(module, f);
        let df = cx.analyses.get::<DomFrontiers>(module, f);
        let uses = cx.analyses.get::<UseMap>(module, f);
        let candidates: Vec<InstId> = {
            let func = module.func(f);
            cfg.rpo
                .iter()
                .flat_map(|b| func.blocks[*b].insts.iter().copied())
                .filter(|a| promotable(func, &uses, &dom, *a))
                .collect()
        };
        if !candidates.is_empty() {
            let mut st = State::new(&cfg, &dom, &df);
            for a in candidates {
                st.promote(module, f, a, &uses, info);
            }
            let func = module.func_mut(f);
            place_phis(func, std::mem::take(&mut st.pending));
            st.subst.apply(func);
            func.remove_insts(&st.removed);
            let inserted = std::mem::take(&mut st.inserted);
            let total = inserted.len();
            // Inserted phis are ours: the name they copied does not pin them (§5.2
            // concerns values the input owns).
            let gone = eliminate_phis(module, f, inserted, |func, p, subst, n| {
                redundant_phi(func, p, subst, n, false)
            });
            info.inserted_phi += (total - gone) as u64;
        }
        Ok(())
    }
}

/// Whether alloca `a` qualifies (see the module docs, step 1).
fn promotable(f: &Function, uses: &UseMap, dom: &DomTree, a: InstId) -> bool {
    let d = &f.insts[a];
    if d.kind != InstKind::Alloca(AllocaOp::Local) || !d.block.is_some_and(|b| dom.contains(b)) {
        return false;
    }
    let mut spill = false;
    for md in &d.metadata {
        match md {
            Metadata::Name(_) => {}
            Metadata::Reg2MemSpill(_) => spill = true,
            _ => return false,
        }
    }
    uses.uses(Value::Inst(a)).iter().all(|u| {
        let ud = &f.insts[u.inst];
        if !ud.block.is_some_and(|b| dom.contains(b)) {
            return false;
        }
        match ud.kind {
            InstKind::Load => {
                ud.metadata.is_empty()
                    || (spill && ud.metadata.iter().all(|m| matches!(m, Metadata::Name(_))))
            }
            InstKind::Store => {
                u.index == 0
                    && ud.operands.get(1) != Some(&Value::Inst(a))
                    && ud.metadata.is_empty()
            }
            _ => false,
        }
    })
}

/// Places the new phis after the existing leading phis of their blocks, in creation
/// order, with one splice per block.
fn place_phis(f: &mut Function, mut pending: Vec<(BlockId, InstId)>) {
    pending.sort_by_key(|(b, _)| *b);
    for group in pending.chunk_by(|x, y| x.0 == y.0) {
        let b = group[0].0;
        let pos = phi_prefix_len(f, b);
        let phis: Vec<InstId> = group.iter().map(|x| x.1).collect();
        splice_at(f, b, pos, &phis);
    }
}

/// Where a renamed value comes from.
#[derive(Copy, Clone)]
enum Src {
    Val(Value),
    Phi(usize),
    Undef,
}

/// Per-function promotion state; per-alloca maps are reset through `touched`.
struct State<'a> {
    cfg: &'a Cfg,
    dom: &'a DomTree,
    df: &'a DomFrontiers,
    subst: ValueSubst,
    removed: Vec<InstId>,
    inserted: Vec<InstId>,
    /// New phis not placed yet, with their blocks.
    pending: Vec<(BlockId, InstId)>,
    def: SecondaryMap<BlockId, Option<Value>>,
    exposed: SecondaryMap<BlockId, Option<InstId>>,
    live: SecondaryMap<BlockId, bool>,
    phi_at: SecondaryMap<BlockId, Option<usize>>,
    touched: Vec<BlockId>,
}

impl<'a> State<'a> {
    fn new(cfg: &'a Cfg, dom: &'a DomTree, df: &'a DomFrontiers) -> Self {
        Self {
            cfg,
            dom,
            df,
            subst: ValueSubst::new(),
            removed: Vec::new(),
            inserted: Vec::new(),
            pending: Vec::new(),
            def: SecondaryMap::with_default(None),
            exposed: SecondaryMap::with_default(None),
            live: SecondaryMap::with_default(false),
            phi_at: SecondaryMap::with_default(None),
            touched: Vec::new(),
        }
    }

    fn reset(&mut self) {
        for b in self.touched.drain(..) {
            self.def[b] = None;
            self.exposed[b] = None;
            self.live[b] = false;
            self.phi_at[b] = None;
        }
    }

    /// The value reaching the end of `b`: nearest dominator with a store or phi.
    fn reaching(&self, b: BlockId) -> Src {
        let mut cur = Some(b);
        while let Some(x) = cur {
            if let Some(v) = self.def[x] {
                return Src::Val(self.subst.resolve(v));
            }
            if let Some(k) = self.phi_at[x] {
                return Src::Phi(k);
            }
            cur = self.dom.idom(x);
        }
        Src::Undef
    }

    fn promote(
        &mut self,
        module: &mut Module,
        fid: FuncId,
        a: InstId,
        uses: &UseMap,
        info: &mut Mem2RegCounters,
    ) {
        self.reset();
        let f = module.func(fid);
        let ty: Type = f.insts[a].ty.expect("invariant: alloca has a type");
        // Step 2: per-block reduction (uses are listed in program order).
        let mut stores: Vec<InstId> = Vec::new();
        let mut cur: Option<BlockId> = None;
        let mut value: Option<Value> = None;
        let mut store: Option<InstId> = None;
        let mut exposed_loads = 0usize;
        for u in uses.uses(Value::Inst(a)) {
            let i = u.inst;
            let b = f.insts[i].block.expect("invariant: placed user");
            if cur != Some(b) {
                stores.extend(store.take());
                cur = Some(b);
                value = None;
                self.touched.push(b);
            }
            if f.insts[i].kind == InstKind::Load {
                match value {
                    Some(v) => {
                        self.subst.replace(i, v);
                        self.removed.push(i);
                        info.removed_load += 1;
                    }
                    None => {
                        value = Some(Value::Inst(i));
                        self.exposed[b] = Some(i);
                        exposed_loads += 1;
                    }
                }
            } else {
                if let Some(s) = store.replace(i) {
                    self.removed.push(s);
                    info.removed_store += 1;
                }
                let v = f.insts[i].operands[1];
                value = Some(v);
                self.def[b] = Some(v);
            }
        }
        stores.extend(store);
        if exposed_loads > 0 {
            self.place_and_rename(module, fid, ty, a, info);
        }
        info.removed_store += stores.len() as u64;
        self.removed.extend(stores);
        self.removed.push(a);
        info.promoted_alloca += 1;
    }

    fn place_and_rename(
        &mut self,
        module: &mut Module,
        fid: FuncId,
        ty: Type,
        a: InstId,
        info: &mut Mem2RegCounters,
    ) {
        let f = module.func(fid);
        // Live-in blocks.
        let mut work: Vec<BlockId> = self
            .touched
            .iter()
            .copied()
            .filter(|b| self.exposed[*b].is_some())
            .collect();
        let mut def_blocks: Vec<BlockId> = self
            .touched
            .iter()
            .copied()
            .filter(|b| self.def[*b].is_some())
            .collect();
        while let Some(b) = work.pop() {
            if self.live[b] {
                continue;
            }
            self.live[b] = true;
            self.touched.push(b);
            for &p in self.cfg.preds(b) {
                if self.def[p].is_none() && !self.live[p] {
                    work.push(p);
                }
            }
        }
        // Phi placement on the iterated dominance frontier.
        def_blocks.sort_by_key(|b| self.cfg.rpo_index[*b]);
        def_blocks.reverse();
        let mut phi_blocks: Vec<BlockId> = Vec::new();
        while let Some(b) = def_blocks.pop() {
            for &x in self.df.of(b) {
                if self.live[x] && self.phi_at[x].is_none() {
                    self.phi_at[x] = Some(phi_blocks.len());
                    self.touched.push(x);
                    phi_blocks.push(x);
                    def_blocks.push(x);
                }
            }
        }
        // Renaming plan.
        let mut loads: Vec<(InstId, Src)> = Vec::new();
        for &b in &self.touched {
            if let Some(l) = self.exposed[b] {
                let src = match self.phi_at[b] {
                    Some(k) => Src::Phi(k),
                    None => self.dom.idom(b).map_or(Src::Undef, |d| self.reaching(d)),
                };
                loads.push((l, src));
            }
        }
        loads.sort_by_key(|(l, _)| *l);
        loads.dedup_by_key(|(l, _)| *l);
        let mut incomings: Vec<Vec<(Src, BlockId)>> = Vec::with_capacity(phi_blocks.len());
        for &pb in &phi_blocks {
            let mut inc: Vec<(Src, BlockId)> = Vec::new();
            let mut seen: rustc_hash::FxHashSet<BlockId> = rustc_hash::FxHashSet::default();
            for &p in self.cfg.preds(pb) {
                if !seen.insert(p) {
                    continue;
                }
                let src = if self.dom.contains(p) {
                    self.reaching(p)
                } else {
                    Src::Undef
                };
                inc.push((src, p));
            }
            incomings.push(inc);
        }
        let names: Vec<Metadata> = f.insts[a]
            .metadata
            .iter()
            .filter(|m| matches!(m, Metadata::Name(_)))
            .cloned()
            .collect();
        // Materialise: phis first, then values.
        let mut undef: Option<Value> = None;
        let mut phis: Vec<InstId> = Vec::with_capacity(phi_blocks.len());
        for &pb in &phi_blocks {
            // Created detached; `place_phis` splices them in, one sweep per block.
            let mut data = InstData::phi(ty, []);
            data.metadata = names.clone();
            phis.push(module.func_mut(fid).create_inst(data));
            self.pending.push((pb, *phis.last().expect("just pushed")));
        }
        let mut value_of = |src: Src, module: &mut Module| match src {
            Src::Val(v) => v,
            Src::Phi(k) => Value::Inst(phis[k]),
            Src::Undef => *undef.get_or_insert_with(|| Value::Undef(module.undef(ty))),
        };
        for (l, src) in loads {
            let v = value_of(src, module);
            self.subst.replace(l, v);
            self.removed.push(l);
            info.removed_load += 1;
        }
        for (k, inc) in incomings.into_iter().enumerate() {
            let vals: Vec<(Value, BlockId)> = inc
                .into_iter()
                .map(|(s, b)| (value_of(s, module), b))
                .collect();
            module.func_mut(fid).insts[phis[k]].phi_set_edges(vals);
        }
        self.inserted.extend(phis);
    }
}
