//! `lower-ray-query-to-pipeline` — outlines ray-query handlers into callables and
//! replaces each `ray_query_loop` by one `ray_query_pipeline`.
//!
//! **What:** a `ray_query_loop dispatch D, merge M` in block `B`, whose `D` holds
//! `ray_query_dispatch q, exit M, on_surface_candidate S, on_procedural_candidate P`,
//! becomes `ray_query_pipeline q, %on_surface, %on_procedural, captures…` in `B`,
//! followed by `M`'s instructions (moved into `B`; `M` is left `unreachable` and removed
//! by the clean-up). Each handler region (the blocks reached from `S` or `P` without
//! passing `D`) is cloned into a new void callable appended to the module, whose
//! parameters are a reference of the query type, then one parameter per capture: every
//! value defined outside the loop (instruction or argument, not the query) that the
//! dispatch block or a handler uses, in first-use order over the loop's reverse
//! post-order — lvalues by reference, resource arguments as resources, the rest by
//! value — then one reference per *output* (a loop value used after the loop) that the
//! handler stores before each `return`; the parent reads it back with a `load` after the
//! pipeline. Both callables share the signature. `br D` in a handler becomes `return`.
//! Before outlining, every phi of `D` is lowered to a local (stores on its incoming
//! edges, a load at the head of each handler entry that uses it and of `M`), and the
//! function's allocas are hoisted into its body block. After the function's loops are
//! lowered, `dce` runs on it (its counters are not published), as upstream.
//!
//! **Options** (upstream's `LowerRayQueryToPipelineOptions`; a loop that fails a
//! selection bound is retained, structurally valid, for a later lowering):
//! `max-captured-argument-count` (inputs + outputs, default `unbounded`);
//! `captured-argument-filter` (`none` or `metal-ray-payload`: upstream's only shipped
//! filter, the Metal backend's ray-payload ABI — scalars up to 64 bits except `f64`,
//! vectors, matrices, arrays and structs of those, buffers of those, bindless arrays; an
//! lvalue only when it is a local alloca); `captured-argument-cost` (`none` or
//! `metal-ray-payload`: a buffer costs 16 bytes, a bindless array 8, anything else its
//! size) with `max-captured-argument-cost` (saturating sum, default `unbounded`);
//! `min-handler-instruction-count` (default 0) and `min-small-handler-loop-count`
//! (default `unbounded`): a capture-eligible loop is selected when its handlers hold at
//! least that many instructions or its function holds at least that many
//! capture-eligible loops.
//!
//! **Algorithm:** preflight every ray-query loop of every definition present when the
//! pass starts (the callables it creates are not revisited); when all pass, select,
//! then lower function by function.
//!
//! **Preconditions:** none (a module without `ray_query_loop` is left untouched).
//!
//! **Refusals** (module byte-identical, each rejected loop counted in `error`): the
//! dispatch block does not end in `ray_query_dispatch` or holds non-phi instructions; the
//! query is not an lvalue of `LC_RayQueryAll`/`LC_RayQueryAny` or the dispatch exit is
//! not the loop merge; parent, dispatch, merge and handler blocks are not distinct; a
//! phi in the merge; a predecessor of `M` other than `B` and `D`, or a self edge on `M`;
//! a handler that reaches `M`, leaves its function, has an unterminated block, returns
//! from the parent function, reaches `D` other than by `br`, never returns to `D`, or
//! owns a construct merging outside it; overlapping handler regions; a predecessor of
//! `D` or of a handler block outside the loop; a nested `ray_query_loop` in a handler; a
//! handler phi with an incoming edge or value outside its region; a handler operand
//! defined in the other handler.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/lower_ray_query_to_pipeline.cpp`,
//! `lower_ray_query_to_pipeline_capture_cost.h` and
//! `include/luisa/xir/passes/lower_ray_query_to_pipeline.h` (every rejection, capture
//! order and ABI, dispatch-phi lowering, merge splice, selection, report keys) and
//! `metal_xir_pipeline.cpp` (the Metal filter and cost). **Deviations:** upstream's
//! handler-local alloca proof (a field-precise definite-initialisation analysis that
//! re-creates a captured local inside a callback instead of capturing it) is not
//! implemented yet: such locals stay captured by reference, which is correct but passes
//! more arguments, and the seven `*localization*` work counters stay 0 (published for
//! upstream's key schema). A metal cost asked of a type the Metal filter rejects
//! saturates instead of asserting. Metadata is copied in order (upstream prepends, which
//! reverses it); the pipeline carries the loop's metadata, then the dispatch's.
//!
//! **Report keys:** `lowered_ray_query_to_pipeline` (loops lowered), `error` (loops
//! rejected), `selection_localization_analysis`,
//! `handler_localization_instruction_evaluation`, `handler_localization_analysis`,
//! `handler_localization_indexed_instruction`,
//! `handler_localization_relevant_instruction`,
//! `handler_localization_avoided_instruction_scan`,
//! `handler_localization_block_evaluation`.
//!
//! **Example:**
//! ```text
//! %b: ray_query_loop dispatch %d, merge %m
//! %d: ray_query_dispatch %q, exit %m, on_surface_candidate %s, on_procedural_candidate %p
//! %s: store %out, %v; br %d      %p: br %d      %m: return
//! →  callable %0 (%q0: &TQ; %o: &T) = { store %o, %v … ; return }   (%v captured)
//!    %b: ray_query_pipeline %q, %0, %1, %out; return
//! ```

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{FunctionPass, Pass, PassContext, PassError, PassRun};
use crate::registry::{PassOptionInfo, PassOptions};
use crate::transform::dce::{Dce, DceCounters};
use crate::transform::lower_ray_query_to_loop::{is_query_object, label, ray_query_loops};
use xir_ir::analysis::Cfg;
use crate::util::reach::structural_successors;
use rustc_hash::{FxHashMap, FxHashSet};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::metadata::Metadata;
use xir_ir::op::AllocaOp;
use xir_ir::uses::UseMap;
use xir_ir::{
    ArgKind, BlockId, FuncId, Function, FunctionKind, InstData, InstId, Module, ScalarKind,
    SecondaryMap, Type, TypeData, Value,
};

