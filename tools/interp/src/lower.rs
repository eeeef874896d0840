//! Lowering: an XIR kernel and the callables it reaches → [`Program`].
//!
//! Every SSA value gets a register range (lanes, see `layout.rs`); lvalues (allocas,
//! GEPs, reference arguments) and resources are one lane (a pointer or a binding).
//! Each instruction becomes one op (phis become moves on the edges into their block), so
//! the executor's op count is the executed XIR instruction count. Anything the
//! interpreter does not execute (see `support.rs`), recursion, and types without a lane
//! layout are located errors here, before anything runs.

use crate::Program;
use crate::code::*;
use crate::layout::{self, Layout, LayoutError, lanes};
use crate::scalar::{self, int_value};
use crate::support::{Support, classify};
use std::collections::HashMap;
use std::sync::Arc;
use xir_ir::diag::{Diagnostic, Span};
use xir_ir::op::{
    AllocaOp, ArithSignature as S, ArithmeticOp as A, AtomicOp, CastOp, ResourceQueryOp as Q,
    ResourceReadOp as RR, ResourceWriteOp as RW, ThreadGroupOp as G,
};
use xir_ir::source_map::SourceMap;
use xir_ir::{
    ArgKind, EntityRef, FuncId, FunctionKind, InstId, InstKind, Module, ScalarKind,
    SpecialRegister, Type, TypeData, Value,
};

type Res<T> = Result<T, String>;

/// A function on the call-graph walk: its call sites and the next one to visit.
type CallFrame = (FuncId, Vec<(InstId, FuncId)>, usize);

/// Lowers `kernel` (and every callable it reaches) for execution.
pub fn lower(
    m: &Module,
    kernel: FuncId,
    map: Option<&SourceMap>,
) -> Result<Program, Vec<Diagnostic>> {
    let span = |f: FuncId, i: InstId| map.and_then(|s| s.inst(f, i));
    let kf = m.func(kernel);
    let FunctionKind::Kernel { block_size } = kf.kind else {
        return Err(vec![Diagnostic::error(
            "the function to run is not a kernel",
            map.and_then(|s| s.func(kernel)),
        )]);
    };
    // Reachable callables, recursion refused.
    let mut order = vec![kernel];
    let mut index: HashMap<FuncId, u32> = HashMap::from([(kernel, 0)]);
    let mut diags = Vec::new();
    {
        let mut stack: Vec<CallFrame> = vec![(kernel, calls(m, kernel), 0)];
        let mut on_stack = vec![kernel];
        while let Some(top) = stack.last_mut() {
            if top.2 == top.1.len() {
                stack.pop();
                on_stack.pop();
                continue;
            }
            let (site, callee) = top.1[top.2];
            let caller = top.0;
            top.2 += 1;
            if on_stack.contains(&callee) {
                diags.push(Diagnostic::error("recursion is not executed: this call reaches a function already on the call stack", span(caller, site)));
                continue;
            }
            if !m.func(callee).kind.has_definition() {
                diags.push(Diagnostic::error(
                    "call of an external function (no definition to execute)",
                    span(caller, site),
                ));
                continue;
            }
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(callee) {
                e.insert(order.len() as u32);
                order.push(callee);
            }
            on_stack.push(callee);
            stack.push((callee, calls(m, callee), 0));
        }
    }
    let track_undef = order.iter().any(|&f| {
        let func = m.func(f);
        func.placed_insts().any(|i| {
            func.inst(i)
                .operands
                .iter()
                .any(|v| matches!(v, Value::Undef(_)))
        })
    });
    let mut shared = 0u32;
    let mut codes = Vec::new();
    let mut args = Vec::new();
    for (k, &f) in order.iter().enumerate() {
        let mut l = FnLower::new(m, f, &index, span_fn(map, f));
        l.map = map;
        // Failures are in `l.diags`.
        let _ = l.run(&mut shared);
        diags.append(&mut l.diags);
        if k == 0 && l.diags.is_empty() {
            args = l.kernel_args();
        }
        codes.push(l.finish());
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(Program {
        codes,
        args,
        shared_lanes: shared,
        track_undef,
        block_size,
        kernel,
    })
}

fn span_fn(map: Option<&SourceMap>, f: FuncId) -> impl Fn(InstId) -> Option<Span> + '_ {
    move |i| map.and_then(|s| s.inst(f, i))
}

fn calls(m: &Module, f: FuncId) -> Vec<(InstId, FuncId)> {
    let func = m.func(f);
    func.placed_insts()
        .filter(|&i| matches!(func.inst(i).kind, InstKind::Call))
        .filter_map(|i| {
            func.inst(i)
                .operands
                .first()
                .and_then(|v| v.as_func())
                .map(|c| (i, c))
        })
        .collect()
}

/// Where an address computation stands: a type, or a matrix column.
#[derive(Clone, Copy)]
enum Shape {
    Ty(Type),
    Column(ScalarKind, u8),
}

