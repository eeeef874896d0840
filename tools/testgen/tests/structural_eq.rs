//! `structural_diff`: equal modules compare equal regardless of arena handles and owned
//! block order; every kind of fact that differs is reported.

mod common;

use common::*;
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::*;
use xir_ir::op::*;
use xir_ir::*;
use xir_testgen::structural_diff;

fn diff(a: &Module, b: &Module) -> String {
    structural_diff(a, b).unwrap_or_else(|| "<equal>".into())
}

#[test]
fn clone_is_equal() {
    let ex = example();
    assert_eq!(structural_diff(&ex.m, &ex.m.clone()), None);
}

/// The example's kernel rebuilt with blocks and instructions created in another arena
/// order and a shuffled owned block list.
#[test]
fn handles_and_owned_order_do_not_matter() {
    let ex = example();
    let mut m = ex.m.clone();
    let old = m.func(ex.kernel).clone();
    let mut k = Function::new(old.kind, old.ret);
    for &a in &old.arg_order {
        k.add_arg(old.args[a].kind, old.args[a].ty);
    }
    // Create blocks in reverse owned order (so handles differ), body last.
    let mut map = std::collections::HashMap::new();
    for &b in old.block_order.iter().rev() {
        map.insert(b, k.create_block());
    }
    k.body = old.body.map(|b| map[&b]);
    let mut imap = std::collections::HashMap::new();
    // Pad the instruction arena so instruction handles differ too.
    k.create_inst(InstData::new(InstKind::Clock, None, []));
    for &b in &old.block_order {
        for &i in &old.blocks[b].insts {
            let mut d = old.insts[i].clone();
            d.kind.map_side_blocks(|x| map[&x]);
            let ni = k.append_inst(map[&b], d);
            imap.insert(i, ni);
        }
    }
    for &ni in imap.values() {
        let ops: Vec<Value> = k.insts[ni]
            .operands
            .iter()
            .map(|v| match *v {
                Value::Block(b) => Value::Block(map[&b]),
                Value::Inst(i) => Value::Inst(imap[&i]),
                Value::Arg(a) => {
                    Value::Arg(k.arg_order[old.arg_order.iter().position(|x| *x == a).unwrap()])
                }
                other => other,
            })
            .collect();
        k.insts[ni].operands = ops.into_iter().collect();
    }
    *m.func_mut(ex.kernel) = k;
    assert_eq!(structural_diff(&ex.m, &m), None);
    // The printed text is identical too (the printer ignores handles in upstream mode).
    assert_eq!(print(&ex.m), print(&m));
}

#[test]
fn every_kind_of_difference_is_reported() {
    let ex = example();
    let base = &ex.m;
    let k = ex.kernel;
    let body = base.func(k).body.unwrap();
    let first = base.func(k).blocks[body].insts[0];
    let check = |what: &str, edit: &dyn Fn(&mut Module)| {
        let mut m = base.clone();
        edit(&mut m);
        let d = diff(base, &m);
        assert!(d.contains(what), "expected {what:?} in {d:?}");
    };
    check("module: metadata", &|m| m.metadata.push(Metadata::NoInline));
    check("constant #1: bytes", &|m| {
        let c = m.live_constants().nth(1).unwrap();
        m.constants[c].bytes[0] = 1;
    });
    check("constant #0: metadata", &|m| {
        let c = m.live_constants().next().unwrap();
        m.constants[c].metadata.push(Metadata::Comment("x".into()));
    });
    check("special registers", &|m| {
        m.special_registers[0].1.push(Metadata::NoInline)
    });
    check("special registers", &|m| {
        m.special(SpecialRegister::ThreadId);
    });
    check("function #1: kind", &|m| {
        m.func_mut(k).kind = FunctionKind::Kernel {
            block_size: [32, 1, 1],
        }
    });
    check("function #0: return type", &|m| {
        let u = m.types.u32();
        m.func_mut(ex.callable).ret = Some(u)
    });
    check("function #1 argument #0: kind", &|m| {
        let f = m.func_mut(k);
        let a = f.arg_order[0];
        f.args[a].kind = ArgKind::Value;
    });
    check("function #1 block #0: metadata", &|m| {
        m.func_mut(k).blocks[body]
            .metadata
            .push(Metadata::Name("b".into()))
    });
    check("function #1 block #0 instruction #0: kind", &|m| {
        m.func_mut(k).insts[first].kind = InstKind::Arithmetic(ArithmeticOp::Shuffle)
    });
    check(
        "instruction #0: operand 0 differs: Special(DispatchId) vs Const",
        &|m| m.func_mut(k).insts[first].operands.swap(0, 1),
    );
    check("instruction #0: result type", &|m| {
        let i = m.types.i32();
        m.func_mut(k).insts[first].ty = Some(i)
    });
    check("instruction #0: metadata", &|m| {
        m.func_mut(k).insts[first]
            .metadata
            .push(Metadata::Name("i".into()))
    });
    check("block count", &|m| {
        let f = m.func_mut(k);
        let dead = f.create_block();
        Cursor::at_end(f, dead).ret(None);
    });
    check("instruction #4: kind", &|m| {
        // Point the `if`'s merge at the else block.
        let f = m.func_mut(k);
        let iff = f.blocks[body].insts[4];
        let other = f.insts[iff].operands[2].as_block().unwrap();
        f.insts[iff].kind = InstKind::If { merge: Some(other) };
    });
}

