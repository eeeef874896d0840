//! The modules behind `test-corpus/corpus/print/*.xir`, built programmatically so the
#![allow(dead_code)]
//! corpus CHECK lines are the printer's real output (see `corpus_print.rs`).

use crate::common::example;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::metadata::{CurveBasis, CurveBasisSet, SpillKind, StridedMma};
use xir_ir::op::*;
use xir_ir::*;

fn c_u32(m: &mut Module, v: u32) -> Value {
    let t = m.types.u32();
    m.constant(t, &v.to_le_bytes()).into()
}

fn c_f32(m: &mut Module, v: f32) -> Value {
    let t = m.types.f32();
    m.constant(t, &v.to_le_bytes()).into()
}

/// Reference §1.8.
pub fn reference_example() -> Module {
    example().m
}

/// A destructured loop: phi with metadata, struct type, plain CFG.
pub fn phi_loop() -> Module {
    let mut m = Module::new();
    let u = m.types.u32();
    let f = m.types.f32();
    let bt = m.types.bool();
    let s = m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![u, f],
    });
    let zero = c_u32(&mut m, 0);
    let one = c_u32(&mut m, 1);
    let fzero = c_f32(&mut m, 0.0);
    let mut k = Function::new(FunctionKind::Callable, Some(s));
    let n = k.add_arg(ArgKind::Value, u);
    let entry = k.ensure_body();
    let header = k.create_block();
    let latch = k.create_block();
    let exit = k.create_block();
    Cursor::at_end(&mut k, entry).br(header);
    let i = Cursor::at_end(&mut k, header).ins(InstKind::Phi, Some(u), []);
    k.insts[i].metadata.push(Metadata::Name("i".into()));
    let lt =
        Cursor::at_end(&mut k, header).arith(ArithmeticOp::BinaryLess, bt, &[i.into(), n.into()]);
    Cursor::at_end(&mut k, header).cond_br(lt, latch, exit);
    let next = Cursor::at_end(&mut k, latch).arith(ArithmeticOp::BinaryAdd, u, &[i.into(), one]);
    k.insts[next.as_inst().unwrap()]
        .metadata
        .push(Metadata::Name("i_next".into()));
    Cursor::at_end(&mut k, latch).br(header);
    k.insts[i].phi_set_edges([(zero, entry), (next, latch)]);
    let agg = Cursor::at_end(&mut k, exit).arith(ArithmeticOp::Aggregate, s, &[i.into(), fzero]);
    Cursor::at_end(&mut k, exit).ret(Some(agg));
    m.add_function(k);
    m
}

/// A kernel switching on an argument of `sel` type with the given labels.
fn switch_on(sel: ScalarKind, labels: Vec<u64>) -> Module {
    let mut m = Module::new();
    let st = m.types.scalar(sel);
    let buf = m.types.intern(TypeData::Buffer { elem: Some(st) });
    let idx = c_u32(&mut m, 0);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let a = k.add_arg(ArgKind::Resource, buf);
    let body = k.ensure_body();
    let default = k.create_block();
    let cases: Vec<BlockId> = labels.iter().map(|_| k.create_block()).collect();
    let merge = k.create_block();
    let v = Cursor::at_end(&mut k, body).resource_read(
        ResourceReadOp::BufferRead,
        BindlessAccess::default(),
        st,
        &[a.into(), idx],
    );
    let mut ops = vec![v, default.into()];
    ops.extend(cases.iter().map(|b| Value::from(*b)));
    Cursor::at_end(&mut k, body).ins(
        InstKind::Switch {
            labels,
            merge: Some(merge),
        },
        None,
        ops,
    );
    for b in cases.iter().chain([&default]) {
        Cursor::at_end(&mut k, *b).break_(merge);
    }
    Cursor::at_end(&mut k, merge).ret(None);
    m.add_function(k);
    m
}

pub fn switch_signed() -> Module {
    switch_on(ScalarKind::I32, vec![u32::MAX as u64, 5, 0x8000_0000])
}

pub fn switch_u32() -> Module {
    switch_on(ScalarKind::U32, vec![u32::MAX as u64, 0])
}

pub fn switch_u64() -> Module {
    switch_on(ScalarKind::U64, vec![u64::MAX, 1])
}

