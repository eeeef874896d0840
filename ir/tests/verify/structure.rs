//! Function headers, placement, terminators, phi position, operand handles and
//! structured ownership.

use crate::{B, check, err, err_with, ok};
use xir_ir::edit::InstBuilder;
use xir_ir::entity::EntityRef;
use xir_ir::function::{ArgKind, Function, FunctionKind};
use xir_ir::inst::{InstData, InstId, InstKind};
use xir_ir::module::Module;
use xir_ir::types::{ScalarKind as K, TypeData};
use xir_ir::value::{ArgId, BlockId, ConstId, FuncId, SpecialRegister, Value};
use xir_ir::verify::{VerifyOptions, verify_module};

#[test]
fn kernel_must_return_void() {
    let mut b = B::kernel();
    let body = b.body();
    b.ret(body);
    ok(&b.done());
    let mut b = B::kernel();
    let body = b.body();
    b.f.ret = Some(b.t(K::F32));
    let x = b.f(1.0);
    b.at(body).ret(Some(x));
    err(&b.done(), "kernel must return void but returns `f32`");
}

#[test]
fn kernel_block_size() {
    for (bs, good) in [
        ([8, 8, 1], true),
        ([1024, 1, 1], true),
        ([7, 1, 1], false),
        ([2048, 1, 1], false),
        ([0, 64, 1], false),
    ] {
        let mut b = B::kernel();
        b.f.kind = FunctionKind::Kernel { block_size: bs };
        let body = b.body();
        b.ret(body);
        let m = b.done();
        if good { ok(&m) } else { err(&m, "block size") }
    }
}

#[test]
fn argument_kinds_match_types() {
    let mut b = B::kernel();
    let buf = b.ty(TypeData::Buffer { elem: None });
    let q = b.ty(TypeData::Custom {
        name: "LC_RayQueryAll".into(),
    });
    let u = b.t(K::U32);
    b.arg(ArgKind::Resource, buf);
    b.arg(ArgKind::Reference, q);
    b.arg(ArgKind::Value, u);
    let body = b.body();
    b.ret(body);
    ok(&b.done());
    for (kind, bad) in [
        (ArgKind::Value, "buffer"),
        (ArgKind::Value, "custom"),
        (ArgKind::Reference, "buffer"),
        (ArgKind::Resource, "u32"),
    ] {
        let mut b = B::kernel();
        let t = match bad {
            "buffer" => b.ty(TypeData::Buffer { elem: None }),
            "custom" => b.ty(TypeData::Custom { name: "X".into() }),
            _ => b.t(K::U32),
        };
        b.arg(kind, t);
        let body = b.body();
        b.ret(body);
        err(&b.done(), "function %0, argument %1: ");
    }
}

#[test]
fn definitions_need_an_owned_body_and_externals_none() {
    let mut m = Module::new();
    m.add_function(Function::new(FunctionKind::Callable, None));
    err(&m, "function definition has no body block");

    let mut b = B::callable(None);
    let stray = b.f.create_block();
    b.f.block_order.retain(|x| *x != stray);
    b.f.body = Some(stray);
    err(&b.done(), "is not in the function's owned block list");

    let mut m = Module::new();
    m.add_function(Function::new(FunctionKind::External, None));
    ok(&m);
    let mut f = Function::new(FunctionKind::External, None);
    f.ensure_body();
    let mut m = Module::new();
    m.add_function(f);
    err(&m, "external function must not have a body");
}

#[test]
fn blocks_must_be_terminated() {
    let b = B::kernel();
    err(&b.done(), "function %0, block %1: block is empty");
    let mut b = B::kernel();
    let body = b.body();
    let u = b.m.types.u64();
    b.at(body).clock(u);
    err(&b.done(), "block does not end with a terminator");
}

#[test]
fn terminator_only_last() {
    let mut b = B::kernel();
    let body = b.body();
    b.ret(body);
    let u = b.m.types.u64();
    b.at(body).clock(u);
    b.ret(body);
    err(&b.done(), "instruction follows the block's terminator");
}

