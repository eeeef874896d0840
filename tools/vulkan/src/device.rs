//! Physical-device choice: by `VkPhysicalDeviceType` (never by name), then by the
//! kernel's requirements — Vulkan 1.2, a compute queue, the required features, the
//! subgroup size its results assume, and the workgroup limits.

use crate::features::{self, Enable, Reported};
use crate::instance::{Instance, version_text};
use crate::{DeviceChoice, DeviceInfo, Error, FloatControls, Kernel, failed};
use ash::vk;
use std::ffi::CStr;

/// A device that can run the kernel, with what to enable.
pub struct Chosen {
    pub physical: vk::PhysicalDevice,
    pub info: DeviceInfo,
    pub api_version: u32,
    pub queue_family: u32,
    pub enable: Enable,
    pub extensions: Vec<&'static CStr>,
    /// `Some(n)`: the pipeline must ask for subgroup size `n` (subgroup size control).
    pub required_subgroup_size: Option<u32>,
    pub memory: vk::PhysicalDeviceMemoryProperties,
    pub max_storage_buffer_range: u32,
}

struct Candidate {
    index: usize,
    physical: vk::PhysicalDevice,
    props: vk::PhysicalDeviceProperties,
    info: DeviceInfo,
    rank: u8,
}

fn kind_of(t: vk::PhysicalDeviceType) -> (&'static str, u8) {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => ("discrete-gpu", 0),
        vk::PhysicalDeviceType::INTEGRATED_GPU => ("integrated-gpu", 1),
        vk::PhysicalDeviceType::VIRTUAL_GPU => ("virtual-gpu", 2),
        vk::PhysicalDeviceType::CPU => ("cpu", 3),
        _ => ("other", 4),
    }
}

fn driver_version_text(vendor: u32, v: u32) -> String {
    if vendor == 0x10de {
        // NVIDIA packs 10.8.8.6 bits.
        format!(
            "{}.{}.{}.{}",
            v >> 22,
            (v >> 14) & 0xff,
            (v >> 6) & 0xff,
            v & 0x3f
        )
    } else {
        version_text(v)
    }
}