/// Operand-less `keyword <op> ` instructions keep their trailing space.
pub fn trailing_space() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let x = c_f32(&mut m, 2.5);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let b = k.ensure_body();
    let tg = InstKind::ThreadGroup(ThreadGroupOp::SynchronizeBlock);
    Cursor::at_end(&mut k, b).ins(tg, None, []);
    Cursor::at_end(&mut k, b).print("tick", &[]);
    Cursor::at_end(&mut k, b).print("x = {}\n", &[x]);
    Cursor::at_end(&mut k, b).debug_break(None, &[]);
    let ddx = InstKind::ThreadGroup(ThreadGroupOp::WarpActiveSum);
    Cursor::at_end(&mut k, b).ins(ddx, Some(f), [x]);
    Cursor::at_end(&mut k, b).ret(None);
    m.add_function(k);
    m
}

/// A structured loop with prepare/body/update/merge, break and continue.
pub fn structured_loop() -> Module {
    let mut m = Module::new();
    let u = m.types.u32();
    let bt = m.types.bool();
    let ten = c_u32(&mut m, 10);
    let one = c_u32(&mut m, 1);
    let zero = c_u32(&mut m, 0);
    let mut k = Function::new(FunctionKind::Callable, Some(u));
    let entry = k.ensure_body();
    let [prep, body, upd, merge, brk, cont] = std::array::from_fn(|_| k.create_block());
    let var = Cursor::at_end(&mut k, entry).alloca(AllocaOp::Local, u);
    Cursor::at_end(&mut k, entry).store(var, zero);
    let lp = InstKind::Loop {
        body: Some(body),
        update: Some(upd),
        merge: Some(merge),
    };
    Cursor::at_end(&mut k, entry).ins(lp, None, [prep.into()]);
    let x = Cursor::at_end(&mut k, prep).load(u, var);
    let c = Cursor::at_end(&mut k, prep).arith(ArithmeticOp::BinaryLess, bt, &[x, ten]);
    Cursor::at_end(&mut k, prep).cond_br(c, body, merge);
    let odd = Cursor::at_end(&mut k, body).arith(ArithmeticOp::BinaryEqual, bt, &[x, one]);
    Cursor::at_end(&mut k, body).if_(odd, brk, cont, cont);
    Cursor::at_end(&mut k, brk).break_(merge);
    Cursor::at_end(&mut k, cont).continue_(upd);
    let y = Cursor::at_end(&mut k, upd).arith(ArithmeticOp::BinaryAdd, u, &[x, one]);
    Cursor::at_end(&mut k, upd).store(var, y);
    Cursor::at_end(&mut k, upd).br(prep);
    let r = Cursor::at_end(&mut k, merge).load(u, var);
    Cursor::at_end(&mut k, merge).ret(Some(r));
    m.add_function(k);
    m
}

/// Every metadata kind on every kind of owner (names quoted only when needed).
pub fn metadata_all() -> Module {
    let mut m = Module::new();
    m.metadata.push(Metadata::Name("shader".into()));
    m.metadata.push(Metadata::Location {
        file: "C:\\src\\a.cpp".into(),
        line: 12,
    });
    let u = m.types.u32();
    let c = m.constant(u, &3u32.to_le_bytes());
    m.constants[c]
        .metadata
        .push(Metadata::Comment("three\t(3)".into()));
    let mut k = Function::new(FunctionKind::Callable, Some(u));
    k.metadata = vec![Metadata::SignatureConstraint, Metadata::NoInline];
    let a = k.add_arg(ArgKind::Reference, u);
    k.args[a].metadata.push(Metadata::Name("out value".into()));
    let b = k.ensure_body();
    k.blocks[b].metadata.push(Metadata::Name("entry".into()));
    let v = Cursor::at_end(&mut k, b).alloca(AllocaOp::Local, u);
    let mut cb = CurveBasisSet::default();
    cb.insert(CurveBasis::CubicBspline);
    cb.insert(CurveBasis::Bezier);
    k.insts[v.as_inst().unwrap()].metadata = vec![
        Metadata::Reg2MemSpill(SpillKind::Phi),
        Metadata::CurveBasis(cb),
        Metadata::Name("tmp.0".into()),
    ];
    let l = Cursor::at_end(&mut k, b).load(u, a.into());
    k.insts[l.as_inst().unwrap()].metadata = vec![
        Metadata::ContiguousCopy {
            element_count: 64,
            vector_width: 4,
        },
        Metadata::StridedMma(Box::new(StridedMma {
            extents: [16, 16, 16],
            strides: [16, 16, 16],
            vector_width: 8,
            reassociation: false,
            vectorization_mode: 2,
        })),
    ];
    Cursor::at_end(&mut k, b).ret(Some(c.into()));
    m.add_function(k);
    m
}