struct FnLower<'m, SF: Fn(InstId) -> Option<Span>> {
    m: &'m Module,
    f: FuncId,
    index: &'m HashMap<FuncId, u32>,
    span: SF,
    regs: HashMap<Value, (u32, u32)>,
    init: Vec<u64>,
    init_undef: Vec<u8>,
    ops: Vec<Op>,
    insts: Vec<InstId>,
    spans: Vec<Option<Span>>,
    edges: Vec<Box<[(u32, u32, u32)]>>,
    edge_of: HashMap<(xir_ir::BlockId, xir_ir::BlockId), u32>,
    params: Vec<Range>,
    specials: Vec<(SpecialRegister, u32)>,
    local_lanes: u32,
    entry: u32,
    diags: Vec<Diagnostic>,
    cur: InstId,
    cur_block: xir_ir::BlockId,
    plans: HashMap<Type, Plan>,
    map: Option<&'m SourceMap>,
}

impl<'m, SF: Fn(InstId) -> Option<Span>> FnLower<'m, SF> {
    fn new(m: &'m Module, f: FuncId, index: &'m HashMap<FuncId, u32>, span: SF) -> Self {
        FnLower {
            m,
            f,
            index,
            span,
            regs: HashMap::new(),
            init: Vec::new(),
            init_undef: Vec::new(),
            ops: Vec::new(),
            insts: Vec::new(),
            spans: Vec::new(),
            edges: vec![Box::new([])],
            edge_of: HashMap::new(),
            params: Vec::new(),
            specials: Vec::new(),
            local_lanes: 0,
            entry: 0,
            diags: Vec::new(),
            cur: InstId::new(0),
            cur_block: xir_ir::BlockId::new(0),
            plans: HashMap::new(),
            map: None,
        }
    }

