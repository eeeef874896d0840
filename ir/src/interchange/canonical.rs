//! The canonical constant encoding (reference §2.4): scalars little-endian at their size,
//! `bool` exactly one byte 0/1, vectors and arrays element-wise, matrices column-wise,
//! structs member-wise, never any padding. Constants of custom, cooperative and resource
//! types have no encoding.
//!
//! Conversion goes between canonical bytes and the native layout of [`TypeStore`]
//! (`size_of`, `align_of`, `struct_offsets`). Recursion follows the type and stops after
//! 64 levels like upstream (a matrix counts its column and scalar as two levels).

use super::{MAX_PAYLOAD_SIZE, MAX_TYPE_DEPTH};
use crate::types::{Type, TypeData, TypeStore};

/// Canonical size of a constant of type `t`, if it has an encoding within the limits.
pub fn canonical_size(ts: &TypeStore, t: Type) -> Option<usize> {
    size_at(ts, t, 0)
}

fn size_at(ts: &TypeStore, t: Type, depth: usize) -> Option<usize> {
    if depth > MAX_TYPE_DEPTH {
        return None;
    }
    let max = MAX_PAYLOAD_SIZE;
    match ts.get(t) {
        TypeData::Scalar(k) => k.ast_name().map(|_| k.size() as usize),
        TypeData::Vector { elem, len } => {
            let e = size_at(ts, *elem, depth + 1)?;
            Some(e * usize::from(*len))
        }
        TypeData::Array { elem, len } => {
            let e = size_at(ts, *elem, depth + 1)?;
            let n = usize::try_from(*len).ok()?;
            if n != 0 && e > max / n {
                return None;
            }
            Some(e * n)
        }
        TypeData::Matrix { elem, n } => {
            let e = size_at(ts, *elem, depth + 1)?;
            let n = usize::from(*n);
            (e * n * n <= max).then_some(e * n * n)
        }
        TypeData::Struct { members, .. } => {
            let mut total = 0usize;
            for m in members {
                let s = size_at(ts, *m, depth + 1)?;
                if s > max - total {
                    return None;
                }
                total += s;
            }
            Some(total)
        }
        _ => None,
    }
}

/// Why a conversion failed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CanonicalError {
    /// The type has no canonical encoding (or nests too deeply).
    Unsupported,
    /// The byte string has the wrong length for the type.
    Length,
    /// A `bool` byte other than 0 or 1.
    Bool,
}

impl std::fmt::Display for CanonicalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CanonicalError::Unsupported => "type has no canonical constant encoding",
            CanonicalError::Length => "constant byte length does not match its type",
            CanonicalError::Bool => "bool constant byte is neither 0 nor 1",
        })
    }
}

/// Native bytes (with padding) → canonical bytes.
pub fn to_canonical(ts: &TypeStore, t: Type, native: &[u8]) -> Result<Vec<u8>, CanonicalError> {
    let size = canonical_size(ts, t).ok_or(CanonicalError::Unsupported)?;
    if native.len() as u64 != ts.size_of(t) {
        return Err(CanonicalError::Length);
    }
    let mut out = Vec::with_capacity(size);
    encode(ts, t, native, 0, &mut out, 0)?;
    if out.len() != size {
        return Err(CanonicalError::Length);
    }
    Ok(out)
}

/// Canonical bytes → native bytes (padding zeroed).
pub fn from_canonical(ts: &TypeStore, t: Type, canon: &[u8]) -> Result<Vec<u8>, CanonicalError> {
    let size = canonical_size(ts, t).ok_or(CanonicalError::Unsupported)?;
    if canon.len() != size {
        return Err(CanonicalError::Length);
    }
    let native_size = usize::try_from(ts.size_of(t)).map_err(|_| CanonicalError::Unsupported)?;
    if native_size > MAX_PAYLOAD_SIZE.saturating_mul(2) {
        return Err(CanonicalError::Unsupported);
    }
    let mut native = vec![0u8; native_size];
    let mut pos = 0usize;
    decode(ts, t, canon, &mut pos, &mut native, 0, 0)?;
    if pos != canon.len() {
        return Err(CanonicalError::Length);
    }
    Ok(native)
}

/// The column type of a matrix, as a layout: (element, rows, column stride).
fn matrix_column(ts: &TypeStore, elem: Type, n: u8) -> (u64, u64) {
    let e = ts.size_of(elem);
    let stride = e * if n == 2 { 2 } else { 4 };
    (e, stride)
}