mod select;
use select::{CaptureFilter, Selection};

/// The `lower-ray-query-to-pipeline` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LowerRayQueryToPipeline {
    /// Upstream's selection options.
    pub selection: Selection,
}

crate::declare_pass! {
    LowerRayQueryToPipeline: module pass "lower-ray-query-to-pipeline" {
        summary: "Outlines ray-query handlers into callables and replaces each ray-query loop by a ray-query pipeline.",
        form: Either,
        options: [
            PassOptionInfo {
                name: "max-captured-argument-count",
                default: "unbounded",
                help: "retain loops needing more captured arguments (inputs + outputs)",
            },
            PassOptionInfo {
                name: "captured-argument-filter",
                default: "none",
                help: "none, or metal-ray-payload: retain loops capturing a value outside the Metal ray-payload ABI",
            },
            PassOptionInfo {
                name: "captured-argument-cost",
                default: "none",
                help: "none, or metal-ray-payload: the payload-byte cost model for max-captured-argument-cost",
            },
            PassOptionInfo {
                name: "max-captured-argument-cost",
                default: "unbounded",
                help: "retain loops whose captures cost more (saturating sum)",
            },
            PassOptionInfo {
                name: "min-handler-instruction-count",
                default: "0",
                help: "select a loop whose handlers hold at least this many instructions…",
            },
            PassOptionInfo {
                name: "min-small-handler-loop-count",
                default: "unbounded",
                help: "…or whose function holds at least this many capture-eligible loops",
            },
        ],
        create: |o: &PassOptions| Ok::<_, String>(LowerRayQueryToPipeline {
            selection: Selection::from_options(o)?,
        }),
        counters: LowerRayQueryToPipelineCounters {
            /// Ray-query loops replaced by a ray-query pipeline.
            lowered_ray_query_to_pipeline: ControlFlow,
            /// Ray-query loops rejected (refusal).
            error: Nothing,
            /// Localization proofs run during selection (not implemented: 0).
            selection_localization_analysis: Nothing,
            /// Instruction effects evaluated by the localization proof (0).
            handler_localization_instruction_evaluation: Nothing,
            /// Localization analyses (0).
            handler_localization_analysis: Nothing,
            /// Handler instructions indexed for localization (0).
            handler_localization_indexed_instruction: Nothing,
            /// Relevant instructions scheduled by localization (0).
            handler_localization_relevant_instruction: Nothing,
            /// Instruction scans avoided by localization (0).
            handler_localization_avoided_instruction_scan: Nothing,
            /// Block evaluations of the localization dataflow (0).
            handler_localization_block_evaluation: Nothing,
        }
    }
}

