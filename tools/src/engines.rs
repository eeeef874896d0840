//! Differential execution across engines: the interpreter (the reference) against the
//! Vulkan engine (the SPIR-V backend on a Vulkan device), on the inputs
//! `xir_interp::differential` generates. Behind `xir-bisect --engines-differ` and
//! `xir-reduce --engines-differ`, and the generated-kernel differential test.
//!
//! For each kernel of the module and each seed `0..runs`: generate inputs (one buffer
//! element per thread, two blocks along x), interpret with the warp size set to the
//! device's subgroup size ([`device_warp_size`]); an input on which the interpreter
//! is not defined (undefined behaviour, a step limit) is skipped; otherwise compile the
//! kernel (`--opt=none`, validated) and run it on the device, and compare every buffer
//! bitwise (all NaNs equal). The first difference is the verdict.
//!
//! **Vulkan's precision rules.** A difference where the only change is the sign of a
//! zero is allowed when the kernel computes a float with an op whose precision Vulkan's
//! table gives as an error bound rather than as correctly rounded ([`zero_sign_free_op`]:
//! division, `sqrt`, transcendentals, …): an error bound cannot tell +0 from -0, so
//! such a result's sign of zero is not fixed even under `SignedZeroInfNanPreserve`.
//! Such inputs count as agreeing ([`EngineVerdict::Agree::zero_sign`]). A signed-zero
//! difference in a kernel without such an op is a disagreement of its own reason
//! ([`DiffReason::SignedZero`]); any other is [`DiffReason::Value`]. The check is per
//! kernel, not per data flow: a kernel that divides anywhere is allowed any ±0
//! difference.
//!
//! The module must already be in the backend's dialect (give `--pipeline=spirv-final`
//! to the tools). A backend refusal, a device without a required feature, and an
//! interpreter refusal are *undecided*, not differences.

use crate::run_vulkan::{VulkanFailure, VulkanRun};
use std::sync::Mutex;
use xir_interp::differential::{
    DEFAULT_MAX_STEPS, Outcome, both_zero, default_dispatch, first_difference, first_difference_by,
    generate_inputs, kernels, run_kernel_with_warp_size,
};
use xir_ir::op::ArithmeticOp as A;
use xir_ir::{InstKind, Module};

/// What a comparison found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineVerdict {
    /// Every defined input gave the same buffers; `compared` inputs ran on both engines.
    Agree {
        /// Inputs compared.
        compared: usize,
        /// Of those, inputs that agree only up to a sign of zero Vulkan does not fix
        /// (see the module documentation).
        zero_sign: usize,
        /// Why the first skipped input was not defined for the interpreter.
        skipped: Option<String>,
    },
    /// The first difference.
    Differ {
        /// Its class.
        reason: DiffReason,
        /// Kernel, input seed and element, described.
        text: String,
    },
}

/// Why the engines differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DiffReason {
    /// Only the sign of zeros differs, and no op of the kernel leaves it open: the
    /// device breaks IEEE 754's sign rules that `SignedZeroInfNanPreserve` requires.
    SignedZero,
    /// A value differs.
    Value,
}

impl DiffReason {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            DiffReason::SignedZero => "signed zero (the device breaks IEEE sign rules)",
            DiffReason::Value => "value",
        }
    }
}

/// The first float op of `m` (any function) whose result's sign of zero Vulkan's
/// precision table does not fix: ops given an ULP or absolute error bound, or whose
/// precision is inherited from a formula containing one (`OpFDiv`: 2.5 ULP; `OpFMod`:
/// x - y·floor(x/y); `sqrt`: 1/inversesqrt; the transcendentals, `length`, `normalize`,
/// `smoothstep`, `pow`). Add, sub, mul, `fma` (inherited from mul then add), negation,
/// `abs`, `floor`, `ceil`, conversions and the backend's mul/add expansions are
/// correctly rounded or exact, so IEEE 754 fixes the sign of their zeros.
pub fn zero_sign_free_op(m: &Module) -> Option<A> {
    for &fid in &m.func_order {
        let f = m.func(fid);
        for i in f.placed_insts() {
            let d = &f.insts[i];
            let InstKind::Arithmetic(op) = d.kind else {
                continue;
            };
            let float =
                d.ty.and_then(|t| m.types.scalar_or_vector_elem(t))
                    .is_some_and(|k| k.is_float());
            if float && ZERO_SIGN_FREE.contains(&op) {
                return Some(op);
            }
        }
    }
    None
}

