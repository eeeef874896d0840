//! Writing `-o FILE` (and every other file a tool writes: `--dump-dir` files,
//! `--write-test`, reproducers) the way LLVM's tools do, without ever leaving half a
//! file behind.
//!
//! What the path names decides how it is written ([`Target::of`]):
//!
//! - nothing yet, or a regular file with one link: a temporary file in the same
//!   directory (`.NAME.xir-opt-PID-N.tmp`), renamed over the path only once everything
//!   is written. On any error the path is untouched and the temporary file is removed.
//!   A replaced file keeps its permission bits (and, where the process may set them,
//!   its owner and group), as `llvm-objcopy` and `llvm-strip` keep them.
//! - a symbolic link: followed; its final target is written as above, and the link
//!   stays a link.
//! - a regular file with several hard links: the output is first completed in a
//!   temporary file, then copied into the file itself (truncated in place), so every
//!   link still names it.
//! - anything else that is not a directory (a character device such as `/dev/null`, a
//!   FIFO, a socket): written through, as `opt -o /dev/null` does; nothing is renamed
//!   over it.
//!
//! Temporary files are registered with [`xir_sysio::cleanup`], so SIGINT and SIGTERM
//! remove them.
//!
//! The temporary file is not `fsync`ed before the rename. The rename already makes the
//! output appear whole or not at all to every other process, which is what a build
//! needs; durability across a power cut is not a compiler's job (LLVM's tools and
//! mlir-opt do not sync either), and a sync of a 70 MB output cost 0.3-3 s of wall time
//! on this project's machines.

use std::io::Write;
use std::os::unix::fs::MetadataExt;
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

/// How an output path is written (see the module documentation).
#[derive(Debug)]
pub enum Target {
    /// A new or singly-linked regular file at this path (symbolic links resolved): a
    /// temporary file renamed over it, keeping `keep`'s mode and owner when it exists.
    Replace {
        /// The path to rename over.
        path: PathBuf,
        /// The metadata of the file being replaced.
        keep: Option<std::fs::Metadata>,
    },
    /// A regular file that must keep its inode (hard links, a dangling symbolic link):
    /// completed in a temporary file next to it, then copied in.
    CopyIn(PathBuf),
    /// Not a regular file (a device, a FIFO, a socket): written through.
    Through(PathBuf),
}

