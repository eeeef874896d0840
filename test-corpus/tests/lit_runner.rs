//! End-to-end tests of the lit library: real files, real commands, lit's result codes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use xir_test_corpus::bless::{self, Blessed};
use xir_test_corpus::lit::commands::{CommandTable, ExitStatus, Io};
use xir_test_corpus::lit::runner::{Status, Suite};
use xir_test_corpus::timings::target_dir;

/// A fresh suite rooted in its own scratch directory.
fn suite(name: &str) -> Suite {
    let base = target_dir().join("lit-selftest").join(name);
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(base.join("src")).unwrap();
    let mut table = CommandTable::standard();
    table.register("boom", |_: &mut Io<'_>| -> ExitStatus { panic!("kaboom") });
    table.register("interleave", |io: &mut Io<'_>| {
        for i in 0..3 {
            let _ = writeln!(io.stdout, "out {i}");
            let _ = writeln!(io.stderr, "err {i}");
        }
        ExitStatus::code(0)
    });
    Suite {
        table,
        features: ["present".to_string()].into_iter().collect::<BTreeSet<_>>(),
        source_root: base.join("src"),
        tmp_root: base.join("tmp"),
        timeout: None,
    }
}

fn write(s: &Suite, rel: &str, text: &str) -> PathBuf {
    let p = s.source_root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, text).unwrap();
    p
}

fn run(s: &Suite, rel: &str, text: &str) -> (Status, String) {
    let p = write(s, rel, text);
    let o = s.run_file(&p);
    (o.status, o.log)
}

#[test]
fn pass_and_fail_with_transcript() {
    let s = suite("pass-fail");
    let (st, _) = run(
        &s,
        "a.xir",
        "// RUN: echo hello world | FileCheck %s\n// CHECK: hello\n",
    );
    assert_eq!(st, Status::Pass);
    let (st, log) = run(
        &s,
        "b.xir",
        "// RUN: echo hello | FileCheck %s\n// CHECK: goodbye\n",
    );
    assert_eq!(st, Status::Fail);
    assert!(
        log.contains("RUN: at line 1: echo hello | FileCheck %s"),
        "{log}"
    );
    assert!(log.contains("$ echo hello"), "{log}");
    assert!(log.contains("# | hello"), "command output is quoted: {log}");
    assert!(
        log.contains("error: CHECK: expected string not found in input"),
        "{log}"
    );
    assert!(log.contains("error: RUN line 1 failed"), "{log}");
}

#[test]
fn xfail_xpass_unsupported_unresolved() {
    let s = suite("codes");
    let fail = "// RUN: not echo x\n";
    let pass = "// RUN: echo x\n";
    assert_eq!(
        run(&s, "1.xir", &format!("// XFAIL: *\n{fail}")).0,
        Status::XFail
    );
    let (st, log) = run(&s, "2.xir", &format!("// XFAIL: present\n{pass}"));
    assert_eq!(st, Status::XPass);
    assert!(st.is_failure());
    assert!(log.contains("passed unexpectedly"), "{log}");
    assert_eq!(
        run(&s, "3.xir", &format!("// XFAIL: absent\n{pass}")).0,
        Status::Pass
    );
    let (st, log) = run(
        &s,
        "4.xir",
        &format!("// REQUIRES: present, absent\n{fail}"),
    );
    assert_eq!(st, Status::Unsupported);
    assert!(log.contains("unavailable features: absent"), "{log}");
    assert_eq!(
        run(&s, "5.xir", &format!("// UNSUPPORTED: present\n{fail}")).0,
        Status::Unsupported
    );
    assert_eq!(
        run(
            &s,
            "6.xir",
            &format!("// REQUIRES: present && !absent\n{pass}")
        )
        .0,
        Status::Pass
    );
    assert_eq!(run(&s, "7.xir", "no run lines\n").0, Status::Unresolved);
    assert_eq!(
        run(&s, "8.xir", "// RUN: echo 'unterminated\n").0,
        Status::Unresolved
    );
    assert_eq!(run(&s, "9.xir", "// RUN: no-such-tool\n").0, Status::Fail);
}

#[test]
fn not_and_crashes() {
    let s = suite("not");
    assert_eq!(
        run(&s, "a.xir", "// RUN: not cat %t.missing\n").0,
        Status::Pass
    );
    assert_eq!(run(&s, "b.xir", "// RUN: not echo x\n").0, Status::Fail);
    assert_eq!(run(&s, "c.xir", "// RUN: not not echo x\n").0, Status::Pass);
    assert_eq!(
        run(&s, "d.xir", "// RUN: not --crash boom\n").0,
        Status::Pass
    );
    let (st, log) = run(&s, "e.xir", "// RUN: not boom\n");
    assert_eq!(st, Status::Fail, "a crash is not an ordinary failure");
    assert!(log.contains("panic: kaboom"), "{log}");
    assert_eq!(
        run(&s, "f.xir", "// RUN: not --crash echo x\n").0,
        Status::Fail
    );
    // xir-opt's internal-error status would count as a crash; a usage error does not.
    assert_eq!(
        run(&s, "g.xir", "// RUN: not --crash xir-opt --bogus\n").0,
        Status::Fail
    );
}

