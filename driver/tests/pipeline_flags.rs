//! The driver's pipeline flags on modules built in memory (the text parser lives on
//! another branch; the corpus covers the same flags end to end).

use xir_driver::cli::Cli;
use xir_driver::pipeline::{EXIT_INVALID_IR, PipelineError, run_pipeline};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::{Function, FunctionKind, Metadata, Module};

fn module() -> Module {
    let mut m = Module::new();
    let mut f = Function::new(FunctionKind::kernel(), None);
    f.metadata.push(Metadata::Name("main".into()));
    let entry = f.ensure_body();
    Cursor::at_end(&mut f, entry).ret(None);
    m.add_function(f);
    let mut g = Function::new(FunctionKind::Callable, None);
    g.metadata.push(Metadata::Name("helper".into()));
    let entry = g.ensure_body();
    Cursor::at_end(&mut g, entry).ret(None);
    m.add_function(g);
    m
}

fn cli(a: &[&str]) -> Cli {
    let mut v = vec!["--enable-test-passes".to_string()];
    v.extend(a.iter().map(|s| s.to_string()));
    Cli::try_parse_args(&v).unwrap()
}

fn run(a: &[&str]) -> (Module, String, Result<(), PipelineError>) {
    let mut m = module();
    let mut log = String::new();
    let r = run_pipeline(&mut m, &cli(a), &mut log, None);
    (m, log, r)
}

fn failed(r: Result<(), PipelineError>) -> (String, i32) {
    match r {
        Err(PipelineError::Failed { message, code }) => (message, code),
        other => panic!("{other:?}"),
    }
}

#[test]
fn print_after_all_and_before_named() {
    let (_, log, r) = run(&[
        "--passes=test-never-change,test-always-change",
        "--print-after-all",
        "--print-before=test-always-change",
    ]);
    assert!(r.is_ok());
    let banners: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("// -----//"))
        .collect();
    assert_eq!(
        banners,
        [
            "// -----// IR Dump After test-never-change (test-never-change) #1 //----- //",
            "// -----// IR Dump Before test-always-change (test-always-change) #2 //----- //",
            "// -----// IR Dump After test-always-change (test-always-change) #2 //----- //",
        ]
    );
    // Function scope: no module prelude.
    assert!(!log.contains("module;"), "{log}");
    assert!(log.contains("kernel %"));
}

#[test]
fn module_scope_and_function_filter() {
    let (_, log, _) = run(&[
        "--passes=test-always-change",
        "--print-after-all",
        "--print-module-scope",
    ]);
    assert!(log.contains("comment = \"test-always-change: 1\""), "{log}");
    let (_, log, _) = run(&[
        "--passes=test-never-change",
        "--print-after-all",
        "--filter-print-funcs=helper",
    ]);
    assert!(
        log.contains("callable %") && !log.contains("kernel %"),
        "{log}"
    );
}

#[test]
fn print_changed_prints_a_unified_diff_of_changed_passes_only() {
    let (_, log, _) = run(&[
        "--passes=test-never-change,test-always-change",
        "--print-changed",
        "--print-module-scope",
        "--color=never",
    ]);
    assert!(!log.contains("test-never-change"), "{log}");
    assert!(log.contains("// -----// IR Dump Changed By test-always-change (test-always-change) #2 //----- //\n--- before\n+++ after\n@@"), "{log}");
    assert!(
        log.contains("+[comment = \"test-always-change: 1\"]"),
        "{log}"
    );
    let (_, log, _) = run(&[
        "--passes=test-always-change",
        "--print-changed",
        "--print-module-scope",
        "--color=always",
    ]);
    assert!(log.contains("\x1b[32m+[comment"), "{log}");
}

