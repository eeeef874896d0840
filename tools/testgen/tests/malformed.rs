//! Malformed modules (dangling handles, missing operands, mismatched side lists) never
//! make the printer or `structural_diff` panic.

mod common;

use common::*;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::entity::EntityRef;
use xir_ir::text::{IdStyle, PrintOptions, print_module};
use xir_ir::*;
use xir_testgen::structural_diff;

fn malformed() -> Module {
    let (mut m, mut k, b) = kernel_shell();
    let u = m.types.u32();
    let second = k.create_block();
    Cursor::at_end(&mut k, b).clock(Type::new(999));
    Cursor::at_end(&mut k, b).arith(
        op::ArithmeticOp::BinaryAdd,
        u,
        &[
            Value::Inst(InstId::new(999)),
            Value::Arg(ArgId::new(7)),
            Value::Const(ConstId::new(5)),
            Value::Undef(UndefId::new(3)),
            Value::Func(FuncId::new(9)),
            Value::Block(BlockId::new(77)),
        ],
    );
    // A phi with two values and one block (the second value sits in a block slot).
    Cursor::at_end(&mut k, b).ins(
        InstKind::Phi,
        Some(u),
        [
            Value::Inst(InstId::new(1)),
            Value::Block(b),
            Value::Inst(InstId::new(0)),
        ],
    );
    Cursor::at_end(&mut k, b).ins(InstKind::Store, None, [Value::Undef(UndefId::new(3))]);
    Cursor::at_end(&mut k, b).call(Some(u), FuncId::new(9), &[Value::Undef(UndefId::new(3))]);
    Cursor::at_end(&mut k, b).ins(
        InstKind::Assert {
            message: "m".into(),
        },
        None,
        [],
    );
    Cursor::at_end(&mut k, second).ins(
        InstKind::Loop {
            body: None,
            update: Some(BlockId::new(500)),
            merge: None,
        },
        None,
        [],
    );
    Cursor::at_end(&mut k, b).ins(
        InstKind::Switch {
            labels: vec![1, 2, 3],
            merge: Some(BlockId::new(400)),
        },
        None,
        [Value::Arg(ArgId::new(0)), second.into()],
    );
    Cursor::at_end(&mut k, second).ins(InstKind::If { merge: None }, None, []);
    k.arg_order.push(ArgId::new(42));
    m.add_function(k);
    let mut bad_body = Function::new(FunctionKind::Callable, Some(Type::new(12345)));
    bad_body.body = Some(BlockId::new(3));
    m.add_function(bad_body);
    m.func_order.push(FuncId::new(77));
    m
}

#[test]
fn printing_malformed_modules_does_not_panic() {
    let m = malformed();
    for flat in [false, true] {
        for debug_info in [false, true] {
            for ids in [IdStyle::Upstream, IdStyle::Stable] {
                let text = print_module(
                    &m,
                    &PrintOptions {
                        flat,
                        debug_info,
                        ids,
                    },
                );
                assert!(text.starts_with("module;\n\n"));
                assert!(text.contains("<invalid type>"));
            }
        }
    }
    let text = print(&m);
    assert!(text.contains("= switch %"), "{text}");
    assert!(
        text.contains("= if null, then null, else null, merge null;"),
        "{text}"
    );
    assert!(
        text.contains("loop prepare null, body null, update %"),
        "{text}"
    );
    assert!(text.contains("= assert \"m\" null;"), "{text}");
}

#[test]
fn comparing_malformed_modules_does_not_panic() {
    let m = malformed();
    assert_eq!(structural_diff(&m, &m.clone()), None);
    assert!(structural_diff(&m, &example().m).is_some());
}
