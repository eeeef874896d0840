//! `loop-fusion` — fuse two adjacent counted loops with the same iteration space.
//!
//! **What:** when the exit of a counted loop `L1` is the preheader of a counted loop `L2`
//! that iterates the same way (same start, bound, stride, comparison and branch
//! polarity, hence the same constant trip count), and neither loop's memory accesses
//! can depend on the other's, the two become one loop: `L1`'s header leaves to `L2`'s
//! exit, `L1`'s latch continues into `L2`'s body, and `L2`'s latch closes the loop at
//! `L1`'s header. `L2`'s induction phi is replaced by `L1`'s, its other header phis move
//! to `L1`'s header, and `L2`'s preheader and header are deleted.
//!
//! **Algorithm** (as upstream's `loop_fusion.cpp`, read at LuisaCompute `0c84a1aa`;
//! facts only): per function, the natural loops are recomputed after every fusion and
//! every ordered pair is tried, inner loops first, until none fuses. A pair fuses when:
//! * both loops have a preheader, one latch, one exit block and one exit edge; `L1`'s exit
//!   is `L2`'s preheader, which holds only `br L2.header` and has `L1`'s exiting block as
//!   its only predecessor;
//! * both are counted loops ([`crate::util::loops::analyze_bounds`]) with constant
//!   strides and trip counts, equal trip counts and strides, induction phis of one type,
//!   the same comparison op, operand order and polarity, the same start and bound (the
//!   same value, or integer constants of one type and value); `L1` exits to `L2`'s
//!   preheader and `L2` to its exit block;
//! * each header holds only phis, its comparison (used only by the `cond_br`) and the
//!   `cond_br`;
//! * memory: no instruction of either loop is a call, an atomic, or has effects other
//!   than reading and writing (barriers, volatile accesses, traps, clocks, ray queries
//!   …); loads and stores address local variables (through `gep`s); reading is
//!   otherwise only `resource_read` and writing `resource_write`. A resource write in
//!   one loop conflicts with any resource access in the other (two resources may be
//!   views of one buffer), and a local variable written by one loop may not be accessed
//!   by the other;
//! * no value defined in `L1` is used in `L2`;
//! * `L2`'s preheader and header blocks, its preheader's `br`, its induction phi,
//!   comparison and header `cond_br` carry no metadata (they are deleted);
//! * `L2`'s other header phis have exactly two incomings, from its preheader (a value
//!   defined outside `L1` and not in `L2`'s preheader) and its latch;
//! * the phis of `L2`'s exit take values only from `L2`'s header: its induction phi, its
//!   other header phis, or values defined outside `L2`;
//! * both latches end in `br` to their header.
//!
//! Deviations: local variables are `local` allocas (shared memory is an unmodeled
//! access here; upstream counts every alloca), and instructions that may trap count as
//! unmodeled (fusing would move a trap across the other loop's writes). `L2`'s old
//! increment is left dead (`dce` removes it), as upstream.
//!
//! **Preconditions:** plain CFG. **Refusals:** any function with structured control
//! flow refuses the whole module untouched, counting those functions in
//! `structured_cfg_error_count` (run `destructure-cfg` first).
//!
//! **Report keys** (upstream's): `fused_loop_count`, `structured_cfg_error_count`.
//! **Changed:** loops fused.
//!
//! **Example:**
//! ```text
//! %h1: i = phi (0, %p1), (i+1, %l1); cond_br i<4, %b1, %p2     %p2: br %h2
//! %h2: j = phi (0, %p2), (j+1, %l2); cond_br j<4, %b2, %x
//! →  %h1: …; cond_br i<4, %b1, %x   %l1: … br %b2 (j is i)   %l2: … br %h1
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::local_mem::LocalPointers;
use crate::form::structured_refusal;
use crate::util::loops::{LoopBounds, analyze_bounds, def_block, in_loop, int_constant, natural_loops};
use rustc_hash::FxHashSet;
use xir_ir::analysis::LoopData;
use xir_ir::edit::{InsertPoint, Rewriter};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::inst_table::Effects;
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, Value};

/// The `loop-fusion` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LoopFusion;

crate::declare_pass! {
    LoopFusion: module pass "loop-fusion" {
        summary: "Fuses adjacent counted loops with equal iteration spaces and independent memory (opt-in, plain CFG only)",
        form: Either,
        counters: LoopFusionCounters {
            /// Loop pairs fused.
            fused_loop_count: ControlFlow,
            /// Functions with structured control flow (the module is refused).
            structured_cfg_error_count: Nothing,
        }
    }
}

