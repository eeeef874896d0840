//! Wire records → [`Module`]: resolves ids (unique across the module, at most
//! `i64::MAX`), checks ownership (blocks, arguments and instructions are local to their
//! function), instruction shapes, auxiliary ranges and result-type shapes, decodes
//! canonical constants and case labels, builds a [`SourceMap`] from record positions,
//! and finally runs the verifier. Nothing is returned unless everything succeeded.

use super::canonical::{CanonicalError, canonical_size, from_canonical};
use super::lex::hex_value;
use super::records::*;
use super::typedesc::parse_type;
use super::{MAX_PAYLOAD_SIZE, verify_for_interchange};
use crate::diag::{Diagnostic, Span};
use crate::function::{ArgKind, Function, FunctionKind};
use crate::inst::{InstData, InstId, InstKind, InstTag};
use crate::metadata::{CurveBasisSet, Metadata, MetadataList};
use crate::module::Module;
use crate::source_map::SourceMap;
use crate::types::{Type, TypeData};
use crate::value::{BlockId, FuncId, SpecialRegister, Value};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Why building failed.
#[derive(Clone, Debug)]
pub(crate) enum BuildError {
    /// A record is invalid (byte range of the record in the input).
    Record {
        pos: usize,
        end: usize,
        message: String,
    },
    /// The verifier rejected the decoded module.
    Verify(Vec<Diagnostic>),
}

type BResult<T> = Result<T, BuildError>;

fn err<T>(pos: usize, message: impl Into<String>) -> BResult<T> {
    Err(BuildError::Record {
        pos,
        end: pos + 1,
        message: message.into(),
    })
}

#[derive(Copy, Clone)]
enum Slot {
    Global(Value),
    Func(FuncId),
    Local(FuncId, Value),
}

/// Value ids: a dense table for the small ids canonical files use, a map for the rest.
struct Ids {
    dense: Vec<Option<Slot>>,
    sparse: FxHashMap<u64, Slot>,
}

impl Ids {
    fn with_records(n: usize) -> Self {
        Self {
            dense: vec![None; n.saturating_mul(2).saturating_add(64)],
            sparse: FxHashMap::default(),
        }
    }
    fn get(&self, id: &u64) -> Option<&Slot> {
        match usize::try_from(*id).ok().and_then(|i| self.dense.get(i)) {
            Some(s) => s.as_ref(),
            None => self.sparse.get(id),
        }
    }
    /// Inserts; returns the previous slot.
    fn insert(&mut self, id: u64, slot: Slot) -> Option<Slot> {
        match usize::try_from(id).ok().and_then(|i| self.dense.get_mut(i)) {
            Some(s) => s.replace(slot),
            None => self.sparse.insert(id, slot),
        }
    }
}

struct Builder<'r, 'a> {
    m: Module,
    ids: Ids,
    types: FxHashMap<&'r [u8], Option<Type>>,
    native_budget: usize,
    _rec: std::marker::PhantomData<&'a ()>,
}

fn utf8(pos: usize, b: &[u8]) -> BResult<String> {
    match std::str::from_utf8(b) {
        Ok(s) => Ok(s.to_string()),
        Err(_) => err(pos, "string is not valid UTF-8"),
    }
}

