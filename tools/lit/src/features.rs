//! Features that `REQUIRES:` / `UNSUPPORTED:` / `XFAIL:` lines test. `lit.cfg.py`
//! detects the same names the same way, so both runners gate a file alike.
//!
//! | Feature | Present when |
//! |---|---|
//! | `spirv-tools` | `spirv-val` is on `PATH` |
//! | `vulkan` | a Vulkan loader (`libvulkan.so.1`), at least one ICD manifest and the Khronos validation layer's manifest exist (Vulkan RUN lines run with `--vulkan-validation`) |
//! | `llvm-filecheck` | LLVM's FileCheck exists (`FileCheck-19` or `FileCheck` on `PATH`, or `/usr/lib/llvm-19/bin/FileCheck`) |
//!
//! `XIR_LIT_FEATURES=a,b` adds features by hand (both runners honour it).
//!
//! `XIR_REQUIRE_FEATURES=a,b` (CI sets it) turns a missing feature into an error instead
//! of UNSUPPORTED: here every test that `REQUIRES:` it fails, naming it; `lit.cfg.py`
//! stops with a fatal error.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Finds `name` on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// LLVM's FileCheck, if installed.
pub fn llvm_filecheck() -> Option<PathBuf> {
    which("FileCheck-19")
        .or_else(|| {
            let p = Path::new("/usr/lib/llvm-19/bin/FileCheck");
            p.is_file().then(|| p.to_path_buf())
        })
        .or_else(|| which("FileCheck"))
}

fn has_vulkan() -> bool {
    let loader = [
        "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
        "/usr/lib/aarch64-linux-gnu/libvulkan.so.1",
        "/usr/lib64/libvulkan.so.1",
        "/usr/lib/libvulkan.so.1",
    ]
    .iter()
    .any(|p| Path::new(p).exists());
    let icd = std::env::var_os("VK_ICD_FILENAMES").is_some()
        || ["/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d"]
            .iter()
            .any(|d| {
                std::fs::read_dir(d)
                    .map(|mut it| it.any(|e| e.is_ok()))
                    .unwrap_or(false)
            });
    loader && icd && has_validation_layer()
}

/// The Khronos validation layer's manifest, where the loader looks for it.
fn has_validation_layer() -> bool {
    let mut dirs: Vec<PathBuf> = [
        "/usr/share/vulkan/explicit_layer.d",
        "/usr/local/share/vulkan/explicit_layer.d",
        "/etc/vulkan/explicit_layer.d",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    for var in ["VK_LAYER_PATH", "VK_ADD_LAYER_PATH"] {
        if let Some(v) = std::env::var_os(var) {
            dirs.extend(std::env::split_paths(&v));
        }
    }
    dirs.iter()
        .any(|d| d.join("VkLayer_khronos_validation.json").is_file())
}

/// Features that must be present (`XIR_REQUIRE_FEATURES=a,b`).
pub fn required() -> BTreeSet<String> {
    std::env::var("XIR_REQUIRE_FEATURES")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// For a Rust test that needs `feature`: true when it is present; false (the test skips,
/// saying so on standard error) when it is absent and not required; panics when it is
/// absent but `XIR_REQUIRE_FEATURES` names it (CI must not skip it silently).
pub fn present_or_skip(feature: &str, what: &str) -> bool {
    if detect().contains(feature) {
        return true;
    }
    assert!(
        !required().contains(feature),
        "XIR_REQUIRE_FEATURES names {feature} but it was not found ({what})"
    );
    eprintln!("skipped: {what} not found");
    false
}

/// Detects the available features.
pub fn detect() -> BTreeSet<String> {
    let mut f = BTreeSet::new();
    if which("spirv-val").is_some() {
        f.insert("spirv-tools".to_string());
    }
    if has_vulkan() {
        f.insert("vulkan".to_string());
    }
    if llvm_filecheck().is_some() {
        f.insert("llvm-filecheck".to_string());
    }
    if let Ok(extra) = std::env::var("XIR_LIT_FEATURES") {
        f.extend(
            extra
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
    }
    f
}