/// Type declarations in first-use order, opaque types, every type constructor.
pub fn types() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let u = m.types.u32();
    let h = m.types.scalar(ScalarKind::F16);
    let v4 = m.types.vector(f, 4);
    let inner = m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![u, h],
    });
    let outer = m.types.intern(TypeData::Struct {
        align: 16,
        members: vec![v4, inner],
    });
    let mat = m.types.intern(TypeData::Matrix { elem: f, n: 4 });
    let arr = m.types.intern(TypeData::Array {
        elem: inner,
        len: 8,
    });
    let rq = m.types.intern(TypeData::Custom {
        name: "LC_RayQueryAny".into(),
    });
    let bufs = m.types.intern(TypeData::Buffer { elem: Some(outer) });
    let bytes = m.types.intern(TypeData::Buffer { elem: None });
    let tex = m.types.intern(TypeData::Texture {
        dim: xir_ir::types::TextureDim::D2,
        elem: f,
    });
    let accel = m.types.intern(TypeData::Accel);
    let one = c_f32(&mut m, 1.0);
    let ident: Vec<u8> = (0..16)
        .flat_map(|k| if k % 5 == 0 { 1f32 } else { 0f32 }.to_le_bytes())
        .collect();
    m.constant(mat, &ident);
    let mut g = Function::new(FunctionKind::Callable, Some(arr));
    g.add_arg(ArgKind::Reference, rq);
    g.add_arg(ArgKind::Resource, bufs);
    g.add_arg(ArgKind::Resource, bytes);
    g.add_arg(ArgKind::Resource, tex);
    g.add_arg(ArgKind::Resource, accel);
    let b = g.ensure_body();
    let x = Cursor::at_end(&mut g, b).arith(ArithmeticOp::Aggregate, v4, &[one, one, one, one]);
    let _ = x;
    let un = m.undef(arr);
    Cursor::at_end(&mut g, b).ret(Some(Value::Undef(un)));
    m.add_function(g);
    m
}

pub fn ext_block_size() -> Module {
    let mut m = Module::new();
    for bs in [[64, 1, 1], [8, 8, 1], [256, 1, 1]] {
        let mut k = Function::new(FunctionKind::Kernel { block_size: bs }, None);
        let b = k.ensure_body();
        Cursor::at_end(&mut k, b).ret(None);
        m.add_function(k);
    }
    m
}

pub fn ext_struct_align() -> Module {
    let mut m = Module::new();
    let u = m.types.u32();
    let f = m.types.f32();
    let natural = m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![u, f],
    });
    let over = m.types.intern(TypeData::Struct {
        align: 16,
        members: vec![u, f],
    });
    let mut bytes = 7u32.to_le_bytes().to_vec();
    bytes.extend(0.5f32.to_le_bytes());
    m.constant(natural, &bytes);
    bytes.extend([0u8; 8]);
    m.constant(over, &bytes);
    m
}

/// Undefined values: inferable (no declaration), not inferable (declared), unused.
pub fn ext_undef() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let u = m.types.u32();
    let i = m.types.i32();
    let uf = m.undef(f);
    let uu = m.undef(u);
    m.undef(i);
    let mut k = Function::new(FunctionKind::Callable, Some(f));
    let a = k.add_arg(ArgKind::Value, f);
    let b = k.ensure_body();
    let s =
        Cursor::at_end(&mut k, b).arith(ArithmeticOp::BinaryMul, f, &[a.into(), Value::Undef(uf)]);
    let c = Cursor::at_end(&mut k, b).cast(CastOp::BitwiseCast, f, Value::Undef(uu));
    let r = Cursor::at_end(&mut k, b).arith(ArithmeticOp::BinaryAdd, f, &[s, c]);
    Cursor::at_end(&mut k, b).ret(Some(r));
    m.add_function(k);
    m
}

/// An owned block no traversal reaches, printed as an extra top-level block.
pub fn ext_extra_block() -> Module {
    let mut m = Module::new();
    let mut k = Function::new(FunctionKind::kernel(), None);
    let b = k.ensure_body();
    let dead = k.create_block();
    Cursor::at_end(&mut k, b).ret(None);
    Cursor::at_end(&mut k, dead).unreachable("dead");
    m.add_function(k);
    m
}