#[test]
fn struct_alignment_undef_types_and_labels_are_compared() {
    let build = |align: u32, undef_u32: bool, label: u64| {
        let mut m = Module::new();
        let u = m.types.u32();
        let f = m.types.f32();
        let s = m.types.intern(TypeData::Struct {
            align,
            members: vec![u, f],
        });
        let ut = if undef_u32 { u } else { f };
        let un = m.undef(ut);
        let mut fun = Function::new(FunctionKind::Callable, Some(s));
        let a = fun.add_arg(ArgKind::Value, u);
        let b = fun.ensure_body();
        let c1 = fun.create_block();
        let merge = fun.create_block();
        Cursor::at_end(&mut fun, b).ins(
            InstKind::Switch {
                labels: vec![label],
                merge: Some(merge),
            },
            None,
            [a.into(), merge.into(), c1.into()],
        );
        Cursor::at_end(&mut fun, c1).store(Value::Undef(un), Value::Undef(un));
        Cursor::at_end(&mut fun, c1).break_(merge);
        Cursor::at_end(&mut fun, merge).unreachable(String::new());
        m.add_function(fun);
        m
    };
    let base = build(4, false, 1);
    assert_eq!(structural_diff(&base, &build(4, false, 1)), None);
    assert!(diff(&base, &build(16, false, 1)).contains("return type"));
    assert!(
        diff(&base, &build(4, true, 1))
            .contains("undefined value #0: no undefined value of its type")
    );
    assert!(diff(&base, &build(4, false, 2)).contains("kind differs"));
}

#[test]
fn coroutine_nan_attributes_compare_bitwise() {
    let build = |x: f64| {
        let (mut m, mut k, b) = kernel_shell();
        Cursor::at_end(&mut k, b).ins(
            InstKind::CoroSuspend(Box::new(CoroSuspendData {
                extensions: vec![CoroExtension {
                    schema: "s".into(),
                    version: 1,
                    kind: CoroExtensionKind::Annotation,
                    fallback: 0,
                    items: vec![CoroExtensionItem::Attribute {
                        name: "f".into(),
                        value: CoroAttrValue::Float(x),
                    }],
                }],
                ..Default::default()
            })),
            None,
            [],
        );
        m.add_function(k);
        m
    };
    assert_eq!(structural_diff(&build(f64::NAN), &build(f64::NAN)), None);
    assert!(structural_diff(&build(1.0), &build(2.0)).is_some());
}

#[test]
fn ten_thousand_deep_modules_compare_on_a_small_stack() {
    let r = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let build = |last: InstKind| {
                let (mut m, mut k, body) = kernel_shell();
                let mut cur = body;
                for _ in 0..10_000 {
                    let child = k.create_block();
                    Cursor::at_end(&mut k, cur).outline(child, None);
                    cur = child;
                }
                Cursor::at_end(&mut k, cur).ins(last, None, []);
                let mut t = m.types.u32();
                for _ in 0..10_000 {
                    t = m.types.intern(TypeData::Array { elem: t, len: 2 });
                }
                k.add_arg(ArgKind::Value, t);
                m.add_function(k);
                m
            };
            let a = build(InstKind::Return);
            let same = structural_diff(&a, &build(InstKind::Return));
            let differs = structural_diff(&a, &build(InstKind::RasterDiscard));
            (same, differs)
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(r.0, None);
    assert!(r.1.unwrap().contains("block #10000 instruction #0: kind"));
}

#[test]
fn undefined_values_match_by_type_in_any_order() {
    let build = |swap: bool| {
        let mut m = Module::new();
        let u = m.types.u32();
        let f = m.types.f32();
        let s1 = m.types.intern(TypeData::Struct {
            align: 4,
            members: vec![u, f],
        });
        let s2 = m.types.intern(TypeData::Struct {
            align: 4,
            members: vec![u, u],
        });
        let (a, b) = if swap { (s2, s1) } else { (s1, s2) };
        m.undef(a);
        m.undef(b);
        m
    };
    assert_eq!(structural_diff(&build(false), &build(true)), None);
    let mut other = build(false);
    let i = other.types.i32();
    other.undef(i);
    assert!(diff(&build(false), &other).contains("undefined value count"));
}
