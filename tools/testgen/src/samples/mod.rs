//! Verified sample modules covering every instruction tag, type description, constant
//! encoding and metadata record. They seed the interchange corpus, the unit tests, the
//! fuzz corpora and the benchmark.

mod ops;

use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::function::{ArgKind, Function, FunctionKind};
use xir_ir::inst::{InstId, InstKind};
use xir_ir::metadata::{CurveBasisSet, Metadata, SpillKind};
use xir_ir::module::Module;
use xir_ir::op::*;
use xir_ir::types::{ScalarKind, TextureDim, Type, TypeData};
use xir_ir::value::{BlockId, FuncId, SpecialRegister, Value};

/// A function under construction.
pub struct Fb<'m> {
    /// The module.
    pub m: &'m mut Module,
    /// The function.
    pub f: FuncId,
}

impl<'m> Fb<'m> {
    /// Adds a function to `m`.
    pub fn new(m: &'m mut Module, kind: FunctionKind, ret: Option<Type>) -> Self {
        let f = m.add_function(Function::new(kind, ret));
        Self { m, f }
    }
    /// Adds an argument.
    pub fn arg(&mut self, kind: ArgKind, ty: Type) -> Value {
        Value::Arg(self.m.func_mut(self.f).add_arg(kind, ty))
    }
    /// The body block (created on first use).
    pub fn body(&mut self) -> BlockId {
        self.m.func_mut(self.f).ensure_body()
    }
    /// A new block.
    pub fn block(&mut self) -> BlockId {
        self.m.func_mut(self.f).create_block()
    }
    /// Appends an instruction.
    pub fn ins(
        &mut self,
        b: BlockId,
        kind: InstKind,
        ty: Option<Type>,
        ops: impl IntoIterator<Item = Value>,
    ) -> Value {
        Value::Inst(self.inst(b, kind, ty, ops))
    }
    /// Appends an instruction, returning its id.
    pub fn inst(
        &mut self,
        b: BlockId,
        kind: InstKind,
        ty: Option<Type>,
        ops: impl IntoIterator<Item = Value>,
    ) -> InstId {
        Cursor::at_end(self.m.func_mut(self.f), b).ins(kind, ty, ops)
    }
    /// `phi` shorthand.
    pub fn phi(&mut self, b: BlockId, ty: Type, edges: &[(Value, BlockId)]) -> Value {
        Cursor::at_end(self.m.func_mut(self.f), b).phi(ty, edges)
    }
    /// `arithmetic` shorthand.
    pub fn ar(&mut self, b: BlockId, op: ArithmeticOp, ty: Type, ops: &[Value]) -> Value {
        self.ins(b, InstKind::Arithmetic(op), Some(ty), ops.iter().copied())
    }
    /// `return`.
    pub fn ret(&mut self, b: BlockId, v: Option<Value>) {
        self.ins(b, InstKind::Return, None, v);
    }
    /// `br`.
    pub fn br(&mut self, b: BlockId, t: BlockId) {
        self.ins(b, InstKind::Branch, None, [Value::Block(t)]);
    }
}

/// Shorthand type constructors.
pub struct T;

impl T {
    /// A scalar.
    pub fn s(m: &mut Module, k: ScalarKind) -> Type {
        m.types.scalar(k)
    }
    /// A vector.
    pub fn v(m: &mut Module, k: ScalarKind, n: u8) -> Type {
        let e = m.types.scalar(k);
        m.types.vector(e, n)
    }
    /// A float matrix.
    pub fn mat(m: &mut Module, n: u8) -> Type {
        let e = m.types.f32();
        m.types.intern(TypeData::Matrix { elem: e, n })
    }
    /// An array.
    pub fn arr(m: &mut Module, elem: Type, len: u64) -> Type {
        m.types.intern(TypeData::Array { elem, len })
    }
    /// A struct.
    pub fn st(m: &mut Module, align: u32, members: &[Type]) -> Type {
        m.types.intern(TypeData::Struct {
            align,
            members: members.to_vec(),
        })
    }
    /// A custom type.
    pub fn custom(m: &mut Module, name: &str) -> Type {
        m.types.intern(TypeData::Custom { name: name.into() })
    }
    /// `buffer<elem>`.
    pub fn buf(m: &mut Module, elem: Option<Type>) -> Type {
        m.types.intern(TypeData::Buffer { elem })
    }
    /// A texture.
    pub fn tex(m: &mut Module, dim: TextureDim, k: ScalarKind) -> Type {
        let e = m.types.scalar(k);
        m.types.intern(TypeData::Texture { dim, elem: e })
    }
    /// The ray type `struct<16,array<float,3>,float,array<float,3>,float>`.
    pub fn ray(m: &mut Module) -> Type {
        let f = m.types.f32();
        let a3 = Self::arr(m, f, 3);
        Self::st(m, 16, &[a3, f, a3, f])
    }
}

