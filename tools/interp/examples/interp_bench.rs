//! Interpreter throughput: executed XIR instructions per second for an arithmetic loop,
//! a memory-heavy kernel and a branchy kernel, each against the same computation in
//! plain Rust in the same run, and a 1,024-thread saxpy end to end (lowering + run).
//!
//! `cargo run --release -p xir-interp --example interp_bench [-- REPEATS [SCALE]]`
//! Prints the median of REPEATS (default 5) runs per figure. Measure on a quiet machine
//! (the figures in docs/semantics.md quote the load average they were taken at).

use std::hint::black_box;
use std::time::{Duration, Instant};
use xir_interp::{ArgValue, RunConfig, Schedule};

const ARITH: &str = r#"
module;
const %zero: u32 = 0u32;
const %one: u32 = 1u32;
const %mul: u32 = 1664525u32;
const %add: u32 = 1013904223u32;
const %fa: f32 = 0.5;
const %fb: f32 = 1.0;
const %f0: f32 = 0.0;
kernel %main block_size(32, 1, 1) (
    %out: buffer<u32>;
    %fout: buffer<f32>;
    %n: u32;
) = define %entry: {
    %0: void = br %head;
}
%head: {
    %i: u32 = phi (%zero, %entry), (%i1, %head);
    %x: u32 = phi (%one, %entry), (%x2, %head);
    %f: f32 = phi (%f0, %entry), (%f2, %head);
    %x1: u32 = arithmetic binary_mul %x, %mul;
    %x2: u32 = arithmetic binary_add %x1, %add;
    %f1: f32 = arithmetic binary_mul %f, %fa;
    %f2: f32 = arithmetic binary_add %f1, %fb;
    %i1: u32 = arithmetic binary_add %i, %one;
    %c: bool = arithmetic binary_less %i1, %n;
    %1: void = cond_br %c, %head, %exit;
}
%exit: {
    %2: void = resource_write buffer_write %out, %zero, %x2;
    %3: void = resource_write buffer_write %fout, %zero, %f2;
    %4: void = return;
};
"#;

const MEMORY: &str = r#"
module;
const %zero: u32 = 0u32;
const %one: u32 = 1u32;
kernel %main block_size(32, 1, 1) (
    %a: buffer<u32>;
    %b: buffer<u32>;
    %n: u32;
) = define %entry: {
    %acc: u32 = alloca local;
    %0: void = store %acc, %zero;
    %1: void = br %head;
}
%head: {
    %i: u32 = phi (%zero, %entry), (%i1, %head);
    %v: u32 = resource_read buffer_read %a, %i;
    %s: u32 = load %acc;
    %s1: u32 = arithmetic binary_add %s, %v;
    %2: void = store %acc, %s1;
    %3: void = resource_write buffer_write %b, %i, %s1;
    %i1: u32 = arithmetic binary_add %i, %one;
    %c: bool = arithmetic binary_less %i1, %n;
    %4: void = cond_br %c, %head, %exit;
}
%exit: {
    %5: void = return;
};
"#;

const BRANCHY: &str = r#"
module;
const %zero: u32 = 0u32;
const %one: u32 = 1u32;
const %two: u32 = 2u32;
const %three: u32 = 3u32;
kernel %main block_size(32, 1, 1) (
    %out: buffer<u32>;
    %n: u32;
) = define %entry: {
    %0: void = br %outer;
}
%outer: {
    %s: u32 = phi (%one, %entry), (%s1, %next);
    %total: u32 = phi (%zero, %entry), (%t1, %next);
    %1: void = br %head;
}
%head: {
    %v: u32 = phi (%s, %outer), (%vn, %latch);
    %k: u32 = phi (%zero, %outer), (%k1, %latch);
    %c: bool = arithmetic binary_greater %v, %one;
    %2: void = cond_br %c, %step, %next;
}
%step: {
    %m: u32 = arithmetic binary_bit_and %v, %one;
    %odd: bool = arithmetic binary_equal %m, %one;
    %3: void = cond_br %odd, %odd_b, %even_b;
}
%odd_b: {
    %t: u32 = arithmetic binary_mul %v, %three;
    %vo: u32 = arithmetic binary_add %t, %one;
    %4: void = br %latch;
}
%even_b: {
    %ve: u32 = arithmetic binary_shift_right %v, %one;
    %5: void = br %latch;
}
%latch: {
    %vn: u32 = phi (%vo, %odd_b), (%ve, %even_b);
    %k1: u32 = arithmetic binary_add %k, %one;
    %6: void = br %head;
}
%next: {
    %t1: u32 = arithmetic binary_add %total, %k;
    %s1: u32 = arithmetic binary_add %s, %one;
    %c2: bool = arithmetic binary_less %s1, %n;
    %7: void = cond_br %c2, %outer, %exit;
}
%exit: {
    %8: void = resource_write buffer_write %out, %zero, %t1;
    %9: void = return;
};
"#;

