# -*- Python -*-
# lit configuration for the xir corpus, so the same files run under LLVM's real `lit`
# (pip install lit) as under `cargo test -p xir-test-corpus`.
#
#   xir-opt              -> the built binary (target/debug/xir-opt, or $XIR_OPT)
#   xir-filecheck, FileCheck -> LLVM's FileCheck (FileCheck-19), the reference engine
#
# Features mirror tools/lit/src/features.rs: spirv-tools, vulkan, llvm-filecheck,
# plus anything listed in XIR_LIT_FEATURES=a,b; XIR_REQUIRE_FEATURES=a,b makes a missing
# one fatal.

import os
import shutil
import sys

import lit.formats

config.name = "xir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".xir"]

here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(here)
target = os.environ.get("CARGO_TARGET_DIR", os.path.join(repo, "target"))

# XIR_CORPUS_ROOT points lit at another tree of .xir files (the benchmark uses it).
config.test_source_root = os.environ.get("XIR_CORPUS_ROOT", os.path.join(here, "corpus"))
config.test_exec_root = os.path.join(target, "lit")


def find_filecheck():
    for cand in ("FileCheck-19",):
        p = shutil.which(cand)
        if p:
            return p
    if os.path.isfile("/usr/lib/llvm-19/bin/FileCheck"):
        return "/usr/lib/llvm-19/bin/FileCheck"
    return shutil.which("FileCheck")


xir_opt = os.environ.get("XIR_OPT", os.path.join(target, "debug", "xir-opt"))
if not os.path.isfile(xir_opt):
    lit_config.fatal(
        "xir-opt not found at %s; build it first: cargo build -p xir-driver" % xir_opt
    )
filecheck = find_filecheck()
if filecheck is None:
    lit_config.fatal("LLVM FileCheck not found; apt-get install llvm-19-tools")

# Tool names become paths only where they stand alone as a command word (not inside
# file names such as corpus/driver/xir-opt-help.xir).
def tool(name):
    return r"(?<![\w./-])" + name.replace("-", r"\-") + r"(?![\w.-])"


# `not --crash` with the in-process runner's meaning (see not-crash.py); first, so the
# tool substitutions below still apply to the command it wraps.
config.substitutions.append(
    (r"(?<![\w-])not --crash(?![\w-])", sys.executable + " " + os.path.join(here, "not-crash.py"))
)
config.substitutions.append((tool("xir-opt"), xir_opt))
xir_to_spirv = os.path.join(os.path.dirname(xir_opt), "xir-to-spirv")
if not os.path.isfile(xir_to_spirv):
    lit_config.warning("xir-to-spirv not found at %s; build it: cargo build -p xir-driver" % xir_to_spirv)
config.substitutions.append((tool("xir-to-spirv"), xir_to_spirv))
# xir-bisect, xir-reduce and xir-run (xir-tools) run xir-opt in-process, so they need no
# path to it. run-lit.sh builds them; a missing binary fails its tests rather than running
# whatever is on PATH.
for name in ("xir-bisect", "xir-reduce", "xir-run"):
    path = os.path.join(os.path.dirname(xir_opt), name)
    if not os.path.isfile(path):
        lit_config.warning("%s not found at %s; build it: cargo build -p xir-tools" % (name, path))
    config.substitutions.append((tool(name), path))
config.substitutions.append((tool("xir-filecheck"), filecheck))
config.substitutions.append((tool("FileCheck"), filecheck))

features = set()
if shutil.which("spirv-val"):
    features.add("spirv-tools")
loader = any(
    os.path.exists(p)
    for p in (
        "/usr/lib/x86_64-linux-gnu/libvulkan.so.1",
        "/usr/lib/aarch64-linux-gnu/libvulkan.so.1",
        "/usr/lib64/libvulkan.so.1",
        "/usr/lib/libvulkan.so.1",
    )
)
icd = "VK_ICD_FILENAMES" in os.environ or any(
    os.listdir(d) for d in ("/usr/share/vulkan/icd.d", "/etc/vulkan/icd.d") if os.path.isdir(d)
)
# Vulkan RUN lines run with --vulkan-validation: the feature needs the Khronos layer too.
layer_dirs = [
    "/usr/share/vulkan/explicit_layer.d",
    "/usr/local/share/vulkan/explicit_layer.d",
    "/etc/vulkan/explicit_layer.d",
]
for var in ("VK_LAYER_PATH", "VK_ADD_LAYER_PATH"):
    layer_dirs += [d for d in os.environ.get(var, "").split(os.pathsep) if d]
layer = any(os.path.isfile(os.path.join(d, "VkLayer_khronos_validation.json")) for d in layer_dirs)
if loader and icd and layer:
    features.add("vulkan")
if filecheck:
    features.add("llvm-filecheck")
for f in os.environ.get("XIR_LIT_FEATURES", "").split(","):
    if f.strip():
        features.add(f.strip())
config.available_features.update(features)

# XIR_REQUIRE_FEATURES=a,b (CI sets it): a missing feature is an error, not UNSUPPORTED.
missing = [
    f.strip()
    for f in os.environ.get("XIR_REQUIRE_FEATURES", "").split(",")
    if f.strip() and f.strip() not in features
]
if missing:
    lit_config.fatal(
        "XIR_REQUIRE_FEATURES names features this machine lacks: %s" % ", ".join(missing)
    )

# LLVM's `not` handles `not --crash`; put LLVM's tool directory on PATH for it.
llvm_bin = "/usr/lib/llvm-19/bin"
if os.path.isdir(llvm_bin):
    config.environment["PATH"] = llvm_bin + os.pathsep + os.environ.get("PATH", "")
