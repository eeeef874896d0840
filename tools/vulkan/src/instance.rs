//! The Vulkan instance: loading `libvulkan`, the API version, and — with validation on
//! — `VK_LAYER_KHRONOS_validation` with a `VK_EXT_debug_utils` messenger whose
//! warnings and errors are collected (also during instance creation and destruction).

use crate::{Error, failed};
use ash::vk;
use std::ffi::{CStr, c_void};
use std::sync::Mutex;

/// The layer a validated run needs.
pub const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// An instance and its message sink. [`Instance::finish`] destroys it and returns the
/// messages; dropping it without `finish` (a panic) destroys it too.
pub struct Instance {
    pub entry: ash::Entry,
    pub raw: ash::Instance,
    /// The instance API version requested (1.2 or 1.3).
    pub api_version: u32,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    // Boxed so its address, given to the driver as user data, is stable.
    sink: Box<Mutex<Vec<String>>>,
    leaked: bool,
}

unsafe extern "system" fn collect(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes the callback data it documents, valid for this call, and
    // the user data we registered: a live `Mutex<Vec<String>>` owned by the Instance.
    let (text, sink) = unsafe {
        let text = data
            .as_ref()
            .and_then(|d| d.message_as_c_str())
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        (text, &*(user as *const Mutex<Vec<String>>))
    };
    let level = if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        "error"
    } else {
        "warning"
    };
    let kind = if types.contains(vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION) {
        "validation"
    } else if types.contains(vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE) {
        "performance"
    } else {
        "general"
    };
    if let Ok(mut v) = sink.lock() {
        v.push(format!("[{kind} {level}] {text}"));
    }
    vk::FALSE
}

fn messenger_info(sink: &Mutex<Vec<String>>) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(collect))
        .user_data(sink as *const Mutex<Vec<String>> as *mut c_void)
}

impl Instance {
    /// Loads Vulkan and creates an instance (API 1.3 when the loader has it, else 1.2).
    pub fn new(validation: bool) -> Result<Instance, Error> {
        // SAFETY: loading the system's libvulkan; ash resolves the entry points.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            Error::Unsupported(format!(
                "no Vulkan loader: {e} (install libvulkan1 and a driver such as mesa-vulkan-drivers)"
            ))
        })?;
        // SAFETY: a plain query on a loaded entry.
        let loader = unsafe { entry.try_enumerate_instance_version() }
            .map_err(|r| failed("vkEnumerateInstanceVersion", r))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader < vk::API_VERSION_1_2 {
            return Err(Error::Unsupported(format!(
                "the Vulkan loader supports API {}; SPIR-V 1.5 needs Vulkan 1.2",
                version_text(loader)
            )));
        }
        let api_version = loader.min(vk::API_VERSION_1_3);
        let sink: Box<Mutex<Vec<String>>> = Box::default();
        let mut layers: Vec<*const std::ffi::c_char> = Vec::new();
        let mut exts: Vec<*const std::ffi::c_char> = Vec::new();
        if validation {
            // SAFETY: a plain query on a loaded entry.
            let available = unsafe { entry.enumerate_instance_layer_properties() }
                .map_err(|r| failed("vkEnumerateInstanceLayerProperties", r))?;
            if !available
                .iter()
                .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER))
            {
                return Err(Error::Unsupported(
                    "validation was asked for but VK_LAYER_KHRONOS_validation is not installed (Debian: vulkan-validationlayers)".into(),
                ));
            }
            layers.push(VALIDATION_LAYER.as_ptr());
            exts.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"xir-run")
            .engine_name(c"xir")
            .api_version(api_version);
        let mut during_create = messenger_info(&sink);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&exts);
        if validation {
            info = info.push_next(&mut during_create);
        }
        // SAFETY: `info` and everything it points to live until the call returns.
        let raw = unsafe { entry.create_instance(&info, None) }.map_err(|r| match r {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => Error::Unsupported(
                "no Vulkan driver (ERROR_INCOMPATIBLE_DRIVER): install one, e.g. mesa-vulkan-drivers (lavapipe)".into(),
            ),
            vk::Result::ERROR_LAYER_NOT_PRESENT | vk::Result::ERROR_EXTENSION_NOT_PRESENT => {
                Error::Unsupported(format!("vkCreateInstance: {r:?}"))
            }
            r => failed("vkCreateInstance", r),
        })?;
        let mut inst = Instance {
            entry,
            raw,
            api_version,
            messenger: None,
            sink,
            leaked: false,
        };
        if validation {
            let du = ash::ext::debug_utils::Instance::new(&inst.entry, &inst.raw);
            let mi = messenger_info(&inst.sink);
            // SAFETY: the instance is live and `mi` points to the boxed sink it owns.
            let m = unsafe { du.create_debug_utils_messenger(&mi, None) }
                .map_err(|r| failed("vkCreateDebugUtilsMessengerEXT", r))?;
            inst.messenger = Some((du, m));
        }
        Ok(inst)
    }

    /// Destroys the instance and returns the validation messages collected.
    pub fn finish(mut self) -> Vec<String> {
        self.destroy();
        std::mem::take(&mut *self.sink.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Leaves the instance alive for the rest of the process (work may still be running
    /// on a device of it) and returns the messages so far.
    pub fn abandon(mut self) -> Vec<String> {
        self.leaked = true;
        let messages = std::mem::take(&mut *self.sink.lock().unwrap_or_else(|p| p.into_inner()));
        // The messenger's user data must stay valid as long as the instance lives.
        std::mem::forget(std::mem::take(&mut self.sink));
        messages
    }

    fn destroy(&mut self) {
        if self.leaked {
            return;
        }
        self.leaked = true;
        // SAFETY: every device created from this instance was destroyed by its owner
        // (dispatch::run) before we get here; the messenger goes before the instance.
        unsafe {
            if let Some((du, m)) = self.messenger.take() {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.raw.destroy_instance(None);
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.destroy();
    }
}

/// `major.minor.patch` of a Vulkan version number.
pub fn version_text(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}
