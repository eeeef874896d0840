//! Read/write throughput of the interchange text and bitcode on a module just under the
//! 2^20-record budget (records = globals + functions + arguments + blocks + instructions
//! + operands + auxiliaries + payloads + metadata items, as upstream counts them).
//!
//! Run with `cargo bench -p xir-testgen --bench interchange`. Figures are medians of several
//! runs; the verifier (which both readers and writers run) is timed separately too.

#[path = "../../../ir/benches/common/mod.rs"]
mod common;
use common::cpu_time;
use std::time::{Duration, Instant};
use xir_ir::edit::InstBuilder;
use xir_ir::function::{ArgKind, FunctionKind};
use xir_ir::interchange::{
    read_bitcode, read_interchange_text, write_bitcode, write_interchange_text,
};
use xir_ir::module::Module;
use xir_ir::op::ArithmeticOp;
use xir_ir::value::Value;
use xir_testgen::samples::{Fb, cf32};

/// `chains` callables, each a chain of `len` float additions and multiplications.
fn big_module(chains: usize, len: usize) -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let c1 = cf32(&mut m, 1.5);
    let c2 = cf32(&mut m, 0.75);
    for _ in 0..chains {
        let mut b = Fb::new(&mut m, FunctionKind::Callable, Some(f));
        let x = b.arg(ArgKind::Value, f);
        let e = b.body();
        let mut v: Value = x;
        for i in 0..len {
            let (op, c) = if i % 2 == 0 {
                (ArithmeticOp::BinaryAdd, c1)
            } else {
                (ArithmeticOp::BinaryMul, c2)
            };
            v = b.at(e).arith(op, f, &[v, c]);
        }
        b.at(e).ret(Some(v));
    }
    m
}

/// Median wall time and median CPU time of `runs` runs, and the last result.
fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration, T) {
    let mut wall = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let (t, c) = (Instant::now(), cpu_time());
        let r = f();
        wall.push(t.elapsed());
        cpu.push(cpu_time().saturating_sub(c));
        last = Some(r);
    }
    wall.sort();
    cpu.sort();
    (
        wall[runs / 2],
        cpu[runs / 2],
        last.expect("at least one run"),
    )
}

fn report(what: &str, (wall, cpu): (Duration, Duration), bytes: usize, records: usize) {
    let s = cpu.as_secs_f64().max(1e-9);
    println!(
        "{what:<22} wall {:>8.1} ms  cpu {:>8.1} ms  {:>8.1} MB/s  {:>7.1} ns/record (cpu)",
        wall.as_secs_f64() * 1e3,
        s * 1e3,
        bytes as f64 / s / 1e6,
        s * 1e9 / records as f64,
    );
}

fn main() {
    // 64 chains × 5450 instructions: 348,800 instructions, each with 2 operands.
    let (chains, len) = (64, 5450);
    let m = big_module(chains, len);
    let insts = m.inst_count();
    let _ = Instant::now();
    let records = 2 + chains * (1 + 1 + 1) + insts * 3 + chains;
    let runs = 7;
    let (vw, vc, _) = median(runs, || {
        xir_ir::verify::verify_module(&m, &Default::default(), None).len()
    });
    let (ww, wc, text) = median(runs, || write_interchange_text(&m).expect("write text"));
    let (rw, rc, _) = median(runs, || read_interchange_text(&text).expect("read text"));
    let (bw, bcpu, bc) = median(runs, || write_bitcode(&m).expect("write bitcode"));
    let (rbw, rbc, _) = median(runs, || read_bitcode(&bc).expect("read bitcode"));
    println!(
        "module: {insts} instructions, {records} records (limit {}), text {} bytes, bitcode {} bytes",
        xir_ir::interchange::MAX_RECORD_COUNT,
        text.len(),
        bc.len()
    );
    report("verify (in all four)", (vw, vc), text.len(), records);
    report("write text", (ww, wc), text.len(), records);
    report("read text", (rw, rc), text.len(), records);
    report("write bitcode", (bw, bcpu), bc.len(), records);
    report("read bitcode", (rbw, rbc), bc.len(), records);
}
