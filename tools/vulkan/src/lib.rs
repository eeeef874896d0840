//! # xir-vulkan — one compute dispatch through Vulkan, for `xir-run --engine=vulkan`
//!
//! A deliberately small runtime over [`ash`] (which loads `libvulkan.so.1` at run time):
//!
//! ```text
//! Kernel (SPIR-V words, feature names, groups) + storage buffers (binding, bytes)
//!   ─▶ instance (optionally with VK_LAYER_KHRONOS_validation and a message sink)
//!   ─▶ device chosen by type ([`DeviceChoice`]), checked against the kernel's
//!      required features, created with exactly those enabled
//!   ─▶ host-visible coherent buffers, one descriptor set (set 0), one compute pipeline,
//!      one dispatch, a fence ─▶ buffers read back in place
//! ```
//!
//! Outcomes ([`Error`]): a missing loader, driver, device, layer or feature is
//! [`Error::Unsupported`]; any message of the validation layer (warning or error)
//! fails the run with [`Error::Validation`]; a failed Vulkan call is [`Error::Failed`].
//! Nothing here assumes a particular driver: devices are chosen by
//! `VkPhysicalDeviceType`.
//!
//! Runs are serialised by a process-wide lock: two Vulkan runs in parallel threads of
//! one process were once seen to hang (docs/codegen.md), and the corpus runner is
//! multi-threaded.
//!
//! The crate is the only place in the workspace that allows `unsafe`: every Vulkan call
//! is an FFI call. Each `unsafe` block is a call with arguments built just before it
//! from live handles owned by the same function's RAII guards.

#![allow(unsafe_code)]
#![warn(missing_docs)]

mod device;
mod dispatch;
mod features;
mod instance;

use std::sync::Mutex;
use std::time::Duration;

pub use features::KNOWN_FEATURES;

/// Which physical device to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceChoice {
    /// The best-ranked device that supports the kernel: discrete GPU, integrated GPU,
    /// virtual GPU, CPU, other; ties by enumeration order.
    Auto,
    /// A CPU implementation (`VK_PHYSICAL_DEVICE_TYPE_CPU`, e.g. lavapipe).
    Cpu,
    /// A GPU (discrete, integrated or virtual).
    Gpu,
    /// The device at this position in `vkEnumeratePhysicalDevices` order.
    Index(usize),
}

impl std::str::FromStr for DeviceChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(DeviceChoice::Auto),
            "cpu" => Ok(DeviceChoice::Cpu),
            "gpu" => Ok(DeviceChoice::Gpu),
            _ => s.parse::<usize>().map(DeviceChoice::Index).map_err(|_| {
                format!("'{s}' is not a device: give auto, cpu, gpu or a device index")
            }),
        }
    }
}

/// Run options.
#[derive(Clone, Debug)]
pub struct Options {
    /// The device to use.
    pub device: DeviceChoice,
    /// Enable `VK_LAYER_KHRONOS_validation`; any warning or error it reports fails the run.
    pub validation: bool,
    /// Longest wait for the dispatch to finish.
    pub timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            device: DeviceChoice::Auto,
            validation: false,
            timeout: Duration::from_secs(60),
        }
    }
}

/// The compute kernel to dispatch.
#[derive(Clone, Debug)]
pub struct Kernel<'a> {
    /// The SPIR-V module (entry point `main`, GLCompute).
    pub spirv: &'a [u32],
    /// Required device features by name ([`KNOWN_FEATURES`]; the reflection's
    /// `required_features.names`).
    pub features: &'a [String],
    /// The subgroup size the kernel's results assume, when it uses subgroup operations.
    pub subgroup_size: Option<u32>,
    /// Workgroups per axis.
    pub groups: [u32; 3],
    /// The kernel's LocalSize (checked against the device limits).
    pub block_size: [u32; 3],
}

/// One storage buffer of descriptor set 0; `data` is uploaded before and replaced by
/// the buffer's contents after the dispatch.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// The binding number.
    pub binding: u32,
    /// Contents (at least one byte: Vulkan has no empty buffers).
    pub data: Vec<u8>,
}

/// The device a run used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Position in enumeration order.
    pub index: usize,
    /// `deviceName`.
    pub name: String,
    /// `cpu`, `discrete-gpu`, `integrated-gpu`, `virtual-gpu` or `other`.
    pub kind: &'static str,
    /// Vulkan API version the device reports (`1.3.230`).
    pub api_version: String,
    /// The driver's name and information string (`llvmpipe`, `Mesa 22.3.6 (LLVM 15.0.6)`).
    pub driver: String,
    /// `driverVersion`, decoded as the vendor encodes it (NVIDIA: 10.8.8.6 bits).
    pub driver_version: String,
    /// The subgroup size the pipeline runs with.
    pub subgroup_size: u32,
    /// The float controls the device reports (`None` when no device was asked).
    pub float_controls: Option<FloatControls>,
}