#[test]
fn phis_only_at_block_start() {
    let mut b = B::kernel();
    let (body, next) = (b.body(), b.block());
    b.br(body, next);
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    b.at(next).phi(u, &[(one, body)]);
    b.at(next).phi(u, &[(one, body)]);
    b.ret(next);
    ok(&b.done());
    let mut b = B::kernel();
    let (body, next) = (b.body(), b.block());
    b.br(body, next);
    let u = b.t(K::U32);
    let one = b.c(K::U32, 1);
    let u64t = b.m.types.u64();
    b.at(next).clock(u64t);
    b.at(next).phi(u, &[(one, body)]);
    b.ret(next);
    err(&b.done(), "phi must precede every non-phi instruction");
}

#[test]
fn instruction_block_field_and_single_placement() {
    let mut b = B::kernel();
    let (body, other) = (b.body(), b.block());
    b.ret(body);
    b.ret(other);
    let u = b.m.types.u64();
    let r = b.at(body).clock(u).as_inst().unwrap();
    b.f.blocks[body].insts.retain(|x| *x != r);
    b.f.blocks[body].insts.insert(0, r);
    b.f.insts[r].block = Some(other);
    err(&b.done(), "is listed in block %1 but records block %4");

    let mut b = B::kernel();
    let (body, other) = (b.body(), b.block());
    b.ret(body);
    let t = b.f.blocks[body].insts[0];
    b.f.blocks[other].insts.push(t);
    err(&b.done(), "is listed more than once");
}

#[test]
fn block_list_entries() {
    let mut b = B::kernel();
    let body = b.body();
    b.ret(body);
    b.f.block_order.push(body);
    err(
        &b.done(),
        "block is listed more than once in the owned block list",
    );
    let mut b = B::kernel();
    let body = b.body();
    b.ret(body);
    b.f.block_order.push(BlockId::new(77));
    err(
        &b.done(),
        "the owned block list names a block that does not exist",
    );
}

fn with_operand(v: Value) -> Module {
    let mut b = B::kernel();
    let body = b.body();
    b.at(body).print("x", &[v]);
    b.ret(body);
    b.done()
}

#[test]
fn operands_must_name_live_entities_of_this_function() {
    err(
        &with_operand(Value::Inst(InstId::new(99))),
        "an instruction that does not exist",
    );
    err(
        &with_operand(Value::Arg(ArgId::new(0))),
        "an argument that is not an argument of this function",
    );
    err(
        &with_operand(Value::Const(ConstId::new(5))),
        "a constant that is not a constant of this module",
    );
    err(
        &with_operand(Value::Special(SpecialRegister::DispatchId)),
        "which the module does not declare",
    );
    err(
        &with_operand(Value::Func(FuncId::new(9))),
        "a function that is not a function of this module",
    );
    err(
        &with_operand(Value::Block(BlockId::new(3))),
        "a block that is not owned by this function",
    );

    // A removed (unplaced) instruction.
    let mut b = B::kernel();
    let body = b.body();
    let u = b.m.types.u64();
    let c = b.at(body).clock(u);
    b.at(body).print("x", &[c]);
    b.ret(body);
    b.f.remove_inst(c.as_inst().unwrap());
    err(&b.done(), "an instruction that is not placed in any block");

    // A removed constant.
    let mut b = B::kernel();
    let body = b.body();
    let one = b.c(K::U32, 1);
    b.at(body).print("x", &[one]);
    b.ret(body);
    b.m.remove_constant(one.as_const().unwrap());
    err(
        &b.done(),
        "a constant that is not a constant of this module",
    );

    // A declared special register is fine.
    let mut b = B::kernel();
    let body = b.body();
    b.m.special_register_type(SpecialRegister::DispatchId);
    let s = b.m.special(SpecialRegister::DispatchId);
    b.at(body).print("x", &[s]);
    b.ret(body);
    ok(&b.done());
}

