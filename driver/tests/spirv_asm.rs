//! `xir-to-spirv --emit=spirv-asm` is Debian's `spirv-dis` output for the same binary,
//! byte for byte, over every module of the codegen corpus that compiles (the `spirv-tools`
//! feature: skipped without `spirv-dis`, an error when `XIR_REQUIRE_FEATURES` names
//! `spirv-tools`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

fn required(feature: &str) -> bool {
    std::env::var("XIR_REQUIRE_FEATURES")
        .unwrap_or_default()
        .split(',')
        .any(|f| f.trim() == feature)
}

#[test]
fn spirv_asm_equals_spirv_dis_over_the_codegen_corpus() {
    if !on_path("spirv-dis") {
        assert!(
            !required("spirv-tools"),
            "XIR_REQUIRE_FEATURES names spirv-tools but spirv-dis is not on PATH"
        );
        eprintln!("skipped: spirv-dis is not installed");
        return;
    }
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-corpus/corpus/codegen");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "xir"))
        .collect();
    files.sort();
    let tmp = std::env::temp_dir().join(format!("xir-spirv-asm-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let exe = env!("CARGO_BIN_EXE_xir-to-spirv");
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for f in &files {
        let spv = tmp.join("k.spv");
        let _ = std::fs::remove_file(&spv);
        let bin = Command::new(exe)
            .arg(f)
            .arg("-o")
            .arg(&spv)
            .output()
            .unwrap();
        if !bin.status.success() {
            continue; // a module for another tool (several kernels, a pipeline first, …)
        }
        let asm = Command::new(exe)
            .arg(f)
            .arg("--emit=spirv-asm")
            .output()
            .unwrap();
        assert!(
            asm.status.success(),
            "{}: --emit=spirv-asm failed",
            f.display()
        );
        let dis = Command::new("spirv-dis").arg(&spv).output().unwrap();
        assert!(dis.status.success(), "{}: spirv-dis failed", f.display());
        if asm.stdout != dis.stdout {
            mismatches.push(f.display().to_string());
        }
        compared += 1;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        mismatches.is_empty(),
        "--emit=spirv-asm differs from spirv-dis for: {mismatches:?}"
    );
    // The corpus has hundreds of single-kernel files: a handful would mean the loop
    // silently skipped most of them.
    assert!(compared >= 100, "only {compared} codegen files compiled");
}
