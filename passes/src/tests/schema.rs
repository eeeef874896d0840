//! Report schemas: every pass publishes upstream's key set, in order, zero-valued, on a
//! module without functions, and its registry entry declares the same keys (§8 counts).

use crate::pass::PassContext;
use crate::registry::PassOptions;
use crate::transform::PASSES;
use xir_ir::Module;

#[test]
fn empty_module_publishes_the_full_zero_schema() {
    let expected = [
        ("dce", 5),
        ("const-fold", 1),
        ("mem2reg", 4),
        ("reg2mem", 3),
        ("audit-reg2mem-spills", 4),
        ("phi-cleanup", 1),
        ("simplify-cfg", 7),
    ];
    for (name, n) in expected {
        let info = PASSES
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{name} not registered"));
        assert_eq!(info.report_keys.len(), n, "{name}: declared key count");
        let pass = (info.create)(&PassOptions::default()).expect("default options");
        let mut m = Module::new();
        let r = pass.run(&mut m, &mut PassContext::default()).expect("runs");
        let keys: Vec<&str> = r.report.entries().iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, info.report_keys, "{name}: published keys");
        assert!(r.report.entries().iter().all(|(_, v)| *v == 0), "{name}");
        assert!(!r.changed && r.refusal.is_none(), "{name}");
    }
}