/// A constant from a scalar value (little-endian bytes of `v` truncated to the size).
pub fn cst(m: &mut Module, k: ScalarKind, v: u64) -> Value {
    let t = m.types.scalar(k);
    let n = k.size() as usize;
    Value::Const(m.constant(t, &v.to_le_bytes()[..n]))
}

/// An `f32` constant.
pub fn cf32(m: &mut Module, v: f32) -> Value {
    cst(m, ScalarKind::F32, u64::from(v.to_bits()))
}

/// The reference document's example: a callable returning its `int` argument plus one.
pub fn callable_add() -> Module {
    let mut m = Module::new();
    let one = cst(&mut m, ScalarKind::I32, 1);
    let i = m.types.i32();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, Some(i));
    let a = f.arg(ArgKind::Value, i);
    let b = f.body();
    let r = f.ar(b, ArithmeticOp::BinaryAdd, i, &[a, one]);
    f.ret(b, Some(r));
    m
}

/// Zero-length arrays (upstream's data model has them: size 0, the element's
/// alignment): a zero-byte constant, a struct member, a value argument, a load and a
/// store through a reference argument.
pub fn zero_length_arrays() -> Module {
    let mut m = Module::new();
    let u = m.types.scalar(ScalarKind::U32);
    let f = m.types.scalar(ScalarKind::F32);
    let v4 = m.types.intern(TypeData::Vector { elem: f, len: 4 });
    let empty_u = m.types.intern(TypeData::Array { elem: u, len: 0 });
    let empty_f = m.types.intern(TypeData::Array { elem: f, len: 0 });
    let empty_v4 = m.types.intern(TypeData::Array { elem: v4, len: 0 });
    let s = m.types.intern(TypeData::Struct {
        align: 16,
        members: vec![empty_v4, f],
    });
    m.constant(empty_u, &[]);
    m.constant(s, &[0, 0, 0x80, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    let mut fb = Fb::new(&mut m, FunctionKind::Callable, Some(empty_f));
    let a = fb.arg(ArgKind::Value, empty_f);
    let r = fb.arg(ArgKind::Reference, empty_v4);
    let b = fb.body();
    let l = fb.ins(b, InstKind::Load, Some(empty_v4), [r]);
    fb.ins(b, InstKind::Store, None, [r, l]);
    fb.ret(b, Some(a));
    m
}

/// `if` with merge, `phi`, `cond_br`, `br`.
pub fn control_if() -> Module {
    let mut m = Module::new();
    let i = m.types.i32();
    let bo = m.types.bool();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, Some(i));
    let c = f.arg(ArgKind::Value, bo);
    let x = f.arg(ArgKind::Value, i);
    let y = f.arg(ArgKind::Value, i);
    let b = f.body();
    let (t, e, j) = (f.block(), f.block(), f.block());
    f.ins(
        b,
        InstKind::If { merge: Some(j) },
        None,
        [c, t.into(), e.into()],
    );
    f.br(t, j);
    f.br(e, j);
    let p = f.phi(j, i, &[(x, t), (y, e)]);
    f.ret(j, Some(p));
    m
}

/// Plain CFG: `conditional_branch`, `branch`, `phi`.
pub fn control_cfg() -> Module {
    let mut m = Module::new();
    let f32t = m.types.f32();
    let bo = m.types.bool();
    let half = cf32(&mut m, 0.5);
    let mut f = Fb::new(&mut m, FunctionKind::Callable, Some(f32t));
    let c = f.arg(ArgKind::Value, bo);
    let x = f.arg(ArgKind::Value, f32t);
    let b = f.body();
    let (t, e, j) = (f.block(), f.block(), f.block());
    f.ins(
        b,
        InstKind::ConditionalBranch,
        None,
        [c, t.into(), e.into()],
    );
    let y = f.ar(t, ArithmeticOp::BinaryMul, f32t, &[x, half]);
    f.br(t, j);
    f.br(e, j);
    let p = f.phi(j, f32t, &[(y, t), (x, e)]);
    f.ret(j, Some(p));
    m
}

/// `switch` with signed case labels and a merge block.
pub fn control_switch() -> Module {
    let mut m = Module::new();
    let i = m.types.i32();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, None);
    let s = f.arg(ArgKind::Value, i);
    let b = f.body();
    let (c1, c2, d, j) = (f.block(), f.block(), f.block(), f.block());
    f.ins(
        b,
        InstKind::Switch {
            labels: vec![u64::from((-1i32) as u32), 7],
            merge: Some(j),
        },
        None,
        [s, d.into(), c1.into(), c2.into()],
    );
    for x in [c1, c2, d] {
        f.br(x, j);
    }
    f.ret(j, None);
    m
}

