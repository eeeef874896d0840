//! `defer-local-aggregate-load` — load only the parts of a local aggregate that are used.
//!
//! **What:** a whole load of a thread-local aggregate (`%a = load %p`, `%p` a local
//! variable or a constant-index GEP into one) whose value feeds constant-index `extract`
//! chains is replaced, part by part: each projection `extract(extract(%a, i), j)` that
//! something other than another projection uses becomes `load(gep(%p, i, j))`, placed
//! where the whole load was. Identical unannotated projections of one load share one
//! new load. The projections are then removed, and the whole load too once nothing else
//! uses it.
//!
//! **Why it is exact:** each new load reads, at the same point of execution, the element
//! the projection extracted from the value the whole load read there: the same bytes.
//! Reading fewer elements can only remove undefined behaviour (a whole load of a variable
//! with unwritten elements, docs/semantics.md), never add it. Indices are constants, so
//! no new out-of-range access appears: the verifier has already checked them against the
//! types.
//!
//! **Algorithm:** walk every block in layout order; for each `extract`, follow its chain
//! of `extract` operands (each with at least one index) to its root; keep it when the
//! root is a `load` of a non-scalar value through a static local pointer path (a `local`
//! alloca reached through GEPs with constant non-negative indices), every index in the
//! chain is a constant non-negative integer, and no extract of the chain but the outer
//! one is annotated. Group the projections by load. Per group, for each projection with
//! a use other than a projection: reuse an identical earlier unannotated one (same type,
//! same decoded indices), or insert a GEP and a load just before the whole load; reroute
//! the projection's uses. Then remove the projections (a use-free DAG by now, removed
//! from its leaves) and every whole load left without a use.
//!
//! **Metadata:** the new load takes copies of the whole load's metadata, then the
//! projection's; an annotated projection is never shared; an annotated inner extract
//! stops the chain (its value keeps its own owner).
//!
//! **Preconditions:** none (structured or plain CFG). **Refusals:** none.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/defer_local_aggregate_load.cpp`
//! (the projection collection, the static-local-path rule, the grouping, reuse of
//! identical unannotated projections, insertion at the load, DAG removal, report keys).
//! Differences: copied metadata keeps its order (upstream prepends each copy, reversing
//! it).
//!
//! **Report keys:** `aggregate_load` (loads with at least one projection),
//! `candidate_extract` (projections found), `rewritten_extract` (projections removed),
//! `inserted_gep`, `inserted_load`, `reused_projection` (projections served by an earlier
//! new load), `removed_aggregate_load`. **Changed:** `rewritten_extract` is non-zero
//! (instructions only; the first two count work).
//!
//! **Example:**
//! ```text
//! %a: S = load %v;                        %p: f32 = getelementptr %v, %one;
//! %x: f32 = arithmetic extract %a, %one;  →  %x: f32 = load %p;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::const_lanes;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use xir_ir::constant::ScalarValue;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::op::{AllocaOp, ArithmeticOp};
use xir_ir::{FuncId, Function, InstId, InstKind, Module, Type, TypeData, Value};

/// The `defer-local-aggregate-load` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct DeferLocalAggregateLoad;

crate::declare_pass! {
    DeferLocalAggregateLoad: function pass "defer-local-aggregate-load" {
        summary: "Replaces constant-index extracts of a whole load of a local aggregate by loads of just those elements.",
        form: Either,
        counters: DeferLocalAggregateLoadCounters {
            /// Whole loads with at least one projection.
            aggregate_load: Nothing,
            /// Projections (constant-index extract chains of a whole load) found.
            candidate_extract: Nothing,
            /// Projections removed.
            rewritten_extract: Instructions,
            /// GEPs inserted for projections.
            inserted_gep: Instructions,
            /// Element loads inserted for projections.
            inserted_load: Instructions,
            /// Projections served by an earlier identical element load.
            reused_projection: Instructions,
            /// Whole loads removed once unused.
            removed_aggregate_load: Instructions,
        }
    }
}

/// One projection: an extract chain rooted at a whole load.
struct Projection {
    extract: InstId,
    load: InstId,
    /// Index operands from the load outward.
    indices: SmallVec<[Value; 4]>,
    decoded: SmallVec<[u64; 4]>,
}

