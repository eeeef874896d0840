// Temporary (not committed): prints generator outputs for before/after comparison.
use xir_ir::text::print_module;
fn main() {
    let o = Default::default();
    for s in 0..60u64 {
        println!(
            "== gen {s}\n{}",
            print_module(&xir_testgen::generate_module(s, &Default::default()), &o)
        );
        println!(
            "== exec {s}\n{}",
            print_module(
                &xir_testgen::generate_exec_kernel(s, &Default::default()).module,
                &o
            )
        );
        println!(
            "== plain {s}\n{}",
            print_module(&xir_testgen::generate_plain_cfg_module(s), &o)
        );
    }
    for (n, m) in xir_testgen::samples::all() {
        println!("== sample {n}\n{}", print_module(&m, &o));
    }
}
