//! [`Module`] → wire records, with upstream's canonical id assignment: live constants,
//! undefined values, special registers, functions (module order), then per function its
//! arguments and, for each owned block in order, the block followed by its instructions.
//!
//! Everything the readers would reject is refused here, so written files always read
//! back: the records are checked with the same shape, auxiliary and result-type rules.

use super::canonical::to_canonical;
use super::records::*;
use super::{InterchangeError, MAX_RECORD_COUNT, MAX_STRING_PAYLOAD_SIZE, verify_for_interchange};
use crate::entity::EntityRef;
use crate::function::{ArgKind, Function, FunctionKind};
use crate::inst::{InstData, InstKind, InstTag};
use crate::metadata::{Metadata, MetadataList};
use crate::module::Module;
use crate::types::{Type, TypeData};
use crate::value::{FuncId, Value};
use rustc_hash::FxHashSet;
use smallvec::SmallVec;
use std::borrow::Cow;

const NONE: u64 = u64::MAX;

type LResult<T> = Result<T, InterchangeError>;

fn fail<T>(msg: impl Into<String>) -> LResult<T> {
    Err(InterchangeError::new(msg))
}

/// Lowering state: descriptions of all types and the module-level id tables.
pub(crate) struct Lower<'m> {
    m: &'m Module,
    descs: &'m [Result<String, String>],
    consts: Vec<u64>,
    undefs: Vec<u64>,
    specials: [u64; 12],
    funcs: Vec<u64>,
    next: u64,
    /// Records counted so far against the 2^20 budget.
    pub records: usize,
}

fn md_list<'m>(list: &'m MetadataList, what: &dyn Fn() -> String) -> LResult<Vec<MdRec<'m>>> {
    list.iter()
        .map(|md| {
            Ok(match md {
                Metadata::Name(n) => {
                    if !valid_md_name(n.as_bytes()) {
                        return fail(format!("{}: invalid name metadata `{n}`", what()));
                    }
                    MdRec::Name(Cow::Borrowed(n.as_bytes()))
                }
                Metadata::Location { file, line } => {
                    MdRec::Location(Cow::Borrowed(file.as_bytes()), i64::from(*line))
                }
                Metadata::Comment(c) => MdRec::Comment(Cow::Borrowed(c.as_bytes())),
                Metadata::CurveBasis(s) => {
                    if u64::from(s.0) & !CURVE_BASIS_MASK != 0 {
                        return fail(format!("{}: curve-basis metadata has unknown bits", what()));
                    }
                    MdRec::CurveBasis(u64::from(s.0))
                }
                Metadata::SignatureConstraint => MdRec::SignatureConstraint,
                Metadata::Reg2MemSpill(k) => MdRec::Reg2MemSpill(*k),
                other => {
                    return fail(format!(
                        "{}: `{}` metadata has no interchange v1 encoding",
                        what(),
                        other.kind().name()
                    ));
                }
            })
        })
        .collect()
}

/// Per-function id tables.
struct Locals {
    args: Vec<u64>,
    blocks: Vec<u64>,
    insts: Vec<u64>,
}

