//! One hand-written sample module per instruction kind, with its expected successors
//! (operand positions) and effects written by hand, not read from the instruction table.
//! Each sample is read by both readers (which must build the same module), printed,
//! re-read, and verified; then the table's successors, terminator role and effects for
//! the sample's instruction must equal the hand-written ones. A kind without a sample, or
//! a table row that disagrees with its sample, fails the test.

use xir_ir::inst::{Effects, InstTag};
use xir_ir::text::{PrintOptions, Reader, parse_module_with, print_module};
use xir_ir::verify::{VerifyOptions, verify_module};
use xir_ir::{BlockId, Module};

/// A sample: the keyword of the instruction under test (it occurs once), the module,
/// its successor operand positions, whether it ends its block, and its effects.
struct Sample {
    keyword: &'static str,
    src: &'static str,
    successor_operands: &'static [usize],
    terminator: bool,
    effects: &'static str,
}

/// A kernel with `%1: bool`, `%2: u32`, `%3: f32`, `%4: buffer<f32>` around `$body`.
macro_rules! kernel {
    ($body:literal) => {
        concat!(
            "module;\nkernel %0 (\n    %1: bool;\n    %2: u32;\n    %3: f32;\n",
            "    %4: buffer<f32>;\n) = define %5: {\n",
            $body,
            "\n};\n"
        )
    };
}

const fn s(
    keyword: &'static str,
    src: &'static str,
    successor_operands: &'static [usize],
    terminator: bool,
    effects: &'static str,
) -> Sample {
    Sample {
        keyword,
        src,
        successor_operands,
        terminator,
        effects,
    }
}