fn candidates(inst: &Instance) -> Result<Vec<Candidate>, Error> {
    // SAFETY: queries on a live instance.
    let pds = unsafe { inst.raw.enumerate_physical_devices() }
        .map_err(|r| failed("vkEnumeratePhysicalDevices", r))?;
    let mut out = Vec::new();
    for (index, pd) in pds.into_iter().enumerate() {
        // SAFETY: queries on a live instance; the chain's structs outlive the call, and
        // Vulkan 1.2 properties are only asked of 1.2 devices.
        let base = unsafe { inst.raw.get_physical_device_properties(pd) };
        let mut v12 = vk::PhysicalDeviceVulkan12Properties::default();
        let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
        let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default()
            .push_next(&mut sub)
            .push_next(&mut fc);
        if base.api_version >= vk::API_VERSION_1_2 {
            p2 = p2.push_next(&mut v12);
        }
        unsafe { inst.raw.get_physical_device_properties2(pd, &mut p2) };
        let props = p2.properties;
        let (kind, rank) = kind_of(props.device_type);
        let cstr = |r: Result<&CStr, _>| {
            r.map(|c: &CStr| c.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let driver = format!(
            "{} {}",
            cstr(v12.driver_name_as_c_str()),
            cstr(v12.driver_info_as_c_str())
        );
        out.push(Candidate {
            index,
            physical: pd,
            info: DeviceInfo {
                index,
                name: cstr(props.device_name_as_c_str()),
                kind,
                api_version: version_text(props.api_version),
                driver: driver.trim().to_string(),
                driver_version: driver_version_text(props.vendor_id, props.driver_version),
                subgroup_size: sub.subgroup_size,
                float_controls: Some(float_controls(&fc)),
            },
            props,
            rank,
        });
    }
    Ok(out)
}

/// Every device, described.
pub fn describe_all(inst: &Instance) -> Result<Vec<DeviceInfo>, Error> {
    Ok(candidates(inst)?.into_iter().map(|c| c.info).collect())
}

fn has_ext(exts: &[vk::ExtensionProperties], name: &CStr) -> bool {
    exts.iter().any(|e| e.extension_name_as_c_str() == Ok(name))
}

/// Checks one device against the kernel; `Err` says why it cannot run it.
fn check(inst: &Instance, c: &Candidate, k: &Kernel<'_>) -> Result<Chosen, String> {
    let pd = c.physical;
    let api = c.props.api_version;
    if api < vk::API_VERSION_1_2 {
        return Err(format!(
            "Vulkan {} (SPIR-V 1.5 needs 1.2)",
            version_text(api)
        ));
    }
    // SAFETY: queries on a live instance and a device it enumerated.
    let (families, exts, memory) = unsafe {
        (
            inst.raw.get_physical_device_queue_family_properties(pd),
            inst.raw
                .enumerate_device_extension_properties(pd)
                .map_err(|r| format!("vkEnumerateDeviceExtensionProperties: {r:?}"))?,
            inst.raw.get_physical_device_memory_properties(pd),
        )
    };
    let queue_family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or("no compute queue")? as u32;
    let has_float = has_ext(&exts, ash::ext::shader_atomic_float::NAME);
    let has_float2 = has_ext(&exts, ash::ext::shader_atomic_float2::NAME);
    let has_ssc_ext = has_ext(&exts, ash::ext::subgroup_size_control::NAME);

    // Features and subgroup properties in one chain each.
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default();
    let mut fa = vk::PhysicalDeviceShaderAtomicFloatFeaturesEXT::default();
    let mut fa2 = vk::PhysicalDeviceShaderAtomicFloat2FeaturesEXT::default();
    let mut ssc_f = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut v11)
        .push_next(&mut v12);
    if has_float {
        f2 = f2.push_next(&mut fa);
    }
    if has_float2 {
        f2 = f2.push_next(&mut fa2);
    }
    let ssc_available = api >= vk::API_VERSION_1_3 || has_ssc_ext;
    if ssc_available {
        f2 = f2.push_next(&mut ssc_f);
    }
    // SAFETY: `f2` chains structs that outlive the call.
    unsafe { inst.raw.get_physical_device_features2(pd, &mut f2) };
    let core = f2.features;
    let mut sub = vk::PhysicalDeviceSubgroupProperties::default();
    let mut ssc_p = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut sub)
        .push_next(&mut fc);
    if ssc_available {
        p2 = p2.push_next(&mut ssc_p);
    }
    // SAFETY: as above.
    unsafe { inst.raw.get_physical_device_properties2(pd, &mut p2) };
    let limits = p2.properties.limits;

    // Copies without the chain pointers of the queries.
    let mut reported = Reported {
        core,
        v11,
        v12,
        float_atomics: has_float.then_some(fa),
        float_atomics2: has_float2.then_some(fa2),
        subgroup_ops: sub.supported_operations,
        subgroup_stages: sub.supported_stages,
        signed_zero_inf_nan: [
            fc.shader_signed_zero_inf_nan_preserve_float16 == vk::TRUE,
            fc.shader_signed_zero_inf_nan_preserve_float32 == vk::TRUE,
            fc.shader_signed_zero_inf_nan_preserve_float64 == vk::TRUE,
        ],
        denorm_preserve: float_controls(&fc).denorm_preserve,
    };
    reported.v11.p_next = std::ptr::null_mut();
    reported.v12.p_next = std::ptr::null_mut();
    if let Some(f) = &mut reported.float_atomics {
        f.p_next = std::ptr::null_mut();
    }
    if let Some(f) = &mut reported.float_atomics2 {
        f.p_next = std::ptr::null_mut();
    }

    let mut enable = Enable::default();
    for name in k.features {
        features::require(name, &reported, &mut enable)?;
    }
    features::require_float_controls(k.features, &reported)?;
    features::enable_float_exchange(&reported, &mut enable);

    // Subgroup size: the natural one, or one subgroup size control can require.
    let mut required_subgroup_size = None;
    let mut subgroup_size = sub.subgroup_size;
    if let Some(want) = k.subgroup_size
        && want != sub.subgroup_size
    {
        let can = ssc_f.subgroup_size_control == vk::TRUE
            && ssc_p
                .required_subgroup_size_stages
                .contains(vk::ShaderStageFlags::COMPUTE)
            && (ssc_p.min_subgroup_size..=ssc_p.max_subgroup_size).contains(&want);
        if !can {
            return Err(format!(
                "the kernel's results assume a subgroup (warp) size of {want}; the device's is {} (sizes {}..{} with subgroup size control); run with --warp-size {}",
                sub.subgroup_size,
                ssc_p.min_subgroup_size,
                ssc_p.max_subgroup_size,
                sub.subgroup_size
            ));
        }
        required_subgroup_size = Some(want);
        subgroup_size = want;
    }

    let threads: u64 = k.block_size.iter().map(|&x| x as u64).product();
    if threads > limits.max_compute_work_group_invocations as u64
        || (0..3).any(|i| k.block_size[i] > limits.max_compute_work_group_size[i])
    {
        return Err(format!(
            "block size {:?} exceeds the device's workgroup limits",
            k.block_size
        ));
    }
    if (0..3).any(|i| k.groups[i] > limits.max_compute_work_group_count[i]) {
        return Err(format!(
            "{:?} workgroups exceed the device's limit {:?}",
            k.groups, limits.max_compute_work_group_count
        ));
    }

    let mut extensions = Vec::new();
    if enable.float_atomics.is_some() {
        extensions.push(ash::ext::shader_atomic_float::NAME);
    }
    if enable.float_atomics2.is_some() {
        extensions.push(ash::ext::shader_atomic_float2::NAME);
    }
    if required_subgroup_size.is_some() && api < vk::API_VERSION_1_3 {
        extensions.push(ash::ext::subgroup_size_control::NAME);
    }
    let mut info = c.info.clone();
    info.subgroup_size = subgroup_size;
    Ok(Chosen {
        physical: pd,
        info,
        api_version: api,
        queue_family,
        enable,
        extensions,
        required_subgroup_size,
        memory,
        max_storage_buffer_range: limits.max_storage_buffer_range,
    })
}

