//! `lower-ray-query-to-loop` — `ray_query_loop` + `ray_query_dispatch` to a `loop`.
//!
//! **What:** every `ray_query_loop dispatch D, merge M` whose dispatch block holds only
//! `ray_query_dispatch q, exit M, on_surface_candidate S, on_procedural_candidate P`
//! becomes, in the same block and with the loop's metadata,
//! `loop prepare Pr, body B, update U, merge M` with three new blocks:
//!
//! * `Pr`: `ray_query_object_write ray_query_object_proceed q`, `t = …is_terminated q`,
//!   `a = unary_bit_not t`, `cond_br a, B, M`;
//! * `B`: `c = …is_triangle_candidate q`, `if c, then S, else P, merge U` (carrying the
//!   dispatch's metadata) — an empty handler (a lone `br D`) is replaced by `U` and its
//!   block removed; when both handlers are empty, `B` is `br U`;
//! * `U`: `br Pr`.
//!
//! Every handler `br D` is retargeted to `U`; the dispatch block is removed; a phi in
//! `M` takes its incoming from `Pr` instead of `D`.
//!
//! **Algorithm:** preflight every ray-query loop of every definition (handler regions
//! collected by a walk from each handler entry that stops at `D`), then lower them all;
//! nothing is mutated when any loop is rejected.
//!
//! **Preconditions:** none (a module without `ray_query_loop` is left untouched).
//!
//! **Refusals** (module byte-identical, counted in `error`): the dispatch block does not
//! end in `ray_query_dispatch` or holds other instructions; the query is not an lvalue
//! of `LC_RayQueryAll`/`LC_RayQueryAny`; the dispatch exit is not the loop merge;
//! parent, dispatch, merge and handler blocks are not distinct; a phi in the dispatch
//! block or a handler entry; a handler region that reaches the merge, leaves a function,
//! has an unterminated block, reaches `D` other than by `br`, never returns to `D`, or
//! owns a construct merging outside it; overlapping handler regions; a predecessor of
//! `D`, of a handler region or of `M` outside the ray-query loop.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/lower_ray_query_to_loop.cpp`
//! (output shape, empty-handler bypass, every rejection, whole-module preflight, report
//! keys) and the reference §6.2.
//!
//! **Report keys:** `lowered_ray_query_to_loop`, `error`. **Changed:**
//! `lowered_ray_query_to_loop > 0`.
//!
//! **Example:**
//! ```text
//! %l: ray_query_loop dispatch %d, merge %m
//! %d: ray_query_dispatch %q, exit %m, on_surface_candidate %s, on_procedural_candidate %p
//! %s: …; br %d        %p: br %d
//! →  %l: loop prepare %pr, body %b, update %u, merge %m
//!    %pr: proceed %q; %t = is_terminated %q; %a = unary_bit_not %t; cond_br %a, %b, %m
//!    %b: %c = is_triangle_candidate %q; if %c, then %s, else %u, merge %u
//!    %s: …; br %u        %u: br %pr
//! ```

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::analysis::Cfg;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::op::{ArithmeticOp, RayQueryObjectReadOp, RayQueryObjectWriteOp};
use xir_ir::text::print::printed_block_labels;
use xir_ir::{ArgKind, BlockId, FuncId, Function, InstId, Module, SecondaryMap, Type, TypeData, Value};

/// The `lower-ray-query-to-loop` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LowerRayQueryToLoop;

crate::declare_pass! {
    LowerRayQueryToLoop: module pass "lower-ray-query-to-loop" {
        summary: "Lowers ray-query loop + dispatch into a structured loop.",
        form: Either,
        counters: LowerRayQueryToLoopCounters {
            /// `ray_query_loop`s lowered to `loop`.
            lowered_ray_query_to_loop: ControlFlow,
            /// Ray-query loops rejected (refusal).
            error: Nothing,
        }
    }
}

/// A handler region: its blocks and whether it is a lone `br dispatch`.
pub(crate) struct Region {
    pub(crate) blocks: Vec<BlockId>,
    pub(crate) empty: bool,
}

/// One preflighted ray-query loop (also `lower-ray-query-loop-to-loop`'s preflight).
pub(crate) struct Site {
    pub(crate) loop_inst: InstId,
    pub(crate) dispatch: BlockId,
    pub(crate) merge: BlockId,
    pub(crate) query: Value,
    pub(crate) surface: (BlockId, Region),
    pub(crate) procedural: (BlockId, Region),
}

/// Whether `v` is an lvalue of a ray-query object type.
pub(crate) fn is_query_object(m: &Module, f: FuncId, v: Value) -> bool {
    let func = m.func(f);
    let lvalue = match v {
        Value::Inst(i) => matches!(func.inst(i).kind, InstKind::Alloca(_) | InstKind::Gep),
        Value::Arg(a) => func.args[a].kind == ArgKind::Reference,
        _ => false,
    };
    lvalue
        && m.value_type(f, v).is_some_and(|t| {
            matches!(m.types.get(t), TypeData::Custom { name }
                if name == "LC_RayQueryAll" || name == "LC_RayQueryAny")
        })
}