const SAMPLES: &[Sample] = &[
    s(
        "if",
        kernel!(
            "    %6: void = if %1, then %7: {\n        %8: void = br %9;\n    }, else %10: {\n        %11: void = br %9;\n    }, merge %9: {\n        %12: void = return;\n    };"
        ),
        &[1, 2],
        true,
        "",
    ),
    s(
        "switch",
        kernel!(
            "    %6: void = switch %2, case 0 %7: {\n        %8: void = br %9;\n    }, default %10: {\n        %11: void = br %9;\n    }, merge %9: {\n        %12: void = return;\n    };"
        ),
        &[1, 2],
        true,
        "",
    ),
    s(
        "loop",
        kernel!(
            "    %6: void = loop prepare %7: {\n        %8: void = cond_br %1, %9, %10;\n    }, body %9: {\n        %11: void = continue %12;\n    }, update %12: {\n        %13: void = br %7;\n    }, merge %10: {\n        %14: void = return;\n    };"
        ),
        &[0],
        true,
        "",
    ),
    s(
        "simple_loop",
        kernel!(
            "    %6: void = simple_loop body %7: {\n        %8: void = if %1, then %11: {\n            %12: void = break %9;\n        }, else %13: {\n            %14: void = continue %7;\n        }, merge null;\n    }, merge %9: {\n        %10: void = return;\n    };"
        ),
        &[0],
        true,
        "",
    ),
    s(
        "br",
        kernel!("    %6: void = br %7;\n}\n%7: {\n    %8: void = return;"),
        &[0],
        true,
        "",
    ),
    s(
        "cond_br",
        kernel!(
            "    %6: void = cond_br %1, %7, %8;\n}\n%7: {\n    %9: void = return;\n}\n%8: {\n    %10: void = return;"
        ),
        &[1, 2],
        true,
        "",
    ),
    s(
        "unreachable",
        kernel!("    %6: void = unreachable \"never\";"),
        &[],
        true,
        "MAY_TRAP",
    ),
    s(
        "break",
        kernel!(
            "    %6: void = simple_loop body %7: {\n        %8: void = break %9;\n    }, merge %9: {\n        %10: void = return;\n    };"
        ),
        &[0],
        true,
        "",
    ),
    s(
        "continue",
        kernel!(
            "    %6: void = simple_loop body %7: {\n        %8: void = if %1, then %11: {\n            %12: void = br %9;\n        }, else %13: {\n            %14: void = continue %7;\n        }, merge null;\n    }, merge %9: {\n        %10: void = return;\n    };"
        ),
        &[0],
        true,
        "",
    ),
    s("return", kernel!("    %6: void = return;"), &[], true, ""),
    s(
        "raster_discard",
        "module;\nraster_fragment %0: vector<f32, 4> (\n    %1: vector<f32, 4>;\n    %2: bool;\n) = define %3: {\n    %4: void = if %2, then %5: {\n        %6: void = return %1;\n    }, else %7: {\n        %8: void = raster_discard;\n    }, merge null;\n};\n",
        &[],
        true,
        "WRITES | BARRIER",
    ),
    s(
        "coro_suspend",
        kernel!(
            "    %6: u32 = alloca local;\n    %7: void = coro_suspend 1 \"first\" %6, export \"n\"=%2;\n}\n%8: {\n    %9: void = coro_resume 1 %6;\n    %10: void = return;"
        ),
        &[],
        true,
        "READS | WRITES | BARRIER",
    ),
    s(
        "coro_resume",
        kernel!(
            "    %6: void = coro_suspend 2 \"second\" null;\n}\n%7: {\n    %8: void = coro_resume 2 null;\n    %9: void = return;"
        ),
        &[],
        false,
        "READS | WRITES | BARRIER",
    ),
    s(
        "coro_terminate",
        kernel!(
            "    %6: void = coro_suspend 2 \"second\" null;\n}\n%7: {\n    %8: void = coro_resume 2 null;\n    %9: void = coro_terminate;"
        ),
        &[],
        true,
        "BARRIER",
    ),
    s(
        "phi",
        kernel!(
            "    %6: void = cond_br %1, %7, %8;\n}\n%7: {\n    %9: void = br %10;\n}\n%8: {\n    %11: void = br %10;\n}\n%10: {\n    %12: u32 = phi (%2, %7), (%2, %8);\n    %13: void = return;"
        ),
        &[],
        false,
        "",
    ),
    s(
        "alloca",
        kernel!("    %6: u32 = alloca local;\n    %7: void = return;"),
        &[],
        false,
        "ALLOCATES",
    ),
    s(
        "load",
        kernel!("    %6: u32 = alloca local;\n    %7: u32 = load %6;\n    %8: void = return;"),
        &[],
        false,
        "READS",
    ),
    s(
        "store",
        kernel!(
            "    %6: u32 = alloca local;\n    %7: void = store %6, %2;\n    %8: void = return;"
        ),
        &[],
        false,
        "WRITES",
    ),
    s(
        "getelementptr",
        kernel!(
            "    %6: array<u32, 4> = alloca local;\n    %7: u32 = getelementptr %6, %2;\n    %8: void = return;"
        ),
        &[],
        false,
        "",
    ),
    s(
        "atomic",
        kernel!("    %6: f32 = atomic exchange %4, %2, %3;\n    %7: void = return;"),
        &[],
        false,
        "READS | WRITES",
    ),
    s(
        "arithmetic",
        kernel!("    %6: f32 = arithmetic binary_add %3, %3;\n    %7: void = return;"),
        &[],
        false,
        "",
    ),
    s(
        "thread_group",
        kernel!("    %6: void = thread_group synchronize_block ;\n    %7: void = return;"),
        &[],
        false,
        "READS | BARRIER",
    ),
    s(
        "resource_query",
        kernel!("    %6: u32 = resource_query buffer_size %4;\n    %7: void = return;"),
        &[],
        false,
        "",
    ),
    s(
        "resource_read",
        kernel!("    %6: f32 = resource_read buffer_read %4, %2;\n    %7: void = return;"),
        &[],
        false,
        "READS",
    ),
    s(
        "resource_read",
        kernel!("    %6: f32 = resource_read buffer_volatile_read %4, %2;\n    %7: void = return;"),
        &[],
        false,
        "READS | BARRIER",
    ),
    s(
        "resource_write",
        kernel!("    %6: void = resource_write buffer_write %4, %2, %3;\n    %7: void = return;"),
        &[],
        false,
        "WRITES",
    ),
    s("ray_query_loop", RAY_QUERY, &[0], true, ""),
    s(
        "ray_query_dispatch",
        RAY_QUERY,
        &[1, 2, 3],
        true,
        "READS | WRITES",
    ),
    s("ray_query_object_read", RAY_QUERY, &[], false, "READS"),
    s("ray_query_object_write", RAY_QUERY, &[], false, "WRITES"),
    s(
        "ray_query_pipeline",
        RAY_QUERY_PIPELINE,
        &[],
        false,
        "READS | WRITES | BARRIER",
    ),
    s(
        "autodiff",
        kernel!(
            "    %6: void = autodiff entry %7: {\n        %8: void = @autodiff_requires_gradient %3;\n        %9: f32 = @autodiff_gradient %3;\n        %10: void = br %11;\n    }, merge %11: {\n        %12: void = return;\n    };"
        ),
        &[0],
        true,
        "",
    ),
    s(
        "@",
        kernel!(
            "    %6: void = autodiff entry %7: {\n        %9: f32 = @autodiff_gradient %3;\n        %10: void = br %11;\n    }, merge %11: {\n        %12: void = return;\n    };"
        ),
        &[],
        false,
        "READS",
    ),
    s(
        "@",
        kernel!(
            "    %6: void = autodiff entry %7: {\n        %8: void = @autodiff_requires_gradient %3;\n        %10: void = br %11;\n    }, merge %11: {\n        %12: void = return;\n    };"
        ),
        &[],
        false,
        "READS | WRITES",
    ),
    s(
        "call",
        "module;\ncallable %0: u32 (\n    %1: u32;\n) = define %2: {\n    %3: void = return %1;\n};\nkernel %4 (\n    %5: u32;\n) = define %6: {\n    %7: u32 = call %0, %5;\n    %8: void = return;\n};\n",
        &[],
        false,
        "READS | WRITES | BARRIER | MAY_TRAP",
    ),
    s(
        "cast",
        kernel!("    %6: f32 = cast static_cast %2;\n    %7: void = return;"),
        &[],
        false,
        "",
    ),
    s(
        "print",
        kernel!("    %6: void = print \"n = {}\" %2;\n    %7: void = return;"),
        &[],
        false,
        "WRITES",
    ),
    s(
        "clock",
        kernel!("    %6: u64 = clock;\n    %7: void = return;"),
        &[],
        false,
        "READS",
    ),
    s(
        "debug_break",
        kernel!("    %6: void = debug_break %2;\n    %7: void = return;"),
        &[],
        false,
        "BARRIER | MAY_TRAP",
    ),
    s(
        "assert",
        kernel!("    %6: void = assert \"small\" %1;\n    %7: void = return;"),
        &[],
        false,
        "MAY_TRAP",
    ),
    s(
        "assume",
        kernel!("    %6: void = assume %1;\n    %7: void = return;"),
        &[],
        false,
        "MAY_TRAP",
    ),
    s(
        "outline",
        kernel!(
            "    %6: void = outline body %7: {\n        %8: void = br %9;\n    }, merge %9: {\n        %10: void = return;\n    };"
        ),
        &[0],
        true,
        "",
    ),
    s(
        "indexed_branch",
        kernel!(
            "    %6: void = indexed_branch %2, case 0 %7: {\n        %8: void = return;\n    }, default %9: {\n        %10: void = unreachable;\n    };"
        ),
        &[1, 2],
        true,
        "",
    ),
];

