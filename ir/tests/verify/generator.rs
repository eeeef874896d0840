//! The random valid-module generator: validity over many seeds, determinism, and a
//! coverage walk over the whole op table.

use xir_ir::inst::InstTag;
use xir_ir::metadata::MetadataKind;
use xir_ir::op::*;
use xir_ir::testgen::{GenConfig, coverage, generate_module};
use xir_ir::types::ScalarKind;
use xir_ir::value::SpecialRegister;
use xir_ir::verify::{VerifyOptions, verify_module};

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
    for t in [
        "scalar",
        "vector",
        "matrix",
        "array",
        "struct",
        "buffer",
        "texture",
        "bindless_array",
        "accel",
        "custom",
        "coopvec",
        "coopvec_ref",
        "coopmat_ref",
    ] {
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