fn structured(kind: InstKind, ops_extra: usize) -> (B, BlockId, Vec<BlockId>) {
    let mut b = B::kernel();
    let body = b.body();
    let targets: Vec<BlockId> = (0..ops_extra).map(|_| b.block()).collect();
    let mut ops = Vec::new();
    if matches!(kind, InstKind::If { .. }) {
        ops.push(b.c(K::Bool, 1));
    }
    ops.extend(targets.iter().map(|t| Value::Block(*t)));
    b.at(body).ins(kind, None, ops);
    (b, body, targets)
}

#[test]
fn merge_blocks_must_exist_and_be_owned() {
    // An if may omit its merge.
    let (mut b, _, t) = structured(InstKind::If { merge: None }, 2);
    b.ret(t[0]);
    b.ret(t[1]);
    ok(&b.done());
    let (mut b, _, t) = structured(InstKind::Outline { merge: None }, 1);
    b.ret(t[0]);
    err(&b.done(), "structured instruction has no merge block");
    let (mut b, _, t) = structured(
        InstKind::SimpleLoop {
            merge: Some(BlockId::new(40)),
        },
        1,
    );
    b.ret(t[0]);
    err(&b.done(), "the merge block is not owned");
}

#[test]
fn loop_body_and_update_blocks() {
    let mut b = B::kernel();
    let (body, p, lb, u, m) = (b.body(), b.block(), b.block(), b.block(), b.block());
    b.at(body).loop_(p, lb, u, m);
    let c = b.c(K::Bool, 0);
    b.at(p).cond_br(c, lb, m);
    b.br(lb, u);
    b.br(u, p);
    b.ret(m);
    ok(&b.done());
    let mut b = B::kernel();
    let (body, p, m) = (b.body(), b.block(), b.block());
    b.at(body).loop_(p, None, BlockId::new(30), m);
    b.ret(p);
    b.ret(m);
    let e = check(&b.done());
    assert!(
        e.iter().any(|x| x.contains("loop has no body block")),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|x| x.contains("the loop's update block is not owned")),
        "{e:?}"
    );
}

fn switch_with(labels: Vec<u64>, sel_kind: K) -> Module {
    let mut b = B::kernel();
    let body = b.body();
    let sel = b.c(sel_kind, 0);
    let m = b.block();
    let d = b.block();
    let cases: Vec<BlockId> = labels.iter().map(|_| b.block()).collect();
    let mut ops = vec![sel, Value::Block(d)];
    ops.extend(cases.iter().map(|c| Value::Block(*c)));
    b.at(body).ins(
        InstKind::Switch {
            labels,
            merge: Some(m),
        },
        None,
        ops,
    );
    for c in cases.into_iter().chain([d]) {
        b.br(c, m);
    }
    b.ret(m);
    b.done()
}

#[test]
fn switch_case_labels() {
    ok(&switch_with(vec![0, 1, 0xffff_ffff], K::I32));
    err(
        &switch_with(vec![0x1_0000_0000], K::U32),
        "does not fit the 32-bit selector",
    );
    err(
        &switch_with(vec![3, 3], K::U32),
        "case 1 label 3 duplicates an earlier case",
    );
    err(
        &switch_with(vec![2], K::Bool),
        "does not fit the 1-bit selector",
    );
    ok(&switch_with(vec![u64::MAX], K::U64));
}

#[test]
fn autodiff_forward_flag_matches_gradient_count() {
    for (forward, n, good) in [
        (false, 0, true),
        (true, 2, true),
        (true, 0, false),
        (false, 1, false),
    ] {
        let (mut b, _, t) = structured(
            InstKind::AutodiffScope {
                merge: None,
                forward,
                n_forward_grads: n,
            },
            2,
        );
        let m = t[1];
        if let InstKind::AutodiffScope { merge, .. } = &mut b.f.insts[InstId::new(0)].kind {
            *merge = Some(m);
        }
        b.f.insts[InstId::new(0)].operands.truncate(1);
        b.br(t[0], m);
        b.ret(m);
        let mod_ = b.done();
        if good {
            ok(&mod_)
        } else {
            err(&mod_, "forward-mode autodiff scope")
        }
    }
}