fn encode(
    ts: &TypeStore,
    t: Type,
    native: &[u8],
    off: u64,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), CanonicalError> {
    if depth > MAX_TYPE_DEPTH {
        return Err(CanonicalError::Unsupported);
    }
    let slice = |o: u64, n: u64| -> Result<&[u8], CanonicalError> {
        let o = usize::try_from(o).map_err(|_| CanonicalError::Length)?;
        let n = usize::try_from(n).map_err(|_| CanonicalError::Length)?;
        native
            .get(o..o.checked_add(n).ok_or(CanonicalError::Length)?)
            .ok_or(CanonicalError::Length)
    };
    match ts.get(t) {
        TypeData::Scalar(k) => {
            let b = slice(off, k.size())?;
            if *k == crate::types::ScalarKind::Bool && b[0] > 1 {
                return Err(CanonicalError::Bool);
            }
            out.extend_from_slice(b);
        }
        TypeData::Vector { elem, len } => {
            let e = ts.size_of(*elem);
            for i in 0..u64::from(*len) {
                encode(ts, *elem, native, off + i * e, out, depth + 1)?;
            }
        }
        TypeData::Array { elem, len } => {
            let e = ts.size_of(*elem);
            for i in 0..*len {
                encode(ts, *elem, native, off + i * e, out, depth + 1)?;
            }
        }
        TypeData::Matrix { elem, n } => {
            // Column (depth + 1), then its scalars (depth + 2).
            if depth + 2 > MAX_TYPE_DEPTH {
                return Err(CanonicalError::Unsupported);
            }
            let (e, stride) = matrix_column(ts, *elem, *n);
            for c in 0..u64::from(*n) {
                for r in 0..u64::from(*n) {
                    encode(ts, *elem, native, off + c * stride + r * e, out, depth + 2)?;
                }
            }
        }
        TypeData::Struct { .. } => {
            let offs = ts.struct_offsets(t);
            let TypeData::Struct { members, .. } = ts.get(t) else {
                return Err(CanonicalError::Unsupported);
            };
            for (m, o) in members.iter().zip(offs) {
                encode(ts, *m, native, off + o, out, depth + 1)?;
            }
        }
        _ => return Err(CanonicalError::Unsupported),
    }
    Ok(())
}

fn decode(
    ts: &TypeStore,
    t: Type,
    canon: &[u8],
    pos: &mut usize,
    native: &mut [u8],
    off: u64,
    depth: usize,
) -> Result<(), CanonicalError> {
    if depth > MAX_TYPE_DEPTH {
        return Err(CanonicalError::Unsupported);
    }
    match ts.get(t) {
        TypeData::Scalar(k) => {
            let n = k.size() as usize;
            let src = canon.get(*pos..*pos + n).ok_or(CanonicalError::Length)?;
            if *k == crate::types::ScalarKind::Bool && src[0] > 1 {
                return Err(CanonicalError::Bool);
            }
            let o = usize::try_from(off).map_err(|_| CanonicalError::Length)?;
            native
                .get_mut(o..o + n)
                .ok_or(CanonicalError::Length)?
                .copy_from_slice(src);
            *pos += n;
        }
        TypeData::Vector { elem, len } => {
            let e = ts.size_of(*elem);
            for i in 0..u64::from(*len) {
                decode(ts, *elem, canon, pos, native, off + i * e, depth + 1)?;
            }
        }
        TypeData::Array { elem, len } => {
            let e = ts.size_of(*elem);
            for i in 0..*len {
                decode(ts, *elem, canon, pos, native, off + i * e, depth + 1)?;
            }
        }
        TypeData::Matrix { elem, n } => {
            if depth + 2 > MAX_TYPE_DEPTH {
                return Err(CanonicalError::Unsupported);
            }
            let (e, stride) = matrix_column(ts, *elem, *n);
            for c in 0..u64::from(*n) {
                for r in 0..u64::from(*n) {
                    let o = off + c * stride + r * e;
                    decode(ts, *elem, canon, pos, native, o, depth + 2)?;
                }
            }
        }
        TypeData::Struct { .. } => {
            let offs = ts.struct_offsets(t);
            let TypeData::Struct { members, .. } = ts.get(t) else {
                return Err(CanonicalError::Unsupported);
            };
            for (m, o) in members.iter().zip(offs) {
                decode(ts, *m, canon, pos, native, off + o, depth + 1)?;
            }
        }
        _ => return Err(CanonicalError::Unsupported),
    }
    Ok(())
}
