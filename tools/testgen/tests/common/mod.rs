//! Shared helpers for the printer and structural-equality tests: terse instruction
//! builders and the reference §1.8 example module.

#![allow(dead_code)]

use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::op::*;
use xir_ir::*;

/// Appends an instruction to block `b` of `f`.
pub fn ins(
    f: &mut Function,
    b: BlockId,
    kind: InstKind,
    ty: Option<Type>,
    ops: impl IntoIterator<Item = Value>,
) -> InstId {
    Cursor::at_end(f, b).ins(kind, ty, ops)
}

/// Handles of the reference example module.
pub struct Example {
    pub m: Module,
    pub kernel: FuncId,
    pub callable: FuncId,
}

/// The reference §1.8 example: a callable adding 1.0 and a kernel with an `if`.
pub fn example() -> Example {
    let mut m = Module::new();
    let u32t = m.types.u32();
    let f32t = m.types.f32();
    let boolt = m.types.bool();
    let buf = m.types.intern(TypeData::Buffer { elem: Some(f32t) });
    let c0 = m.constant(u32t, &0u32.to_le_bytes());
    let c1 = m.constant(f32t, &1.0f32.to_le_bytes());

    let mut cf = Function::new(FunctionKind::Callable, Some(f32t));
    let a = cf.add_arg(ArgKind::Value, f32t);
    let body = cf.ensure_body();
    let add = ins(
        &mut cf,
        body,
        InstKind::Arithmetic(ArithmeticOp::BinaryAdd),
        Some(f32t),
        [a.into(), c1.into()],
    );
    ins(&mut cf, body, InstKind::Return, None, [add.into()]);
    let callable = m.add_function(cf);

    let did = m.special(SpecialRegister::DispatchId);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let buf_arg = k.add_arg(ArgKind::Resource, buf);
    let entry = k.ensure_body();
    let then_b = k.create_block();
    let else_b = k.create_block();
    let merge = k.create_block();
    let idx = ins(
        &mut k,
        entry,
        InstKind::Arithmetic(ArithmeticOp::Extract),
        Some(u32t),
        [did, c0.into()],
    );
    let x = ins(
        &mut k,
        entry,
        InstKind::ResourceRead(ResourceReadOp::BufferRead, BindlessAccess::default()),
        Some(f32t),
        [buf_arg.into(), idx.into()],
    );
    let y = ins(
        &mut k,
        entry,
        InstKind::Call,
        Some(f32t),
        [callable.into(), x.into()],
    );
    let lt = ins(
        &mut k,
        entry,
        InstKind::Arithmetic(ArithmeticOp::BinaryLess),
        Some(boolt),
        [y.into(), c1.into()],
    );
    ins(
        &mut k,
        entry,
        InstKind::If { merge: Some(merge) },
        None,
        [lt.into(), then_b.into(), else_b.into()],
    );
    ins(
        &mut k,
        then_b,
        InstKind::ResourceWrite(ResourceWriteOp::BufferWrite, BindlessAccess::default()),
        None,
        [buf_arg.into(), idx.into(), y.into()],
    );
    ins(&mut k, then_b, InstKind::Branch, None, [merge.into()]);
    ins(&mut k, else_b, InstKind::Branch, None, [merge.into()]);
    ins(&mut k, merge, InstKind::Return, None, []);
    let kernel = m.add_function(k);
    Example {
        m,
        kernel,
        callable,
    }
}

/// A module with one kernel whose body is `entry`; returns the module, the kernel
/// function (detached, to be added by the caller) and its body.
pub fn kernel_shell() -> (Module, Function, BlockId) {
    let m = Module::new();
    let mut k = Function::new(FunctionKind::kernel(), None);
    let b = k.ensure_body();
    (m, k, b)
}

/// Prints with default options.
pub fn print(m: &Module) -> String {
    xir_ir::text::print_module(m, &xir_ir::text::PrintOptions::default())
}

/// Prints in flat form.
pub fn print_flat(m: &Module) -> String {
    xir_ir::text::print_module(
        m,
        &xir_ir::text::PrintOptions {
            flat: true,
            ..Default::default()
        },
    )
}

/// Asserts equality with a readable diff of the first differing line.
#[track_caller]
pub fn assert_text(actual: &str, expected: &str) {
    if actual != expected {
        let a: Vec<&str> = actual.split('\n').collect();
        let e: Vec<&str> = expected.split('\n').collect();
        for k in 0..a.len().max(e.len()) {
            if a.get(k) != e.get(k) {
                panic!(
                    "text differs at line {}:\n  actual:   {:?}\n  expected: {:?}\n--- actual ---\n{actual}",
                    k + 1,
                    a.get(k),
                    e.get(k)
                );
            }
        }
    }
}