/// One preflighted ray-query loop.
#[derive(Copy, Clone)]
pub(crate) struct Site {
    pub(crate) parent: BlockId,
    pub(crate) loop_inst: InstId,
    pub(crate) dispatch: BlockId,
    pub(crate) merge: BlockId,
    pub(crate) query: Value,
    pub(crate) surface: BlockId,
    pub(crate) procedural: BlockId,
}

/// Values crossing the loop boundary.
pub(crate) struct Captures {
    /// Defined outside, used inside (first use in reverse post-order).
    pub(crate) inputs: Vec<Value>,
    /// Defined inside, used outside.
    pub(crate) outputs: Vec<InstId>,
}

/// Collects a handler region: the blocks reached from `entry` along structural
/// successors without passing `dispatch` (upstream's outlineable handler region).
fn region(
    func: &Function,
    entry: BlockId,
    dispatch: BlockId,
    merge: BlockId,
) -> Result<Vec<BlockId>, &'static str> {
    let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut blocks = Vec::new();
    let mut work = vec![entry];
    let mut exits = 0;
    while let Some(b) = work.pop() {
        if b == dispatch {
            continue;
        }
        if b == merge {
            return Err("a handler reaches the ray-query loop merge directly");
        }
        if !func.has_block(b) {
            return Err("a handler references a block outside its function");
        }
        if seen[b] {
            continue;
        }
        seen[b] = true;
        blocks.push(b);
        let Some(t) = func.terminator(b) else {
            return Err("a handler contains an unterminated block");
        };
        let d = func.inst(t);
        if matches!(d.kind, InstKind::Return) {
            return Err("a handler returns from the parent function");
        }
        for s in d.successors() {
            if s == dispatch {
                if !matches!(d.kind, InstKind::Branch) {
                    return Err("a handler reaches the dispatch block other than by `br`");
                }
                exits += 1;
            } else if !seen[s] {
                work.push(s);
            }
        }
    }
    if exits == 0 {
        return Err("a handler never returns to the dispatch block");
    }
    for &b in &blocks {
        let t = func.terminator(b).expect("checked above");
        if let Some(m) = func.inst(t).kind.merge()
            && !seen[m]
        {
            return Err("a handler owns a construct that merges outside its region");
        }
    }
    Ok(blocks)
}

/// Whether a handler operand `v` can be resolved in the outlined callable.
fn resolvable(
    func: &Function,
    v: Value,
    query: Value,
    dispatch: BlockId,
    own: &FxHashSet<BlockId>,
    in_loop: &FxHashSet<BlockId>,
) -> bool {
    if v == query {
        return true;
    }
    match v {
        Value::Block(b) => own.contains(&b),
        Value::Inst(i) => {
            let Some(b) = func.inst(i).block else {
                return false;
            };
            own.contains(&b)
                || (b == dispatch && func.inst(i).is_phi())
                || !in_loop.contains(&b)
        }
        _ => true,
    }
}