impl Target {
    /// Classifies `path` by what it names now.
    pub fn of(path: &Path) -> std::io::Result<Target> {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Err(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "Is a directory",
            )),
            Ok(m) if !m.is_file() => Ok(Target::Through(path.to_path_buf())),
            Ok(m) if m.nlink() > 1 => Ok(Target::CopyIn(path.to_path_buf())),
            Ok(m) => Ok(Target::Replace {
                path: std::fs::canonicalize(path)?,
                keep: Some(m),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                    // A dangling link: create its target through it.
                    Ok(Target::CopyIn(path.to_path_buf()))
                } else {
                    Ok(Target::Replace {
                        path: path.to_path_buf(),
                        keep: None,
                    })
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Whether the output can still be withdrawn after it has begun (not so for a
    /// device or a FIFO, which receive the bytes as they are written).
    pub fn is_withdrawable(&self) -> bool {
        !matches!(self, Target::Through(_))
    }
}

/// Writes `data` to `target` (see the module documentation).
pub fn write_atomically(target: &Path, data: &[u8]) -> std::io::Result<()> {
    write_atomically_with(target, |w| w.write_all(data))
}

/// Lets `write` fill the output for `target` (through a buffer). For a regular file the
/// bytes go to a temporary file first, and reach `target` only if `write` succeeds;
/// on any error `target` is untouched and the temporary file is removed.
pub fn write_atomically_with(
    target: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    match Target::of(target)? {
        Target::Through(path) => {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)?;
            write_behind(f, write)
        }
        Target::Replace { path, keep } => {
            let (tmp, f) = TempFile::create(&path)?;
            if let Some(m) = &keep {
                f.set_permissions(m.permissions())?;
                // Only a privileged process may give the file away; elsewhere the
                // owner is already the caller.
                let _ = std::os::unix::fs::fchown(&f, Some(m.uid()), Some(m.gid()));
            }
            write_behind(f, write)?;
            std::fs::rename(&tmp.path, &path)?;
            tmp.keep();
            Ok(())
        }
        Target::CopyIn(path) => {
            let (tmp, f) = TempFile::create(&path)?;
            write_behind(f, write)?;
            let mut from = std::fs::File::open(&tmp.path)?;
            let mut to = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)?;
            std::io::copy(&mut from, &mut to)?;
            to.flush()
        }
    }
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

/// A temporary file next to an output, removed when dropped (on every early return and
/// also when the writer panics: the driver catches panics and reports an internal
/// error) or when the process is interrupted ([`xir_sysio::cleanup`]).
struct TempFile {
    path: PathBuf,
    armed: bool,
    _registered: xir_sysio::cleanup::Registration,
}

impl TempFile {
    fn create(target: &Path) -> std::io::Result<(TempFile, std::fs::File)> {
        let path = temp_path(target)?;
        let _registered = xir_sysio::cleanup::register(&path, false);
        let tmp = TempFile {
            path,
            armed: true,
            _registered,
        };
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp.path)?;
        Ok((tmp, f))
    }

    /// The file has been renamed away: nothing to remove.
    fn keep(mut self) {
        self.armed = false;
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if self.armed {
            let _ = std::fs::remove_file(&self.path);
        }
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
    fn a_replaced_file_keeps_its_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = scratch("mode");
        for mode in [0o600, 0o755, 0o640] {
            let t = d.join(format!("out-{mode:o}"));
            std::fs::write(&t, "old").unwrap();
            std::fs::set_permissions(&t, std::fs::Permissions::from_mode(mode)).unwrap();
            write_atomically(&t, b"new").unwrap();
            let m = std::fs::metadata(&t).unwrap();
            assert_eq!(
                m.permissions().mode() & 0o7777,
                mode,
                "mode of {}",
                t.display()
            );
            assert_eq!(std::fs::read(&t).unwrap(), b"new");
        }
        assert_eq!(
            std::fs::read_dir(&d).unwrap().count(),
            3,
            "no temporary file left"
        );
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_symlink_stays_a_link_and_its_target_is_written() {
        let d = scratch("symlink");
        std::fs::create_dir(d.join("real")).unwrap();
        let real = d.join("real/out.xir");
        std::fs::write(&real, "old").unwrap();
        let link = d.join("link.xir");
        std::os::unix::fs::symlink("real/out.xir", &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(&real).unwrap(), b"new");
        // A dangling link creates its target.
        let dangling = d.join("dangling.xir");
        std::os::unix::fs::symlink("real/created.xir", &dangling).unwrap();
        write_atomically(&dangling, b"made").unwrap();
        assert!(
            std::fs::symlink_metadata(&dangling)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read(d.join("real/created.xir")).unwrap(), b"made");
        assert_eq!(std::fs::read_dir(d.join("real")).unwrap().count(), 2);
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 3);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_hard_link_is_kept() {
        use std::os::unix::fs::MetadataExt;
        let d = scratch("hardlink");
        let a = d.join("a.xir");
        let b = d.join("b.xir");
        std::fs::write(&a, "old old old").unwrap();
        std::fs::hard_link(&a, &b).unwrap();
        write_atomically(&a, b"new").unwrap();
        assert_eq!(std::fs::read(&b).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&a).unwrap().nlink(), 2);
        // A failed write leaves both names on the old bytes.
        let r = write_atomically_with(&a, |w| {
            w.write_all(b"partial")?;
            Err(std::io::Error::other("printer failed"))
        });
        assert!(r.is_err());
        assert_eq!(std::fs::read(&b).unwrap(), b"new");
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 2);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_fifo_is_written_through() {
        let d = scratch("fifo");
        let fifo = d.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("mkfifo unavailable; skipped");
            return;
        }
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomically(&fifo, b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), b"through the pipe");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_link_to_a_character_device_is_written_through() {
        use std::os::unix::fs::FileTypeExt;
        // /dev/null only receives (and discards) the bytes; the link must survive.
        // Never write into /dev unless /dev/null is the device it should be.
        if !std::fs::metadata("/dev/null").is_ok_and(|m| m.file_type().is_char_device()) {
            eprintln!("/dev/null is not a character device here; skipped");
            return;
        }
        let d = scratch("chardev");
        let link = d.join("null");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        assert!(matches!(Target::of(&link), Ok(Target::Through(_))));
        write_atomically(&link, b"discarded").unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(
            std::fs::metadata("/dev/null")
                .unwrap()
                .file_type()
                .is_char_device()
        );
        assert_eq!(std::fs::read_dir(&d).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn a_directory_is_an_error() {
        let d = scratch("dir");
        let e = write_atomically(&d, b"x").unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::IsADirectory);
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
