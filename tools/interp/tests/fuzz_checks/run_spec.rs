//! Fuzzing `xir-run`'s SPEC.json reader (`xir_interp::spec`): arbitrary bytes as a
//! specification for a fixed kernel whose arguments cover every element shape the
//! reader handles (scalars of each class, a padded struct, a byte buffer, bool, a
//! matrix, an array, f16, value arguments). The input is read, bound, and, when it binds
//! with a small dispatch, the kernel runs and its buffers print in both formats.
//!
//! Must hold: nothing panics; every rejection is one line that starts with `SPEC.json`
//! (the reader's errors); a binding error names the argument, and one about a value names
//! the buffer argument and the element index; whatever binds gives each buffer exactly `elements × size` bytes.
//!
//! Shared by the fuzz target `ir/fuzz/fuzz_targets/run_spec.rs` and the corpus replay
//! `tools/interp/tests/fuzz_replay.rs`.

use std::sync::OnceLock;
use xir_interp::spec::{self, EntryData, FloatFormat};
use xir_interp::{ArgValue, RunConfig, Schedule};
use xir_ir::{FuncId, Module};

/// The fixed kernel: its body only returns; the reader and the printer are the subject.
const KERNEL: &str = r#"module;

type T0 = struct { u16, f64, i8, vector<f32, 3> };

kernel %main block_size(32, 1, 1) (
    %a0: buffer<f32>;
    %a1: buffer<T0>;
    %a2: buffer<void>;
    %a3: buffer<bool>;
    %a4: buffer<matrix<f32, 3>>;
    %a5: buffer<array<i64, 2>>;
    %a6: buffer<f16>;
    %a7: u64;
    %a8: vector<f64, 2>;
    %a9: buffer<vector<u8, 4>>;
) = define %entry: {
    %ret: void = return;
};
"#;

fn kernel() -> &'static (Module, FuncId) {
    static K: OnceLock<(Module, FuncId)> = OnceLock::new();
    K.get_or_init(|| {
        let (m, _) = xir_ir::text::parse_module(KERNEL).expect("the fixed kernel parses");
        let k = xir_interp::find_kernel(&m, None, None, None).expect("one kernel");
        (m, k)
    })
}

fn check_error(e: &str) {
    assert!(
        e.starts_with("SPEC.json"),
        "an error that does not say it is about SPEC.json: {e}"
    );
    assert!(!e.contains('\n'), "a multi-line error: {e:?}");
}

/// The property (panics on a violation).
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = spec::parse(text);
    let s = match parsed {
        Ok(s) => s,
        Err(e) => return check_error(&e),
    };
    let (m, k) = kernel();
    let args = match spec::bind(&s, m, *k) {
        Ok(a) => a,
        Err(e) => {
            check_error(&e);
            assert!(
                e.contains("argument "),
                "a binding error that names no argument: {e}"
            );
            // An error about a value (not about a type or an entry) names the element.
            let about_value = !e.contains("type '")
                && ["expected", "out of range", "not a", "bit pattern"]
                    .iter()
                    .any(|w| e.contains(w));
            if about_value {
                assert!(
                    e.contains(", element ") || e.contains("value argument "),
                    "a value error that does not name the buffer and the element: {e}"
                );
            }
            return;
        }
    };
    // Every typed buffer binds to exactly one image per `init` element.
    let f = m.func(*k);
    for e in &s.entries {
        let EntryData::Init(items) = &e.data else {
            continue;
        };
        let a = &f.args[f.arg_order[e.arg]];
        if let xir_ir::TypeData::Buffer { elem: Some(t) } = m.types.get(a.ty) {
            let ArgValue::Buffer(b) = &args[e.arg] else {
                panic!("argument {} bound as a value", e.arg)
            };
            assert_eq!(b.len(), items.len() * m.types.size_of(*t) as usize);
        }
    }
    // Run (small dispatches only: the subject is the reader) and print.
    let dispatch = s.dispatch.unwrap_or([1, 1, 1]);
    if dispatch.iter().map(|&d| d as u64).product::<u64>() > 256 {
        return;
    }
    let p = xir_interp::lower(m, *k, None).expect("the fixed kernel lowers");
    let cfg = RunConfig {
        dispatch,
        block_size: p.block_size,
        warp_size: 32,
        schedule: Schedule::Forward,
        max_steps: 100_000,
    };
    if let Ok(done) = xir_interp::run(&p, args, &cfg) {
        for ff in [FloatFormat::Decimal, FloatFormat::Bits] {
            let j = spec::results_json(m, *k, &done.buffers, ff);
            serde_json::from_str::<serde_json::Value>(&j).expect("results are JSON");
            let _ = spec::results_text(m, *k, &done.buffers, ff);
        }
    }
}
