//! Library API, CLI and output-format tests.

use xir_filecheck::{CheckFile, Options, first_error_line, run_filecheck};

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn typed_api_pass_and_fail() {
    let cf = CheckFile::parse(
        "CHECK: a [[X:[0-9]+]]\nCHECK-NEXT: b [[X]]\n",
        &Options::default(),
    )
    .unwrap();
    assert!(cf.check(b"a 1\nb 1\n").is_ok());
    let f = cf.check(b"a 1\nb 2\n").unwrap_err();
    assert_eq!(f.line, Some(2));
    assert!(
        f.message
            .starts_with("<check>:2:13: error: CHECK-NEXT: expected string not found in input")
    );
}

#[test]
fn typed_api_parse_error() {
    let d = CheckFile::parse("CHECK-NEXT: a\n", &Options::default()).unwrap_err();
    assert_eq!(d.code, 2);
    assert!(
        d.text
            .starts_with("<check>:1:1: error: found 'CHECK-NEXT' without previous 'CHECK: line")
    );
}

#[test]
fn typed_api_reusable() {
    let cf = CheckFile::parse("CHECK: [[#N:]]\nCHECK: [[#N+1]]\n", &Options::default()).unwrap();
    assert!(cf.check(b"1\n2\n").is_ok());
    assert!(cf.check(b"5\n6\n").is_ok());
    assert!(cf.check(b"5\n7\n").is_err());
}

#[test]
fn stdin_check_file_with_input_file() {
    let dir = std::env::temp_dir().join(format!("xir-fc-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.txt");
    std::fs::write(&input, "hello\n").unwrap();
    let out = run_filecheck(
        &args(&["-", "--input-file", input.to_str().unwrap()]),
        b"CHECK: hello\n",
        None,
    );
    assert_eq!(out.code, 0);
}

#[test]
fn missing_input_file() {
    let out = run_filecheck(
        &args(&["-", "--input-file=/nonexistent/x"]),
        b"CHECK: a\n",
        None,
    );
    assert_eq!(out.code, 2);
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("Could not open input file"));
}

#[test]
fn no_check_file() {
    let out = run_filecheck(&[], b"", None);
    assert_eq!(out.code, 2);
    assert_eq!(out.stderr, b"<check-file> not specified\n");
}

#[test]
fn env_options_apply() {
    let dir = std::env::temp_dir().join(format!("xir-fc-api-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let check = dir.join("c.txt");
    std::fs::write(&check, "CHECK: ABC\n").unwrap();
    let c = check.to_str().unwrap().to_string();
    assert_eq!(
        run_filecheck(std::slice::from_ref(&c), b"abc\n", None).code,
        1
    );
    assert_eq!(
        run_filecheck(std::slice::from_ref(&c), b"abc\n", Some("--ignore-case")).code,
        0
    );
    assert_eq!(
        run_filecheck(&[c], b"abc\n", Some("'--ignore-case' -v")).code,
        0
    );
}

#[test]
fn dump_input_help_to_stdout() {
    let out = run_filecheck(&args(&["--dump-input=help"]), b"", None);
    assert_eq!(out.code, 0);
    assert!(String::from_utf8_lossy(&out.stdout).contains("Input dump annotation format"));
}

#[test]
fn dump_format_matches_llvm() {
    let cf = CheckFile::parse(
        "CHECK: foo\nCHECK-NEXT: bar\nCHECK: baz\n",
        &Options::default(),
    )
    .unwrap();
    let (ok, err) = cf.check_named(b"foo\nbar\nbzz\nqux\n", "<stdin>", "c.txt");
    assert!(!ok);
    let s = String::from_utf8(err).unwrap();
    let dump = &s[s.find("<<<<<<").unwrap()..];
    assert_eq!(
        dump,
        "<<<<<<\n           1: foo \n           2: bar \ncheck:3'0        X error: no match found\n           3: bzz \ncheck:3'0     ~~~~\ncheck:3'1     ?    possible intended match\n           4: qux \ncheck:3'0     ~~~~\n>>>>>>\n"
    );
}

#[test]
fn near_miss_diff_is_rendered() {
    let cf = CheckFile::parse("CHECK: foo\nCHECK: baz\n", &Options::default()).unwrap();
    let f = cf.check(b"foo\nbar\nbzz\n").unwrap_err();
    assert!(f.message.contains("note: possible intended match here"));
    assert!(
        f.message
            .contains("near miss differs from the pattern by 1 edit(s)")
    );
    assert!(f.message.contains("diff:    ba[-z-]{+r+}"), "{}", f.message);
}

#[test]
fn near_miss_keeps_substitutions_as_written() {
    // LLVM's regex text for this pattern is `t\.x::3: err` (the `[[@LINE+1]]` left out);
    // the note shows the pattern as written (issue 15, item 15).
    let cf = CheckFile::parse("CHECK: t.x:[[@LINE+1]]:3: err\n", &Options::default()).unwrap();
    let f = cf.check(b"other\nt.x:9:3: err\n").unwrap_err();
    assert!(
        f.message.contains("pattern: t.x:[[@LINE+1]]:3: err"),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("near miss differs from the pattern"),
        "{}",
        f.message
    );
}

#[test]
fn near_miss_can_be_disabled() {
    let o = Options {
        no_near_miss_diff: true,
        ..Options::default()
    };
    let cf = CheckFile::parse("CHECK: foo\nCHECK: baz\n", &o).unwrap();
    let f = cf.check(b"foo\nbar\nbzz\n").unwrap_err();
    assert!(!f.message.contains("near miss"));
}

#[test]
fn verbose_remarks_without_dump() {
    let dir = std::env::temp_dir().join(format!("xir-fc-api-v-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let check = dir.join("c.txt");
    std::fs::write(&check, "CHECK: a\n").unwrap();
    let out = run_filecheck(
        &args(&[check.to_str().unwrap(), "-v", "--dump-input=never"]),
        b"a\n",
        None,
    );
    assert_eq!(out.code, 0);
    let s = String::from_utf8_lossy(&out.stderr);
    assert!(s.contains(": remark: CHECK: expected string found in input"));
    assert!(s.contains("<stdin>:1:1: note: found here\na\n^\n"));
}

#[test]
fn first_error_line_parser() {
    assert_eq!(
        first_error_line("x\nc.txt:12:3: error: boom\n", "c.txt"),
        Some(12)
    );
    assert_eq!(
        first_error_line("command line:1:22: error: boom\n", "c.txt"),
        None
    );
}

#[test]
fn cli_separate_values_and_single_dash() {
    let cli = xir_filecheck::cli::parse(
        &args(&[
            "c",
            "-check-prefix",
            "A",
            "--check-prefixes=B,C",
            "-DX=1",
            "-D#N=2",
        ]),
        None,
    )
    .unwrap();
    assert_eq!(cli.opts.check_prefixes, vec!["A", "B", "C"]);
    assert_eq!(cli.opts.defines, vec!["X=1", "#N=2"]);
    assert_eq!(cli.check_file.as_deref(), Some("c"));
}

#[test]
fn cli_dump_precedence() {
    let cli = xir_filecheck::cli::parse(
        &args(&["c", "--dump-input=never", "--dump-input=always"]),
        None,
    )
    .unwrap();
    assert_eq!(cli.opts.dump_input, Some(xir_filecheck::DumpInput::Always));
}

#[test]
fn cli_tokenize_env() {
    assert_eq!(
        xir_filecheck::cli::tokenize(" -v  'a b' c\\ d"),
        vec!["-v", "a b", "c d"]
    );
}
