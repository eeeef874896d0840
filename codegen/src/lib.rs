//! # xir-codegen — XIR → SPIR-V 1.5 for Vulkan 1.2 compute kernels
//!
//! The compile contract ([`compile_kernel`]), in order:
//!
//! 1. **Kernel ABI and dialect check** ([`dialect`]): the kernel-reachable call graph
//!    (callee before caller) and each function's structural closure must be in the
//!    backend's dialect; input that is not is a *user* error that says to run
//!    `spirv-final`.
//! 2. **Frozen plans** ([`plan`]): typed-buffer layouts, fixed-point argument usage.
//! 3. **Descriptors and the argument block**: set 0, binding 0 is the internal argument
//!    block (value arguments in host layout, then `dispatch_size` and `kernel_id`);
//!    bindings 1… are the buffer arguments as typed SSBOs.
//! 4. **Functions** from each function's frozen control-flow plan (`emit`).
//! 5. **Validation** in process with SPIRV-Tools for Vulkan 1.2: our own invalid output
//!    is an *internal* error naming the XIR function.
//! 6. **Optional optimisation** (SPIRV-Tools performance or size preset), kept only if it
//!    succeeds and validates; never a repair.
//! 7. **Reflection** ([`reflect`]) with the required-feature mask reconciled from the
//!    capabilities of the final binary ([`features`]).
//!
//! Output is deterministic: the same module gives the same bytes.

#![warn(missing_docs)]

pub mod dialect;
mod emit;
pub mod error;
pub mod features;
pub mod plan;
pub mod reflect;

pub use dialect::{Support, check_dialect, validate_dialect};
pub use error::{CodegenError, ErrorKind, Loc, Located};
pub use reflect::Reflection;

use spirv_tools::TargetEnv;
use spirv_tools::assembler::Assembler;
use spirv_tools::opt::Optimizer;
use spirv_tools::val::Validator;
use xir_ir::{FuncId, Module};

/// SPIRV-Tools optimisation preset.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum OptLevel {
    /// No optimisation.
    #[default]
    None,
    /// `spirv-opt -O`.
    Performance,
    /// `spirv-opt -Os`.
    Size,
}

/// How the module asks the device to treat subnormal (denormal) floats.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Denorm {
    /// No denormal execution mode: the driver may flush subnormals to zero (Vulkan's
    /// default; NVIDIA flushes f32). The module then runs on every Vulkan 1.2 device.
    #[default]
    Any,
    /// `OpExecutionMode DenormPreserve W` for every float width W the module declares
    /// (SPIR-V 1.4 float controls, core in 1.5): the device must report
    /// `shaderDenormPreserveFloatW` (reflection features `denorm_preserve_float16/32/64`).
    Preserve,
}

/// What [`compile_kernel`] does beyond the kernel itself.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// SPIRV-Tools optimisation preset.
    pub opt: OptLevel,
    /// Subnormal float handling the module declares.
    pub denorm: Denorm,
}

impl From<OptLevel> for CompileOptions {
    fn from(opt: OptLevel) -> Self {
        CompileOptions {
            opt,
            ..Default::default()
        }
    }
}

/// A compiled kernel.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The SPIR-V words (validated).
    pub words: Vec<u32>,
    /// Reflection.
    pub reflection: Reflection,
    /// Whether the optimiser's output was kept.
    pub optimized: bool,
}

