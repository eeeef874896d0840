//! `restructure-cfg` — a phi-free reducible plain CFG back to structured control flow.
//!
//! **What:** every definition whose control flow is plain (`br`, `cond_br`,
//! `indexed_branch`, `return`, `unreachable`, `raster_discard`) gets structured `if`,
//! `switch`, `loop` and `simple_loop` constructs with `break`/`continue`, following
//! SPIR-V's structured-exit rules: an `if` arm may leave only to its own merge, the
//! nearest enclosing `switch` merge, or the nearest loop's merge or continue block; a
//! `switch` case may not leave to an enclosing switch's merge (nor to a loop merge past
//! it: `break` there would name the switch). Block and instruction identities are kept;
//! the only new blocks are edge trampolines, loop preheaders and merges, and copies of
//! small exit blocks (below). A definition that is already structured is left alone, so
//! the pass is idempotent.
//!
//! **Algorithm** (per definition; all walks iterative, so depth is not bounded by the
//! stack):
//! 1. *Preflight* (no mutation): no phi (run `reg2mem` first), every owned block
//!    terminated, no structured construct mixed with plain branches, and reducible: with
//!    a DFS reverse post-order, every retreating edge `u → v` must have `v` dominate `u`.
//!    An offending edge's strongly connected region is reported with its blocks and its
//!    entries.
//! 2. *Exit blocks:* a reachable block ending in `return`/`unreachable`/`raster_discard`
//!    with several predecessors and at most [`TAIL_DUPLICATION_LIMIT`] instructions is
//!    copied once per extra predecessor (undoing `destructure-cfg`'s single exit, so
//!    early returns inside loops and ifs stay where they were).
//! 3. *Loops:* natural loops (headers = targets of back edges; bodies by a backward walk
//!    from the latches that collapses inner loops to their headers). Each loop must leave
//!    to one block; that block becomes its merge, behind a new trampoline when it has
//!    predecessors outside the loop (no exit at all: a new `unreachable` merge). An edge
//!    leaving two loops at once is a multi-level break and is refused. Each header gets a
//!    dedicated preheader (its single outside predecessor when that ends in `br`, a new
//!    block otherwise; a new body block when the header is the body, taking its allocas).
//!    The preheader's `br` becomes `loop prepare H, body B, update U, merge M` when the
//!    header ends in `cond_br c, B, M` (or `br B`), `B` has no other predecessor and one
//!    latch `U ≠ B` ends in `br H` with every predecessor inside the loop; otherwise
//!    `simple_loop H, merge M`.
//! 4. *Selections:* a walk from the body keeps a stack of constructs. A `cond_br` /
//!    `indexed_branch` in block `X` becomes `if` / `switch`; its merge is the one
//!    dominator-tree child of `X` with two or more forward predecessors that is not a loop
//!    role (none: an `if` gets no merge unless an arm must reach an enclosing `if`'s merge,
//!    then a forwarding merge is created on demand; a `switch` gets an `unreachable`
//!    merge). Every edge is classified: to the innermost selection's merge (`br`, or
//!    `break` for a switch), through merge-less selections to an enclosing selection's
//!    merge (forwarding merges created), to the nearest loop/switch merge (`break`), to
//!    the nearest loop's continue block (`continue`), or into a block whose only forward
//!    predecessor is `X` (the region goes on). An arm whose target is an exit gets a
//!    trampoline block holding that exit. Anything else is an unstructured branch.
//! 5. The candidate is verified (default checks plus unique merges and canonical
//!    `break`/`continue` targets).
//!
//! **Preconditions:** phi-free (run `reg2mem` first), reducible, plain CFG; checked by
//! step 1, which refuses otherwise.
//!
//! **Modes** (`mode=`): `transactional` (default) transforms a copy of each definition,
//! verifies it and commits the whole module only when every definition succeeded; any
//! failure leaves the module byte-identical (a refusal). `in-place-discardable` transforms
//! the definitions themselves (no copies, as SPIR-V's pipeline asks); a failure after the
//! preflight is then a hard error and the module must be discarded. Failures found by the
//! preflight are refusals in both modes.
//!
//! **Bounds** (upstream's safety limits; exhaustion fails the pass, never a partial
//! result): `main-iteration-limit` (10000) bounds the constructs formed per definition;
//! `post-iteration-limit` (64) bounds how many merge-less selections one forwarded exit
//! may cross. Raise them for very large generated functions.
//!
//! **Unreachable blocks** are left exactly as they are (their branches stay plain);
//! `clear-spirv-inactive-payloads` is the pass that empties them.
//!
//! **Upstream followed:** LuisaCompute `include/luisa/xir/passes/restructure_cfg.h`
//! (options, modes, bounds, `changed()`/`succeeded()`, failure counters) and the reference
//! §6.2 / seed "Structured control flow and Phi" for the exit rules. Upstream's
//! algorithm is a much larger fixed point of canonicalization phases with ~45 diagnostic
//! work counters; this is a different (single-walk) algorithm, so those work counters are
//! not published. Upstream verifies input and output at the boundary; here the pipeline
//! verifies the input, and the pass verifies each candidate definition
//! (`boundary_verifier`).
//!
//! **Report keys:** `restructured_loop`, `restructured_if`, `restructured_switch`,
//! `canonicalized_cfg` (auxiliary rewrites: trampolines, preheaders, exit copies,
//! folded `cond_br` with equal arms), `definition_transform_invocation`,
//! `boundary_verifier`, `irreducible_region`, `unstructured_branch`,
//! `invalid_construct`, `iteration_limit`. **Changed:** any of the first four is
//! non-zero.
//!
//! **Example:**
//! ```text
//! %e: cond_br %c, %t, %f   %t: br %m   %f: br %m   %m: return
//! →  %e: if %c, then %t, else %f, merge %m   (arms keep `br %m`)
//! ```

use crate::form::describe_function;
use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::registry::{PassOptionInfo, PassOptions};
use xir_ir::analysis::{Cfg, DomTree};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::text::print::printed_block_labels;
use xir_ir::verify::{VerifyOptions, verify_function};
use xir_ir::{BlockId, FuncId, Function, InstId, Module, SecondaryMap, Value};

