//! `test-signed-div-to-shift` — a planted miscompile, for the semantic checking demo.
//!
//! **What:** rewrites `arithmetic binary_div %x, 2` of a *signed* integer scalar type into
//! `arithmetic binary_shift_right %x, 1`. That is wrong exactly for negative odd `x`:
//! division rounds toward zero (`-3 / 2 = -1`), the arithmetic shift rounds toward
//! negative infinity (`-3 >> 1 = -2`). Every other input gives the same result, so CHECK
//! lines on the output cannot see the bug; `xir-opt --check-semantics` can, and
//! `xir-bisect --semantics` / `xir-reduce --semantics` find and shrink it
//! (`test-corpus/corpus/semantics/`).
//!
//! **Algorithm:** one walk over the placed instructions of each function with a body;
//! the divisor must be the constant 2 of the instruction's type. Unsigned division by 2
//! is left alone (there the rewrite would be correct), so the pass is harmless on most
//! kernels and only some inputs of some kernels expose it.
//!
//! **Preconditions:** none. **Refusals:** none.
//!
//! **Report keys:** `rewritten_div`. **Changed:** `Instructions` when `rewritten_div > 0`.
//!
//! **Example:**
//! ```text
//! %h: i32 = arithmetic binary_div %x, %two;   →   %h: i32 = arithmetic binary_shift_right %x, %one;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::util::constant::scalar_const;
use xir_ir::constant::{ScalarValue, read_scalar};
use xir_ir::op::ArithmeticOp;
use xir_ir::{FuncId, InstKind, Module, Value};

/// The `test-signed-div-to-shift` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct SignedDivToShift;

crate::declare_pass! {
    SignedDivToShift: function pass "test-signed-div-to-shift" {
        summary: "Planted miscompile: signed `x / 2` becomes `x >> 1` (wrong for negative odd x).",
        form: Either,
        counters: SignedDivToShiftCounters {
            /// Divisions rewritten.
            rewritten_div: Instructions,
        }
    }
}

fn is_two(m: &Module, v: Value) -> bool {
    let Some(c) = v.as_const() else {
        return false;
    };
    let d = &m.constants[c];
    let Some(k) = m.types.scalar_kind(d.ty) else {
        return false;
    };
    matches!(read_scalar(k, &d.bytes), Some(ScalarValue::Int(2)))
}

impl FunctionPass for SignedDivToShift {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        counters: &mut SignedDivToShiftCounters,
    ) -> Result<(), PassError> {
        let insts: Vec<_> = module.func(f).placed_insts().collect();
        for i in insts {
            let d = module.func(f).inst(i);
            let (InstKind::Arithmetic(ArithmeticOp::BinaryDiv), Some(ty)) = (&d.kind, d.ty) else {
                continue;
            };
            let signed = module
                .types
                .scalar_kind(ty)
                .is_some_and(|k| k.is_signed_int());
            if !signed || d.operands.len() != 2 || !is_two(module, d.operands[1]) {
                continue;
            }
            let Some(one) = scalar_const(module, ty, ScalarValue::Int(1)) else {
                continue;
            };
            let d = module.func_mut(f).inst_mut(i);
            d.kind = InstKind::Arithmetic(ArithmeticOp::BinaryShiftRight);
            d.operands[1] = Value::Const(one);
            counters.rewritten_div += 1;
        }
        Ok(())
    }
}