fn preflight_loop(
    m: &Module,
    f: FuncId,
    cfg: &Cfg,
    parent: BlockId,
    loop_inst: InstId,
) -> Result<Site, &'static str> {
    let func = m.func(f);
    let d = func.inst(loop_inst);
    let (Some(dispatch), InstKind::RayQueryLoop { merge: Some(merge) }) =
        (d.operands.first().and_then(|v| v.as_block()), &d.kind)
    else {
        return Err("the ray-query loop has no dispatch or merge block");
    };
    let merge = *merge;
    if !func.has_block(dispatch) || !func.has_block(merge) {
        return Err("the ray-query loop references a block outside its function");
    }
    let Some(dt) = func.terminator(dispatch) else {
        return Err("the dispatch block is unterminated");
    };
    let dd = func.inst(dt);
    if !matches!(dd.kind, InstKind::RayQueryDispatch) || dd.operands.len() != 4 {
        return Err("the dispatch block does not end in `ray_query_dispatch`");
    }
    let insts = &func.blocks[dispatch].insts;
    if insts.iter().any(|i| *i != dt && !func.inst(*i).is_phi()) {
        return Err("the dispatch block holds a non-phi instruction");
    }
    let query = dd.operands[0];
    let blk = |k: usize| dd.operands[k].as_block();
    let (Some(exit), Some(s), Some(p)) = (blk(1), blk(2), blk(3)) else {
        return Err("the dispatch has a non-block target");
    };
    if !is_query_object(m, f, query) || exit != merge {
        return Err(
            "the dispatch needs an lvalue LC_RayQueryAll/LC_RayQueryAny query and the loop merge as its exit",
        );
    }
    for &i in insts.iter() {
        if func.inst(i).is_phi()
            && func
                .inst(i)
                .phi_blocks()
                .any(|b| !func.has_block(b) || func.terminator(b).is_none())
        {
            return Err("a dispatch phi has a foreign or unterminated predecessor");
        }
    }
    if dispatch == merge
        || dispatch == parent
        || merge == parent
        || [s, p].iter().any(|h| *h == dispatch || *h == merge)
    {
        return Err("the ray-query loop reuses a parent, dispatch, merge or handler block");
    }
    if func.blocks[merge]
        .insts
        .iter()
        .any(|i| func.inst(*i).is_phi())
    {
        return Err("the ray-query loop merge holds a phi");
    }
    if cfg.preds(merge).iter().any(|x| *x != dispatch && *x != parent) {
        return Err("the ray-query loop merge has a predecessor outside the loop");
    }
    if func.successors(merge).any(|x| x == merge) {
        return Err("the ray-query loop merge has a self edge");
    }
    let rs = region(func, s, dispatch, merge)?;
    let rp = region(func, p, dispatch, merge)?;
    let in_s: FxHashSet<BlockId> = rs.iter().copied().collect();
    let in_p: FxHashSet<BlockId> = rp.iter().copied().collect();
    if rs.iter().any(|b| in_p.contains(b)) {
        return Err("the surface and procedural handler regions overlap");
    }
    if cfg.preds(dispatch)
        .iter()
        .any(|x| *x != parent && !in_s.contains(x) && !in_p.contains(x))
    {
        return Err("the dispatch block has a predecessor outside the ray-query loop");
    }
    for (entry, r, own) in [(s, &rs, &in_s), (p, &rp, &in_p)] {
        for &b in r {
            if cfg.preds(b)
                .iter()
                .any(|x| !(own.contains(x) || b == entry && *x == dispatch))
            {
                return Err("a handler block has a predecessor outside its region");
            }
        }
    }
    let mut in_loop: FxHashSet<BlockId> = in_s.union(&in_p).copied().collect();
    in_loop.insert(dispatch);
    for (r, own) in [(&rs, &in_s), (&rp, &in_p)] {
        for &b in r {
            for &i in func.blocks[b].insts.iter() {
                let d = func.inst(i);
                if matches!(d.kind, InstKind::RayQueryLoop { .. }) {
                    return Err("a handler holds a nested ray-query loop");
                }
                if d.is_phi()
                    && d.phi_incoming().any(|(v, blk)| {
                        !own.contains(&blk)
                            || !resolvable(func, v, query, dispatch, own, &in_loop)
                    })
                {
                    return Err("a handler phi has an incoming edge or value outside its region");
                }
                if matches!(d.kind, InstKind::Branch) && d.operands[0] == Value::Block(dispatch)
                {
                    continue;
                }
                if d
                    .operands
                    .iter()
                    .any(|v| !resolvable(func, *v, query, dispatch, own, &in_loop))
                {
                    return Err("a handler uses a value its outlined callable cannot receive");
                }
            }
        }
    }
    Ok(Site {
        parent,
        loop_inst,
        dispatch,
        merge,
        query,
        surface: s,
        procedural: p,
    })
}