/// Exit blocks with at most this many instructions are copied per predecessor.
pub const TAIL_DUPLICATION_LIMIT: usize = 16;

/// The `restructure-cfg` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct RestructureCfg {
    /// `mode=in-place-discardable`.
    pub in_place: bool,
    /// Safety bounds.
    pub limits: Limits,
}

crate::declare_pass! {
    RestructureCfg: module pass "restructure-cfg" {
        summary: "Plain reducible CFG to structured control flow.",
        form: Either,
        options: [
            PassOptionInfo {
                name: "mode",
                default: "transactional",
                help: "transactional (refuse untouched on failure) or in-place-discardable",
            },
            PassOptionInfo {
                name: "main-iteration-limit",
                default: "10000",
                help: "most constructs formed per definition before the pass gives up",
            },
            PassOptionInfo {
                name: "post-iteration-limit",
                default: "64",
                help: "most merge-less selections one forwarded exit may cross",
            },
        ],
        create: create,
        counters: RestructureCfgCounters {
            /// `loop` / `simple_loop` constructs formed.
            restructured_loop: ControlFlow,
            /// `if` constructs formed.
            restructured_if: ControlFlow,
            /// `switch` constructs formed.
            restructured_switch: ControlFlow,
            /// Auxiliary rewrites (trampolines, preheaders, merges, exit copies).
            canonicalized_cfg: ControlFlow,
            /// Definitions transformed.
            definition_transform_invocation: Nothing,
            /// Candidate definitions verified.
            boundary_verifier: Nothing,
            /// Irreducible regions (refusal).
            irreducible_region: Nothing,
            /// Unstructured branches (refusal).
            unstructured_branch: Nothing,
            /// Invalid input or candidates (refusal).
            invalid_construct: Nothing,
            /// Exhausted bounds (refusal).
            iteration_limit: Nothing,
        }
    }
}

fn create(o: &PassOptions) -> Result<RestructureCfg, String> {
    let in_place = match o.get("mode") {
        None | Some("transactional") => false,
        Some("in-place-discardable") => true,
        Some(v) => {
            return Err(format!(
                "option 'mode' expects transactional or in-place-discardable, got '{v}'"
            ));
        }
    };
    Ok(RestructureCfg {
        in_place,
        limits: Limits {
            main: o.get_u64("main-iteration-limit", 10000)?,
            post: o.get_u64("post-iteration-limit", 64)?,
        },
    })
}

/// Safety bounds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Constructs formed per definition.
    pub main: u64,
    /// Merge-less selections one forwarded exit may cross.
    pub post: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            main: 10000,
            post: 64,
        }
    }
}

/// Why a definition cannot be restructured. Blocks are those of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A multi-entry cycle: its blocks and its entry blocks.
    Irreducible {
        /// Every block of the strongly connected region.
        blocks: Vec<BlockId>,
        /// The region's blocks with a predecessor outside it.
        entries: Vec<BlockId>,
    },
    /// A branch the structured form cannot express.
    Unstructured {
        /// Source block.
        from: BlockId,
        /// Target block, when one edge is at fault.
        to: Option<BlockId>,
        /// Why.
        why: &'static str,
    },
    /// Input this pass does not accept (phis, unterminated blocks, mixed forms).
    Invalid {
        /// The block at fault.
        block: BlockId,
        /// What is wrong.
        what: &'static str,
    },
    /// A safety bound ran out.
    IterationLimit {
        /// `main-iteration-limit` or `post-iteration-limit`.
        which: &'static str,
    },
    /// The candidate failed the verifier (first message).
    Verifier(String),
}

impl Failure {
    fn count(&self, c: &mut RestructureCfgCounters) {
        match self {
            Failure::Irreducible { .. } => c.irreducible_region += 1,
            Failure::Unstructured { .. } => c.unstructured_branch += 1,
            Failure::Invalid { .. } | Failure::Verifier(_) => c.invalid_construct += 1,
            Failure::IterationLimit { .. } => c.iteration_limit += 1,
        }
    }