impl<'m> Lower<'m> {
    fn desc(&self, t: Option<Type>, what: &dyn Fn() -> String) -> LResult<Cow<'m, [u8]>> {
        match t {
            None => Ok(Cow::Borrowed(b"void")),
            Some(t) => match self.descs.get(t.index()) {
                Some(Ok(s)) => Ok(Cow::Borrowed(s.as_bytes())),
                Some(Err(e)) => fail(format!("{}: {e}", what())),
                None => fail(format!("{}: type is not in the module", what())),
            },
        }
    }

    fn count(&mut self, n: usize) -> LResult<()> {
        self.records = self.records.saturating_add(n);
        if self.records > MAX_RECORD_COUNT {
            return fail("cumulative XIR record count exceeds the supported output budget (2^20)");
        }
        Ok(())
    }

    fn md(&mut self, list: &'m MetadataList, what: &dyn Fn() -> String) -> LResult<Vec<MdRec<'m>>> {
        self.count(list.len())?;
        md_list(list, what)
    }

    fn globals(&mut self) -> LResult<Vec<GlobalRec<'m>>> {
        let m = self.m;
        let mut out = Vec::new();
        let mut seen: FxHashSet<(Type, &[u8])> = FxHashSet::default();
        for c in m.live_constants() {
            let d = &m.constants[c];
            let what = || format!("constant {c:?}");
            let ty = self.desc(Some(d.ty), &what)?;
            if matches!(
                m.types.get(d.ty),
                TypeData::Custom { .. }
                    | TypeData::CoopVector { .. }
                    | TypeData::CoopVectorRef { .. }
                    | TypeData::CoopMatrixRef { .. }
            ) || m.types.is_resource(d.ty)
            {
                return fail(format!(
                    "{}: constants of this type cannot be serialized",
                    what()
                ));
            }
            let bytes = to_canonical(&m.types, d.ty, &d.bytes)
                .or_else(|e| fail(format!("{}: {e}", what())))?;
            if !seen.insert((d.ty, &d.bytes)) {
                return fail(format!("{}: duplicates an earlier constant", what()));
            }
            self.consts[c.index()] = self.next;
            out.push(GlobalRec {
                pos: 0,
                id: self.next,
                kind: GlobalKind::Constant {
                    ty,
                    data: ConstPayload::Raw(Cow::Owned(bytes)),
                },
                md: Vec::new(),
            });
            self.next += 1;
        }
        let mut seen_undef = FxHashSet::default();
        for u in m.live_undefs() {
            let d = &m.undefs[u];
            let what = || format!("undefined value {u:?}");
            if m.types.is_resource(d.ty) {
                return fail(format!(
                    "{}: resource-typed undefined values cannot be serialized",
                    what()
                ));
            }
            if !seen_undef.insert(d.ty) {
                return fail(format!("{}: duplicates an earlier undefined value", what()));
            }
            let ty = self.desc(Some(d.ty), &what)?;
            self.undefs[u.index()] = self.next;
            out.push(GlobalRec {
                pos: 0,
                id: self.next,
                kind: GlobalKind::Undefined { ty },
                md: Vec::new(),
            });
            self.next += 1;
        }
        for (r, _) in &m.special_registers {
            if self.specials[*r as usize] != NONE {
                return fail(format!("special register `{}` is listed twice", r.name()));
            }
            self.specials[*r as usize] = self.next;
            out.push(GlobalRec {
                pos: 0,
                id: self.next,
                kind: GlobalKind::Special {
                    name: Cow::Borrowed(r.name().as_bytes()),
                },
                md: Vec::new(),
            });
            self.next += 1;
        }
        Ok(out)
    }

    fn global_metadata(&mut self, globals: &mut [GlobalRec<'m>]) -> LResult<()> {
        let m = self.m;
        let lists = m
            .live_constants()
            .map(|c| &m.constants[c].metadata)
            .chain(m.live_undefs().map(|u| &m.undefs[u].metadata))
            .chain(m.special_registers.iter().map(|(_, md)| md));
        for (g, list) in globals.iter_mut().zip(lists) {
            let id = g.id;
            g.md = self.md(list, &|| format!("global {id}"))?;
        }
        Ok(())
    }

    fn value_id(&self, loc: &Locals, v: Value) -> u64 {
        match v {
            Value::Inst(i) => loc.insts.get(i.index()).copied().unwrap_or(NONE),
            Value::Block(b) => loc.blocks.get(b.index()).copied().unwrap_or(NONE),
            Value::Arg(a) => loc.args.get(a.index()).copied().unwrap_or(NONE),
            Value::Const(c) => self.consts.get(c.index()).copied().unwrap_or(NONE),
            Value::Undef(u) => self.undefs.get(u.index()).copied().unwrap_or(NONE),
            Value::Special(r) => self.specials[r as usize],
            Value::Func(f) => self.funcs.get(f.index()).copied().unwrap_or(NONE),
        }
    }

    fn function(&mut self, fid: FuncId) -> LResult<FuncRec<'m>> {
        let m = self.m;
        let f: &'m Function = m.func(fid);
        let fname = || format!("function {fid:?}");
        let id = self.funcs[fid.index()];
        let block_size = match f.kind {
            FunctionKind::Kernel { block_size } => {
                if f.ret.is_some() || !super::build::valid_block_size(block_size) {
                    return fail(format!(
                        "{}: invalid kernel return type or block size",
                        fname()
                    ));
                }
                block_size
            }
            _ => [0, 0, 0],
        };
        if f.kind == FunctionKind::External && (!f.block_order.is_empty() || f.body.is_some()) {
            return fail(format!(
                "{}: external function contains a definition",
                fname()
            ));
        }
        let ret = self.desc(f.ret, &|| format!("{}: return type", fname()))?;
        let md = self.md(&f.metadata, &fname)?;
        // Ids of every local first (operands may refer forward).
        let mut loc = Locals {
            args: vec![NONE; f.args.len()],
            blocks: vec![NONE; f.blocks.len()],
            insts: vec![NONE; f.insts.len()],
        };
        for a in &f.arg_order {
            loc.args[a.index()] = self.next;
            self.next += 1;
        }
        let mut n_insts = 0usize;
        for b in &f.block_order {
            if loc.blocks[b.index()] != NONE {
                return fail(format!("{}: block {b:?} is listed twice", fname()));
            }
            loc.blocks[b.index()] = self.next;
            self.next += 1;
            for i in &f.blocks[*b].insts {
                if loc.insts[i.index()] != NONE {
                    return fail(format!("{}: instruction {i:?} is placed twice", fname()));
                }
                loc.insts[i.index()] = self.next;
                self.next += 1;
                n_insts += 1;
            }
        }
        let mut args = Vec::with_capacity(f.arg_order.len());
        for a in &f.arg_order {
            let d = &f.args[*a];
            let what = || format!("{}: argument {a:?}", fname());
            let ts = &m.types;
            let ok = match d.kind {
                ArgKind::Value => !ts.is_resource(d.ty) && !ts.is_custom(d.ty),
                ArgKind::Reference => !ts.is_resource(d.ty),
                ArgKind::Resource => ts.is_resource(d.ty),
            };
            if !ok {
                return fail(format!("{}: kind is incompatible with its type", what()));
            }
            args.push(ArgRec {
                pos: 0,
                id: loc.args[a.index()],
                kind: Cow::Borrowed(d.kind.name().as_bytes()),
                ty: self.desc(Some(d.ty), &what)?,
                md: self.md(&d.metadata, &what)?,
            });
        }
        let mut blocks = Vec::with_capacity(f.block_order.len());
        for b in &f.block_order {
            blocks.push(BlockRec {
                pos: 0,
                id: loc.blocks[b.index()],
                md: self.md(&f.blocks[*b].metadata, &|| {
                    format!("{}: block {b:?}", fname())
                })?,
            });
        }
        let body = match (f.kind.has_definition(), f.body) {
            (false, _) => -1,
            (true, Some(b)) if loc.blocks[b.index()] != NONE => loc.blocks[b.index()] as i64,
            (true, _) => return fail(format!("{}: definition has no owned body block", fname())),
        };
        let mut insts = Vec::with_capacity(n_insts);
        for b in &f.block_order {
            for i in &f.blocks[*b].insts {
                let what = || format!("{}: instruction {i:?}", fname());
                let rec = self.inst(fid, &loc, loc.blocks[b.index()], *i, f.inst(*i), &what)?;
                insts.push(rec);
            }
        }
        Ok(FuncRec {
            pos: 0,
            id,
            kind: Cow::Borrowed(f.kind.keyword().as_bytes()),
            ret,
            block_size,
            md,
            args,
            blocks,
            body,
            body_pos: 0,
            insts,
        })
    }

    fn inst(
        &mut self,
        fid: FuncId,
        loc: &Locals,
        block: u64,
        i: crate::inst::InstId,
        d: &'m InstData,
        what: &dyn Fn() -> String,
    ) -> LResult<InstRec<'m>> {
        let m = self.m;
        let tag = d.kind.tag();
        let missing = || {
            format!(
                "{}: structured or incoming block is missing or not owned",
                what()
            )
        };
        let owned = |b: crate::value::BlockId| -> LResult<i64> {
            match loc.blocks.get(b.index()).copied() {
                Some(x) if x != NONE => Ok(x as i64),
                _ => fail(missing()),
            }
        };
        let req = |b: Option<crate::value::BlockId>| -> LResult<i64> {
            b.map_or_else(|| fail(missing()), owned)
        };
        let sel_kind = || {
            d.operands
                .first()
                .and_then(|v| m.value_type(fid, *v))
                .and_then(|t| m.types.scalar_kind(t))
        };
        let mut aux: SmallVec<[i64; 2]> = SmallVec::new();
        let mut payloads: SmallVec<[Cow<'m, [u8]>; 1]> = SmallVec::new();
        let mut null_operand = false;
        let mut op = WireOp::None;
        let mut labels_ok = true;
        let mut encode_labels = |labels: &[u64], aux: &mut SmallVec<[i64; 2]>| match sel_kind() {
            Some(k) => {
                for l in labels {
                    let v = encode_case_label(k, *l);
                    labels_ok &= decode_case_label(k, v).is_some();
                    aux.push(v);
                }
            }
            None => labels_ok = false,
        };
        match &d.kind {
            InstKind::If { merge } => aux.push(merge.map_or(Ok(-1), owned)?),
            InstKind::Switch { labels, merge } => {
                aux.push(req(*merge)?);
                encode_labels(labels, &mut aux);
            }
            InstKind::IndexedBranch { labels } => encode_labels(labels, &mut aux),
            InstKind::Loop {
                body,
                update,
                merge,
            } => {
                for b in [body, update, merge] {
                    aux.push(req(*b)?);
                }
            }
            InstKind::SimpleLoop { merge }
            | InstKind::Outline { merge }
            | InstKind::RayQueryLoop { merge } => aux.push(req(*merge)?),
            InstKind::AutodiffScope {
                merge,
                forward,
                n_forward_grads,
            } => {
                aux.push(req(*merge)?);
                aux.push(i64::from(*forward));
                aux.push(i64::from(*n_forward_grads));
            }
            InstKind::Unreachable { message } => payloads.push(Cow::Borrowed(message.as_bytes())),
            InstKind::Return => null_operand = d.operands.is_empty(),
            InstKind::CoroSuspend(data) => {
                if !data.exports.is_empty() || !data.extensions.is_empty() {
                    return fail(format!(
                        "{}: interchange v1 cannot serialize coroutine frame exports or extensions",
                        what()
                    ));
                }
                if d.operands.len() != usize::from(data.has_frame) {
                    return fail(format!("{}: malformed coro_suspend operands", what()));
                }
                null_operand = !data.has_frame;
                aux.push(i64::from(data.token));
                payloads.push(Cow::Borrowed(data.name.as_bytes()));
            }
            InstKind::CoroResume { token, has_frame } => {
                if d.operands.len() != usize::from(*has_frame) {
                    return fail(format!("{}: malformed coro_resume operands", what()));
                }
                null_operand = !has_frame;
                aux.push(i64::from(*token));
            }
            InstKind::Phi => {
                if !d.phi_well_formed() {
                    return fail(format!("{}: phi has malformed incoming edges", what()));
                }
                // On the wire: the incoming values as operands, their blocks as aux.
                for b in d.phi_blocks() {
                    aux.push(owned(b)?);
                }
            }
            InstKind::Alloca(o) => op = WireOp::Alloca(*o),
            InstKind::Atomic(o) => op = WireOp::Atomic(*o),
            InstKind::Arithmetic(o) => op = WireOp::Arithmetic(*o),
            InstKind::ThreadGroup(o) => op = WireOp::ThreadGroup(*o),
            InstKind::ResourceQuery(o, a) => {
                op = WireOp::ResourceQuery(*o);
                if !a.is_default() {
                    aux.push(i64::from(a.encoded()));
                }
            }
            InstKind::ResourceRead(o, a) => {
                op = WireOp::ResourceRead(*o);
                if !a.is_default() {
                    aux.push(i64::from(a.encoded()));
                }
            }
            InstKind::ResourceWrite(o, a) => {
                op = WireOp::ResourceWrite(*o);
                if !a.is_default() {
                    aux.push(i64::from(a.encoded()));
                }
            }
            InstKind::RayQueryObjectRead(o) => op = WireOp::RayQueryObjectRead(*o),
            InstKind::RayQueryObjectWrite(o) => op = WireOp::RayQueryObjectWrite(*o),
            InstKind::AutodiffIntrinsic(o) => op = WireOp::AutodiffIntrinsic(*o),
            InstKind::Cast(o) => op = WireOp::Cast(*o),
            InstKind::Print { format } => payloads.push(Cow::Borrowed(format.as_bytes())),
            InstKind::DebugBreak { callback } => {
                if callback.is_some() {
                    return fail(format!(
                        "{}: a debug-break callback cannot be serialized",
                        what()
                    ));
                }
                op = WireOp::NullCallback;
            }
            InstKind::Assert { message } | InstKind::Assume { message } => {
                payloads.push(Cow::Borrowed(message.as_bytes()))
            }
            InstKind::RayQueryDispatch
            | InstKind::Branch
            | InstKind::ConditionalBranch
            | InstKind::Break
            | InstKind::Continue
            | InstKind::RasterDiscard
            | InstKind::CoroTerminate
            | InstKind::Load
            | InstKind::Store
            | InstKind::Gep
            | InstKind::RayQueryPipeline
            | InstKind::Call
            | InstKind::Clock => {}
        }
        if !labels_ok {
            return fail(format!(
                "{}: case labels do not fit the selector type",
                what()
            ));
        }
        let mut operands: SmallVec<[i64; 4]> = SmallVec::with_capacity(d.operands.len() + 1);
        if null_operand {
            operands.push(-1);
        }
        let wire_operands: SmallVec<[Value; 4]> = if d.is_phi() {
            d.phi_values().collect()
        } else {
            d.operands.iter().copied().collect()
        };
        for v in &wire_operands {
            let id = self.value_id(loc, *v);
            if id == NONE {
                return fail(format!(
                    "{}: operand {v:?} is not part of the module",
                    what()
                ));
            }
            operands.push(id as i64);
        }
        if tag == InstTag::Call && !matches!(d.operands.first(), Some(Value::Func(_))) {
            return fail(format!("{}: call has no function callee", what()));
        }
        if let WireOp::ResourceRead(o) = op
            && o.is_cooperative_vector_math()
        {
            return fail(format!(
                "{}: resource read `{}` has no interchange v1 operand rule",
                what(),
                o.name()
            ));
        }
        if !op_matches_tag(tag, op) || !shape_ok(tag, op, operands.len(), aux.len(), payloads.len())
        {
            return fail(format!(
                "{}: unsupported operand or opcode layout for `{}` (op `{}`, {} operands)",
                what(),
                tag.interchange_name(),
                op.name(),
                operands.len()
            ));
        }
        if !aux_ok(tag, &aux) {
            return fail(format!(
                "{}: auxiliary value out of range (e.g. a negative indexed_branch label)",
                what()
            ));
        }
        if !type_shape_ok(tag, d.ty, &m.types) {
            return fail(format!(
                "{}: invalid result type for `{}`",
                what(),
                tag.interchange_name()
            ));
        }
        if payloads.iter().any(|p| p.len() > MAX_STRING_PAYLOAD_SIZE) {
            return fail(format!("{}: string payload exceeds 1 MiB", what()));
        }
        self.count(operands.len() + aux.len() + payloads.len())?;
        let _ = i;
        Ok(InstRec {
            pos: 0,
            end: 0,
            id: loc.insts[i.index()],
            block,
            tag,
            ty: self.desc(d.ty, what)?,
            op,
            operands,
            aux,
            payloads,
            md: self.md(&d.metadata, what)?,
        })
    }
}

