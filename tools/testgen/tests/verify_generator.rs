//! The random valid-module generator: validity over many seeds, determinism, and a
//! coverage walk over the whole op table.

use xir_ir::inst::InstTag;
use xir_ir::metadata::MetadataKind;
use xir_ir::op::*;
use xir_ir::types::ScalarKind;
use xir_ir::value::SpecialRegister;
use xir_ir::verify::{VerifyOptions, verify_module};
use xir_testgen::{GenConfig, TYPE_VARIANTS, coverage, generate_module};

#[test]
fn generated_modules_verify() {
    let cfg = GenConfig::default();
    for seed in 0..2_000 {
        let m = generate_module(seed, &cfg);
        let d = verify_module(&m, &VerifyOptions::default(), None);
        assert!(
            d.is_empty(),
            "seed {seed}: {:#?}",
            d.iter().map(|d| &d.message).take(10).collect::<Vec<_>>()
        );
    }
}

#[test]
fn generated_modules_satisfy_canonical_targets_and_unique_merges() {
    let cfg = GenConfig::default();
    let o = VerifyOptions::parse_list(
        "require-canonical-break-continue-targets,require-unique-merge-blocks",
    )
    .unwrap();
    for seed in 0..300 {
        let m = generate_module(seed, &cfg);
        let d = verify_module(&m, &o, None);
        assert!(
            d.is_empty(),
            "seed {seed}: {:#?}",
            d.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
}

#[test]
fn generation_is_deterministic() {
    let cfg = GenConfig::default();
    for seed in [0, 1, 17, 999] {
        let a = format!("{:?}", generate_module(seed, &cfg));
        let b = format!("{:?}", generate_module(seed, &cfg));
        assert_eq!(a, b);
    }
    assert_ne!(
        format!("{:?}", generate_module(1, &cfg)),
        format!("{:?}", generate_module(2, &cfg))
    );
}

/// Walks the op table itself (not the generator's own lists) and checks every entry
/// appears in the generator's output over 500 seeds.
#[test]
fn generator_covers_the_op_table() {
    let cfg = GenConfig::default();
    let mods: Vec<_> = (0..500).map(|s| generate_module(s, &cfg)).collect();
    let cov = coverage(&mods);
    let mut want: Vec<String> = Vec::new();
    want.extend(
        InstTag::ALL
            .iter()
            .map(|t| format!("inst:{}", t.interchange_name())),
    );
    want.extend(AllocaOp::ALL.iter().map(|o| format!("alloca:{}", o.name())));
    want.extend(CastOp::ALL.iter().map(|o| format!("cast:{}", o.name())));
    want.extend(AtomicOp::ALL.iter().map(|o| format!("atomic:{}", o.name())));
    want.extend(
        AutodiffIntrinsicOp::ALL
            .iter()
            .map(|o| format!("autodiff:{}", o.name())),
    );
    want.extend(
        RayQueryObjectReadOp::ALL
            .iter()
            .map(|o| format!("rq_read:{}", o.name())),
    );
    want.extend(
        RayQueryObjectWriteOp::ALL
            .iter()
            .map(|o| format!("rq_write:{}", o.name())),
    );
    want.extend(
        ArithmeticOp::ALL
            .iter()
            .map(|o| format!("arith:{}", o.name())),
    );
    want.extend(
        ResourceQueryOp::ALL
            .iter()
            .map(|o| format!("resource_query:{}", o.name())),
    );
    want.extend(
        ResourceReadOp::ALL
            .iter()
            // Invalid under the default verifier options, as upstream: not generated.
            .filter(|o| !o.is_cooperative_vector_math())
            .map(|o| format!("resource_read:{}", o.name())),
    );
    want.extend(
        ResourceWriteOp::ALL
            .iter()
            .map(|o| format!("resource_write:{}", o.name())),
    );
    want.extend(
        ThreadGroupOp::ALL
            .iter()
            .map(|o| format!("thread_group:{}", o.name())),
    );
    want.extend(
        ScalarKind::ALL
            .iter()
            .map(|k| format!("scalar:{}", k.text_name())),
    );
    want.extend(
        MetadataKind::ALL
            .iter()
            .map(|k| format!("metadata:{}", k.name())),
    );
    want.extend(
        SpecialRegister::ALL
            .iter()
            .map(|r| format!("special:{}", r.name())),
    );
    for t in TYPE_VARIANTS {
        want.push(format!("type:{t}"));
    }
    for a in [1, 4, 8, 16] {
        want.push(format!("struct_align:{a}"));
    }
    for k in [
        "kernel",
        "callable",
        "external",
        "raster_vertex",
        "raster_fragment",
    ] {
        want.push(format!("function:{k}"));
    }
    for f in [
        "undefined_value",
        "kernel_custom_block_size",
        "arg_value",
        "arg_reference",
        "arg_resource",
        "coro_export",
        "coro_extension",
        "unreachable_block",
        "bindless_typed",
        "bindless_uniform",
        "phi_loop",
        "doubled_edge",
        "nested_structured",
    ] {
        want.push(format!("feature:{f}"));
    }
    let missing: Vec<&String> = want.iter().filter(|w| !cov.seen.contains_key(*w)).collect();
    assert!(
        missing.is_empty(),
        "the generator never produced: {missing:#?}"
    );
    assert!(
        cov.is_complete(),
        "coverage() reports missing items: {:?}",
        cov.missing
    );
}

#[test]
fn coverage_reports_what_is_missing() {
    let cov = coverage(&[]);
    assert!(!cov.is_complete());
    assert!(cov.missing.iter().any(|m| m == "arith:binary_add"));
    let one = coverage(&[generate_module(3, &GenConfig::default())]);
    assert!(one.missing.len() < cov.missing.len());
}

/// Targeted corruptions of valid generated modules are always reported, with the
/// expected rule.
#[test]
fn corruptions_of_generated_modules_are_detected() {
    use xir_ir::inst::InstKind;
    use xir_ir::types::TypeData;
    use xir_ir::value::Value;
    let cfg = GenConfig::default();
    let mut hits = [0usize; 5];
    for seed in 0..150 {
        let base = generate_module(seed, &cfg);
        let kernel = *base.func_order.last().unwrap();
        let insts: Vec<_> = base.func(kernel).placed_insts().collect();
        let check = |m: &xir_ir::module::Module, needle: &str| {
            let d = verify_module(m, &VerifyOptions::default(), None);
            assert!(
                d.iter().any(|d| d.message.contains(needle)),
                "seed {seed}: expected {needle:?}, got {:#?}",
                d.iter().map(|d| &d.message).collect::<Vec<_>>()
            );
        };
        // 1. Drop the body block's terminator.
        let mut m = base.clone();
        let f = m.func_mut(kernel);
        let body = f.body.unwrap();
        let t = *f.blocks[body].insts.last().unwrap();
        f.remove_inst(t);
        check(&m, "block does not end with a terminator");
        hits[0] += 1;
        // 2. Give the first arithmetic instruction a custom result type.
        if let Some(&i) = insts
            .iter()
            .find(|i| matches!(base.func(kernel).insts[**i].kind, InstKind::Arithmetic(_)))
        {
            let mut m = base.clone();
            let q = m.types.intern(TypeData::Custom {
                name: "Opaque".into(),
            });
            m.func_mut(kernel).insts[i].ty = Some(q);
            check(&m, "is not a data type");
            hits[1] += 1;
        }
        // 3. Store a block instead of a value.
        if let Some(&i) = insts
            .iter()
            .find(|i| matches!(base.func(kernel).insts[**i].kind, InstKind::Store))
        {
            let mut m = base.clone();
            m.func_mut(kernel).insts[i].operands[1] = Value::Block(body);
            check(&m, "the stored value must be a typed rvalue");
            hits[2] += 1;
        }
        // 4. Duplicate a phi's first incoming edge.
        if let Some(&i) = insts
            .iter()
            .find(|i| matches!(base.func(kernel).insts[**i].kind, InstKind::Phi))
        {
            let mut m = base.clone();
            let d = &mut m.func_mut(kernel).insts[i];
            let (v, b0) = d.phi_edge(0).unwrap();
            d.phi_push(v, b0);
            check(&m, "appears more than once");
            hits[3] += 1;
        }
        // 5. Use an instruction before its definition.
        if let Some(w) = insts.windows(2).find(|w| {
            let f = base.func(kernel);
            f.insts[w[0]].block == f.insts[w[1]].block
                && f.insts[w[0]].ty.is_some()
                && !f.insts[w[1]].operands.is_empty()
                && !matches!(f.insts[w[1]].kind, InstKind::Phi)
        }) {
            let mut m = base.clone();
            m.func_mut(kernel).insts[w[1]].operands[0] = Value::Inst(w[1]);
            check(&m, "is defined by the instruction itself");
            hits[4] += 1;
        }
    }
    assert!(
        hits.iter().all(|h| *h > 20),
        "too few corruption sites: {hits:?}"
    );
}
