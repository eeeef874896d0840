//! Shared helper for the printer and structural-equality tests: the reference §1.8
//! example module, built through the one builder ([`InstBuilder`] at a [`Cursor`]).

#![allow(dead_code)]

use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::op::*;
use xir_ir::*;

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
    let add =
        Cursor::at_end(&mut cf, body).arith(ArithmeticOp::BinaryAdd, f32t, &[a.into(), c1.into()]);
    Cursor::at_end(&mut cf, body).ret(Some(add));
    let callable = m.add_function(cf);

    let did = m.special(SpecialRegister::DispatchId);
    let mut k = Function::new(FunctionKind::kernel(), None);
    let buf_arg = k.add_arg(ArgKind::Resource, buf);
    let entry = k.ensure_body();
    let then_b = k.create_block();
    let else_b = k.create_block();
    let merge = k.create_block();
    let idx = Cursor::at_end(&mut k, entry).arith(ArithmeticOp::Extract, u32t, &[did, c0.into()]);
    let x = Cursor::at_end(&mut k, entry).resource_read(
        ResourceReadOp::BufferRead,
        BindlessAccess::default(),
        f32t,
        &[buf_arg.into(), idx],
    );
    let y = Cursor::at_end(&mut k, entry).call(Some(f32t), callable, &[x]);
    let lt = Cursor::at_end(&mut k, entry).arith(
        ArithmeticOp::BinaryLess,
        boolt,
        &[y.into(), c1.into()],
    );
    Cursor::at_end(&mut k, entry).if_(lt, then_b, else_b, merge);
    Cursor::at_end(&mut k, then_b).resource_write(
        ResourceWriteOp::BufferWrite,
        BindlessAccess::default(),
        &[buf_arg.into(), idx, y.into()],
    );
    Cursor::at_end(&mut k, then_b).br(merge);
    Cursor::at_end(&mut k, else_b).br(merge);
    Cursor::at_end(&mut k, merge).ret(None);
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
