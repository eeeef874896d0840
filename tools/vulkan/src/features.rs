//! Required-feature names (the reflection's `required_features.names`, defined by
//! `xir_codegen::features`) → what a physical device must report and what the logical
//! device enables. A name this table does not know makes the run unsupported rather
//! than guessed.

use ash::vk;

/// Every feature name this runtime can check and enable.
pub const KNOWN_FEATURES: &[&str] = &[
    "shader_float64",
    "shader_int64",
    "shader_int16",
    "shader_float16",
    "shader_int8",
    "storage_buffer_16bit_access",
    "storage_buffer_8bit_access",
    "shader_buffer_int64_atomics",
    "subgroup_basic",
    "subgroup_vote",
    "subgroup_arithmetic",
    "subgroup_ballot",
    "subgroup_shuffle",
    "shader_float32_atomic_add",
    "shader_float64_atomic_add",
    "shader_float32_atomic_min_max",
    "shader_float64_atomic_min_max",
    "signed_zero_inf_nan_preserve",
    "denorm_preserve_float16",
    "denorm_preserve_float32",
    "denorm_preserve_float64",
];

/// What a physical device reports (queried once per device).
#[derive(Default, Clone)]
pub struct Reported {
    pub core: vk::PhysicalDeviceFeatures,
    pub v11: vk::PhysicalDeviceVulkan11Features<'static>,
    pub v12: vk::PhysicalDeviceVulkan12Features<'static>,
    pub float_atomics: Option<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT<'static>>,
    pub float_atomics2: Option<vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT<'static>>,
    pub subgroup_ops: vk::SubgroupFeatureFlags,
    pub subgroup_stages: vk::ShaderStageFlags,
    /// shaderSignedZeroInfNanPreserveFloat16/32/64 (Vulkan 1.2 float controls).
    pub signed_zero_inf_nan: [bool; 3],
    /// shaderDenormPreserveFloat16/32/64 (Vulkan 1.2 float controls).
    pub denorm_preserve: [bool; 3],
}

/// `signed_zero_inf_nan_preserve` for the float widths of `features` (f32 always).
pub fn require_float_controls(features: &[String], dev: &Reported) -> Result<(), String> {
    if !features.iter().any(|f| f == "signed_zero_inf_nan_preserve") {
        return Ok(());
    }
    for (i, (width, with)) in [(16, "shader_float16"), (32, ""), (64, "shader_float64")]
        .into_iter()
        .enumerate()
    {
        let used = with.is_empty() || features.iter().any(|f| f == with);
        if used && !dev.signed_zero_inf_nan[i] {
            return Err(format!(
                "the device lacks shaderSignedZeroInfNanPreserveFloat{width} (needed for signed_zero_inf_nan_preserve)"
            ));
        }
    }
    Ok(())
}

/// What to enable on the logical device.
#[derive(Default, Clone)]
pub struct Enable {
    pub core: vk::PhysicalDeviceFeatures,
    pub v11: vk::PhysicalDeviceVulkan11Features<'static>,
    pub v12: vk::PhysicalDeviceVulkan12Features<'static>,
    pub float_atomics: Option<vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT<'static>>,
    pub float_atomics2: Option<vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT<'static>>,
}

fn on(b: vk::Bool32) -> bool {
    b == vk::TRUE
}

