//! The differential property of passes (see `xir_tools::pass_semantics`): on 200
//! generated UB-free kernels, every implemented pass in its pipeline context and every
//! runnable shipped pipeline keeps the interpreted results, and each one changes some
//! kernel (otherwise it is untested and the generator must grow). The long run is the
//! `pass_semantics` example (`docs/semantic-checking.md`).

#[test]
fn passes_never_change_interpreted_results() {
    let cfg = xir_testgen::ExecConfig::default();
    let report = xir_tools::pass_semantics::run(0..200, 2, &cfg);
    println!("{}", report.table());
    assert_eq!(
        report.defined.0, report.defined.1,
        "generated kernels are defined"
    );
    let problems = report.problems();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let untested = report.untested();
    let waived: Vec<&str> = xir_tools::pass_semantics::NOT_YET_GENERATED
        .iter()
        .map(|(name, _)| *name)
        .collect();
    let unexpected: Vec<&String> = untested
        .iter()
        .filter(|n| !waived.contains(&n.as_str()))
        .collect();
    assert!(unexpected.is_empty(), "changed no kernel: {unexpected:?}");
    let now_tested: Vec<&&str> = waived
        .iter()
        .filter(|n| !untested.iter().any(|u| u == *n))
        .collect();
    assert!(
        now_tested.is_empty(),
        "now exercised by the generator, remove from NOT_YET_GENERATED: {now_tested:?}"
    );
}