/// See [`zero_sign_free_op`].
const ZERO_SIGN_FREE: &[A] = &[
    A::BinaryDiv,
    A::BinaryMod,
    A::Smoothstep,
    A::Acos,
    A::Acosh,
    A::Asin,
    A::Asinh,
    A::Atan,
    A::Atan2,
    A::Atanh,
    A::Cos,
    A::Cosh,
    A::Sin,
    A::Sinh,
    A::Tan,
    A::Tanh,
    A::Exp,
    A::Exp2,
    A::Exp10,
    A::Log,
    A::Log2,
    A::Log10,
    A::Pow,
    A::Sqrt,
    A::Rsqrt,
    A::Length,
    A::Normalize,
];

/// The subgroup size of the device `options` choose first, which the interpreter's
/// warp size must equal for warp operations to compute the same thing (queried once
/// per device choice and process).
pub fn device_warp_size(options: &xir_vulkan::Options) -> Result<u32, String> {
    static SEEN: Mutex<Vec<(xir_vulkan::DeviceChoice, u32)>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, n)) = seen.iter().find(|(c, _)| *c == options.device) {
        return Ok(*n);
    }
    let info = xir_vulkan::preferred_device(options).map_err(|e| e.to_string())?;
    if !info.subgroup_size.is_power_of_two() {
        return Err(format!(
            "{} reports a subgroup size of {}, not a power of two",
            info.name, info.subgroup_size
        ));
    }
    seen.push((options.device, info.subgroup_size));
    Ok(info.subgroup_size)
}

/// Compares the interpreter with the Vulkan engine on every kernel of `m` (`runs` seeds
/// each). `Err` is undecided (see the module documentation).
pub fn compare(
    m: &Module,
    runs: u32,
    options: &xir_vulkan::Options,
) -> Result<EngineVerdict, String> {
    let mut compared = 0;
    let mut zero_sign = 0;
    let mut skipped = None;
    let warp_size = device_warp_size(options)?;
    let zero_sign_free = zero_sign_free_op(m);
    for kernel in kernels(m) {
        let name = xir_codegen::plan::function_name(m, kernel);
        let dispatch = default_dispatch(m, kernel);
        for seed in 0..runs as u64 {
            let inputs = generate_inputs(m, kernel, dispatch, seed)?;
            let reference =
                match run_kernel_with_warp_size(m, kernel, &inputs, DEFAULT_MAX_STEPS, warp_size) {
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
                warp_size,
                options,
            };
            let (buffers, _, _) =
                crate::run_vulkan::run(m, kernel, None, inputs.args.clone(), &cfg)
                    .map_err(|e| failure_text(&name, e))?;
            let actual = xir_interp::Finished {
                buffers,
                prints: Vec::new(),
                steps: 0,
            };
            compared += 1;
            let Some(d) = first_difference(m, kernel, &reference, &actual) else {
                continue;
            };
            let text = format!("kernel {name}, input seed {seed}: vulkan {d}");
            let values = first_difference_by(m, kernel, &reference, &actual, both_zero);
            match (values, zero_sign_free) {
                (None, Some(_)) => zero_sign += 1,
                (None, None) => {
                    return Ok(EngineVerdict::Differ {
                        reason: DiffReason::SignedZero,
                        text,
                    });
                }
                (Some(d), _) => {
                    return Ok(EngineVerdict::Differ {
                        reason: DiffReason::Value,
                        text: format!("kernel {name}, input seed {seed}: vulkan {d}"),
                    });
                }
            }
        }
    }
    Ok(EngineVerdict::Agree {
        compared,
        zero_sign,
        skipped,
    })
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
    /// Inputs that agreed only up to a sign of zero Vulkan does not fix.
    pub zero_sign: usize,
    /// Kernels with warp (subgroup) operations among those compared.
    pub warp_kernels: usize,
    /// The warp size the interpreter ran with (the device's subgroup size).
    pub warp_size: u32,
    /// `seed: reason` of kernels that could not be compared (pipeline, backend, device).
    pub undecided: Vec<String>,
    /// Reason and `seed: difference`.
    pub differences: Vec<(DiffReason, String)>,
}

