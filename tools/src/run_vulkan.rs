//! `xir-run --engine=vulkan`: compiles the kernel with `xir-codegen` in process (which
//! validates the SPIR-V before anything runs), lays out descriptor set 0 from the
//! reflection — binding 0 the argument block (value arguments at their reflected
//! offsets, then `dispatch_size` and `kernel_id`), bindings 1… the buffer arguments
//! in host layout — and dispatches once through `xir-vulkan`.
//!
//! Buffers travel as the same native-layout bytes the interpreter uses
//! (`xir_interp::spec`), so both engines print through one function. The backend's
//! typed SSBOs use the host layout (ArrayStride = host stride); a reflected stride that
//! differs is an internal error here rather than a silent misreading.

use xir_codegen::{CompileOptions, Compiled, Denorm, ErrorKind, OptLevel};
use xir_interp::ArgValue;
use xir_ir::diag::Diagnostic;
use xir_ir::source_map::SourceMap;
use xir_ir::{FuncId, Module, TypeData};

/// Every argument's final buffer bytes (`None` for value arguments).
pub type ArgBuffers = Vec<Option<Vec<u8>>>;

/// What the Vulkan engine needs beyond the module.
pub struct VulkanRun<'a> {
    /// Dispatch size (threads per axis).
    pub dispatch: [u32; 3],
    /// The warp size the caller's results assume (checked against the device when the
    /// kernel uses subgroup operations).
    pub warp_size: u32,
    /// Device, validation layer, timeout.
    pub options: &'a xir_vulkan::Options,
}

/// Why the Vulkan engine produced no results.
pub enum VulkanFailure {
    /// The backend refused the kernel (located diagnostics) — a user error.
    Compile(Vec<Diagnostic>),
    /// The backend's own output was invalid (located diagnostics) — an internal error.
    CompileInternal(Vec<Diagnostic>),
    /// A runtime or validation failure.
    Runtime(xir_vulkan::Error),
    /// A mismatch between reflection and the bound arguments (a bug).
    Internal(String),
}

/// Compiles and runs `kernel`; returns every argument's final buffer bytes (`None` for
/// values), the device used and the denormal mode the module was compiled with.
///
/// Subnormal floats: the kernel is compiled with `Denorm::Any` (no denormal execution
/// mode) and, when it uses floats and the device the plain one would run on preserves
/// subnormals of some width, once more with `Denorm::Preserve`; the preserving module
/// runs when that device reports `shaderDenormPreserveFloatN` for each float width it
/// uses, else the plain one runs, as before (an NVIDIA H200 reports it for f16 only and
/// flushes f32 subnormals; lavapipe reports none but keeps subnormals). Never
/// "unsupported" for this.
pub fn run(
    module: &Module,
    kernel: FuncId,
    map: Option<&SourceMap>,
    args: Vec<ArgValue>,
    cfg: &VulkanRun<'_>,
) -> Result<(ArgBuffers, xir_vulkan::DeviceInfo, Denorm), VulkanFailure> {
    let compile = |denorm| {
        let options = CompileOptions {
            opt: OptLevel::None,
            denorm,
        };
        xir_codegen::compile_kernel(module, kernel, &options).map_err(|e| {
            let d = e.to_diagnostics(module, map);
            if e.kind == ErrorKind::Internal {
                VulkanFailure::CompileInternal(d)
            } else {
                VulkanFailure::Compile(d)
            }
        })
    };
    let plain = compile(Denorm::Any)?;
    let (mut buffers, arg_binding) =
        bind(module, kernel, &plain, &args, cfg.dispatch).map_err(VulkanFailure::Internal)?;
    let r = &plain.reflection;
    let uses_subgroups = r
        .capabilities
        .iter()
        .any(|c| c.starts_with("GroupNonUniform"));
    let groups = std::array::from_fn(|i| cfg.dispatch[i].div_ceil(r.block_size[i]));
    let features_of = |c: &Compiled| -> Vec<String> {
        xir_codegen::features::names(c.reflection.feature_mask)
            .into_iter()
            .map(str::to_string)
            .collect()
    };
    let subgroup_size = uses_subgroups.then_some(cfg.warp_size);
    let plain_features = features_of(&plain);
    let uses_floats = plain_features
        .iter()
        .any(|f| f == "signed_zero_inf_nan_preserve");
    // The preserving variant, and the device to run it on, when that device has it.
    let mut preserving = None;
    if uses_floats && !groups.contains(&0) {
        let dev = xir_vulkan::choose_device(
            &vk_kernel(&plain, &plain_features, subgroup_size, groups),
            cfg.options,
        )
        .map_err(VulkanFailure::Runtime)?;
        // A device that preserves no width cannot run any preserving variant: do not
        // compile one (lavapipe, CI's device, reports none).
        let preserves_some = dev
            .float_controls
            .is_some_and(|fc| fc.denorm_preserve.contains(&true));
        if preserves_some {
            let p = compile(Denorm::Preserve)?;
            let p_features = features_of(&p);
            let there = xir_vulkan::Options {
                device: xir_vulkan::DeviceChoice::Index(dev.index),
                ..cfg.options.clone()
            };
            if xir_vulkan::choose_device(&vk_kernel(&p, &p_features, subgroup_size, groups), &there)
                .is_ok()
            {
                preserving = Some((p, p_features, there));
            }
        }
    }
    let (compiled, features, options, denorm) = match &preserving {
        Some((p, f, o)) => (p, f, o, Denorm::Preserve),
        None => (&plain, &plain_features, cfg.options, Denorm::Any),
    };
    let k = vk_kernel(compiled, features, subgroup_size, groups);
    let device = if groups.contains(&0) {
        // Nothing to dispatch: the buffers are unchanged (as in the interpreter).
        xir_vulkan::DeviceInfo {
            index: 0,
            name: "none (empty dispatch)".into(),
            kind: "other",
            api_version: String::new(),
            driver: String::new(),
            driver_version: String::new(),
            subgroup_size: 0,
            float_controls: None,
        }
    } else {
        xir_vulkan::run(&k, &mut buffers, options).map_err(VulkanFailure::Runtime)?
    };
    let mut out: Vec<Option<Vec<u8>>> = vec![None; args.len()];
    for (i, slot) in arg_binding.iter().enumerate() {
        if let (Some(pos), ArgValue::Buffer(host)) = (slot, &args[i]) {
            let mut data = std::mem::take(&mut buffers[*pos].data);
            data.truncate(host.len()); // word-storage padding
            out[i] = Some(data);
        }
    }
    Ok((out, device, denorm))
}

