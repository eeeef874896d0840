//! `slp-vectorization` — pack lane-wise scalar computations stored side by side into one
//! vector operation.
//!
//! **What:** two to four consecutive `store`s (two for 8-byte scalars) into elements
//! `k, k+1, …` of one local array, through `getelementptr`s straight off the `alloca`
//! with constant indices, whose stored values are the same lane-wise `arithmetic` op (or
//! the same `cast`) each used only by its store, become one vector operation over
//! `aggregate`d operands, with one `extract` per lane feeding the stores.
//!
//! **Algorithm** (as upstream's `slp_vectorization.cpp`, read at LuisaCompute
//! `0c84a1aa`; facts only): *seeds* — per block, runs of adjacent `store` instructions
//! (anything else between ends the run) of one scalar type into `gep %local_alloca, C`
//! with `C` = first index + position, at most 4 lanes (2 for 8-byte types). A seed is
//! vectorised when every stored value is a distinct instruction of this function used
//! only by its store; all are `arithmetic` with the same op — lane-wise
//! ([`ArithmeticOp::lanewise_arity`]) with that many operands — or `cast` with the same
//! op, of one result type; and each operand position has one scalar type across the
//! lanes, never a pointer. The vector code goes just before the first store; each
//! lane's `extract` takes its scalar's metadata; the scalars are removed. Other seeds are
//! counted as rejected.
//!
//! **Preconditions:** none. **Refusals:** none.
//!
//! **Report keys** (upstream's): `vectorized_tree_count`, `vectorized_inst_count`,
//! `rejected_candidate_count`. **Changed:** a seed vectorised.
//!
//! **Example:**
//! ```text
//! %x0 = binary_add %a0, %b0;  %x1 = binary_add %a1, %b1;  store %e0, %x0;  store %e1, %x1
//! →  %va = aggregate %a0, %a1;  %vb = aggregate %b0, %b1;  %v = binary_add %va, %vb;
//!    store %e0, extract %v, 0;  store %e1, extract %v, 1
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::scalar_const;
use xir_ir::constant::{ScalarValue, read_scalar};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::op::{AllocaOp, ArithmeticOp};
use xir_ir::uses::UseMap;
use xir_ir::{BlockId, FuncId, InstId, Module, Type, Value};

/// The `slp-vectorization` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct SlpVectorization;

crate::declare_pass! {
    SlpVectorization: function pass "slp-vectorization" {
        summary: "Packs 2-4 lane-wise scalar ops stored to adjacent local array elements into one vector op",
        form: Either,
        counters: SlpVectorizationCounters {
            /// Seeds vectorised.
            vectorized_tree_count: Instructions,
            /// Stores whose value now comes from a vector lane.
            vectorized_inst_count: Nothing,
            /// Seeds whose values could not be packed.
            rejected_candidate_count: Nothing,
        }
    }
}

impl FunctionPass for SlpVectorization {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut SlpVectorizationCounters,
    ) -> Result<(), PassError> {
        for seed in seeds(module, f) {
            if vectorize(module, f, &seed) {
                counters.vectorized_tree_count += 1;
                counters.vectorized_inst_count += seed.len() as u64;
            } else {
                counters.rejected_candidate_count += 1;
            }
        }
        Ok(())
    }
}

/// The constant non-negative index of a one-index `getelementptr` straight off a local
/// `alloca`: `(alloca, index)`.
fn element_of(module: &Module, f: FuncId, ptr: Value) -> Option<(InstId, i64)> {
    let func = module.func(f);
    let Value::Inst(g) = ptr else { return None };
    let d = &func.insts[g];
    if !matches!(d.kind, InstKind::Gep) || d.operands.len() != 2 {
        return None;
    }
    let Value::Inst(base) = d.operands[0] else { return None };
    if !matches!(func.insts[base].kind, InstKind::Alloca(AllocaOp::Local)) {
        return None;
    }
    let c = d.operands[1].as_const()?;
    let cd = &module.constants[c];
    let index = match read_scalar(module.types.scalar_kind(cd.ty)?, &cd.bytes)? {
        ScalarValue::Int(i) => i,
        ScalarValue::UInt(u) => i64::try_from(u).ok()?,
        _ => return None,
    };
    (index >= 0).then_some((base, index))
}