fn metadata(pos: usize, md: &[MdRec<'_>]) -> BResult<MetadataList> {
    md.iter()
        .map(|r| {
            Ok(match r {
                MdRec::Name(s) => Metadata::Name(utf8(pos, s)?),
                MdRec::Location(f, l) => Metadata::Location {
                    file: utf8(pos, f)?,
                    line: *l as i32,
                },
                MdRec::Comment(s) => Metadata::Comment(utf8(pos, s)?),
                MdRec::CurveBasis(m) => Metadata::CurveBasis(CurveBasisSet(*m as u8)),
                MdRec::SignatureConstraint => Metadata::SignatureConstraint,
                MdRec::Reg2MemSpill(k) => Metadata::Reg2MemSpill(*k),
            })
        })
        .collect()
}

/// Whether the kernel block size is valid: every component ≥ 1, product ≤ 1024.
pub(crate) fn valid_block_size(b: [u32; 3]) -> bool {
    b.iter().all(|x| *x >= 1) && b.iter().map(|x| u64::from(*x)).product::<u64>() <= 1024
}

impl<'r, 'a: 'r> Builder<'r, 'a> {
    fn register(&mut self, pos: usize, id: u64, slot: Slot) -> BResult<()> {
        if id > i64::MAX as u64 {
            return err(pos, format!("value id {id} is out of range"));
        }
        if self.ids.insert(id, slot).is_some() {
            return err(pos, format!("duplicate value id {id}"));
        }
        Ok(())
    }

    /// Parses (and caches) a type description; `Err` on malformed ones.
    fn ty(&mut self, pos: usize, desc: &'r [u8], what: &str) -> BResult<Option<Type>> {
        if let Some(t) = self.types.get(desc) {
            return Ok(*t);
        }
        match parse_type(desc, &mut self.m.types) {
            Ok(t) => {
                self.types.insert(desc, t);
                Ok(t)
            }
            Err(()) => err(
                pos,
                format!("invalid {what} type `{}`", String::from_utf8_lossy(desc)),
            ),
        }
    }

    fn global(&mut self, g: &'r GlobalRec<'a>, sm: &mut SourceMap) -> BResult<()> {
        let pos = g.pos;
        let md = metadata(pos, &g.md)?;
        let value = match &g.kind {
            GlobalKind::Special { name } => {
                let r = std::str::from_utf8(name)
                    .ok()
                    .and_then(SpecialRegister::from_name);
                let Some(r) = r else {
                    return err(pos, "unknown XIR special-register kind");
                };
                if self.m.special_registers.iter().any(|(x, _)| *x == r) {
                    return err(
                        pos,
                        format!("special register `{}` is declared twice", r.name()),
                    );
                }
                self.m.special_register_type(r);
                self.m.special_registers.push((r, md));
                Value::Special(r)
            }
            GlobalKind::Undefined { ty } => {
                let t = self.global_type(pos, ty)?;
                let before = self.m.undefs.len();
                let u = self.m.undef(t);
                if self.m.undefs.len() == before {
                    return err(pos, "undefined value of this type is declared twice");
                }
                self.m.undefs[u].metadata = md;
                sm.undefs[u] = Span::new(pos, pos + 1);
                Value::Undef(u)
            }
            GlobalKind::Constant { ty, data } => {
                let t = self.global_type(pos, ty)?;
                if matches!(
                    self.m.types.get(t),
                    TypeData::Custom { .. }
                        | TypeData::CoopVector { .. }
                        | TypeData::CoopVectorRef { .. }
                        | TypeData::CoopMatrixRef { .. }
                ) {
                    return err(pos, "constants cannot have opaque or cooperative types");
                }
                let Some(size) = canonical_size(&self.m.types, t) else {
                    return err(pos, "constant type has no canonical encoding");
                };
                let bytes: std::borrow::Cow<'_, [u8]> = match data {
                    ConstPayload::Raw(b) => {
                        if b.len() != size {
                            return err(pos, "constant payload size does not match its type");
                        }
                        std::borrow::Cow::Borrowed(&b[..])
                    }
                    ConstPayload::Hex(h) => {
                        if h.len() != size.saturating_mul(2) {
                            return err(pos, "constant payload size does not match its type");
                        }
                        let mut v = Vec::with_capacity(size);
                        for p in h.chunks_exact(2) {
                            match (hex_value(p[0]), hex_value(p[1])) {
                                (Some(hi), Some(lo)) => v.push(hi << 4 | lo),
                                _ => return err(pos, "constant contains invalid hexadecimal data"),
                            }
                        }
                        std::borrow::Cow::Owned(v)
                    }
                };
                let native_size = self.m.types.size_of(t);
                if native_size > self.native_budget as u64 {
                    return err(pos, "constants exceed the decoding memory budget");
                }
                self.native_budget -= native_size as usize;
                let native = match from_canonical(&self.m.types, t, &bytes) {
                    Ok(n) => n,
                    Err(CanonicalError::Bool) => {
                        return err(pos, "constant contains a bool byte other than 0 or 1");
                    }
                    Err(e) => return err(pos, format!("invalid canonical constant data: {e}")),
                };
                let before = self.m.constants.len();
                let c = self.m.constant(t, &native);
                if self.m.constants.len() == before {
                    return err(
                        pos,
                        "constant duplicates an earlier constant (aliased value)",
                    );
                }
                self.m.constants[c].metadata = md;
                sm.constants[c] = Span::new(pos, pos + 1);
                Value::Const(c)
            }
        };
        self.register(pos, g.id, Slot::Global(value))
    }

    fn global_type(&mut self, pos: usize, ty: &'r [u8]) -> BResult<Type> {
        match self.ty(pos, ty, "global")? {
            Some(t) if !self.m.types.is_resource(t) => Ok(t),
            _ => err(pos, "invalid type in XIR global record"),
        }
    }

    fn function(&mut self, f: &'r FuncRec<'a>) -> BResult<FuncId> {
        let pos = f.pos;
        let ret = self.ty(pos, &f.ret, "return")?;
        let zero = f.block_size == [0, 0, 0];
        let kind = match &f.kind[..] {
            b"kernel" => {
                if ret.is_some() || !valid_block_size(f.block_size) {
                    return err(pos, "invalid kernel return type or block size");
                }
                FunctionKind::Kernel {
                    block_size: f.block_size,
                }
            }
            b"callable" if zero => FunctionKind::Callable,
            b"raster_vertex" if zero => FunctionKind::RasterVertex,
            b"raster_fragment" if zero => FunctionKind::RasterFragment,
            b"external" => {
                if !zero || !f.blocks.is_empty() || f.body != -1 || !f.insts.is_empty() {
                    return err(pos, "external function contains a definition or block size");
                }
                FunctionKind::External
            }
            b"callable" | b"raster_vertex" | b"raster_fragment" => {
                return err(pos, "non-kernel function has a nonzero block size");
            }
            _ => return err(pos, "unknown XIR function kind"),
        };
        let mut func = Function::new(kind, ret);
        func.metadata = metadata(pos, &f.md)?;
        let id = self.m.add_function(func);
        self.register(pos, f.id, Slot::Func(id))?;
        Ok(id)
    }

    fn locals(&mut self, fid: FuncId, f: &'r FuncRec<'a>, sm: &mut SourceMap) -> BResult<()> {
        for a in &f.args {
            let t = match self.ty(a.pos, &a.ty, "argument")? {
                Some(t) => t,
                None => return err(a.pos, "argument type cannot be void"),
            };
            let ts = &self.m.types;
            let kind = match &a.kind[..] {
                b"value" if !ts.is_resource(t) && !ts.is_custom(t) => ArgKind::Value,
                b"reference" if !ts.is_resource(t) => ArgKind::Reference,
                b"resource" if ts.is_resource(t) => ArgKind::Resource,
                _ => return err(a.pos, "argument kind is incompatible with its type"),
            };
            let md = metadata(a.pos, &a.md)?;
            let func = self.m.func_mut(fid);
            let arg = func.add_arg(kind, t);
            func.args[arg].metadata = md;
            sm.funcs.get_mut(fid).args[arg] = Span::new(a.pos, a.pos + 1);
            self.register(a.pos, a.id, Slot::Local(fid, Value::Arg(arg)))?;
        }
        for b in &f.blocks {
            let md = metadata(b.pos, &b.md)?;
            let func = self.m.func_mut(fid);
            let blk = func.create_block();
            func.blocks[blk].metadata = md;
            sm.funcs.get_mut(fid).blocks[blk] = Span::new(b.pos, b.pos + 1);
            self.register(b.pos, b.id, Slot::Local(fid, Value::Block(blk)))?;
        }
        if self.m.func(fid).kind.has_definition() {
            if f.body < 0 {
                return err(f.body_pos, "function definition is missing a body block");
            }
            let Some(body) = self.block_of(fid, f.body) else {
                return err(
                    f.body_pos,
                    "body block is missing or owned by another function",
                );
            };
            self.m.func_mut(fid).body = Some(body);
        }
        Ok(())
    }

    fn block_of(&self, fid: FuncId, id: i64) -> Option<BlockId> {
        match self.ids.get(&u64::try_from(id).ok()?)? {
            Slot::Local(g, Value::Block(b)) if *g == fid => Some(*b),
            _ => None,
        }
    }

    /// Pass 1: validates the record and places a placeholder instruction.
    fn place(&mut self, fid: FuncId, r: &'r InstRec<'a>, sm: &mut SourceMap) -> BResult<InstId> {
        let pos = r.pos;
        let at = |message: String| BuildError::Record {
            pos,
            end: r.end,
            message,
        };
        let Some(b) = i64::try_from(r.block)
            .ok()
            .and_then(|b| self.block_of(fid, b))
        else {
            return Err(at(
                "instruction references a missing or foreign basic block".into(),
            ));
        };
        let name = r.tag.interchange_name();
        if !op_matches_tag(r.tag, r.op)
            || !shape_ok(r.tag, r.op, r.operands.len(), r.aux.len(), r.payloads.len())
        {
            return Err(at(format!(
                "`{name}` has an invalid operand, auxiliary or payload layout ({} operands, {} auxiliaries, {} payloads)",
                r.operands.len(),
                r.aux.len(),
                r.payloads.len()
            )));
        }
        if !aux_ok(r.tag, &r.aux) {
            return Err(at(format!("`{name}` has an auxiliary value out of range")));
        }
        let ty = self.ty(pos, &r.ty, "result")?;
        if !type_shape_ok(r.tag, ty, &self.m.types) {
            return Err(at(format!("`{name}` has an invalid result type")));
        }
        let md = metadata(pos, &r.md)?;
        let func = self.m.func_mut(fid);
        let mut data = InstData::new(InstKind::Clock, ty, []);
        data.metadata = md;
        let i = func.append_inst(b, data);
        sm.funcs.get_mut(fid).insts[i] = Span::new(pos, r.end);
        self.register(pos, r.id, Slot::Local(fid, Value::Inst(i)))?;
        Ok(i)
    }

    /// Pass 2: resolves operands and side fields.
    fn resolve(&mut self, fid: FuncId, i: InstId, r: &InstRec<'a>) -> BResult<()> {
        let at = |message: &str| BuildError::Record {
            pos: r.pos,
            end: r.end,
            message: message.to_string(),
        };
        let mut ops: SmallVec<[Value; 3]> = SmallVec::with_capacity(r.operands.len());
        let nullable = matches!(
            r.tag,
            InstTag::Return | InstTag::CoroSuspend | InstTag::CoroResume
        );
        for &id in &r.operands {
            if id < 0 {
                if !nullable {
                    return Err(at("null operand (-1) is not allowed here"));
                }
                continue;
            }
            let v = match self.ids.get(&(id as u64)) {
                None => return Err(at(&format!("operand references unknown value id {id}"))),
                Some(Slot::Global(v)) => *v,
                Some(Slot::Func(f)) => Value::Func(*f),
                Some(Slot::Local(g, v)) if *g == fid => *v,
                Some(Slot::Local(..)) => {
                    return Err(at(&format!(
                        "operand {id} is a local value of another function"
                    )));
                }
            };
            ops.push(v);
        }
        let block = |k: usize| -> BResult<BlockId> {
            self.block_of(fid, r.aux[k])
                .ok_or_else(|| at("structured block id is missing or foreign"))
        };
        let opt_block = |k: usize| -> BResult<Option<BlockId>> {
            if r.aux[k] == -1 {
                Ok(None)
            } else {
                block(k).map(Some)
            }
        };
        let mut phi_edges: Option<Vec<(Value, BlockId)>> = None;
        let labels = |first: usize, ops: &[Value]| -> BResult<Vec<u64>> {
            let sel = ops
                .first()
                .and_then(|v| self.m.value_type(fid, *v))
                .and_then(|t| self.m.types.scalar_kind(t));
            r.aux[first..]
                .iter()
                .map(|v| {
                    sel.and_then(|k| decode_case_label(k, *v))
                        .ok_or_else(|| at("case value is outside the selector type range"))
                })
                .collect()
        };
        let payload = |k: usize| utf8(r.pos, &r.payloads[k]);
        let kind = match (r.tag, r.op) {
            (InstTag::If, _) => InstKind::If {
                merge: opt_block(0)?,
            },
            (InstTag::Switch, _) => InstKind::Switch {
                merge: Some(block(0)?),
                labels: labels(1, &ops)?,
            },
            (InstTag::IndexedBranch, _) => InstKind::IndexedBranch {
                labels: labels(0, &ops)?,
            },
            (InstTag::Loop, _) => InstKind::Loop {
                body: Some(block(0)?),
                update: Some(block(1)?),
                merge: Some(block(2)?),
            },
            (InstTag::SimpleLoop, _) => InstKind::SimpleLoop {
                merge: Some(block(0)?),
            },
            (InstTag::Outline, _) => InstKind::Outline {
                merge: Some(block(0)?),
            },
            (InstTag::RayQueryLoop, _) => InstKind::RayQueryLoop {
                merge: Some(block(0)?),
            },
            (InstTag::AutodiffScope, _) => InstKind::AutodiffScope {
                merge: Some(block(0)?),
                forward: r.aux[1] == 1,
                n_forward_grads: r.aux[2] as u32,
            },
            (InstTag::RayQueryDispatch, _) => InstKind::RayQueryDispatch,
            (InstTag::Branch, _) => InstKind::Branch,
            (InstTag::ConditionalBranch, _) => InstKind::ConditionalBranch,
            (InstTag::Unreachable, _) => InstKind::Unreachable {
                message: payload(0)?,
            },
            (InstTag::Break, _) => InstKind::Break,
            (InstTag::Continue, _) => InstKind::Continue,
            (InstTag::Return, _) => InstKind::Return,
            (InstTag::RasterDiscard, _) => InstKind::RasterDiscard,
            (InstTag::CoroSuspend, _) => {
                InstKind::CoroSuspend(Box::new(crate::inst::CoroSuspendData {
                    token: r.aux[0] as u32,
                    name: payload(0)?,
                    has_frame: !ops.is_empty(),
                    exports: Vec::new(),
                    extensions: Vec::new(),
                }))
            }
            (InstTag::CoroResume, _) => InstKind::CoroResume {
                token: r.aux[0] as u32,
                has_frame: !ops.is_empty(),
            },
            (InstTag::CoroTerminate, _) => InstKind::CoroTerminate,
            (InstTag::Phi, _) => {
                // On the wire: values as operands, their blocks as aux (as many).
                let values = std::mem::take(&mut ops);
                let mut edges = Vec::with_capacity(values.len());
                for (k, v) in values.into_iter().enumerate() {
                    edges.push((v, block(k)?));
                }
                phi_edges = Some(edges);
                InstKind::Phi
            }
            (_, WireOp::Alloca(o)) => InstKind::Alloca(o),
            (InstTag::Load, _) => InstKind::Load,
            (InstTag::Store, _) => InstKind::Store,
            (InstTag::Gep, _) => InstKind::Gep,
            (_, WireOp::Atomic(o)) => InstKind::Atomic(o),
            (_, WireOp::Arithmetic(o)) => InstKind::Arithmetic(o),
            (_, WireOp::ThreadGroup(o)) => InstKind::ThreadGroup(o),
            (_, WireOp::ResourceQuery(o)) => InstKind::ResourceQuery(o, access(&r.aux)),
            (_, WireOp::ResourceRead(o)) => InstKind::ResourceRead(o, access(&r.aux)),
            (_, WireOp::ResourceWrite(o)) => InstKind::ResourceWrite(o, access(&r.aux)),
            (_, WireOp::RayQueryObjectRead(o)) => InstKind::RayQueryObjectRead(o),
            (_, WireOp::RayQueryObjectWrite(o)) => InstKind::RayQueryObjectWrite(o),
            (InstTag::RayQueryPipeline, _) => InstKind::RayQueryPipeline,
            (_, WireOp::AutodiffIntrinsic(o)) => InstKind::AutodiffIntrinsic(o),
            (InstTag::Call, _) => {
                if !matches!(ops.first(), Some(Value::Func(_))) {
                    return Err(at("call instruction has an invalid callee"));
                }
                InstKind::Call
            }
            (_, WireOp::Cast(o)) => InstKind::Cast(o),
            (InstTag::Print, _) => InstKind::Print {
                format: payload(0)?,
            },
            (InstTag::Clock, _) => InstKind::Clock,
            (InstTag::DebugBreak, _) => InstKind::DebugBreak { callback: None },
            (InstTag::Assert, _) => InstKind::Assert {
                message: payload(0)?,
            },
            (InstTag::Assume, _) => InstKind::Assume {
                message: payload(0)?,
            },
            _ => return Err(at("operation does not match the instruction kind")),
        };
        let d = self.m.func_mut(fid).inst_mut(i);
        d.kind = kind;
        d.operands = ops;
        if let Some(edges) = phi_edges {
            d.phi_set_edges(edges);
        }
        Ok(())
    }
}