#[test]
fn dump_dir_writes_one_file_per_invocation() {
    let dir = std::env::temp_dir().join(format!("xir-dump-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let (_, _, r) = run(&[
        "--passes=fixed-point fp(max=3){test-change-n{times=1}},test-refuse",
        &format!("--dump-dir={d}"),
    ]);
    assert!(r.is_ok());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "000-input.xir",
            "001-fp.iter1.test-change-n.xir",
            "002-fp.iter2.test-change-n.xir",
            "003-test-refuse.xir"
        ]
    );
    let text = std::fs::read_to_string(dir.join("001-fp.iter1.test-change-n.xir")).unwrap();
    assert!(text.contains("comment = \"test-change-n: 1\""), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stats_time_and_trace() {
    let (_, log, _) = run(&[
        "--passes=fixed-point fp(max=3){test-change-n{times=1}}",
        "--pass-stats",
    ]);
    assert!(log.starts_with("PassPipeline '--passes' ("), "{log}");
    assert!(log.contains("] fp (x2) (converged)\n"), "{log}");
    let (_, log, _) = run(&["--passes=test-never-change", "--pass-stats=json"]);
    assert!(log.starts_with("{\"pipeline\":\"--passes\","), "{log}");
    let (_, log, _) = run(&["--passes=test-never-change", "--time-passes"]);
    assert!(log.contains("Pass execution timing report"), "{log}");
    assert!(log.contains("  test-never-change\n"), "{log}");
    let (_, log, _) = run(&["--passes=test-never-change", "--trace-passes"]);
    assert!(
        log.starts_with(
            "Starting XIR pass 'test-never-change'\nFinished XIR pass 'test-never-change' in "
        ),
        "{log}"
    );
}

#[test]
fn exit_statuses_tell_failures_apart() {
    let (_, _, r) = run(&["--passes=test-break-verifier"]);
    let (msg, code) = failed(r);
    assert_eq!(code, EXIT_INVALID_IR);
    assert!(
        msg.starts_with(
            "xir-opt: error: the module is invalid after pass 'test-break-verifier' (invocation 1):"
        ),
        "{msg}"
    );
    let (_, _, r) = run(&["--passes=test-panic"]);
    assert_eq!(failed(r).1, xir_driver::EXIT_INTERNAL_ERROR);
    let (_, _, r) = run(&["--passes=test-refuse abort-on-refusal"]);
    let (msg, code) = failed(r);
    assert_eq!(code, xir_driver::EXIT_USER_ERROR);
    assert_eq!(
        msg,
        "xir-opt: error: pass 'test-refuse' (invocation 1) refused: test-refuse always declines\n"
    );
    let (_, log, r) = run(&["--passes=test-refuse"]);
    assert!(r.is_ok());
    assert_eq!(
        log,
        "warning: pass 'test-refuse' (invocation 1) refused: test-refuse always declines\n"
    );
    let (_, _, r) = run(&["--passes=test-lie-about-change"]);
    assert_eq!(failed(r).1, EXIT_INVALID_IR);
    let (_, _, r) = run(&["--passes=test-lie-about-cfg"]);
    let (msg, code) = failed(r);
    assert_eq!(code, EXIT_INVALID_IR);
    assert!(msg.contains("reported an instruction-only change but changed the control-flow graph"));
    let (_, _, r) = run(&["--passes=test-break-verifier", "--verify-each=false"]);
    assert!(r.is_ok());
    let (_, _, r) = run(&["--passes=fixed-point fp(max=4){test-toggle-a,test-toggle-b}"]);
    let (msg, code) = failed(r);
    assert_eq!(code, 1);
    assert!(
        msg.contains("test-toggle-a and test-toggle-b keep undoing each other"),
        "{msg}"
    );
}

#[test]
fn bisect_limit_logs_like_opt() {
    let (m, log, r) = run(&[
        "--passes=test-always-change,test-always-change,test-always-change",
        "--bisect-limit=1",
    ]);
    assert!(r.is_ok());
    assert_eq!(
        log,
        "BISECT: running pass (1) test-always-change\n\
         BISECT: NOT running pass (2) test-always-change#2\n\
         BISECT: NOT running pass (3) test-always-change#3\n"
    );
    assert_eq!(
        m.metadata,
        vec![Metadata::Comment("test-always-change: 1".into())]
    );
    let (_, log, _) = run(&["--passes=test-never-change", "--bisect-limit=-1"]);
    assert_eq!(log, "BISECT: running pass (1) test-never-change\n");
}

#[test]
fn crash_reproducer_holds_the_ir_before_the_failing_pass() {
    let file = std::env::temp_dir().join(format!("xir-repro-{}.xir", std::process::id()));
    let f = file.to_str().unwrap();
    let (_, _, r) = run(&[
        "--passes=test-always-change,fixed-point fp(max=3){test-change-n{times=2},test-break-verifier}",
        &format!("--crash-reproducer={f}"),
    ]);
    let (msg, code) = failed(r);
    assert_eq!(code, EXIT_INVALID_IR);
    assert!(
        msg.contains(&format!("note: reproducer written to '{f}'")),
        "{msg}"
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("// The IR below is the module just before invocation 3 ('fp[iter 1]/test-break-verifier')."), "{text}");
    assert!(
        text.contains("// RUN: not xir-opt %s --enable-test-passes --passes='sequence fp{test-break-verifier},fixed-point fp(max=2){test-change-n{times=2},test-break-verifier}'"),
        "{text}"
    );
    // Just before invocation 3: always-change ran once, change-n once.
    assert!(
        text.contains("test-always-change: 1") && text.contains("test-change-n: 1"),
        "{text}"
    );
    std::fs::remove_file(&file).ok();
}

#[test]
fn environment_variables_reach_the_binary() {
    use std::process::{Command, Stdio};
    let bin = env!("CARGO_BIN_EXE_xir-opt");
    let out = Command::new(bin)
        .args([
            "--passes=if optimize { dce } else { const-fold }",
            "--print-pipeline",
        ])
        .env("LUISA_XIR_DISABLE_OPTIMIZATION", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "const-fold\n");
    let out = Command::new(bin)
        .args(["--passes=if scalarizer { dce }", "--print-pipeline"])
        .env("LUISA_XIR_ENABLE_SCALARIZER", "1")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "dce\n");
    let input = std::env::temp_dir().join(format!("xir-trace-{}.xir", std::process::id()));
    std::fs::write(
        &input,
        "module;\n\nkernel %k () = define %b: {\n    %r: void = return;\n};\n",
    )
    .unwrap();
    let out = Command::new(bin)
        .arg(&input)
        .arg("--passes=dce")
        .env("LUISA_XIR_TRACE_PASSES", "1")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("Starting XIR pass 'dce'\nFinished XIR pass 'dce' in "),
        "{err}"
    );
    let out = Command::new(bin)
        .arg(&input)
        .arg("--passes=dce")
        .env("LUISA_XIR_TRACE_PASSES", "yes")
        .output()
        .unwrap();
    assert!(out.stderr.is_empty(), "only exactly 1 enables tracing");
    std::fs::remove_file(&input).ok();
}

#[test]
fn print_before_after_names_must_exist() {
    // A misspelt name was silently ignored (issue 15, item 13).
    let (_, log, r) = run(&["--passes=test-never-change", "--print-after=NOSUCHPASS"]);
    match r {
        Err(PipelineError::Usage(m)) => assert!(
            m.starts_with("--print-after: 'NOSUCHPASS' is not a pass, label or path of the pipeline (it runs: test-never-change)"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(log, "");
    let (_, _, r) = run(&["--passes=test-never-change", "--print-before=nope"]);
    assert!(matches!(r, Err(PipelineError::Usage(_))), "{r:?}");
    // Pass names, labels and paths (with or without `[iter k]`) are accepted.
    let (_, _, r) = run(&[
        "--passes=test-never-change",
        "--print-after=test-never-change",
    ]);
    assert!(r.is_ok(), "{r:?}");
}