pub fn bindless_access() -> Module {
    let mut m = Module::new();
    let f = m.types.f32();
    let u = m.types.u32();
    let u64t = m.types.u64();
    let arr = m.types.intern(TypeData::BindlessArray);
    let zero = c_u32(&mut m, 0);
    let four = c_u32(&mut m, 4);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let a = k.add_arg(ArgKind::Resource, arr);
    let b = k.ensure_body();
    let access = |typed, uniform| BindlessAccess { typed, uniform };
    let r = ResourceReadOp::BindlessBufferRead;
    Cursor::at_end(&mut k, b).resource_read(r, access(false, false), f, &[a.into(), zero, zero]);
    Cursor::at_end(&mut k, b).resource_read(r, access(true, false), f, &[a.into(), zero, zero]);
    let q = ResourceQueryOp::BindlessBufferSize;
    Cursor::at_end(&mut k, b).resource_query(q, access(false, true), u64t, &[a.into(), zero, four]);
    let w = ResourceWriteOp::BindlessBufferWrite;
    Cursor::at_end(&mut k, b).resource_write(w, access(true, true), &[a.into(), zero, zero, four]);
    let _ = u;
    Cursor::at_end(&mut k, b).ret(None);
    m.add_function(k);
    m
}

/// alloca / getelementptr / load / store / atomic / cast.
pub fn memory_ops() -> Module {
    let mut m = Module::new();
    let u = m.types.u32();
    let f = m.types.f32();
    let arr = m.types.intern(TypeData::Array { elem: u, len: 64 });
    let zero = c_u32(&mut m, 0);
    let one = c_u32(&mut m, 1);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let b = k.ensure_body();
    let sh = Cursor::at_end(&mut k, b).alloca(AllocaOp::Shared, arr);
    let p = Cursor::at_end(&mut k, b).gep(u, sh, &[one]);
    Cursor::at_end(&mut k, b).store(p, zero);
    let old = Cursor::at_end(&mut k, b).atomic(AtomicOp::FetchAdd, u, sh, &[one], &[one]);
    let cas = InstKind::Atomic(AtomicOp::CompareExchange);
    Cursor::at_end(&mut k, b).ins(cas, Some(u), [sh, zero, old, one]);
    let x = Cursor::at_end(&mut k, b).load(u, p);
    Cursor::at_end(&mut k, b).cast(CastOp::StaticCast, f, x);
    Cursor::at_end(&mut k, b).ret(None);
    m.add_function(k);
    m
}

/// Special registers are numbered lazily, in order of first print.
pub fn special_registers() -> Module {
    let mut m = Module::new();
    let u = m.types.u32();
    let zero = c_u32(&mut m, 0);
    let tid = m.special(SpecialRegister::ThreadId);
    let bid = m.special(SpecialRegister::BlockId);
    let bsz = m.special(SpecialRegister::BlockSize);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let b = k.ensure_body();
    let t = Cursor::at_end(&mut k, b).arith(ArithmeticOp::Extract, u, &[tid, zero]);
    let g = Cursor::at_end(&mut k, b).arith(ArithmeticOp::Extract, u, &[bid, zero]);
    let s = Cursor::at_end(&mut k, b).arith(ArithmeticOp::Extract, u, &[bsz, zero]);
    let gs = Cursor::at_end(&mut k, b).arith(ArithmeticOp::BinaryMul, u, &[g, s]);
    Cursor::at_end(&mut k, b).arith(ArithmeticOp::BinaryAdd, u, &[gs, t]);
    let again = Cursor::at_end(&mut k, b).arith(ArithmeticOp::Extract, u, &[tid, zero]);
    let _ = again;
    Cursor::at_end(&mut k, b).ret(None);
    m.add_function(k);
    m
}

/// `simple_loop` with a `break`, and an `outline`.
pub fn simple_loop() -> Module {
    let mut m = Module::new();
    let bt = m.types.bool();
    let mut k = Function::new(FunctionKind::kernel(), None);
    let c = k.add_arg(ArgKind::Value, bt);
    let b = k.ensure_body();
    let [lbody, exit, then_b, cont, obody, omerge] = std::array::from_fn(|_| k.create_block());
    Cursor::at_end(&mut k, b).simple_loop(lbody, exit);
    Cursor::at_end(&mut k, lbody).if_(c.into(), then_b, cont, cont);
    Cursor::at_end(&mut k, then_b).break_(exit);
    Cursor::at_end(&mut k, cont).continue_(lbody);
    Cursor::at_end(&mut k, exit).outline(obody, omerge);
    Cursor::at_end(&mut k, obody).br(omerge);
    Cursor::at_end(&mut k, omerge).ret(None);
    m.add_function(k);
    m
}
