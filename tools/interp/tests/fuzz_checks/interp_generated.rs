//! Fuzzing the interpreter (`xir_interp`) on generated executable kernels: the bytes
//! choose a generator seed and configuration (`generate_exec_kernel`), an input seed, a
//! dispatch, a step limit and a schedule, and may overwrite the generated input buffers
//! with arbitrary bytes.
//!
//! Must hold: the kernel lowers (generated kernels use only executed constructs);
//! nothing panics and no run goes past its step limit (checked at every branch and call,
//! so a run may pass it by one block per frame per thread); every run ends as a value (its
//! results print as JSON), a located fault (undefined behaviour or a failed assert at an
//! instruction with a source span, in a thread), or inconclusive at the step limit. On
//! the generator's own inputs and dispatch a run is never undefined (the generator
//! promises UB-free kernels), and where both schedules finish they agree (race-free).
//!
//! Input layout: bytes 0..8 seed (little-endian, zero-padded); 8 generator config; 9
//! input seed; 10 step limit; 11 bit 0 reverse schedule too, bits 1-2 dispatch variant;
//! the rest is XORed into the input buffers (argument by argument, cyclically).
//!
//! Shared by the fuzz target `ir/fuzz/fuzz_targets/interp_generated.rs` and the corpus
//! replay `tools/interp/tests/fuzz_replay.rs`.

use xir_interp::differential::{first_difference, generate_inputs, kernels};
use xir_interp::spec::{self, FloatFormat};
use xir_interp::{ArgValue, FaultKind, RunConfig, Schedule};
use xir_testgen::{ExecConfig, generate_exec_kernel};

/// The property (panics on a violation).
pub fn check(data: &[u8]) {
    let mut head = [0u8; 12];
    let n = data.len().min(12);
    head[..n].copy_from_slice(&data[..n]);
    let tail = &data[n..];
    let seed = u64::from_le_bytes(head[..8].try_into().unwrap());
    let c = head[8];
    let cfg = ExecConfig {
        max_depth: (c & 3) as u32 + 1,
        max_stmts: ((c >> 2) & 7) as u32 + 1,
        max_callables: (c >> 5) as u32 % 4,
    };
    // 1 << 4 ..= 1 << 21 steps: small limits make inconclusive runs common.
    let max_steps = 1u64 << (4 + head[10] % 18);
    let k = generate_exec_kernel(seed, &cfg);
    // Printed and read back, as `xir-run` reads a kernel: faults then carry file positions.
    let text = xir_ir::text::print_module(&k.module, &Default::default());
    let (module, map) = xir_ir::text::parse_module(&text).expect("a generated kernel reads back");
    let m = &module;
    let kernel = kernels(m)[0];
    let dispatch = match (head[11] >> 1) & 3 {
        0 | 1 => k.dispatch,
        2 => [1, 1, 1],
        _ => [k.dispatch[0] * 2 + 1, k.dispatch[1], k.dispatch[2]],
    };
    let mut inputs = generate_inputs(m, kernel, dispatch, head[9] as u64)
        .expect("generated kernels take inputs generate_inputs can bind");
    let pristine = tail.is_empty() && dispatch == k.dispatch;
    if !tail.is_empty() {
        let mut t = tail.iter().cycle();
        for a in &mut inputs.args {
            let (ArgValue::Buffer(b) | ArgValue::Value(b)) = a;
            for (byte, x) in b.iter_mut().zip(&mut t).take(tail.len()) {
                *byte ^= x;
            }
        }
    }
    let p = match xir_interp::lower(m, kernel, Some(&map)) {
        Ok(p) => p,
        Err(d) => panic!(
            "a generated kernel was refused: {:?}",
            d.first().map(|d| &d.message)
        ),
    };
    let run = |schedule| {
        let cfg = RunConfig {
            dispatch,
            block_size: p.block_size,
            warp_size: 32,
            schedule,
            max_steps,
        };
        xir_interp::run(&p, inputs.args.clone(), &cfg)
    };
    let fwd = run(Schedule::Forward);
    match &fwd {
        Ok(done) => {
            // The limit is checked at every branch and call, so a finished run may pass it
            // by at most one block per frame per thread (recursion is refused).
            let threads: u64 = dispatch.iter().map(|&d| d as u64).product();
            let slack = threads * p.op_count() as u64;
            assert!(
                done.steps <= max_steps + slack,
                "{} steps, past the limit {max_steps} and the slack {slack}",
                done.steps
            );
            let j = spec::results_json(m, kernel, &done.buffers, FloatFormat::Bits);
            serde_json::from_str::<serde_json::Value>(&j).expect("results are JSON");
        }
        Err(f) => {
            assert!(!f.message.is_empty());
            match f.kind {
                FaultKind::Inconclusive => {}
                FaultKind::Undefined | FaultKind::AssertFailed => {
                    assert!(
                        f.inst.is_some() && f.span.is_some(),
                        "an unlocated fault: {}",
                        f.message
                    );
                    assert!(
                        !pristine,
                        "undefined behaviour on the generator's own inputs (seed {seed}, {cfg:?}): {}",
                        f.message
                    );
                }
            }
        }
    }
    if head[11] & 1 != 0
        && let (Ok(a), Ok(b)) = (&fwd, &run(Schedule::Reverse))
    {
        assert_eq!(
            first_difference(m, kernel, a, b),
            None,
            "the two schedules disagree on a run both finished"
        );
    }
}