const SAXPY: &str = r#"
module;
const %zero: u32 = 0u32;
kernel %saxpy block_size(256, 1, 1) (
    %a: f32;
    %x: buffer<f32>;
    %y: buffer<f32>;
) = define %entry: {
    %i: u32 = arithmetic extract %d.dispatch_id, %zero;
    %xi: f32 = resource_read buffer_read %x, %i;
    %yi: f32 = resource_read buffer_read %y, %i;
    %ax: f32 = arithmetic binary_mul %a, %xi;
    %r: f32 = arithmetic binary_add %ax, %yi;
    %0: void = resource_write buffer_write %y, %i, %r;
    %1: void = return;
};
"#;

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn cfg(dispatch: u32) -> RunConfig {
    RunConfig {
        dispatch: [dispatch, 1, 1],
        block_size: [if dispatch >= 256 { 256 } else { 32 }, 1, 1],
        warp_size: 32,
        schedule: Schedule::Forward,
        max_steps: u64::MAX,
    }
}

/// Runs `src` once per repeat; returns (steps, median time, result buffers).
fn interp(
    src: &str,
    args: &dyn Fn() -> Vec<ArgValue>,
    dispatch: u32,
    reps: usize,
) -> (u64, Duration, Vec<Option<Vec<u8>>>) {
    let (m, map) = xir_ir::text::parse_module(src).expect("benchmark kernel parses");
    let k = xir_interp::find_kernel(&m, None, None, None).expect("kernel");
    let p = xir_interp::lower(&m, k, Some(&map)).expect("lowers");
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..reps {
        let a = args();
        let t = Instant::now();
        let r = xir_interp::run(&p, a, &cfg(dispatch)).expect("runs");
        times.push(t.elapsed());
        last = Some(r);
    }
    let r = last.expect("ran");
    (r.steps, median(times), r.buffers)
}

fn rust_time(reps: usize, f: &dyn Fn() -> u64) -> (u64, Duration) {
    let mut times = Vec::new();
    let mut out = 0;
    for _ in 0..reps {
        let t = Instant::now();
        out = black_box(f());
        times.push(t.elapsed());
    }
    (out, median(times))
}