const RAY_QUERY: &str = "module;
type T0 = struct align(16) { array<f32, 3>, f32, array<f32, 3>, f32 };
type T1 = opaque \"LC_RayQueryAll\";
kernel %1 (
    %2: accel;
    %3: T0;
    %4: u32;
) = define %8: {
    %9: T1 = resource_query ray_tracing_query_all %2, %3, %4;
    %10: T1 = alloca local;
    %11: void = store %10, %9;
    %12: void = ray_query_loop dispatch %13: {
        %14: void = ray_query_dispatch %10, exit %15, on_surface_candidate %23: {
            %26: void = ray_query_object_write ray_query_object_commit_triangle %10;
            %27: void = br %13;
        }, on_procedural_candidate %28: {
            %34: void = br %13;
        };
    }, merge %15: {
        %16: bool = ray_query_object_read ray_query_object_is_terminated %10;
        %22: void = return;
    };
};
";

const RAY_QUERY_PIPELINE: &str = "module;
type T0 = opaque \"LC_RayQueryAny\";
type T1 = struct align(16) { array<f32, 3>, f32, array<f32, 3>, f32 };
callable %0: void (
    %1: &T0;
    %2: f32;
) = define %4: {
    %6: void = return;
};
kernel %14 (
    %15: accel;
    %16: T1;
    %17: u32;
    %18: f32;
) = define %19: {
    %20: T0 = resource_query ray_tracing_query_any %15, %16, %17;
    %21: T0 = alloca local;
    %22: void = store %21, %20;
    %23: void = ray_query_pipeline %21, %0, %0, %18;
    %24: void = return;
};
";