/// The candidates `choice` names, best first (ranked by type for `auto`).
fn picked(all: &mut [Candidate], choice: DeviceChoice) -> Result<Vec<&Candidate>, Error> {
    if all.is_empty() {
        return Err(Error::Unsupported("no Vulkan physical device".into()));
    }
    let listing = |all: &[Candidate]| {
        all.iter()
            .map(|c| format!("{} {} ({})", c.index, c.info.name, c.info.kind))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if choice == DeviceChoice::Auto {
        all.sort_by_key(|c| (c.rank, c.index));
    }
    let all: &[Candidate] = all;
    let picked: Vec<&Candidate> = match choice {
        DeviceChoice::Auto => all.iter().collect(),
        DeviceChoice::Cpu => all.iter().filter(|c| c.rank == 3).collect(),
        DeviceChoice::Gpu => all.iter().filter(|c| c.rank <= 2).collect(),
        DeviceChoice::Index(i) => all.iter().filter(|c| c.index == i).collect(),
    };
    if picked.is_empty() {
        return Err(Error::Unsupported(format!(
            "no Vulkan device matches --device={}; devices: {}",
            match choice {
                DeviceChoice::Auto => "auto".to_string(),
                DeviceChoice::Cpu => "cpu".into(),
                DeviceChoice::Gpu => "gpu".into(),
                DeviceChoice::Index(i) => i.to_string(),
            },
            listing(all)
        )));
    }
    Ok(picked)
}

/// The device `choice` tries first (the best-ranked for `auto`), described; a kernel
/// without special requirements runs there.
pub fn preferred(inst: &Instance, choice: DeviceChoice) -> Result<DeviceInfo, Error> {
    let mut all = candidates(inst)?;
    Ok(picked(&mut all, choice)?[0].info.clone())
}

/// The device to run `k` on.
pub fn choose(inst: &Instance, choice: DeviceChoice, k: &Kernel<'_>) -> Result<Chosen, Error> {
    let mut all = candidates(inst)?;
    let picked = picked(&mut all, choice)?;
    let mut reasons = Vec::new();
    for c in picked {
        match check(inst, c, k) {
            Ok(chosen) => return Ok(chosen),
            Err(why) => reasons.push(format!("{} ({}): {why}", c.info.name, c.info.kind)),
        }
    }
    Err(Error::Unsupported(format!(
        "no Vulkan device can run this kernel: {}",
        reasons.join("; ")
    )))
}

/// The float controls `fc` reports.
fn float_controls(fc: &vk::PhysicalDeviceFloatControlsProperties<'_>) -> FloatControls {
    let on = |b: vk::Bool32| b == vk::TRUE;
    FloatControls {
        denorm_preserve: [
            on(fc.shader_denorm_preserve_float16),
            on(fc.shader_denorm_preserve_float32),
            on(fc.shader_denorm_preserve_float64),
        ],
        denorm_flush_to_zero: [
            on(fc.shader_denorm_flush_to_zero_float16),
            on(fc.shader_denorm_flush_to_zero_float32),
            on(fc.shader_denorm_flush_to_zero_float64),
        ],
    }
}
