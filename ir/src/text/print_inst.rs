//! Instruction bodies (reference §1.5): turns one instruction into the [`Work`] items
//! that print everything after `%N: T = `. Keywords and op spellings come from
//! [`InstTag::text_keyword`](crate::inst::InstTag::text_keyword) and the op table.

use super::escape::{escaped, format_double};
use super::print::Work;
use crate::inst::{
    CoroAttrValue, CoroExtensionItem, CoroExtensionKind, InstData, InstId, InstKind,
};
use crate::module::Module;
use crate::op::BindlessAccess;
use crate::types::{ScalarKind, TypeData};
use crate::value::{BlockId, FuncId, Value};

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

/// Builds the body of instruction `i` (data `d`) of function `f` printed at `depth`.
pub(crate) fn inst_body(
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
    let kw = d.kind.tag().text_keyword();
    match &d.kind {
        InstKind::If { merge } => out.extend([
            Work::Text("if "),
            val(0),
            Work::Text(", then "),
            slot(1),
            Work::Text(", else "),
            slot(2),
            Work::Text(", merge "),
            side(*merge),
        ]),
        InstKind::Switch { labels, merge } => {
            switch_edges(m, f, d, i, labels, depth, kw, out);
            out.extend([Work::Text(", merge "), side(*merge)]);
        }
        InstKind::IndexedBranch { labels } => switch_edges(m, f, d, i, labels, depth, kw, out),
        InstKind::Loop {
            body,
            update,
            merge,
        } => out.extend([
            Work::Text("loop prepare "),
            slot(0),
            Work::Text(", body "),
            side(*body),
            Work::Text(", update "),
            side(*update),
            Work::Text(", merge "),
            side(*merge),
        ]),
        InstKind::SimpleLoop { merge } | InstKind::Outline { merge } => out.extend([
            Work::Text(kw),
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
                Work::Str(format!("autodiff forward {n_forward_grads} entry "))
            } else {
                Work::Text("autodiff entry ")
            });
            out.extend([slot(0), Work::Text(", merge "), side(*merge)]);
        }
        InstKind::RayQueryLoop { merge } => out.extend([
            Work::Text("ray_query_loop dispatch "),
            slot(0),
            Work::Text(", merge "),
            side(*merge),
        ]),
        InstKind::RayQueryDispatch => out.extend([
            Work::Text("ray_query_dispatch "),
            val(0),
            Work::Text(", exit "),
            Work::Ref(op(1)),
            Work::Text(", on_surface_candidate "),
            slot(2),
            Work::Text(", on_procedural_candidate "),
            slot(3),
        ]),
        InstKind::Branch | InstKind::Break | InstKind::Continue => {
            out.extend([Work::Text(kw), Work::Text(" "), Work::Ref(op(0))])
        }
        InstKind::ConditionalBranch => out.extend([
            Work::Text("cond_br "),
            val(0),
            Work::Text(", "),
            Work::Ref(op(1)),
            Work::Text(", "),
            Work::Ref(op(2)),
        ]),
        InstKind::Return => {
            out.push(Work::Text("return"));
            if op(0).is_some() {
                out.extend([Work::Text(" "), val(0)]);
            }
        }
        InstKind::Unreachable { message } => {
            out.push(Work::Text("unreachable"));
            if !message.is_empty() {
                out.push(Work::Str(format!(" {}", escaped(message))));
            }
        }
        InstKind::Assert { message } | InstKind::Assume { message } => {
            out.push(Work::Text(kw));
            if !message.is_empty() {
                out.push(Work::Str(format!(" {}", escaped(message))));
            }
            out.extend([Work::Text(" "), val(0)]);
        }
        InstKind::RasterDiscard | InstKind::CoroTerminate | InstKind::Clock => {
            out.push(Work::Text(kw))
        }
        InstKind::CoroSuspend(data) => {
            out.push(Work::Str(format!(
                "coro_suspend {} {} ",
                data.token,
                escaped(&data.name)
            )));
            let mut next = 0;
            if data.has_frame {
                out.push(val(0));
                next = 1;
            } else {
                out.push(Work::Text("null"));
            }
            for name in &data.exports {
                out.push(Work::Str(format!(", export {}=", escaped(name))));
                out.push(val(next));
                next += 1;
            }
            for ext in &data.extensions {
                let kind = match ext.kind {
                    CoroExtensionKind::Annotation => "annotation",
                    CoroExtensionKind::Semantic => "semantic",
                };
                out.push(Work::Str(format!(
                    ", extension {} v{} {kind} fallback={} {{",
                    escaped(&ext.schema),
                    ext.version,
                    ext.fallback
                )));
                for (j, item) in ext.items.iter().enumerate() {
                    let sep = if j > 0 { ", " } else { "" };
                    match item {
                        CoroExtensionItem::Binding {
                            name,
                            access,
                            lifetime,
                        } => {
                            out.push(Work::Str(format!(
                                "{sep}binding {} access={access} lifetime={lifetime} value=",
                                escaped(name)
                            )));
                            out.push(val(next));
                            next += 1;
                        }
                        CoroExtensionItem::Attribute { name, value } => {
                            let v = match value {
                                CoroAttrValue::String(s) => escaped(s),
                                CoroAttrValue::Bool(b) => b.to_string(),
                                CoroAttrValue::Int(x) => x.to_string(),
                                CoroAttrValue::UInt(x) => x.to_string(),
                                CoroAttrValue::Float(x) => format_double(*x),
                            };
                            out.push(Work::Str(format!(
                                "{sep}attribute {} type={} value={v}",
                                escaped(name),
                                value.variant_index()
                            )));
                        }
                    }
                }
                out.push(Work::Text("}"));
            }
        }
        InstKind::CoroResume { token, has_frame } => {
            out.push(Work::Str(format!("coro_resume {token} ")));
            out.push(if *has_frame {
                val(0)
            } else {
                Work::Text("null")
            });
        }
        InstKind::Phi { blocks } => {
            out.push(Work::Text("phi"));
            let n = d.operands.len().max(blocks.len());
            for k in 0..n {
                out.extend([
                    Work::Text(" ("),
                    val(k),
                    Work::Text(", "),
                    Work::Ref(blocks.get(k).map(|b| Value::Block(*b))),
                    Work::Text(if k + 1 < n { ")," } else { ")" }),
                ]);
            }
        }
        InstKind::Alloca(a) => out.extend([Work::Text("alloca "), Work::Text(a.name())]),
        InstKind::Load
        | InstKind::Store
        | InstKind::Gep
        | InstKind::RayQueryPipeline
        | InstKind::Call => {
            out.extend([Work::Text(kw), Work::Text(" ")]);
            operands(d, i, 0, out);
        }
        InstKind::Atomic(o) => with_op(d, i, kw, o.name(), out),
        InstKind::Arithmetic(o) => with_op(d, i, kw, o.name(), out),
        InstKind::ThreadGroup(o) => with_op(d, i, kw, o.name(), out),
        InstKind::RayQueryObjectRead(o) => with_op(d, i, kw, o.name(), out),
        InstKind::RayQueryObjectWrite(o) => with_op(d, i, kw, o.name(), out),
        InstKind::Cast(o) => with_op(d, i, kw, o.name(), out),
        InstKind::ResourceQuery(o, a) => resource(d, i, kw, o.name(), *a, out),
        InstKind::ResourceRead(o, a) => resource(d, i, kw, o.name(), *a, out),
        InstKind::ResourceWrite(o, a) => resource(d, i, kw, o.name(), *a, out),
        InstKind::AutodiffIntrinsic(o) => {
            out.extend([Work::Text("@"), Work::Text(o.name())]);
            if !d.operands.is_empty() {
                out.push(Work::Text(" "));
                operands(d, i, 0, out);
            }
        }
        InstKind::Print { format } => {
            out.push(Work::Str(format!("print {} ", escaped(format))));
            operands(d, i, 0, out);
        }
        InstKind::DebugBreak { callback } => {
            out.push(Work::Text("debug_break "));
            if let Some(cb) = callback {
                out.push(Work::Str(format!("callback({cb:#x}) ")));
            }
            operands(d, i, 0, out);
        }
    }
}

