//! Writing `-o FILE` atomically: a temporary file in the same directory, renamed over
//! the target only once everything is written. On any error the target is untouched
//! and the temporary file is removed.
//!
//! The temporary file is not `fsync`ed before the rename. The rename already makes the
//! output appear whole or not at all to every other process, which is what a build
//! needs; durability across a power cut is not a compiler's job (LLVM's tools and
//! mlir-opt do not sync either), and a sync of a 70 MB output cost 0.3-3 s of wall time
//! on this project's machines.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn temp_path(target: &Path) -> std::io::Result<PathBuf> {
    let name = target
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"))?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = format!(
        ".{}.xir-opt-{}-{n}.tmp",
        name.to_string_lossy(),
        std::process::id()
    );
    Ok(dir.join(tmp))
}

/// Writes `data` to `target` through a temporary file and a rename.
pub fn write_atomically(target: &Path, data: &[u8]) -> std::io::Result<()> {
    write_atomically_with(target, |w| w.write_all(data))
}

/// Lets `write` fill a temporary file next to `target` (through a buffer), then renames
/// it over `target`. If `write` or the rename fails the temporary file is removed and
/// `target` is untouched.
pub fn write_atomically_with(
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let tmp = TempFile(temp_path(target)?);
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp.0)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
    write(&mut w)?;
    w.into_inner().map_err(|e| e.into_error())?;
    std::fs::rename(&tmp.0, target)?;
    std::mem::forget(tmp);
    Ok(())
}

/// Removes the temporary file when dropped: on every early return and also when the
/// writer panics (the driver catches panics and reports an internal error).
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("xir-opt-out-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn writes_and_replaces_leaving_no_temp_files() {
        let d = scratch("ok");
        let t = d.join("out.xir");
        write_atomically(&t, b"one").unwrap();
        write_atomically(&t, b"two").unwrap();
        assert_eq!(std::fs::read(&t).unwrap(), b"two");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn failed_writer_leaves_target_and_no_temp_file() {
        let d = scratch("failing");
        let t = d.join("out.xir");
        write_atomically(&t, b"old").unwrap();
        let r = write_atomically_with(&t, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("printer failed"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&t).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn panicking_writer_leaves_no_temp_file() {
        let d = scratch("panicking");
        let t = d.join("out.xir");
        let r = std::panic::catch_unwind(|| {
            write_atomically_with(&t, |w| {
                w.write_all(b"partial")?;
                panic!("printer bug")
            })
        });
        assert!(r.is_err());
        assert!(!t.exists());
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn missing_directory_is_an_error() {
        let d = scratch("missing");
        let t = d.join("no/such/dir/out.xir");
        assert!(write_atomically(&t, b"x").is_err());
        assert!(!t.exists());
        let _ = std::fs::remove_dir_all(&d);
    }
}