/// `indexed_branch` over a `uint` selector.
pub fn control_indexed_branch() -> Module {
    let mut m = Module::new();
    let u = m.types.u32();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, None);
    let s = f.arg(ArgKind::Value, u);
    let b = f.body();
    let (c0, c1, d) = (f.block(), f.block(), f.block());
    f.ins(
        b,
        InstKind::IndexedBranch { labels: vec![0, 1] },
        None,
        [s, d.into(), c0.into(), c1.into()],
    );
    for x in [c0, c1, d] {
        f.ret(x, None);
    }
    m
}

/// `loop` (prepare/body/update/merge) with `continue`-free canonical shape.
pub fn control_loop() -> Module {
    let mut m = Module::new();
    let bo = m.types.bool();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, None);
    let c = f.arg(ArgKind::Value, bo);
    let b = f.body();
    let (p, body, upd, mg) = (f.block(), f.block(), f.block(), f.block());
    f.ins(
        b,
        InstKind::Loop {
            body: Some(body),
            update: Some(upd),
            merge: Some(mg),
        },
        None,
        [p.into()],
    );
    f.ins(
        p,
        InstKind::ConditionalBranch,
        None,
        [c, body.into(), mg.into()],
    );
    f.br(body, upd);
    f.br(upd, p);
    f.ret(mg, None);
    m
}

/// `simple_loop` with `break` and `continue`.
pub fn control_simple_loop() -> Module {
    let mut m = Module::new();
    let bo = m.types.bool();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, None);
    let c = f.arg(ArgKind::Value, bo);
    let b = f.body();
    let (body, brk, cont, mg) = (f.block(), f.block(), f.block(), f.block());
    f.ins(
        b,
        InstKind::SimpleLoop { merge: Some(mg) },
        None,
        [body.into()],
    );
    f.ins(
        body,
        InstKind::ConditionalBranch,
        None,
        [c, brk.into(), cont.into()],
    );
    f.ins(brk, InstKind::Break, None, [mg.into()]);
    f.ins(cont, InstKind::Continue, None, [body.into()]);
    f.ret(mg, None);
    m
}

/// `unreachable` with a message exercising every escape, and `raster_discard`.
pub fn terminators() -> Module {
    let mut m = Module::new();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, None);
    let b = f.body();
    f.ins(
        b,
        InstKind::Unreachable {
            message: "never \"here\"\\\n\r\t\u{1}\u{7f}é".into(),
        },
        None,
        [],
    );
    let mut g = Fb::new(&mut m, FunctionKind::RasterFragment, None);
    let b = g.body();
    g.ins(b, InstKind::RasterDiscard, None, []);
    m
}

/// `coro_suspend`, `coro_resume`, `coro_terminate`.
pub fn coroutine() -> Module {
    let mut m = Module::new();
    let mut f = Fb::new(
        &mut m,
        FunctionKind::Kernel {
            block_size: [32, 2, 1],
        },
        None,
    );
    let b = f.body();
    let r = f.block();
    f.ins(
        b,
        InstKind::CoroSuspend(Box::new(xir_ir::inst::CoroSuspendData {
            token: 1,
            name: "first".into(),
            ..Default::default()
        })),
        None,
        [],
    );
    f.ins(
        r,
        InstKind::CoroResume {
            token: 1,
            has_frame: false,
        },
        None,
        [],
    );
    f.ins(r, InstKind::CoroTerminate, None, []);
    m
}

