//! Backend contract tests: determinism, validation, reflection against its checked-in
//! JSON Schema, the dialect table's completeness and the feature mask.

use serde_json::Value as Json;
use xir_codegen::{CompileOptions, Denorm, OptLevel, compile_kernel, kernels};

fn parse(src: &str) -> xir_ir::Module {
    xir_ir::text::parse_module(src)
        .expect("test module parses")
        .0
}

fn saxpy() -> xir_ir::Module {
    parse(include_str!("../../examples/saxpy.xir"))
}

#[test]
fn same_input_same_bytes() {
    let m = saxpy();
    let (k, _) = kernels(&m)[0];
    let a = compile_kernel(&m, k, &OptLevel::None.into()).unwrap();
    let b = compile_kernel(&saxpy(), k, &OptLevel::None.into()).unwrap();
    assert_eq!(a.words, b.words);
    assert_eq!(a.words[0], 0x0723_0203, "SPIR-V magic");
    assert_eq!(a.words[1], 0x0001_0500, "SPIR-V 1.5");
    assert!(xir_codegen::validate(&a.words).is_ok());
}

#[test]
fn optimised_output_validates_and_is_kept() {
    let m = saxpy();
    let (k, _) = kernels(&m)[0];
    for level in [OptLevel::Performance, OptLevel::Size] {
        let c = compile_kernel(&m, k, &level.into()).unwrap();
        assert!(c.optimized, "{level:?}");
        assert!(xir_codegen::validate(&c.words).is_ok());
    }
}

#[test]
fn broken_binary_is_rejected_by_the_validator() {
    let m = saxpy();
    let (k, _) = kernels(&m)[0];
    let mut w = compile_kernel(&m, k, &OptLevel::None.into()).unwrap().words;
    // Drop the last instruction (OpFunctionEnd): no longer a valid module.
    w.pop();
    assert!(xir_codegen::validate(&w).is_err());
}

/// A minimal JSON Schema checker for the keywords the reflection schema uses: type,
/// required, properties, additionalProperties=false, items, enum, minimum, minItems,
/// maxItems. (The reflection schema is small; a full validator crate would bring a large
/// dependency tree for these nine keywords.)
fn check(schema: &Json, v: &Json, path: &str, errors: &mut Vec<String>) {
    if let Some(t) = schema.get("type").and_then(Json::as_str) {
        let ok = match t {
            "object" => v.is_object(),
            "array" => v.is_array(),
            "string" => v.is_string(),
            "integer" => v.is_u64() || v.is_i64(),
            "number" => v.is_number(),
            "boolean" => v.is_boolean(),
            _ => false,
        };
        if !ok {
            errors.push(format!("{path}: expected {t}, got {v}"));
            return;
        }
    }
    if let Some(e) = schema.get("enum").and_then(Json::as_array)
        && !e.contains(v)
    {
        errors.push(format!("{path}: {v} not in {e:?}"));
    }
    if let (Some(min), Some(x)) = (schema.get("minimum").and_then(Json::as_i64), v.as_i64())
        && x < min
    {
        errors.push(format!("{path}: {x} < {min}"));
    }
    if let Some(o) = v.as_object() {
        for r in schema
            .get("required")
            .and_then(Json::as_array)
            .into_iter()
            .flatten()
        {
            if !o.contains_key(r.as_str().unwrap()) {
                errors.push(format!("{path}: missing {r}"));
            }
        }
        let props = schema.get("properties").and_then(Json::as_object);
        for (k, x) in o {
            match props.and_then(|p| p.get(k)) {
                Some(s) => check(s, x, &format!("{path}.{k}"), errors),
                None if schema.get("additionalProperties") == Some(&Json::Bool(false)) => {
                    errors.push(format!("{path}: unexpected {k}"))
                }
                None => {}
            }
        }
    }
    if let Some(a) = v.as_array() {
        if let Some(n) = schema.get("minItems").and_then(Json::as_u64)
            && (a.len() as u64) < n
        {
            errors.push(format!("{path}: fewer than {n} items"));
        }
        if let Some(n) = schema.get("maxItems").and_then(Json::as_u64)
            && (a.len() as u64) > n
        {
            errors.push(format!("{path}: more than {n} items"));
        }
        if let Some(s) = schema.get("items") {
            for (i, x) in a.iter().enumerate() {
                check(s, x, &format!("{path}[{i}]"), errors);
            }
        }
    }
}

fn schema() -> Json {
    serde_json::from_str(include_str!("../../docs/spirv-reflection.schema.json")).unwrap()
}