    fn func(&self) -> &'m xir_ir::Function {
        self.m.func(self.f)
    }

    fn alloc(&mut self, n: u32) -> u32 {
        let r = self.init.len() as u32;
        self.init.resize(self.init.len() + n as usize, 0);
        self.init_undef.resize(self.init.len(), 0);
        r
    }

    fn layout(&mut self, t: Type) -> Res<Layout> {
        layout::layout(&self.m.types, t).map_err(|e| match e {
            LayoutError::Refused(what) => format!("{what} are not executed by the interpreter"),
            LayoutError::TooLarge => "a value of more than 2^24 scalars is not executed".into(),
        })
    }

    fn plan(&mut self, t: Type) -> Res<Plan> {
        if let Some(p) = self.plans.get(&t) {
            return Ok(p.clone());
        }
        let p: Plan = self.layout(t)?.plan.into();
        self.plans.insert(t, p.clone());
        Ok(p)
    }

    fn lanes_of(&self, t: Type) -> Res<u32> {
        lanes(&self.m.types, t)
            .map(|n| n as u32)
            .map_err(|e| match e {
                LayoutError::Refused(what) => format!("{what} are not executed by the interpreter"),
                LayoutError::TooLarge => "a value of more than 2^24 scalars is not executed".into(),
            })
    }

    fn ty(&self, v: Value) -> Res<Type> {
        self.m
            .value_type(self.f, v)
            .ok_or_else(|| "operand has no type".to_string())
    }

    fn is_lvalue(&self, v: Value) -> bool {
        match v {
            Value::Inst(i) => matches!(
                self.func().inst(i).kind,
                InstKind::Alloca(_) | InstKind::Gep
            ),
            Value::Arg(a) => self.func().args[a].kind == ArgKind::Reference,
            _ => false,
        }
    }

    /// The register range of an operand (constants, undefined values and special
    /// registers are allocated on first use).
    fn val(&mut self, v: Value) -> Res<(u32, u32)> {
        if let Some(&r) = self.regs.get(&v) {
            return Ok(r);
        }
        let r = match v {
            Value::Const(c) => {
                let cd = &self.m.constants[c];
                let lay = self.layout(cd.ty)?;
                let r = self.alloc(lay.lanes);
                let mut lanes = vec![0; lay.lanes as usize];
                layout::read_image(&lay.plan, &cd.bytes, &mut lanes);
                self.init[r as usize..][..lanes.len()].copy_from_slice(&lanes);
                (r, lay.lanes)
            }
            Value::Undef(u) => {
                let n = self.lanes_of(self.m.undefs[u].ty)?;
                let r = self.alloc(n);
                self.init_undef[r as usize..][..n as usize].fill(1);
                (r, n)
            }
            Value::Special(s) => {
                let n = match s {
                    SpecialRegister::ThreadId
                    | SpecialRegister::BlockId
                    | SpecialRegister::DispatchId
                    | SpecialRegister::BlockSize
                    | SpecialRegister::DispatchSize => 3,
                    SpecialRegister::WarpLaneId
                    | SpecialRegister::WarpSize
                    | SpecialRegister::KernelId => 1,
                    other => {
                        return Err(format!(
                            "special register `{}` is a raster-stage value; not executed",
                            other.name()
                        ));
                    }
                };
                let r = self.alloc(n);
                self.specials.push((s, r));
                (r, n)
            }
            Value::Inst(_) | Value::Arg(_) => {
                return Err("operand is used before it is defined in block order".into());
            }
            Value::Block(_) | Value::Func(_) => {
                return Err("a block or function is not a value".into());
            }
        };
        self.regs.insert(v, r);
        Ok(r)
    }

    fn reg(&mut self, v: Value) -> Res<u32> {
        self.val(v).map(|r| r.0)
    }

    fn kind(&self, v: Value) -> Res<ScalarKind> {
        let t = self.ty(v)?;
        elem_kind(&self.m.types, t)
            .ok_or_else(|| "operand is not a scalar, vector or matrix".into())
    }

    fn const_int(&self, v: Value) -> Option<i128> {
        let c = v.as_const()?;
        let cd = &self.m.constants[c];
        let k = self.m.types.scalar_kind(cd.ty)?;
        if !k.is_int() && k != ScalarKind::Bool {
            return None;
        }
        Some(int_value(k, layout::read_scalar(&cd.bytes, 0, k)))
    }

    fn emit(&mut self, op: Op) {
        self.ops.push(op);
        self.insts.push(self.cur);
        self.spans.push((self.span)(self.cur));
    }

    fn error(&mut self, msg: String) {
        let s = (self.span)(self.cur);
        self.diags.push(Diagnostic::error(msg, s));
    }

    fn run(&mut self, shared: &mut u32) -> Result<(), ()> {
        let func = self.func();
        // Parameters.
        for &a in &func.arg_order {
            let ad = &func.args[a];
            let n = match ad.kind {
                ArgKind::Reference | ArgKind::Resource => {
                    if ad.kind == ArgKind::Resource
                        && !matches!(self.m.types.get(ad.ty), TypeData::Buffer { .. })
                    {
                        self.diags.push(Diagnostic::error(
                            "resource arguments other than buffers (textures, bindless arrays, accels) are not executed",
                            self.map.and_then(|s| s.arg(self.f, a)),
                        ));
                        return Err(());
                    }
                    1
                }
                ArgKind::Value => match self.lanes_of(ad.ty) {
                    Ok(n) => n,
                    Err(e) => {
                        self.diags.push(Diagnostic::error(
                            e,
                            self.map.and_then(|s| s.arg(self.f, a)),
                        ));
                        return Err(());
                    }
                },
            };
            let r = self.alloc(n);
            self.regs.insert(Value::Arg(a), (r, n));
            self.params.push((r, n));
        }
        // Results.
        for i in func.placed_insts() {
            let d = func.inst(i);
            let Some(t) = d.ty else { continue };
            self.cur = i;
            let n = match d.kind {
                InstKind::Alloca(_) | InstKind::Gep => Ok(1),
                _ => self.lanes_of(t),
            };
            match n {
                Ok(n) => {
                    let r = self.alloc(n);
                    self.regs.insert(Value::Inst(i), (r, n));
                }
                Err(e) => self.error(e),
            }
        }
        if !self.diags.is_empty() {
            return Err(());
        }
        let mut block_start: HashMap<xir_ir::BlockId, u32> = HashMap::new();
        for &b in &func.block_order {
            block_start.insert(b, self.ops.len() as u32);
            self.cur_block = b;
            for &i in &func.blocks[b].insts {
                self.cur = i;
                let d = func.inst(i);
                if matches!(d.kind, InstKind::Phi) {
                    continue;
                }
                if let Support::Refused(why) = classify(&d.kind) {
                    let name = sub_name(&d.kind);
                    self.error(format!("the interpreter does not execute `{name}`: {why}"));
                    continue;
                }
                if let Err(e) = self.inst(i, shared) {
                    self.error(e);
                }
            }
        }
        // Patch jump targets (block ids were stored) to op indices.
        let fix = |t: &mut Target, bs: &HashMap<xir_ir::BlockId, u32>| {
            t.0 = bs
                .get(&xir_ir::BlockId::new(t.0 as usize))
                .copied()
                .unwrap_or(0);
        };
        for op in &mut self.ops {
            match op {
                Op::Jump { to } => fix(to, &block_start),
                Op::CondJump { t, f, .. } => {
                    fix(t, &block_start);
                    fix(f, &block_start);
                }
                Op::Switch { cases, default, .. } => {
                    for c in cases.iter_mut() {
                        fix(&mut c.1, &block_start);
                    }
                    fix(default, &block_start);
                }
                _ => {}
            }
        }
        match func.body {
            Some(b) => self.entry = block_start[&b],
            None => self
                .diags
                .push(Diagnostic::error("the function has no body", None)),
        }
        if self.diags.is_empty() {
            Ok(())
        } else {
            Err(())
        }
    }

    fn kernel_args(&self) -> Vec<KernelArg> {
        let func = self.func();
        func.arg_order
            .iter()
            .zip(&self.params)
            .map(|(&a, &(r, _))| {
                let ad = &func.args[a];
                match self.m.types.get(ad.ty) {
                    TypeData::Buffer { elem } if ad.kind == ArgKind::Resource => {
                        KernelArg::Buffer {
                            reg: r,
                            elem: elem.map(|e| {
                                let l = layout::layout(&self.m.types, e).expect("checked");
                                (l.plan.into(), l.size)
                            }),
                        }
                    }
                    _ => KernelArg::Value {
                        regs: (r, 0),
                        plan: layout::layout(&self.m.types, ad.ty)
                            .map(|l| l.plan.into())
                            .unwrap_or_else(|_| Arc::from(vec![])),
                    },
                }
            })
            .collect()
    }

    fn finish(self) -> Code {
        Code {
            func: self.f,
            ops: self.ops,
            insts: self.insts,
            edge_direct: self
                .edges
                .iter()
                .map(|m| {
                    m.iter().all(|&(_, src, n)| {
                        m.iter()
                            .all(|&(dst, _, dn)| src + n <= dst || dst + dn <= src)
                    })
                })
                .collect(),
            edges: self.edges,
            entry: self.entry,
            init: self.init,
            init_undef: self.init_undef,
            params: self.params,
            specials: self.specials,
            local_lanes: self.local_lanes,
            spans: self.spans,
        }
    }

    /// A jump target to block `b` from the current block (phi moves on the edge).
    fn target(&mut self, b: Value) -> Res<Target> {
        let b = b.as_block().ok_or("branch target is not a block")?;
        let key = (self.cur_block, b);
        let edge = if let Some(&e) = self.edge_of.get(&key) {
            e
        } else {
            let func = self.func();
            let mut moves = Vec::new();
            for &i in &func.blocks[b].insts {
                let d = func.inst(i);
                if !d.is_phi() {
                    continue;
                }
                let v = d
                    .phi_value_from(self.cur_block)
                    .ok_or("a phi of the target block has no incoming value for this edge")?;
                let (src, n) = self.val(v)?;
                let (dst, _) = self.val(Value::Inst(i))?;
                moves.push((dst, src, n));
            }
            let e = if moves.is_empty() {
                0
            } else {
                self.edges.push(moves.into_boxed_slice());
                (self.edges.len() - 1) as u32
            };
            self.edge_of.insert(key, e);
            e
        };
        Ok((b.index() as u32, edge))
    }

    /// Steps of an address computation from `shape` through `indices`; `bytes` selects
    /// byte offsets (buffers) instead of lanes.
    fn steps(
        &mut self,
        mut shape: Shape,
        indices: &[Value],
        bytes: bool,
    ) -> Res<(Vec<Step>, Shape)> {
        let ts = &self.m.types;
        let mut steps = Vec::new();
        for &ix in indices {
            let (stride, count, next): (u32, u64, Shape) = match shape {
                Shape::Ty(t) => match ts.get(t).clone() {
                    TypeData::Struct { members, .. } => {
                        let i = self
                            .const_int(ix)
                            .ok_or("a struct member index must be an integer constant")?;
                        if i < 0 || i as usize >= members.len() {
                            return Err(format!("struct member index {i} out of range"));
                        }
                        let off = if bytes {
                            ts.struct_offsets(t)[i as usize] as u32
                        } else {
                            let mut o = 0;
                            for mt in &members[..i as usize] {
                                o += self.lanes_of(*mt)?;
                            }
                            o
                        };
                        steps.push(Step::Const(off));
                        shape = Shape::Ty(members[i as usize]);
                        continue;
                    }
                    TypeData::Array { elem, len } => {
                        let s = if bytes {
                            ts.size_of(elem) as u32
                        } else {
                            self.lanes_of(elem)?
                        };
                        (s, len, Shape::Ty(elem))
                    }
                    TypeData::Vector { elem, len } => {
                        let s = if bytes { ts.size_of(elem) as u32 } else { 1 };
                        (s, len as u64, Shape::Ty(elem))
                    }
                    TypeData::Matrix { elem, n } => {
                        let k = ts.scalar_kind(elem).ok_or("matrix element")?;
                        let s = if bytes {
                            (k.size() * if n == 2 { 2 } else { 4 }) as u32
                        } else {
                            n as u32
                        };
                        (s, n as u64, Shape::Column(k, n))
                    }
                    _ => return Err("too many indices for the type".into()),
                },
                Shape::Column(k, n) => {
                    let s = if bytes { k.size() as u32 } else { 1 };
                    let t = ts.find(&TypeData::Scalar(k)).ok_or("matrix element type")?;
                    (s, n as u64, Shape::Ty(t))
                }
            };
            match self.const_int(ix) {
                Some(i) if i >= 0 && (i as u64) < count => {
                    steps.push(Step::Const(i as u32 * stride))
                }
                _ => {
                    let kind = self.kind(ix)?;
                    if !kind.is_int() {
                        return Err("an index must be an integer".into());
                    }
                    let reg = self.reg(ix)?;
                    steps.push(Step::Dyn {
                        reg,
                        kind,
                        stride,
                        count,
                    });
                }
            }
            shape = next;
        }
        Ok((steps, shape))
    }

    fn shape_lanes(&self, s: Shape) -> Res<u32> {
        match s {
            Shape::Ty(t) => self.lanes_of(t),
            Shape::Column(_, n) => Ok(n as u32),
        }
    }

    fn inst(&mut self, i: InstId, shared: &mut u32) -> Res<()> {
        let func = self.func();
        let d = func.inst(i);
        let ops = &d.operands;
        let out = |s: &Self| s.regs.get(&Value::Inst(i)).copied().unwrap_or((0, 0));
        let (dst, dn) = out(self);
        match &d.kind {
            InstKind::If { .. } | InstKind::ConditionalBranch => {
                let c = self.reg(ops[0])?;
                let t = self.target(ops[1])?;
                let f = self.target(ops[2])?;
                self.emit(Op::CondJump { c, t, f });
            }
            InstKind::Switch { labels, .. } | InstKind::IndexedBranch { labels } => {
                let sel = self.reg(ops[0])?;
                let k = self.kind(ops[0])?;
                let default = self.target(ops[1])?;
                let mut cases = Vec::new();
                for (l, b) in labels.iter().zip(&ops[2..]) {
                    cases.push((*l & scalar::mask(k), self.target(*b)?));
                }
                self.emit(Op::Switch {
                    sel,
                    cases: cases.into(),
                    default,
                });
            }
            InstKind::Loop { .. }
            | InstKind::SimpleLoop { .. }
            | InstKind::Branch
            | InstKind::Break
            | InstKind::Continue => {
                let to = self.target(ops[0])?;
                self.emit(Op::Jump { to });
            }
            InstKind::Return => match ops.first() {
                Some(&v) => {
                    let (src, n) = self.val(v)?;
                    self.emit(Op::Return { src, n });
                }
                None => self.emit(Op::Return { src: 0, n: 0 }),
            },
            InstKind::Unreachable { message } => self.emit(Op::Unreachable {
                message: message.as_str().into(),
            }),
            InstKind::Alloca(AllocaOp::Local) => {
                let n = self.lanes_of(d.ty.ok_or("alloca without type")?)?;
                let off = self.local_lanes;
                self.local_lanes = self
                    .local_lanes
                    .checked_add(n)
                    .ok_or("local memory too large")?;
                self.emit(Op::Alloca { dst, off, n });
            }
            InstKind::Alloca(AllocaOp::Shared) => {
                let n = self.lanes_of(d.ty.ok_or("alloca without type")?)?;
                let off = *shared;
                *shared = shared
                    .checked_add(n)
                    .filter(|s| (*s as u64) < layout::MAX_LANES)
                    .ok_or("shared memory too large")?;
                self.emit(Op::SharedAlloca { dst, off });
            }
            InstKind::Load => {
                let ptr = self.ptr(ops[0])?;
                self.emit(Op::Load { dst, ptr, n: dn });
            }
            InstKind::Store => {
                let ptr = self.ptr(ops[0])?;
                let (src, n) = self.val(ops[1])?;
                self.emit(Op::Store { ptr, src, n });
            }
            InstKind::Gep => {
                let base = self.ptr(ops[0])?;
                let t = self.ty(ops[0])?;
                let (steps, _) = self.steps(Shape::Ty(t), &ops[1..], false)?;
                self.emit(Op::Gep {
                    dst,
                    base,
                    steps: steps.into(),
                });
            }
            InstKind::Call => {
                let callee = ops[0].as_func().ok_or("callee is not a function")?;
                let ci = *self.index.get(&callee).ok_or("callee not lowered")?;
                let cf = self.m.func(callee);
                let mut args = Vec::new();
                for (k, &a) in ops[1..].iter().enumerate() {
                    let formal = cf.args[cf.arg_order[k]].kind;
                    if formal == ArgKind::Reference {
                        args.push((self.ptr(a)?, 1));
                    } else {
                        args.push(self.val(a)?);
                    }
                }
                self.emit(Op::Call {
                    callee: ci,
                    args: args.into(),
                    dst,
                    n: dn,
                });
            }
            InstKind::Cast(op) => {
                let to_t = d.ty.ok_or("cast without type")?;
                let from_t = self.ty(ops[0])?;
                let (a, n) = self.val(ops[0])?;
                match op {
                    CastOp::StaticCast => {
                        let from = elem_kind(&self.m.types, from_t)
                            .ok_or("static_cast of a non-scalar")?;
                        let to =
                            elem_kind(&self.m.types, to_t).ok_or("static_cast to a non-scalar")?;
                        self.emit(Op::Cast {
                            dst,
                            a,
                            n,
                            from,
                            to,
                        });
                    }
                    CastOp::BitwiseCast => {
                        let from = self.plan(from_t)?;
                        let to = self.plan(to_t)?;
                        let size =
                            self.m.types.size_of(from_t).max(self.m.types.size_of(to_t)) as u32;
                        self.emit(Op::Bitcast {
                            dst,
                            a,
                            from,
                            to,
                            size,
                        });
                    }
                }
            }
            InstKind::Print { format } => {
                let mut args = Vec::new();
                for &v in ops.iter() {
                    let t = self.ty(v)?;
                    let r = self.reg(v)?;
                    args.push((r, self.plan(t)?));
                }
                self.emit(Op::Print {
                    format: format.as_str().into(),
                    args: args.into(),
                });
            }
            InstKind::Assert { message } | InstKind::Assume { message } => {
                let c = self.reg(ops[0])?;
                let assume = matches!(d.kind, InstKind::Assume { .. });
                self.emit(Op::Assert {
                    c,
                    message: message.as_str().into(),
                    assume,
                });
            }
            InstKind::ThreadGroup(G::SynchronizeBlock) => self.emit(Op::Barrier),
            InstKind::ThreadGroup(op) => {
                let (a, n, kind) = match ops.first() {
                    Some(&v) => {
                        let (a, n) = self.val(v)?;
                        (a, n, self.kind(v)?)
                    }
                    None => (0, 0, ScalarKind::U32),
                };
                let (b, b_kind) = match ops.get(1) {
                    Some(&v) => (self.reg(v)?, self.kind(v)?),
                    None => (0, ScalarKind::U32),
                };
                if matches!(
                    op,
                    G::WarpActiveSum
                        | G::WarpActiveProduct
                        | G::WarpActiveMin
                        | G::WarpActiveMax
                        | G::WarpPrefixSum
                        | G::WarpPrefixProduct
                ) && scalar::binary(A::BinaryAdd, kind).is_none()
                {
                    return Err(format!("`{}` of a non-numeric value", op.name()));
                }
                self.emit(Op::Warp {
                    op: *op,
                    dst,
                    a,
                    b,
                    n,
                    kind,
                    b_kind,
                });
            }
            InstKind::ResourceQuery(q, _) => {
                let buf = self.reg(ops[0])?;
                let out = self
                    .m
                    .types
                    .scalar_kind(d.ty.ok_or("query without type")?)
                    .ok_or("size type")?;
                let esize = match q {
                    Q::BufferSize => self.buffer_elem(ops[0])?.1,
                    _ => 0,
                };
                self.emit(Op::BufSize {
                    dst,
                    buf,
                    esize,
                    out,
                });
            }
            InstKind::ResourceRead(rop, _) => {
                let buf = self.reg(ops[0])?;
                let idx = (self.reg(ops[1])?, self.int_kind(ops[1])?);
                let byte = matches!(rop, RR::ByteBufferRead | RR::ByteBufferVolatileRead);
                let (plan, esize) = if byte {
                    let t = d.ty.ok_or("read without type")?;
                    (self.plan(t)?, self.m.types.size_of(t))
                } else {
                    self.buffer_elem(ops[0])?
                };
                self.emit(Op::BufRead {
                    dst,
                    buf,
                    idx,
                    plan,
                    esize,
                    byte,
                });
            }
            InstKind::ResourceWrite(wop, _) => {
                let buf = self.reg(ops[0])?;
                let idx = (self.reg(ops[1])?, self.int_kind(ops[1])?);
                let byte = matches!(wop, RW::ByteBufferWrite | RW::ByteBufferVolatileWrite);
                let (plan, esize) = if byte {
                    let t = self.ty(ops[2])?;
                    (self.plan(t)?, self.m.types.size_of(t))
                } else {
                    self.buffer_elem(ops[0])?
                };
                let src = self.reg(ops[2])?;
                self.emit(Op::BufWrite {
                    buf,
                    idx,
                    src,
                    plan,
                    esize,
                    byte,
                });
            }
            InstKind::Atomic(op) => {
                let kind = self
                    .m
                    .types
                    .scalar_kind(d.ty.ok_or("atomic without type")?)
                    .ok_or("atomic of a non-scalar")?;
                if !matches!(
                    kind,
                    ScalarKind::I32
                        | ScalarKind::U32
                        | ScalarKind::I64
                        | ScalarKind::U64
                        | ScalarKind::F32
                ) {
                    return Err(format!(
                        "atomic on {} (only i32, u32, i64, u64, f32)",
                        kind.text_name()
                    ));
                }
                if kind.is_float()
                    && matches!(
                        op,
                        AtomicOp::FetchAnd | AtomicOp::FetchOr | AtomicOp::FetchXor
                    )
                {
                    return Err(format!("`{}` on a float", op.name()));
                }
                let nv = if *op == AtomicOp::CompareExchange {
                    2
                } else {
                    1
                };
                if ops.len() < 1 + nv {
                    return Err("atomic has too few operands".into());
                }
                let idxs = &ops[1..ops.len() - nv];
                let v0 = self.reg(ops[ops.len() - nv])?;
                let v1 = self.reg(ops[ops.len() - 1])?;
                let base_t = self.ty(ops[0])?;
                let base = if let TypeData::Buffer { elem } = self.m.types.get(base_t) {
                    let elem = elem.ok_or("atomic on a byte buffer")?;
                    let first = *idxs
                        .first()
                        .ok_or("atomic on a buffer needs an element index")?;
                    let idx = (self.reg(first)?, self.int_kind(first)?);
                    let (steps, _) = self.steps(Shape::Ty(elem), &idxs[1..], true)?;
                    AtomicBase::Buffer {
                        buf: self.reg(ops[0])?,
                        idx,
                        steps: steps.into(),
                        esize: self.m.types.size_of(elem),
                    }
                } else {
                    let ptr = self.ptr(ops[0])?;
                    let (steps, _) = self.steps(Shape::Ty(base_t), idxs, false)?;
                    AtomicBase::Memory {
                        ptr,
                        steps: steps.into(),
                    }
                };
                self.emit(Op::Atomic {
                    op: *op,
                    kind,
                    dst,
                    base,
                    vals: (v0, v1),
                });
            }
            InstKind::Arithmetic(op) => self.arith(*op, i, dst, dn)?,
            InstKind::Phi => {}
            other => return Err(format!("`{}` is not executed", other.tag().text_keyword())),
        }
        Ok(())
    }

    fn ptr(&mut self, v: Value) -> Res<u32> {
        if !self.is_lvalue(v) {
            return Err(
                "operand is not a variable (alloca, getelementptr or reference argument)".into(),
            );
        }
        self.reg(v)
    }

    fn int_kind(&self, v: Value) -> Res<ScalarKind> {
        let k = self.kind(v)?;
        if k.is_int() {
            Ok(k)
        } else {
            Err("an index must be an integer".into())
        }
    }

    fn buffer_elem(&mut self, v: Value) -> Res<(Plan, u64)> {
        let t = self.ty(v)?;
        match self.m.types.get(t) {
            TypeData::Buffer { elem: Some(e) } => {
                let e = *e;
                Ok((self.plan(e)?, self.m.types.size_of(e)))
            }
            _ => Err("operand is not a typed buffer".into()),
        }
    }

    fn arith(&mut self, op: A, i: InstId, dst: u32, dn: u32) -> Res<()> {
        let d = self.func().inst(i);
        let ops: Vec<Value> = d.operands.to_vec();
        let rty = d.ty;
        let mut vals = Vec::new();
        for &v in &ops {
            vals.push(self.val(v)?);
        }
        let stride = |n: u32, total: u32| if n == 1 && total > 1 { 0 } else { 1 };
        let k0 = || self.kind(ops[0]);
        match op.signature() {
            S::NumericUnary
            | S::BitwiseUnary
            | S::FloatUnary
            | S::FloatClass
            | S::BitCount
            | S::MatrixUnary
                if !matches!(op, A::MatrixTranspose | A::MatrixInverse) =>
            {
                let k = k0()?;
                let uop = if op == A::MatrixCompNeg {
                    A::UnaryMinus
                } else {
                    op
                };
                let f = scalar::unary(uop, k)
                    .ok_or_else(|| format!("`{}` on {}", op.name(), k.text_name()))?;
                self.emit(Op::Un {
                    f,
                    dst,
                    a: vals[0].0,
                    n: vals[0].1,
                });
            }
            S::NumericNary
            | S::BitwiseBinary
            | S::Shift
            | S::Ordering
            | S::Equality
            | S::FloatNary
            | S::Step
            | S::Lerp
            | S::Smoothstep
            | S::MatrixComponentwise => {
                let bop = match op {
                    A::MatrixCompAdd => A::BinaryAdd,
                    A::MatrixCompSub => A::BinarySub,
                    A::MatrixCompMul => A::BinaryMul,
                    A::MatrixCompDiv => A::BinaryDiv,
                    o => o,
                };
                // The kind of the operands the function reads (step/smoothstep: x; lerp: a).
                let k = self.kind(ops[if op == A::Step { 1 } else { 0 }])?;
                let n = vals.iter().map(|v| v.1).max().unwrap_or(1);
                if ops.len() == 2 {
                    let f = scalar::binary(bop, k)
                        .ok_or_else(|| format!("`{}` on {}", op.name(), k.text_name()))?;
                    let (a, b) = (vals[0], vals[1]);
                    self.emit(Op::Bin {
                        f,
                        dst,
                        a: a.0,
                        b: b.0,
                        n,
                        sa: stride(a.1, n),
                        sb: stride(b.1, n),
                    });
                } else {
                    let f = scalar::ternary(bop, k)
                        .ok_or_else(|| format!("`{}` on {}", op.name(), k.text_name()))?;
                    let (a, b, c) = (vals[0], vals[1], vals[2]);
                    self.emit(Op::Tern {
                        f,
                        dst,
                        a: a.0,
                        b: b.0,
                        c: c.0,
                        n,
                        sa: stride(a.1, n),
                        sb: stride(b.1, n),
                        sc: stride(c.1, n),
                    });
                }
            }
            S::Select => {
                let (f, t, c) = (vals[0], vals[1], vals[2]);
                self.emit(Op::Select {
                    dst,
                    f: f.0,
                    t: t.0,
                    c: c.0,
                    n: dn,
                    sc: stride(c.1, dn),
                });
            }
            S::Aggregate => {
                let mut pairs = Vec::new();
                let mut k = dst;
                for &(r, n) in &vals {
                    for j in 0..n {
                        pairs.push((k + j, r + j));
                    }
                    k += n;
                }
                if k - dst != dn {
                    return Err("aggregate operands do not fill the result".into());
                }
                self.emit(Op::Moves {
                    pairs: pairs.into(),
                });
            }
            S::Shuffle => {
                let (src, count) = vals[0];
                let mut pairs = Vec::new();
                let mut dynamic = Vec::new();
                for (k, &ix) in ops[1..].iter().enumerate() {
                    match self.const_int(ix) {
                        Some(c) if c >= 0 && (c as u64) < count as u64 => {
                            pairs.push((dst + k as u32, src + c as u32))
                        }
                        _ => {}
                    }
                    dynamic.push((self.reg(ix)?, self.int_kind(ix)?));
                }
                if pairs.len() == ops.len() - 1 {
                    self.emit(Op::Moves {
                        pairs: pairs.into(),
                    });
                } else {
                    self.emit(Op::Shuffle {
                        dst,
                        src,
                        idx: dynamic.into(),
                        count: count as u64,
                    });
                }
            }
            S::Extract => {
                let t = self.ty(ops[0])?;
                let (steps, _) = self.steps(Shape::Ty(t), &ops[1..], false)?;
                let src = vals[0].0;
                if steps.iter().all(|s| matches!(s, Step::Const(_))) {
                    let off: u32 = steps
                        .iter()
                        .map(|s| if let Step::Const(c) = s { *c } else { 0 })
                        .sum();
                    self.emit(Op::Mov {
                        dst,
                        src: src + off,
                        n: dn,
                    });
                } else {
                    self.emit(Op::Extract {
                        dst,
                        src,
                        n: dn,
                        steps: steps.into(),
                    });
                }
            }
            S::Insert => {
                let t = self.ty(ops[0])?;
                let (steps, shape) = self.steps(Shape::Ty(t), &ops[2..], false)?;
                let n = self.shape_lanes(shape)?;
                self.emit(Op::Insert {
                    dst,
                    agg: vals[0],
                    elem: vals[1].0,
                    n,
                    steps: steps.into(),
                });
            }
            _ => {
                let mut tys = Vec::new();
                for &v in &ops {
                    tys.push(self.ty(v)?);
                }
                let f = crate::vecmath::lower(self.m, op, &tys, &vals, rty, (dst, dn))?;
                let inputs: Vec<Range> = vals.clone();
                self.emit(Op::Pure {
                    f,
                    inputs: inputs.into(),
                    out: (dst, dn),
                });
            }
        }
        Ok(())
    }
}

/// The scalar kind of a scalar, vector or matrix type.
pub fn elem_kind(ts: &xir_ir::TypeStore, t: Type) -> Option<ScalarKind> {
    match ts.get(t) {
        TypeData::Scalar(k) => Some(*k),
        TypeData::Vector { elem, .. } | TypeData::Matrix { elem, .. } => ts.scalar_kind(*elem),
        _ => None,
    }
}

/// `tag sub-op` of an instruction, as the table names it.
pub fn sub_name(k: &InstKind) -> String {
    let sub = match k {
        InstKind::ThreadGroup(o) => Some(o.name()),
        InstKind::ResourceQuery(o, _) => Some(o.name()),
        InstKind::ResourceRead(o, _) => Some(o.name()),
        InstKind::ResourceWrite(o, _) => Some(o.name()),
        InstKind::RayQueryObjectRead(o) => Some(o.name()),
        InstKind::RayQueryObjectWrite(o) => Some(o.name()),
        InstKind::AutodiffIntrinsic(o) => Some(o.name()),
        _ => None,
    };
    match sub {
        Some(s) => format!("{} {s}", k.tag().text_keyword()),
        None => k.tag().text_keyword().to_string(),
    }
}
