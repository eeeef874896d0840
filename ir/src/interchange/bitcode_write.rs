//! The bitcode writer: the 32-byte `LXIRBC` header (magic, version, reserved, payload
//! size, FNV-1a-64 checksum) followed by binary records (version 2) or interchange text
//! (version 1). Binary records use a sorted, deduplicated string table, minimal ULEB128
//! for unsigned fields, zigzag for signed ones and string-table indices for strings.

use super::lower::lower;
use super::records::*;
use super::text_write::write_interchange_text;
use super::typedesc::describe_all;
use super::{
    BITCODE_HEADER_SIZE, BITCODE_MAGIC, BITCODE_VERSION_BINARY, BITCODE_VERSION_TEXT,
    InterchangeError, MAX_PAYLOAD_SIZE, MAX_RECORD_COUNT,
};
use crate::module::Module;

/// FNV-1a 64-bit hash (the payload checksum).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Appends minimal ULEB128.
pub(crate) fn put_uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Appends zigzag-encoded ULEB128.
pub(crate) fn put_zigzag(out: &mut Vec<u8>, v: i64) {
    put_uleb(out, ((v << 1) ^ (v >> 63)) as u64);
}

fn envelope(version: u32, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(BITCODE_HEADER_SIZE + payload.len());
    out.extend_from_slice(&BITCODE_MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Writes `m` as bitcode version 2 (binary records).
pub fn write_bitcode(m: &Module) -> Result<Vec<u8>, InterchangeError> {
    let descs = describe_all(&m.types);
    let (rec, records) = lower(m, &descs)?;
    let payload = encode_records(&rec, records)?;
    Ok(envelope(BITCODE_VERSION_BINARY, &payload))
}

/// Writes `m` as bitcode version 1 (the payload is interchange text).
pub fn write_bitcode_text_envelope(m: &Module) -> Result<Vec<u8>, InterchangeError> {
    let text = write_interchange_text(m)?;
    Ok(envelope(BITCODE_VERSION_TEXT, text.as_bytes()))
}

struct Enc<'s> {
    out: Vec<u8>,
    strings: Vec<&'s [u8]>,
}

impl<'s> Enc<'s> {
    fn u(&mut self, v: u64) {
        put_uleb(&mut self.out, v);
    }
    fn s(&mut self, v: &[u8]) {
        // Every string was collected, so the search cannot miss.
        let i = self.strings.binary_search(&v).unwrap_or(0);
        put_uleb(&mut self.out, i as u64);
    }
    fn md(&mut self, md: &[MdRec<'_>]) {
        self.u(md.len() as u64);
        for r in md {
            match r {
                MdRec::Name(s) => {
                    self.u(0);
                    self.s(s);
                }
                MdRec::Location(f, l) => {
                    self.u(1);
                    self.s(f);
                    put_zigzag(&mut self.out, *l);
                }
                MdRec::Comment(s) => {
                    self.u(2);
                    self.s(s);
                }
                MdRec::CurveBasis(m) => {
                    self.u(3);
                    self.u(*m);
                }
                MdRec::SignatureConstraint => self.u(4),
                MdRec::Reg2MemSpill(k) => {
                    self.u(5);
                    self.u(match k {
                        crate::metadata::SpillKind::Phi => 0,
                        crate::metadata::SpillKind::CrossBlock => 1,
                    });
                }
            }
        }
    }
}

fn collect<'s>(rec: &'s ModuleRec<'_>) -> Vec<&'s [u8]> {
    let mut v: Vec<&'s [u8]> = Vec::new();
    let md = |v: &mut Vec<&'s [u8]>, md: &'s [MdRec<'_>]| {
        for r in md {
            match r {
                MdRec::Name(s) | MdRec::Comment(s) | MdRec::Location(s, _) => v.push(s),
                _ => {}
            }
        }
    };
    md(&mut v, &rec.md);
    for g in &rec.globals {
        match &g.kind {
            GlobalKind::Constant { ty, .. } | GlobalKind::Undefined { ty } => v.push(ty),
            GlobalKind::Special { name } => v.push(name),
        }
        md(&mut v, &g.md);
    }
    for f in &rec.functions {
        v.push(&f.kind);
        v.push(&f.ret);
        md(&mut v, &f.md);
        for a in &f.args {
            v.push(&a.kind);
            v.push(&a.ty);
            md(&mut v, &a.md);
        }
        for b in &f.blocks {
            md(&mut v, &b.md);
        }
        for i in &f.insts {
            v.push(&i.ty);
            v.push(i.op.name().as_bytes());
            md(&mut v, &i.md);
            for p in &i.payloads {
                v.push(p);
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Encodes records as a binary payload. `records` is the record count the lowering
/// already used (the string table adds to it).
pub(crate) fn encode_records(
    rec: &ModuleRec<'_>,
    records: usize,
) -> Result<Vec<u8>, InterchangeError> {
    let strings = collect(rec);
    let total: usize = strings.iter().map(|s| s.len()).sum();
    if total > MAX_PAYLOAD_SIZE {
        return Err(InterchangeError::new(
            "XIR binary string table exceeds 256 MiB",
        ));
    }
    if records + strings.len() > MAX_RECORD_COUNT {
        return Err(InterchangeError::new(
            "cumulative XIR record count exceeds the supported binary output budget (2^20)",
        ));
    }
    let n_insts: usize = rec.functions.iter().map(|f| f.insts.len()).sum();
    let mut e = Enc {
        out: Vec::with_capacity(total + 16 * n_insts + 64),
        strings,
    };
    e.u(e.strings.len() as u64);
    for i in 0..e.strings.len() {
        let s = e.strings[i];
        put_uleb(&mut e.out, s.len() as u64);
        e.out.extend_from_slice(s);
    }
    e.md(&rec.md);
    e.u(rec.globals.len() as u64);
    for g in &rec.globals {
        match &g.kind {
            GlobalKind::Constant { ty, data } => {
                e.u(0);
                e.u(g.id);
                e.s(ty);
                let raw: Vec<u8>;
                let bytes: &[u8] = match data {
                    ConstPayload::Raw(b) => b,
                    ConstPayload::Hex(h) => {
                        raw = h
                            .chunks_exact(2)
                            .map(|p| {
                                super::lex::hex_value(p[0]).unwrap_or(0) << 4
                                    | super::lex::hex_value(p[1]).unwrap_or(0)
                            })
                            .collect();
                        &raw
                    }
                };
                e.u(bytes.len() as u64);
                e.out.extend_from_slice(bytes);
            }
            GlobalKind::Undefined { ty } => {
                e.u(1);
                e.u(g.id);
                e.s(ty);
            }
            GlobalKind::Special { name } => {
                e.u(2);
                e.u(g.id);
                e.s(name);
            }
        }
        e.md(&g.md);
    }
    e.u(rec.functions.len() as u64);
    for f in &rec.functions {
        e.u(f.id);
        e.s(&f.kind);
        e.s(&f.ret);
        for c in f.block_size {
            e.u(u64::from(c));
        }
        e.md(&f.md);
        e.u(f.args.len() as u64);
        for a in &f.args {
            e.u(a.id);
            e.s(&a.kind);
            e.s(&a.ty);
            e.md(&a.md);
        }
        e.u(f.blocks.len() as u64);
        for b in &f.blocks {
            e.u(b.id);
            e.md(&b.md);
        }
        put_zigzag(&mut e.out, f.body);
        e.u(f.insts.len() as u64);
        for i in &f.insts {
            e.u(i.id);
            e.u(i.block);
            e.u(binary_tag_id(i.tag));
            e.s(&i.ty);
            e.s(i.op.name().as_bytes());
            e.u(i.operands.len() as u64);
            for o in &i.operands {
                put_zigzag(&mut e.out, *o);
            }
            e.u(i.aux.len() as u64);
            for a in &i.aux {
                put_zigzag(&mut e.out, *a);
            }
            e.u(i.payloads.len() as u64);
            for p in &i.payloads {
                e.s(p);
            }
            e.md(&i.md);
        }
    }
    if e.out.len() > MAX_PAYLOAD_SIZE {
        return Err(InterchangeError::new("XIR binary payload exceeds 256 MiB"));
    }
    Ok(e.out)
}
