//! Instruction bodies (reference §1.5): everything after `%N: T = `. Keywords and op
//! spellings come from [`InstTag::text_keyword`](crate::inst::InstTag::text_keyword)
//! and the op table.
//!
//! Flat instructions (no child block printed inline) are written straight into the
//! output; structured ones become [`Work`] items, because their child blocks print in
//! the middle of their text (see `print.rs`).

use super::escape::{format_double, write_escaped};
use super::print::{Printer, Work};
use crate::inst::{
    CoroAttrValue, CoroExtensionItem, CoroExtensionKind, InstData, InstId, InstKind,
};
use crate::module::Module;
use crate::op::BindlessAccess;
use crate::types::{ScalarKind, TypeData};
use crate::value::{BlockId, FuncId, Value};
use std::fmt::Write as _;

/// Whether every operand of `d` is a valid handle (so type queries cannot index out of
/// bounds).
pub(crate) fn operands_valid(m: &Module, f: FuncId, d: &InstData) -> bool {
    let Some(func) = m.functions.get(f) else {
        return false;
    };
    d.operands.iter().all(|v| match *v {
        Value::Inst(i) => func.insts.is_valid(i),
        Value::Block(b) => func.blocks.is_valid(b),
        Value::Arg(a) => func.args.is_valid(a),
        Value::Const(c) => m.constants.is_valid(c),
        Value::Undef(u) => m.undefs.is_valid(u),
        Value::Func(g) => m.functions.is_valid(g),
        Value::Special(_) => true,
    })
}

/// Whether `kind` has child blocks printed inline in nested form (its body goes through
/// the work stack): the table's [`Roles::NESTS`](crate::inst::Roles::NESTS) role.
#[inline]
pub(crate) fn is_structured(kind: &InstKind) -> bool {
    kind.tag().nests_blocks()
}

/// Builds the body of structured instruction `i` (data `d`, see [`is_structured`]) of
/// function `f` printed at `depth`.
pub(crate) fn structured_body(
    m: &Module,
    f: FuncId,
    i: InstId,
    d: &InstData,
    depth: usize,
    out: &mut Vec<Work>,
) {
    let op = |k: usize| d.operands.get(k).copied();
    let slot = |k: usize| Work::Slot(op(k), depth);
    let side = |b: Option<BlockId>| Work::Slot(b.map(Value::Block), depth);
    let val = |k: usize| match op(k) {
        Some(v) => Work::Val(v, Some((i, k as u32))),
        None => Work::Text("null"),
    };
    // The keyword from the instruction table, then what follows it.
    out.push(Work::Text(d.kind.tag().text_keyword()));
    match &d.kind {
        InstKind::If { merge } => out.extend([
            Work::Text(" "),
            val(0),
            Work::Text(", then "),
            slot(1),
            Work::Text(", else "),
            slot(2),
            Work::Text(", merge "),
            side(*merge),
        ]),
        InstKind::Switch { labels, merge } => {
            switch_edges(m, f, d, i, labels, depth, out);
            out.extend([Work::Text(", merge "), side(*merge)]);
        }
        InstKind::IndexedBranch { labels } => switch_edges(m, f, d, i, labels, depth, out),
        InstKind::Loop {
            body,
            update,
            merge,
        } => out.extend([
            Work::Text(" prepare "),
            slot(0),
            Work::Text(", body "),
            side(*body),
            Work::Text(", update "),
            side(*update),
            Work::Text(", merge "),
            side(*merge),
        ]),
        InstKind::SimpleLoop { merge } | InstKind::Outline { merge } => out.extend([
            Work::Text(" body "),
            slot(0),
            Work::Text(", merge "),
            side(*merge),
        ]),
        InstKind::AutodiffScope {
            merge,
            forward,
            n_forward_grads,
        } => {
            out.push(if *forward {
                Work::Str(format!(" forward {n_forward_grads} entry "))
            } else {
                Work::Text(" entry ")
            });
            out.extend([slot(0), Work::Text(", merge "), side(*merge)]);
        }
        InstKind::RayQueryLoop { merge } => out.extend([
            Work::Text(" dispatch "),
            slot(0),
            Work::Text(", merge "),
            side(*merge),
        ]),
        InstKind::RayQueryDispatch => out.extend([
            Work::Text(" "),
            val(0),
            Work::Text(", exit "),
            Work::Ref(op(1)),
            Work::Text(", on_surface_candidate "),
            slot(2),
            Work::Text(", on_procedural_candidate "),
            slot(3),
        ]),
        // Not structured: printed by `Printer::flat_body`.
        _ => debug_assert!(false, "structured_body on a flat instruction"),
    }
}

