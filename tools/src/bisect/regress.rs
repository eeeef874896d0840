//! Writing the regression test for a bisection result.
//!
//! The test holds the input module (its old directive lines removed), a RUN line that
//! runs the same `xir-opt` command as the bisection, and the checks that make it fail:
//! the CHECK lines of the check file (renamed to the `CHECK` prefix), or nothing at all
//! for crashes, refusals and verifier failures (the RUN line itself fails). Its header
//! names the first bad invocation; the tool checks that the test fails with
//! `--bisect-limit=N` and passes with `--bisect-limit=N-1` before reporting success.

use crate::predicate::Predicate;
use crate::util::{directive_word, shell_quote, strip_directives};
use std::fmt::Write as _;
use std::path::Path;

/// What the regression test is made from.
pub struct TestSpec<'a> {
    /// The input module text (directive lines are dropped).
    pub input: &'a str,
    /// The `xir-opt` arguments (pipeline and switches; no input, no `-o`).
    pub opt_args: &'a [String],
    /// The predicate of the bisection.
    pub predicate: &'a Predicate,
    /// The first bad invocation.
    pub index: u64,
    /// Its path.
    pub path: &'a str,
    /// One line describing the failure.
    pub failure: &'a str,
}

/// Prefixes named by FileCheck arguments (`CHECK` when none).
pub fn check_prefixes(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (flag, val) = match a.split_once('=') {
            Some((f, v)) => (f, Some(v.to_string())),
            None => (a.as_str(), None),
        };
        let flag = flag.trim_start_matches('-');
        if flag == "check-prefix" || flag == "check-prefixes" {
            let v = val.or_else(|| it.next().cloned()).unwrap_or_default();
            out.extend(v.split(',').map(|s| s.trim().to_string()));
        }
    }
    if out.is_empty() {
        out.push("CHECK".into());
    }
    out
}

