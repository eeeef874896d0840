//! Running a child process under a time limit, and killing its whole process tree.
//!
//! [`run`] starts the command in a process group of its own (so a `sh -c` and everything
//! it starts can be signalled together), feeds its standard input and collects its
//! output from threads (no pipe deadlock), and waits at most the given time. When the
//! time is up the group gets SIGTERM — an xir tool in it then kills *its* children's
//! groups through [`crate::cleanup`] and removes its scratch files — and, 200 ms later,
//! SIGKILL. While the child runs its group is registered with [`crate::cleanup`], so a
//! SIGINT/SIGTERM of this process kills it too (it is not in the terminal's foreground
//! group any more, so a Ctrl-C would not reach it otherwise).

use rustix::process::{Pid, Signal, kill_process_group};
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How a child ended.
#[derive(Debug)]
pub struct Finished {
    /// Its exit status (after a timeout: killed by a signal).
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
    /// It ran past the limit and its process group was killed.
    pub timed_out: bool,
}

/// Sends `sig` to the process group `pgid` (errors ignored: the group may be gone).
pub fn signal_group(pgid: u32, sig: Signal) {
    if let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) {
        let _ = kill_process_group(pid, sig);
    }
}

/// How long a group has between SIGTERM and SIGKILL.
const GRACE: Duration = Duration::from_millis(200);

/// Runs `cmd` (its stdio is replaced by pipes) with `stdin`, for at most `limit`.
pub fn run(cmd: &mut Command, stdin: &[u8], limit: Option<Duration>) -> std::io::Result<Finished> {
    let start = Instant::now();
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let pgid = child.id();
    let _registered = crate::cleanup::register_process_group(pgid);
    let feeder = child.stdin.take().map(|mut w| {
        let data = stdin.to_vec();
        std::thread::spawn(move || {
            let _ = w.write_all(&data);
        })
    });
    // Readers report through channels, so a grandchild that escaped the group and
    // still holds a pipe cannot keep us waiting after the child is gone.
    let reader = |r: Option<Box<dyn Read + Send>>| {
        let (tx, rx) = mpsc::channel();
        if let Some(mut r) = r {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let _ = r.read_to_end(&mut buf);
                let _ = tx.send(buf);
            });
        } else {
            let _ = tx.send(Vec::new());
        }
        rx
    };
    let out_rx = reader(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err_rx = reader(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let mut timed_out = false;
    let mut nap = Duration::from_millis(1);
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if limit.is_some_and(|l| start.elapsed() >= l) {
            timed_out = true;
            signal_group(pgid, Signal::TERM);
            let term_at = Instant::now();
            while term_at.elapsed() < GRACE {
                if child.try_wait()?.is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            // Whatever is left of the group (the child may have gone, a grandchild not).
            signal_group(pgid, Signal::KILL);
            break child.wait()?;
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(Duration::from_millis(20));
    };
    // After a timeout everything in the group is dead; wait briefly for the pipes.
    let patience = if timed_out {
        GRACE
    } else {
        Duration::from_secs(3600)
    };
    let stdout = out_rx.recv_timeout(patience).unwrap_or_default();
    let stderr = err_rx.recv_timeout(patience).unwrap_or_default();
    if let Some(f) = feeder
        && !timed_out
    {
        let _ = f.join();
    }
    Ok(Finished {
        status,
        stdout,
        stderr,
        timed_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_status_come_back() {
        let f = run(
            Command::new("sh").args(["-c", "cat; echo err >&2; exit 3"]),
            b"in\n",
            Some(Duration::from_secs(30)),
        )
        .unwrap();
        assert_eq!(f.status.code(), Some(3));
        assert_eq!(f.stdout, b"in\n");
        assert_eq!(f.stderr, b"err\n");
        assert!(!f.timed_out);
    }

    #[test]
    fn a_hanging_tree_is_killed_at_the_limit() {
        let marker = std::env::temp_dir().join(format!("xir-sysio-child-{}", std::process::id()));
        let _ = std::fs::remove_file(&marker);
        let start = Instant::now();
        // The shell starts a grandchild that would write the marker after 2 s.
        let script = format!("(sleep 2; touch '{}') & sleep 30", marker.display());
        let f = run(
            Command::new("sh").args(["-c", &script]),
            b"",
            Some(Duration::from_millis(300)),
        )
        .unwrap();
        assert!(f.timed_out);
        assert!(
            start.elapsed() < Duration::from_secs(2),
            "{:?}",
            start.elapsed()
        );
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the grandchild survived the timeout");
    }
}