#[test]
fn lists_and_redirections() {
    let s = suite("redir");
    let (st, log) = run(
        &s,
        "a.xir",
        "// RUN: echo one > %t && echo two >> %t && cat %t | FileCheck %s\n\
         // CHECK: one\n// CHECK-NEXT: two\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
    // Shared destination keeps the exact interleaving of stdout and stderr.
    let (st, log) = run(
        &s,
        "b.xir",
        "// RUN: interleave 2>&1 | FileCheck %s\n\
         // CHECK: out 0\n// CHECK-NEXT: err 0\n// CHECK-NEXT: out 1\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
    // `2>&1 > F`: stderr goes where stdout was (the pipe), stdout to F.
    let (st, log) = run(
        &s,
        "c.xir",
        "// RUN: interleave 2>&1 > %t.o | FileCheck %s --check-prefix=PIPE\n\
         // RUN: FileCheck %s --check-prefix=FILE < %t.o\n\
         // PIPE-NOT: out\n// FILE-NOT: err\n// FILE: out 2\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
    let (st, log) = run(
        &s,
        "d.xir",
        "// RUN: interleave 2> %t.e > %t.o ; diff %t.e %t.o || echo differ | FileCheck %s\n// CHECK: differ\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
    assert!(
        log.contains("-err 0") && log.contains("+out 0"),
        "diff output is logged: {log}"
    );
    let (st, _) = run(
        &s,
        "e.xir",
        "// RUN: echo a > %t.1 && echo a > %t.2 && diff %t.1 %t.2\n",
    );
    assert_eq!(st, Status::Pass);
    let (st, _) = run(
        &s,
        "f.xir",
        "// RUN: not echo x && echo y > %t.never\n// RUN: not cat %t.never\n",
    );
    assert_eq!(
        st,
        Status::Fail,
        "`&&` stops after a failure, failing the RUN line"
    );
}

#[test]
fn substitutions_and_rm_safety() {
    let s = suite("subst");
    let (st, log) = run(
        &s,
        "dir/x.xir",
        "// RUN: echo %s %S %t %% | FileCheck %s\n\
         // CHECK: {{.*}}/src/dir/x.xir {{.*}}/src/dir {{.*}}/tmp/dir/Output/x.xir.tmp %{{$}}\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
    let (st, log) = run(&s, "r.xir", "// RUN: rm -f %S/r.xir\n");
    assert_eq!(st, Status::Fail);
    assert!(log.contains("refusing to remove"), "{log}");
    assert!(s.source_root.join("r.xir").exists());
    let (st, log) = run(
        &s,
        "m.xir",
        "// RUN: mkdir -p %t/sub && echo x > %t/sub/f && rm -rf %t && not cat %t/sub/f\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
}

#[test]
fn bless_rewrites_only_the_block() {
    let s = suite("bless");
    let text = "// RUN: echo -e 'kernel %7 (\\n    %8: u32;\\n) = define %9: {\\n    %10: void = br %9;\\n};' \\\n\
                // RUN:   | FileCheck %s\n\
                // CHECK: hand-written line outside the block stays\n\
                // AUTOGEN-CHECKS: begin\n\
                // CHECK: stale\n\
                // AUTOGEN-CHECKS: end\n\
                // trailing comment\n";
    let p = write(&s, "b.xir", text);
    // Before blessing the stale check fails.
    assert_eq!(s.run_file(&p).status, Status::Fail);
    let Blessed::Updated(diff) = bless::bless_file(&s, &p).unwrap() else {
        panic!("expected an update")
    };
    assert!(diff.contains("-// CHECK: stale"), "{diff}");
    assert!(
        diff.contains("+// CHECK-NEXT:     [[V3:%[0-9]+]]: void = br [[V2]];"),
        "{diff}"
    );
    let new = std::fs::read_to_string(&p).unwrap();
    assert!(new.contains("// CHECK: hand-written line outside the block stays\n"));
    assert!(new.ends_with("// AUTOGEN-CHECKS: end\n// trailing comment\n"));
    assert!(new.contains("// CHECK: kernel [[V0:%[0-9]+]] ("), "{new}");
    // The hand-written check no longer matches anything, so drop it, then re-run.
    let fixed = new.replace("// CHECK: hand-written line outside the block stays\n", "");
    std::fs::write(&p, &fixed).unwrap();
    let o = s.run_file(&p);
    assert_eq!(o.status, Status::Pass, "{}", o.log);
    assert_eq!(bless::bless_file(&s, &p).unwrap(), Blessed::Unchanged);
    // XFAIL files and files without a block are left alone.
    let x = write(&s, "x.xir", &format!("// XFAIL: *\n{fixed}"));
    assert_eq!(bless::bless_file(&s, &x).unwrap(), Blessed::SkippedXfail);
    let n = write(&s, "n.xir", "// RUN: echo x\n");
    assert_eq!(bless::bless_file(&s, &n).unwrap(), Blessed::NoBlock);
}

#[test]
fn suite_names_are_relative() {
    let s = suite("names");
    let p: &Path = &s.source_root.join("driver/x.xir");
    assert_eq!(s.name_of(p), "driver/x.xir");
}

#[test]
fn temporary_directory_is_made_only_when_needed() {
    let s = suite("lazy-tmp");
    // No %t and no relative path: nothing is created on disk.
    let (st, log) = run(
        &s,
        "d/plain.xir",
        "// RUN: echo hi | FileCheck %s\n// CHECK: hi\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
    assert!(!s.tmp_root.join("d").exists());
    // %t: its directory exists before the first command.
    let (st, log) = run(
        &s,
        "d/named.xir",
        "// RUN: echo hi > %t\n// RUN: FileCheck %s < %t\n// CHECK: hi\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
    assert!(s.tmp_root.join("d/Output/named.xir.tmp").is_file());
    // A relative path (redirection or builtin operand) makes the working directory.
    let (st, log) = run(
        &s,
        "e/relative.xir",
        "// RUN: echo hi > rel.txt\n// RUN: cat rel.txt | FileCheck %s\n// CHECK: hi\n",
    );
    assert_eq!(st, Status::Pass, "{log}");
    assert!(s.tmp_root.join("e/rel.txt").is_file());
}