    /// A one-line description naming blocks the way the printed input does.
    pub fn describe(&self, m: &Module, f: FuncId) -> String {
        let label = |bs: &[BlockId]| -> String {
            printed_block_labels(m, f, bs)
                .into_iter()
                .map(|l| l.unwrap_or_else(|| "a new block".to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let func = describe_function(m, f);
        match self {
            Failure::Irreducible { blocks, entries } => format!(
                "{func} has an irreducible region {{{}}} entered at {}",
                label(blocks),
                label(entries)
            ),
            Failure::Unstructured { from, to, why } => match to {
                Some(t) => format!(
                    "{func}: unstructured branch from {} to {}: {why}",
                    label(&[*from]),
                    label(&[*t])
                ),
                None => format!("{func}: block {}: {why}", label(&[*from])),
            },
            Failure::Invalid { block, what } => {
                format!("{func}: block {} {what}", label(&[*block]))
            }
            Failure::IterationLimit { which } => {
                format!("{func}: restructuring exceeded {which}")
            }
            Failure::Verifier(msg) => {
                format!("{func}: the restructured candidate is invalid: {msg}")
            }
        }
    }
}

/// What [`restructure_function`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restructured {
    /// `loop` / `simple_loop` constructs formed.
    pub loops: u64,
    /// `if` constructs formed.
    pub ifs: u64,
    /// `switch` constructs formed.
    pub switches: u64,
    /// Auxiliary rewrites.
    pub canonicalized: u64,
}

impl Restructured {
    fn add_to(&self, c: &mut RestructureCfgCounters) {
        c.restructured_loop += self.loops;
        c.restructured_if += self.ifs;
        c.restructured_switch += self.switches;
        c.canonicalized_cfg += self.canonicalized;
    }
}

/// Whether `func` needs restructuring (`Ok(false)`: already structured or straight-line),
/// or why it cannot be restructured. No mutation.
pub fn preflight(func: &Function) -> Result<bool, Failure> {
    let mut structured = false;
    let mut plain = false;
    for &b in &func.block_order {
        let Some(t) = func.terminator(b) else {
            return Err(Failure::Invalid {
                block: b,
                what: "is not terminated",
            });
        };
        for &i in &func.blocks[b].insts {
            if matches!(func.inst(i).kind, InstKind::Phi { .. }) {
                return Err(Failure::Invalid {
                    block: b,
                    what: "has a phi (restructure-cfg needs phi-free input: run reg2mem first)",
                });
            }
        }
        let k = &func.inst(t).kind;
        if matches!(
            k,
            InstKind::AutodiffScope { .. }
                | InstKind::Outline { .. }
                | InstKind::RayQueryLoop { .. }
        ) {
            return Err(Failure::Invalid {
                block: b,
                what: "ends in an `autodiff`, `outline` or `ray_query_loop` region, which restructure-cfg does not handle",
            });
        }
        if k.tag().is_structured() || matches!(k, InstKind::Break | InstKind::Continue) {
            structured = true;
        }
        if matches!(
            k,
            InstKind::ConditionalBranch | InstKind::IndexedBranch { .. }
        ) {
            plain = true;
        }
    }
    if structured && plain {
        let b = func
            .block_order
            .iter()
            .copied()
            .find(|b| {
                func.terminator(*b).is_some_and(|t| {
                    matches!(
                        func.inst(t).kind,
                        InstKind::ConditionalBranch | InstKind::IndexedBranch { .. }
                    )
                })
            })
            .expect("found above");
        return Err(Failure::Invalid {
            block: b,
            what: "branches plainly in a function that already has structured constructs",
        });
    }
    if structured {
        return Ok(false);
    }
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    check_reducible(&cfg, &dom)?;
    // Straight-line code with no loop needs nothing either.
    let has_back_edge = cfg.rpo.iter().any(|&b| {
        cfg.succs(b)
            .iter()
            .any(|&s| cfg.rpo_index[s] <= cfg.rpo_index[b])
    });
    Ok(plain || has_back_edge)
}

/// Every retreating edge (with respect to the DFS behind `cfg.rpo`) must be a back edge.
fn check_reducible(cfg: &Cfg, dom: &DomTree) -> Result<(), Failure> {
    for &u in &cfg.rpo {
        for &v in cfg.succs(u) {
            if cfg.rpo_index[v] <= cfg.rpo_index[u] && !dom.dominates(v, u) {
                let blocks = scc_of(cfg, v);
                let mut inside: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
                for &b in &blocks {
                    inside[b] = true;
                }
                let entries = blocks
                    .iter()
                    .copied()
                    .filter(|&b| {
                        cfg.preds(b)
                            .iter()
                            .any(|p| cfg.is_reachable(*p) && !inside[*p])
                    })
                    .collect();
                return Err(Failure::Irreducible { blocks, entries });
            }
        }
    }
    Ok(())
}

/// The strongly connected component of `v` (forward ∩ backward reachability), in RPO.
fn scc_of(cfg: &Cfg, v: BlockId) -> Vec<BlockId> {
    let walk = |next: &dyn Fn(BlockId) -> Vec<BlockId>| {
        let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        let mut work = vec![v];
        seen[v] = true;
        while let Some(b) = work.pop() {
            for s in next(b) {
                if cfg.is_reachable(s) && !seen[s] {
                    seen[s] = true;
                    work.push(s);
                }
            }
        }
        seen
    };
    let fwd = walk(&|b| cfg.succs(b).to_vec());
    let bwd = walk(&|b| cfg.preds(b).to_vec());
    cfg.rpo
        .iter()
        .copied()
        .filter(|b| fwd[*b] && bwd[*b])
        .collect()
}

impl Pass for RestructureCfg {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = RestructureCfgCounters::default();
        let mut todo = Vec::new();
        let mut first: Option<(FuncId, Failure)> = None;
        for &f in &module.func_order {
            let func = module.func(f);
            if func.body.is_none() {
                continue;
            }
            match preflight(func) {
                Ok(true) => todo.push(f),
                Ok(false) => {}
                Err(e) => {
                    e.count(&mut c);
                    first.get_or_insert((f, e));
                }
            }
        }
        if let Some((f, e)) = first {
            return Ok(PassRun::refused(e.describe(module, f), c.report()));
        }
        let opts = VerifyOptions {
            require_unique_merge_blocks: true,
            require_canonical_break_continue_targets: true,
            ..VerifyOptions::default()
        };
        let mut originals: Vec<(FuncId, Function)> = Vec::new();
        for &f in &todo {
            c.definition_transform_invocation += 1;
            let result = if self.in_place {
                restructure_function(module.func_mut(f), self.limits)
            } else {
                let mut copy = module.func(f).clone();
                let r = restructure_function(&mut copy, self.limits);
                if r.is_ok() {
                    originals.push((f, std::mem::replace(module.func_mut(f), copy)));
                }
                r
            };
            let result = result.and_then(|n| {
                c.boundary_verifier += 1;
                match verify_function(module, f, &opts, None).first() {
                    None => Ok(n),
                    Some(d) => {
                        if !self.in_place {
                            let (_, orig) = originals.pop().expect("pushed above");
                            *module.func_mut(f) = orig;
                        }
                        Err(Failure::Verifier(d.message.clone()))
                    }
                }
            });
            match result {
                Ok(n) => n.add_to(&mut c),
                Err(e) => {
                    e.count(&mut c);
                    if self.in_place {
                        return Err(PassError::new(format!(
                            "restructure-cfg (mode=in-place-discardable) failed after mutating: {}",
                            e.describe(module, f)
                        )));
                    }
                    // Roll back every committed definition, then name the input's blocks.
                    for (g, orig) in originals.drain(..).rev() {
                        *module.func_mut(g) = orig;
                    }
                    return Ok(PassRun::refused(e.describe(module, f), c.report()));
                }
            }
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

const NONE: u32 = u32::MAX;

/// Restructures one definition that passed [`preflight`] with `Ok(true)`.
pub fn restructure_function(func: &mut Function, limits: Limits) -> Result<Restructured, Failure> {
    let mut n = Restructured::default();
    n.canonicalized += fold_equal_arms(func);
    n.canonicalized += duplicate_exit_joins(func);
    let loops = canonicalize_loops(func, &mut n)?;
    let mut w = Walker::new(func, loops, limits);
    w.run(&mut n)?;
    Ok(n)
}

/// `cond_br c, X, X` → `br X`.
fn fold_equal_arms(func: &mut Function) -> u64 {
    let mut n = 0;
    for k in 0..func.block_order.len() {
        let b = func.block_order[k];
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let d = func.inst_mut(t);
        if matches!(d.kind, InstKind::ConditionalBranch) && d.operands[1] == d.operands[2] {
            let target = d.operands[1];
            d.kind = InstKind::Branch;
            d.operands.clear();
            d.operands.push(target);
            n += 1;
        }
    }
    n
}

/// Whether `b` ends in `return`/`unreachable`/`raster_discard` and is small enough to copy.
fn is_small_exit(func: &Function, b: BlockId) -> bool {
    func.terminator(b).is_some_and(|t| {
        matches!(
            func.inst(t).kind,
            InstKind::Return | InstKind::Unreachable { .. } | InstKind::RasterDiscard
        )
    }) && func.blocks[b].insts.len() <= TAIL_DUPLICATION_LIMIT
}

/// Step 2 (selections): where a branch has several join points, the small exit blocks
/// among them are copied once per extra predecessor, so that one join remains.
fn duplicate_exit_joins(func: &mut Function) -> u64 {
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let fwd = |b: BlockId| -> Vec<BlockId> {
        let mut v: Vec<BlockId> = cfg
            .preds(b)
            .iter()
            .copied()
            .filter(|&p| cfg.is_reachable(p) && !dom.dominates(b, p))
            .collect();
        v.dedup();
        v
    };
    let mut copy: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
    for &x in &cfg.rpo {
        if cfg.succs(x).len() < 2 {
            continue;
        }
        let joins: Vec<BlockId> = dom
            .children(x)
            .iter()
            .copied()
            .filter(|&c| fwd(c).len() >= 2)
            .collect();
        if joins.len() < 2 {
            continue;
        }
        for &j in &joins {
            if is_small_exit(func, j) {
                copy.push((j, fwd(j)));
            }
        }
    }
    let mut n = 0;
    for (e, preds) in copy {
        for &p in preds.iter().skip(1) {
            let c = clone_block(func, e);
            retarget(func, p, e, c);
            n += 1;
        }
    }
    n
}

/// A copy of block `b` (instructions and metadata; uses inside it remapped).
fn clone_block(func: &mut Function, b: BlockId) -> BlockId {
    let c = func.create_block();
    func.blocks[c].metadata = func.blocks[b].metadata.clone();
    let insts = func.blocks[b].insts.clone();
    let mut map: Vec<(InstId, InstId)> = Vec::with_capacity(insts.len());
    for i in insts {
        let mut d = func.inst(i).clone();
        for op in d.operands.iter_mut() {
            if let Value::Inst(x) = op
                && let Some((_, y)) = map.iter().find(|(o, _)| o == x)
            {
                *op = Value::Inst(*y);
            }
        }
        let ni = func.append_inst(c, d);
        map.push((i, ni));
    }
    c
}

/// Makes the terminator of `p` branch to `new` wherever it branched to `old`.
fn retarget(func: &mut Function, p: BlockId, old: BlockId, new: BlockId) {
    let t = func.terminator(p).expect("terminated");
    for op in func.inst_mut(t).operands.iter_mut() {
        if *op == Value::Block(old) {
            *op = Value::Block(new);
        }
    }
}

/// A new block holding only `kind target`.
fn exit_block(func: &mut Function, kind: InstKind, target: BlockId) -> BlockId {
    let b = func.create_block();
    func.append_inst(b, InstData::new(kind, None, [Value::Block(target)]));
    b
}

/// The shape chosen for a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// `simple_loop header`.
    Simple,
    /// `loop prepare header, body, update`.
    Loop { body: BlockId, update: BlockId },
}

/// One natural loop after canonicalization.
#[derive(Clone, Debug)]
struct LoopInfo {
    header: BlockId,
    merge: BlockId,
    preheader: BlockId,
    shape: Shape,
}

/// Loop nesting of the current CFG (step 3's analysis).
struct LoopForest {
    headers: Vec<BlockId>,
    parent: Vec<u32>,
    depth: Vec<u32>,
    loop_of: SecondaryMap<BlockId, u32>,
}

impl LoopForest {
    fn compute(cfg: &Cfg, dom: &DomTree) -> Self {
        let mut headers: Vec<BlockId> = cfg
            .rpo
            .iter()
            .copied()
            .filter(|&h| cfg.preds(h).iter().any(|&p| dom.dominates(h, p)))
            .collect();
        headers.reverse(); // inner loops (later in RPO) first
        let mut lf = LoopForest {
            parent: vec![NONE; headers.len()],
            depth: vec![0; headers.len()],
            loop_of: SecondaryMap::with_default(NONE),
            headers,
        };
        for li in 0..lf.headers.len() {
            let h = lf.headers[li];
            lf.loop_of[h] = li as u32;
            let mut work: Vec<BlockId> = cfg
                .preds(h)
                .iter()
                .copied()
                .filter(|&p| dom.dominates(h, p))
                .collect();
            while let Some(x) = work.pop() {
                if x == h {
                    continue;
                }
                let l = lf.loop_of[x];
                if l == NONE {
                    lf.loop_of[x] = li as u32;
                    work.extend(
                        cfg.preds(x)
                            .iter()
                            .copied()
                            .filter(|p| cfg.is_reachable(*p)),
                    );
                    continue;
                }
                let mut top = l;
                while lf.parent[top as usize] != NONE {
                    top = lf.parent[top as usize];
                }
                if top as usize == li {
                    continue;
                }
                lf.parent[top as usize] = li as u32;
                let g = lf.headers[top as usize];
                work.extend(
                    cfg.preds(g)
                        .iter()
                        .copied()
                        .filter(|&p| cfg.is_reachable(p) && !dom.dominates(g, p)),
                );
            }
        }
        for li in (0..lf.headers.len()).rev() {
            let p = lf.parent[li];
            lf.depth[li] = if p == NONE {
                0
            } else {
                lf.depth[p as usize] + 1
            };
        }
        lf
    }

    fn contains(&self, l: u32, b: BlockId) -> bool {
        let mut g = self.loop_of[b];
        while g != NONE && self.depth[g as usize] > self.depth[l as usize] {
            g = self.parent[g as usize];
        }
        g == l
    }

    /// Whether `a` is `l` or one of its enclosing loops.
    fn is_ancestor(&self, a: u32, l: u32) -> bool {
        let mut g = l;
        while g != NONE && self.depth[g as usize] > self.depth[a as usize] {
            g = self.parent[g as usize];
        }
        g == a
    }

    /// The innermost loop containing `l`'s parent chain member that also contains `b`.
    fn nearest_containing(&self, l: u32, b: BlockId) -> u32 {
        let mut g = self.parent[l as usize];
        while g != NONE && !self.contains(g, b) {
            g = self.parent[g as usize];
        }
        g
    }
}

/// Grows each loop (innermost first) while it leaves to more than one block: an exit
/// target whose every reachable predecessor is in the loop, that heads no loop and lies
/// in no loop the current one is not part of, joins the loop (earliest in RPO first).
/// Such a block never returns to the header, so it is code after a `break` path, not
/// after the loop; the natural loop alone would leave to it and to the real merge.
fn absorb_exit_paths(func: &mut Function, cfg: &Cfg, lf: &mut LoopForest) -> u64 {
    let mut copies = 0;
    let count = lf.headers.len();
    let mut own: Vec<Vec<BlockId>> = vec![Vec::new(); count];
    for &b in &cfg.rpo {
        if lf.loop_of[b] != NONE {
            own[lf.loop_of[b] as usize].push(b);
        }
    }
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); count];
    for li in 0..count {
        if lf.parent[li] != NONE {
            children[lf.parent[li] as usize].push(li as u32);
        }
    }
    let mut stamp: SecondaryMap<BlockId, u32> = SecondaryMap::with_default(NONE);
    for li in 0..count as u32 {
        // Members: the own lists of the loop and its descendants (stale entries filtered).
        let mut members = Vec::new();
        let mut stack = vec![li];
        while let Some(l) = stack.pop() {
            stack.extend(children[l as usize].iter().copied());
            for &b in &own[l as usize] {
                if stamp[b] != li && lf.contains(li, b) {
                    stamp[b] = li;
                    members.push(b);
                }
            }
        }
        let mut exits: Vec<(BlockId, BlockId)> = Vec::new();
        for &u in &members {
            for &v in cfg.succs(u) {
                if !lf.contains(li, v) {
                    exits.push((u, v));
                }
            }
        }
        loop {
            let mut targets: Vec<BlockId> = exits.iter().map(|e| e.1).collect();
            targets.sort_by_key(|b| cfg.rpo_index[*b]);
            targets.dedup();
            if targets.len() <= 1 {
                break;
            }
            let absorbable = |v: BlockId| -> bool {
                let l = lf.loop_of[v];
                if l != NONE && (lf.headers[l as usize] == v || !lf.is_ancestor(l, li)) {
                    return false;
                }
                cfg.preds(v)
                    .iter()
                    .all(|&p| !cfg.is_reachable(p) || lf.contains(li, p))
            };
            let pick = targets
                .iter()
                .copied()
                .find(|v| cfg.succs(*v).is_empty() && absorbable(*v))
                .or_else(|| targets.iter().copied().find(|v| absorbable(*v)));
            let Some(v) = pick else {
                // A small exit block shared with code outside the loop: the loop gets
                // its own copy.
                let Some(v) = targets.iter().copied().find(|v| is_small_exit(func, *v)) else {
                    break;
                };
                let c = clone_block(func, v);
                for &(u, _) in exits.iter().filter(|e| e.1 == v) {
                    retarget(func, u, v, c);
                }
                lf.loop_of[c] = li;
                exits.retain(|e| e.1 != v);
                copies += 1;
                continue;
            };
            lf.loop_of[v] = li;
            own[li as usize].push(v);
            exits.retain(|e| e.1 != v);
            for &s in cfg.succs(v) {
                if !lf.contains(li, s) {
                    exits.push((v, s));
                }
            }
        }
    }
    copies
}

/// Step 3: merges, preheaders and shapes of every natural loop.
fn canonicalize_loops(func: &mut Function, n: &mut Restructured) -> Result<Vec<LoopInfo>, Failure> {
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let mut lf = LoopForest::compute(&cfg, &dom);
    let count = lf.headers.len();
    if count == 0 {
        return Ok(Vec::new());
    }
    let copies = absorb_exit_paths(func, &cfg, &mut lf);
    n.canonicalized += copies;
    let cfg = if copies > 0 { Cfg::compute(func) } else { cfg };
    // Exit edges per loop; an edge leaving two loops is a multi-level break.
    let mut exits: Vec<Vec<(BlockId, BlockId)>> = vec![Vec::new(); count];
    for &u in &cfg.rpo {
        let lu = lf.loop_of[u];
        if lu == NONE {
            continue;
        }
        for &v in cfg.succs(u) {
            let mut g = lu;
            let mut left = 0;
            while g != NONE && !lf.contains(g, v) {
                if left == 0 {
                    exits[g as usize].push((u, v));
                }
                left += 1;
                g = lf.parent[g as usize];
            }
            if left > 1 {
                return Err(Failure::Unstructured {
                    from: u,
                    to: Some(v),
                    why: "the branch leaves several loops at once",
                });
            }
        }
    }
    // Merges.
    let mut merges: Vec<BlockId> = Vec::with_capacity(count);
    for (li, loop_exits) in exits.iter().enumerate() {
        let mut targets: Vec<BlockId> = loop_exits.iter().map(|e| e.1).collect();
        targets.sort();
        targets.dedup();
        let h = lf.headers[li];
        let merge = match targets.as_slice() {
            [] => {
                let m = func.create_block();
                func.append_inst(
                    m,
                    InstData::new(
                        InstKind::Unreachable {
                            message: String::new(),
                        },
                        None,
                        [],
                    ),
                );
                lf.loop_of[m] = lf.parent[li];
                n.canonicalized += 1;
                m
            }
            [v] => {
                let v = *v;
                let is_header = lf.loop_of[v] != NONE && lf.headers[lf.loop_of[v] as usize] == v;
                let inside = !is_header
                    && cfg
                        .preds(v)
                        .iter()
                        .all(|&p| !cfg.is_reachable(p) || lf.contains(li as u32, p));
                if inside {
                    v
                } else {
                    let m = exit_block(func, InstKind::Branch, v);
                    lf.loop_of[m] = lf.nearest_containing(li as u32, v);
                    for &(u, _) in loop_exits {
                        retarget(func, u, v, m);
                    }
                    n.canonicalized += 1;
                    m
                }
            }
            [a, ..] => {
                return Err(Failure::Unstructured {
                    from: h,
                    to: Some(*a),
                    why: "the loop headed by the first block leaves to more than one block",
                });
            }
        };
        merges.push(merge);
    }
    // Preheaders, on the CFG with the merges in place.
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let mut preheaders: Vec<BlockId> = Vec::with_capacity(count);
    for li in 0..count {
        let h = lf.headers[li];
        let mut outside: Vec<BlockId> = cfg
            .preds(h)
            .iter()
            .copied()
            .filter(|&p| cfg.is_reachable(p) && !dom.dominates(h, p))
            .collect();
        outside.dedup();
        let reuse = match outside.as_slice() {
            [p] => func
                .terminator(*p)
                .is_some_and(|t| matches!(func.inst(t).kind, InstKind::Branch))
                .then_some(*p),
            _ => None,
        };
        let preheader = match reuse {
            Some(p) => p,
            None => {
                let ph = exit_block(func, InstKind::Branch, h);
                lf.loop_of[ph] = lf.parent[li];
                if outside.is_empty() {
                    // The header is the body block: the new block becomes the body and
                    // takes the allocas, which must stay outside the loop.
                    let allocas: Vec<InstId> = func.blocks[h]
                        .insts
                        .iter()
                        .copied()
                        .filter(|i| matches!(func.inst(*i).kind, InstKind::Alloca(_)))
                        .collect();
                    func.remove_insts(&allocas);
                    for (k, a) in allocas.iter().enumerate() {
                        func.blocks[ph].insts.insert(k, *a);
                        func.insts[*a].block = Some(ph);
                    }
                    func.body = Some(ph);
                }
                for &p in &outside {
                    retarget(func, p, h, ph);
                }
                n.canonicalized += 1;
                ph
            }
        };
        preheaders.push(preheader);
    }
    // Shapes, on the final CFG.
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    let mut out = Vec::with_capacity(count);
    let mut is_merge: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    for &m in &merges {
        is_merge[m] = true;
    }
    for li in 0..count {
        let h = lf.headers[li];
        let merge = merges[li];
        let shape = loop_shape(func, (&cfg, &dom), &lf, li as u32, h, &merges, &is_merge);
        out.push(LoopInfo {
            header: h,
            merge,
            preheader: preheaders[li],
            shape,
        });
    }
    Ok(out)
}

fn loop_shape(
    func: &Function,
    (cfg, dom): (&Cfg, &DomTree),
    lf: &LoopForest,
    li: u32,
    h: BlockId,
    merges: &[BlockId],
    is_merge: &SecondaryMap<BlockId, bool>,
) -> Shape {
    let merge = merges[li as usize];
    let t = func.terminator(h).expect("terminated");
    let d = func.inst(t);
    let body = match (&d.kind, d.operands.as_slice()) {
        (InstKind::ConditionalBranch, [_, Value::Block(b), Value::Block(m)]) if *m == merge => *b,
        (InstKind::Branch, [Value::Block(b)]) => *b,
        _ => return Shape::Simple,
    };
    if body == h || body == merge || !lf.contains(li, body) || cfg.preds(body) != [h] {
        return Shape::Simple;
    }
    let latches: Vec<BlockId> = cfg
        .preds(h)
        .iter()
        .copied()
        .filter(|&p| dom.dominates(h, p))
        .collect();
    let [u] = latches.as_slice() else {
        return Shape::Simple;
    };
    let u = *u;
    let u_ok = u != body
        && u != h
        && !is_merge[u]
        && func
            .terminator(u)
            .is_some_and(|t| matches!(func.inst(t).kind, InstKind::Branch))
        && cfg
            .preds(u)
            .iter()
            .all(|&p| !cfg.is_reachable(p) || lf.contains(li, p));
    if u_ok {
        Shape::Loop { body, update: u }
    } else {
        Shape::Simple
    }
}

/// A construct on the walk's stack.
#[derive(Clone, Copy, Debug)]
enum FrameKind {
    /// An `if` (`switch == false`) or `switch`; `merge` is `None` until one is needed.
    Selection {
        inst: InstId,
        merge: Option<BlockId>,
        switch: bool,
        /// For a merge created to forward an exit: the block it forwards to.
        forwards: Option<BlockId>,
    },
    /// A loop with its merge and continue block.
    Loop { merge: BlockId, cont: BlockId },
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    kind: FrameKind,
    parent: Option<usize>,
    /// The nearest loop or switch frame (this one included): what `break` leaves.
    breakable: Option<usize>,
    /// The nearest loop frame (this one included): what `continue` continues.
    innermost_loop: Option<usize>,
}

/// How one edge is expressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Edge {
    /// The region goes on into the target.
    Enter,
    /// A `br` / `break` / `continue` to this block.
    Exit(ExitKind, BlockId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExitKind {
    Br,
    Break,
    Continue,
}

impl ExitKind {
    fn inst_kind(self) -> InstKind {
        match self {
            ExitKind::Br => InstKind::Branch,
            ExitKind::Break => InstKind::Break,
            ExitKind::Continue => InstKind::Continue,
        }
    }
}

/// Step 4's walk.
struct Walker<'f> {
    func: &'f mut Function,
    cfg: Cfg,
    dom: DomTree,
    loops: Vec<LoopInfo>,
    /// Loop index whose preheader is this block.
    preheader_of: SecondaryMap<BlockId, u32>,
    /// Loop header, merge or continue block (never a selection merge).
    loop_role: SecondaryMap<BlockId, bool>,
    /// Number of distinct reachable forward predecessors, and the last one seen.
    fwd_preds: SecondaryMap<BlockId, (u32, Option<BlockId>)>,
    processed: SecondaryMap<BlockId, bool>,
    frames: Vec<Frame>,
    limits: Limits,
    constructs: u64,
}

impl<'f> Walker<'f> {
    fn new(func: &'f mut Function, loops: Vec<LoopInfo>, limits: Limits) -> Self {
        let cfg = Cfg::compute(func);
        let dom = DomTree::compute(func, &cfg);
        let mut preheader_of = SecondaryMap::with_default(NONE);
        let mut loop_role = SecondaryMap::with_default(false);
        for (li, l) in loops.iter().enumerate() {
            preheader_of[l.preheader] = li as u32;
            loop_role[l.header] = true;
            loop_role[l.merge] = true;
            if let Shape::Loop { update, .. } = l.shape {
                loop_role[update] = true;
            }
        }
        let mut fwd_preds: SecondaryMap<BlockId, (u32, Option<BlockId>)> =
            SecondaryMap::with_default((0, None));
        for &b in &cfg.rpo {
            let mut last = None;
            for &p in cfg.preds(b) {
                if cfg.is_reachable(p) && !dom.dominates(b, p) && last != Some(p) {
                    last = Some(p);
                    fwd_preds[b].0 += 1;
                    fwd_preds[b].1 = Some(p);
                }
            }
        }
        Walker {
            func,
            cfg,
            dom,
            loops,
            preheader_of,
            loop_role,
            fwd_preds,
            processed: SecondaryMap::with_default(false),
            frames: Vec::new(),
            limits,
            constructs: 0,
        }
    }