fn report(name: &str, steps: u64, t: Duration, rust: Duration) {
    let per_s = steps as f64 / t.as_secs_f64();
    println!(
        "{name:<11} {steps:>11} instructions  {:>9.3} ms  {:>7.1} M instr/s  plain Rust {:>8.3} ms  ratio {:>7.1}x",
        t.as_secs_f64() * 1e3,
        per_s / 1e6,
        rust.as_secs_f64() * 1e3,
        t.as_secs_f64() / rust.as_secs_f64().max(1e-9)
    );
}

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    // A second argument scales the problem sizes (e.g. 0.01 under callgrind).
    let scale: f64 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    let sized = |n: u32| ((n as f64 * scale) as u32).max(2);
    // A third argument runs one section only (arithmetic, memory, branchy, saxpy).
    let only = std::env::args().nth(3);
    let on = |name: &str| only.as_deref().is_none_or(|o| o == name);
    // Arithmetic loop: one thread, 2M iterations.
    if on("arithmetic") {
        let n = sized(2_000_000);
        let (steps, t, bufs) = interp(
            ARITH,
            &|| {
                vec![
                    ArgValue::Buffer(vec![0; 4]),
                    ArgValue::Buffer(vec![0; 4]),
                    ArgValue::Value(n.to_le_bytes().to_vec()),
                ]
            },
            1,
            reps,
        );
        let (rx, rt) = rust_time(reps, &|| {
            let (mut x, mut f) = (1u32, 0f32);
            let mut i = 0u32;
            loop {
                x = black_box(x).wrapping_mul(1664525).wrapping_add(1013904223);
                f = black_box(f) * 0.5 + 1.0;
                i += 1;
                if i >= black_box(n) {
                    break;
                }
            }
            x as u64 ^ f.to_bits() as u64
        });
        let ix = u32::from_le_bytes(bufs[0].as_ref().unwrap()[..4].try_into().unwrap());
        let ifl = u32::from_le_bytes(bufs[1].as_ref().unwrap()[..4].try_into().unwrap());
        assert_eq!(ix as u64 ^ ifl as u64, rx, "interpreter and Rust agree");
        report("arithmetic", steps, t, rt);
    }
    if on("memory") {
        // Memory-heavy: one thread streams 500k elements through a local and two buffers.
        let n = sized(500_000);
        let input: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2654435761)).collect();
        let (steps, t, bufs) = interp(
            MEMORY,
            &|| {
                vec![
                    ArgValue::Buffer(u32s(&input)),
                    ArgValue::Buffer(vec![0; 4 * n as usize]),
                    ArgValue::Value(n.to_le_bytes().to_vec()),
                ]
            },
            1,
            reps,
        );
        let (rsum, rt) = rust_time(reps, &|| {
            let a = black_box(&input);
            let mut b = vec![0u32; n as usize];
            let mut acc = 0u32;
            for i in 0..n as usize {
                acc = acc.wrapping_add(a[i]);
                b[i] = acc;
            }
            black_box(&b);
            acc as u64
        });
        let last = u32::from_le_bytes(
            bufs[1].as_ref().unwrap()[4 * (n as usize - 1)..]
                .try_into()
                .unwrap(),
        );
        assert_eq!(last as u64, rsum, "interpreter and Rust agree");
        report("memory", steps, t, rt);
    }
    if on("branchy") {
        // Branchy: Collatz step counts for 1..n.
        let n = sized(30_000);
        let (steps, t, bufs) = interp(
            BRANCHY,
            &|| {
                vec![
                    ArgValue::Buffer(vec![0; 4]),
                    ArgValue::Value(n.to_le_bytes().to_vec()),
                ]
            },
            1,
            reps,
        );
        let (rtot, rt) = rust_time(reps, &|| {
            let mut total = 0u32;
            for s in 1..black_box(n) {
                let (mut v, mut k) = (s, 0u32);
                while v > 1 {
                    v = if v & 1 == 1 {
                        v.wrapping_mul(3).wrapping_add(1)
                    } else {
                        v >> 1
                    };
                    k += 1;
                }
                total = total.wrapping_add(k);
            }
            total as u64
        });
        let itot = u32::from_le_bytes(bufs[0].as_ref().unwrap()[..4].try_into().unwrap());
        assert_eq!(itot as u64, rtot, "interpreter and Rust agree");
        report("branchy", steps, t, rt);
    }
    if !on("saxpy") {
        return;
    }

    // saxpy, 1,024 threads, end to end (parse + lower + bind + run).
    let x: Vec<f32> = (0..1024).map(|i| i as f32 * 0.25).collect();
    let y: Vec<f32> = (0..1024).map(|i| 1.0 - i as f32).collect();
    let mut times = Vec::new();
    let mut steps = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let (m, map) = xir_ir::text::parse_module(SAXPY).expect("parses");
        let k = xir_interp::find_kernel(&m, None, None, None).expect("kernel");
        let p = xir_interp::lower(&m, k, Some(&map)).expect("lowers");
        let args = vec![
            ArgValue::Value(2f32.to_le_bytes().to_vec()),
            ArgValue::Buffer(x.iter().flat_map(|v| v.to_le_bytes()).collect()),
            ArgValue::Buffer(y.iter().flat_map(|v| v.to_le_bytes()).collect()),
        ];
        let r = xir_interp::run(&p, args, &cfg(1024)).expect("runs");
        times.push(t.elapsed());
        steps = r.steps;
    }
    let t = median(times);
    println!(
        "saxpy-1024  {steps:>11} instructions  {:>9.3} ms end to end (parse, lower, run)  {:.1} M instr/s",
        t.as_secs_f64() * 1e3,
        steps as f64 / t.as_secs_f64() / 1e6
    );
}
