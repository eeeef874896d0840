//! The bitcode reader: header checks (magic, version, reserved bits, payload size,
//! trailing bytes, checksum), then either the text payload (version 1) or binary records
//! (version 2) with minimal-ULEB enforcement, record and allocation budgets checked
//! before anything is reserved, and string-table indices range-checked. Every error
//! carries the absolute byte offset just after the offending field (upstream's convention).

use super::bitcode_write::fnv1a64;
use super::build::{BuildError, build_module};
use super::records::*;
use super::text_read::parse_records;
use super::{
    BITCODE_HEADER_SIZE, BITCODE_MAGIC, BITCODE_VERSION_BINARY, BITCODE_VERSION_TEXT,
    InterchangeError, MAX_PAYLOAD_SIZE, MAX_RECORD_COUNT, MAX_STRING_PAYLOAD_SIZE,
    MAX_TYPE_DESCRIPTION_SIZE,
};
use crate::metadata::SpillKind;
use crate::module::Module;
use smallvec::SmallVec;
use std::borrow::Cow;

type BResult<T> = Result<T, InterchangeError>;

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}

/// Reads bitcode (version 1 or 2).
pub fn read_bitcode(bytes: &[u8]) -> Result<Module, InterchangeError> {
    let hs = BITCODE_HEADER_SIZE;
    if bytes.len() < hs {
        return Err(InterchangeError::at(
            bytes.len(),
            "truncated XIR bitcode header",
        ));
    }
    if let Some(i) = (0..8).find(|i| bytes[*i] != BITCODE_MAGIC[*i]) {
        return Err(InterchangeError::at(i, "invalid XIR bitcode magic"));
    }
    let version = u32_at(bytes, 8);
    if version != BITCODE_VERSION_TEXT && version != BITCODE_VERSION_BINARY {
        return Err(InterchangeError::at(
            8,
            format!("unsupported XIR bitcode version {version}"),
        ));
    }
    if u32_at(bytes, 12) != 0 {
        return Err(InterchangeError::at(
            12,
            "XIR bitcode reserved header bits are nonzero",
        ));
    }
    let size = u64_at(bytes, 16);
    if size > MAX_PAYLOAD_SIZE as u64 {
        return Err(InterchangeError::at(
            16,
            "XIR bitcode payload exceeds 256 MiB",
        ));
    }
    let size = size as usize;
    if size > bytes.len() - hs {
        return Err(InterchangeError::at(
            bytes.len(),
            "truncated XIR bitcode payload",
        ));
    }
    if size != bytes.len() - hs {
        return Err(InterchangeError::at(
            hs + size,
            "unexpected trailing bytes after the XIR bitcode payload",
        ));
    }
    let payload = &bytes[hs..];
    if fnv1a64(payload) != u64_at(bytes, 24) {
        return Err(InterchangeError::at(
            24,
            "XIR bitcode payload checksum mismatch",
        ));
    }
    let rec = if version == BITCODE_VERSION_TEXT {
        let Ok(text) = std::str::from_utf8(payload) else {
            let bad = std::str::from_utf8(payload)
                .err()
                .map_or(0, |e| e.valid_up_to());
            return Err(InterchangeError::at(
                hs + bad,
                "text payload is not valid UTF-8",
            ));
        };
        parse_records(text).map_err(|e| InterchangeError::at(hs + e.start, e.message))?
    } else {
        let mut r = Reader {
            b: payload,
            pos: 0,
            budget: MAX_RECORD_COUNT,
            alloc: MAX_PAYLOAD_SIZE,
            strings: Vec::new(),
        };
        r.module()?
    };
    let shift = |d: crate::diag::Diagnostic| {
        let mut d = d;
        if let Some(s) = d.span.as_mut() {
            s.start += hs as u32;
            s.end += hs as u32;
        }
        d
    };
    match build_module(&rec) {
        Ok((m, _)) => Ok(m),
        Err(BuildError::Record { pos, message, .. }) => {
            Err(InterchangeError::at(hs + pos, message))
        }
        Err(BuildError::Verify(d)) => {
            let diags: Vec<_> = d.into_iter().map(shift).collect();
            let mut e = InterchangeError::new("XIR verification failed after decoding");
            e.offset = diags.first().and_then(|d| d.span).map(|s| s.start as usize);
            e.diagnostics = diags;
            Err(e)
        }
    }
}

/// Approximate in-memory sizes of upstream's decoded records, for its 256 MiB
/// allocation budget.
const SZ_STRING: usize = 32;
const SZ_MD: usize = 48;
const SZ_GLOBAL: usize = 136;
const SZ_FUNCTION: usize = 192;
const SZ_ARG: usize = 96;
const SZ_BLOCK: usize = 32;
const SZ_INST: usize = 160;
const SZ_INT: usize = 8;

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
    budget: usize,
    alloc: usize,
    strings: Vec<&'a [u8]>,
}