    fn run(&mut self, n: &mut Restructured) -> Result<(), Failure> {
        let entry = self.func.body.expect("definition");
        let mut work: Vec<(BlockId, Option<usize>)> = vec![(entry, None)];
        while let Some((x, frame)) = work.pop() {
            if std::mem::replace(&mut self.processed[x], true) {
                return Err(Failure::Unstructured {
                    from: x,
                    to: None,
                    why: "the block would belong to two structured regions",
                });
            }
            self.process(x, frame, &mut work, n)?;
        }
        for &b in &self.cfg.rpo {
            if !self.processed[b] {
                return Err(Failure::Unstructured {
                    from: b,
                    to: None,
                    why: "the block is not reached by the structured form",
                });
            }
        }
        // A switch whose cases never reach a common merge still needs one.
        for k in 0..self.frames.len() {
            if let FrameKind::Selection {
                inst,
                merge: None,
                switch: true,
                ..
            } = self.frames[k].kind
            {
                let m = self.func.create_block();
                self.func.append_inst(
                    m,
                    InstData::new(
                        InstKind::Unreachable {
                            message: String::new(),
                        },
                        None,
                        [],
                    ),
                );
                self.set_merge(k, inst, m, None);
            }
        }
        Ok(())
    }

    fn bump(&mut self) -> Result<(), Failure> {
        self.constructs += 1;
        if self.constructs > self.limits.main {
            return Err(Failure::IterationLimit {
                which: "main-iteration-limit",
            });
        }
        Ok(())
    }