/// Blocks reachable from `entry` along structural successors without entering `stop`,
/// in reverse post-order (iterative).
fn rpo_until(func: &Function, entry: BlockId, stop: BlockId) -> Vec<BlockId> {
    let mut seen: FxHashSet<BlockId> = FxHashSet::default();
    let mut post = Vec::new();
    let mut stack: Vec<(BlockId, usize)> = vec![(entry, 0)];
    seen.insert(entry);
    while let Some((b, k)) = stack.pop() {
        let succ = structural_successors(func, b);
        if let Some(&s) = succ.get(k) {
            stack.push((b, k + 1));
            if s != stop && func.has_block(s) && seen.insert(s) {
                stack.push((s, 0));
            }
        } else {
            post.push(b);
        }
    }
    post.reverse();
    post
}

/// The loop's blocks (dispatch first, reverse post-order, stopping at the merge) and
/// their captures.
pub(crate) fn captures(func: &Function, site: &Site) -> (Vec<BlockId>, Captures) {
    let blocks = rpo_until(func, site.dispatch, site.merge);
    let internal: FxHashSet<InstId> = blocks
        .iter()
        .flat_map(|b| func.blocks[*b].insts.iter().copied())
        .collect();
    let uses = UseMap::compute(func);
    let mut known: FxHashSet<Value> = FxHashSet::default();
    let mut caps = Captures {
        inputs: Vec::new(),
        outputs: Vec::new(),
    };
    for &b in &blocks {
        for &i in func.blocks[b].insts.iter() {
            if uses.insts[i].iter().any(|u| !internal.contains(&u.inst)) {
                caps.outputs.push(i);
            }
            for &v in &func.inst(i).operands {
                let interesting = match v {
                    Value::Inst(d) => !internal.contains(&d),
                    Value::Arg(_) => true,
                    _ => false,
                };
                if interesting && v != site.query && known.insert(v) {
                    caps.inputs.push(v);
                }
            }
        }
    }
    (blocks, caps)
}

/// The kind of parameter a capture `v` of function `f` is passed as.
fn capture_kind(func: &Function, v: Value) -> ArgKind {
    match v {
        Value::Arg(a) => func.args[a].kind,
        Value::Inst(i) if matches!(func.inst(i).kind, InstKind::Alloca(_) | InstKind::Gep) => {
            ArgKind::Reference
        }
        _ => ArgKind::Value,
    }
}

/// Clones the handler region entered at `entry` into a new callable.
fn outline(m: &mut Module, f: FuncId, site: &Site, entry: BlockId, caps: &Captures, comment: &str) -> FuncId {
    let query_ty = m.value_type(f, site.query).expect("preflighted: typed query");
    let src = m.func(f);
    let mut out = Function::new(FunctionKind::Callable, None);
    out.metadata.push(Metadata::Comment(comment.to_string()));
    let mut map: FxHashMap<Value, Value> = FxHashMap::default();
    let q = out.add_arg(ArgKind::Reference, query_ty);
    map.insert(site.query, Value::Arg(q));
    for &v in &caps.inputs {
        let ty = match v {
            Value::Arg(a) => src.args[a].ty,
            Value::Inst(i) => src.inst(i).ty.expect("captured values are typed"),
            _ => unreachable!("only instructions and arguments are captured"),
        };
        let a = out.add_arg(capture_kind(src, v), ty);
        map.insert(v, Value::Arg(a));
    }
    let out_args: Vec<Value> = caps
        .outputs
        .iter()
        .map(|&i| {
            let ty = src.inst(i).ty.expect("an output has a type");
            Value::Arg(out.add_arg(ArgKind::Reference, ty))
        })
        .collect();
    let blocks = rpo_until(src, entry, site.dispatch);
    for &b in &blocks {
        let nb = out.create_block();
        out.blocks[nb].metadata = src.blocks[b].metadata.clone();
        map.insert(Value::Block(b), Value::Block(nb));
    }
    out.body = map[&Value::Block(entry)].as_block();
    let mut returns = Vec::new();
    let mut cloned = Vec::new();
    for &b in &blocks {
        let nb = map[&Value::Block(b)].as_block().expect("mapped block");
        for &i in src.blocks[b].insts.iter() {
            let d = src.inst(i);
            if matches!(d.kind, InstKind::Branch) && d.operands[0] == Value::Block(site.dispatch) {
                let r = Cursor::at_end(&mut out, nb).ret(None);
                out.inst_mut(r).metadata = d.metadata.clone();
                returns.push(r);
                continue;
            }
            let mut nd = InstData::new(d.kind.clone(), d.ty, d.operands.iter().copied());
            nd.metadata = d.metadata.clone();
            let ni = out.append_inst(nb, nd);
            map.insert(Value::Inst(i), Value::Inst(ni));
            cloned.push(ni);
        }
    }
    let block_map = |b: BlockId| {
        map.get(&Value::Block(b))
            .and_then(|v| v.as_block())
            .unwrap_or(b)
    };
    for &ni in &cloned {
        let d = out.inst_mut(ni);
        for op in d.operands.iter_mut() {
            if let Some(nv) = map.get(op) {
                *op = *nv;
            }
        }
        d.kind.map_side_blocks(block_map);
    }
    for r in returns {
        for (k, &o) in caps.outputs.iter().enumerate() {
            if let Some(&v) = map.get(&Value::Inst(o)) {
                Cursor::before(&mut out, r).store(out_args[k], v);
            }
        }
    }
    m.add_function(out)
}

