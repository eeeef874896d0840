//! Memory accesses: address computation, buffer and shared-memory reads and writes
//! through the race detector, and atomics.

use super::*;

pub(super) const SHARED_BIT: u64 = 1 << 63;

impl Machine<'_> {
    pub(super) fn race_msg(&self, what: &str, at: usize, other: u32, write: bool) -> String {
        let who = if other == MANY {
            "another thread".to_string()
        } else {
            let c = self.gtid_coords(other);
            format!("thread ({}, {}, {})", c[0], c[1], c[2])
        };
        let unit = if what == "shared memory" {
            "lane"
        } else {
            "byte"
        };
        format!(
            "data race: {} of {what} {unit} {at} conflicts with an access by {who} not separated by a barrier",
            if write { "write" } else { "read" }
        )
    }

    pub(super) fn buf_access(
        &mut self,
        b: usize,
        off: usize,
        size: u64,
        gtid: u32,
        clock: Clock,
        a: Access,
    ) -> Result<(), (usize, u32)> {
        let sh = &mut self.bufs[b].shadow[off..off + size as usize];
        for (k, s) in sh.iter_mut().enumerate() {
            let r = match a {
                Access::Read => shadow_read(s, gtid, clock),
                Access::Write => shadow_write(s, gtid, clock, false),
                Access::Atomic => shadow_write(s, gtid, clock, true),
            };
            r.map_err(|o| (off + k, o))?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic(
        &mut self,
        r: &mut [u64],
        locals: &mut [u64],
        lw: &mut [u8],
        op: AtomicOp,
        kind: ScalarKind,
        base: &AtomicBase,
        vals: (u32, u32),
        gtid: u32,
        clock: Clock,
    ) -> Result<u64, String> {
        let v = r[vals.0 as usize];
        let v2 = r[vals.1 as usize];
        let apply = |old: u64| -> Result<u64, &'static str> { atomic_apply(op, kind, old, v, v2) };
        match base {
            AtomicBase::Buffer {
                buf,
                idx,
                steps,
                esize,
            } => {
                let b = r[*buf as usize] as usize;
                let i = int_value(idx.1, r[idx.0 as usize]);
                let len = self.bufs[b].bytes.len() as u64;
                if i < 0 || (i as u64) >= len / (*esize).max(1) {
                    return Err("buffer index out of bounds".into());
                }
                let inner = walk(r, steps).map_err(str::to_string)?;
                let off = i as usize * *esize as usize + inner as usize;
                let size = kind.size();
                if let Err((at, other)) = self.buf_access(b, off, size, gtid, clock, Access::Atomic)
                {
                    return Err(self.race_msg(&format!("buffer argument #{b}"), at, other, true));
                }
                let old = read_scalar(&self.bufs[b].bytes, off, kind);
                let new = apply(old)?;
                write_scalar(&mut self.bufs[b].bytes, off, kind, new);
                Ok(old)
            }
            AtomicBase::Memory { ptr, steps } => {
                let pv = r[*ptr as usize] + walk(r, steps).map_err(str::to_string)? as u64;
                if pv & SHARED_BIT != 0 {
                    let o = (pv & !SHARED_BIT) as usize;
                    if self.sw[o] == 0 {
                        return Err("atomic on shared memory before it is written".into());
                    }
                    if let Err(other) = shadow_write(&mut self.sshadow[o], gtid, clock, true) {
                        return Err(self.race_msg("shared memory", o, other, true));
                    }
                    let old = self.shared[o];
                    self.shared[o] = apply(old)?;
                    Ok(old)
                } else {
                    let o = pv as usize;
                    if lw[o] == 0 {
                        return Err("read of a local variable before it is written".into());
                    }
                    let old = locals[o];
                    locals[o] = apply(old)?;
                    Ok(old)
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
pub(super) enum Access {
    Read,
    Write,
    Atomic,
}

pub(super) fn plan_size(plan: &[(u32, ScalarKind)]) -> u64 {
    plan.iter()
        .map(|&(o, k)| o as u64 + k.size())
        .max()
        .unwrap_or(0)
}

/// Byte offset of an element (or a byte address) checked against the buffer length.
#[inline]
pub(super) fn address(
    r: &[u64],
    idx: (u32, ScalarKind),
    esize: u64,
    size: u64,
    byte: bool,
    len: usize,
) -> Result<usize, &'static str> {
    let i = int_value(idx.1, r[idx.0 as usize]);
    if i < 0 {
        return Err("buffer index out of bounds");
    }
    let off = if byte {
        i as u128
    } else {
        i as u128 * esize as u128
    };
    if off + size as u128 > len as u128 {
        return Err(if byte {
            "byte-buffer address out of bounds"
        } else {
            "buffer index out of bounds"
        });
    }
    Ok(off as usize)
}

/// Lane offset of an address computation.
#[inline]
pub(super) fn walk(r: &[u64], steps: &[Step]) -> Result<u32, &'static str> {
    let mut off = 0u32;
    for s in steps {
        match *s {
            Step::Const(c) => off += c,
            Step::Dyn {
                reg,
                kind,
                stride,
                count,
            } => {
                let i = int_value(kind, r[reg as usize]);
                if i < 0 || i as u64 >= count {
                    return Err("index out of bounds");
                }
                off += i as u32 * stride;
            }
        }
    }
    Ok(off)
}

pub(super) fn atomic_apply(
    op: AtomicOp,
    k: ScalarKind,
    old: u64,
    v: u64,
    v2: u64,
) -> Result<u64, &'static str> {
    let bin = |o: A| scalar::binary(o, k).expect("lowering checked the kind");
    Ok(match op {
        AtomicOp::Exchange => v,
        AtomicOp::CompareExchange => {
            if old == v {
                v2
            } else {
                old
            }
        }
        AtomicOp::FetchAdd => bin(A::BinaryAdd)(old, v)?,
        AtomicOp::FetchSub => bin(A::BinarySub)(old, v)?,
        AtomicOp::FetchAnd => old & v,
        AtomicOp::FetchOr => old | v,
        AtomicOp::FetchXor => old ^ v,
        AtomicOp::FetchMin => bin(A::Min)(old, v)?,
        AtomicOp::FetchMax => bin(A::Max)(old, v)?,
    })
}