    fn process(
        &mut self,
        x: BlockId,
        frame: Option<usize>,
        work: &mut Vec<(BlockId, Option<usize>)>,
        n: &mut Restructured,
    ) -> Result<(), Failure> {
        let t = self.func.terminator(x).expect("preflight");
        let li = self.preheader_of[x];
        if li != NONE {
            self.bump()?;
            let l = self.loops[li as usize].clone();
            let (kind, cont) = match l.shape {
                Shape::Simple => (
                    InstKind::SimpleLoop {
                        merge: Some(l.merge),
                    },
                    l.header,
                ),
                Shape::Loop { body, update } => (
                    InstKind::Loop {
                        body: Some(body),
                        update: Some(update),
                        merge: Some(l.merge),
                    },
                    update,
                ),
            };
            self.func.inst_mut(t).kind = kind;
            let me = self.frames.len();
            self.frames.push(Frame {
                kind: FrameKind::Loop {
                    merge: l.merge,
                    cont,
                },
                parent: frame,
                breakable: Some(me),
                innermost_loop: Some(me),
            });
            let lf = Some(self.frames.len() - 1);
            n.loops += 1;
            work.push((l.merge, frame));
            match l.shape {
                Shape::Simple => work.push((l.header, lf)),
                Shape::Loop { body, update } => {
                    self.processed[l.header] = true;
                    self.processed[update] = true;
                    work.push((body, lf));
                }
            }
            return Ok(());
        }
        let d = self.func.inst(t);
        match d.kind.clone() {
            InstKind::Branch => {
                let y = d.operands[0].as_block().expect("verified");
                match self.classify(x, y, frame)? {
                    Edge::Enter => work.push((y, frame)),
                    Edge::Exit(k, target) => {
                        let d = self.func.inst_mut(t);
                        d.kind = k.inst_kind();
                        d.operands[0] = Value::Block(target);
                    }
                }
            }
            InstKind::ConditionalBranch => {
                self.selection(x, t, frame, false, work)?;
                n.ifs += 1;
            }
            InstKind::IndexedBranch { .. } => {
                self.selection(x, t, frame, true, work)?;
                n.switches += 1;
            }
            k => {
                if self.func.inst(t).operand_blocks().next().is_some() {
                    let _ = k;
                    return Err(Failure::Invalid {
                        block: x,
                        what: "ends in a terminator restructure-cfg does not know",
                    });
                }
            }
        }
        Ok(())
    }

