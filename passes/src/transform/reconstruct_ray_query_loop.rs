//! `reconstruct-ray-query-loop` — re-forms explicit ray-query loops into
//! `ray_query_loop` + `ray_query_dispatch`.
//!
//! **What:** two loop shapes perform `ray_query_object_proceed` and are rebuilt:
//!
//! * the *canonical* shape `lower-ray-query-to-loop` produces: `loop prepare Pr, body B,
//!   update U, merge M` with `Pr` exactly `proceed q; t = is_terminated q;
//!   a = unary_bit_not t; cond_br a, B, M`, `U` exactly `br Pr`, and `B` either `br U`
//!   (both handlers empty) or `c = is_triangle_candidate q; if c, then S, else P,
//!   merge U` (an arm equal to `U` is an empty handler);
//! * the frontend's inline `while (query.proceed())` shape: `simple_loop L, merge M` with
//!   `L` = `proceed q; t = is_terminated q;` zero or two `unary_bit_not`s (never one),
//!   optionally one private `store`/`load` of the guard through a local used by nothing
//!   else, then `if g, then K, else R, merge C` where `K` is exactly `break M`, `R`
//!   exactly `br C`, and `C` = `is_triangle_candidate q` or `is_procedural_candidate q`
//!   (optionally negated once), then `if …, then X, else Y, merge T` with the latch `T`
//!   exactly `br L` (which arm is the surface handler follows from the predicate and the
//!   negation).
//!
//! Each becomes `ray_query_loop dispatch D, merge M` in the loop's block (the loop
//! instruction keeps its identity and metadata) with a new `D` holding
//! `ray_query_dispatch q, exit M, on_surface_candidate S, on_procedural_candidate P`
//! (carrying the candidate dispatch's metadata); an empty handler becomes a new block
//! `br D`; every handler exit `br U`/`br T` is retargeted to `D`; a phi in `M` takes its
//! incoming from `D` instead of `Pr`/`K`; the shell blocks (`Pr`, `B`, `U`, and `K`, `R`
//! for the inline shape; `L`, `C`, `T` for it too) are removed. Every other
//! `loop`/`simple_loop` is ignored. `lower-ray-query-to-loop` after this pass gives back
//! the canonical shape.
//!
//! **Algorithm:** preflight every `loop`/`simple_loop` of every definition (shape match,
//! handler regions collected by a walk from each handler entry that stops at the latch),
//! then rewrite them all; nothing is mutated when any candidate is rejected.
//!
//! **Preconditions:** none (a module without such loops is left untouched).
//!
//! **Refusals** (module byte-identical, counted in `error`; the first reason is given):
//! a loop that performs `proceed` but is not exactly one of the two shapes — `proceed`
//! outside the canonical prepare block, a prepare/guard/latch/dispatch that is not
//! canonical, a query that is not an lvalue of `LC_RayQueryAll`/`LC_RayQueryAny`, shell
//! blocks that alias, a guard or predicate value used elsewhere, a guard temporary with
//! other users, a handler region that escapes the loop, has an unterminated block, reaches
//! the latch other than by `br`, never reaches it, owns a construct merging outside it, has
//! an external predecessor or (inline shape) performs `proceed` itself, overlapping
//! handler regions, and an external predecessor of a shell block or of the merge.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/reconstruct_ray_query_loop.cpp`
//! (both shapes, every acceptance condition, whole-module preflight, empty-handler
//! blocks, phi retargeting, report keys). One deviation: in the inline shape upstream
//! would point the dispatch at the removed latch when a candidate `if` arm *is* the
//! latch; here that arm is an empty handler, as in the canonical shape.
//!
//! **Report keys:** `reconstructed_ray_query_loop`, `ignored_loop`, `error`.
//! **Changed:** `reconstructed_ray_query_loop > 0`.
//!
//! **Example:**
//! ```text
//! %l: loop prepare %pr, body %b, update %u, merge %m
//! %pr: proceed %q; %t = is_terminated %q; %a = unary_bit_not %t; cond_br %a, %b, %m
//! %b: %c = is_triangle_candidate %q; if %c, then %s, else %u, merge %u
//! %s: …; br %u        %u: br %pr
//! →  %l: ray_query_loop dispatch %d, merge %m
//!    %d: ray_query_dispatch %q, exit %m, on_surface_candidate %s, on_procedural_candidate %p
//!    %s: …; br %d        %p: br %d
//! ```

