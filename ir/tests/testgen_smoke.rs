use xir_ir::testgen::{GenConfig, generate_module};
use xir_ir::verify::{VerifyOptions, verify_module};

#[test]
fn smoke() {
    let cfg = GenConfig::default();
    let mut bad = 0;
    for seed in 0..300 {
        let m = generate_module(seed, &cfg);
        let d = verify_module(&m, &VerifyOptions::default(), None);
        if !d.is_empty() {
            bad += 1;
            if bad < 6 {
                eprintln!("seed {seed}: {} errors", d.len());
                for x in d.iter().take(5) {
                    eprintln!("  {}", x.message);
                }
            }
        }
    }
    assert_eq!(bad, 0);
}

#[test]
fn cov() {
    let cfg = GenConfig::default();
    let mods: Vec<_> = (0..500).map(|s| generate_module(s, &cfg)).collect();
    let c = xir_ir::testgen::coverage(&mods);
    eprintln!("missing: {:?}", c.missing);
    let total: usize = mods.iter().map(|m| m.inst_count()).sum();
    eprintln!("insts total {total}, avg {}", total / 500);
}
