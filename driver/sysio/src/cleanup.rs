//! Removing temporary files and scratch directories when the process is interrupted.
//!
//! Whoever creates a temporary path registers it ([`register`]) for as long as it
//! exists; the returned [`Registration`] takes it off the list when dropped (the owner
//! removes or renames the path itself on the normal paths). A binary calls
//! [`install_signal_cleanup`] once: a thread then waits (through `signal-hook`, no
//! hand-written signal handler) for SIGINT, SIGTERM or SIGHUP, removes every registered
//! path and lets the signal take its default effect, so the shell still sees the
//! process killed by it (status 130 for SIGINT, 143 for SIGTERM).
//!
//! Child process groups started by [`crate::child::run`] are registered the same way
//! and killed first.
//!
//! Library callers (tests, the in-process corpus runner) never install the handler: the
//! registry is then only a list.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

enum What {
    File(PathBuf),
    Dir(PathBuf),
    /// A child's process group, killed (SIGKILL) before any path is removed.
    ProcessGroup(u32),
}

struct Entry {
    id: u64,
    what: What,
}

static REGISTRY: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
static NEXT: AtomicU64 = AtomicU64::new(0);
/// Set by the signal thread before it kills anything: the process is being interrupted.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

fn registry() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A registered temporary path; dropping it unregisters the path (without removing it).
#[derive(Debug)]
#[must_use = "the path is unregistered when this is dropped"]
pub struct Registration(u64);

impl Drop for Registration {
    fn drop(&mut self) {
        registry().retain(|e| e.id != self.0);
    }
}

/// Registers a temporary file (`dir == false`) or directory (removed with its
/// contents) to be removed if the process is interrupted. Register before creating it.
pub fn register(path: &Path, dir: bool) -> Registration {
    let path = path.to_path_buf();
    add(if dir {
        What::Dir(path)
    } else {
        What::File(path)
    })
}

/// Registers a running child's process group (see [`crate::child`]), killed if this
/// process is interrupted, so a child started in a group of its own is not orphaned.
pub fn register_process_group(pgid: u32) -> Registration {
    add(What::ProcessGroup(pgid))
}

fn add(what: What) -> Registration {
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    registry().push(Entry { id, what });
    Registration(id)
}

/// Kills every registered process group, then removes every registered path (what the
/// signal thread does).
pub fn remove_registered() {
    remove_where(|_| true);
}

/// Kills and removes the registered entries `pick` selects, and unregisters them.
fn remove_where(pick: impl Fn(u64) -> bool) {
    let entries: Vec<Entry> = {
        let mut reg = registry();
        let (picked, kept) = reg.drain(..).partition(|e| pick(e.id));
        *reg = kept;
        picked
    };
    for e in &entries {
        if let What::ProcessGroup(pgid) = e.what {
            crate::child::signal_group(pgid, rustix::process::Signal::KILL);
        }
    }
    for e in entries {
        let _ = match &e.what {
            What::Dir(p) => std::fs::remove_dir_all(p),
            What::File(p) => std::fs::remove_file(p),
            What::ProcessGroup(_) => Ok(()),
        };
    }
}

/// Starts the thread that cleans up on SIGINT, SIGTERM and SIGHUP and then ends the
/// process by the signal's default action. Call once, early in `main`.
pub fn install_signal_cleanup() -> std::io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new()
        .name("xir-signal-cleanup".into())
        .spawn(move || {
            if let Some(sig) = signals.forever().next() {
                INTERRUPTED.store(true, Ordering::SeqCst);
                remove_registered();
                // Dies of the signal; should that fail, exit as a shell would report it.
                let _ = signal_hook::low_level::emulate_default_handler(sig);
                std::process::exit(128 + sig);
            }
        })?;
    Ok(())
}

/// Ends the process with `code`, unless a signal is being handled: then the caller waits
/// for the signal thread to end the process by the signal. Without this, a main thread
/// that saw its child killed by the cleanup could exit with its own status first (an
/// interrupted `xir-bisect` exited 5 instead of dying of SIGINT on a loaded machine).
pub fn exit(code: i32) -> ! {
    if INTERRUPTED.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
    std::process::exit(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registered_paths_are_removed_and_dropped_ones_kept() {
        let base = std::env::temp_dir().join(format!("xir-sysio-cleanup-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("scratch/sub")).unwrap();
        std::fs::write(base.join("scratch/sub/f"), "x").unwrap();
        std::fs::write(base.join("tmp"), "x").unwrap();
        std::fs::write(base.join("kept"), "x").unwrap();
        let _dir = register(&base.join("scratch"), true);
        let _file = register(&base.join("tmp"), false);
        drop(register(&base.join("kept"), false));
        // Only this test's entries: other tests in this process register theirs.
        let mine = [_dir.0, _file.0];
        remove_where(|id| mine.contains(&id));
        assert!(!base.join("scratch").exists());
        assert!(!base.join("tmp").exists());
        assert!(base.join("kept").exists());
        let _ = std::fs::remove_dir_all(&base);
    }
}