/// Lowers a verified module to wire records. `descs` must come from
/// [`super::typedesc::describe_all`] on the module's type store.
pub(crate) fn lower<'m>(
    m: &'m Module,
    descs: &'m [Result<String, String>],
) -> LResult<(ModuleRec<'m>, usize)> {
    let diags = verify_for_interchange(m, None);
    if !diags.is_empty() {
        let mut e = InterchangeError::new("cannot serialize a module that fails verification");
        e.diagnostics = diags;
        return Err(e);
    }
    let mut l = Lower {
        m,
        descs,
        consts: vec![NONE; m.constants.len()],
        undefs: vec![NONE; m.undefs.len()],
        specials: [NONE; 12],
        funcs: vec![NONE; m.functions.len()],
        next: 0,
        records: 0,
    };
    let mut globals = l.globals()?;
    l.count(globals.len() + m.func_order.len())?;
    for f in &m.func_order {
        if l.funcs[f.index()] != NONE {
            return fail(format!("function {f:?} is listed twice"));
        }
        l.funcs[f.index()] = l.next;
        l.next += 1;
    }
    for f in &m.func_order {
        let func = m.func(*f);
        l.count(func.arg_order.len() + func.block_order.len() + func.inst_count())?;
    }
    let md = l.md(&m.metadata, &|| "module".to_string())?;
    l.global_metadata(&mut globals)?;
    let mut functions = Vec::with_capacity(m.func_order.len());
    for f in &m.func_order {
        functions.push(l.function(*f)?);
    }
    Ok((
        ModuleRec {
            md_pos: 0,
            md,
            globals,
            functions,
        },
        l.records,
    ))
}