/// Runs of adjacent stores to consecutive elements of one local array (see the docs).
fn seeds(module: &Module, f: FuncId) -> Vec<Vec<InstId>> {
    let func = module.func(f);
    let mut out = Vec::new();
    let blocks: Vec<BlockId> = func.block_order.iter().copied().collect();
    for b in blocks {
        let mut run: Vec<InstId> = Vec::new();
        let mut key: Option<(InstId, Type, i64, usize)> = None; // alloca, type, first index, max lanes
        let flush = |run: &mut Vec<InstId>, out: &mut Vec<Vec<InstId>>| {
            if run.len() >= 2 {
                out.push(std::mem::take(run));
            }
            run.clear();
        };
        for &i in &func.blocks[b].insts {
            let d = &func.insts[i];
            let element = if matches!(d.kind, InstKind::Store) && d.operands.len() == 2 {
                let ty = module.value_type(f, d.operands[1]);
                let scalar = ty.and_then(|t| module.types.scalar_kind(t).map(|k| (t, k)));
                match (scalar, element_of(module, f, d.operands[0])) {
                    (Some((t, k)), Some((a, idx))) if k != xir_ir::ScalarKind::Bool => Some((t, k, a, idx)),
                    _ => None,
                }
            } else {
                None
            };
            let Some((t, k, a, idx)) = element else {
                flush(&mut run, &mut out);
                key = None;
                continue;
            };
            let extends = key.is_some_and(|(ka, kt, first, max)| {
                ka == a && kt == t && first.checked_add(run.len() as i64) == Some(idx) && run.len() < max
            });
            if !run.is_empty() && !extends {
                flush(&mut run, &mut out);
            }
            if run.is_empty() {
                let max = if k.size() >= 8 { 2 } else { 4 };
                key = Some((a, t, idx, max));
            }
            run.push(i);
            if key.is_some_and(|(_, _, _, max)| run.len() == max) {
                flush(&mut run, &mut out);
                key = None;
            }
        }
        flush(&mut run, &mut out);
    }
    out
}

/// The operation every lane performs, if the stored values of `stores` can be packed.
fn packable(module: &Module, f: FuncId, stores: &[InstId]) -> Option<Vec<InstId>> {
    let func = module.func(f);
    let uses = UseMap::compute(func);
    let mut roots: Vec<InstId> = Vec::with_capacity(stores.len());
    for &s in stores {
        let Value::Inst(r) = func.insts[s].operands[1] else { return None };
        let us = uses.insts.get(r);
        if roots.contains(&r) || func.insts[r].block.is_none() || us.len() != 1 || us[0].inst != s {
            return None;
        }
        roots.push(r);
    }
    let first = &func.insts[roots[0]];
    let arity = match first.kind {
        InstKind::Arithmetic(op) => op.lanewise_arity()?,
        InstKind::Cast(_) => 1,
        _ => return None,
    };
    if first.operands.len() != arity {
        return None;
    }
    for &r in &roots {
        let d = &func.insts[r];
        if d.kind != first.kind || d.ty != first.ty || d.operands.len() != arity {
            return None;
        }
    }
    for k in 0..arity {
        let ty = module.value_type(f, first.operands[k])?;
        module.types.scalar_kind(ty)?;
        for &r in &roots {
            let v = func.insts[r].operands[k];
            let lvalue = matches!(v, Value::Inst(i) if func.insts[i].kind.tag().is_lvalue());
            if lvalue || module.value_type(f, v) != Some(ty) {
                return None;
            }
        }
    }
    Some(roots)
}

fn vectorize(module: &mut Module, f: FuncId, stores: &[InstId]) -> bool {
    let Some(roots) = packable(module, f, stores) else { return false };
    let lanes = stores.len();
    let first = module.func(f).insts[roots[0]].clone();
    let Some(ty) = first.ty else { return false };
    let vty = module.types.vector(ty, lanes as u8);
    let operand_types: Vec<Type> = first
        .operands
        .iter()
        .map(|v| {
            let t = module.value_type(f, *v).expect("checked scalar");
            module.types.vector(t, lanes as u8)
        })
        .collect();
    let u32_ty = module.types.u32();
    let lane_consts: Vec<Value> = (0..lanes)
        .map(|k| Value::Const(scalar_const(module, u32_ty, ScalarValue::UInt(k as u64)).expect("u32 lane")))
        .collect();
    let func = module.func_mut(f);
    let mut at = Cursor::before(func, stores[0]);
    let packed: Vec<Value> = operand_types
        .iter()
        .enumerate()
        .map(|(k, vt)| {
            let lane_values: Vec<Value> = roots.iter().map(|r| at.func.insts[*r].operands[k]).collect();
            at.arith(ArithmeticOp::Aggregate, *vt, &lane_values)
        })
        .collect();
    let wide = match first.kind {
        InstKind::Arithmetic(op) => at.arith(op, vty, &packed),
        InstKind::Cast(op) => at.cast(op, vty, packed[0]),
        _ => unreachable!("checked by packable"),
    };
    for (lane, (&s, &r)) in stores.iter().zip(&roots).enumerate() {
        let e = Cursor::before(func, stores[0]).arith(ArithmeticOp::Extract, ty, &[wide, lane_consts[lane]]);
        if let Value::Inst(e) = e {
            func.insts[e].metadata = func.insts[r].metadata.clone();
        }
        func.insts[s].operands[1] = e;
    }
    func.remove_insts(&roots);
    true
}