    /// `cond_br` → `if`, `indexed_branch` → `switch` in block `x`.
    fn selection(
        &mut self,
        x: BlockId,
        t: InstId,
        frame: Option<usize>,
        switch: bool,
        work: &mut Vec<(BlockId, Option<usize>)>,
    ) -> Result<(), Failure> {
        self.bump()?;
        let joins: Vec<BlockId> = self
            .dom
            .children(x)
            .iter()
            .copied()
            .filter(|&c| !self.loop_role[c] && self.fwd_preds[c].0 >= 2)
            .collect();
        if joins.len() > 1 {
            return Err(Failure::Unstructured {
                from: x,
                to: Some(joins[1]),
                why: "the branch has more than one merge point",
            });
        }
        let merge = joins.first().copied();
        {
            let d = self.func.inst_mut(t);
            d.kind = match &d.kind {
                InstKind::IndexedBranch { labels } => InstKind::Switch {
                    labels: labels.clone(),
                    merge,
                },
                _ => InstKind::If { merge },
            };
        }
        let me = self.frames.len();
        let (outer_break, outer_loop) = match frame {
            Some(f) => (self.frames[f].breakable, self.frames[f].innermost_loop),
            None => (None, None),
        };
        self.frames.push(Frame {
            kind: FrameKind::Selection {
                inst: t,
                merge,
                switch,
                forwards: None,
            },
            parent: frame,
            breakable: if switch { Some(me) } else { outer_break },
            innermost_loop: outer_loop,
        });
        let sf = Some(self.frames.len() - 1);
        let n_ops = self.func.inst(t).operands.len();
        // Switch cases may share a target: classify each target once.
        let mut done: Vec<(BlockId, BlockId)> = Vec::new();
        for k in 1..n_ops {
            let a = self.func.inst(t).operands[k]
                .as_block()
                .expect("verified arm");
            if let Some(&(_, used)) = done.iter().find(|(o, _)| *o == a) {
                self.func.inst_mut(t).operands[k] = Value::Block(used);
                continue;
            }
            let used = match self.classify(x, a, sf)? {
                Edge::Enter => {
                    work.push((a, sf));
                    a
                }
                Edge::Exit(kind, target) => exit_block(self.func, kind.inst_kind(), target),
            };
            self.func.inst_mut(t).operands[k] = Value::Block(used);
            done.push((a, used));
        }
        if let Some(m) = merge {
            work.push((m, frame));
        }
        Ok(())
    }

