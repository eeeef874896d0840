//! Walks the op table and fails if any instruction kind, op (of every op enum), scalar
//! kind, type kind, metadata kind or special register is missing from the corpus
//! (`test-corpus/corpus/**/*.xir`, every file that parses and is not an
//! expected-failure test) or from the module generator (the seeds the round-trip
//! property test uses). The expected items come from the `ALL` tables in `op.rs`,
//! `inst.rs`, `types.rs`, `metadata.rs` and `value.rs`, not from the generator's lists.

mod rt_common;

use rt_common::{corpus_root, parse, skip_reason, xir_files};
use std::collections::BTreeMap;
use xir_ir::op::*;
use xir_ir::types::TextureDim;
use xir_ir::*;
use xir_testgen::{GenConfig, generate_module};

/// The name of a type kind; the match is exhaustive, so a new `TypeData` variant does not
/// compile until it is listed in [`TYPE_KINDS`] too.
fn type_kind(d: &TypeData) -> &'static str {
    match d {
        TypeData::Scalar(_) => "scalar",
        TypeData::Vector { .. } => "vector",
        TypeData::Matrix { .. } => "matrix",
        TypeData::Array { .. } => "array",
        TypeData::Struct { .. } => "struct",
        TypeData::Buffer { elem: Some(_) } => "buffer",
        TypeData::Buffer { elem: None } => "byte_buffer",
        TypeData::Texture {
            dim: TextureDim::D2,
            ..
        } => "texture2d",
        TypeData::Texture {
            dim: TextureDim::D3,
            ..
        } => "texture3d",
        TypeData::BindlessArray => "bindless_array",
        TypeData::Accel => "accel",
        TypeData::Custom { .. } => "custom",
        TypeData::CoopVector { .. } => "coopvec",
        TypeData::CoopVectorRef { .. } => "coopvec_ref",
        TypeData::CoopMatrixRef { .. } => "coopmat_ref",
    }
}

const TYPE_KINDS: [&str; 15] = [
    "scalar",
    "vector",
    "matrix",
    "array",
    "struct",
    "buffer",
    "byte_buffer",
    "texture2d",
    "texture3d",
    "bindless_array",
    "accel",
    "custom",
    "coopvec",
    "coopvec_ref",
    "coopmat_ref",
];

/// The op of an instruction as `family:name`, if it has one.
fn op_item(k: &InstKind) -> Option<String> {
    Some(match k {
        InstKind::Alloca(o) => format!("alloca:{o}"),
        InstKind::Cast(o) => format!("cast:{o}"),
        InstKind::Atomic(o) => format!("atomic:{o}"),
        InstKind::AutodiffIntrinsic(o) => format!("autodiff:{o}"),
        InstKind::RayQueryObjectRead(o) => format!("ray_query_object_read:{o}"),
        InstKind::RayQueryObjectWrite(o) => format!("ray_query_object_write:{o}"),
        InstKind::Arithmetic(o) => format!("arithmetic:{o}"),
        InstKind::ThreadGroup(o) => format!("thread_group:{o}"),
        InstKind::ResourceQuery(o, _) => format!("resource_query:{o}"),
        InstKind::ResourceRead(o, _) => format!("resource_read:{o}"),
        InstKind::ResourceWrite(o, _) => format!("resource_write:{o}"),
        _ => return None,
    })
}

/// Every item the op table and the data model define.
fn expected() -> Vec<String> {
    fn all<T: std::fmt::Display>(out: &mut Vec<String>, family: &str, ops: &[T]) {
        out.extend(ops.iter().map(|o| format!("{family}:{o}")));
    }
    let mut v = Vec::new();
    v.extend(
        InstTag::ALL
            .iter()
            .map(|t| format!("inst:{}", t.interchange_name())),
    );
    all(&mut v, "alloca", AllocaOp::ALL);
    all(&mut v, "cast", CastOp::ALL);
    all(&mut v, "atomic", AtomicOp::ALL);
    all(&mut v, "autodiff", AutodiffIntrinsicOp::ALL);
    all(&mut v, "ray_query_object_read", RayQueryObjectReadOp::ALL);
    all(&mut v, "ray_query_object_write", RayQueryObjectWriteOp::ALL);
    all(&mut v, "arithmetic", ArithmeticOp::ALL);
    all(&mut v, "thread_group", ThreadGroupOp::ALL);
    all(&mut v, "resource_query", ResourceQueryOp::ALL);
    all(&mut v, "resource_read", ResourceReadOp::ALL);
    all(&mut v, "resource_write", ResourceWriteOp::ALL);
    v.extend(
        ScalarKind::ALL
            .iter()
            .map(|k| format!("scalar:{}", k.text_name())),
    );
    v.extend(TYPE_KINDS.iter().map(|k| format!("type:{k}")));
    v.extend(
        MetadataKind::ALL
            .iter()
            .map(|k| format!("metadata:{}", k.name())),
    );
    v.extend(
        SpecialRegister::ALL
            .iter()
            .map(|r| format!("special:{}", r.name())),
    );
    v.extend(
        [
            FunctionKind::kernel(),
            FunctionKind::Callable,
            FunctionKind::External,
            FunctionKind::RasterVertex,
            FunctionKind::RasterFragment,
        ]
        .iter()
        .map(|k| format!("function:{}", k.keyword())),
    );
    v
}

