//! `lower-irreducible-cfg` — every multi-entry cycle of a plain CFG gets one entry.
//!
//! **What:** an irreducible region (a cycle entered at several blocks `e0 … ek-1`) gets
//! a new `u32` local, the *selector*, and a new *dispatcher* block; every edge into an
//! entry, from outside the region or inside it, goes through a new edge block that
//! stores the entry's ordinal and branches to the dispatcher, which loads the selector
//! and `indexed_branch`es to the chosen entry (`default e0`, `case i ei`):
//!
//! ```text
//! p: … → ei        becomes        p: … → E;   E: store %sel, i; br D
//!                                 D: %v = load %sel; indexed_branch %v, case 1 e1, …, default e0
//! ```
//!
//! Since the edges from inside the region go through `D` too, `D` is in the cycle and
//! is its only entry: the region is a natural loop headed by `D`. No block of the body is
//! copied (no code growth beyond one block per entry edge), so `restructure-cfg` can then
//! structure it (`lower-irreducible-cfg,restructure-cfg`). The selector is stored on
//! every path into `D` before it is loaded; `mem2reg` promotes it.
//!
//! **Algorithm** (per definition, iterative, no recursion): the regions are found by the
//! recursive SCC decomposition of reducibility: the strongly connected components of the
//! reachable CFG (Kosaraju); a cyclic component with several entries (blocks with a
//! predecessor outside it) is irreducible; one with a single entry, its header, is
//! decomposed again without the header, so an irreducible cycle inside a natural loop
//! is found too. The region whose first entry (reverse post-order) comes first is lowered;
//! the analysis runs again until no region is left (each lowering is `O(V + E)`). Entries
//! are in reverse post-order (selector 0 = the first).
//!
//! **Preconditions:** phi-free (run `reg2mem` first; as upstream, which verifies with
//! `require_no_phi`). A definition with a region must branch only with plain `br` /
//! `cond_br` / `indexed_branch` (structured constructs are reducible by construction; a
//! definition mixing them with an irreducible plain region is refused). Definitions
//! without an irreducible region are left alone (byte-identical), structured or not.
//!
//! **Refusals** (module byte-identical; the whole module is checked before the first
//! mutation, as upstream's module overload does): a phi or an unterminated block in a
//! definition with a region, a reachable terminator other than the plain branches in such
//! a definition, or more lowerings than the definition had reachable blocks (upstream's
//! iteration bound; never reached on valid input, as each lowering removes a region and
//! only nested regions, of fewer blocks, can appear). Each counts in `error`; on a
//! refusal every irreducible region of the module counts in
//! `remaining_irreducible_region` (nothing was lowered).
//!
//! **Upstream followed:** LuisaCompute `include/luisa/xir/passes/lower_irreducible_cfg.h`,
//! `src/xir/passes/lower_irreducible_cfg.cpp` and `irreducible_cfg_analysis.{h,cpp}`
//! (read 2026-12-02): the selector / edge block / dispatcher construction, internal and
//! external entry edges alike, the first entry as the dispatch's default, the recursive
//! SCC decomposition through unique headers, the iteration bound (initial block count),
//! whole-module preflight and the report keys. Differences: entries are ordered by
//! reverse post-order (upstream: its block traversal order); the function body is never
//! an entry here (a cycle through the body has every other block reachable from it, so
//! the body is its only entry), where upstream moves the body; the selector's `alloca`
//! goes after the body's leading allocas.
//!
//! **Checked:** `irreducible_random_cfgs_lower_then_restructure`
//! (`passes/src/tests/cfg_round_trip.rs`): every random plain CFG that `restructure-cfg`
//! refuses as irreducible is lowered (no region left, verifier clean) and then
//! restructured — 4 of seeds 0..300 by default, 36 of 0..3000 with
//! `XIR_CFG_SEEDS=3000`; the corpus files run lowered kernels before/after.
//!
//! **Report keys:** `lowered_region`, `created_dispatch_block`, `created_edge_block`,
//! `remaining_irreducible_region`, `error`. **Changed:** `lowered_region > 0`.
//!
//! **Example:**
//! ```text
//! %entry: cond_br %c, %a, %b    %a: cond_br %x, %b, %out    %b: br %a
//! →  %entry: cond_br %c, %E0, %E1   %E0: store %sel, 0; br %D   %E1: store %sel, 1; br %D
//!    %D: %v = load %sel; indexed_branch %v, case 1 %b, default %a
//!    %a: cond_br %x, %E2, %out      %E2: store %sel, 1; br %D     %b: br %E3 (store 0)
//! ```

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::analysis::Cfg;
use xir_ir::inst::{InstData, InstKind};
use xir_ir::op::AllocaOp;
use xir_ir::text::print::printed_block_labels;
use xir_ir::{BlockId, FuncId, Function, Globals, Module, Value};