fn access(aux: &[i64]) -> crate::op::BindlessAccess {
    aux.first()
        .and_then(|v| crate::op::BindlessAccess::decode(*v as u64))
        .unwrap_or_default()
}

/// Builds and verifies the module described by `rec`.
pub(crate) fn build_module(rec: &ModuleRec<'_>) -> BResult<(Module, SourceMap)> {
    let mut b = Builder {
        m: Module::new(),
        ids: Ids::with_records(
            rec.globals.len()
                + rec
                    .functions
                    .iter()
                    .map(|f| 1 + f.args.len() + f.blocks.len() + f.insts.len())
                    .sum::<usize>(),
        ),
        types: FxHashMap::default(),
        native_budget: 2 * MAX_PAYLOAD_SIZE,
        _rec: std::marker::PhantomData,
    };
    let mut sm = SourceMap::default();
    b.m.metadata = metadata(rec.md_pos, &rec.md)?;
    for g in &rec.globals {
        b.global(g, &mut sm)?;
    }
    let mut fids = Vec::with_capacity(rec.functions.len());
    for f in &rec.functions {
        let fid = b.function(f)?;
        sm.funcs.get_mut(fid).header = Span::new(f.pos, f.pos + 1);
        fids.push(fid);
    }
    for (f, &fid) in rec.functions.iter().zip(&fids) {
        b.locals(fid, f, &mut sm)?;
    }
    let mut placed: Vec<Vec<InstId>> = Vec::with_capacity(fids.len());
    for (f, &fid) in rec.functions.iter().zip(&fids) {
        let mut v = Vec::with_capacity(f.insts.len());
        for r in &f.insts {
            v.push(b.place(fid, r, &mut sm)?);
        }
        placed.push(v);
    }
    for ((f, &fid), ids) in rec.functions.iter().zip(&fids).zip(&placed) {
        for (r, &i) in f.insts.iter().zip(ids) {
            b.resolve(fid, i, r)?;
        }
    }
    let diags = verify_for_interchange(&b.m, Some(&sm));
    if !diags.is_empty() {
        return Err(BuildError::Verify(diags));
    }
    Ok((b.m, sm))
}