const FEATURES_KERNEL: &str = r#"
module;
const %0: u32 = 00000000;
kernel %1 block_size(32, 2, 1) (
    %2: f64;
    %3: buffer<u64>;
    %4: buffer<f32>;
    %5: buffer<u16>;
) = define %6: {
    %7: u32 = arithmetic extract %90.dispatch_id, %0;
    %20: u64 = cast static_cast %7;
    %8: u64 = atomic fetch_add %3, %7, %20;
    %9: f32 = resource_read buffer_read %4, %7;
    %10: f32 = thread_group warp_active_sum %9;
    %11: f32 = cast static_cast %2;
    %12: f32 = arithmetic binary_add %10, %11;
    %13: void = resource_write buffer_write %4, %7, %12;
    %14: u16 = resource_read buffer_read %5, %7;
    %15: void = return;
};
"#;

#[test]
fn reflection_matches_its_schema() {
    let s = schema();
    let preserve = CompileOptions {
        denorm: Denorm::Preserve,
        ..Default::default()
    };
    for (src, options) in [
        (
            include_str!("../../examples/saxpy.xir"),
            CompileOptions::default(),
        ),
        (FEATURES_KERNEL, CompileOptions::default()),
        (FEATURES_KERNEL, preserve),
    ] {
        let m = parse(src);
        let (k, _) = kernels(&m)[0];
        let c = compile_kernel(&m, k, &options).unwrap();
        let j = c.reflection.to_json();
        let mut errors = Vec::new();
        check(&s, &j, "$", &mut errors);
        assert!(errors.is_empty(), "{errors:#?}\n{j:#}");
        // The document round-trips through its text form.
        let back: Json = serde_json::from_str(&c.reflection.to_json_string()).unwrap();
        assert_eq!(back, j);
    }
    // The checker does catch violations.
    let mut errors = Vec::new();
    check(&s, &serde_json::json!({"schema": "nope"}), "$", &mut errors);
    assert!(errors.len() > 5, "{errors:?}");
}