/// Lowers the phis of the dispatch block to a local each (stores on the incoming
/// edges, loads at the heads of the handler entries that use it and of the merge).
fn lower_dispatch_phis(m: &mut Module, f: FuncId, site: &Site) {
    let func = m.func_mut(f);
    let phis: Vec<InstId> = func.blocks[site.dispatch]
        .insts
        .iter()
        .copied()
        .filter(|i| func.inst(*i).is_phi())
        .collect();
    if phis.is_empty() {
        return;
    }
    let body = func.body.expect("a definition has a body");
    let rs: FxHashSet<BlockId> = rpo_until(func, site.surface, site.dispatch).into_iter().collect();
    let rp: FxHashSet<BlockId> = rpo_until(func, site.procedural, site.dispatch)
        .into_iter()
        .collect();
    for p in phis {
        let d = func.inst(p).clone();
        let ty = d.ty.expect("a phi is typed");
        let mut slot = InstData::new(InstKind::Alloca(AllocaOp::Local), Some(ty), []);
        slot.metadata = d.metadata.clone();
        slot.metadata
            .push(Metadata::Comment("alloca to lower phi node in ray query loop".into()));
        let slot = Value::Inst(func.insert_inst_at(body, 0, slot));
        for (v, b) in d.phi_incoming() {
            if matches!(v, Value::Undef(_)) {
                continue;
            }
            let t = func.terminator(b).expect("preflighted: terminated");
            Cursor::before(func, t).store(slot, v);
        }
        let uses = UseMap::compute(func);
        for (entry, own) in [(site.surface, &rs), (site.procedural, &rp)] {
            let local: Vec<_> = uses.insts[p]
                .iter()
                .filter(|u| func.inst(u.inst).block.is_some_and(|b| own.contains(&b)))
                .copied()
                .collect();
            if local.is_empty() {
                continue;
            }
            let mut ld = InstData::new(InstKind::Load, Some(ty), [slot]);
            ld.metadata = d.metadata.clone();
            let l = func.insert_inst_at(entry, 0, ld);
            for u in local {
                func.inst_mut(u.inst).operands[u.index as usize] = Value::Inst(l);
            }
        }
        let mut ld = InstData::new(InstKind::Load, Some(ty), [slot]);
        ld.metadata = d.metadata.clone();
        let l = func.insert_inst_at(site.merge, 0, ld);
        func.replace_all_uses(Value::Inst(p), Value::Inst(l));
        func.remove_inst(p);
    }
}

/// Moves every alloca of `func` outside its body block to the end of the body's
/// leading allocas (upstream's `hoist_alloca_instructions_to_entry_block`).
fn hoist_allocas(func: &mut Function) {
    let body = func.body.expect("a definition has a body");
    let is_alloca = |func: &Function, i: InstId| matches!(func.inst(i).kind, InstKind::Alloca(_));
    let mut at = func.blocks[body]
        .insts
        .iter()
        .take_while(|i| is_alloca(func, **i))
        .count();
    let order: Vec<BlockId> = func.block_order.iter().copied().collect();
    for b in order {
        let moved: Vec<InstId> = func.blocks[b]
            .insts
            .iter()
            .copied()
            .enumerate()
            .filter(|(k, i)| is_alloca(func, *i) && !(b == body && *k < at))
            .map(|(_, i)| i)
            .collect();
        for i in moved {
            func.remove_inst(i);
            func.insts[i].block = Some(body);
            func.blocks[body].insts.insert(at, i);
            at += 1;
        }
    }
}

