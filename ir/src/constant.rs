//! Reading and writing scalar values in constant bytes (native little-endian layout).
//! Shared by the text literal syntax, constant folding and the interpreter to come.

use crate::types::ScalarKind;

/// A scalar value decoded from constant bytes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ScalarValue {
    /// `bool`.
    Bool(bool),
    /// Signed integers, sign-extended.
    Int(i64),
    /// Unsigned integers, zero-extended.
    UInt(u64),
    /// Floating point (f16/f32/f64), widened exactly.
    Float(f64),
}

/// Decodes the scalar of kind `k` stored at the start of `bytes`. Returns `None` for the
/// 8- and 4-bit float kinds and the 4-bit int (no arithmetic is defined on them here) or if
/// `bytes` is too short.
pub fn read_scalar(k: ScalarKind, bytes: &[u8]) -> Option<ScalarValue> {
    let n = k.size() as usize;
    let b = bytes.get(..n)?;
    let mut raw = [0u8; 8];
    raw[..n].copy_from_slice(b);
    let u = u64::from_le_bytes(raw);
    Some(match k {
        ScalarKind::Bool => ScalarValue::Bool(u != 0),
        ScalarKind::I8 => ScalarValue::Int(u as u8 as i8 as i64),
        ScalarKind::I16 => ScalarValue::Int(u as u16 as i16 as i64),
        ScalarKind::I32 => ScalarValue::Int(u as u32 as i32 as i64),
        ScalarKind::I64 => ScalarValue::Int(u as i64),
        ScalarKind::U8 | ScalarKind::U16 | ScalarKind::U32 | ScalarKind::U64 => {
            ScalarValue::UInt(u)
        }
        ScalarKind::F16 => ScalarValue::Float(half::f16::from_bits(u as u16).to_f64()),
        ScalarKind::F32 => ScalarValue::Float(f32::from_bits(u as u32) as f64),
        ScalarKind::F64 => ScalarValue::Float(f64::from_bits(u)),
        ScalarKind::F8E4M3 | ScalarKind::F8E5M2 | ScalarKind::I4 | ScalarKind::F4E2M1 => {
            return None;
        }
    })
}

/// Encodes `v` as kind `k` (integers wrap to the width; floats round to nearest).
/// Returns `None` when the value class does not fit the kind (e.g. a float for `u32`).
pub fn write_scalar(k: ScalarKind, v: ScalarValue) -> Option<Vec<u8>> {
    let n = k.size() as usize;
    let u: u64 = match (k, v) {
        (ScalarKind::Bool, ScalarValue::Bool(b)) => b as u64,
        (k, ScalarValue::Int(i)) if k.is_int() => i as u64,
        (k, ScalarValue::UInt(u)) if k.is_int() => u,
        (ScalarKind::F16, ScalarValue::Float(f)) => half::f16::from_f64(f).to_bits() as u64,
        (ScalarKind::F32, ScalarValue::Float(f)) => (f as f32).to_bits() as u64,
        (ScalarKind::F64, ScalarValue::Float(f)) => f.to_bits(),
        _ => return None,
    };
    Some(u.to_le_bytes()[..n].to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip() {
        let b = write_scalar(ScalarKind::I32, ScalarValue::Int(-3)).unwrap();
        assert_eq!(b, vec![0xfd, 0xff, 0xff, 0xff]);
        assert_eq!(read_scalar(ScalarKind::I32, &b), Some(ScalarValue::Int(-3)));
        let f = write_scalar(ScalarKind::F32, ScalarValue::Float(1.0)).unwrap();
        assert_eq!(f, vec![0, 0, 0x80, 0x3f]);
        let h = write_scalar(ScalarKind::F16, ScalarValue::Float(1.0)).unwrap();
        assert_eq!(
            read_scalar(ScalarKind::F16, &h),
            Some(ScalarValue::Float(1.0))
        );
    }
}
