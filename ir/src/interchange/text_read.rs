//! The interchange text reader: text → wire records (grammar in reference §1.9) → module.

use super::build::{BuildError, build_module};
use super::lex::{LResult, Lexer};
use super::records::*;
use super::{MAX_PAYLOAD_SIZE, MAX_STRING_PAYLOAD_SIZE};
use crate::diag::{Diagnostic, Span};
use crate::inst::InstTag;
use crate::metadata::SpillKind;
use crate::module::Module;
use smallvec::SmallVec;

/// Reads canonical interchange text. Errors are located diagnostics (render them with
/// [`crate::diag::render`] for `file:line:col`).
pub fn read_interchange_text(src: &str) -> Result<Module, Vec<Diagnostic>> {
    if src.len() > MAX_PAYLOAD_SIZE {
        return Err(vec![Diagnostic::error(
            "XIR text payload exceeds the supported size limit (256 MiB)",
            Some(Span::new(0, 0)),
        )]);
    }
    let rec = parse_records(src).map_err(|e| {
        vec![Diagnostic::error(
            e.message,
            Some(Span::new(e.start, e.end)),
        )]
    })?;
    match build_module(&rec) {
        Ok((m, _)) => Ok(m),
        Err(BuildError::Record { pos, end, message }) => {
            Err(vec![Diagnostic::error(message, Some(Span::new(pos, end)))])
        }
        Err(BuildError::Verify(d)) => Err(d),
    }
}

/// Parses the whole text into records.
pub(crate) fn parse_records(src: &str) -> LResult<ModuleRec<'_>> {
    let mut lx = Lexer::new(src);
    lx.keyword("xir.text")?;
    let (vp, v) = lx.uint()?;
    if v != 1 {
        return lx.err(
            vp,
            lx.pos,
            "unsupported XIR text interchange version (expected 1)",
        );
    }
    lx.keyword("module")?;
    lx.punct(b'{')?;
    lx.skip();
    let md_pos = lx.pos;
    let md = metadata(&mut lx)?;
    lx.keyword("globals")?;
    let (_, n) = lx.count()?;
    let mut globals = Vec::with_capacity(n);
    for _ in 0..n {
        globals.push(global(&mut lx)?);
    }
    lx.keyword("functions")?;
    let (_, n) = lx.count()?;
    let mut functions = Vec::with_capacity(n);
    for _ in 0..n {
        functions.push(function(&mut lx)?);
    }
    lx.punct(b'}')?;
    if !lx.at_end() {
        return lx.err(lx.pos, lx.pos + 1, "unexpected text after the module");
    }
    Ok(ModuleRec {
        md_pos,
        md,
        globals,
        functions,
    })
}

fn metadata<'a>(lx: &mut Lexer<'a>) -> LResult<Vec<MdRec<'a>>> {
    if !lx.try_keyword("metadata") {
        return Ok(Vec::new());
    }
    let (_, n) = lx.count()?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        lx.keyword("md")?;
        let (kp, kind) = lx.word("a metadata kind")?;
        let rec = match kind {
            b"name" => {
                let (sp, s) = lx.string()?;
                if !valid_md_name(&s) {
                    return lx.err(sp, lx.pos, "invalid XIR name metadata");
                }
                MdRec::Name(s)
            }
            b"location" => {
                let (_, file) = lx.string()?;
                let (lp, line) = lx.int()?;
                if i32::try_from(line).is_err() {
                    return lx.err(lp, lx.pos, "XIR location line is out of range");
                }
                MdRec::Location(file, line)
            }
            b"comment" => MdRec::Comment(lx.string()?.1),
            b"curve_basis" => {
                let (mp, mask) = lx.uint()?;
                if mask & !CURVE_BASIS_MASK != 0 {
                    return lx.err(mp, lx.pos, "XIR curve-basis metadata contains unknown bits");
                }
                MdRec::CurveBasis(mask)
            }
            b"signature_constraint" => MdRec::SignatureConstraint,
            b"reg2mem_spill" => {
                let (wp, w) = lx.word("a reg2mem-spill kind")?;
                MdRec::Reg2MemSpill(match w {
                    b"phi" => SpillKind::Phi,
                    b"cross_block" => SpillKind::CrossBlock,
                    _ => return lx.err(wp, lx.pos, "unknown XIR reg2mem-spill metadata kind"),
                })
            }
            _ => return lx.err(kp, lx.pos, "unknown XIR metadata kind"),
        };
        out.push(rec);
    }
    Ok(out)
}