use crate::declare::Counters;
use crate::form::describe_function;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::transform::lower_ray_query_to_loop::{is_query_object, label};
use xir_ir::analysis::Cfg;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::metadata::MetadataList;
use xir_ir::op::{ArithmeticOp, RayQueryObjectReadOp, RayQueryObjectWriteOp};
use xir_ir::{
    BlockId, FuncId, Function, InstId, Module, ScalarKind, SecondaryMap, TypeData, Value,
};

/// The `reconstruct-ray-query-loop` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct ReconstructRayQueryLoop;

crate::declare_pass! {
    ReconstructRayQueryLoop: module pass "reconstruct-ray-query-loop" {
        summary: "Re-forms explicit ray-query loops into ray_query_loop + ray_query_dispatch.",
        form: Either,
        counters: ReconstructRayQueryLoopCounters {
            /// Loops re-formed into `ray_query_loop`.
            reconstructed_ray_query_loop: ControlFlow,
            /// `loop`/`simple_loop`s that perform no `proceed`.
            ignored_loop: Nothing,
            /// Rejected ray-query-like loops (refusal).
            error: Nothing,
        }
    }
}

/// One handler: its entry (`None`: empty) and its `br` exits to the latch.
struct Handler {
    entry: Option<BlockId>,
    blocks: Vec<BlockId>,
    exits: Vec<InstId>,
}

/// One preflighted loop.
struct Candidate {
    loop_inst: InstId,
    query: Value,
    merge: BlockId,
    /// The merge's predecessor that the dispatch block replaces in its phis.
    merge_pred: BlockId,
    dispatch_md: MetadataList,
    surface: Handler,
    procedural: Handler,
    shell: Vec<BlockId>,
}

enum Match {
    Ignored,
    Accepted(Candidate),
    Rejected(&'static str),
}

type Reject = &'static str;

fn insts(func: &Function, b: BlockId) -> &[InstId] {
    &func.blocks[b].insts
}

fn is_write(func: &Function, i: InstId, op: RayQueryObjectWriteOp) -> bool {
    let d = func.inst(i);
    d.kind == InstKind::RayQueryObjectWrite(op) && d.operands.len() == 1
}

fn is_bool(m: &Module, f: FuncId, i: InstId) -> bool {
    m.func(f)
        .inst(i)
        .ty
        .is_some_and(|t| *m.types.get(t) == TypeData::Scalar(ScalarKind::Bool))
}

fn is_read(m: &Module, f: FuncId, i: InstId, op: RayQueryObjectReadOp, q: Value) -> bool {
    let d = m.func(f).inst(i);
    d.kind == InstKind::RayQueryObjectRead(op) && d.operands.as_slice() == [q] && is_bool(m, f, i)
}

/// `i` is `unary_bit_not x` of type bool.
fn is_not_of(m: &Module, f: FuncId, i: InstId, x: Value) -> bool {
    let d = m.func(f).inst(i);
    d.kind == InstKind::Arithmetic(ArithmeticOp::UnaryBitNot)
        && d.operands.as_slice() == [x]
        && is_bool(m, f, i)
}

fn proceeds(func: &Function, b: Option<BlockId>) -> bool {
    b.is_some_and(|b| {
        insts(func, b)
            .iter()
            .any(|i| is_write(func, *i, RayQueryObjectWriteOp::Proceed))
    })
}

/// Every use of `v` (one entry per operand occurrence) by a placed instruction.
fn users(func: &Function, v: Value) -> Vec<InstId> {
    let mut out = Vec::new();
    for i in func.placed_insts() {
        for o in &func.inst(i).operands {
            if *o == v {
                out.push(i);
            }
        }
    }
    out
}

fn used_once_by(func: &Function, v: Value, user: InstId) -> bool {
    users(func, v) == [user]
}

/// `b` is exactly `br target`; returns that instruction.
fn lone_br(func: &Function, b: BlockId, target: BlockId) -> Option<InstId> {
    match insts(func, b) {
        [only]
            if func.inst(*only).kind == InstKind::Branch
                && func.inst(*only).operands.as_slice() == [Value::Block(target)] =>
        {
            Some(*only)
        }
        _ => None,
    }
}

/// The `if` at `i`: (condition, then, else, merge).
fn as_if(func: &Function, i: InstId) -> Option<(Value, BlockId, BlockId, Option<BlockId>)> {
    let d = func.inst(i);
    match (&d.kind, d.operands.as_slice()) {
        (InstKind::If { merge }, [c, t, e]) => Some((*c, t.as_block()?, e.as_block()?, *merge)),
        _ => None,
    }
}

struct Ctx<'a> {
    m: &'a Module,
    f: FuncId,
    func: &'a Function,
    cfg: Cfg,
}