/// FileCheck arguments other than the prefix selection.
pub fn other_filecheck_args(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let flag = a.split('=').next().unwrap_or("").trim_start_matches('-');
        if flag == "check-prefix" || flag == "check-prefixes" {
            if !a.contains('=') {
                it.next();
            }
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// The directive lines of `check_text` for `prefixes`, renamed to `CHECK`.
pub fn renamed_checks(check_text: &str, prefixes: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for line in check_text.lines() {
        let t = line.trim_start();
        let Some(body) = t.strip_prefix("//") else {
            continue;
        };
        let Some(word) = directive_word(body) else {
            continue;
        };
        let Some(p) = prefixes
            .iter()
            .find(|p| word == p.as_str() || word.starts_with(&format!("{p}-")))
        else {
            continue;
        };
        let rest = body.trim_start()[word.len()..].to_string();
        let suffix = &word[p.len()..];
        out.push(format!("// CHECK{suffix}{rest}"));
    }
    out
}

/// The `xir-opt %s ARGS` part of the RUN line.
fn opt_command(args: &[String]) -> String {
    let mut s = "xir-opt %s".to_string();
    for a in args {
        s.push(' ');
        s.push_str(&shell_quote(a));
    }
    s
}

/// Renders the regression test. `Err` when the predicate cannot be expressed as RUN
/// lines (a check file that cannot be read).
pub fn render(spec: &TestSpec<'_>) -> Result<String, String> {
    let mut run_lines: Vec<String> = Vec::new();
    let mut checks: Vec<String> = Vec::new();
    let mut requires: Vec<&str> = Vec::new();
    let opt = opt_command(spec.opt_args);
    match spec.predicate {
        Predicate::Check { file, args } => {
            let text = xir_sysio::limit::read_file_to_string(file).map_err(|e| {
                format!(
                    "cannot read '{}': {}",
                    file.display(),
                    xir_sysio::stdio::cause(&e)
                )
            })?;
            let mut fc = "xir-filecheck %s".to_string();
            for a in other_filecheck_args(args) {
                fc.push(' ');
                fc.push_str(&shell_quote(&a));
            }
            run_lines.push(format!("{opt} | {fc}"));
            checks = renamed_checks(&text, &check_prefixes(args));
        }
        Predicate::Crash | Predicate::Refusal | Predicate::Verifier | Predicate::Failure => {
            run_lines.push(opt);
        }
        Predicate::Semantics { runs } => {
            run_lines.push(format!("{opt} --check-semantics={runs}"));
        }
        Predicate::EnginesDiffer { .. } => {
            return Err("--engines-differ has no RUN-line form yet: reduce the module with `xir-reduce --engines-differ` and commit it as an exec kernel with its oracle".into());
        }
        Predicate::SpirvVal { args, .. } => {
            requires.push("spirv-tools");
            run_lines.push(format!("{opt} -o %t.spv"));
            let mut v = "spirv-val".to_string();
            for a in args {
                v.push(' ');
                v.push_str(&shell_quote(a));
            }
            run_lines.push(format!("{v} %t.spv"));
        }
        Predicate::Command(cmd, _) => {
            run_lines.push(format!("{opt} -o %t"));
            run_lines.push(format!("{cmd} %t"));
        }
    }
    let mut s = String::new();
    let _ = writeln!(s, "// Regression test written by xir-bisect.");
    let _ = writeln!(
        s,
        "// First bad pass invocation: ({}) {}",
        spec.index, spec.path
    );
    let _ = writeln!(s, "// Failure: {}.", spec.failure);
    let _ = writeln!(
        s,
        "// It fails with --bisect-limit={} and passes with --bisect-limit={}.",
        spec.index,
        spec.index - 1
    );
    if matches!(spec.predicate, Predicate::Command(..)) {
        let _ = writeln!(
            s,
            "// The last RUN line is the bisection's command; register it in the harness."
        );
    }
    for r in &requires {
        let _ = writeln!(s, "// REQUIRES: {r}");
    }
    for r in &run_lines {
        let _ = writeln!(s, "// RUN: {r}");
    }
    if !checks.is_empty() {
        s.push('\n');
        for c in &checks {
            let _ = writeln!(s, "{c}");
        }
    }
    s.push('\n');
    s.push_str(&module_text(spec.input));
    Ok(s)
}

/// The module part of an input: directive lines dropped, then the leading comment
/// block (it described the old test), and runs of blank lines squeezed to one.
pub fn module_text(input: &str) -> String {
    let stripped = strip_directives(input);
    let mut out = String::new();
    let mut started = false;
    let mut blank = false;
    for l in stripped.lines() {
        let t = l.trim();
        if !started && (t.is_empty() || t.starts_with("//")) {
            continue;
        }
        started = true;
        if t.is_empty() {
            if blank {
                continue;
            }
            blank = true;
        } else {
            blank = false;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The predicate the written test stands for when run on its own file: for a check
/// file, the test's own `CHECK` lines with the other FileCheck arguments.
pub fn self_predicate(p: &Predicate, test_file: &Path) -> Predicate {
    match p {
        Predicate::Check { args, .. } => Predicate::Check {
            file: test_file.to_path_buf(),
            args: other_filecheck_args(args),
        },
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn a(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn prefixes_and_args() {
        assert_eq!(check_prefixes(&[]), ["CHECK"]);
        assert_eq!(
            check_prefixes(&a(&["--check-prefix=EXPECT", "-check-prefixes", "A,B"])),
            ["EXPECT", "A", "B"]
        );
        assert_eq!(
            other_filecheck_args(&a(&[
                "--check-prefix",
                "X",
                "--strict-whitespace",
                "--check-prefixes=Y"
            ])),
            ["--strict-whitespace"]
        );
    }

    #[test]
    fn renames_checks() {
        let t = "// RUN: x\n// EXPECT-LABEL: kernel\n  // EXPECT-NOT: phi\n// CHECK: other\n// EXPECTED: no\n";
        assert_eq!(
            renamed_checks(t, &a(&["EXPECT"])),
            ["// CHECK-LABEL: kernel", "// CHECK-NOT: phi"]
        );
    }

    #[test]
    fn keeps_only_the_module() {
        assert_eq!(
            module_text(
                "// About the old test.\n// RUN: x\n\n// CHECK: y\n\nmodule;\n\n\n// kept\nconst %c: i32 = 1i32;\n"
            ),
            "module;\n\n// kept\nconst %c: i32 = 1i32;\n"
        );
    }

    #[test]
    fn renders_crash_and_check_tests() {
        let crash = render(&TestSpec {
            input: "// RUN: old\nmodule;\n",
            opt_args: &a(&["--passes=a,fixed-point(max=2){b}", "--verify-each"]),
            predicate: &Predicate::Crash,
            index: 4,
            path: "p/fixed-point[iter 2]/b",
            failure: "xir-opt crashes",
        })
        .unwrap();
        assert_eq!(
            crash,
            "// Regression test written by xir-bisect.\n\
             // First bad pass invocation: (4) p/fixed-point[iter 2]/b\n\
             // Failure: xir-opt crashes.\n\
             // It fails with --bisect-limit=4 and passes with --bisect-limit=3.\n\
             // RUN: xir-opt %s '--passes=a,fixed-point(max=2){b}' --verify-each\n\
             \n\
             module;\n"
        );
        let dir = crate::util::TempDir::new("regress").unwrap();
        let f: PathBuf = dir.join("c.xir");
        std::fs::write(&f, "// EXPECT: ret\nmodule;\n").unwrap();
        let p = Predicate::Check {
            file: f.clone(),
            args: a(&["--check-prefix=EXPECT"]),
        };
        let t = render(&TestSpec {
            input: "module;\n",
            opt_args: &a(&["--passes=dce"]),
            predicate: &p,
            index: 1,
            path: "dce",
            failure: "x",
        })
        .unwrap();
        assert!(
            t.contains("// RUN: xir-opt %s --passes=dce | xir-filecheck %s\n\n// CHECK: ret\n")
        );
        match self_predicate(&p, Path::new("t.xir")) {
            Predicate::Check { file, args } => {
                assert_eq!(file, PathBuf::from("t.xir"));
                assert!(args.is_empty());
            }
            _ => panic!(),
        }
    }
}
