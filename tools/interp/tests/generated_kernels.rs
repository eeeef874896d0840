//! The executable mode of the generator really produces defined kernels: every generated
//! kernel runs to the end on generated inputs, and the reversed schedule gives the same
//! results (no data race the detector missed).

use xir_interp::differential::{Outcome, first_difference, generate_inputs, kernels, run_kernel};
use xir_interp::{RunConfig, Schedule};
use xir_testgen::{ExecConfig, generate_exec_kernel};

#[test]
fn generated_kernels_are_defined_on_every_generated_input() {
    let mut steps = 0u64;
    for seed in 0..200 {
        let k = generate_exec_kernel(seed, &ExecConfig::default());
        let m = &k.module;
        let kernel = kernels(m)[0];
        for s in 0..2 {
            let inputs = generate_inputs(m, kernel, k.dispatch, s).unwrap();
            let text = || xir_ir::text::print_module(m, &Default::default());
            let fwd = match run_kernel(m, kernel, &inputs, 10_000_000) {
                Outcome::Defined(f) => f,
                other => panic!("seed {seed} input {s}: {other:?}\n{}", text()),
            };
            steps += fwd.steps;
            let p = xir_interp::lower(m, kernel, None).unwrap();
            let cfg = RunConfig {
                dispatch: k.dispatch,
                block_size: p.block_size,
                warp_size: 32,
                schedule: Schedule::Reverse,
                max_steps: 10_000_000,
            };
            let rev = xir_interp::run(&p, inputs.args.clone(), &cfg)
                .unwrap_or_else(|f| panic!("seed {seed}: reverse schedule: {}", f.message));
            assert_eq!(first_difference(m, kernel, &fwd, &rev), None, "seed {seed}");
        }
    }
    assert!(steps > 100_000, "the kernels do real work ({steps} steps)");
}
