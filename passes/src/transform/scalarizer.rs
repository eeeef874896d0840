//! `scalarizer` — splits per-component vector arithmetic into scalar operations.
//!
//! **What:** every used instruction with a vector result that is either an `arithmetic`
//! op of upstream's per-component range (`unary_minus` … `copysign` in op order, e.g.
//! `binary_add`, `select`, `min`, `fma`, `sqrt`) or a `cast` from a vector of the same
//! length becomes one scalar instruction per lane, followed by one `aggregate` that
//! rebuilds the vector for the remaining users. Vector operands are read lane by lane
//! through `extract` (one per value, lane and block, reused); scalar operands are kept.
//! Operands produced by an instruction scalarized in the same run use its lanes directly.
//! Unused vector instructions are left alone (upstream deletes them uncounted; `dce`
//! does that here).
//!
//! **Algorithm:** per definition, collect the candidates in block order; build every
//! candidate's lanes just before it; then insert each `aggregate` just before the
//! candidate, reroute the candidate's uses to it and remove the candidate.
//!
//! **Preconditions:** none.
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/scalarizer.cpp` (op allow-list
//! boundary, cast rule, lane cache, two phases, report key) and the reference §6.3 and
//! §7.5 (always run after autodiff in `spirv-final`).
//!
//! **Report keys:** `scalarized_inst`. **Changed:** `scalarized_inst > 0`.
//!
//! **Example:**
//! ```text
//! %s: vector<f32, 2> = arithmetic binary_add %a, %b;
//! →  %a0 = extract %a, 0u32; %b0 = extract %b, 0u32; %s0: f32 = binary_add %a0, %b0;
//!    … lane 1 …; %s: vector<f32, 2> = arithmetic aggregate %s0, %s1;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use std::collections::HashMap;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::op::ArithmeticOp;
use xir_ir::{BlockId, FuncId, InstId, Module, SecondaryMap, Type, TypeData, Value};

/// The `scalarizer` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Scalarizer;

crate::declare_pass! {
    Scalarizer: function pass "scalarizer" {
        summary: "Splits per-component vector arithmetic and casts into scalar operations.",
        form: Either,
        counters: ScalarizerCounters {
            /// Vector instructions split into lanes.
            scalarized_inst: Instructions,
        }
    }
}

/// Whether `op` works lane by lane (upstream's range `unary_minus ..= copysign`).
pub fn is_per_component(op: ArithmeticOp) -> bool {
    (ArithmeticOp::UnaryMinus.index()..=ArithmeticOp::Copysign.index()).contains(&op.index())
}

fn vector_of(m: &Module, t: Type) -> Option<(Type, u8)> {
    match m.types.get(t) {
        TypeData::Vector { elem, len } => Some((*elem, *len)),
        _ => None,
    }
}

impl FunctionPass for Scalarizer {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        c: &mut ScalarizerCounters,
    ) -> Result<(), PassError> {
        let func = module.func(f);
        let mut used: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
        for i in func.placed_insts() {
            for v in &func.inst(i).operands {
                if let Value::Inst(d) = v {
                    used[*d] = true;
                }
            }
        }
        // (instruction, lane type, lane count)
        let mut cands: Vec<(InstId, Type, u8)> = Vec::new();
        for i in func.placed_insts() {
            let d = func.inst(i);
            let Some((elem, len)) = d.ty.and_then(|t| vector_of(module, t)) else {
                continue;
            };
            let ok = match d.kind {
                InstKind::Arithmetic(op) => is_per_component(op),
                InstKind::Cast(_) => d
                    .operands
                    .first()
                    .and_then(|v| module.value_type(f, *v))
                    .and_then(|t| vector_of(module, t))
                    .is_some_and(|(_, n)| n == len),
                _ => false,
            };
            if ok && used[i] {
                cands.push((i, elem, len));
            }
        }
        if cands.is_empty() {
            return Ok(());
        }
        let u32_ty = module.types.u32();
        let lane_idx: Vec<Value> = (0..4u32)
            .map(|k| Value::Const(module.constant(u32_ty, &k.to_le_bytes())))
            .collect();
        // Operand types, read before the function is borrowed mutably.
        let mut op_types: HashMap<Value, Option<(Type, u8)>> = HashMap::new();
        for &(i, _, _) in &cands {
            for v in &module.func(f).inst(i).operands {
                let t = module.value_type(f, *v).and_then(|t| vector_of(module, t));
                op_types.insert(*v, t);
            }
        }
        let func = module.func_mut(f);
        let mut lanes: HashMap<(InstId, u8), Value> = HashMap::new();
        let mut extracts: HashMap<(Value, u8, BlockId), Value> = HashMap::new();
        for &(i, elem, len) in &cands {
            let d = func.inst(i).clone();
            let b = d.block.expect("placed");
            for lane in 0..len {
                let mut ops = Vec::with_capacity(d.operands.len());
                for v in &d.operands {
                    let lv = match (v, op_types.get(v).copied().flatten()) {
                        (Value::Inst(x), Some(_)) if lanes.contains_key(&(*x, lane)) => {
                            lanes[&(*x, lane)]
                        }
                        (_, Some((oelem, _))) => *extracts.entry((*v, lane, b)).or_insert_with(|| {
                            Cursor::before(func, i).arith(
                                ArithmeticOp::Extract,
                                oelem,
                                &[*v, lane_idx[lane as usize]],
                            )
                        }),
                        (_, None) => *v,
                    };
                    ops.push(lv);
                }
                // The lane repeats the vector instruction's kind (a cloner: `ins`).
                let s = Cursor::before(func, i).ins(d.kind.clone(), Some(elem), ops);
                lanes.insert((i, lane), Value::Inst(s));
            }
            c.scalarized_inst += 1;
        }
        for &(i, _, len) in &cands {
            let d = func.inst(i).clone();
            let parts: Vec<Value> = (0..len).map(|k| lanes[&(i, k)]).collect();
            let ty = d.ty.expect("a scalarized instruction has a result");
            let a = Cursor::before(func, i).arith(ArithmeticOp::Aggregate, ty, &parts);
            func.inst_mut(a.as_inst().expect("an aggregate")).metadata = d.metadata.clone();
            func.replace_all_uses(Value::Inst(i), a);
            func.remove_inst(i);
        }
        Ok(())
    }
}