impl Pass for LoopFusion {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LoopFusionCounters::default();
        if let Some((n, why)) = structured_refusal(module, "loop-fusion") {
            c.structured_cfg_error_count = n;
            return Ok(PassRun::refused(why, c.report()));
        }
        for f in module.func_order.clone() {
            // Each fusion removes a loop, so this ends.
            loop {
                let loops = natural_loops(module.func(f));
                let plan = loops.iter().enumerate().find_map(|(i, a)| {
                    loops
                        .iter()
                        .enumerate()
                        .find_map(|(j, b)| if i == j { None } else { plan(module, f, a, b) })
                });
                let Some(p) = plan else { break };
                fuse(module, f, &p);
                c.fused_loop_count += 1;
            }
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

/// Two loops that passed every check.
struct Plan {
    header1: BlockId,
    latch1: BlockId,
    preheader1: BlockId,
    header2: BlockId,
    latch2: BlockId,
    preheader2: BlockId,
    exit2: BlockId,
    b1: LoopBounds,
    b2: LoopBounds,
    movable: Vec<InstId>,
}

/// What a loop touches.
#[derive(Default)]
struct Footprint {
    local_reads: FxHashSet<InstId>,
    local_writes: FxHashSet<InstId>,
    global_read: bool,
    global_write: bool,
    unmodeled: bool,
}

fn footprint(func: &Function, locals: &LocalPointers, l: &LoopData) -> Footprint {
    let mut fp = Footprint::default();
    for &b in &l.blocks {
        for &i in &func.blocks[b].insts {
            let d = &func.insts[i];
            if d.kind.is_terminator() || d.is_phi() {
                continue;
            }
            let fx = d.kind.effects();
            if fx.intersects(Effects::BARRIER.union(Effects::MAY_TRAP))
                || matches!(d.kind, InstKind::Call | InstKind::Atomic(_))
            {
                fp.unmodeled = true;
                continue;
            }
            if !fx.intersects(Effects::READS.union(Effects::WRITES)) {
                continue;
            }
            match d.kind {
                InstKind::Load | InstKind::Store => match locals.base(d.operands[0]) {
                    Some(base) if matches!(d.kind, InstKind::Load) => {
                        fp.local_reads.insert(base);
                    }
                    Some(base) => {
                        fp.local_writes.insert(base);
                    }
                    None => fp.unmodeled = true,
                },
                InstKind::ResourceRead(..) => fp.global_read = true,
                InstKind::ResourceWrite(..) => fp.global_write = true,
                _ => fp.unmodeled = true,
            }
        }
    }
    fp
}

fn independent(a: &Footprint, b: &Footprint) -> bool {
    if a.unmodeled || b.unmodeled {
        return false;
    }
    if (a.global_write && (b.global_read || b.global_write)) || (b.global_write && (a.global_read || a.global_write)) {
        return false;
    }
    let clash = |x: &Footprint, y: &Footprint| {
        x.local_writes.iter().any(|v| y.local_reads.contains(v) || y.local_writes.contains(v))
    };
    !clash(a, b) && !clash(b, a)
}

/// Whether `a` and `b` are the same value or integer constants of one type and value.
fn same_constant(module: &Module, f: FuncId, a: Value, b: Value) -> bool {
    a == b
        || (module.value_type(f, a) == module.value_type(f, b)
            && int_constant(module, a).is_some()
            && int_constant(module, a) == int_constant(module, b))
}

/// The header holds only phis, the comparison (feeding only the `cond_br`) and the
/// `cond_br`.
fn canonical_header(func: &Function, uses: &UseMap, header: BlockId, b: &LoopBounds) -> bool {
    let t = func.terminator(header);
    func.blocks[header]
        .insts
        .iter()
        .all(|&i| func.insts[i].is_phi() || i == b.cmp || Some(i) == t)
        && uses.insts.get(b.cmp).iter().all(|u| Some(u.inst) == t)
}

/// The checks of the module docs for `first` then `second`; `None` leaves them alone.
fn plan(module: &Module, f: FuncId, first: &LoopData, second: &LoopData) -> Option<Plan> {
    let func = module.func(f);
    let (preheader1, preheader2) = (first.preheader?, second.preheader?);
    let ([latch1], [latch2]) = (&first.latches[..], &second.latches[..]) else { return None };
    let ([exit1], [exit2]) = (&first.exits[..], &second.exits[..]) else { return None };
    let ([(src1, _)], [_]) = (&first.exiting_edges[..], &second.exiting_edges[..]) else { return None };
    let (latch1, latch2, exit2) = (*latch1, *latch2, *exit2);
    if *exit1 != preheader2 {
        return None;
    }
    let pre2 = &func.blocks[preheader2].insts;
    if pre2.len() != 1 || !matches!(func.insts[pre2[0]].kind, InstKind::Branch) {
        return None;
    }
    // The shared block is deleted: no other way into it.
    let preds_ok = func.block_order.iter().all(|&b| {
        b == *src1 || func.terminator(b).is_none_or(|t| !func.insts[t].successors().any(|s| s == preheader2))
    });
    if !preds_ok {
        return None;
    }
    let b1 = analyze_bounds(module, f, first)?;
    let b2 = analyze_bounds(module, f, second)?;
    let same = b1.stride.is_some()
        && b1.trip_count.is_some()
        && b1.trip_count == b2.trip_count
        && b1.stride == b2.stride
        && func.insts[b1.iv].ty == func.insts[b2.iv].ty
        && b1.cmp_op == b2.cmp_op
        && b1.iv_is_lhs == b2.iv_is_lhs
        && b1.continue_on_true == b2.continue_on_true
        && same_constant(module, f, b1.start, b2.start)
        && same_constant(module, f, b1.bound, b2.bound)
        && b1.exit == preheader2
        && b2.exit == exit2;
    let uses = UseMap::compute(func);
    if !same
        || !canonical_header(func, &uses, first.header, &b1)
        || !canonical_header(func, &uses, second.header, &b2)
    {
        return None;
    }
    let locals = LocalPointers::compute(func);
    if !independent(&footprint(func, &locals, first), &footprint(func, &locals, second)) {
        return None;
    }
    // No value of the first loop flows into the second.
    for &b in &first.blocks {
        for &i in &func.blocks[b].insts {
            if uses.insts.get(i).iter().any(|u| func.insts[u.inst].block.is_some_and(|ub| in_loop(second, ub))) {
                return None;
            }
        }
    }
    let t2 = func.terminator(second.header)?;
    let md = |i: InstId| !func.insts[i].metadata.is_empty();
    if !func.blocks[preheader2].metadata.is_empty()
        || !func.blocks[second.header].metadata.is_empty()
        || md(pre2[0])
        || md(b2.iv)
        || md(b2.cmp)
        || md(t2)
    {
        return None;
    }
    let mut movable = Vec::new();
    for &p in &func.blocks[second.header].insts {
        let d = &func.insts[p];
        if !d.is_phi() {
            break;
        }
        if p == b2.iv {
            continue;
        }
        if d.phi_len() != 2 {
            return None;
        }
        let start = d.phi_incoming().find(|(_, b)| *b == preheader2).map(|e| e.0);
        let recur = d.phi_incoming().find(|(_, b)| *b == latch2);
        let (Some(start), Some(_)) = (start, recur) else { return None };
        if def_block(func, start).is_some_and(|db| in_loop(first, db) || db == preheader2) {
            return None;
        }
        movable.push(p);
    }
    for &p in &func.blocks[exit2].insts {
        let d = &func.insts[p];
        if !d.is_phi() {
            break;
        }
        for (v, b) in d.phi_incoming() {
            if b != second.header {
                return None;
            }
            let ok = v == Value::Inst(b2.iv)
                || matches!(v, Value::Inst(i) if movable.contains(&i))
                || def_block(func, v).is_none_or(|db| !in_loop(second, db));
            if !ok {
                return None;
            }
        }
    }
    let br_to = |b: BlockId, h: BlockId| {
        func.terminator(b).is_some_and(|t| {
            matches!(func.insts[t].kind, InstKind::Branch) && func.insts[t].operands[0] == Value::Block(h)
        })
    };
    if !br_to(latch1, first.header) || !br_to(latch2, second.header) {
        return None;
    }
    Some(Plan {
        header1: first.header,
        latch1,
        preheader1,
        header2: second.header,
        latch2,
        preheader2,
        exit2,
        b1,
        b2,
        movable,
    })
}

fn fuse(module: &mut Module, f: FuncId, p: &Plan) {
    let mut rw = Rewriter::for_module(module, f);
    // The first header leaves to the second exit.
    let t1 = rw.terminator(p.header1).expect("checked by plan");
    let slot = if rw.inst(t1).operands[1] == Value::Block(p.preheader2) { 1 } else { 2 };
    rw.set_operand(t1, slot, Value::Block(p.exit2));
    // The first latch falls into the second body; the second latch closes the loop.
    let l1 = rw.terminator(p.latch1).expect("checked by plan");
    rw.set_operand(l1, 0, Value::Block(p.b2.body_entry));
    let l2 = rw.terminator(p.latch2).expect("checked by plan");
    rw.set_operand(l2, 0, Value::Block(p.header1));
    for ph in rw.phis(p.header1) {
        rw.rename_phi_block(ph, p.latch1, p.latch2);
    }
    rw.replace_all_uses(Value::Inst(p.b2.iv), Value::Inst(p.b1.iv));
    for ph in rw.phis(p.b2.body_entry) {
        rw.rename_phi_block(ph, p.header2, p.latch1);
    }
    // The second header's other phis move behind the first header's phis.
    let anchor = rw
        .insts(p.header1)
        .find(|&i| !rw.inst(i).is_phi())
        .expect("the header is terminated");
    for &old in &p.movable {
        let d = rw.inst(old).clone();
        let mut n = InstData::new(InstKind::Phi, d.ty, []);
        n.metadata = d.metadata.clone();
        let new = rw.insert(InsertPoint::Before(anchor), n);
        for (v, b) in d.phi_incoming() {
            let b = if b == p.preheader2 { p.preheader1 } else { b };
            rw.add_phi_edge(new, v, b);
        }
        rw.replace_all_uses(Value::Inst(old), Value::Inst(new));
    }
    for ph in rw.phis(p.exit2) {
        rw.rename_phi_block(ph, p.header2, p.header1);
    }
    // Delete the shared preheader and the second header.
    for b in [p.preheader2, p.header2] {
        let insts: Vec<InstId> = rw.insts(b).collect();
        for &i in insts.iter().rev() {
            rw.remove(i);
        }
    }
    drop(rw);
    let func = module.func_mut(f);
    func.remove_block(p.preheader2);
    func.remove_block(p.header2);
}
