//! An interrupted `xir-bisect` or `xir-reduce` leaves no scratch directory behind: the
//! binaries run with a private `TMPDIR`, a slow oracle is started, SIGTERM or SIGINT arrives
//! while it runs, and the private directory must be empty afterwards.

use std::path::PathBuf;
use std::process::{Command, Stdio};

const SAXPY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/saxpy.xir");

fn interrupted_run_leaves_nothing(tool: &str, signal: (&str, i32), args: &[&str]) {
    let tmp: PathBuf =
        std::env::temp_dir().join(format!("xir-signals-{}-{tool}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let mut child = Command::new(tool)
        .args(args)
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The oracle sleeps inside a scratch directory: wait until it exists.
    let start = std::time::Instant::now();
    while std::fs::read_dir(&tmp).unwrap().next().is_none() {
        assert!(
            start.elapsed().as_secs() < 60,
            "{tool} made no scratch directory"
        );
        assert!(child.try_wait().unwrap().is_none(), "{tool} ended early");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let st = Command::new("kill")
        .args([signal.0, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let status = child.wait().unwrap();
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(status.signal(), Some(signal.1), "{tool}: {status:?}");
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(left.is_empty(), "{tool} left {left:?}");
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn sigterm_removes_xir_reduce_scratch_directories() {
    interrupted_run_leaves_nothing(
        env!("CARGO_BIN_EXE_xir-reduce"),
        ("-TERM", 15),
        &["--test", "sleep 20; true", SAXPY],
    );
}

#[test]
fn sigint_removes_xir_bisect_scratch_directories() {
    interrupted_run_leaves_nothing(
        env!("CARGO_BIN_EXE_xir-bisect"),
        ("-INT", 2),
        &["--cmd", "sleep 20; true", SAXPY, "--", "--passes=dce"],
    );
}