impl Ctx<'_> {
    fn preds_within(&self, b: BlockId, allowed: &[BlockId]) -> bool {
        self.cfg.preds(b).iter().all(|p| allowed.contains(p))
    }

    /// Every predecessor of `latch` is `dispatch_block` or a block of a handler exit.
    fn latch_preds_within(
        &self,
        latch: BlockId,
        dispatch_block: BlockId,
        surface: &Handler,
        procedural: &Handler,
    ) -> bool {
        let mut allowed = vec![dispatch_block];
        for h in [surface, procedural] {
            allowed.extend(h.exits.iter().filter_map(|i| self.func.inst(*i).block));
        }
        self.preds_within(latch, &allowed)
    }

    /// The handler entered at `entry` of a loop whose candidate dispatch sits in `body`
    /// and whose latch is `update` (upstream's handler-region walk).
    fn handler(&self, entry: BlockId, body: BlockId, update: BlockId) -> Result<Handler, Reject> {
        if entry == update {
            return Ok(Handler {
                entry: None,
                blocks: Vec::new(),
                exits: Vec::new(),
            });
        }
        let func = self.func;
        let mut seen: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        let mut blocks = Vec::new();
        let mut exits = Vec::new();
        let mut work = vec![entry];
        while let Some(b) = work.pop() {
            if b == update {
                continue;
            }
            if b == body || !self.func.has_block(b) {
                return Err("candidate handler escapes its canonical loop");
            }
            if seen[b] {
                continue;
            }
            seen[b] = true;
            blocks.push(b);
            let Some(t) = func.terminator(b) else {
                return Err("candidate handler contains an unterminated block");
            };
            for s in func.successors(b) {
                if s == update {
                    if lone_target_br(func, t) != Some(update) {
                        return Err("candidate handler has a non-Branch edge to the loop update");
                    }
                    exits.push(t);
                } else if !seen[s] {
                    work.push(s);
                }
            }
        }
        if exits.is_empty() {
            return Err("candidate handler has no exit to the loop update");
        }
        for &b in &blocks {
            let t = func.terminator(b).expect("checked above");
            if let Some(mb) = func.inst(t).kind.merge()
                && !seen[mb]
            {
                return Err("candidate handler has a structured merge outside its region");
            }
            if self
                .cfg
                .preds(b)
                .iter()
                .any(|p| !(seen[*p] || b == entry && *p == body))
            {
                return Err("candidate handler has an external predecessor");
            }
        }
        exits.sort();
        exits.dedup();
        Ok(Handler {
            entry: Some(entry),
            blocks,
            exits,
        })
    }

    fn check_regions(&self, s: &Handler, p: &Handler) -> Result<(), Reject> {
        if s.blocks.iter().any(|b| p.blocks.contains(b)) {
            return Err("surface and procedural handler regions overlap");
        }
        Ok(())
    }

    /// The canonical `loop` shape.
    fn canonical(&self, parent: BlockId, l: InstId) -> Match {
        let func = self.func;
        let d = func.inst(l);
        let InstKind::Loop {
            body,
            update,
            merge,
        } = d.kind
        else {
            return Match::Ignored;
        };
        let prepare = d.operands.first().and_then(|v| v.as_block());
        if !proceeds(func, prepare) && !proceeds(func, body) && !proceeds(func, update) {
            return Match::Ignored;
        }
        match self.canonical_inner(parent, l, prepare, body, update, merge) {
            Ok(c) => Match::Accepted(c),
            Err(why) => Match::Rejected(why),
        }
    }

    fn canonical_inner(
        &self,
        parent: BlockId,
        l: InstId,
        prepare: Option<BlockId>,
        body: Option<BlockId>,
        update: Option<BlockId>,
        merge: Option<BlockId>,
    ) -> Result<Candidate, Reject> {
        let (m, f, func) = (self.m, self.f, self.func);
        let (Some(prepare), Some(body), Some(update), Some(merge)) = (prepare, body, update, merge)
        else {
            return Err("canonical ray-query loop has a null structural block");
        };
        let all = [parent, prepare, body, update, merge];
        if all.iter().any(|b| !self.func.has_block(*b)) || !distinct(&all) {
            return Err("canonical ray-query loop has invalid block ownership");
        }
        if !proceeds(func, Some(prepare)) {
            return Err("ray-query PROCEED is outside the canonical prepare block");
        }
        let &[proceed, term, not, br] = insts(func, prepare) else {
            return Err("ray-query prepare block is not canonical");
        };
        if !is_write(func, proceed, RayQueryObjectWriteOp::Proceed) {
            return Err("ray-query prepare block is not canonical");
        }
        let q = func.inst(proceed).operands[0];
        if !is_query_object(m, f, q)
            || !is_read(m, f, term, RayQueryObjectReadOp::IsTerminated, q)
            || !matches!(func.inst(not).kind, InstKind::Arithmetic(_))
        {
            return Err("ray-query prepare operations do not share one valid query object");
        }
        if !is_not_of(m, f, not, Value::Inst(term))
            || func.inst(br).kind != InstKind::ConditionalBranch
        {
            return Err("ray-query termination test is not canonical");
        }
        if func.inst(br).operands.as_slice()
            != [Value::Inst(not), Value::Block(body), Value::Block(merge)]
            || !used_once_by(func, Value::Inst(term), not)
            || !used_once_by(func, Value::Inst(not), br)
        {
            return Err("ray-query prepare branch is not active-body/terminated-merge");
        }
        if lone_br(func, update, prepare).is_none() {
            return Err("ray-query update block is not a canonical latch");
        }
        let (dispatch, s_entry, p_entry) = if let Some(b) = lone_br(func, body, update) {
            (b, update, update)
        } else if let &[c, i] = insts(func, body)
            && is_read(m, f, c, RayQueryObjectReadOp::IsTriangleCandidate, q)
            && let Some((cond, t, e, mb)) = as_if(func, i)
        {
            if cond != Value::Inst(c) || mb != Some(update) || !used_once_by(func, cond, i) {
                return Err("ray-query candidate dispatch is not canonical");
            }
            (i, t, e)
        } else {
            return Err("ray-query body is not a canonical candidate dispatch");
        };
        let surface = self.handler(s_entry, body, update)?;
        let procedural = self.handler(p_entry, body, update)?;
        self.check_regions(&surface, &procedural)?;
        if !self.preds_within(prepare, &[parent, update]) || !self.preds_within(body, &[prepare]) {
            return Err("canonical ray-query shell has an external predecessor");
        }
        if !self.latch_preds_within(update, body, &surface, &procedural) {
            return Err("canonical ray-query update has an external predecessor");
        }
        if !self.preds_within(merge, &[parent, prepare]) {
            return Err("canonical ray-query merge has an external predecessor");
        }
        Ok(Candidate {
            loop_inst: l,
            query: q,
            merge,
            merge_pred: prepare,
            dispatch_md: func.inst(dispatch).metadata.clone(),
            surface,
            procedural,
            shell: vec![prepare, body, update],
        })
    }

    /// The frontend's inline `simple_loop` shape.
    fn inline(&self, parent: BlockId, l: InstId) -> Match {
        let func = self.func;
        let d = func.inst(l);
        let InstKind::SimpleLoop { merge } = d.kind else {
            return Match::Ignored;
        };
        let body = d.operands.first().and_then(|v| v.as_block());
        if !proceeds(func, body) {
            return Match::Ignored;
        }
        match self.inline_inner(parent, l, body, merge) {
            Ok(c) => Match::Accepted(c),
            Err(why) => Match::Rejected(why),
        }
    }

    fn inline_inner(
        &self,
        parent: BlockId,
        l: InstId,
        body: Option<BlockId>,
        merge: Option<BlockId>,
    ) -> Result<Candidate, Reject> {
        let (m, f, func) = (self.m, self.f, self.func);
        let (Some(body), Some(merge)) = (body, merge) else {
            return Err("frontend ray-query loop has a null structural block");
        };
        if ![parent, body, merge].iter().all(|b| self.func.has_block(*b)) || !distinct(&[parent, body, merge])
        {
            return Err("frontend ray-query loop has invalid block ownership");
        }
        let bi = insts(func, body);
        if bi.len() < 3 || !is_write(func, bi[0], RayQueryObjectWriteOp::Proceed) {
            return Err("frontend ray-query loop guard is not canonical");
        }
        let q = func.inst(bi[0]).operands[0];
        if !is_query_object(m, f, q) || !is_read(m, f, bi[1], RayQueryObjectReadOp::IsTerminated, q)
        {
            return Err("frontend ray-query guard does not use one valid query object");
        }
        let mut guard = Value::Inst(bi[1]);
        let mut k = 2;
        let mut nots = 0;
        while k + 1 < bi.len()
            && matches!(func.inst(bi[k]).kind, InstKind::Arithmetic(_))
            && is_not_of(m, f, bi[k], guard)
            && used_once_by(func, guard, bi[k])
        {
            guard = Value::Inst(bi[k]);
            k += 1;
            nots += 1;
        }
        if nots != 0 && nots != 2 {
            return Err("frontend ray-query loop termination test is not canonical");
        }
        if k + 2 < bi.len()
            && func.inst(bi[k]).kind == InstKind::Store
            && func.inst(bi[k + 1]).kind == InstKind::Load
        {
            let (st, ld) = (func.inst(bi[k]), func.inst(bi[k + 1]));
            let var = st.operands[0];
            if st.operands.get(1) != Some(&guard)
                || ld.operands.as_slice() != [var]
                || !is_bool(m, f, bi[k + 1])
                || !used_once_by(func, guard, bi[k])
                || users(func, var) != [bi[k], bi[k + 1]]
            {
                return Err("frontend ray-query loop guard temporary escapes its shell");
            }
            guard = Value::Inst(bi[k + 1]);
            k += 2;
        }
        if k + 1 != bi.len() || !matches!(func.inst(bi[k]).kind, InstKind::If { .. }) {
            return Err("frontend ray-query loop termination test is not canonical");
        }
        let guard_if = bi[k];
        let Some((cond, brk, relay, cand)) = as_if(func, guard_if) else {
            return Err("frontend ray-query loop guard has a null branch or merge");
        };
        if cond != guard || !used_once_by(func, guard, guard_if) {
            return Err("frontend ray-query loop guard condition escapes its shell");
        }
        let Some(cand) = cand else {
            return Err("frontend ray-query loop guard has a null branch or merge");
        };
        let is_break_to_merge = matches!(insts(func, brk), [only]
            if func.inst(*only).kind == InstKind::Break
                && func.inst(*only).operands.as_slice() == [Value::Block(merge)]);
        if !is_break_to_merge || lone_br(func, relay, cand).is_none() {
            return Err("frontend ray-query loop guard is not break/relay canonical");
        }
        let ci = insts(func, cand);
        if !(2..=3).contains(&ci.len())
            || !matches!(func.inst(ci[0]).kind, InstKind::RayQueryObjectRead(_))
        {
            return Err("frontend ray-query candidate dispatch is not canonical");
        }
        let read = ci[0];
        let triangle = is_read(m, f, read, RayQueryObjectReadOp::IsTriangleCandidate, q);
        if !triangle && !is_read(m, f, read, RayQueryObjectReadOp::IsProceduralCandidate, q) {
            return Err("frontend candidate predicate uses a different query object");
        }
        let mut cond = Value::Inst(read);
        let mut negated = false;
        if ci.len() == 3 {
            if !is_not_of(m, f, ci[1], cond) || !used_once_by(func, cond, ci[1]) {
                return Err("frontend candidate predicate negation is malformed");
            }
            cond = Value::Inst(ci[1]);
            negated = true;
        }
        let cand_if = *ci.last().expect("two or three instructions");
        let Some((c2, t, e, latch)) = as_if(func, cand_if) else {
            return Err("frontend candidate predicate does not terminate in an IfInst");
        };
        if c2 != cond || !used_once_by(func, cond, cand_if) {
            return Err("frontend candidate predicate escapes its dispatch shell");
        }
        let Some(latch) = latch else {
            return Err("frontend candidate dispatch has a null branch or merge");
        };
        let (s_entry, p_entry) = if triangle != negated { (t, e) } else { (e, t) };
        if lone_br(func, latch, body).is_none() {
            return Err("frontend ray-query loop latch is not canonical");
        }
        let shell = [parent, body, brk, relay, cand, latch, merge];
        if shell.iter().any(|b| !self.func.has_block(*b)) {
            return Err("frontend ray-query shell crosses a function boundary");
        }
        if !distinct(&shell) {
            return Err("frontend ray-query shell aliases structural blocks");
        }
        let surface = self.handler(s_entry, cand, latch)?;
        let procedural = self.handler(p_entry, cand, latch)?;
        if surface.blocks.iter().any(|b| procedural.blocks.contains(b)) {
            return Err("frontend surface and procedural handler regions overlap");
        }
        if surface.blocks.iter().any(|b| proceeds(func, Some(*b))) {
            return Err("frontend surface handler contains a nested PROCEED");
        }
        if procedural.blocks.iter().any(|b| proceeds(func, Some(*b))) {
            return Err("frontend procedural handler contains a nested PROCEED");
        }
        if !self.preds_within(body, &[parent, latch])
            || !self.preds_within(brk, &[body])
            || !self.preds_within(relay, &[body])
            || !self.preds_within(cand, &[relay])
        {
            return Err("frontend ray-query shell has an external predecessor");
        }
        if !self.latch_preds_within(latch, cand, &surface, &procedural) {
            return Err("frontend ray-query latch has an external predecessor");
        }
        if !self.preds_within(merge, &[brk]) {
            return Err("frontend ray-query merge has an external predecessor");
        }
        Ok(Candidate {
            loop_inst: l,
            query: q,
            merge,
            merge_pred: brk,
            dispatch_md: func.inst(cand_if).metadata.clone(),
            surface,
            procedural,
            shell: vec![body, brk, relay, cand, latch],
        })
    }
}

