//! Fuzzing the SPIR-V backend on generated valid modules; the property is
//! `driver/tests/fuzz_checks/codegen_generated.rs` (also replayed over the committed
//! corpus by `cargo test -p xir-driver --test codegen_fuzz_replay`).
//!
//! Counters (inputs, pipeline failures, kernels, dialect rejections, other user
//! rejections, kernels that reached emission and validated, and of those the ones
//! compiled with `DenormPreserve`) are written every 256
//! inputs to `$XIR_FUZZ_STATS` (default `$TMPDIR/xir-fuzz-codegen-stats.txt`).
//!
//! `cd ir/fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run --features codegen codegen_generated`
#![no_main]

#[path = "../../../driver/tests/fuzz_checks/codegen_generated.rs"]
mod check;

use std::sync::Mutex;

static TOTAL: Mutex<(u64, check::Counts)> = Mutex::new((0, check::Counts {
    pipeline_failed: 0,
    kernels: 0,
    dialect_rejected: 0,
    other_rejected: 0,
    emitted: 0,
    denorm_preserved: 0,
}));

fn write_stats(inputs: u64, t: &check::Counts) {
    let path = std::env::var_os("XIR_FUZZ_STATS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("xir-fuzz-codegen-stats.txt"));
    let share = if t.kernels == 0 { 0.0 } else { t.emitted as f64 / t.kernels as f64 };
    let text = format!(
        "inputs {inputs}\npipeline_failed {}\nkernels {}\ndialect_rejected {}\nother_user_rejected {}\nemitted_and_validated {}\nemitted_share_of_kernels {share:.3}\ndenorm_preserved {}\n",
        t.pipeline_failed, t.kernels, t.dialect_rejected, t.other_rejected, t.emitted, t.denorm_preserved
    );
    let _ = std::fs::write(path, text);
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let c = check::check(data);
    let mut g = TOTAL.lock().unwrap();
    g.0 += 1;
    let t = &mut g.1;
    t.pipeline_failed += c.pipeline_failed;
    t.kernels += c.kernels;
    t.dialect_rejected += c.dialect_rejected;
    t.other_rejected += c.other_rejected;
    t.emitted += c.emitted;
    t.denorm_preserved += c.denorm_preserved;
    if g.0 % 256 == 0 {
        write_stats(g.0, &g.1);
    }
});