/// The `lower-irreducible-cfg` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LowerIrreducibleCfg;

crate::declare_pass! {
    LowerIrreducibleCfg: module pass "lower-irreducible-cfg" {
        summary: "Makes irreducible control flow reducible (one dispatcher per multi-entry cycle).",
        form: Either,
        counters: LowerIrreducibleCfgCounters {
            /// Irreducible regions given a single entry.
            lowered_region: ControlFlow,
            /// Dispatcher blocks created (one per lowered region).
            created_dispatch_block: ControlFlow,
            /// Edge blocks created (one per entry edge).
            created_edge_block: ControlFlow,
            /// Irreducible regions left (on a refusal: all of the module's).
            remaining_irreducible_region: Nothing,
            /// Unsupported input (refusal).
            error: Nothing,
        }
    }
}

/// A multi-entry cycle: its blocks and entries, in reverse post-order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrreducibleRegion {
    /// Every block of the cycle.
    pub blocks: Vec<BlockId>,
    /// The blocks with a predecessor outside the cycle.
    pub entries: Vec<BlockId>,
}

/// The outermost irreducible regions of `func`'s reachable CFG (see the header), ordered
/// by their first entry in reverse post-order. No mutation.
pub fn irreducible_regions(cfg: &Cfg) -> Vec<IrreducibleRegion> {
    let n = cfg.rpo.len();
    let idx = |b: BlockId| cfg.rpo_index[b] as usize;
    let succs = |v: usize| cfg.succs(cfg.rpo[v]).iter().map(|&s| idx(s));
    // Predecessors that are reachable (unreachable blocks are not in the analysis).
    let preds = |v: usize| {
        cfg.preds(cfg.rpo[v])
            .iter()
            .filter(|p| cfg.is_reachable(**p))
            .map(|&p| idx(p))
    };
    const NO: u32 = u32::MAX;
    let mut active = vec![0u32; n]; // epoch of the task holding the node
    let mut visited = vec![0u32; n];
    let mut comp = vec![NO; n];
    let mut regions = Vec::new();
    let mut tasks: Vec<Vec<usize>> = vec![(0..n).collect()];
    let mut epoch = 0u32;
    while let Some(nodes) = tasks.pop() {
        epoch += 1;
        for &v in &nodes {
            active[v] = epoch;
            comp[v] = NO;
        }
        // Kosaraju: finish order over successors, then components over predecessors.
        let mut finish = Vec::with_capacity(nodes.len());
        for &root in &nodes {
            if visited[root] == epoch {
                continue;
            }
            visited[root] = epoch;
            let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
            while let Some(&(v, mut k)) = stack.last() {
                let ss = cfg.succs(cfg.rpo[v]);
                while k < ss.len() && active[idx(ss[k])] != epoch {
                    k += 1;
                }
                if k < ss.len() {
                    let s = idx(ss[k]);
                    stack.last_mut().expect("non-empty").1 = k + 1;
                    if visited[s] != epoch {
                        visited[s] = epoch;
                        stack.push((s, 0));
                    }
                } else {
                    finish.push(v);
                    stack.pop();
                }
            }
        }
        let mut components: Vec<Vec<usize>> = Vec::new();
        for &root in finish.iter().rev() {
            if comp[root] != NO {
                continue;
            }
            let id = components.len() as u32;
            comp[root] = id;
            let mut members = vec![root];
            let mut k = 0;
            while k < members.len() {
                let v = members[k];
                k += 1;
                for p in preds(v) {
                    if active[p] == epoch && comp[p] == NO {
                        comp[p] = id;
                        members.push(p);
                    }
                }
            }
            components.push(members);
        }
        for (id, mut members) in components.into_iter().enumerate() {
            let cyclic = members.len() > 1 || succs(members[0]).any(|s| s == members[0]);
            if !cyclic {
                continue;
            }
            members.sort_unstable();
            let entries: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&v| v == 0 || preds(v).any(|p| active[p] != epoch || comp[p] != id as u32))
                .collect();
            match entries.as_slice() {
                [] => {}
                [h] => {
                    let rest: Vec<usize> = members.iter().copied().filter(|v| v != h).collect();
                    if !rest.is_empty() {
                        tasks.push(rest);
                    }
                }
                _ => regions.push(IrreducibleRegion {
                    blocks: members.iter().map(|&v| cfg.rpo[v]).collect(),
                    entries: entries.iter().map(|&v| cfg.rpo[v]).collect(),
                }),
            }
        }
    }
    regions.sort_by_key(|r| cfg.rpo_index[r.entries[0]]);
    regions
}

