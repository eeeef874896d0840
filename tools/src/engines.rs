//! Differential execution across engines: the interpreter (the reference) against the
//! Vulkan engine (the SPIR-V backend on a Vulkan device), on the inputs
//! `xir_interp::differential` generates. Behind `xir-bisect --engines-differ` and
//! `xir-reduce --engines-differ`, and the generated-kernel differential test.
//!
//! For each kernel of the module and each seed `0..runs`: generate inputs (one buffer
//! element per thread, two blocks along x), interpret; an input on which the interpreter
//! is not defined (undefined behaviour, a step limit) is skipped; otherwise compile the
//! kernel (`--opt=none`, validated) and run it on the device, and compare every buffer
//! bitwise (all NaNs equal). The first difference is the verdict.
//!
//! The module must already be in the backend's dialect (give `--pipeline=spirv-final`
//! to the tools). A backend refusal, a device without a required feature or another
//! subgroup size, and an interpreter refusal are *undecided*, not differences.

use crate::run_vulkan::{VulkanFailure, VulkanRun};
use xir_interp::differential::{
    DEFAULT_MAX_STEPS, Outcome, default_dispatch, first_difference, generate_inputs, kernels,
    run_kernel,
};
use xir_ir::Module;

/// The warp size the interpreter's differential runs assume.
const WARP_SIZE: u32 = 32;

/// What a comparison found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineVerdict {
    /// Every defined input gave the same buffers; `compared` inputs ran on both engines.
    Agree {
        /// Inputs compared.
        compared: usize,
        /// Why the first skipped input was not defined for the interpreter.
        skipped: Option<String>,
    },
    /// The first difference, described.
    Differ(String),
}

/// Compares the interpreter with the Vulkan engine on every kernel of `m` (`runs` seeds
/// each). `Err` is undecided (see the module documentation).
pub fn compare(
    m: &Module,
    runs: u32,
    options: &xir_vulkan::Options,
) -> Result<EngineVerdict, String> {
    let mut compared = 0;
    let mut skipped = None;
    for kernel in kernels(m) {
        let name = xir_codegen::plan::function_name(m, kernel);
        let dispatch = default_dispatch(m, kernel);
        for seed in 0..runs as u64 {
            let inputs = generate_inputs(m, kernel, dispatch, seed)?;
            let reference = match run_kernel(m, kernel, &inputs, DEFAULT_MAX_STEPS) {
                Outcome::Defined(f) => f,
                Outcome::Refused(msg) => {
                    return Err(format!("the interpreter refuses {name}: {msg}"));
                }
                Outcome::Undefined(f) | Outcome::Inconclusive(f) => {
                    skipped.get_or_insert(f.message);
                    continue;
                }
            };
            let cfg = VulkanRun {
                dispatch,
                warp_size: WARP_SIZE,
                options,
            };
            let (buffers, _) = crate::run_vulkan::run(m, kernel, None, inputs.args.clone(), &cfg)
                .map_err(|e| failure_text(&name, e))?;
            let actual = xir_interp::Finished {
                buffers,
                prints: Vec::new(),
                steps: 0,
            };
            if let Some(d) = first_difference(m, kernel, &reference, &actual) {
                return Ok(EngineVerdict::Differ(format!(
                    "kernel {name}, input seed {seed}: vulkan {d}"
                )));
            }
            compared += 1;
        }
    }
    Ok(EngineVerdict::Agree { compared, skipped })
}

fn failure_text(kernel: &str, e: VulkanFailure) -> String {
    let diags = |d: Vec<xir_ir::diag::Diagnostic>| {
        d.iter()
            .map(|x| x.message.clone())
            .collect::<Vec<_>>()
            .join("; ")
    };
    match e {
        VulkanFailure::Compile(d) => format!("the SPIR-V backend refuses {kernel}: {}", diags(d)),
        VulkanFailure::CompileInternal(d) => {
            format!(
                "the SPIR-V backend failed on {kernel} (internal): {}",
                diags(d)
            )
        }
        VulkanFailure::Runtime(e) => format!("the Vulkan run of {kernel} failed: {e}"),
        VulkanFailure::Internal(s) => format!("binding {kernel} failed: {s}"),
    }
}

/// Brings a generated module into the backend's dialect: `spirv-final` with
/// `optimize=false`, the verifier after every pass.
pub fn spirv_final(m: &mut Module) -> Result<(), String> {
    xir_driver::pipeline::run_spirv_final(m, false)
}

/// Totals of [`differential`].
#[derive(Clone, Debug, Default)]
pub struct DiffReport {
    /// Kernels generated.
    pub kernels: usize,
    /// Inputs run on both engines and compared.
    pub compared: usize,
    /// Kernels whose every input was skipped (undefined for the interpreter).
    pub all_skipped: usize,
    /// `seed: reason` of kernels that could not be compared (pipeline, backend, device).
    pub undecided: Vec<String>,
    /// `seed: difference`.
    pub differences: Vec<String>,
}

/// Interpreter vs Vulkan on the generated exec kernels of `seeds` (each through
/// [`spirv_final`]), `runs` inputs per kernel.
pub fn differential(
    seeds: std::ops::Range<u64>,
    runs: u32,
    options: &xir_vulkan::Options,
) -> DiffReport {
    let cfg = xir_testgen::ExecConfig::default();
    let mut r = DiffReport::default();
    for seed in seeds {
        r.kernels += 1;
        let mut m = xir_testgen::generate_exec_kernel(seed, &cfg).module;
        if let Err(e) = spirv_final(&mut m) {
            r.undecided.push(format!("{seed}: spirv-final: {e}"));
            continue;
        }
        match compare(&m, runs, options) {
            Ok(EngineVerdict::Agree { compared: 0, .. }) => r.all_skipped += 1,
            Ok(EngineVerdict::Agree { compared, .. }) => r.compared += compared,
            Ok(EngineVerdict::Differ(d)) => {
                // XIR_ENGINES_DUMP=DIR keeps each disagreeing module (for xir-reduce).
                if let Ok(dir) = std::env::var("XIR_ENGINES_DUMP") {
                    let text = xir_ir::text::print_module(&m, &Default::default());
                    let _ = std::fs::write(format!("{dir}/engines-{seed}.xir"), text);
                }
                r.differences.push(format!("{seed}: {d}"))
            }
            Err(e) => r.undecided.push(format!("{seed}: {e}")),
        }
    }
    r
}
