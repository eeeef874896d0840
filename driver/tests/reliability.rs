//! The `xir-opt` binary under faults a user meets (docs/reliability.md): a full
//! standard output, an endless input, an interrupted run, `-o` naming a link, a FIFO
//! or a file with its own mode. Each test runs the real binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const XIR_OPT: &str = env!("CARGO_BIN_EXE_xir-opt");
const SAXPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/saxpy.xir");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xir-reliability-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn dev_full() -> Option<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok()
}

#[test]
fn a_full_standard_output_is_an_error_for_every_emit_form() {
    let Some(_) = dev_full() else {
        eprintln!("no /dev/full; skipped");
        return;
    };
    for extra in [
        &[][..],
        &["--emit=bitcode"],
        &["--emit=interchange"],
        &["--emit=xir-flat"],
        &["--split-input-file"],
        &["--passes=dce", "--print-changed"],
        &["--help"],
    ] {
        let out = Command::new(XIR_OPT)
            .arg(SAXPY)
            .args(extra)
            .stdout(dev_full().unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(
            err.contains(
                "xir-opt: error: cannot write to standard output: No space left on device"
            ),
            "{extra:?}: {err}"
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    // Far more output than a pipe buffer holds, into a pipe nobody reads.
    let dir = scratch("epipe");
    let input = dir.join("big.xir");
    let big = large_module(2000);
    std::fs::write(&input, big).unwrap();
    let mut child = Command::new(XIR_OPT)
        .arg(&input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked") && !err.contains("error"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_endless_input_stops_at_the_limit() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    // A file that never ends, then a pipe that never ends.
    let file = Command::new(XIR_OPT)
        .arg("/dev/zero")
        .env("XIR_MAX_INPUT_BYTES", "100000")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&file.stderr);
    assert_eq!(file.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot read '/dev/zero': the input is too large (the limit is 100000 bytes"),
        "{err}"
    );
    let stdin = Command::new(XIR_OPT)
        .env("XIR_MAX_INPUT_BYTES", "100000")
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&stdin.stderr);
    assert_eq!(stdin.status.code(), Some(1), "{err}");
    assert!(
        err.contains("xir-opt: error: cannot read standard input: the input is too large"),
        "{err}"
    );
    // A regular file over the limit fails before it is read; one at the limit is read.
    let dir = scratch("limit");
    let f = dir.join("in.xir");
    std::fs::write(&f, "module;\n").unwrap();
    for (limit, code) in [("7", 1), ("8", 0)] {
        let o = Command::new(XIR_OPT)
            .arg(&f)
            .env("XIR_MAX_INPUT_BYTES", limit)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(code), "limit {limit}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dash_o_writes_through_links_and_fifos_and_keeps_the_mode() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let dir = scratch("dash-o");
    let real = dir.join("real.xir");
    std::fs::write(&real, "old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.join("link.xir");
    std::os::unix::fs::symlink("real.xir", &link).unwrap();
    let st = Command::new(XIR_OPT)
        .arg(SAXPY)
        .arg("-o")
        .arg(&link)
        .status()
        .unwrap();
    assert!(st.success());
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let m = std::fs::metadata(&real).unwrap();
    assert_eq!(m.permissions().mode() & 0o777, 0o600);
    assert!(std::fs::read_to_string(&real).unwrap().contains("kernel"));

    let fifo = dir.join("fifo");
    if Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        let st = Command::new(XIR_OPT)
            .arg(SAXPY)
            .arg("-o")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(st.success());
        assert!(reader.join().unwrap().contains("kernel"));
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    }
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(names.len() <= 3, "temporary files left: {names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A module large enough that a debug build prints it for a good while.
fn large_module(functions: usize) -> String {
    let mut s = String::from("module;\n\n");
    for k in 0..functions {
        s.push_str(&format!(
            "callable %f{k}: f32 (\n    %a{k}: f32;\n) = define %b{k}: {{\n    %s{k}: f32 = arithmetic binary_add %a{k}, %a{k};\n    %t{k}: f32 = arithmetic binary_mul %s{k}, %s{k};\n    %r{k}: void = return %t{k};\n}};\n\n"
        ));
    }
    s
}

#[test]
fn sigterm_removes_the_temporary_output_file() {
    let dir = scratch("sigterm");
    let input = dir.join("in.xir");
    let mut functions = 40_000;
    for _attempt in 0..4 {
        std::fs::write(&input, large_module(functions)).unwrap();
        let out = dir.join("out.xir");
        let mut child = Command::new(XIR_OPT)
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Wait for the hidden temporary file to appear, then interrupt the run.
        let start = std::time::Instant::now();
        let mut seen = false;
        while start.elapsed().as_secs() < 120 {
            let tmp = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .any(|e| e.file_name().to_string_lossy().ends_with(".tmp"));
            if tmp {
                seen = true;
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if !seen {
            // The run finished before the file was seen: try a larger input.
            let _ = child.wait();
            let _ = std::fs::remove_file(&out);
            functions *= 2;
            continue;
        }
        let killed = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = child.wait().unwrap();
        use std::os::unix::process::ExitStatusExt;
        if status.signal() == Some(15) || status.code() == Some(143) {
            let left: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            assert_eq!(left, vec!["in.xir".to_string()], "files left after SIGTERM");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
        // The run completed between the check and the signal: try again.
        let _ = std::fs::remove_file(&out);
    }
    panic!("could not interrupt a run while it wrote its output");
}

#[test]
fn stdout_write_errors_do_not_lose_the_status_of_a_failed_run() {
    let Some(full) = dev_full() else {
        return;
    };
    let mut child = Command::new(XIR_OPT)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(full)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"module;\nthis is not xir\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// A `depth`-deep nest of `simple_loop`s with one dead instruction innermost.
fn deep_loops(depth: usize) -> String {
    let mut s = String::from("module;\n\nkernel %0 (\n    %c: u32;\n) = define %e: {\n");
    for d in 1..=depth {
        s.push_str(&format!("%l{d}: void = simple_loop body %b{d}: {{\n"));
    }
    s.push_str(&format!(
        "%dead: u32 = arithmetic binary_add %c, %c;\n%t: void = break %m{depth};\n"
    ));
    for d in (1..=depth).rev() {
        s.push_str(&format!("}}, merge %m{d}: {{\n"));
        if d == 1 {
            s.push_str("%r: void = return;\n");
        } else {
            s.push_str(&format!("%t{d}: void = break %m{};\n", d - 1));
        }
        s.push_str("};\n");
    }
    s.push_str("};\n");
    s
}

#[test]
fn print_changed_on_deep_nesting_is_linear_in_the_change() {
    // One removed instruction 2,000 levels deep: the diff is a handful of lines, each
    // indented at most 128 columns (unbounded indentation made each 8,000 wide and the
    // texts diffed 16 MB).
    let text = deep_loops(2000);
    let args: Vec<String> = ["-", "--passes=dce", "--print-changed"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = xir_driver::xir_opt_main(&args, text.as_bytes(), &mut out, &mut err);
    let err = String::from_utf8(err).unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("IR Dump Changed By dce"), "{err}");
    assert!(
        err.contains("-") && err.contains("arithmetic binary_add"),
        "{err}"
    );
    assert!(err.len() < 4096, "{} bytes of diff", err.len());
    assert!(
        out.len() < 250 * text.lines().count(),
        "{} bytes printed",
        out.len()
    );
}