/// `call`, `cast`, `print`, `clock`, `debug_break`, `assert`, `assume`, `outline`.
pub fn misc() -> Module {
    let mut m = Module::new();
    let i = m.types.i32();
    let f32t = m.types.f32();
    let u = m.types.u32();
    let u64t = m.types.u64();
    let bo = m.types.bool();
    let three = cst(&mut m, ScalarKind::I32, 3);
    let mut h = Fb::new(&mut m, FunctionKind::Callable, Some(i));
    let a = h.arg(ArgKind::Value, i);
    let hb = h.body();
    h.ret(hb, Some(a));
    let helper = h.f;
    let mut f = Fb::new(&mut m, FunctionKind::kernel(), None);
    let b = f.body();
    let r = f.ins(b, InstKind::Call, Some(i), [Value::Func(helper), three]);
    let fl = f.ins(b, InstKind::Cast(CastOp::StaticCast), Some(f32t), [r]);
    let bits = f.ins(b, InstKind::Cast(CastOp::BitwiseCast), Some(u), [fl]);
    f.ins(
        b,
        InstKind::Print {
            format: "r={} bits={}".into(),
        },
        None,
        [r, bits],
    );
    let t0 = f.ins(b, InstKind::Clock, Some(u64t), []);
    f.ins(b, InstKind::DebugBreak { callback: None }, None, [t0]);
    let c = f.ar(b, ArithmeticOp::BinaryLess, bo, &[r, three]);
    f.ins(
        b,
        InstKind::Assert {
            message: "r < 3".into(),
        },
        None,
        [c],
    );
    f.ins(
        b,
        InstKind::Assume {
            message: String::new(),
        },
        None,
        [c],
    );
    let (o, mg) = (f.block(), f.block());
    f.ins(b, InstKind::Outline { merge: Some(mg) }, None, [o.into()]);
    f.br(o, mg);
    f.ret(mg, None);
    m
}

/// Every metadata record on every kind of owner.
pub fn metadata_all() -> Module {
    let mut m = Module::new();
    m.metadata = vec![
        Metadata::Name("module_name".into()),
        Metadata::Location {
            file: "/src/kernel.cpp".into(),
            line: 42,
        },
        Metadata::Comment("a \"comment\"\nwith lines".into()),
    ];
    let one = cst(&mut m, ScalarKind::U32, 1);
    if let Value::Const(c) = one {
        m.constants[c].metadata = vec![Metadata::Name("one".into())];
    }
    let f32t = m.types.f32();
    let u = m.undef(f32t);
    m.undefs[u].metadata = vec![Metadata::Comment("undef".into())];
    let tid = m.special(SpecialRegister::ThreadId);
    m.special_registers[0].1 = vec![Metadata::Location {
        file: String::new(),
        line: -1,
    }];
    let u3 = m.special_register_type(SpecialRegister::ThreadId);
    let ut = m.types.u32();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, None);
    let a = f.arg(ArgKind::Value, ut);
    if let Value::Arg(a) = a {
        f.m.func_mut(f.f).args[a].metadata = vec![Metadata::Name("x".into())];
    }
    let b = f.body();
    let sp = f.ins(b, InstKind::Alloca(AllocaOp::Local), Some(u3), []);
    f.ins(b, InstKind::Store, None, [sp, tid]);
    let s = f.ar(b, ArithmeticOp::BinaryAdd, ut, &[a, one]);
    f.ret(b, None);
    let fid = f.f;
    let func = m.func_mut(fid);
    func.metadata = vec![Metadata::SignatureConstraint, Metadata::Name("f".into())];
    func.blocks[b].metadata = vec![Metadata::Comment("entry".into())];
    let (Value::Inst(spi), Value::Inst(si)) = (sp, s) else {
        return m;
    };
    func.insts[spi].metadata = vec![
        Metadata::Reg2MemSpill(SpillKind::Phi),
        Metadata::Reg2MemSpill(SpillKind::CrossBlock),
        Metadata::Name(String::new()),
    ];
    func.insts[si].metadata = vec![Metadata::CurveBasis(CurveBasisSet(0b1011))];
    m
}

/// Every special register, read by a kernel.
pub fn specials() -> Module {
    let mut m = Module::new();
    let vals: Vec<Value> = SpecialRegister::ALL.iter().map(|r| m.special(*r)).collect();
    let tys: Vec<Type> = SpecialRegister::ALL
        .iter()
        .map(|r| m.special_register_type(*r))
        .collect();
    let mut f = Fb::new(&mut m, FunctionKind::kernel(), None);
    let b = f.body();
    for (v, t) in vals.into_iter().zip(tys) {
        let p = f.ins(b, InstKind::Alloca(AllocaOp::Local), Some(t), []);
        f.ins(b, InstKind::Store, None, [p, v]);
    }
    f.ret(b, None);
    m
}

/// All sample modules, named.
pub fn all() -> Vec<(&'static str, Module)> {
    let mut v: Vec<(&'static str, Module)> = vec![
        ("callable-add", callable_add()),
        ("control-if", control_if()),
        ("control-cfg", control_cfg()),
        ("control-switch", control_switch()),
        ("control-indexed-branch", control_indexed_branch()),
        ("control-loop", control_loop()),
        ("control-simple-loop", control_simple_loop()),
        ("terminators", terminators()),
        ("coroutine", coroutine()),
        ("misc", misc()),
        ("metadata-all", metadata_all()),
        ("specials", specials()),
        ("zero-length-arrays", zero_length_arrays()),
    ];
    v.extend(ops::all());
    v
}