/// Why a definition is refused.
enum Refusal {
    /// A block (and what is wrong with it).
    Block(BlockId, &'static str),
    /// Upstream's iteration bound ran out.
    IterationLimit,
}

/// The preflight of one definition: its irreducible regions, or why it is refused.
fn preflight(func: &Function) -> Result<Vec<IrreducibleRegion>, (Refusal, u64)> {
    let cfg = Cfg::compute(func);
    let regions = irreducible_regions(&cfg);
    if regions.is_empty() {
        return Ok(regions);
    }
    let left = regions.len() as u64;
    for &b in &func.block_order {
        let Some(t) = func.terminator(b) else {
            return Err((Refusal::Block(b, "is not terminated"), left));
        };
        if func.blocks[b]
            .insts
            .iter()
            .any(|&i| matches!(func.inst(i).kind, InstKind::Phi))
        {
            return Err((
                Refusal::Block(b, "has a phi (lower-irreducible-cfg needs phi-free input: run reg2mem first)"),
                left,
            ));
        }
        let plain = matches!(
            func.inst(t).kind,
            InstKind::Branch | InstKind::ConditionalBranch | InstKind::IndexedBranch { .. }
        );
        if cfg.is_reachable(b) && !plain && func.inst(t).successors().next().is_some() {
            return Err((
                Refusal::Block(
                    b,
                    "ends in a structured terminator in a function with an irreducible region (lowering needs a plain CFG: run destructure-cfg first)",
                ),
                left,
            ));
        }
    }
    Ok(regions)
}

/// What lowering one definition made.
#[derive(Default)]
struct Lowered {
    regions: u64,
    edges: u64,
}

/// Lowers every irreducible region of `func` (which passed [`preflight`]).
fn lower_function(func: &mut Function, g: &mut Globals<'_>) -> Result<Lowered, Refusal> {
    let mut done = Lowered::default();
    let limit = Cfg::compute(func).rpo.len() as u64;
    loop {
        let cfg = Cfg::compute(func);
        let regions = irreducible_regions(&cfg);
        let Some(r) = regions.first() else {
            return Ok(done);
        };
        if done.regions >= limit {
            return Err(Refusal::IterationLimit);
        }
        if r.entries.contains(&func.body.expect("definition")) {
            // Not reachable on a reachable-only analysis (see the header); fail closed.
            return Err(Refusal::Block(r.entries[0], "is in a cycle through the function body"));
        }
        done.edges += lower_region(func, g, &cfg, r);
        done.regions += 1;
    }
}

/// The selector, dispatcher and edge blocks of one region; returns the edge blocks made.
fn lower_region(func: &mut Function, g: &mut Globals<'_>, cfg: &Cfg, r: &IrreducibleRegion) -> u64 {
    let u32_ty = g.types.u32();
    let body = func.body.expect("definition");
    let allocas = crate::util::edit::alloca_prefix_len(func, body);
    let sel = func.insert_inst_at(
        body,
        allocas,
        InstData::new(InstKind::Alloca(AllocaOp::Local), Some(u32_ty), []),
    );
    let d = func.create_block();
    let v = func.append_inst(d, InstData::new(InstKind::Load, Some(u32_ty), [Value::Inst(sel)]));
    let mut ops = vec![Value::Inst(v), Value::Block(r.entries[0])];
    ops.extend(r.entries[1..].iter().map(|&e| Value::Block(e)));
    let labels = (1..r.entries.len() as u64).collect();
    func.append_inst(d, InstData::new(InstKind::IndexedBranch { labels }, None, ops));
    let mut edges = 0;
    for (k, &e) in r.entries.iter().enumerate() {
        let konst = Value::Const(g.constant(u32_ty, &(k as u32).to_le_bytes()));
        let mut seen: Vec<BlockId> = Vec::new();
        for &p in cfg.preds(e) {
            if !cfg.is_reachable(p) || seen.contains(&p) {
                continue;
            }
            seen.push(p);
            let eb = func.create_block();
            func.append_inst(eb, InstData::new(InstKind::Store, None, [Value::Inst(sel), konst]));
            func.append_inst(eb, InstData::new(InstKind::Branch, None, [Value::Block(d)]));
            let t = func.terminator(p).expect("checked by the preflight");
            for op in func.inst_mut(t).operands.iter_mut() {
                if *op == Value::Block(e) {
                    *op = Value::Block(eb);
                }
            }
            edges += 1;
        }
    }
    edges
}

impl Pass for LowerIrreducibleCfg {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LowerIrreducibleCfgCounters::default();
        let mut todo: Vec<FuncId> = Vec::new();
        let mut first: Option<(FuncId, Refusal)> = None;
        // Irreducible regions of the module as it is (all of them remain on a refusal).
        let mut found = 0u64;
        for &f in &module.func_order {
            if module.func(f).body.is_none() {
                continue;
            }
            match preflight(module.func(f)) {
                Ok(regions) if regions.is_empty() => {}
                Ok(regions) => {
                    found += regions.len() as u64;
                    todo.push(f);
                }
                Err((why, left)) => {
                    c.error += 1;
                    found += left;
                    first.get_or_insert((f, why));
                }
            }
        }
        if first.is_none() {
            // Transactional: each definition is lowered on a copy, committed when all are.
            let constants_before = module.constants.len();
            let mut lowered: Vec<(FuncId, Function)> = Vec::new();
            for &f in &todo {
                let mut copy = module.func(f).clone();
                match lower_function(&mut copy, &mut module.globals()) {
                    Ok(n) => {
                        c.lowered_region += n.regions;
                        c.created_dispatch_block += n.regions;
                        c.created_edge_block += n.edges;
                        lowered.push((f, copy));
                    }
                    Err(why) => {
                        c.error += 1;
                        first = Some((f, why));
                        break;
                    }
                }
            }
            if first.is_none() {
                for (f, func) in lowered {
                    *module.func_mut(f) = func;
                }
                return Ok(PassRun::new(c.changed(), c.report()));
            }
            let new: Vec<_> = module.constants.iter().skip(constants_before).map(|(k, _)| k).collect();
            for k in new {
                module.remove_constant(k);
            }
            c.lowered_region = 0;
            c.created_dispatch_block = 0;
            c.created_edge_block = 0;
        }
        c.remaining_irreducible_region = found;
        let (f, why) = first.expect("set above");
        let func = describe_function(module, f);
        let reason = match why {
            Refusal::Block(b, what) => {
                let label = printed_block_labels(module, f, &[b])
                    .pop()
                    .flatten()
                    .unwrap_or_else(|| "a new block".to_string());
                format!("{func}: block {label} {what}")
            }
            Refusal::IterationLimit => {
                format!("{func}: lowering exceeded the iteration bound (the number of reachable blocks)")
            }
        };
        Ok(PassRun::refused(reason, c.report()))
    }
}
