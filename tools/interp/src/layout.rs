//! Lane layouts of XIR types.
//!
//! A value of type `T` occupies [`Layout::lanes`] consecutive `u64` lanes (one per
//! scalar, in element/member/column order); its native memory image (LuisaCompute's
//! layout, as `TypeStore::size_of` computes it) is described by [`Layout::plan`]: the
//! byte offset and scalar kind of every lane.

use xir_ir::{ScalarKind, Type, TypeData, TypeStore};

/// Most lanes one value may have (bounds registers and local memory).
pub const MAX_LANES: u64 = 1 << 24;

/// A type's lanes and memory image.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Number of lanes.
    pub lanes: u32,
    /// Byte size of the native image.
    pub size: u64,
    /// Per lane: byte offset in the native image, scalar kind.
    pub plan: Vec<(u32, ScalarKind)>,
}

/// Why a type has no lane layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// Not a value type the interpreter executes (resource, custom, cooperative, or a
    /// refused scalar kind).
    Refused(String),
    /// More than [`MAX_LANES`] lanes.
    TooLarge,
}

/// The layout of `t`.
pub fn layout(ts: &TypeStore, t: Type) -> Result<Layout, LayoutError> {
    let mut plan = Vec::new();
    flatten(ts, t, 0, &mut plan)?;
    Ok(Layout {
        lanes: plan.len() as u32,
        size: ts.size_of(t),
        plan,
    })
}

/// Number of lanes of `t` (1 for resources: a binding index).
pub fn lanes(ts: &TypeStore, t: Type) -> Result<u64, LayoutError> {
    Ok(match ts.get(t) {
        TypeData::Scalar(k) => {
            if !crate::scalar::kind_supported(*k) {
                return Err(LayoutError::Refused(format!("{} values", k.text_name())));
            }
            1
        }
        TypeData::Vector { elem, len } => lanes(ts, *elem)? * *len as u64,
        TypeData::Matrix { n, .. } => (*n as u64) * (*n as u64),
        TypeData::Array { elem, len } => {
            let e = lanes(ts, *elem)?;
            let n = e.checked_mul(*len).ok_or(LayoutError::TooLarge)?;
            if n > MAX_LANES {
                return Err(LayoutError::TooLarge);
            }
            n
        }
        TypeData::Struct { members, .. } => {
            let mut n = 0u64;
            for m in members {
                n += lanes(ts, *m)?;
                if n > MAX_LANES {
                    return Err(LayoutError::TooLarge);
                }
            }
            n
        }
        TypeData::Buffer { .. } => 1,
        other => return Err(LayoutError::Refused(describe(other))),
    })
}

fn describe(t: &TypeData) -> String {
    match t {
        TypeData::Texture { .. } => "texture types".into(),
        TypeData::BindlessArray => "bindless arrays".into(),
        TypeData::Accel => "acceleration structures".into(),
        TypeData::Custom { name } => format!("opaque type \"{name}\""),
        TypeData::CoopVector { .. } => "cooperative vectors".into(),
        TypeData::CoopVectorRef { .. } | TypeData::CoopMatrixRef { .. } => {
            "cooperative vector/matrix references".into()
        }
        _ => "this type".into(),
    }
}

fn flatten(
    ts: &TypeStore,
    t: Type,
    base: u64,
    out: &mut Vec<(u32, ScalarKind)>,
) -> Result<(), LayoutError> {
    // Bound first, so a huge array is refused before it is expanded.
    lanes(ts, t)?;
    if ts.size_of(t) > u32::MAX as u64 {
        return Err(LayoutError::TooLarge);
    }
    match ts.get(t) {
        TypeData::Scalar(k) => out.push((base as u32, *k)),
        TypeData::Vector { elem, len } => {
            let k = ts.scalar_kind(*elem).expect("vector of scalars");
            for i in 0..*len as u64 {
                out.push(((base + i * k.size()) as u32, k));
            }
        }
        TypeData::Matrix { elem, n } => {
            let k = ts.scalar_kind(*elem).expect("matrix of floats");
            let col = k.size() * if *n == 2 { 2 } else { 4 };
            for c in 0..*n as u64 {
                for r in 0..*n as u64 {
                    out.push(((base + c * col + r * k.size()) as u32, k));
                }
            }
        }
        TypeData::Array { elem, len } => {
            let s = ts.size_of(*elem);
            for i in 0..*len {
                flatten(ts, *elem, base + i * s, out)?;
            }
        }
        TypeData::Struct { members, .. } => {
            let offs = ts.struct_offsets(t);
            for (m, o) in members.iter().zip(offs) {
                flatten(ts, *m, base + o, out)?;
            }
        }
        TypeData::Buffer { .. } => out.push((base as u32, ScalarKind::U32)),
        other => return Err(LayoutError::Refused(describe(other))),
    }
    Ok(())
}

/// Reads the lanes of a value from its native image.
pub fn read_image(plan: &[(u32, ScalarKind)], bytes: &[u8], out: &mut [u64]) {
    for (o, &(off, k)) in out.iter_mut().zip(plan) {
        *o = read_scalar(bytes, off as usize, k);
    }
}

/// Writes the lanes of a value into its native image.
pub fn write_image(plan: &[(u32, ScalarKind)], lanes: &[u64], bytes: &mut [u8]) {
    for (&v, &(off, k)) in lanes.iter().zip(plan) {
        write_scalar(bytes, off as usize, k, v);
    }
}

/// One scalar (little-endian) at `off`.
#[inline]
pub fn read_scalar(bytes: &[u8], off: usize, k: ScalarKind) -> u64 {
    let n = k.size() as usize;
    let mut b = [0u8; 8];
    b[..n].copy_from_slice(&bytes[off..off + n]);
    let v = u64::from_le_bytes(b);
    if k == ScalarKind::Bool {
        (v != 0) as u64
    } else {
        v
    }
}

/// Writes one scalar (little-endian) at `off`.
#[inline]
pub fn write_scalar(bytes: &mut [u8], off: usize, k: ScalarKind, v: u64) {
    let n = k.size() as usize;
    bytes[off..off + n].copy_from_slice(&v.to_le_bytes()[..n]);
}
