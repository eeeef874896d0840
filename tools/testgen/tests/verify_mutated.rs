//! The verifier never panics on generated modules mutated at random (operands pointing
//! at missing entities, wrong kinds, broken terminators): every mutant gets diagnostics
//! or passes, never a panic. (Moved from ir/tests/verify/robustness.rs: it needs the
//! generator, which lives in xir-testgen.)

use xir_ir::entity::EntityRef;
use xir_ir::inst::{InstId, InstKind};
use xir_ir::module::Module;
use xir_ir::op::ArithmeticOp;
use xir_ir::types::Type;
use xir_ir::value::{ArgId, BlockId, ConstId, FuncId, SpecialRegister, UndefId, Value};
use xir_ir::verify::{VerifyOptions, verify_module};
use xir_testgen::{GenConfig, Rng, generate_module};

fn random_value(rng: &mut Rng) -> Value {
    let n = rng.below(60) as usize;
    match rng.below(7) {
        0 => Value::Inst(InstId::new(n * 4)),
        1 => Value::Block(BlockId::new(n)),
        2 => Value::Arg(ArgId::new(n % 20)),
        3 => Value::Const(ConstId::new(n * 3)),
        4 => Value::Undef(UndefId::new(n % 8)),
        5 => Value::Func(FuncId::new(n % 10)),
        _ => Value::Special(rng.pick(&SpecialRegister::ALL)),
    }
}

/// Applies one random corruption to `m`.
fn mutate(m: &mut Module, rng: &mut Rng) {
    let Some(&fid) = m.func_order.get(rng.index(m.func_order.len())) else {
        return;
    };
    if !m.functions.is_valid(fid) {
        return;
    }
    let ntypes = m.types.len();
    let f = &mut m.functions[fid];
    let ninst = f.insts.len();
    if ninst == 0 {
        return;
    }
    let i = InstId::new(rng.index(ninst));
    match rng.below(12) {
        0..=2 => {
            let d = &mut f.insts[i];
            if !d.operands.is_empty() {
                let k = rng.index(d.operands.len());
                d.operands[k] = random_value(rng);
            }
        }
        3 => {
            f.insts[i].operands.pop();
        }
        4 => f.insts[i].operands.push(random_value(rng)),
        5 => f.insts[i].ty = Some(Type::new(rng.index(ntypes + 3))),
        6 => {
            f.insts[i].block = if rng.chance(50) {
                None
            } else {
                Some(BlockId::new(rng.index(40)))
            }
        }
        7 => {
            let k = rng.index(f.block_order.len().max(1));
            if rng.chance(50) && k < f.block_order.len() {
                f.block_order.remove(k);
            } else {
                f.block_order
                    .push(BlockId::new(rng.index(f.blocks.len() + 3)));
            }
        }
        8 => {
            let k = rng.index(f.block_order.len().max(1));
            if let Some(b) = f.block_order.get(k).copied()
                && f.blocks.is_valid(b)
            {
                let insts = &mut f.blocks[b].insts;
                if rng.chance(50) {
                    insts.push(InstId::new(rng.index(ninst + 5)));
                } else if !insts.is_empty() {
                    let k = rng.index(insts.len());
                    insts.swap(0, k);
                }
            }
        }
        9 => {
            let d = &mut f.insts[i];
            match &mut d.kind {
                InstKind::Phi => d.operands.push(Value::Block(BlockId::new(rng.index(50)))),
                InstKind::Loop { body, .. } => *body = None,
                InstKind::Switch { labels, .. } => labels.push(u64::MAX),
                k if k.merge().is_some() => {
                    if let Some(slot) = k.merge_mut() {
                        *slot = Some(BlockId::new(rng.index(80)));
                    }
                }
                _ => d.kind = InstKind::Arithmetic(rng.pick(ArithmeticOp::ALL)),
            }
        }
        10 => {
            f.body = if rng.chance(50) {
                None
            } else {
                Some(BlockId::new(rng.index(90)))
            }
        }
        _ => {
            if rng.chance(50) {
                m.func_order.push(FuncId::new(rng.index(12)));
            } else {
                let a = f.add_arg(
                    xir_ir::function::ArgKind::Value,
                    Type::new(rng.index(ntypes + 2)),
                );
                f.arg_order.push(a);
            }
        }
    }
}

#[test]
fn malformed_modules_never_panic() {
    let cfg = GenConfig {
        max_depth: 2,
        max_stmts: 3,
        ..GenConfig::default()
    };
    let mut rng = Rng::new(7);
    for seed in 0..300 {
        let mut m = generate_module(seed, &cfg);
        let rounds = 1 + rng.below(6);
        for _ in 0..rounds {
            mutate(&mut m, &mut rng);
        }
        let a = verify_module(&m, &VerifyOptions::default(), None);
        let b = verify_module(&m, &VerifyOptions::all(), None);
        assert!(b.len() >= a.len() || !a.is_empty() || b.is_empty());
    }
}