/// The Vulkan 1.2 float controls of a device, per width: f16, f32, f64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FloatControls {
    /// `shaderDenormPreserveFloat16/32/64`.
    pub denorm_preserve: [bool; 3],
    /// `shaderDenormFlushToZeroFloat16/32/64`.
    pub denorm_flush_to_zero: [bool; 3],
}

impl std::fmt::Display for FloatControls {
    /// `denormPreserve f16 f64, denormFlushToZero none`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let widths = |flags: [bool; 3]| -> String {
            let w: Vec<&str> = ["f16", "f32", "f64"]
                .into_iter()
                .zip(flags)
                .filter_map(|(w, on)| on.then_some(w))
                .collect();
            if w.is_empty() {
                "none".into()
            } else {
                w.join(" ")
            }
        };
        write!(
            f,
            "denormPreserve {}, denormFlushToZero {}",
            widths(self.denorm_preserve),
            widths(self.denorm_flush_to_zero)
        )
    }
}

impl std::fmt::Display for DeviceInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "device {}: {} ({}), Vulkan {}, driver {} (version {}), subgroup size {}",
            self.index,
            self.name,
            self.kind,
            self.api_version,
            self.driver,
            self.driver_version,
            self.subgroup_size,
        )?;
        match &self.float_controls {
            Some(fc) => write!(f, "; {fc}"),
            None => Ok(()),
        }
    }
}

/// Why a run did not produce results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// No loader, no driver, no suitable device, a missing feature or layer.
    Unsupported(String),
    /// The validation layer reported these messages.
    Validation(Vec<String>),
    /// A Vulkan call failed (or the dispatch did not finish in time).
    Failed(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Unsupported(m) => write!(f, "{m}"),
            Error::Validation(ms) => {
                write!(
                    f,
                    "the Vulkan validation layer reported {} message(s):",
                    ms.len()
                )?;
                for m in ms {
                    write!(f, "\n  {m}")?;
                }
                Ok(())
            }
            Error::Failed(m) => write!(f, "{m}"),
        }
    }
}

/// `Error::Failed` for a Vulkan call that returned `r`.
pub(crate) fn failed(what: &str, r: ash::vk::Result) -> Error {
    Error::Failed(format!("{what} failed: {r:?}"))
}

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Dispatches `kernel` once over `buffers` and reads them back (see the crate docs).
pub fn run(
    kernel: &Kernel<'_>,
    buffers: &mut [Buffer],
    opts: &Options,
) -> Result<DeviceInfo, Error> {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(b) = buffers.iter().find(|b| b.data.is_empty()) {
        return Err(Error::Unsupported(format!(
            "binding {} is empty; Vulkan has no zero-sized buffers",
            b.binding
        )));
    }
    let inst = instance::Instance::new(opts.validation)?;
    let mut abandon = false;
    let result = (|| {
        let chosen = device::choose(&inst, opts.device, kernel)?;
        dispatch::run(&inst, &chosen, kernel, buffers, opts.timeout).map_err(|(e, a)| {
            abandon = a;
            e
        })?;
        Ok(chosen.info)
    })();
    let messages = if abandon {
        inst.abandon()
    } else {
        inst.finish()
    };
    match result {
        // A validation message outranks every other outcome: it means the run was invalid.
        _ if !messages.is_empty() => Err(Error::Validation(messages)),
        r => r,
    }
}

/// The device [`run`] would dispatch `kernel` on (the same choice and checks, no
/// dispatch; no validation layer): lets a caller find out whether a variant of the kernel
/// with more requirements runs on the device the plain one would use.
pub fn choose_device(kernel: &Kernel<'_>, opts: &Options) -> Result<DeviceInfo, Error> {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let inst = instance::Instance::new(false)?;
    let chosen = device::choose(&inst, opts.device, kernel).map(|c| c.info);
    inst.finish();
    chosen
}

/// Every physical device with its properties (for `--device` diagnostics and docs).
pub fn devices() -> Result<Vec<DeviceInfo>, Error> {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let inst = instance::Instance::new(false)?;
    let list = device::describe_all(&inst);
    inst.finish();
    list
}

/// The device `opts.device` tries first (the best-ranked for `auto`), with its natural
/// subgroup size: what a caller whose results depend on the subgroup size (the
/// interpreter's warp size) must assume to compare with a run there.
pub fn preferred_device(opts: &Options) -> Result<DeviceInfo, Error> {
    let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let inst = instance::Instance::new(false)?;
    let info = device::preferred(&inst, opts.device);
    inst.finish();
    info
}