/// The terminator `t` is a `br`; its target.
fn lone_target_br(func: &Function, t: InstId) -> Option<BlockId> {
    let d = func.inst(t);
    (d.kind == InstKind::Branch)
        .then(|| d.operands.first().and_then(|v| v.as_block()))
        .flatten()
}

fn distinct(blocks: &[BlockId]) -> bool {
    (0..blocks.len()).all(|i| !blocks[i + 1..].contains(&blocks[i]))
}

fn rewrite(m: &mut Module, f: FuncId, c: Candidate) {
    let func = m.func_mut(f);
    let dispatch = func.create_block();
    let d = func.inst_mut(c.loop_inst);
    d.kind = InstKind::RayQueryLoop {
        merge: Some(c.merge),
    };
    d.operands.clear();
    d.operands.push(Value::Block(dispatch));
    let mut handler_block = |h: &Handler| match h.entry {
        Some(b) => b,
        None => {
            let b = func.create_block();
            Cursor::at_end(func, b).br(dispatch);
            b
        }
    };
    let s = handler_block(&c.surface);
    let p = handler_block(&c.procedural);
    let di = Cursor::at_end(func, dispatch).ray_query_dispatch(c.query, c.merge, s, p);
    func.inst_mut(di).metadata = c.dispatch_md;
    for &e in c.surface.exits.iter().chain(&c.procedural.exits) {
        func.inst_mut(e).operands[0] = Value::Block(dispatch);
    }
    for k in 0..func.blocks[c.merge].insts.len() {
        let i = func.blocks[c.merge].insts[k];
        if func.inst(i).is_phi() {
            func.inst_mut(i).phi_rename_block(c.merge_pred, dispatch);
        }
    }
    for b in c.shell {
        func.remove_block(b);
    }
}

