//! `loop-vectorization` — pack consecutive iterations of a counted loop into vector
//! arithmetic.
//!
//! **What:** a counted loop of unit stride and constant trip count whose body is one
//! block of lane-wise arithmetic over elements `a[i]` / `a[i + c]` of local arrays runs
//! `VF` iterations at a time (`VF` = 4, or 2 for 64-bit elements): each load becomes `VF`
//! scalar loads gathered into a vector (`aggregate`), each arithmetic instruction one
//! vector instruction, each store `VF` `extract`s and scalar stores, and the induction
//! variable steps by `VF`. One scalar reduction `acc = acc op x` (integer `add`, `mul`,
//! `min`, `max`) stays scalar and folds the `VF` lanes of `x` once per packed iteration.
//! When the trip count is not a multiple of `VF`, the loop bound is lowered to the largest
//! multiple and the trailing iterations are peeled as straight-line scalar copies between
//! the loop's exit edge and its exit.
//!
//! **Algorithm** (as upstream's `loop_vectorization.cpp`, read at LuisaCompute
//! `c58a1305`; facts only): per function, natural loops inner first
//! ([`crate::util::loops::natural_loops`], found afresh after each rewrite; a vectorized
//! loop steps by `VF` and is not taken again). A loop qualifies when:
//! * it has a preheader, one latch ending in `br header`, one exit, and is a counted loop
//!   ([`crate::util::loops::analyze_bounds`]) of stride 1 and constant trip count `≥ VF`;
//! * its body is the latch alone, or a *compute* block falling through to a latch that
//!   holds only the increment; the increment feeds only the induction phi;
//! * besides the induction phi the header has at most one phi, a reduction as above
//!   whose combine (in the compute block) feeds only that phi and whose `x` is the
//!   induction variable or a load or arithmetic of the compute block;
//! * the compute block holds only: `gep`s with one index into a `local` alloca, used only
//!   by the block's loads and stores, whose index is `i` or `i + c` (`c` defined outside
//!   the loop; an index `i + c` computed in the block is address arithmetic and stays
//!   scalar); loads and stores through those; and arithmetic that works lane by lane
//!   ([`ArithmeticOp::lanewise_arity`]) and cannot trap, of one scalar element type
//!   (32 or 64 bits) shared by every load and store, over the induction variable, values
//!   defined outside the loop and values of the block;
//! * values of the block are used only in the block and the latch (and by the
//!   reduction's combine); no array is both loaded and stored, and stores into one array
//!   use one index (deviation: upstream allows several, whose order packing changes);
//! * with a remainder: there is no reduction, the exit's phis take only values defined
//!   outside the loop from the header, the header holds only phis, `gep`s, arithmetic
//!   and its `cond_br` (the comparison read only there), and the start is an integer
//!   constant.
//!
//! The vector code goes before the compute block's terminator (after the address
//! arithmetic it reads); the scalar loads, stores, arithmetic, their `gep`s and the old
//! increment are then deleted. Deviations: float reductions are left alone (folding the
//! lanes reassociates `add`/`mul` and reorders `min`/`max`, which changes float results;
//! upstream accepts them under fast math), arithmetic that may trap and 8/16-bit elements
//! are not vectorized, and shared-memory arrays are not.
//!
//! **Preconditions:** plain CFG. **Refusals:** none; a function with structured control
//! flow is skipped and counted in `structured_cfg_error_count` (upstream's per-function
//! skip; run `destructure-cfg` first).
//!
//! **Report keys** (upstream's): `vectorized_loop_count`, `created_vector_inst_count`
//! (vector arithmetic instructions), `structured_cfg_error_count`. **Changed:** a loop
//! vectorized (control flow when iterations were peeled).
//!
//! **Example:**
//! ```text
//! %b: %e = gep %a, %i; %x = load %e; %y = mul %x, %k; %f = gep %o, %i; store %f, %y
//! →  %x4 = aggregate (load a[i], load a[i+1], …); %y4 = mul %x4, (k,k,k,k);
//!    store o[i], extract %y4, 0; …; %i1 = add %i, 4
//! ```

use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use crate::util::loops::{LoopBounds, analyze_bounds, def_block, in_loop, int_constant, natural_loops};
use rustc_hash::{FxHashMap, FxHashSet};
use xir_ir::analysis::LoopData;
use xir_ir::constant::ScalarValue;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::inst::{InstData, InstKind};
use xir_ir::inst_table::Effects;
use xir_ir::op::{AllocaOp, ArithmeticOp};
use xir_ir::types::ScalarKind;
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, FuncId, Function, InstId, Module, Type, Value};

