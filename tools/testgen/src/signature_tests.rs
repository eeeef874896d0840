//! Agreement, op by op, of the arithmetic signature column of the op table
//! ([`ArithmeticOp::signature`]), the verifier, the parser's operand-type inference and the
//! test generator's recipes: generated instances verify, carry the result type exactly on
//! the operands the column names (and, somewhere, a different type on every other
//! operand), inference answers the result type exactly there (and, elsewhere, either
//! nothing or a type the instance stays valid with), and the verifier rejects an
//! instance whose result-typed operand is given another type.

use super::arith_recipes::arith;
use super::fb::Fb;
use super::{Env, GenConfig, Rng};
use xir_ir::edit::InstBuilder;
use xir_ir::function::{Function, FunctionKind};
use xir_ir::inst::{InstId, InstKind};
use xir_ir::module::Module;
use xir_ir::op::ArithmeticOp;
use xir_ir::text::infer::infer_operand_type;
use xir_ir::types::{ScalarKind, Type};
use xir_ir::value::{FuncId, Value};
use xir_ir::verify::{VerifyOptions, verify_module};

/// Seeds per op: enough for every recipe branch (scalar/vector, each operand pattern).
const SEEDS: u64 = 64;

/// A module with one callable holding the generator's instance of `op` for `seed`, and
/// that instruction (`None` when the recipe fell back to another op).
fn instance(op: ArithmeticOp, seed: u64) -> Option<(Module, FuncId, InstId)> {
    let mut m = Module::new();
    let mut rng = Rng::new(seed);
    let env = Env {
        callees: Vec::new(),
        rq_handlers: None,
        recipes: Vec::new(),
        constructs: Vec::new(),
        cfg: GenConfig::default(),
        seed,
    };
    let mut b = Fb::new(
        &mut m,
        &mut rng,
        &env,
        Function::new(FunctionKind::Callable, None),
    );
    arith(&mut b, op);
    b.ret(None);
    let f = b.finish();
    let i = f
        .placed_insts()
        .find(|&i| f.inst(i).kind == InstKind::Arithmetic(op))?;
    let fid = m.add_function(f);
    Some((m, fid, i))
}

/// The verifier's messages for `m`.
fn errors(m: &Module) -> Vec<String> {
    verify_module(m, &VerifyOptions::default(), None)
        .into_iter()
        .map(|d| d.message)
        .collect()
}

/// A type other than `r`.
fn other_type(m: &mut Module, r: Type) -> Type {
    let t = m.types.scalar(ScalarKind::I8);
    if t == r {
        m.types.scalar(ScalarKind::U16)
    } else {
        t
    }
}

#[test]
fn signature_column_verifier_inference_and_generator_agree() {
    for &op in ArithmeticOp::ALL {
        let mut seen = 0;
        // Operand positions seen, and whether one had a type other than the result's.
        let mut differs: Vec<bool> = Vec::new();
        for seed in 0..SEEDS {
            let Some((mut m, f, i)) = instance(op, seed) else {
                continue;
            };
            seen += 1;
            let e = errors(&m);
            assert!(
                e.is_empty(),
                "{op} seed {seed}: generated instance rejected: {e:?}"
            );
            let d = m.func(f).inst(i).clone();
            let r = d.ty.expect("arithmetic has a result");
            assert!(op.arity().accepts(d.operands.len()), "{op}: arity");
            for (k, &v) in d.operands.iter().enumerate() {
                let t = m.value_type(f, v);
                let column = op.signature().operand_has_result_type(k);
                let inferred = infer_operand_type(&m, f, &d, k);
                if column {
                    assert_eq!(inferred, Some(r), "{op} operand {k}: inference");
                } else if let Some(x) = inferred {
                    // An inference default (`text::infer::default_operand_type`): an
                    // undefined value of the inferred type keeps the instance valid.
                    let u = Value::Undef(m.undef(x));
                    m.func_mut(f).inst_mut(i).operands[k] = u;
                    let e = errors(&m);
                    assert!(
                        e.is_empty(),
                        "{op} seed {seed} operand {k}: inferred {x:?} is rejected: {e:?}"
                    );
                    m.func_mut(f).inst_mut(i).operands[k] = v;
                }
                if differs.len() <= k {
                    differs.resize(k + 1, false);
                }
                if !column {
                    differs[k] |= t != Some(r);
                    continue;
                }
                assert_eq!(t, Some(r), "{op} seed {seed} operand {k}: generator");
                // The same instance with operand `k` of another type fails verification,
                // on this instruction.
                let wrong = other_type(&mut m, r);
                let u = Value::Undef(m.undef(wrong));
                m.func_mut(f).inst_mut(i).operands[k] = u;
                let e = errors(&m);
                let tag = format!("(arithmetic {op})");
                assert!(
                    e.iter().any(|x| x.contains(&tag)),
                    "{op} seed {seed}: wrong-typed operand {k} accepted: {e:?}"
                );
                m.func_mut(f).inst_mut(i).operands[k] = v;
            }
        }
        assert!(seen > 0, "{op}: the generator never produced it");
        for (k, d) in differs.iter().enumerate() {
            let column = op.signature().operand_has_result_type(k);
            assert!(
                column || *d,
                "{op} operand {k}: the column says it need not have the result type, yet every generated instance gives it that type"
            );
        }
    }
}
