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
    write_behind(f, write)?;
    std::fs::rename(&tmp.0, target)?;
    std::mem::forget(tmp);
    Ok(())
}

/// Bytes per buffer handed to the writer thread.
const CHUNK: usize = 1 << 20;

/// Runs `produce` with a writer whose bytes reach `sink` on a second thread, so the
/// system calls that copy a large output into the page cache overlap with producing it
/// (the printer). Buffers of `CHUNK` (1 MiB) bytes travel through a bounded channel (two in
/// flight) and come back to be refilled. The first error of either side is returned.
pub fn write_behind<W: Write + Send>(
    mut sink: W,
    produce: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    std::thread::scope(|scope| {
        let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
        let (empty_tx, empty_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(4);
        let writer = scope.spawn(move || -> std::io::Result<()> {
            for mut chunk in full_rx {
                sink.write_all(&chunk)?;
                chunk.clear();
                let _ = empty_tx.try_send(chunk);
            }
            sink.flush()
        });
        let mut w = ChunkSender {
            buf: Vec::with_capacity(CHUNK),
            full: Some(full_tx),
            empty: empty_rx,
        };
        let produced = produce(&mut w).and_then(|()| w.flush_chunk());
        // Closing the channel ends the writer thread once it has written the rest.
        w.full = None;
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("writer thread panicked")));
        // A writer-side error explains a producer-side "writer thread stopped".
        written.and(produced)
    })
}

/// The producer's end of [`write_behind`].
struct ChunkSender {
    buf: Vec<u8>,
    full: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    empty: std::sync::mpsc::Receiver<Vec<u8>>,
}

impl ChunkSender {
    fn flush_chunk(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let next = self
            .empty
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(CHUNK));
        let chunk = std::mem::replace(&mut self.buf, next);
        let stopped = || std::io::Error::other("writer thread stopped");
        self.full
            .as_ref()
            .ok_or_else(stopped)?
            .send(chunk)
            .map_err(|_| stopped())
    }
}

impl Write for ChunkSender {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, mut data: &[u8]) -> std::io::Result<()> {
        while !data.is_empty() {
            let room = CHUNK - self.buf.len();
            let (now, rest) = data.split_at(room.min(data.len()));
            self.buf.extend_from_slice(now);
            data = rest;
            if self.buf.len() == CHUNK {
                self.flush_chunk()?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
    fn write_behind_delivers_every_byte_in_order() {
        let mut expected = Vec::new();
        for i in 0..600_000u32 {
            expected.extend_from_slice(format!("{i},").as_bytes());
        }
        assert!(expected.len() > 2 * CHUNK);
        let mut got = Vec::new();
        write_behind(&mut got, |w| {
            // Uneven pieces, some larger than a chunk.
            let mut rest = &expected[..];
            let mut n = 1;
            while !rest.is_empty() {
                let (a, b) = rest.split_at((n * 7919 % (3 * CHUNK)).min(rest.len()).max(1));
                w.write_all(a)?;
                rest = b;
                n += 1;
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(got.len(), expected.len());
        assert!(got == expected, "bytes differ");
    }

    #[test]
    fn write_behind_reports_the_sink_error() {
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let r = write_behind(Full, |w| {
            for _ in 0..10 {
                w.write_all(&vec![b'x'; CHUNK])?;
            }
            Ok(())
        });
        assert_eq!(r.unwrap_err().to_string(), "disk full");
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
