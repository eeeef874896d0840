//! Fuzzing the SPIR-V backend (`xir_codegen`) on generated valid modules: the bytes
//! choose a generator (the executable-kernel generator or the general module
//! generator), its seed and configuration, whether `spirv-final` runs first (and with
//! `optimize` on or off), the SPIRV-Tools optimisation level and the denormal mode.
//!
//! Must hold: nothing panics; for every kernel, `compile_kernel` either returns words
//! that the in-process validator (Vulkan 1.2) accepts, and the same words a second time
//! (determinism), or fails with at least one non-empty, located diagnostic of *user*
//! kind. An internal error (our own emitted SPIR-V failed validation, or a broken
//! backend invariant) is a crash: fail-closed is not the same as correct.
//!
//! Input layout: byte 0 bit 0 generator (0 executable kernel, 1 general module), bit 1
//! run `spirv-final` first, bit 2 its `optimize`, bits 3-4 opt level (none, performance,
//! size, none), bit 5 `--denorm=preserve`; bytes 1..9 seed (little-endian, zero-padded);
//! byte 9 generator config.
//!
//! Shared by the fuzz target `ir/fuzz/fuzz_targets/codegen_generated.rs` (which adds up
//! the [`Counts`]) and the corpus replay `driver/tests/codegen_fuzz_replay.rs`.

use xir_codegen::{CompileOptions, Denorm, ErrorKind, OptLevel};
use xir_testgen::{ExecConfig, GenConfig, generate_exec_kernel, generate_module};

/// What one input reached.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// `spirv-final` refused the module (a located pipeline failure).
    pub pipeline_failed: u64,
    /// Kernels compiled.
    pub kernels: u64,
    /// Rejected by the dialect check.
    pub dialect_rejected: u64,
    /// In the dialect, rejected later (ABI, planner, emission) as a user error.
    pub other_rejected: u64,
    /// Reached emission and validated.
    pub emitted: u64,
    /// Of those, compiled with `--denorm=preserve` and declaring `DenormPreserve`.
    pub denorm_preserved: u64,
}

fn spirv_final(m: &mut xir_ir::Module, optimize: bool) -> Result<(), String> {
    xir_driver::pipeline::run_spirv_final(m, optimize)
}

/// The property (panics on a violation); what the input reached.
pub fn check(data: &[u8]) -> Counts {
    let mut n = Counts::default();
    let mut head = [0u8; 10];
    let len = data.len().min(10);
    head[..len].copy_from_slice(&data[..len]);
    let flags = head[0];
    let seed = u64::from_le_bytes(head[1..9].try_into().unwrap());
    let c = head[9];
    let mut m = if flags & 1 == 0 {
        generate_exec_kernel(
            seed,
            &ExecConfig {
                max_depth: (c & 3) as u32 + 1,
                max_stmts: ((c >> 2) & 7) as u32 + 1,
                max_callables: (c >> 5) as u32 % 4,
            },
        )
        .module
    } else {
        generate_module(
            seed,
            &GenConfig {
                max_depth: (c & 3) as u32 + 1,
                max_stmts: ((c >> 2) & 7) as u32 + 1,
                max_callables: ((c >> 5) & 3) as u32,
                recipes_per_module: 8 + (c >> 7) as u32 * 40,
            },
        )
    };
    let opt = match (flags >> 3) & 3 {
        1 => OptLevel::Performance,
        2 => OptLevel::Size,
        _ => OptLevel::None,
    };
    let opt = CompileOptions {
        opt,
        denorm: if flags & 32 != 0 {
            Denorm::Preserve
        } else {
            Denorm::Any
        },
    };
    if flags & 2 != 0
        && let Err(e) = spirv_final(&mut m, flags & 4 != 0)
    {
        assert!(!e.is_empty());
        n.pipeline_failed += 1;
        return n;
    }
    let dialect_ok = xir_codegen::check_dialect(&m).is_ok();
    for (k, name) in xir_codegen::kernels(&m) {
        n.kernels += 1;
        match xir_codegen::compile_kernel(&m, k, &opt) {
            Ok(c) => {
                if let Err(e) = xir_codegen::validate(&c.words) {
                    panic!("kernel {name}: returned as success but invalid: {e}");
                }
                let again = xir_codegen::compile_kernel(&m, k, &opt).expect("compiles again");
                assert_eq!(c.words, again.words, "kernel {name}: not deterministic");
                // Every float width gets SignedZeroInfNanPreserve; with --denorm=preserve
                // also DenormPreserve (and its required feature), else never.
                let names = xir_codegen::features::names(c.reflection.feature_mask);
                let floats = names.contains(&"signed_zero_inf_nan_preserve");
                let denorm = xir_codegen::denorm_preserve_widths(&c.words);
                let want = opt.denorm == Denorm::Preserve && floats;
                assert_eq!(
                    !denorm.is_empty(),
                    want,
                    "kernel {name}: DenormPreserve widths {denorm:?}"
                );
                assert_eq!(
                    names.iter().any(|n| n.starts_with("denorm_preserve_")),
                    want,
                    "kernel {name}: features {names:?}"
                );
                n.emitted += 1;
                n.denorm_preserved += u64::from(want);
            }
            Err(e) => {
                let diags = e.to_diagnostics(&m, None);
                assert!(
                    !diags.is_empty() && diags.iter().all(|d| !d.message.is_empty()),
                    "kernel {name}: a rejection without a diagnostic"
                );
                if e.kind == ErrorKind::Internal {
                    let text: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
                    panic!("kernel {name}: internal error: {}", text.join("\n"));
                }
                if dialect_ok {
                    n.other_rejected += 1;
                } else {
                    n.dialect_rejected += 1;
                }
            }
        }
    }
    n
}