    fn set_merge(&mut self, k: usize, inst: InstId, m: BlockId, to: Option<BlockId>) {
        if let FrameKind::Selection {
            merge, forwards, ..
        } = &mut self.frames[k].kind
        {
            *merge = Some(m);
            *forwards = to;
        }
        if let Some(slot) = self.func.inst_mut(inst).kind.merge_mut() {
            *slot = Some(m);
        }
    }

    /// How the edge `x → y` is expressed inside `frame`.
    fn classify(&mut self, x: BlockId, y: BlockId, frame: Option<usize>) -> Result<Edge, Failure> {
        // 1–2: the innermost selection's merge, possibly through merge-less selections
        // whose forwarding merges are created here.
        let mut chain: Vec<usize> = Vec::new();
        let mut fi = frame;
        let mut found: Option<(usize, BlockId)> = None;
        while let Some(i) = fi {
            match self.frames[i].kind {
                FrameKind::Selection {
                    merge, forwards, ..
                } => {
                    if merge == Some(y) {
                        found = Some((i, y));
                        break;
                    }
                    if let Some(m) = merge {
                        if forwards == Some(y) {
                            found = Some((i, m));
                        }
                        break;
                    }
                    chain.push(i);
                    fi = self.frames[i].parent;
                }
                FrameKind::Loop { merge, .. } => {
                    // A loop exit from inside merge-less switches: `break` there would
                    // leave the switch, so the switches get merges that break out.
                    let through_switch = chain.iter().any(|&c| {
                        matches!(
                            self.frames[c].kind,
                            FrameKind::Selection { switch: true, .. }
                        )
                    });
                    if merge == y && through_switch {
                        found = Some((i, y));
                    }
                    break;
                }
            }
        }
        if let Some((owner, reach)) = found {
            if chain.len() as u64 > self.limits.post {
                return Err(Failure::IterationLimit {
                    which: "post-iteration-limit",
                });
            }
            let mut target = reach;
            let mut outer = owner;
            for &i in chain.iter().rev() {
                let kind = self.exit_kind_into(outer);
                let m = exit_block(self.func, kind.inst_kind(), target);
                let FrameKind::Selection { inst, .. } = self.frames[i].kind else {
                    unreachable!("chain holds selections")
                };
                self.set_merge(i, inst, m, Some(y));
                target = m;
                outer = i;
            }
            return Ok(Edge::Exit(self.exit_kind_into(outer), target));
        }
        // 3: the nearest loop or switch merge.
        let near = frame.map(|f| self.frames[f]);
        if let Some(b) = near.and_then(|f| f.breakable) {
            let merge = match self.frames[b].kind {
                FrameKind::Selection { merge, .. } => merge,
                FrameKind::Loop { merge, .. } => Some(merge),
            };
            if merge == Some(y) {
                return Ok(Edge::Exit(ExitKind::Break, y));
            }
        }
        // 4: the nearest loop's continue block.
        if let Some(l) = near.and_then(|f| f.innermost_loop)
            && let FrameKind::Loop { cont, .. } = self.frames[l].kind
            && cont == y
        {
            return Ok(Edge::Exit(ExitKind::Continue, y));
        }
        // 5: into a block only `x` enters.
        let (count, only) = self.fwd_preds[y];
        if !self.loop_role[y] && count == 1 && only == Some(x) {
            return Ok(Edge::Enter);
        }
        Err(Failure::Unstructured {
            from: x,
            to: Some(y),
            why: "the target is neither in the region nor an exit the structured form allows",
        })
    }

    /// The exit used by an edge that reaches frame `owner`'s merge from inside it.
    fn exit_kind_into(&self, owner: usize) -> ExitKind {
        match self.frames[owner].kind {
            FrameKind::Selection { switch: true, .. } | FrameKind::Loop { .. } => ExitKind::Break,
            FrameKind::Selection { .. } => ExitKind::Br,
        }
    }
}