#[test]
fn module_function_list_and_globals() {
    let mut b = B::kernel();
    let body = b.body();
    b.ret(body);
    let (mut m, id) = b.done_id();
    m.func_order.push(id);
    err(&m, "function is listed more than once");

    let mut m = Module::new();
    let t = m.types.u32();
    m.constant(t, &[1, 2]);
    err(&m, "has 2 bytes but the type's size is 4");
    let q = m.types.intern(TypeData::Custom { name: "Q".into() });
    m.constant(q, &[0; 8]);
    err(
        &m,
        "constants of resource, custom and cooperative types are not allowed",
    );

    let mut m = Module::new();
    let buf = m.types.intern(TypeData::Buffer { elem: None });
    m.undef(buf);
    // xir-only rule, off by default (upstream's verifier accepts it).
    ok(&m);
    let o = VerifyOptions::parse_list("require-non-resource-undefined").unwrap();
    err_with(&m, &o, "undefined value of resource type");

    let mut m = Module::new();
    let s = m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![],
    });
    m.types.intern(TypeData::Vector { elem: s, len: 3 });
    err(&m, "vector elements must be scalars");
    let d = m.types.scalar(K::F64);
    m.types.intern(TypeData::Struct {
        align: 4,
        members: vec![d],
    });
    err(&m, "needs alignment 8 but the structure is aligned to 4");
    m.types.intern(TypeData::Struct {
        align: 2,
        members: vec![],
    });
    err(&m, "structure alignment 2 is not 1, 4, 8 or 16");
}

#[test]
fn messages_name_function_block_and_instruction() {
    let mut b = B::kernel();
    let body = b.body();
    let f = b.f(1.0);
    let u = b.t(K::U32);
    b.at(body)
        .arith(xir_ir::op::ArithmeticOp::BinaryAdd, u, &[f, f]);
    b.ret(body);
    let e = check(&b.done());
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("function %1, block %2, %3 (arithmetic binary_add): "),
        "{}",
        e[0]
    );
}

#[test]
fn reports_every_problem() {
    let mut b = B::kernel();
    let body = b.body();
    let f = b.f(1.0);
    let u = b.t(K::U32);
    for _ in 0..3 {
        b.at(body)
            .arith(xir_ir::op::ArithmeticOp::BinaryAdd, u, &[f, f]);
    }
    let e = check(&b.done());
    assert_eq!(
        e.len(),
        4,
        "three typing errors and a missing terminator: {e:#?}"
    );
    let _ = InstData::new(InstKind::Clock, None, vec![]);
}

/// Parsed modules are named by the labels of their text when the text is given, and by
/// the printer's ids otherwise; the span is the same either way.
#[test]
fn messages_use_source_labels_or_printed_ids() {
    let src = "module;\n\nconst %one: u32 = 1u32;\n\nkernel %k () = define {\n%entry:\n    %a: u32 = arithmetic binary_add %b, %one;\n    %b: u32 = arithmetic binary_add %one, %one;\n    %r: void = return;\n};\n";
    let (m, sm) = xir_ir::text::parse_module(src).expect("parses");
    let opts = VerifyOptions::default();
    let labelled = xir_ir::verify::verify_module_with_source(&m, &opts, &sm, src);
    assert_eq!(labelled.len(), 1, "{labelled:?}");
    assert_eq!(
        labelled[0].message,
        "function %k, block %entry, %a (arithmetic binary_add): operand 0 (%b) is defined by a later instruction of the same block; definitions must precede their uses"
    );
    let printed = verify_module(&m, &opts, Some(&sm));
    assert_eq!(printed.len(), 1, "{printed:?}");
    assert!(
        printed[0]
            .message
            .starts_with("function %1, block %2, %3 (arithmetic binary_add): operand 0 (%4)"),
        "{}",
        printed[0].message
    );
    assert_eq!(printed[0].span, labelled[0].span);
    assert!(labelled[0].span.is_some());
}