/// Adds every item `m` exercises to `seen` (item → first source).
fn collect(m: &Module, source: &str, seen: &mut BTreeMap<String, String>) {
    let mut hit = |item: String| {
        seen.entry(item).or_insert_with(|| source.to_string());
    };
    let mut md: Vec<&Metadata> = m.metadata.iter().collect();
    for (_, t) in m.types.iter() {
        hit(format!("type:{}", type_kind(t)));
        if let TypeData::Scalar(k) = t {
            hit(format!("scalar:{}", k.text_name()));
        }
    }
    for c in m.live_constants() {
        md.extend(&m.constants[c].metadata);
    }
    for u in m.live_undefs() {
        md.extend(&m.undefs[u].metadata);
    }
    for (r, list) in &m.special_registers {
        hit(format!("special:{}", r.name()));
        md.extend(list);
    }
    for &fid in &m.func_order {
        let f = &m.functions[fid];
        hit(format!("function:{}", f.kind.keyword()));
        md.extend(&f.metadata);
        for &a in &f.arg_order {
            md.extend(&f.args[a].metadata);
        }
        for &b in &f.block_order {
            md.extend(&f.blocks[b].metadata);
            for &i in &f.blocks[b].insts {
                let d = &f.insts[i];
                md.extend(&d.metadata);
                hit(format!("inst:{}", d.kind.tag().interchange_name()));
                if let Some(item) = op_item(&d.kind) {
                    hit(item);
                }
                for v in &d.operands {
                    if let Value::Special(r) = v {
                        hit(format!("special:{}", r.name()));
                    }
                }
            }
        }
    }
    for x in md {
        hit(format!("metadata:{}", x.kind().name()));
    }
}

fn missing(seen: &BTreeMap<String, String>) -> Vec<String> {
    expected()
        .into_iter()
        .filter(|e| !seen.contains_key(e))
        .collect()
}

#[test]
fn the_expected_items_are_the_whole_op_table() {
    let e = expected();
    let n = |f: &str| e.iter().filter(|x| x.starts_with(&format!("{f}:"))).count();
    assert_eq!(n("inst"), 41);
    assert_eq!(n("arithmetic"), 93);
    assert_eq!(n("resource_query"), ResourceQueryOp::ALL.len());
    assert_eq!(n("resource_read"), ResourceReadOp::ALL.len());
    assert_eq!(n("resource_write"), ResourceWriteOp::ALL.len());
    assert_eq!(n("thread_group"), ThreadGroupOp::ALL.len());
    assert_eq!(n("atomic"), 9);
    assert_eq!(n("scalar"), 16);
    assert_eq!(n("metadata"), 9);
    assert_eq!(n("special"), 12);
    let unique: std::collections::BTreeSet<&String> = e.iter().collect();
    assert_eq!(unique.len(), e.len());
}

#[test]
fn the_corpus_covers_the_op_table() {
    let mut seen = BTreeMap::new();
    let mut files = 0;
    for path in xir_files(&corpus_root()) {
        let text = std::fs::read_to_string(&path).unwrap();
        if skip_reason(&text).is_some() {
            continue;
        }
        let Ok(m) = parse(&text) else { continue };
        let name = path.strip_prefix(corpus_root()).unwrap_or(&path);
        collect(&m, &name.display().to_string(), &mut seen);
        files += 1;
    }
    let gaps = missing(&seen);
    assert!(
        gaps.is_empty(),
        "{} items of the op table appear in none of the {files} corpus modules:\n  {}",
        gaps.len(),
        gaps.join("\n  ")
    );
}

#[test]
fn the_generator_covers_the_op_table() {
    // The first 1,000 modules of the round-trip property test's configuration, plus a
    // few of the default configuration.
    let small = GenConfig {
        max_depth: 2,
        max_stmts: 3,
        max_callables: 1,
        recipes_per_module: 8,
    };
    let mut seen = BTreeMap::new();
    for seed in 0..1000 {
        collect(
            &generate_module(seed, &small),
            &format!("small seed {seed}"),
            &mut seen,
        );
    }
    // The generator emits only modules valid under the default verifier options, which
    // (as upstream) reject the element-wise cooperative-vector math reads; the corpus
    // covers those (ops/cooperative-vector-*.xir).
    let not_default_valid = |item: &String| {
        item.strip_prefix("resource_read:")
            .and_then(ResourceReadOp::from_name)
            .is_some_and(|o| o.is_cooperative_vector_math())
    };
    let mut small_gaps = missing(&seen);
    small_gaps.retain(|g| !not_default_valid(g));
    for seed in 0..50 {
        let m = generate_module(seed, &GenConfig::default());
        collect(&m, &format!("default seed {seed}"), &mut seen);
    }
    let mut gaps = missing(&seen);
    gaps.retain(|g| !not_default_valid(g));
    assert!(
        gaps.is_empty() && small_gaps.is_empty(),
        "missing from the generator: {gaps:?}; missing from the property test's modules: \
         {small_gaps:?}"
    );
}
