//! Bisection and minimization against a scripted fake `xir-opt` (the real driver is
//! exercised by `tests/` and the corpus).

use super::cli::xir_bisect_main;
use super::*;
use crate::opt::{OptOutput, OptRunner, flag_value};
use crate::oracle::PredicateOracle;
use crate::pipeline_text;
use crate::predicate::Predicate;

/// Six invocations, two inside a fixed point's second iteration; invocation `bad_at`
/// misbehaves as `mode` says.
struct FakeOpt {
    bad_at: u64,
    mode: &'static str,
}

const PATHS: [&str; 6] = [
    "p/a",
    "p/fp[iter 1]/b",
    "p/fp[iter 1]/c",
    "p/fp[iter 2]/b",
    "p/fp[iter 2]/c",
    "p/d",
];

impl OptRunner for FakeOpt {
    fn run(&self, args: &[String], stdin: &[u8]) -> OptOutput {
        let limit: i64 = flag_value(args, "--bisect-limit")
            .and_then(|v| v.parse().ok())
            .unwrap_or(-1);
        let mut out = String::from_utf8_lossy(stdin).into_owned();
        let mut err = String::new();
        for (k, p) in PATHS.iter().enumerate() {
            let i = k as u64 + 1;
            if limit >= 0 && i as i64 > limit {
                err.push_str(&format!("BISECT: NOT running pass ({i}) {p}\n"));
                continue;
            }
            err.push_str(&format!("BISECT: running pass ({i}) {p}\n"));
            out.push_str(&format!("ran {i}\n"));
            if i == self.bad_at {
                let (code, msg) = match self.mode {
                    "wrong" => {
                        out.push_str("BROKEN\n");
                        continue;
                    }
                    "crash" => (2, format!("xir-opt: internal error: pass '{p}' panicked")),
                    "verify" => (
                        1,
                        format!("error: the module is invalid after pass '{p}' (invocation {i}):"),
                    ),
                    _ => (1, format!("error: pass '{p}' (invocation {i}) refused: no")),
                };
                err.push_str(&msg);
                return OptOutput {
                    code,
                    stdout: Vec::new(),
                    stderr: err.into_bytes(),
                };
            }
        }
        OptOutput {
            code: 0,
            stdout: out.into_bytes(),
            stderr: err.into_bytes(),
        }
    }
    fn describe(&self) -> String {
        "fake".into()
    }
}

fn not_broken(dir: &crate::util::TempDir) -> Predicate {
    let f = dir.join("checks.txt");
    std::fs::write(&f, "// EXPECT-NOT: BROKEN\n").unwrap();
    Predicate::Check {
        file: f,
        args: vec!["--check-prefix=EXPECT".into()],
    }
}

#[test]
fn finds_wrong_output_in_second_iteration() {
    let dir = crate::util::TempDir::new("bisect").unwrap();
    let fake = FakeOpt {
        bad_at: 4,
        mode: "wrong",
    };
    let oracle = PredicateOracle {
        runner: &fake,
        predicate: not_broken(&dir),
        args: vec!["--passes=x".into()],
    };
    let b = bisect(&oracle, b"module;\n").unwrap();
    assert_eq!(b.total, 6);
    assert_eq!(b.culprit(), Some((4, "p/fp[iter 2]/b")));
    let r = render_report(&b, &oracle, ReportOptions { full_ir: false });
    assert!(
        r.contains("first bad invocation: (4) p/fp[iter 2]/b\n"),
        "{r}"
    );
    assert!(r.contains("failure: the predicate rejects the output; xir-opt succeeded"));
    assert!(r.contains(" ran 3\n+ran 4\n+BROKEN\n"), "{r}");
    assert!(!r.contains("=== IR before"));
}

#[test]
fn classifies_failures_at_the_culprit() {
    for (mode, pred, class, status) in [
        ("crash", Predicate::Crash, FailureClass::Crash, 10),
        ("verify", Predicate::Verifier, FailureClass::Verifier, 12),
        ("refuse", Predicate::Refusal, FailureClass::Refusal, 11),
    ] {
        for bad_at in 1..=6 {
            let fake = FakeOpt { bad_at, mode };
            let oracle = PredicateOracle {
                runner: &fake,
                predicate: pred.clone(),
                args: vec![],
            };
            let b = bisect(&oracle, b"").unwrap();
            assert_eq!(b.culprit().map(|c| c.0), Some(bad_at), "{mode}");
            assert_eq!(b.at(bad_at).unwrap().class, class);
            assert_eq!(super::cli::status_for(class), status);
        }
    }
}

