//! The external-command conventions, end to end through the real driver:
//! `xir-reduce --test CMD` (exit 0 = interesting) and `xir-bisect --cmd CMD`
//! (`git bisect run`: 0 good, 1-127 bad except 125, 125 and >= 128 undecided).

use xir_tools::bisect::cli::xir_bisect_main;
use xir_tools::reduce::cli::xir_reduce_main;
use xir_tools::util::TempDir;

const MODULE: &str = "module;

const %one: i32 = 1i32;

const %two: i32 = 2i32;

callable %f: i32 (
    %a: i32;
) = define %entry: {
    %x: i32 = arithmetic binary_add %a, %one;
    %y: i32 = arithmetic binary_mul %x, %two;
    %z: i32 = arithmetic binary_sub %y, %one;
    %r: void = return %z;
};
";

fn run(main: xir_tools::opt::OptMainFn, args: &[&str]) -> (i32, String, String) {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let code = main(&args, b"", &mut o, &mut e);
    (
        code,
        String::from_utf8(o).unwrap(),
        String::from_utf8(e).unwrap(),
    )
}

fn input(dir: &TempDir) -> String {
    let p = dir.join("in.xir");
    std::fs::write(&p, MODULE).unwrap();
    p.display().to_string()
}

#[test]
fn reduce_test_command_zero_means_interesting() {
    let dir = TempDir::new("cmd-reduce").unwrap();
    let f = input(&dir);
    let (code, out, err) = run(xir_reduce_main, &[&f, "--test", "grep -q binary_mul"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("binary_mul"), "{out}");
    assert!(
        !out.contains("binary_add") && !out.contains("binary_sub"),
        "{out}"
    );
    assert!(err.contains("accepted:"), "{err}");
    // The candidates the command saw were files; an always-failing command means
    // "not interesting", so the input is rejected up front.
    let (code, _, err) = run(xir_reduce_main, &[&f, "--test", "false"]);
    assert_eq!(code, xir_tools::exit::GOOD_AT_END);
    assert!(err.contains("not interesting"), "{err}");
}

#[test]
fn bisect_command_follows_git_bisect_run() {
    let dir = TempDir::new("cmd-bisect").unwrap();
    let f = input(&dir);
    // Bad once the module comment that `test-always-change` bumps on every run reads
    // 2: the second entry of that pass (invocation 4) is the first bad one.
    let (code, out, err) = run(
        xir_bisect_main,
        &[
            &f,
            "--cmd",
            "! grep -q 'test-always-change: 2'",
            "--passes=dce,test-always-change,const-fold,test-always-change,dce",
            "--diff-only",
            "--",
            "--enable-test-passes",
        ],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("first bad invocation: (4) test-always-change#2"),
        "{out}"
    );
    // 125 = cannot tell: fail closed.
    let (code, _, err) = run(
        xir_bisect_main,
        &[&f, "--cmd", "exit 125; :", "--passes=dce,dce"],
    );
    assert_eq!(code, xir_tools::exit::UNDECIDED);
    assert!(err.contains("125"), "{err}");
    // The command sees xir-opt's status.
    let (code, out, _) = run(
        xir_bisect_main,
        &[
            &f,
            "--cmd",
            "test \"$XIR_OPT_CLASS\" = crash && exit 1; exit 0; :",
            "--passes=dce,test-panic",
            "--diff-only",
            "--",
            "--enable-test-passes",
        ],
    );
    assert_eq!(code, xir_tools::exit::FOUND_CRASH, "{out}");
    assert!(
        out.contains("first bad invocation: (2) test-panic"),
        "{out}"
    );
}