impl<'a> Reader<'a> {
    /// An error at the reader's current position: the offset just after the field
    /// whose value is malformed (upstream's convention; see docs/interchange.md).
    fn fail<T>(&self, msg: impl Into<String>) -> BResult<T> {
        Err(InterchangeError::at(BITCODE_HEADER_SIZE + self.pos, msg))
    }

    fn uleb(&mut self) -> BResult<u64> {
        let mut v: u64 = 0;
        for i in 0..10 {
            let Some(&byte) = self.b.get(self.pos) else {
                return self.fail("truncated ULEB128 integer");
            };
            self.pos += 1;
            let payload = u64::from(byte & 0x7f);
            if i == 9 && payload > 1 {
                return self.fail("ULEB128 integer is out of range");
            }
            v |= payload << (7 * i);
            if byte & 0x80 == 0 {
                if i != 0 && payload == 0 {
                    return self.fail("ULEB128 integer is not minimally encoded");
                }
                return Ok(v);
            }
        }
        self.fail("ULEB128 integer is too long")
    }

    fn zigzag(&mut self) -> BResult<i64> {
        let v = self.uleb()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A count, charged to the record budget and the allocation budget (`elem` bytes
    /// per record), never larger than the remaining payload.
    fn count(&mut self, elem: usize) -> BResult<usize> {
        let v = self.uleb()?;
        if v > MAX_RECORD_COUNT as u64 {
            return self.fail("record count exceeds the supported limit (2^20)");
        }
        let n = v as usize;
        if n > self.budget || n > self.b.len() - self.pos {
            return self.fail("cumulative record count exceeds the supported binary budget");
        }
        self.budget -= n;
        self.charge(n * elem)?;
        Ok(n)
    }

    fn charge(&mut self, bytes: usize) -> BResult<()> {
        if bytes > self.alloc {
            return self.fail("XIR binary allocation budget (256 MiB) exceeded");
        }
        self.alloc -= bytes;
        Ok(())
    }

    fn bytes(&mut self, n: usize) -> BResult<&'a [u8]> {
        if n > self.b.len() - self.pos {
            return self.fail("truncated binary record payload");
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn string_table(&mut self) -> BResult<()> {
        let n = self.count(SZ_STRING)?;
        self.strings.reserve(n);
        for _ in 0..n {
            let len = self.uleb()?;
            if len > MAX_PAYLOAD_SIZE as u64 {
                return self.fail("binary string exceeds 256 MiB");
            }
            self.charge(len as usize)?;
            let s = self.bytes(len as usize)?;
            if self.strings.last().is_some_and(|p| *p >= s) {
                return self.fail("XIR binary string table is not strictly sorted and unique");
            }
            self.strings.push(s);
        }
        Ok(())
    }

    fn string(&mut self, max: usize) -> BResult<Bytes<'a>> {
        let i = self.uleb()?;
        let Some(s) = usize::try_from(i)
            .ok()
            .and_then(|i| self.strings.get(i).copied())
        else {
            return self.fail(format!("string index {i} is out of range"));
        };
        if s.len() > max {
            return self.fail("binary string exceeds its field limit");
        }
        self.charge(s.len())?;
        Ok(Cow::Borrowed(s))
    }

    fn md(&mut self) -> BResult<Vec<MdRec<'a>>> {
        let n = self.count(SZ_MD)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(match self.uleb()? {
                0 => {
                    let s = self.string(MAX_PAYLOAD_SIZE)?;
                    if !valid_md_name(&s) {
                        return self.fail("invalid XIR binary name metadata");
                    }
                    MdRec::Name(s)
                }
                1 => {
                    let f = self.string(MAX_PAYLOAD_SIZE)?;
                    let l = self.zigzag()?;
                    if i32::try_from(l).is_err() {
                        return self.fail("XIR binary location line is out of range");
                    }
                    MdRec::Location(f, l)
                }
                2 => MdRec::Comment(self.string(MAX_PAYLOAD_SIZE)?),
                3 => {
                    let m = self.uleb()?;
                    if m & !CURVE_BASIS_MASK != 0 {
                        return self.fail("XIR binary curve-basis metadata contains unknown bits");
                    }
                    MdRec::CurveBasis(m)
                }
                4 => MdRec::SignatureConstraint,
                5 => MdRec::Reg2MemSpill(match self.uleb()? {
                    0 => SpillKind::Phi,
                    1 => SpillKind::CrossBlock,
                    _ => return self.fail("unknown XIR binary reg2mem-spill metadata kind"),
                }),
                k => return self.fail(format!("unknown XIR binary metadata kind {k}")),
            });
        }
        Ok(out)
    }