fn global<'a>(lx: &mut Lexer<'a>) -> LResult<GlobalRec<'a>> {
    let (pos, kind) = lx.word("a global record kind")?;
    let (_, id) = lx.uint()?;
    let kind = match kind {
        b"constant" => {
            let ty = lx.string()?.1;
            let data = ConstPayload::Hex(lx.string()?.1);
            GlobalKind::Constant { ty, data }
        }
        b"undefined" => GlobalKind::Undefined { ty: lx.string()?.1 },
        b"special" => {
            let (_, w) = lx.word("a special-register name")?;
            GlobalKind::Special {
                name: std::borrow::Cow::Borrowed(w),
            }
        }
        _ => return lx.err(pos, pos + kind.len(), "unknown XIR global record kind"),
    };
    let md = metadata(lx)?;
    Ok(GlobalRec { pos, id, kind, md })
}

fn u32_field(lx: &mut Lexer<'_>) -> LResult<u32> {
    let (p, v) = lx.uint()?;
    u32::try_from(v).or_else(|_| lx.err(p, lx.pos, "function block-size component is out of range"))
}

fn function<'a>(lx: &mut Lexer<'a>) -> LResult<FuncRec<'a>> {
    let pos = lx.keyword("function")?;
    let (_, id) = lx.uint()?;
    let (_, kind) = lx.word("a function kind")?;
    let (_, ret) = lx.string()?;
    let block_size = [u32_field(lx)?, u32_field(lx)?, u32_field(lx)?];
    lx.punct(b'{')?;
    let md = metadata(lx)?;
    lx.keyword("arguments")?;
    let (_, n) = lx.count()?;
    let mut args = Vec::with_capacity(n);
    for _ in 0..n {
        let apos = lx.keyword("argument")?;
        let (_, aid) = lx.uint()?;
        let (_, akind) = lx.word("an argument kind")?;
        let (_, ty) = lx.string()?;
        let md = metadata(lx)?;
        args.push(ArgRec {
            pos: apos,
            id: aid,
            kind: std::borrow::Cow::Borrowed(akind),
            ty,
            md,
        });
    }
    lx.keyword("blocks")?;
    let (_, n) = lx.count()?;
    let mut blocks = Vec::with_capacity(n);
    for _ in 0..n {
        let bpos = lx.keyword("block")?;
        let (_, bid) = lx.uint()?;
        let md = metadata(lx)?;
        blocks.push(BlockRec {
            pos: bpos,
            id: bid,
            md,
        });
    }
    let body_pos = lx.keyword("body")?;
    let (bp, body) = lx.int()?;
    if body < -1 {
        return lx.err(
            bp,
            lx.pos,
            "body block id must be nonnegative, or -1 for no definition",
        );
    }
    lx.keyword("instructions")?;
    let (_, n) = lx.count()?;
    let mut insts = Vec::with_capacity(n);
    for _ in 0..n {
        insts.push(instruction(lx)?);
    }
    lx.punct(b'}')?;
    Ok(FuncRec {
        pos,
        id,
        kind: std::borrow::Cow::Borrowed(kind),
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

fn instruction<'a>(lx: &mut Lexer<'a>) -> LResult<InstRec<'a>> {
    let pos = lx.keyword("instruction")?;
    let (_, id) = lx.uint()?;
    let (_, block) = lx.uint()?;
    let (tp, tname) = lx.word("an instruction kind")?;
    let tag = std::str::from_utf8(tname)
        .ok()
        .and_then(InstTag::from_interchange_name);
    let Some(tag) = tag else {
        return lx.err(
            tp,
            tp + tname.len(),
            "unknown or unsupported XIR instruction kind",
        );
    };
    let (_, ty) = lx.string()?;
    let (op_pos, op_word) = lx.word("an operation word")?;
    let Some(op) = parse_op(tag, op_word) else {
        return lx.err(
            op_pos,
            op_pos + op_word.len(),
            format!(
                "unknown or invalid operation for `{}`",
                tag.interchange_name()
            ),
        );
    };
    let (_, n) = lx.count()?;
    let mut operands = SmallVec::with_capacity(n);
    for _ in 0..n {
        let (p, v) = lx.int()?;
        if v < -1 {
            return lx.err(p, lx.pos, "value ids must be nonnegative, or -1 for null");
        }
        operands.push(v);
    }
    let (_, n) = lx.count()?;
    let mut aux = SmallVec::with_capacity(n);
    for _ in 0..n {
        aux.push(lx.int()?.1);
    }
    let mut payloads = SmallVec::new();
    if lx.try_keyword("payloads") {
        let (_, n) = lx.count()?;
        payloads.reserve(n);
        for _ in 0..n {
            let (sp, s) = lx.string()?;
            if s.len() > MAX_STRING_PAYLOAD_SIZE {
                return lx.err(sp, lx.pos, "instruction string payload exceeds 1 MiB");
            }
            payloads.push(s);
        }
    }
    let end = lx.pos;
    let md = metadata(lx)?;
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