impl Compiled {
    /// The binary as little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// Kernels of the module with their names, in module order.
pub fn kernels(module: &Module) -> Vec<(FuncId, String)> {
    plan::kernels(module)
}

/// Compiles one kernel (see the crate documentation for the steps).
pub fn compile_kernel(
    module: &Module,
    kernel: FuncId,
    options: &CompileOptions,
) -> Result<Compiled, CodegenError> {
    let (words, mut reflection) = emit_unvalidated(module, kernel, options.denorm)?;
    validate(&words).map_err(|msg| {
        CodegenError::internal(
            Loc::Func(kernel),
            format!("the SPIR-V emitted for this kernel failed validation: {msg}"),
        )
    })?;
    let (words, optimized) = match options.opt {
        OptLevel::None => (words, false),
        level => match optimize(&words, level) {
            Some(o) if validate(&o).is_ok() => (o, true),
            _ => (words, false),
        },
    };
    let caps = capabilities_of(&words);
    reflection.feature_mask = features::mask_of(&caps, &denorm_preserve_widths(&words));
    reflection.capabilities = caps.iter().map(|c| format!("{c:?}")).collect();
    Ok(Compiled {
        words,
        reflection,
        optimized,
    })
}

/// Steps 1–4 of the compile contract alone (dialect and ABI checks, plans, emission):
/// the SPIR-V words and the reflection before validation, optimisation and the
/// feature mask. The words are *not* validated; use [`compile_kernel`] for a binary to
/// run. For measuring the emitter apart from SPIRV-Tools (`examples/codegen_scaling.rs`).
pub fn emit_unvalidated(
    module: &Module,
    kernel: FuncId,
    denorm: Denorm,
) -> Result<(Vec<u32>, Reflection), CodegenError> {
    let graph = plan::call_graph(module, kernel).map_err(CodegenError::user)?;
    dialect::check_graph(module, &graph).map_err(CodegenError::user)?;
    abi_check(module, kernel)?;
    let usage = plan::argument_usage(module, &graph);
    let reprs = plan::buffer_reprs(module, kernel, &graph).map_err(CodegenError::user)?;
    emit::emit_kernel(module, kernel, &graph, &usage, &reprs, denorm)
}

/// Kernel ABI: argument kinds and types the Vulkan descriptor ABI can carry.
fn abi_check(module: &Module, kernel: FuncId) -> Result<(), CodegenError> {
    let func = module.func(kernel);
    let mut errors = Vec::new();
    if let xir_ir::FunctionKind::Kernel { block_size } = func.kind {
        if block_size.contains(&0) {
            errors.push(Located::new(
                Loc::Func(kernel),
                format!("kernel block size {block_size:?} has a zero extent"),
            ));
        }
        let total: u64 = block_size.iter().map(|&x| x as u64).product();
        if total > 1024 {
            errors.push(Located::new(Loc::Func(kernel), format!("kernel block size {block_size:?} has {total} threads; Vulkan guarantees at most 1024 (maxComputeWorkGroupInvocations)")));
        }
    }
    if func.ret.is_some() {
        errors.push(Located::new(Loc::Func(kernel), "a kernel returns void"));
    }
    for &a in &func.arg_order {
        let arg = &func.args[a];
        match arg.kind {
            xir_ir::ArgKind::Reference => errors.push(
                Located::new(
                    Loc::Arg(kernel, a),
                    "kernel reference arguments are not part of the Vulkan descriptor ABI",
                )
                .help("pass the value, or a buffer, instead"),
            ),
            xir_ir::ArgKind::Value => {
                if let Some(p) = plan::typed_layout_problem(module, arg.ty) {
                    errors.push(Located::new(
                        Loc::Arg(kernel, a),
                        format!("kernel value argument of type {} cannot be passed in the argument block: {p}", reflect::type_name(module, arg.ty)),
                    ));
                }
            }
            xir_ir::ArgKind::Resource => {}
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(CodegenError::user(errors))
    }
}

/// Validates SPIR-V words for Vulkan 1.2 in process; `Err` carries the validator's message.
pub fn validate(words: &[u32]) -> Result<(), String> {
    let v = spirv_tools::val::create(Some(TargetEnv::Vulkan_1_2));
    v.validate(words, None).map_err(|e| match &e.diagnostic {
        Some(d) => d.message.clone(),
        None => e.to_string(),
    })
}

fn optimize(words: &[u32], level: OptLevel) -> Option<Vec<u32>> {
    let mut o = spirv_tools::opt::create(Some(TargetEnv::Vulkan_1_2));
    match level {
        OptLevel::Performance => o.register_performance_passes(),
        OptLevel::Size => o.register_size_passes(),
        OptLevel::None => return Some(words.to_vec()),
    };
    let mut sink = |_m: spirv_tools::error::Message| {};
    o.optimize(words, &mut sink, None)
        .ok()
        .map(|b| b.as_words().to_vec())
}

/// The capabilities declared by a binary, in declaration order.
pub fn capabilities_of(words: &[u32]) -> Vec<rspirv::spirv::Capability> {
    let Ok(m) = rspirv::dr::load_words(words) else {
        return Vec::new();
    };
    m.capabilities
        .iter()
        .filter_map(|i| match i.operands.first() {
            Some(rspirv::dr::Operand::Capability(c)) => Some(*c),
            _ => None,
        })
        .collect()
}

/// The float widths a binary declares `DenormPreserve` for (any entry point), ascending.
pub fn denorm_preserve_widths(words: &[u32]) -> Vec<u32> {
    let Ok(m) = rspirv::dr::load_words(words) else {
        return Vec::new();
    };
    let mut widths: Vec<u32> = m
        .execution_modes
        .iter()
        .filter_map(|i| match i.operands.as_slice() {
            [
                _,
                rspirv::dr::Operand::ExecutionMode(rspirv::spirv::ExecutionMode::DenormPreserve),
                rspirv::dr::Operand::LiteralBit32(w),
            ] => Some(*w),
            _ => None,
        })
        .collect();
    widths.sort_unstable();
    widths.dedup();
    widths
}

/// Disassembles in the format of `spirv-dis` (default options: friendly names, indented,
/// with the header comment).
pub fn disassemble(words: &[u32]) -> Result<String, String> {
    let a = spirv_tools::assembler::create(Some(TargetEnv::Vulkan_1_2));
    let opts = spirv_tools::assembler::DisassembleOptions {
        comment: false,
        ..Default::default()
    };
    match a.disassemble(words, opts) {
        Ok(Some(s)) => Ok(if s.ends_with('\n') { s } else { s + "\n" }),
        Ok(None) => Err("disassembler produced no text".into()),
        Err(e) => Err(e.to_string()),
    }
}
