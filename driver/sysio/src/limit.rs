//! Bounded reading of input: files, pipes and standard input.
//!
//! The text reader's spans are 32-bit byte offsets, so an input must be smaller than
//! 4 GiB ([`MAX_INPUT_BYTES`] is the largest accepted size). The bound is enforced while
//! the bytes arrive: at most one byte past the limit is read before the error, so an
//! endless source (`/dev/zero`, a pipe that never closes) costs bounded memory.
//!
//! The environment variable [`LIMIT_ENV`] (`XIR_MAX_INPUT_BYTES`) lowers the limit, for
//! tests that must not allocate 4 GiB; a value above the built-in limit, or one that
//! is not a number, is ignored.

use std::io::Read;

/// The largest input accepted, in bytes: one less than 4 GiB (`u32::MAX - 1`), the
/// largest text whose every offset and end fits the reader's 32-bit spans.
pub const MAX_INPUT_BYTES: u64 = u32::MAX as u64 - 1;

/// The environment variable that lowers [`MAX_INPUT_BYTES`] (for tests).
pub const LIMIT_ENV: &str = "XIR_MAX_INPUT_BYTES";

/// The limit in force: [`MAX_INPUT_BYTES`], or [`LIMIT_ENV`] when that is smaller.
pub fn input_limit() -> u64 {
    std::env::var(LIMIT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(MAX_INPUT_BYTES, |v| v.min(MAX_INPUT_BYTES))
}

/// The error for an input past `limit` bytes (kind `FileTooLarge`).
pub fn too_large(limit: u64) -> std::io::Error {
    let what = if limit == MAX_INPUT_BYTES {
        "the input is too large (the limit is 4 GiB)".to_string()
    } else {
        format!("the input is too large (the limit is {limit} bytes, set by {LIMIT_ENV})")
    };
    std::io::Error::new(std::io::ErrorKind::FileTooLarge, what)
}

/// Appends everything `r` yields to `buf`, failing with [`too_large`] as soon as more
/// than `limit` bytes in all have arrived (at most one byte past the limit is read).
pub fn read_to_end_limited(r: &mut dyn Read, buf: &mut Vec<u8>, limit: u64) -> std::io::Result<()> {
    let room = limit.saturating_sub(buf.len() as u64);
    r.take(room.saturating_add(1)).read_to_end(buf)?;
    if buf.len() as u64 > limit {
        buf.clear();
        buf.shrink_to_fit();
        return Err(too_large(limit));
    }
    Ok(())
}

/// Reads all of `r` under [`input_limit`].
pub fn read_all(r: &mut dyn Read) -> std::io::Result<Vec<u8>> {
    let mut v = Vec::new();
    read_to_end_limited(r, &mut v, input_limit())?;
    Ok(v)
}

/// Reads the file at `path` under [`input_limit`] (a regular file larger than the
/// limit fails before a byte is read).
pub fn read_file(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    let mut f = std::fs::File::open(path)?;
    let limit = input_limit();
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if len > limit {
        return Err(too_large(limit));
    }
    let mut v = Vec::with_capacity(len as usize);
    read_to_end_limited(&mut f, &mut v, limit)?;
    Ok(v)
}

/// [`read_file`], as UTF-8 text (an error of kind `InvalidData` otherwise).
pub fn read_file_to_string(path: &std::path::Path) -> std::io::Result<String> {
    String::from_utf8(read_file(path)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not valid UTF-8 (byte offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// Reads standard input under [`input_limit`].
pub fn read_stdin() -> std::io::Result<Vec<u8>> {
    read_all(&mut std::io::stdin().lock())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An endless source, like `/dev/zero`.
    struct Zeros(u64);
    impl Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(0);
            self.0 += buf.len() as u64;
            Ok(buf.len())
        }
    }

    #[test]
    fn an_endless_source_stops_one_byte_past_the_limit() {
        let mut z = Zeros(0);
        let mut v = Vec::new();
        let e = read_to_end_limited(&mut z, &mut v, 1000).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("1000 bytes"), "{e}");
        assert!(z.0 <= 1001 + 8192, "read {} bytes", z.0);
        assert!(v.is_empty());
    }

    #[test]
    fn input_at_the_limit_is_accepted() {
        let mut v = Vec::new();
        read_to_end_limited(&mut &[7u8; 1000][..], &mut v, 1000).unwrap();
        assert_eq!(v.len(), 1000);
        let mut v = Vec::new();
        assert!(read_to_end_limited(&mut &[7u8; 1001][..], &mut v, 1000).is_err());
    }

    #[test]
    fn the_default_limit_is_just_under_4_gib() {
        assert_eq!(MAX_INPUT_BYTES, (4u64 << 30) - 2);
        assert!(too_large(MAX_INPUT_BYTES).to_string().contains("4 GiB"));
    }
}
