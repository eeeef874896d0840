//! The interchange text writer: byte-identical to upstream's layout (header comment,
//! 2-space indentation steps, one record per line, metadata after each owner).

use super::lower::lower;
use super::records::*;
use super::typedesc::describe_all;
use super::{InterchangeError, MAX_PAYLOAD_SIZE, TEXT_HEADER};
use crate::module::Module;
use std::fmt::Write;

/// Writes `m` as canonical interchange text (`xir.text 1`).
pub fn write_interchange_text(m: &Module) -> Result<String, InterchangeError> {
    let descs = describe_all(&m.types);
    let (rec, _) = lower(m, &descs)?;
    let text = records_to_text(&rec);
    if text.len() > MAX_PAYLOAD_SIZE {
        return Err(InterchangeError::new(
            "XIR text payload exceeds the supported size limit (256 MiB)",
        ));
    }
    Ok(text)
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends a space and the decimal `v` (faster than `write!`).
fn push_num(out: &mut String, v: i64) {
    let mut buf = [0u8; 21];
    let mut i = buf.len();
    let mut u = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if v < 0 {
        i -= 1;
        buf[i] = b'-';
    }
    out.push(' ');
    // Only ASCII digits and '-' were written.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

/// Appends `s` quoted, escaping `\\ \" \n \r \t` and every other byte outside
/// printable ASCII as `\xHH`.
pub(crate) fn push_quoted(out: &mut String, s: &[u8]) {
    out.push('"');
    let mut run = 0;
    for (i, &c) in s.iter().enumerate() {
        let esc: Option<&str> = match c {
            b'\\' => Some("\\\\"),
            b'"' => Some("\\\""),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            c if !(0x20..0x7f).contains(&c) => Some(""),
            _ => None,
        };
        if let Some(e) = esc {
            // Bytes in `s[run..i]` are printable ASCII, hence valid UTF-8.
            out.push_str(std::str::from_utf8(&s[run..i]).unwrap_or_default());
            if e.is_empty() {
                out.push_str("\\x");
                out.push(HEX[usize::from(c >> 4)] as char);
                out.push(HEX[usize::from(c & 15)] as char);
            } else {
                out.push_str(e);
            }
            run = i + 1;
        }
    }
    out.push_str(std::str::from_utf8(&s[run..]).unwrap_or_default());
    out.push('"');
}

fn push_md(out: &mut String, ind: &str, md: &[MdRec<'_>]) {
    if md.is_empty() {
        out.push_str(ind);
        out.push_str("metadata 0\n");
        return;
    }
    let _ = writeln!(out, "{ind}metadata {}", md.len());
    for r in md {
        out.push_str(ind);
        out.push_str("md ");
        match r {
            MdRec::Name(s) => {
                out.push_str("name ");
                push_quoted(out, s);
            }
            MdRec::Location(f, l) => {
                out.push_str("location ");
                push_quoted(out, f);
                let _ = write!(out, " {l}");
            }
            MdRec::Comment(s) => {
                out.push_str("comment ");
                push_quoted(out, s);
            }
            MdRec::CurveBasis(m) => {
                let _ = write!(out, "curve_basis {m}");
            }
            MdRec::SignatureConstraint => out.push_str("signature_constraint"),
            MdRec::Reg2MemSpill(k) => {
                out.push_str("reg2mem_spill ");
                out.push_str(k.name());
            }
        }
        out.push('\n');
    }
}

/// Serializes records (ids, layout and strings exactly as given).
pub(crate) fn records_to_text(rec: &ModuleRec<'_>) -> String {
    let n_insts: usize = rec.functions.iter().map(|f| f.insts.len()).sum();
    let mut out = String::with_capacity(256 + 64 * n_insts);
    out.push_str(TEXT_HEADER);
    out.push_str("\nxir.text 1\nmodule {\n");
    push_md(&mut out, "  ", &rec.md);
    let _ = writeln!(out, "  globals {}", rec.globals.len());
    for g in &rec.globals {
        match &g.kind {
            GlobalKind::Constant { ty, data } => {
                let _ = write!(out, "  constant {} ", g.id);
                push_quoted(&mut out, ty);
                out.push_str(" \"");
                match data {
                    ConstPayload::Raw(b) => {
                        for &c in b.iter() {
                            out.push(HEX[usize::from(c >> 4)] as char);
                            out.push(HEX[usize::from(c & 15)] as char);
                        }
                    }
                    ConstPayload::Hex(h) => out.push_str(&String::from_utf8_lossy(h)),
                }
                out.push_str("\"\n");
            }
            GlobalKind::Undefined { ty } => {
                let _ = write!(out, "  undefined {} ", g.id);
                push_quoted(&mut out, ty);
                out.push('\n');
            }
            GlobalKind::Special { name } => {
                let _ = writeln!(out, "  special {} {}", g.id, String::from_utf8_lossy(name));
            }
        }
        push_md(&mut out, "    ", &g.md);
    }
    let _ = writeln!(out, "  functions {}", rec.functions.len());
    for f in &rec.functions {
        let _ = write!(
            out,
            "  function {} {} ",
            f.id,
            String::from_utf8_lossy(&f.kind)
        );
        push_quoted(&mut out, &f.ret);
        let [x, y, z] = f.block_size;
        let _ = writeln!(out, " {x} {y} {z} {{");
        push_md(&mut out, "    ", &f.md);
        let _ = writeln!(out, "    arguments {}", f.args.len());
        for a in &f.args {
            let _ = write!(
                out,
                "    argument {} {} ",
                a.id,
                String::from_utf8_lossy(&a.kind)
            );
            push_quoted(&mut out, &a.ty);
            out.push('\n');
            push_md(&mut out, "      ", &a.md);
        }
        let _ = writeln!(out, "    blocks {}", f.blocks.len());
        for b in &f.blocks {
            let _ = writeln!(out, "    block {}", b.id);
            push_md(&mut out, "      ", &b.md);
        }
        let _ = writeln!(out, "    body {}", f.body);
        let _ = writeln!(out, "    instructions {}", f.insts.len());
        for i in &f.insts {
            out.push_str("    instruction");
            push_num(&mut out, i.id as i64);
            push_num(&mut out, i.block as i64);
            out.push(' ');
            out.push_str(i.tag.interchange_name());
            out.push(' ');
            push_quoted(&mut out, &i.ty);
            out.push(' ');
            out.push_str(i.op.name());
            push_num(&mut out, i.operands.len() as i64);
            for o in &i.operands {
                push_num(&mut out, *o);
            }
            push_num(&mut out, i.aux.len() as i64);
            for a in &i.aux {
                push_num(&mut out, *a);
            }
            if !i.payloads.is_empty() {
                let _ = write!(out, " payloads {}", i.payloads.len());
                for p in &i.payloads {
                    out.push(' ');
                    push_quoted(&mut out, p);
                }
            }
            out.push('\n');
            push_md(&mut out, "      ", &i.md);
        }
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}