impl Pass for ReconstructRayQueryLoop {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = ReconstructRayQueryLoopCounters::default();
        let mut work: Vec<(FuncId, Candidate)> = Vec::new();
        let mut first: Option<String> = None;
        for &f in &module.func_order {
            let func = module.func(f);
            if func.body.is_none() {
                continue;
            }
            let loops: Vec<(BlockId, InstId)> = func
                .block_order
                .iter()
                .filter_map(|b| func.terminator(*b).map(|t| (*b, t)))
                .filter(|(_, t)| {
                    matches!(
                        func.inst(*t).kind,
                        InstKind::Loop { .. } | InstKind::SimpleLoop { .. }
                    )
                })
                .collect();
            if loops.is_empty() {
                continue;
            }
            let cx = Ctx {
                m: module,
                f,
                func,
                cfg: Cfg::compute(func),
            };
            for (b, l) in loops {
                let found = match func.inst(l).kind {
                    InstKind::Loop { .. } => cx.canonical(b, l),
                    _ => cx.inline(b, l),
                };
                match found {
                    Match::Ignored => c.ignored_loop += 1,
                    Match::Accepted(cand) => work.push((f, cand)),
                    Match::Rejected(why) => {
                        c.error += 1;
                        first.get_or_insert_with(|| {
                            format!(
                                "{}: the ray-query-like loop in block {} is rejected: {why}",
                                describe_function(module, f),
                                label(module, f, b)
                            )
                        });
                    }
                }
            }
        }
        if let Some(reason) = first {
            return Ok(PassRun::refused(reason, c.report()));
        }
        for (f, cand) in work {
            rewrite(module, f, cand);
            c.reconstructed_ray_query_loop += 1;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}
