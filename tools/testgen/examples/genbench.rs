//! Times module generation and verification.
fn main() {
    let cfg = xir_testgen::GenConfig::default();
    let t = std::time::Instant::now();
    let ms: Vec<_> = (0..1000)
        .map(|s| xir_testgen::generate_module(s, &cfg))
        .collect();
    let g = t.elapsed();
    let t = std::time::Instant::now();
    for m in &ms {
        assert!(xir_ir::verify::verify_module(m, &Default::default(), None).is_empty());
    }
    println!(
        "gen {:?} verify {:?} insts {}",
        g,
        t.elapsed(),
        ms.iter().map(|m| m.inst_count()).sum::<usize>()
    );
}