/// What `xir-vulkan` needs of a compiled kernel.
fn vk_kernel<'a>(
    c: &'a Compiled,
    features: &'a [String],
    subgroup_size: Option<u32>,
    groups: [u32; 3],
) -> xir_vulkan::Kernel<'a> {
    xir_vulkan::Kernel {
        spirv: &c.words,
        features,
        subgroup_size,
        groups,
        block_size: c.reflection.block_size,
    }
}

/// Descriptor set 0 from the reflection: the argument block and one buffer per buffer
/// argument; also, per kernel argument, its position in the returned list.
fn bind(
    module: &Module,
    kernel: FuncId,
    compiled: &Compiled,
    args: &[ArgValue],
    dispatch: [u32; 3],
) -> Result<(Vec<xir_vulkan::Buffer>, Vec<Option<usize>>), String> {
    let r = &compiled.reflection;
    let f = module.func(kernel);
    let mut block = vec![0u8; r.argument_block_size as usize];
    let put = |block: &mut Vec<u8>, off: u64, bytes: &[u8]| -> Result<(), String> {
        let off = off as usize;
        block
            .get_mut(off..off + bytes.len())
            .ok_or_else(|| {
                format!(
                    "argument block of {} bytes has no room at {off}",
                    r.argument_block_size
                )
            })?
            .copy_from_slice(bytes);
        Ok(())
    };
    let ds: Vec<u8> = dispatch.iter().flat_map(|d| d.to_le_bytes()).collect();
    put(&mut block, r.dispatch_size_offset, &ds)?;
    // kernel_id: 0, the one kernel of the dispatch (as in the interpreter).
    put(&mut block, r.kernel_id_offset, &0u32.to_le_bytes())?;
    let mut buffers = vec![xir_vulkan::Buffer {
        binding: 0,
        data: Vec::new(),
    }];
    let mut slots = vec![None; args.len()];
    if r.arguments.len() != args.len() {
        return Err(format!(
            "the reflection has {} arguments, the kernel {}",
            r.arguments.len(),
            args.len()
        ));
    }
    for (a, v) in r.arguments.iter().zip(args) {
        match (v, a.offset, a.binding) {
            (ArgValue::Value(bytes), Some(off), None) => {
                if a.size != Some(bytes.len() as u64) {
                    return Err(format!(
                        "argument {}: reflected size {:?}, host size {}",
                        a.index,
                        a.size,
                        bytes.len()
                    ));
                }
                put(&mut block, off, bytes)?;
            }
            (ArgValue::Buffer(bytes), None, Some(binding)) => {
                let ty = f.args[f.arg_order[a.index]].ty;
                if let TypeData::Buffer { elem: Some(e) } = module.types.get(ty) {
                    let host = module.types.size_of(*e);
                    if a.element_stride != Some(host) {
                        return Err(format!(
                            "argument {}: reflected element stride {:?}, host stride {host}",
                            a.index, a.element_stride
                        ));
                    }
                }
                let mut data = bytes.clone();
                if a.storage == Some("words") {
                    // The word-storage ABI addresses whole 32-bit words: a typed buffer is
                    // padded (its element count stays exact: the backend refuses
                    // buffer_size where padding would change it); a byte buffer reports
                    // 4 × words as its size, so it must be a whole number of words.
                    if a.element_stride == Some(1)
                        && matches!(ty_of(module, f, a.index), TypeData::Buffer { elem: None })
                        && data.len() % 4 != 0
                    {
                        return Err(format!(
                            "argument {}: a byte buffer of {} bytes; Vulkan binds byte buffers as whole 32-bit words (give a multiple of 4 bytes)",
                            a.index,
                            data.len()
                        ));
                    }
                    data.resize(data.len().div_ceil(4) * 4, 0);
                }
                slots[a.index] = Some(buffers.len());
                buffers.push(xir_vulkan::Buffer { binding, data });
            }
            _ => {
                return Err(format!(
                    "argument {} ({}) does not match its reflection (role {})",
                    a.index, a.ty, a.role
                ));
            }
        }
    }
    buffers[0].data = block;
    Ok((buffers, slots))
}

/// The type of kernel argument `index`.
fn ty_of<'m>(module: &'m Module, f: &xir_ir::Function, index: usize) -> &'m TypeData {
    module.types.get(f.args[f.arg_order[index]].ty)
}

#[cfg(test)]
mod tests {
    /// Every required-feature name the backend can write is one the runtime checks (an
    /// unknown one would make every kernel needing it unsupported).
    #[test]
    fn the_runtime_knows_every_feature_the_backend_names() {
        let backend: Vec<&str> = xir_codegen::features::FEATURES
            .iter()
            .map(|f| f.1)
            .collect();
        let mut runtime = xir_vulkan::KNOWN_FEATURES.to_vec();
        let mut sorted = backend.clone();
        sorted.sort_unstable();
        runtime.sort_unstable();
        assert_eq!(sorted, runtime);
    }
}
