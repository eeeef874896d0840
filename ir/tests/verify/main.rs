//! Verifier tests: one positive and one negative case per rule, the six options and
//! robustness against malformed modules. The tests over generated modules live in
//! xir-testgen (`verify_generator`, `verify_mutated`).

mod arith;
mod options;
mod robustness;
mod ssa;
mod structure;
mod typing;

use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::function::{ArgKind, Function, FunctionKind};

use xir_ir::module::Module;
use xir_ir::types::{ScalarKind, Type, TypeData};
use xir_ir::value::{BlockId, FuncId, Value};
use xir_ir::verify::{VerifyOptions, verify_module};

/// A one-function module under construction.
pub struct B {
    pub m: Module,
    pub f: Function,
}

impl B {
    /// A kernel with a body block.
    pub fn kernel() -> Self {
        Self::new(FunctionKind::kernel(), None)
    }
    /// A callable returning `ret`, with a body block.
    pub fn callable(ret: Option<Type>) -> Self {
        Self::new(FunctionKind::Callable, ret)
    }
    fn new(kind: FunctionKind, ret: Option<Type>) -> Self {
        let mut f = Function::new(kind, ret);
        f.ensure_body();
        B {
            m: Module::new(),
            f,
        }
    }
    /// The body block.
    pub fn body(&self) -> BlockId {
        self.f.body.unwrap()
    }
    /// A new owned block.
    pub fn block(&mut self) -> BlockId {
        self.f.create_block()
    }
    /// The one builder at the end of block `b` (the per-kind constructors, or
    /// [`InstBuilder::ins`] for the malformed instructions these tests need).
    pub fn at(&mut self, b: BlockId) -> Cursor<'_> {
        Cursor::at_end(&mut self.f, b)
    }
    /// A scalar type.
    pub fn t(&mut self, k: ScalarKind) -> Type {
        self.m.types.scalar(k)
    }
    /// `vector<k, n>`.
    pub fn v(&mut self, k: ScalarKind, n: u8) -> Type {
        let e = self.t(k);
        self.m.types.vector(e, n)
    }
    /// Interns any type.
    pub fn ty(&mut self, d: TypeData) -> Type {
        self.m.types.intern(d)
    }
    /// An integer (or bool) constant of kind `k`.
    pub fn c(&mut self, k: ScalarKind, v: u64) -> Value {
        let t = self.t(k);
        Value::Const(self.m.constant(t, &v.to_le_bytes()[..k.size() as usize]))
    }
    /// An `f32` constant.
    pub fn f(&mut self, x: f32) -> Value {
        let t = self.t(ScalarKind::F32);
        Value::Const(self.m.constant(t, &x.to_le_bytes()))
    }
    /// A zero constant of any type.
    pub fn zero(&mut self, t: Type) -> Value {
        let n = self.m.types.size_of(t) as usize;
        Value::Const(self.m.constant(t, &vec![0; n]))
    }
    /// Adds an argument.
    pub fn arg(&mut self, kind: ArgKind, t: Type) -> Value {
        Value::Arg(self.f.add_arg(kind, t))
    }
    /// `alloca local` of `t`.
    pub fn alloca(&mut self, b: BlockId, t: Type) -> Value {
        self.at(b).alloca(xir_ir::op::AllocaOp::Local, t)
    }
    /// `return` (void).
    pub fn ret(&mut self, b: BlockId) {
        Cursor::at_end(&mut self.f, b).ret(None);
    }
    /// `br to`.
    pub fn br(&mut self, b: BlockId, to: BlockId) {
        Cursor::at_end(&mut self.f, b).br(to);
    }
    /// Adds the function to the module and returns both.
    pub fn done(self) -> Module {
        let mut m = self.m;
        m.add_function(self.f);
        m
    }
    /// Adds the function and returns the module and its id.
    pub fn done_id(self) -> (Module, FuncId) {
        let mut m = self.m;
        let id = m.add_function(self.f);
        (m, id)
    }
}

/// Messages of `verify_module` with default options.
pub fn check(m: &Module) -> Vec<String> {
    check_with(m, &VerifyOptions::default())
}

/// Messages of `verify_module` with `opts`.
pub fn check_with(m: &Module, opts: &VerifyOptions) -> Vec<String> {
    verify_module(m, opts, None)
        .into_iter()
        .map(|d| d.message)
        .collect()
}

/// Asserts there are no diagnostics.
#[track_caller]
pub fn ok(m: &Module) {
    let e = check(m);
    assert!(e.is_empty(), "unexpected diagnostics: {e:#?}");
}

/// Asserts some diagnostic contains `needle`.
#[track_caller]
pub fn err(m: &Module, needle: &str) {
    err_with(m, &VerifyOptions::default(), needle)
}

/// Asserts some diagnostic (under `opts`) contains `needle`.
#[track_caller]
pub fn err_with(m: &Module, opts: &VerifyOptions, needle: &str) {
    let e = check_with(m, opts);
    assert!(
        e.iter().any(|x| x.contains(needle)),
        "no diagnostic contains {needle:?}; got {e:#?}"
    );
}