/// Reads `src` with both readers; they must agree. Returns the module.
fn read_both(name: &str, src: &str) -> Module {
    let (slow, _) = parse_module_with(src, Reader::Lalrpop)
        .expect("the lalrpop reader always answers")
        .unwrap_or_else(|d| panic!("{name}: lalrpop reader rejects the sample: {d:?}"));
    let (fast, _) = parse_module_with(src, Reader::Fast)
        .unwrap_or_else(|| panic!("{name}: the fast reader gave up"))
        .unwrap_or_else(|d| panic!("{name}: fast reader rejects the sample: {d:?}"));
    let diff = xir_testgen::structural_diff(&slow, &fast);
    assert!(diff.is_none(), "{name}: the readers disagree: {diff:?}");
    slow
}

#[test]
fn every_kind_has_a_sample_and_the_table_agrees_with_it() {
    let mut covered = Vec::new();
    for (n, sample) in SAMPLES.iter().enumerate() {
        let name = format!("sample {n} ({})", sample.keyword);
        let m = read_both(&name, sample.src);
        let errors = verify_module(&m, &VerifyOptions::default(), None);
        assert!(errors.is_empty(), "{name}: not valid: {errors:?}");
        let printed = print_module(&m, &PrintOptions::default());
        let again = read_both(&format!("{name}, printed"), &printed);
        assert_eq!(
            printed,
            print_module(&again, &PrintOptions::default()),
            "{name}"
        );

        // The one instruction whose body starts with the sample's keyword.
        let mut found = Vec::new();
        for (_, f) in m.functions.iter() {
            for &b in &f.block_order {
                for &i in &f.blocks[b].insts {
                    if f.insts[i].kind.tag().text_keyword() == sample.keyword {
                        found.push((f, b, i));
                    }
                }
            }
        }
        assert_eq!(found.len(), 1, "{name}: the keyword must occur once");
        let (f, b, i) = found[0];
        let d = &f.insts[i];
        covered.push(d.kind.tag());

        let want: Vec<BlockId> = sample
            .successor_operands
            .iter()
            .map(|&k| d.operands[k].as_block().expect("a block operand"))
            .collect();
        let got: Vec<BlockId> = d.successors().collect();
        assert_eq!(got, want, "{name}: successors");
        assert_eq!(
            d.kind.is_terminator(),
            sample.terminator,
            "{name}: terminator"
        );
        if sample.terminator {
            assert_eq!(f.terminator(b), Some(i), "{name}: ends its block");
            assert_eq!(f.successors(b), want, "{name}: Function::successors");
        }
        let effects: Effects = bitflags::parser::from_str(sample.effects)
            .unwrap_or_else(|e| panic!("{name}: bad effects '{}': {e}", sample.effects));
        assert_eq!(d.kind.effects(), effects, "{name}: effects");
        assert_eq!(
            d.kind.is_pure(),
            !sample.terminator && sample.effects.is_empty(),
            "{name}: purity"
        );
    }
    let missing: Vec<InstTag> = InstTag::ALL
        .iter()
        .copied()
        .filter(|t| !covered.contains(t))
        .collect();
    assert!(missing.is_empty(), "kinds without a sample: {missing:?}");
}