fn has_phi(func: &Function, b: BlockId) -> bool {
    func.blocks[b]
        .insts
        .iter()
        .any(|i| matches!(func.inst(*i).kind, InstKind::Phi))
}

/// Collects the region of the handler entered at `entry`.
fn region(
    func: &Function,
    entry: BlockId,
    dispatch: BlockId,
    merge: BlockId,
) -> Result<Region, &'static str> {
    let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut blocks = Vec::new();
    let mut work = vec![entry];
    let mut exits = 0;
    while let Some(b) = work.pop() {
        if b == dispatch {
            continue;
        }
        if b == merge || !func.has_block(b) {
            return Err("a handler reaches the loop merge or leaves its function");
        }
        if seen[b] {
            continue;
        }
        seen[b] = true;
        blocks.push(b);
        let Some(t) = func.terminator(b) else {
            return Err("a handler has an unterminated block");
        };
        let d = func.inst(t);
        for s in d.successors() {
            if s == dispatch {
                if !matches!(d.kind, InstKind::Branch) {
                    return Err("a handler returns to the dispatch block other than by `br`");
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
        let t = func.terminator(b).expect("checked");
        if let Some(m) = func.inst(t).kind.merge()
            && !seen[m]
        {
            return Err("a handler owns a construct that merges outside it");
        }
    }
    let empty = blocks == [entry]
        && matches!(func.blocks[entry].insts.as_slice(), [only]
            if matches!(func.inst(*only).kind, InstKind::Branch));
    Ok(Region { blocks, empty })
}

pub(crate) fn preflight_loop(
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
        return Err("the ray-query loop names a block outside its function");
    }
    let Some(dt) = func.terminator(dispatch) else {
        return Err("the dispatch block is unterminated");
    };
    let dd = func.inst(dt);
    if !matches!(dd.kind, InstKind::RayQueryDispatch) || dd.operands.len() != 4 {
        return Err("the dispatch block does not end in `ray_query_dispatch`");
    }
    let query = dd.operands[0];
    let blk = |k: usize| dd.operands[k].as_block();
    let (Some(exit), Some(s), Some(p)) = (blk(1), blk(2), blk(3)) else {
        return Err("the dispatch has a non-block target");
    };
    if !is_query_object(m, f, query) {
        return Err("the dispatch query is not an lvalue of LC_RayQueryAll or LC_RayQueryAny");
    }
    if exit != merge {
        return Err("the dispatch exit is not the ray-query loop merge");
    }
    if dispatch == merge
        || dispatch == parent
        || merge == parent
        || [s, p].iter().any(|h| *h == dispatch || *h == merge)
    {
        return Err("the ray-query loop reuses a parent, dispatch, merge or handler block");
    }
    if has_phi(func, dispatch) || has_phi(func, s) || has_phi(func, p) {
        return Err("a phi in the dispatch block or a handler entry");
    }
    let rs = region(func, s, dispatch, merge)?;
    let rp = region(func, p, dispatch, merge)?;
    let mut in_s: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    let mut in_p: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
    rs.blocks.iter().for_each(|b| in_s[*b] = true);
    rp.blocks.iter().for_each(|b| in_p[*b] = true);
    if rs.blocks.iter().any(|b| in_p[*b]) {
        return Err("the surface and procedural handler regions overlap");
    }
    if cfg
        .preds(dispatch)
        .iter()
        .any(|x| *x != parent && !in_s[*x] && !in_p[*x])
    {
        return Err("the dispatch block has a predecessor outside the ray-query loop");
    }
    for (entry, r, inr) in [(s, &rs, &in_s), (p, &rp, &in_p)] {
        for &b in &r.blocks {
            if cfg
                .preds(b)
                .iter()
                .any(|x| !(inr[*x] || b == entry && *x == dispatch))
            {
                return Err("a handler block has a predecessor outside its region");
            }
        }
    }
    if cfg
        .preds(merge)
        .iter()
        .any(|x| *x != dispatch && *x != parent)
    {
        return Err("the merge block has a predecessor outside the ray-query loop");
    }
    if func.blocks[dispatch].insts.len() != 1 {
        return Err("the dispatch block holds instructions besides `ray_query_dispatch`");
    }
    Ok(Site {
        loop_inst,
        dispatch,
        merge,
        query,
        surface: (s, rs),
        procedural: (p, rp),
    })
}

fn lower(m: &mut Module, f: FuncId, site: &Site) {
    let bool_ty = m.types.bool();
    let func = m.func_mut(f);
    let dispatch_md = {
        let dt = func.terminator(site.dispatch).expect("preflighted");
        func.inst(dt).metadata.clone()
    };
    let (prepare, body, update) = (
        func.create_block(),
        func.create_block(),
        func.create_block(),
    );
    proceed_loop(func, site, bool_ty, [prepare, body, update]);
    let q = site.query;
    let (s, rs) = &site.surface;
    let (p, rp) = &site.procedural;
    let mut at = Cursor::at_end(func, body);
    let dispatch_inst = if rs.empty && rp.empty {
        at.br(update)
    } else {
        let c = at.ray_query_object_read(RayQueryObjectReadOp::IsTriangleCandidate, bool_ty, q);
        let then_b = if rs.empty { update } else { *s };
        let else_b = if rp.empty { update } else { *p };
        at.if_(c, then_b, else_b, update)
    };
    func.inst_mut(dispatch_inst).metadata = dispatch_md;
    for r in [rs, rp] {
        if r.empty {
            continue;
        }
        for &b in &r.blocks {
            let t = func.terminator(b).expect("preflighted");
            let d = func.inst_mut(t);
            if matches!(d.kind, InstKind::Branch) && d.operands[0] == Value::Block(site.dispatch) {
                d.operands[0] = Value::Block(update);
            }
        }
    }
    // A phi in the merge now comes from the prepare block.
    for k in 0..func.blocks[site.merge].insts.len() {
        let i = func.blocks[site.merge].insts[k];
        if func.inst(i).is_phi() {
            func.inst_mut(i).phi_rename_block(site.dispatch, prepare);
        }
    }
    if rs.empty {
        func.remove_block(*s);
    }
    if rp.empty {
        func.remove_block(*p);
    }
    func.remove_block(site.dispatch);
}

/// Turns the site's `ray_query_loop` into a `loop` over the new blocks `prepare`, `body`
/// and `update`: `prepare` proceeds the query and leaves to the merge once it is
/// terminated, else enters `body`; `update` goes back to `prepare` (both ray-query-to-loop
/// lowerings build this shell and fill `body` their own way).
pub(crate) fn proceed_loop(func: &mut Function, site: &Site, bool_ty: Type, [prepare, body, update]: [BlockId; 3]) {
    let q = site.query;
    let d = func.inst_mut(site.loop_inst);
    d.kind = InstKind::Loop {
        body: Some(body),
        update: Some(update),
        merge: Some(site.merge),
    };
    d.operands.clear();
    d.operands.push(Value::Block(prepare));
    let mut at = Cursor::at_end(func, prepare);
    at.ray_query_object_write(RayQueryObjectWriteOp::Proceed, q, None);
    let t = at.ray_query_object_read(RayQueryObjectReadOp::IsTerminated, bool_ty, q);
    let a = at.arith(ArithmeticOp::UnaryBitNot, bool_ty, &[t]);
    at.cond_br(a, body, site.merge);
    Cursor::at_end(func, update).br(prepare);
}

/// The printed label of block `b` of function `f`, for messages.
pub(crate) fn label(m: &Module, f: FuncId, b: BlockId) -> String {
    printed_block_labels(m, f, &[b])
        .pop()
        .flatten()
        .unwrap_or_else(|| "an unlisted block".into())
}

/// `(block, terminator)` of every block of `func` ending in a `ray_query_loop`, in block
/// order (what every ray-query lowering starts from).
pub(crate) fn ray_query_loops(func: &Function) -> Vec<(BlockId, InstId)> {
    func.block_order
        .iter()
        .filter_map(|b| func.terminator(*b).map(|t| (*b, t)))
        .filter(|(_, t)| matches!(func.inst(*t).kind, InstKind::RayQueryLoop { .. }))
        .collect()
}

/// Every ray-query loop of `module` preflighted (both ray-query-to-loop lowerings run
/// this): the sites to lower, or the number of rejected loops and the first rejection.
pub(crate) fn preflight_module(module: &Module) -> Result<Vec<(FuncId, Site)>, (u64, String)> {
    let mut sites: Vec<(FuncId, Site)> = Vec::new();
    let mut errors = 0u64;
    let mut first: Option<String> = None;
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
        for (b, t) in loops {
            match preflight_loop(module, f, &cfg, b, t) {
                Ok(site) => sites.push((f, site)),
                Err(why) => {
                    errors += 1;
                    first.get_or_insert_with(|| {
                        format!(
                            "{}: the ray-query loop in block {} is rejected: {why}",
                            describe_function(module, f),
                            label(module, f, b)
                        )
                    });
                }
            }
        }
    }
    match first {
        Some(reason) => Err((errors, reason)),
        None => Ok(sites),
    }
}

impl Pass for LowerRayQueryToLoop {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LowerRayQueryToLoopCounters::default();
        let sites = match preflight_module(module) {
            Ok(sites) => sites,
            Err((errors, reason)) => {
                c.error = errors;
                return Ok(PassRun::refused(reason, c.report()));
            }
        };
        for (f, site) in &sites {
            lower(module, *f, site);
            c.lowered_ray_query_to_loop += 1;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}