impl Printer<'_> {
    /// Appends operand `k` of instruction `i` (`null` if missing).
    fn val(&mut self, d: &InstData, i: InstId, k: usize) {
        match d.operands.get(k) {
            Some(&v) => self.value(v, Some((i, k as u32))),
            None => self.main.push_str("null"),
        }
    }

    /// Appends a reference to operand `k` (`null` if missing).
    fn reference(&mut self, d: &InstData, k: usize) {
        match d.operands.get(k) {
            Some(&v) => self.value(v, None),
            None => self.main.push_str("null"),
        }
    }

    /// Appends the comma-separated operands of `i` from index `from` on.
    fn operands(&mut self, d: &InstData, i: InstId, from: usize) {
        for (k, &v) in d.operands.iter().enumerate().skip(from) {
            if k > from {
                self.main.push_str(", ");
            }
            self.value(v, Some((i, k as u32)));
        }
    }

    /// ` op OPS` after the keyword (the space before the empty operand list stays).
    fn with_op(&mut self, d: &InstData, i: InstId, op: &str) {
        let out = &mut self.main;
        out.push(' ');
        out.push_str(op);
        out.push(' ');
        self.operands(d, i, 0);
    }

    /// ` op [access] OPS` after a `resource_*` keyword.
    fn resource(&mut self, d: &InstData, i: InstId, op: &str, a: BindlessAccess) {
        let out = &mut self.main;
        out.push(' ');
        out.push_str(op);
        out.push_str(match (a.typed, a.uniform) {
            (false, false) => " ",
            (true, false) => " [typed] ",
            (false, true) => " [uniform] ",
            (true, true) => " [typed, uniform] ",
        });
        self.operands(d, i, 0);
    }

    /// Appends the body of flat instruction `i` (data `d`; not [`is_structured`]): the
    /// keyword from the instruction table, then what follows it.
    pub(crate) fn flat_body(&mut self, i: InstId, d: &InstData) {
        self.main.push_str(d.kind.tag().text_keyword());
        match &d.kind {
            InstKind::Arithmetic(o) => self.with_op(d, i, o.name()),
            InstKind::Load
            | InstKind::Store
            | InstKind::Gep
            | InstKind::RayQueryPipeline
            | InstKind::Call => {
                self.main.push(' ');
                self.operands(d, i, 0);
            }
            InstKind::Branch | InstKind::Break | InstKind::Continue => {
                self.main.push(' ');
                self.reference(d, 0);
            }
            InstKind::ConditionalBranch => {
                self.main.push(' ');
                self.val(d, i, 0);
                self.main.push_str(", ");
                self.reference(d, 1);
                self.main.push_str(", ");
                self.reference(d, 2);
            }
            InstKind::Return => {
                if !d.operands.is_empty() {
                    self.main.push(' ');
                    self.val(d, i, 0);
                }
            }
            InstKind::Unreachable { message } => {
                if !message.is_empty() {
                    self.main.push(' ');
                    write_escaped(&mut self.main, message);
                }
            }
            InstKind::Assert { message } | InstKind::Assume { message } => {
                if !message.is_empty() {
                    self.main.push(' ');
                    write_escaped(&mut self.main, message);
                }
                self.main.push(' ');
                self.val(d, i, 0);
            }
            InstKind::RasterDiscard | InstKind::CoroTerminate | InstKind::Clock => {}
            InstKind::CoroSuspend(_) => self.coro_suspend(i, d),
            InstKind::CoroResume { token, has_frame } => {
                let _ = write!(self.main, " {token} ");
                if *has_frame {
                    self.val(d, i, 0);
                } else {
                    self.main.push_str("null");
                }
            }
            InstKind::Phi => {
                // Edge by edge; a malformed (odd) list prints its last block as `null`.
                let n = d.operands.len().div_ceil(2);
                for k in 0..n {
                    self.main.push_str(" (");
                    self.val(d, i, crate::phi::phi_value_slot(k));
                    self.main.push_str(", ");
                    self.reference(d, crate::phi::phi_block_slot(k));
                    self.main.push_str(if k + 1 < n { ")," } else { ")" });
                }
            }
            InstKind::Alloca(a) => {
                self.main.push(' ');
                self.main.push_str(a.name());
            }
            InstKind::Atomic(o) => self.with_op(d, i, o.name()),
            InstKind::ThreadGroup(o) => self.with_op(d, i, o.name()),
            InstKind::RayQueryObjectRead(o) => self.with_op(d, i, o.name()),
            InstKind::RayQueryObjectWrite(o) => self.with_op(d, i, o.name()),
            InstKind::Cast(o) => self.with_op(d, i, o.name()),
            InstKind::ResourceQuery(o, a) => self.resource(d, i, o.name(), *a),
            InstKind::ResourceRead(o, a) => self.resource(d, i, o.name(), *a),
            InstKind::ResourceWrite(o, a) => self.resource(d, i, o.name(), *a),
            InstKind::AutodiffIntrinsic(o) => {
                // The keyword is `@`, directly followed by the op.
                self.main.push_str(o.name());
                if !d.operands.is_empty() {
                    self.main.push(' ');
                    self.operands(d, i, 0);
                }
            }
            InstKind::Print { format } => {
                self.main.push(' ');
                write_escaped(&mut self.main, format);
                self.main.push(' ');
                self.operands(d, i, 0);
            }
            InstKind::DebugBreak { callback } => {
                self.main.push(' ');
                if let Some(cb) = callback {
                    let _ = write!(self.main, "callback({cb:#x}) ");
                }
                self.operands(d, i, 0);
            }
            // Kinds that nest their blocks go through the work stack (`structured_body`).
            _ => debug_assert!(is_structured(&d.kind)),
        }
    }

    /// `coro_suspend TOKEN "name" FRAME, export …, extension …`.
    fn coro_suspend(&mut self, i: InstId, d: &InstData) {
        let InstKind::CoroSuspend(data) = &d.kind else {
            return;
        };
        let _ = write!(self.main, " {} ", data.token);
        write_escaped(&mut self.main, &data.name);
        self.main.push(' ');
        let mut next = 0;
        if data.has_frame {
            self.val(d, i, 0);
            next = 1;
        } else {
            self.main.push_str("null");
        }
        for name in &data.exports {
            self.main.push_str(", export ");
            write_escaped(&mut self.main, name);
            self.main.push('=');
            self.val(d, i, next);
            next += 1;
        }
        for ext in &data.extensions {
            let kind = match ext.kind {
                CoroExtensionKind::Annotation => "annotation",
                CoroExtensionKind::Semantic => "semantic",
            };
            self.main.push_str(", extension ");
            write_escaped(&mut self.main, &ext.schema);
            let _ = write!(
                self.main,
                " v{} {kind} fallback={} {{",
                ext.version, ext.fallback
            );
            for (j, item) in ext.items.iter().enumerate() {
                if j > 0 {
                    self.main.push_str(", ");
                }
                match item {
                    CoroExtensionItem::Binding {
                        name,
                        access,
                        lifetime,
                    } => {
                        self.main.push_str("binding ");
                        write_escaped(&mut self.main, name);
                        let _ = write!(self.main, " access={access} lifetime={lifetime} value=");
                        self.val(d, i, next);
                        next += 1;
                    }
                    CoroExtensionItem::Attribute { name, value } => {
                        self.main.push_str("attribute ");
                        write_escaped(&mut self.main, name);
                        let _ = write!(self.main, " type={} value=", value.variant_index());
                        match value {
                            CoroAttrValue::String(s) => write_escaped(&mut self.main, s),
                            CoroAttrValue::Bool(b) => {
                                let _ = write!(self.main, "{b}");
                            }
                            CoroAttrValue::Int(x) => {
                                let _ = write!(self.main, "{x}");
                            }
                            CoroAttrValue::UInt(x) => {
                                let _ = write!(self.main, "{x}");
                            }
                            CoroAttrValue::Float(x) => self.main.push_str(&format_double(*x)),
                        }
                    }
                }
            }
            self.main.push('}');
        }
    }
}

