//! Verified sample modules covering every instruction tag, type description, constant
//! encoding and metadata record. They seed the interchange corpus, the unit tests, the
//! fuzz corpora and the benchmark.

mod ops;

use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::function::{ArgKind, Function, FunctionKind};

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
    /// The one builder ([`InstBuilder`]) at the end of block `b`.
    pub fn at(&mut self, b: BlockId) -> Cursor<'_> {
        Cursor::at_end(self.m.func_mut(self.f), b)
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
    let r = f.at(b).arith(ArithmeticOp::BinaryAdd, i, &[a, one]);
    f.at(b).ret(Some(r));
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
    let l = fb.at(b).load(empty_v4, r);
    fb.at(b).store(r, l);
    fb.at(b).ret(Some(a));
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
    f.at(b).if_(c, t, e, j);
    f.at(t).br(j);
    f.at(e).br(j);
    let p = f.at(j).phi(i, &[(x, t), (y, e)]);
    f.at(j).ret(Some(p));
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
    f.at(b).cond_br(c, t, e);
    let y = f.at(t).arith(ArithmeticOp::BinaryMul, f32t, &[x, half]);
    f.at(t).br(j);
    f.at(e).br(j);
    let p = f.at(j).phi(f32t, &[(y, t), (x, e)]);
    f.at(j).ret(Some(p));
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
    let cases = [(u64::from((-1i32) as u32), c1), (7, c2)];
    f.at(b).switch(s, d, &cases, j);
    for x in [c1, c2, d] {
        f.at(x).br(j);
    }
    f.at(j).ret(None);
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
    f.at(b).indexed_branch(s, d, &[(0, c0), (1, c1)]);
    for x in [c0, c1, d] {
        f.at(x).ret(None);
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
    f.at(b).loop_(p, body, upd, mg);
    f.at(p).cond_br(c, body, mg);
    f.at(body).br(upd);
    f.at(upd).br(p);
    f.at(mg).ret(None);
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
    f.at(b).simple_loop(body, mg);
    f.at(body).cond_br(c, brk, cont);
    f.at(brk).break_(mg);
    f.at(cont).continue_(body);
    f.at(mg).ret(None);
    m
}

/// `unreachable` with a message exercising every escape, and `raster_discard`.
pub fn terminators() -> Module {
    let mut m = Module::new();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, None);
    let b = f.body();
    f.at(b).unreachable("never \"here\"\\\n\r\t\u{1}\u{7f}é");
    let mut g = Fb::new(&mut m, FunctionKind::RasterFragment, None);
    let b = g.body();
    g.at(b).raster_discard();
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
    let data = xir_ir::inst::CoroSuspendData {
        token: 1,
        name: "first".into(),
        ..Default::default()
    };
    f.at(b).coro_suspend(data, None, &[], &[]);
    f.at(r).coro_resume(1, None);
    f.at(r).coro_terminate();
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
    h.at(hb).ret(Some(a));
    let helper = h.f;
    let mut f = Fb::new(&mut m, FunctionKind::kernel(), None);
    let b = f.body();
    let r = Value::Inst(f.at(b).call(Some(i), helper, &[three]));
    let fl = f.at(b).cast(CastOp::StaticCast, f32t, r);
    let bits = f.at(b).cast(CastOp::BitwiseCast, u, fl);
    f.at(b).print("r={} bits={}", &[r, bits]);
    let t0 = f.at(b).clock(u64t);
    f.at(b).debug_break(None, &[t0]);
    let c = f.at(b).arith(ArithmeticOp::BinaryLess, bo, &[r, three]);
    f.at(b).assert(c, "r < 3");
    f.at(b).assume(c, String::new());
    let (o, mg) = (f.block(), f.block());
    f.at(b).outline(o, mg);
    f.at(o).br(mg);
    f.at(mg).ret(None);
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
    let sp = f.at(b).alloca(AllocaOp::Local, u3);
    f.at(b).store(sp, tid);
    let s = f.at(b).arith(ArithmeticOp::BinaryAdd, ut, &[a, one]);
    f.at(b).ret(None);
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
        let p = f.at(b).alloca(AllocaOp::Local, t);
        f.at(b).store(p, v);
    }
    f.at(b).ret(None);
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
