//! Round trips through the printer: every corpus module printed in every form (nested,
//! flat, with debug info, with stable ids) parses back to a structurally equal module
//! that prints identically.

mod common;
mod corpus_modules;

use corpus_modules as cm;
use xir_ir::Module;
use xir_ir::text::{IdStyle, PrintOptions, parse_module, print_module};
use xir_testgen::structural_diff;

type ModuleBuilder = fn() -> Module;

const MODULES: &[(&str, ModuleBuilder)] = &[
    ("reference_example", cm::reference_example),
    ("phi_loop", cm::phi_loop),
    ("switch_signed", cm::switch_signed),
    ("switch_u32", cm::switch_u32),
    ("switch_u64", cm::switch_u64),
    ("trailing_space", cm::trailing_space),
    ("structured_loop", cm::structured_loop),
    ("metadata_all", cm::metadata_all),
    ("types", cm::types),
    ("ext_block_size", cm::ext_block_size),
    ("ext_struct_align", cm::ext_struct_align),
    ("ext_undef", cm::ext_undef),
    ("ext_extra_block", cm::ext_extra_block),
    ("bindless_access", cm::bindless_access),
    ("memory_ops", cm::memory_ops),
    ("special_registers", cm::special_registers),
    ("simple_loop", cm::simple_loop),
];

fn forms() -> Vec<(&'static str, PrintOptions)> {
    let mut out = Vec::new();
    for (fname, flat) in [("nested", false), ("flat", true)] {
        for (dname, debug_info) in [("", false), ("+debug", true)] {
            for (iname, ids) in [("", IdStyle::Upstream), ("+stable", IdStyle::Stable)] {
                let name: &'static str =
                    Box::leak(format!("{fname}{dname}{iname}").into_boxed_str());
                out.push((
                    name,
                    PrintOptions {
                        flat,
                        debug_info,
                        ids,
                    },
                ));
            }
        }
    }
    out
}

#[test]
fn corpus_modules_round_trip_in_every_form() {
    let mut failures = Vec::new();
    for (name, build) in MODULES {
        let m = build();
        let canonical = print_module(&m, &PrintOptions::default());
        for (form, opts) in forms() {
            let text = print_module(&m, &opts);
            match parse_module(&text) {
                Err(d) => failures.push(format!(
                    "{name} [{form}]: parse failed:\n{}\n{text}",
                    xir_ir::diag::render("in.xir", &text, &d)
                )),
                Ok((p, _)) => {
                    if let Some(diff) = structural_diff(&m, &p) {
                        failures.push(format!("{name} [{form}]: structural diff: {diff}\n{text}"));
                    }
                    let again = print_module(&p, &PrintOptions::default());
                    if again != canonical {
                        failures.push(format!(
                            "{name} [{form}]: reprint differs:\n--- expected\n{canonical}\n--- got\n{again}"
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
