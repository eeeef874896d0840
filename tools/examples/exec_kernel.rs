//! Prints the executable kernel the generator makes from a seed (for reproducing and
//! reducing a `pass_semantics` finding):
//!
//! ```text
//! cargo run -p xir-tools --example exec_kernel -- SEED > kernel.xir
//! ```

fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .expect("usage: exec_kernel SEED");
    let k = xir_testgen::generate_exec_kernel(seed, &xir_testgen::ExecConfig::default());
    print!(
        "{}",
        xir_ir::text::print_module(&k.module, &Default::default())
    );
}
