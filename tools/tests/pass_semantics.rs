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

/// The semantic round trip (issue 13) over the corpus: every corpus kernel the
/// interpreter runs defined keeps its results through `destructure-cfg,reg2mem,
/// restructure-cfg,mem2reg` and `spirv-final` (`optimize=false`) and ends structured,
/// except for the documented [`KNOWN_LIMITS`](xir_tools::pass_semantics::KNOWN_LIMITS).
#[test]
fn corpus_round_trip_keeps_results() {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-corpus/corpus");
    let run = xir_tools::corpus_semantics::run(&corpus, 2);
    println!(
        "{} files: {} checked ({} also on their exec/Inputs), {} not runnable modules, {} never defined\n{}",
        run.files,
        run.checked.len(),
        run.with_given_inputs,
        run.not_modules,
        run.not_defined,
        run.report.table()
    );
    let problems: Vec<String> = run
        .report
        .problems()
        .into_iter()
        .map(|p| {
            // Name the file instead of its position.
            let mut p = p;
            for (i, f) in run.checked.iter().enumerate().rev() {
                p = p.replace(&format!("seed {i}:"), &format!("{f}:"));
            }
            p
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        run.checked.len() >= 100,
        "the corpus holds runnable kernels ({} checked)",
        run.checked.len()
    );
}