#[test]
fn schema_lists_every_feature_name() {
    let s = schema();
    let names: Vec<&str> =
        s["properties"]["required_features"]["properties"]["names"]["items"]["enum"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
    let ours: Vec<&str> = xir_codegen::features::FEATURES
        .iter()
        .map(|f| f.1)
        .collect();
    assert_eq!(names, ours);
}

#[test]
fn feature_mask_comes_from_the_capabilities() {
    let m = parse(FEATURES_KERNEL);
    let (k, _) = kernels(&m)[0];
    let c = compile_kernel(&m, k, &OptLevel::None.into()).unwrap();
    let names = xir_codegen::features::names(c.reflection.feature_mask);
    for want in [
        "shader_float64",
        "shader_int64",
        "shader_int16",
        "storage_buffer_16bit_access",
        "shader_buffer_int64_atomics",
        "subgroup_basic",
        "subgroup_arithmetic",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert!(!names.contains(&"shader_float16"));
    let j = c.reflection.to_json();
    assert_eq!(j["block_size"], serde_json::json!([32, 2, 1]));
    assert_eq!(j["arguments"][0]["offset"], 0);
    assert_eq!(j["arguments"][0]["size"], 8);
    assert_eq!(j["arguments"][1]["binding"], 1);
    assert_eq!(j["arguments"][1]["usage"], "read_write");
    assert_eq!(j["arguments"][3]["usage"], "read");
    assert_eq!(j["argument_block"]["dispatch_size_offset"], 16);
    assert_eq!(j["argument_block"]["kernel_id_offset"], 28);
    assert_eq!(j["argument_block"]["size"], 32);
}

/// `Denorm::Preserve` declares DenormPreserve for exactly the float widths the module
/// declares (the same as SignedZeroInfNanPreserve), validates, and names one required
/// feature per width; `Denorm::Any` (the default) declares none and is today's bytes.
#[test]
fn denorm_preserve_follows_the_float_widths() {
    let m = parse(FEATURES_KERNEL);
    let (k, _) = kernels(&m)[0];
    let preserve = CompileOptions {
        denorm: Denorm::Preserve,
        ..Default::default()
    };
    let p = compile_kernel(&m, k, &preserve).unwrap();
    assert_eq!(xir_codegen::denorm_preserve_widths(&p.words), [32, 64]);
    let names = xir_codegen::features::names(p.reflection.feature_mask);
    assert!(names.contains(&"denorm_preserve_float32"), "{names:?}");
    assert!(names.contains(&"denorm_preserve_float64"), "{names:?}");
    assert!(!names.contains(&"denorm_preserve_float16"), "{names:?}");
    assert!(
        p.reflection
            .capabilities
            .iter()
            .any(|c| c == "DenormPreserve")
    );
    let plain = compile_kernel(&m, k, &CompileOptions::default()).unwrap();
    assert!(xir_codegen::denorm_preserve_widths(&plain.words).is_empty());
    assert!(
        !xir_codegen::features::names(plain.reflection.feature_mask)
            .iter()
            .any(|n| n.starts_with("denorm_preserve"))
    );
    assert_eq!(
        plain.words,
        compile_kernel(&m, k, &OptLevel::None.into()).unwrap().words
    );
    // The optimiser keeps the execution modes, so the mask (read from the final binary)
    // still names them.
    for opt in [OptLevel::Performance, OptLevel::Size] {
        let o = compile_kernel(&m, k, &CompileOptions { opt, ..preserve }).unwrap();
        assert_eq!(
            xir_codegen::denorm_preserve_widths(&o.words),
            [32, 64],
            "{opt:?}"
        );
        assert_eq!(
            o.reflection.feature_mask, p.reflection.feature_mask,
            "{opt:?}"
        );
    }
    // An integer-only kernel has no float width to declare a mode for.
    let ints = parse(
        "module;\nkernel %k block_size(1, 1, 1) (\n    %b: buffer<u32>;\n) = define %e: {\n    %r: void = return;\n};\n",
    );
    let (k, _) = kernels(&ints)[0];
    let c = compile_kernel(&ints, k, &preserve).unwrap();
    assert!(xir_codegen::denorm_preserve_widths(&c.words).is_empty());
    assert!(
        !c.reflection
            .capabilities
            .iter()
            .any(|c| c == "DenormPreserve")
    );
}

#[test]
fn dialect_table_covers_every_op_and_kind() {
    use xir_ir::op::*;
    let rows = xir_codegen::dialect::table();
    let count = |p: &str| rows.iter().filter(|r| r.construct.starts_with(p)).count();
    assert_eq!(count("arithmetic "), ArithmeticOp::ALL.len());
    assert_eq!(count("thread_group "), ThreadGroupOp::ALL.len());
    assert_eq!(count("resource_query "), ResourceQueryOp::ALL.len());
    assert_eq!(count("resource_read "), ResourceReadOp::ALL.len());
    assert_eq!(count("resource_write "), ResourceWriteOp::ALL.len());
    assert_eq!(count("atomic "), 2 * AtomicOp::ALL.len());
    assert_eq!(count("type "), xir_ir::ScalarKind::ALL.len());
    // Every instruction tag without sub-ops has its own row.
    assert_eq!(count("instruction "), xir_ir::InstTag::ALL.len() - 6);
    let mut seen = std::collections::HashSet::new();
    for r in &rows {
        assert!(
            seen.insert(r.construct.clone()),
            "duplicate row {}",
            r.construct
        );
    }
    // Rows that must be supported (what real compute kernels use).
    for must in [
        "arithmetic binary_add",
        "arithmetic select",
        "instruction phi",
        "instruction if",
        "instruction loop",
        "instruction switch",
        "instruction call",
        "resource_read buffer_read",
        "resource_write buffer_write",
        "thread_group synchronize_block",
        "atomic fetch_add (integer)",
        "atomic compare_exchange (f32)",
        "resource_read byte_buffer_read",
        "resource_query byte_buffer_size",
        "type f64",
    ] {
        let r = rows.iter().find(|r| r.construct == must).unwrap();
        assert_eq!(r.support, xir_codegen::Support::Supported, "{must}");
    }
    for must_not in [
        "instruction indexed_branch",
        "instruction print",
        "type f8e4m3",
        "atomic fetch_and (f32)",
    ] {
        let r = rows.iter().find(|r| r.construct == must_not).unwrap();
        assert!(
            matches!(r.support, xir_codegen::Support::Unsupported(_)),
            "{must_not}"
        );
    }
}

#[test]
fn validate_dialect_reports_unstructured_input() {
    let m = parse(
        "module;\nkernel %0 (\n    %1: bool;\n) = define %2: {\n    %3: void = cond_br %1, %4, %5;\n}\n%4: {\n    %6: void = br %5;\n}\n%5: {\n    %7: void = return;\n};\n",
    );
    let errs = xir_codegen::validate_dialect(&m).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0]
            .message
            .contains("cond_br outside a loop's prepare block"),
        "{}",
        errs[0].message
    );
    assert!(
        errs[0]
            .help
            .as_deref()
            .unwrap_or("")
            .contains("spirv-final")
    );
    assert!(xir_codegen::validate_dialect(&saxpy()).is_ok());
}

/// docs/codegen.md carries the generated dialect table between two markers; rerun with
/// XIR_BLESS=1 to rewrite it.
#[test]
fn docs_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/codegen.md");
    let doc = std::fs::read_to_string(path).unwrap();
    let (begin, end) = (
        "<!-- dialect-table:begin -->\n",
        "<!-- dialect-table:end -->",
    );
    let a = doc.find(begin).expect("begin marker") + begin.len();
    let b = doc.find(end).expect("end marker");
    let table = xir_codegen::dialect::table_markdown();
    if std::env::var_os("XIR_BLESS").is_some() {
        let new = format!("{}{}{}", &doc[..a], table, &doc[b..]);
        std::fs::write(path, new).unwrap();
        return;
    }
    assert_eq!(
        &doc[a..b],
        table,
        "docs/codegen.md is stale: XIR_BLESS=1 cargo test -p xir-codegen --test compile"
    );
}