/// Replaces one preflighted, selected loop by a ray-query pipeline.
fn lower(m: &mut Module, f: FuncId, site: &Site) {
    // An earlier loop's merge may have been spliced into this loop's block.
    let parent = m.func(f).inst(site.loop_inst).block.expect("placed loop");
    let site = &Site { parent, ..*site };
    lower_dispatch_phis(m, f, site);
    hoist_allocas(m.func_mut(f));
    let (_, caps) = captures(m.func(f), site);
    let on_surface = outline(
        m,
        f,
        site,
        site.surface,
        &caps,
        "on_surface function outlined from ray query loop",
    );
    let on_procedural = outline(
        m,
        f,
        site,
        site.procedural,
        &caps,
        "on_procedural function outlined from ray query loop",
    );
    let func = m.func_mut(f);
    let body = func.body.expect("a definition has a body");
    let mut args: Vec<Value> = caps.inputs.clone();
    for (k, &o) in caps.outputs.iter().enumerate() {
        let mut slot = InstData::new(InstKind::Alloca(AllocaOp::Local), func.inst(o).ty, []);
        slot.metadata
            .push(Metadata::Comment("alloca for ray query output value".into()));
        args.push(Value::Inst(func.insert_inst_at(body, k, slot)));
    }
    let dispatch_md = {
        let t = func.terminator(site.dispatch).expect("preflighted");
        func.inst(t).metadata.clone()
    };
    let mut md = func.inst(site.loop_inst).metadata.clone();
    md.extend(dispatch_md);
    let pipe = Cursor::before(func, site.loop_inst).ray_query_pipeline(
        site.query,
        on_surface,
        on_procedural,
        &args,
    );
    func.inst_mut(pipe).metadata = md;
    func.remove_inst(site.loop_inst);
    let after = func.position(pipe).expect("placed") + 1;
    for (k, &o) in caps.outputs.iter().enumerate() {
        let mut ld = InstData::new(InstKind::Load, func.inst(o).ty, [args[caps.inputs.len() + k]]);
        ld.metadata
            .push(Metadata::Comment("load from ray query output alloca".into()));
        let l = func.insert_inst_at(site.parent, after + k, ld);
        func.replace_all_uses(Value::Inst(o), Value::Inst(l));
    }
    let succs: Vec<BlockId> = func.successors(site.merge).collect();
    for s in succs {
        let phis: Vec<InstId> = func.blocks[s]
            .insts
            .iter()
            .copied()
            .take_while(|i| func.inst(*i).is_phi())
            .collect();
        for p in phis {
            func.inst_mut(p).phi_rename_block(site.merge, site.parent);
        }
    }
    let moved = std::mem::take(&mut func.blocks[site.merge].insts);
    for i in moved {
        func.insts[i].block = Some(site.parent);
        func.blocks[site.parent].insts.push(i);
    }
    Cursor::at_end(func, site.merge).unreachable("");
}

/// What one run of the lowering did (shared with `lower-ray-query-loop`, upstream's
/// compatibility name for this pass).
pub(crate) struct Outcome {
    /// Loops replaced by a pipeline.
    pub(crate) lowered: u64,
    /// Loops rejected.
    pub(crate) rejected: u64,
    /// The first rejection, when any (the module is then untouched).
    pub(crate) refusal: Option<String>,
}

