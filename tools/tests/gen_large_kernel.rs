//! `xir-gen-large --vulkan-kernel N`: the benchmark kernel is pinned (same bytes twice),
//! has about N instructions, goes through `spirv-final` (optimize=false, verifier after
//! the run) and compiles to validated SPIR-V; its GLSL twin compiles with
//! `glslangValidator -V` where that is installed (docs/codegen.md, "Performance").

use std::process::Command;
use xir_tools::util::TempDir;

fn generate(dir: &TempDir, tag: &str, n: usize) -> (Vec<u8>, String) {
    let (x, g) = (
        dir.join(&format!("{tag}.xir")),
        dir.join(&format!("{tag}.comp")),
    );
    let st = Command::new(env!("CARGO_BIN_EXE_xir-gen-large"))
        .arg("--vulkan-kernel")
        .arg(n.to_string())
        .arg(&x)
        .arg(&g)
        .status()
        .expect("run xir-gen-large");
    assert!(st.success());
    (std::fs::read(&x).unwrap(), g.display().to_string())
}

#[test]
fn vulkan_kernel_is_pinned_and_compiles() {
    let dir = TempDir::new("gen-large-kernel").unwrap();
    let n = 3000;
    let (a, glsl) = generate(&dir, "a", n);
    let (b, _) = generate(&dir, "b", n);
    assert_eq!(a, b, "the generator's output must depend only on N");
    let text = String::from_utf8(a).unwrap();
    let (mut m, _) = xir_ir::text::parse_module(&text).expect("the kernel parses");
    let count = m.inst_count();
    assert!(
        count.abs_diff(n) <= n / 20,
        "{count} instructions for N = {n}"
    );
    let errs = xir_ir::verify::verify_module(&m, &Default::default(), None);
    assert!(errs.is_empty(), "input does not verify: {:?}", errs.first());
    xir_driver::pipeline::run_spirv_final(&mut m, false).expect("spirv-final optimize=false");
    let ks = xir_codegen::kernels(&m);
    assert_eq!(ks.len(), 1);
    let c = xir_codegen::compile_kernel(&m, ks[0].0, &xir_codegen::OptLevel::None.into())
        .expect("the backend compiles the kernel (validated in process)");
    assert!(c.words.len() > count, "{} words", c.words.len());
    match Command::new("glslangValidator")
        .arg("-V")
        .arg(&glsl)
        .arg("-o")
        .arg(dir.join("g.spv"))
        .output()
    {
        Ok(o) => assert!(
            o.status.success(),
            "glslangValidator rejects the GLSL twin:\n{}",
            String::from_utf8_lossy(&o.stdout)
        ),
        Err(_) => eprintln!("glslangValidator not installed: GLSL twin not compiled"),
    }
}