/// `switch`/`indexed_branch` selector, cases and default (upstream prints the cases
/// before the default block).
#[allow(clippy::too_many_arguments)]
fn switch_edges(
    m: &Module,
    f: FuncId,
    d: &InstData,
    i: InstId,
    labels: &[u64],
    depth: usize,
    out: &mut Vec<Work>,
) {
    let sel = d.operands.first().copied();
    let kind = sel
        .filter(|_| operands_valid(m, f, d))
        .and_then(|v| m.value_type(f, v))
        .and_then(|t| match m.types.get(t) {
            TypeData::Scalar(k) => Some(*k),
            _ => None,
        });
    out.push(Work::Text(" "));
    out.push(match sel {
        Some(v) => Work::Val(v, Some((i, 0))),
        None => Work::Text("null"),
    });
    out.push(Work::Text(", "));
    for (j, &label) in labels.iter().enumerate() {
        out.push(Work::Str(format!("case {} ", case_label(kind, label))));
        out.push(Work::Slot(d.operands.get(2 + j).copied(), depth));
        out.push(Work::Text(", "));
    }
    out.extend([
        Work::Text("default "),
        Work::Slot(d.operands.get(1).copied(), depth),
    ]);
}

/// A case label: signed at the selector width for `i8`–`i64`, raw u64 otherwise.
pub(crate) fn case_label(selector: Option<ScalarKind>, label: u64) -> String {
    match selector {
        Some(ScalarKind::I8) => (label as u8 as i8).to_string(),
        Some(ScalarKind::I16) => (label as u16 as i16).to_string(),
        Some(ScalarKind::I32) => (label as u32 as i32).to_string(),
        Some(ScalarKind::I64) => (label as i64).to_string(),
        _ => label.to_string(),
    }
}