/// The `loop-vectorization` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LoopVectorization;

crate::declare_pass! {
    LoopVectorization: module pass "loop-vectorization" {
        summary: "Packs counted single-block loops over local arrays into vector arithmetic, peeling remainders (opt-in, plain CFG only)",
        form: Either,
        counters: LoopVectorizationCounters {
            /// Loops vectorized.
            vectorized_loop_count: Instructions,
            /// Vector arithmetic instructions created.
            created_vector_inst_count: Instructions,
            /// Functions with structured control flow (skipped).
            structured_cfg_error_count: Nothing,
        }
        internal {
            /// Remainder iterations peeled (blocks added).
            peeled_iteration: ControlFlow,
        }
    }
}

impl Pass for LoopVectorization {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LoopVectorizationCounters::default();
        for f in module.func_order.clone() {
            if crate::form::has_structured_control_flow(module.func(f), false) {
                c.structured_cfg_error_count += 1;
                continue;
            }
            loop {
                let loops = natural_loops(module.func(f));
                let Some(p) = loops.iter().find_map(|l| plan(module, f, l)) else { break };
                vectorize(module, f, &p, &mut c);
            }
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}

/// An address `base[index]` the packer understands.
#[derive(Copy, Clone)]
struct Addr {
    base: Value,
    index: Value,
}

/// A loop that passed every check.
struct Plan {
    header: BlockId,
    latch: BlockId,
    compute: BlockId,
    exit: BlockId,
    b: LoopBounds,
    vf: u32,
    elem: Type,
    trip: u64,
    /// Loads and stores in order, with their addresses.
    memory: Vec<(InstId, Addr)>,
    /// Address `gep`s of the memory instructions.
    geps: Vec<InstId>,
    arith: Vec<InstId>,
    /// Reduction: phi, combine, op, lane value.
    reduction: Option<(InstId, InstId, ArithmeticOp, Value)>,
    /// Header instructions cloned into each peeled iteration.
    header_scalar: Vec<InstId>,
}

/// `base[index]` when `ptr` is a one-index `gep` into a local alloca whose index is `iv`
/// or `iv + c` with `c` defined outside the loop.
fn match_addr(func: &Function, l: &LoopData, iv: InstId, ptr: Value) -> Option<Addr> {
    let Value::Inst(g) = ptr else { return None };
    let d = &func.insts[g];
    if !matches!(d.kind, InstKind::Gep) || d.operands.len() != 2 {
        return None;
    }
    let (base, index) = (d.operands[0], d.operands[1]);
    let Value::Inst(a) = base else { return None };
    if !matches!(func.insts[a].kind, InstKind::Alloca(AllocaOp::Local)) {
        return None;
    }
    if index == Value::Inst(iv) {
        return Some(Addr { base, index });
    }
    let Value::Inst(ai) = index else { return None };
    let ad = &func.insts[ai];
    if !matches!(ad.kind, InstKind::Arithmetic(ArithmeticOp::BinaryAdd)) || ad.operands.len() != 2 {
        return None;
    }
    let other = if ad.operands[0] == Value::Inst(iv) {
        ad.operands[1]
    } else if ad.operands[1] == Value::Inst(iv) {
        ad.operands[0]
    } else {
        return None;
    };
    def_block(func, other)
        .is_none_or(|b| !in_loop(l, b))
        .then_some(Addr { base, index })
}

/// The checks of the module docs; `None` leaves the loop alone.
fn plan(module: &Module, f: FuncId, l: &LoopData) -> Option<Plan> {
    let func = module.func(f);
    l.preheader?;
    let [latch] = l.latches[..] else { return None };
    let [exit] = l.exits[..] else { return None };
    let b = analyze_bounds(module, f, l)?;
    let trip = b.trip_count?;
    if b.stride != Some(1) {
        return None;
    }
    let lt = func.terminator(latch)?;
    if !matches!(func.insts[lt].kind, InstKind::Branch) || func.insts[lt].operands[0] != Value::Block(l.header) {
        return None;
    }
    let uses = UseMap::compute(func);
    let rec = b.recurrence;
    if func.insts[rec].block != Some(latch) || uses.insts.get(rec).iter().any(|u| u.inst != b.iv) {
        return None;
    }
    let compute = match &l.blocks[1..] {
        [only] if *only == latch => latch,
        [x, y] => {
            let other = if *x == latch { *y } else { *x };
            if other == latch
                || func.blocks[latch].insts.iter().any(|&i| i != rec && i != lt)
                || func.terminator(other).is_none_or(|t| {
                    !matches!(func.insts[t].kind, InstKind::Branch) || func.insts[t].operands[0] != Value::Block(latch)
                })
            {
                return None;
            }
            other
        }
        _ => return None,
    };
    let in_compute = |v: Value| def_block(func, v) == Some(compute);
    // At most one reduction besides the induction phi (integer ops only).
    let mut reduction = None;
    for &p in &func.blocks[l.header].insts {
        let d = &func.insts[p];
        if !d.is_phi() {
            break;
        }
        if p == b.iv {
            continue;
        }
        if reduction.is_some() {
            return None;
        }
        let k = d.ty.and_then(|t| module.types.scalar_kind(t))?;
        let Value::Inst(comb) = d.phi_incoming().find(|(_, bb)| *bb == latch)?.0 else { return None };
        let cd = &func.insts[comb];
        let InstKind::Arithmetic(op) = cd.kind else { return None };
        let int = crate::util::loops::is_int(k);
        if !int
            || cd.block != Some(compute)
            || !matches!(op, ArithmeticOp::BinaryAdd | ArithmeticOp::BinaryMul | ArithmeticOp::Min | ArithmeticOp::Max)
            || !op.is_commutative(false)
            || cd.operands.len() != 2
            || uses.insts.get(comb).iter().any(|u| u.inst != p)
        {
            return None;
        }
        let x = if cd.operands[0] == Value::Inst(p) {
            cd.operands[1]
        } else if cd.operands[1] == Value::Inst(p) {
            cd.operands[0]
        } else {
            return None;
        };
        if x != Value::Inst(b.iv) {
            let Value::Inst(xi) = x else { return None };
            if !in_compute(x) || !matches!(func.insts[xi].kind, InstKind::Load | InstKind::Arithmetic(_)) {
                return None;
            }
        }
        reduction = Some((p, comb, op, x));
    }
    let comb = reduction.map(|r| r.1);
    // The compute block.
    let mut memory = Vec::new();
    let mut geps = Vec::new();
    let mut arith = Vec::new();
    let mut elem: Option<Type> = None;
    let mut same_elem = |t: Option<Type>| match (elem, t) {
        (_, None) => false,
        (None, Some(t)) => {
            elem = Some(t);
            true
        }
        (Some(e), Some(t)) => e == t,
    };
    for &i in &func.blocks[compute].insts {
        let d = &func.insts[i];
        if d.kind.is_terminator() || i == rec || Some(i) == comb {
            continue;
        }
        match d.kind {
            InstKind::Gep => {
                let only_memory = uses.insts.get(i).iter().all(|u| {
                    let ud = &func.insts[u.inst];
                    ud.block == Some(compute) && u.index == 0 && matches!(ud.kind, InstKind::Load | InstKind::Store)
                });
                if !only_memory {
                    return None;
                }
                geps.push(i);
            }
            InstKind::Load | InstKind::Store => {
                let addr = match_addr(func, l, b.iv, d.operands[0])?;
                let t = if matches!(d.kind, InstKind::Load) { d.ty } else { module.value_type(f, d.operands[1]) };
                if !same_elem(t) {
                    return None;
                }
                memory.push((i, addr));
            }
            InstKind::Arithmetic(op) => {
                // Address arithmetic (`i + c` feeding only gep indices) stays scalar.
                let us = uses.insts.get(i);
                if !us.is_empty()
                    && us.iter().all(|u| matches!(func.insts[u.inst].kind, InstKind::Gep) && u.index == 1)
                {
                    continue;
                }
                if op.lanewise_arity() != Some(d.operands.len()) || d.kind.effects().intersects(Effects::MAY_TRAP) {
                    return None;
                }
                if !same_elem(d.ty) {
                    return None;
                }
                let ok = d.operands.iter().all(|&o| {
                    o == Value::Inst(b.iv) || in_compute(o) || def_block(func, o).is_none_or(|db| !in_loop(l, db))
                });
                if !ok {
                    return None;
                }
                arith.push(i);
            }
            _ => return None,
        }
    }
    // Values of the block stay in the block and the latch.
    for &(i, _) in memory.iter().filter(|(i, _)| matches!(func.insts[*i].kind, InstKind::Load)) {
        if uses.insts.get(i).iter().any(|u| Some(u.inst) != comb && func.insts[u.inst].block.is_none_or(|ub| ub != compute && ub != latch)) {
            return None;
        }
    }
    for &i in &arith {
        if uses.insts.get(i).iter().any(|u| Some(u.inst) != comb && func.insts[u.inst].block.is_none_or(|ub| ub != compute && ub != latch)) {
            return None;
        }
        // A vectorized value feeding address arithmetic or a gep stays scalar there.
        if uses.insts.get(i).iter().any(|u| matches!(func.insts[u.inst].kind, InstKind::Gep)) {
            return None;
        }
    }
    // No array both loaded and stored; one index per stored array.
    let mut stored: FxHashMap<Value, Value> = FxHashMap::default();
    let mut loaded: FxHashSet<Value> = FxHashSet::default();
    for &(i, a) in &memory {
        if matches!(func.insts[i].kind, InstKind::Store) {
            if *stored.entry(a.base).or_insert(a.index) != a.index {
                return None;
            }
        } else {
            loaded.insert(a.base);
        }
    }
    if stored.keys().any(|k| loaded.contains(k)) {
        return None;
    }
    if arith.is_empty() && reduction.is_none() {
        return None;
    }
    if elem.is_none() {
        elem = reduction.and_then(|r| func.insts[r.0].ty);
    }
    let elem = elem?;
    if let Some(r) = reduction
        && func.insts[r.0].ty != Some(elem)
    {
        return None;
    }
    let vf = match module.types.scalar_kind(elem)? {
        ScalarKind::I32 | ScalarKind::U32 | ScalarKind::F32 => 4,
        ScalarKind::I64 | ScalarKind::U64 | ScalarKind::F64 => 2,
        _ => return None,
    };
    if trip < u64::from(vf) {
        return None;
    }
    let mut header_scalar = Vec::new();
    if !trip.is_multiple_of(u64::from(vf)) {
        if reduction.is_some() || int_constant(module, b.start).is_none() {
            return None;
        }
        for &p in func.blocks[exit].insts.iter().take_while(|&&p| func.insts[p].is_phi()) {
            if func.insts[p]
                .phi_incoming()
                .any(|(v, bb)| bb == l.header && def_block(func, v).is_some_and(|db| in_loop(l, db)))
            {
                return None;
            }
        }
        for &i in &func.blocks[l.header].insts {
            let d = &func.insts[i];
            if d.is_phi() || d.kind.is_terminator() {
                continue;
            }
            if i == b.cmp {
                // Only the header's `cond_br` reads it (the peeled copies do not test).
                if uses.insts.get(i).iter().any(|u| func.insts[u.inst].block != Some(l.header)) {
                    return None;
                }
                continue;
            }
            if !matches!(d.kind, InstKind::Gep | InstKind::Arithmetic(_)) {
                return None;
            }
            header_scalar.push(i);
        }
    }
    Some(Plan {
        header: l.header,
        latch,
        compute,
        exit,
        b,
        vf,
        elem,
        trip,
        memory,
        geps,
        arith,
        reduction,
        header_scalar,
    })
}

/// An integer constant of type `ty` (an integer kind) holding `v` (wrapped).
fn int_const(rw: &mut Rewriter<'_>, ty: Type, v: i64) -> Value {
    let g = rw.globals();
    let k = g.types.scalar_kind(ty).expect("an integer type");
    Value::Const(g.constant(ty, &v.to_le_bytes()[..k.size() as usize]))
}

/// Peels the trailing `trip % vf` iterations after the loop and lowers its bound.
fn peel(rw: &mut Rewriter<'_>, p: &Plan, c: &mut LoopVectorizationCounters) {
    let rem = p.trip % u64::from(p.vf);
    let main = p.trip - rem;
    let iv_ty = rw.inst(p.b.iv).ty.expect("typed");
    let s = {
        let Value::Const(cid) = p.b.start else { unreachable!("checked by plan") };
        let g = rw.globals();
        let d = &g.constants[cid];
        let k = g.types.scalar_kind(d.ty).expect("integer");
        match xir_ir::constant::read_scalar(k, &d.bytes) {
            Some(ScalarValue::Int(x)) => x,
            Some(ScalarValue::UInt(x)) => x as i64,
            _ => unreachable!("checked by plan"),
        }
    };
    let new_bound = int_const(rw, iv_ty, s.wrapping_add(main as i64));
    let ops = rw.inst(p.b.cmp).operands.clone();
    for (k, o) in ops.iter().enumerate() {
        if *o == p.b.bound {
            rw.set_operand(p.b.cmp, k, new_bound);
        }
    }
    let template: Vec<BlockId> = if p.compute != p.latch { vec![p.compute, p.latch] } else { vec![p.latch] };
    let mut peels: Vec<(BlockId, BlockId)> = Vec::new();
    for k in 0..rem {
        let blocks: Vec<BlockId> = template.iter().map(|_| rw.create_block()).collect();
        let bmap: FxHashMap<BlockId, BlockId> = template.iter().copied().zip(blocks.iter().copied()).collect();
        let mut vmap: FxHashMap<InstId, Value> = FxHashMap::default();
        vmap.insert(p.b.iv, int_const(rw, iv_ty, s.wrapping_add((main + k) as i64)));
        let map = |vmap: &FxHashMap<InstId, Value>, v: Value| match v {
            Value::Inst(i) => vmap.get(&i).copied().unwrap_or(v),
            Value::Block(b) => Value::Block(bmap.get(&b).copied().unwrap_or(b)),
            _ => v,
        };
        let clone_into = |rw: &mut Rewriter<'_>, vmap: &mut FxHashMap<InstId, Value>, i: InstId, at: BlockId| {
            let mut d: InstData = rw.inst(i).clone();
            d.block = None;
            for o in d.operands.iter_mut() {
                *o = map(vmap, *o);
            }
            let n = rw.insert(InsertPoint::End(at), d);
            vmap.insert(i, Value::Inst(n));
        };
        for &i in &p.header_scalar {
            clone_into(rw, &mut vmap, i, blocks[0]);
        }
        for &tb in &template {
            let insts: Vec<InstId> = rw.insts(tb).collect();
            for i in insts {
                clone_into(rw, &mut vmap, i, bmap[&tb]);
            }
        }
        peels.push((blocks[0], *blocks.last().expect("one block at least")));
        c.peeled_iteration += 1;
    }
    let ht = rw.terminator(p.header).expect("checked by plan");
    let slot = if rw.inst(ht).operands[1] == Value::Block(p.exit) { 1 } else { 2 };
    rw.set_operand(ht, slot, Value::Block(peels[0].0));
    for k in 0..peels.len() {
        let t = rw.terminator(peels[k].1).expect("cloned terminator");
        let next = peels.get(k + 1).map_or(p.exit, |n| n.0);
        rw.set_operand(t, 0, Value::Block(next));
    }
    let last = peels.last().expect("a remainder").1;
    for ph in rw.phis(p.exit) {
        rw.rename_phi_block(ph, p.header, last);
    }
}