#[test]
fn ends_of_the_range() {
    let dir = crate::util::TempDir::new("bisect").unwrap();
    let fake = FakeOpt {
        bad_at: 99,
        mode: "wrong",
    };
    let oracle = PredicateOracle {
        runner: &fake,
        predicate: not_broken(&dir),
        args: vec![],
    };
    assert_eq!(
        bisect(&oracle, b"").unwrap().result,
        SearchResult::GoodAtEnd
    );
    // The input itself is bad: CHECK-NOT finds BROKEN before any pass.
    assert_eq!(
        bisect(&oracle, b"BROKEN\n").unwrap().result,
        SearchResult::BadAtZero
    );
}

/// A fake whose output is BROKEN iff pass `a` runs before pass `b` (leaves of
/// `--passes`, flattened in order; fixed points run their body once).
struct OrderFake;

impl OptRunner for OrderFake {
    fn run(&self, args: &[String], _stdin: &[u8]) -> OptOutput {
        if args.iter().any(|a| a == "--print-pipeline") {
            return OptOutput {
                code: 1,
                ..OptOutput::default()
            };
        }
        let text = flag_value(args, "--passes").unwrap_or_default();
        let leaves = pipeline_text::leaves(&pipeline_text::parse(&text).unwrap());
        let pa = leaves.iter().position(|l| l == "a");
        let pb = leaves.iter().rposition(|l| l == "b");
        let broken = matches!((pa, pb), (Some(x), Some(y)) if x < y);
        OptOutput {
            code: 0,
            stdout: if broken {
                b"BROKEN\n".to_vec()
            } else {
                b"ok\n".to_vec()
            },
            stderr: Vec::new(),
        }
    }
    fn describe(&self) -> String {
        "order".into()
    }
}

#[test]
fn minimizes_to_the_guilty_pair() {
    let dir = crate::util::TempDir::new("min").unwrap();
    let oracle = PredicateOracle {
        runner: &OrderFake,
        predicate: not_broken(&dir),
        args: vec!["--passes=x,a,y,fixed-point f(max=4){z,b,w},v".into()],
    };
    let m = minimize::minimize(&oracle, b"").unwrap();
    assert_eq!(m.original, "x,a,y,fixed-point f(max=4){z,b,w},v");
    assert_eq!(m.minimal, "a,b");
    assert_eq!(m.class, FailureClass::Success);
    let good = PredicateOracle {
        runner: &OrderFake,
        predicate: not_broken(&dir),
        args: vec!["--passes=b,a".into()],
    };
    assert!(matches!(
        minimize::minimize(&good, b""),
        Err(minimize::MinimizeError::NotFailing)
    ));
}

#[test]
fn cli_usage_and_help() {
    let run = |args: &[&str]| {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let (mut o, mut e) = (Vec::new(), Vec::new());
        let code = xir_bisect_main(&args, b"", &mut o, &mut e);
        (
            code,
            String::from_utf8(o).unwrap(),
            String::from_utf8(e).unwrap(),
        )
    };
    let (code, out, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("EXIT STATUS:") && out.contains("--minimize-pipeline"));
    let (code, _, err) = run(&["in.xir"]);
    assert_eq!(code, crate::exit::USAGE);
    assert!(err.contains("--check-file"), "{err}");
    let (code, _, err) = run(&["--crash", "--verifier", "x"]);
    assert_eq!(code, crate::exit::USAGE, "{err}");
    let (code, _, err) = run(&["/nonexistent.xir", "--crash"]);
    assert_eq!(code, crate::exit::USAGE);
    assert!(err.contains("cannot read"));
}

#[test]
fn extracts_the_print_changed_dump() {
    let log = "BISECT: running pass (3) p/a\n\
               // -----// IR Dump Changed By a (p/a) #3 //----- //\n--- before\n+++ after\n-x\n+y\n\
               BISECT: running pass (4) p/b\n\
               // -----// IR Dump Changed By b (p/b) #4 //----- //\n-y\n+z\n";
    assert_eq!(
        changed_dump(log, 3).as_deref(),
        Some("--- before\n+++ after\n-x\n+y\n")
    );
    assert_eq!(changed_dump(log, 4).as_deref(), Some("-y\n+z\n"));
    assert_eq!(changed_dump(log, 5), None);
    assert_eq!(changed_dump(log, 33), None);
}

#[test]
fn an_xir_opt_that_fails_before_any_pass_is_undecided() {
    struct Broken;
    impl OptRunner for Broken {
        fn run(&self, _: &[String], _: &[u8]) -> OptOutput {
            OptOutput {
                code: 1,
                stdout: Vec::new(),
                stderr: b"error: unexpected argument '--bisect-limit'\n".to_vec(),
            }
        }
        fn describe(&self) -> String {
            "broken".into()
        }
    }
    let oracle = PredicateOracle {
        runner: &Broken,
        predicate: Predicate::Failure,
        args: vec![],
    };
    let e = bisect(&oracle, b"").unwrap_err();
    assert!(
        e.0.contains("before running any pass") && e.0.contains("--bisect-limit"),
        "{e}"
    );
}