    fn module(&mut self) -> BResult<ModuleRec<'a>> {
        self.string_table()?;
        let md_pos = self.pos;
        let md = self.md()?;
        let n = self.count(SZ_GLOBAL)?;
        let mut globals = Vec::with_capacity(n);
        for _ in 0..n {
            let pos = self.pos;
            let kind = self.uleb()?;
            let id = self.uleb()?;
            let kind = match kind {
                0 => {
                    let ty = self.string(MAX_TYPE_DESCRIPTION_SIZE)?;
                    let len = self.uleb()?;
                    if len > MAX_PAYLOAD_SIZE as u64 {
                        return self.fail("XIR binary byte payload exceeds 256 MiB");
                    }
                    self.charge(len as usize)?;
                    let data = ConstPayload::Raw(Cow::Borrowed(self.bytes(len as usize)?));
                    GlobalKind::Constant { ty, data }
                }
                1 => GlobalKind::Undefined {
                    ty: self.string(MAX_TYPE_DESCRIPTION_SIZE)?,
                },
                2 => GlobalKind::Special {
                    name: self.string(MAX_STRING_PAYLOAD_SIZE)?,
                },
                k => return self.fail(format!("unknown XIR binary global record kind {k}")),
            };
            let md = self.md()?;
            globals.push(GlobalRec { pos, id, kind, md });
        }
        let n = self.count(SZ_FUNCTION)?;
        let mut functions = Vec::with_capacity(n);
        for _ in 0..n {
            functions.push(self.function()?);
        }
        if self.pos != self.b.len() {
            return self.fail("unexpected trailing bytes in the XIR binary payload");
        }
        Ok(ModuleRec {
            md_pos,
            md,
            globals,
            functions,
        })
    }

    fn function(&mut self) -> BResult<FuncRec<'a>> {
        let pos = self.pos;
        let id = self.uleb()?;
        let kind = self.string(MAX_STRING_PAYLOAD_SIZE)?;
        let ret = self.string(MAX_TYPE_DESCRIPTION_SIZE)?;
        let mut block_size = [0u32; 3];
        for c in &mut block_size {
            *c = u32::try_from(self.uleb()?)
                .or_else(|_| self.fail("function block-size component is out of range"))?;
        }
        let md = self.md()?;
        let n = self.count(SZ_ARG)?;
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            let apos = self.pos;
            args.push(ArgRec {
                pos: apos,
                id: self.uleb()?,
                kind: self.string(MAX_STRING_PAYLOAD_SIZE)?,
                ty: self.string(MAX_TYPE_DESCRIPTION_SIZE)?,
                md: self.md()?,
            });
        }
        let n = self.count(SZ_BLOCK)?;
        let mut blocks = Vec::with_capacity(n);
        for _ in 0..n {
            let bpos = self.pos;
            blocks.push(BlockRec {
                pos: bpos,
                id: self.uleb()?,
                md: self.md()?,
            });
        }
        let body_pos = self.pos;
        let body = self.zigzag()?;
        if body < -1 {
            return self.fail("body block id must be nonnegative, or -1");
        }
        let n = self.count(SZ_INST)?;
        let mut insts = Vec::with_capacity(n);
        for _ in 0..n {
            insts.push(self.inst()?);
        }
        Ok(FuncRec {
            pos,
            id,
            kind,
            ret,
            block_size,
            md,
            args,
            blocks,
            body,
            body_pos,
            insts,
        })
    }

    fn inst(&mut self) -> BResult<InstRec<'a>> {
        let pos = self.pos;
        let id = self.uleb()?;
        let block = self.uleb()?;
        let t = self.uleb()?;
        let Some(&tag) = usize::try_from(t).ok().and_then(|t| BINARY_TAGS.get(t)) else {
            return self.fail(format!("unknown XIR binary instruction tag {t}"));
        };
        let ty = self.string(MAX_TYPE_DESCRIPTION_SIZE)?;
        let op_word = self.string(MAX_STRING_PAYLOAD_SIZE)?;
        let Some(op) = parse_op(tag, &op_word) else {
            return self.fail("unknown XIR binary instruction operation");
        };
        let n = self.count(SZ_INT)?;
        let mut operands = SmallVec::with_capacity(n);
        for _ in 0..n {
            let v = self.zigzag()?;
            if v < -1 {
                return self.fail("value ids must be nonnegative, or -1 for null");
            }
            operands.push(v);
        }
        let n = self.count(SZ_INT)?;
        let mut aux = SmallVec::with_capacity(n);
        for _ in 0..n {
            aux.push(self.zigzag()?);
        }
        let n = self.count(SZ_STRING)?;
        let mut payloads = SmallVec::with_capacity(n);
        for _ in 0..n {
            payloads.push(self.string(MAX_STRING_PAYLOAD_SIZE)?);
        }
        let end = self.pos;
        let md = self.md()?;
        Ok(InstRec {
            pos,
            end,
            id,
            block,
            tag,
            ty,
            op,
            operands,
            aux,
            payloads,
            md,
        })
    }
}