fn vectorize(module: &mut Module, f: FuncId, p: &Plan, c: &mut LoopVectorizationCounters) {
    let mut rw = Rewriter::for_module(module, f);
    if !p.trip.is_multiple_of(u64::from(p.vf)) {
        peel(&mut rw, p, c);
    }
    let at = InsertPoint::Before(rw.terminator(p.compute).expect("terminated"));
    let vf = p.vf;
    let vec_ty = rw.globals().types.vector(p.elem, vf as u8);
    let u32_ty = rw.globals().types.u32();
    let iv = Value::Inst(p.b.iv);
    let iv_ty = rw.inst(p.b.iv).ty.expect("typed");
    let mut lane_index: FxHashMap<(Value, u32), Value> = FxHashMap::default();
    let mut index_plus = |rw: &mut Rewriter<'_>, index: Value, lane: u32| -> Value {
        if lane == 0 {
            return index;
        }
        if let Some(&v) = lane_index.get(&(index, lane)) {
            return v;
        }
        let ty = rw.value_type(index).expect("typed index");
        let k = int_const(rw, ty, i64::from(lane));
        let v = rw.at(at).arith(ArithmeticOp::BinaryAdd, ty, &[index, k]);
        lane_index.insert((index, lane), v);
        v
    };
    let mut vecs: FxHashMap<Value, Value> = FxHashMap::default();
    // The induction variable's lanes.
    let lanes: Vec<Value> = (0..vf).map(|k| index_plus(&mut rw, iv, k)).collect();
    let iv_vec_ty = rw.globals().types.vector(iv_ty, vf as u8);
    let v = rw.at(at).arith(ArithmeticOp::Aggregate, iv_vec_ty, &lanes);
    vecs.insert(iv, v);
    // Gather loads.
    for &(i, a) in &p.memory {
        if !matches!(rw.inst(i).kind, InstKind::Load) {
            continue;
        }
        let mut lanes = Vec::new();
        for k in 0..vf {
            let idx = index_plus(&mut rw, a.index, k);
            let g = rw.at(at).gep(p.elem, a.base, &[idx]);
            lanes.push(rw.at(at).load(p.elem, g));
        }
        let v = rw.at(at).arith(ArithmeticOp::Aggregate, vec_ty, &lanes);
        vecs.insert(Value::Inst(i), v);
    }
    // Vector arithmetic.
    for &i in &p.arith {
        let InstKind::Arithmetic(op) = rw.inst(i).kind else { unreachable!("checked by plan") };
        let ops = rw.inst(i).operands.clone();
        let mut vops = Vec::new();
        for o in ops {
            let v = match vecs.get(&o) {
                Some(&v) => v,
                None => {
                    let t = rw.value_type(o).expect("typed operand");
                    let vt = rw.globals().types.vector(t, vf as u8);
                    let v = rw.at(at).arith(ArithmeticOp::Aggregate, vt, &vec![o; vf as usize]);
                    vecs.insert(o, v);
                    v
                }
            };
            vops.push(v);
        }
        let v = rw.at(at).arith(op, vec_ty, &vops);
        vecs.insert(Value::Inst(i), v);
        c.created_vector_inst_count += 1;
    }
    let lane_const = |rw: &mut Rewriter<'_>, k: u32| Value::Const(rw.globals().constant(u32_ty, &k.to_le_bytes()));
    // Scatter stores.
    for &(i, a) in &p.memory {
        if !matches!(rw.inst(i).kind, InstKind::Store) {
            continue;
        }
        let value = rw.inst(i).operands[1];
        for k in 0..vf {
            let idx = index_plus(&mut rw, a.index, k);
            let g = rw.at(at).gep(p.elem, a.base, &[idx]);
            let lane = match vecs.get(&value) {
                Some(&v) => {
                    let kc = lane_const(&mut rw, k);
                    rw.at(at).arith(ArithmeticOp::Extract, p.elem, &[v, kc])
                }
                None => value,
            };
            rw.at(at).store(g, lane);
        }
    }
    // The reduction folds the lanes once per packed iteration.
    if let Some((phi, _, op, x)) = p.reduction {
        let vx = vecs[&x];
        let mut folded = None;
        for k in 0..vf {
            let kc = lane_const(&mut rw, k);
            let lane = rw.at(at).arith(ArithmeticOp::Extract, p.elem, &[vx, kc]);
            folded = Some(match folded {
                None => lane,
                Some(acc) => rw.at(at).arith(op, p.elem, &[acc, lane]),
            });
        }
        let combined = rw.at(at).arith(op, p.elem, &[Value::Inst(phi), folded.expect("vf > 0")]);
        rw.set_phi_value(phi, p.latch, combined);
    }
    // The induction variable steps by VF.
    let vfc = int_const(&mut rw, iv_ty, i64::from(vf));
    let lt = rw.terminator(p.latch).expect("checked by plan");
    let next = rw.at(InsertPoint::Before(lt)).arith(ArithmeticOp::BinaryAdd, iv_ty, &[iv, vfc]);
    rw.set_phi_value(p.b.iv, p.latch, next);
    // Delete the scalar body: users before definitions.
    let (stores, loads): (Vec<InstId>, Vec<InstId>) =
        p.memory.iter().map(|m| m.0).partition(|&i| matches!(rw.inst(i).kind, InstKind::Store));
    for i in stores {
        rw.remove(i);
    }
    if let Some((_, comb, _, _)) = p.reduction {
        rw.remove(comb);
    }
    for &i in p.arith.iter().rev() {
        rw.remove(i);
    }
    for i in loads {
        rw.remove(i);
    }
    for &g in &p.geps {
        rw.remove(g);
    }
    rw.remove(p.b.recurrence);
    c.vectorized_loop_count += 1;
}
