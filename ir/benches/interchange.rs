//! Read/write throughput of the interchange text and bitcode on a module just under the
//! 2^20-record budget (records = globals + functions + arguments + blocks + instructions
//! + operands + auxiliaries + payloads + metadata items, as upstream counts them).
//!
//! Run with `cargo bench -p xir-ir --bench interchange`. Figures are medians of several
//! runs; the verifier (which both readers and writers run) is timed separately too.

use std::time::{Duration, Instant};
use xir_ir::function::{ArgKind, FunctionKind};
use xir_ir::inst::InstKind;
use xir_ir::interchange::samples::{Fb, cf32};
use xir_ir::interchange::{
    read_bitcode, read_interchange_text, write_bitcode, write_interchange_text,
};
use xir_ir::module::Module;
use xir_ir::op::ArithmeticOp;
use xir_ir::value::Value;

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
            v = b.ins(e, InstKind::Arithmetic(op), Some(f), [v, c]);
        }
        b.ret(e, Some(v));
    }
    m
}

fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        times.push(t.elapsed());
        last = Some(r);
    }
    times.sort();
    (times[runs / 2], last.expect("at least one run"))
}

fn report(what: &str, d: Duration, bytes: usize, records: usize, insts: usize) {
    let s = d.as_secs_f64();
    println!(
        "{what:<22} {:>9.1} ms {:>8.1} MB/s {:>7.1} ns/record {:>7.1} ns/inst",
        s * 1e3,
        bytes as f64 / s / 1e6,
        s * 1e9 / records as f64,
        s * 1e9 / insts as f64,
    );
}

fn main() {
    // 64 chains × 5450 instructions: 348,800 instructions, each with 2 operands.
    let (chains, len) = (64, 5450);
    let m = big_module(chains, len);
    let insts = m.inst_count();
    let records = 2 + chains * (1 + 1 + 1) + insts * 3 + chains;
    let runs = 5;
    let (vt, _) = median(runs, || {
        xir_ir::verify::verify_module(&m, &Default::default(), None).len()
    });
    let (wt, text) = median(runs, || write_interchange_text(&m).expect("write text"));
    let (rt, _) = median(runs, || read_interchange_text(&text).expect("read text"));
    let (wb, bc) = median(runs, || write_bitcode(&m).expect("write bitcode"));
    let (rb, _) = median(runs, || read_bitcode(&bc).expect("read bitcode"));
    println!(
        "module: {insts} instructions, {records} records (limit {}), text {} bytes, bitcode {} bytes",
        xir_ir::interchange::MAX_RECORD_COUNT,
        text.len(),
        bc.len()
    );
    report("verify (in all four)", vt, text.len(), records, insts);
    report("write text", wt, text.len(), records, insts);
    report("read text", rt, text.len(), records, insts);
    report("write bitcode", wb, bc.len(), records, insts);
    report("read bitcode", rb, bc.len(), records, insts);
}