/// Adds `name` to `en`; `Err` says what the device lacks.
pub fn require(name: &str, dev: &Reported, en: &mut Enable) -> Result<(), String> {
    let lacks = |what: &str| Err(format!("the device lacks {what} (needed for {name})"));
    let subgroup = |op: vk::SubgroupFeatureFlags, what: &str| {
        if !dev.subgroup_stages.contains(vk::ShaderStageFlags::COMPUTE) {
            return Err(format!(
                "the device has no subgroup operations in compute shaders (needed for {name})"
            ));
        }
        if !dev.subgroup_ops.contains(op) {
            return Err(format!(
                "the device lacks subgroup {what} operations (needed for {name})"
            ));
        }
        Ok(())
    };
    match name {
        // A property, checked by `require_float_controls`; nothing to enable.
        "signed_zero_inf_nan_preserve" => {}
        // Properties: nothing to enable. The denormal modes of different widths need no
        // independence check (denormBehaviorIndependence): the backend declares the same
        // mode, DenormPreserve, for every width it declares one for.
        "denorm_preserve_float16" if dev.denorm_preserve[0] => {}
        "denorm_preserve_float32" if dev.denorm_preserve[1] => {}
        "denorm_preserve_float64" if dev.denorm_preserve[2] => {}
        "denorm_preserve_float16" => return lacks("shaderDenormPreserveFloat16"),
        "denorm_preserve_float32" => return lacks("shaderDenormPreserveFloat32"),
        "denorm_preserve_float64" => return lacks("shaderDenormPreserveFloat64"),
        "shader_float64" if on(dev.core.shader_float64) => en.core.shader_float64 = vk::TRUE,
        "shader_float64" => return lacks("shaderFloat64"),
        "shader_int64" if on(dev.core.shader_int64) => en.core.shader_int64 = vk::TRUE,
        "shader_int64" => return lacks("shaderInt64"),
        "shader_int16" if on(dev.core.shader_int16) => en.core.shader_int16 = vk::TRUE,
        "shader_int16" => return lacks("shaderInt16"),
        "shader_float16" if on(dev.v12.shader_float16) => en.v12.shader_float16 = vk::TRUE,
        "shader_float16" => return lacks("shaderFloat16"),
        "shader_int8" if on(dev.v12.shader_int8) => en.v12.shader_int8 = vk::TRUE,
        "shader_int8" => return lacks("shaderInt8"),
        "storage_buffer_16bit_access" if on(dev.v11.storage_buffer16_bit_access) => {
            en.v11.storage_buffer16_bit_access = vk::TRUE
        }
        "storage_buffer_16bit_access" => return lacks("storageBuffer16BitAccess"),
        "storage_buffer_8bit_access" if on(dev.v12.storage_buffer8_bit_access) => {
            en.v12.storage_buffer8_bit_access = vk::TRUE
        }
        "storage_buffer_8bit_access" => return lacks("storageBuffer8BitAccess"),
        "shader_buffer_int64_atomics" if on(dev.v12.shader_buffer_int64_atomics) => {
            en.v12.shader_buffer_int64_atomics = vk::TRUE;
            en.v12.shader_shared_int64_atomics = dev.v12.shader_shared_int64_atomics;
        }
        "shader_buffer_int64_atomics" => return lacks("shaderBufferInt64Atomics"),
        "subgroup_basic" => subgroup(vk::SubgroupFeatureFlags::BASIC, "basic")?,
        "subgroup_vote" => subgroup(vk::SubgroupFeatureFlags::VOTE, "vote")?,
        "subgroup_arithmetic" => subgroup(vk::SubgroupFeatureFlags::ARITHMETIC, "arithmetic")?,
        "subgroup_ballot" => subgroup(vk::SubgroupFeatureFlags::BALLOT, "ballot")?,
        "subgroup_shuffle" => subgroup(vk::SubgroupFeatureFlags::SHUFFLE, "shuffle")?,
        "shader_float32_atomic_add" | "shader_float64_atomic_add" => {
            let Some(f) = dev.float_atomics else {
                return lacks("VK_EXT_shader_atomic_float");
            };
            let ok = if name == "shader_float32_atomic_add" {
                on(f.shader_buffer_float32_atomic_add)
            } else {
                on(f.shader_buffer_float64_atomic_add)
            };
            if !ok {
                return lacks(if name == "shader_float32_atomic_add" {
                    "shaderBufferFloat32AtomicAdd"
                } else {
                    "shaderBufferFloat64AtomicAdd"
                });
            }
            // The capability covers buffer and workgroup memory and exchange too: enable
            // every member the device has.
            en.float_atomics = Some(f);
        }
        "shader_float32_atomic_min_max" | "shader_float64_atomic_min_max" => {
            let Some(f) = dev.float_atomics2 else {
                return lacks("VK_EXT_shader_atomic_float2");
            };
            let ok = if name == "shader_float32_atomic_min_max" {
                on(f.shader_buffer_float32_atomic_min_max)
            } else {
                on(f.shader_buffer_float64_atomic_min_max)
            };
            if !ok {
                return lacks(if name == "shader_float32_atomic_min_max" {
                    "shaderBufferFloat32AtomicMinMax"
                } else {
                    "shaderBufferFloat64AtomicMinMax"
                });
            }
            en.float_atomics2 = Some(f);
            // Atomic min/max of floats also names the float-atomic extension's features.
            if en.float_atomics.is_none() {
                en.float_atomics = dev.float_atomics;
            }
        }
        other => {
            return Err(format!(
                "the kernel needs device feature '{other}', which this runtime does not know"
            ));
        }
    }
    Ok(())
}

/// Float32 exchange and atomic load/store on floats need `shaderBufferFloat32Atomics`;
/// the SPIR-V capability for them is the same as for plain integer atomics, so the
/// feature is enabled whenever the device has it (harmless otherwise).
pub fn enable_float_exchange(dev: &Reported, en: &mut Enable) {
    if let Some(f) = dev.float_atomics
        && (on(f.shader_buffer_float32_atomics) || on(f.shader_shared_float32_atomics))
        && en.float_atomics.is_none()
    {
        en.float_atomics = Some(f);
    }
}