impl FunctionPass for DeferLocalAggregateLoad {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut DeferLocalAggregateLoadCounters,
    ) -> Result<(), PassError> {
        let projections = collect(module, f);
        if projections.is_empty() {
            return Ok(());
        }
        // Groups of projection indices, by load, in first-seen order.
        let mut groups: Vec<(InstId, Vec<usize>)> = Vec::new();
        let mut group_of: FxHashMap<InstId, usize> = FxHashMap::default();
        for (k, p) in projections.iter().enumerate() {
            let g = *group_of.entry(p.load).or_insert_with(|| {
                groups.push((p.load, Vec::new()));
                groups.len() - 1
            });
            groups[g].1.push(k);
        }
        counters.aggregate_load += groups.len() as u64;
        counters.candidate_extract += projections.len() as u64;
        let candidates: FxHashSet<InstId> = projections.iter().map(|p| p.extract).collect();

        let mut rw = Rewriter::for_module(module, f);
        for (load, members) in &groups {
            let ptr = rw.inst(*load).operands[0];
            let load_md = rw.inst(*load).metadata.clone();
            let mut made: Vec<(Type, SmallVec<[u64; 4]>, Value)> = Vec::new();
            for &k in members {
                let p = &projections[k];
                let used_elsewhere = rw
                    .uses(Value::Inst(p.extract))
                    .iter()
                    .any(|u| !candidates.contains(&u.inst));
                if !used_elsewhere {
                    continue;
                }
                let d = rw.inst(p.extract);
                let ty = d.ty.expect("an extract has a type");
                let annotated = !d.metadata.is_empty();
                let extract_md = d.metadata.clone();
                let reused = (!annotated)
                    .then(|| made.iter().find(|(t, idx, _)| *t == ty && *idx == p.decoded))
                    .flatten()
                    .map(|(_, _, v)| *v);
                let replacement = match reused {
                    Some(v) => {
                        counters.reused_projection += 1;
                        v
                    }
                    None => {
                        let at = InsertPoint::Before(*load);
                        let gep = rw.at(at).gep(ty, ptr, &p.indices);
                        let elem = rw.at(at).load(ty, gep);
                        let Value::Inst(e) = elem else {
                            unreachable!("load returns an instruction")
                        };
                        let md = rw.metadata_mut(e);
                        md.extend(load_md.iter().cloned());
                        md.extend(extract_md);
                        if !annotated {
                            made.push((ty, p.decoded.clone(), elem));
                        }
                        counters.inserted_gep += 1;
                        counters.inserted_load += 1;
                        elem
                    }
                };
                rw.replace_all_uses(Value::Inst(p.extract), replacement);
            }
        }
        remove_projection_dag(&mut rw, &projections, &candidates);
        counters.rewritten_extract += projections.len() as u64;
        for (load, _) in &groups {
            if rw.uses(Value::Inst(*load)).is_empty() {
                rw.remove(*load);
                counters.removed_aggregate_load += 1;
            }
        }
        Ok(())
    }
}

/// Removes the projections, all use-free by now, from the leaves of their DAG inward.
fn remove_projection_dag(
    rw: &mut Rewriter,
    projections: &[Projection],
    candidates: &FxHashSet<InstId>,
) {
    let mut removed: FxHashSet<InstId> = FxHashSet::default();
    let mut work: Vec<InstId> = projections
        .iter()
        .map(|p| p.extract)
        .filter(|e| rw.uses(Value::Inst(*e)).is_empty())
        .collect();
    while let Some(e) = work.pop() {
        if removed.contains(&e) || !rw.uses(Value::Inst(e)).is_empty() {
            continue;
        }
        let source = rw.inst(e).operands[0];
        rw.remove(e);
        removed.insert(e);
        if let Value::Inst(s) = source
            && candidates.contains(&s)
            && !removed.contains(&s)
            && rw.uses(source).is_empty()
        {
            work.push(s);
        }
    }
    debug_assert!(projections.iter().all(|p| removed.contains(&p.extract)));
}

/// A constant non-negative integer `v`.
fn const_index(module: &Module, v: Value) -> Option<u64> {
    let (_, lanes) = const_lanes(&module.types, &module.constants, v)?;
    match lanes.as_slice() {
        [ScalarValue::UInt(n)] => Some(*n),
        [ScalarValue::Int(n)] => u64::try_from(*n).ok(),
        _ => None,
    }
}

/// Whether `ptr` reaches a `local` alloca through GEPs with constant non-negative
/// indices only.
fn static_local_path(module: &Module, func: &Function, mut ptr: Value) -> bool {
    for _ in 0..=func.insts.len() {
        let Value::Inst(i) = ptr else { return false };
        let d = &func.insts[i];
        match d.kind {
            InstKind::Alloca(op) => return op == AllocaOp::Local,
            InstKind::Gep if !d.operands.is_empty() => {
                if d.operands[1..]
                    .iter()
                    .any(|v| const_index(module, *v).is_none())
                {
                    return false;
                }
                ptr = d.operands[0];
            }
            _ => return false,
        }
    }
    false
}

/// The projections of `f`, in layout order.
fn collect(module: &Module, f: FuncId) -> Vec<Projection> {
    let func = module.func(f);
    let mut out = Vec::new();
    for e in func.placed_insts() {
        if func.insts[e].kind != InstKind::Arithmetic(ArithmeticOp::Extract) {
            continue;
        }
        if let Some(p) = projection(module, func, e) {
            out.push(p);
        }
    }
    out
}

/// The projection `extract` is, if it is one.
fn projection(module: &Module, func: &Function, extract: InstId) -> Option<Projection> {
    let mut chain: SmallVec<[InstId; 4]> = SmallVec::new();
    let mut cur = Value::Inst(extract);
    while let Value::Inst(i) = cur {
        let d = &func.insts[i];
        if d.kind != InstKind::Arithmetic(ArithmeticOp::Extract) || d.operands.len() < 2 {
            break;
        }
        if i != extract && !d.metadata.is_empty() {
            return None;
        }
        if chain.len() > func.insts.len() {
            return None;
        }
        chain.push(i);
        cur = d.operands[0];
    }
    let Value::Inst(load) = cur else { return None };
    let ld = &func.insts[load];
    if ld.kind != InstKind::Load || chain.is_empty() {
        return None;
    }
    let scalar = ld
        .ty
        .is_none_or(|t| matches!(module.types.get(t), TypeData::Scalar(_)));
    if scalar || !static_local_path(module, func, ld.operands[0]) {
        return None;
    }
    let mut indices = SmallVec::new();
    let mut decoded = SmallVec::new();
    for &c in chain.iter().rev() {
        for &v in &func.insts[c].operands[1..] {
            decoded.push(const_index(module, v)?);
            indices.push(v);
        }
    }
    Some(Projection {
        extract,
        load,
        indices,
        decoded,
    })
}