impl LowerRayQueryToPipeline {
    /// Preflights every loop of the module, then selects and lowers.
    pub(crate) fn lower_module(
        &self,
        module: &mut Module,
        cx: &mut PassContext,
    ) -> Result<Outcome, PassError> {
        let mut out = Outcome {
            lowered: 0,
            rejected: 0,
            refusal: None,
        };
        let mut work: Vec<(FuncId, Vec<Site>)> = Vec::new();
        for &f in &module.func_order {
            let func = module.func(f);
            if func.body.is_none() {
                continue;
            }
            let loops = ray_query_loops(func);
            if loops.is_empty() {
                continue;
            }
            let cfg = Cfg::compute(func);
            let mut sites = Vec::new();
            for (b, t) in loops {
                match preflight_loop(module, f, &cfg, b, t) {
                    Ok(site) => sites.push(site),
                    Err(why) => {
                        out.rejected += 1;
                        out.refusal.get_or_insert_with(|| {
                            format!(
                                "{}: the ray-query loop in block {} is rejected: {why}",
                                describe_function(module, f),
                                label(module, f, b)
                            )
                        });
                    }
                }
            }
            work.push((f, sites));
        }
        if out.refusal.is_some() {
            return Ok(out);
        }
        let work: Vec<(FuncId, Vec<Site>)> = work
            .into_iter()
            .map(|(f, sites)| (f, self.selection.select(module, f, sites)))
            .collect();
        for (f, sites) in &work {
            if sites.is_empty() {
                continue;
            }
            for site in sites {
                lower(module, *f, site);
                out.lowered += 1;
            }
            Dce.run_on_function(module, *f, cx, &mut DceCounters::default())?;
        }
        Ok(out)
    }
}

impl Pass for LowerRayQueryToPipeline {
    fn run(&self, module: &mut Module, cx: &mut PassContext) -> Result<PassRun, PassError> {
        let out = self.lower_module(module, cx)?;
        let c = LowerRayQueryToPipelineCounters {
            lowered_ray_query_to_pipeline: out.lowered,
            error: out.rejected,
            ..Default::default()
        };
        Ok(match out.refusal {
            Some(reason) => PassRun::refused(reason, c.report()),
            None => PassRun::new(c.changed(), c.report()),
        })
    }
}

/// Whether `t` fits the Metal ray-payload ABI (upstream's `metal_ray_payload_type_supported`).
pub(crate) fn metal_payload_type(m: &Module, t: Type) -> bool {
    match m.types.get(t) {
        TypeData::Scalar(k) => matches!(
            k,
            ScalarKind::Bool
                | ScalarKind::I8
                | ScalarKind::U8
                | ScalarKind::I16
                | ScalarKind::U16
                | ScalarKind::I32
                | ScalarKind::U32
                | ScalarKind::I64
                | ScalarKind::U64
                | ScalarKind::F16
                | ScalarKind::F32
        ),
        TypeData::Vector { elem, .. } | TypeData::Matrix { elem, .. } | TypeData::Array { elem, .. } => {
            metal_payload_type(m, *elem)
        }
        TypeData::Struct { members, .. } => members.iter().all(|x| metal_payload_type(m, *x)),
        TypeData::Buffer { elem } => elem.is_none_or(|e| metal_payload_type(m, e)),
        TypeData::BindlessArray => true,
        _ => false,
    }
}

impl CaptureFilter {
    /// Whether capture `v` of function `f` passes the filter.
    pub(crate) fn accepts(self, m: &Module, f: FuncId, v: Value) -> bool {
        match self {
            CaptureFilter::None => true,
            CaptureFilter::MetalRayPayload => {
                let func = m.func(f);
                let Some(t) = m.value_type(f, v) else {
                    return false;
                };
                if !metal_payload_type(m, t) {
                    return false;
                }
                match capture_kind(func, v) {
                    ArgKind::Reference => matches!(v, Value::Inst(i)
                        if matches!(func.inst(i).kind, InstKind::Alloca(AllocaOp::Local))),
                    _ => true,
                }
            }
        }
    }
    /// The payload cost of capture `v` (saturating for types outside the ABI).
    pub(crate) fn cost(self, m: &Module, f: FuncId, v: Value) -> u64 {
        match self {
            CaptureFilter::None => 0,
            CaptureFilter::MetalRayPayload => {
                let Some(t) = m.value_type(f, v) else {
                    return u64::MAX;
                };
                match m.types.get(t) {
                    TypeData::Buffer { .. } => 16,
                    TypeData::BindlessArray => 8,
                    _ if m.types.is_resource(t) || m.types.is_custom(t) => u64::MAX,
                    _ => m.types.size_of(t),
                }
            }
        }
    }
}