/// Interpreter vs Vulkan on the generated exec kernels of `seeds` (each through
/// [`spirv_final`]), `runs` inputs per kernel.
pub fn differential(
    seeds: std::ops::Range<u64>,
    runs: u32,
    options: &xir_vulkan::Options,
) -> DiffReport {
    let cfg = xir_testgen::ExecConfig::default();
    let mut r = DiffReport {
        warp_size: device_warp_size(options).unwrap_or(0),
        ..Default::default()
    };
    // XIR_ENGINES_LOG=FILE appends one line per kernel (`seed verdict`), so a long run
    // that is stopped still leaves its counts.
    let mut log = std::env::var_os("XIR_ENGINES_LOG").and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    for seed in seeds {
        r.kernels += 1;
        let before = (r.compared, r.zero_sign, r.all_skipped, r.undecided.len());
        let mut m = xir_testgen::generate_exec_kernel(seed, &cfg).module;
        let verdict = match spirv_final(&mut m) {
            Err(e) => Err(format!("spirv-final: {e}")),
            Ok(()) => compare(&m, runs, options),
        };
        let warp = uses_warp_ops(&m);
        match verdict {
            Ok(EngineVerdict::Agree { compared: 0, .. }) => r.all_skipped += 1,
            Ok(EngineVerdict::Agree {
                compared,
                zero_sign,
                ..
            }) => {
                r.compared += compared;
                r.zero_sign += zero_sign;
                r.warp_kernels += warp as usize;
            }
            Ok(EngineVerdict::Differ { reason, text }) => {
                // XIR_ENGINES_DUMP=DIR keeps each disagreeing module (for xir-reduce).
                if let Ok(dir) = std::env::var("XIR_ENGINES_DUMP") {
                    let text = xir_ir::text::print_module(&m, &Default::default());
                    let _ = std::fs::write(format!("{dir}/engines-{seed}.xir"), text);
                }
                r.differences.push((reason, format!("{seed}: {text}")))
            }
            Err(e) => r.undecided.push(format!("{seed}: {e}")),
        }
        if let Some(f) = log.as_mut() {
            use std::io::Write;
            let verdict = if let Some((reason, d)) = r
                .differences
                .last()
                .filter(|(_, d)| d.starts_with(&format!("{seed}: ")))
            {
                format!("differ ({}) {d}", reason.name())
            } else if r.undecided.len() > before.3 {
                format!(
                    "undecided {}",
                    r.undecided.last().map(String::as_str).unwrap_or("")
                )
            } else if r.all_skipped > before.2 {
                "no defined input".to_string()
            } else {
                format!(
                    "agree on {} inputs ({} up to the sign of zero)",
                    r.compared - before.0,
                    r.zero_sign - before.1
                )
            };
            let _ = writeln!(f, "{seed} {verdict}");
        }
    }
    r
}

/// Whether any function of `m` has a warp (subgroup) operation.
pub fn uses_warp_ops(m: &Module) -> bool {
    m.func_order.iter().any(|&fid| {
        let f = m.func(fid);
        f.placed_insts().any(|i| {
            matches!(f.insts[i].kind, InstKind::ThreadGroup(op) if op.to_string().starts_with("warp_"))
        })
    })
}