/// `keyword op OPS` (the space before the empty operand list stays).
fn with_op(d: &InstData, i: InstId, kw: &'static str, op: &'static str, out: &mut Vec<Work>) {
    out.extend([
        Work::Text(kw),
        Work::Text(" "),
        Work::Text(op),
        Work::Text(" "),
    ]);
    operands(d, i, 0, out);
}

/// `resource_* op [access] OPS`.
fn resource(
    d: &InstData,
    i: InstId,
    kw: &'static str,
    op: &'static str,
    a: BindlessAccess,
    out: &mut Vec<Work>,
) {
    out.extend([Work::Text(kw), Work::Text(" "), Work::Text(op)]);
    out.push(Work::Text(match (a.typed, a.uniform) {
        (false, false) => " ",
        (true, false) => " [typed] ",
        (false, true) => " [uniform] ",
        (true, true) => " [typed, uniform] ",
    }));
    operands(d, i, 0, out);
}

/// The comma-separated operands from index `from` on.
fn operands(d: &InstData, i: InstId, from: usize, out: &mut Vec<Work>) {
    for (k, v) in d.operands.iter().enumerate().skip(from) {
        if k > from {
            out.push(Work::Text(", "));
        }
        out.push(Work::Val(*v, Some((i, k as u32))));
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
    kw: &'static str,
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
    out.extend([Work::Text(kw), Work::Text(" ")]);
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
