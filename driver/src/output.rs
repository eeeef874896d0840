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
    let tmp = temp_path(target)?;
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(data)?;
        drop(f);
        std::fs::rename(&tmp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
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
    fn missing_directory_is_an_error() {
        let d = scratch("missing");
        let t = d.join("no/such/dir/out.xir");
        assert!(write_atomically(&t, b"x").is_err());
        assert!(!t.exists());
        let _ = std::fs::remove_dir_all(&d);
    }
}
