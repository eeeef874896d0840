//! [`T`]: a module with one function under construction, the holder the pass unit tests
//! and the plain-CFG generator build through (instructions go through the one builder,
//! [`xir_ir::edit::InstBuilder`], at a [`Cursor`]).

use xir_ir::edit::Cursor;
use xir_ir::inst::{InstData, InstKind};
use xir_ir::{BlockId, FuncId, Function, FunctionKind, Metadata, Module, Type, Value};

/// A module with one function under construction.
pub struct T {
    pub m: Module,
    pub f: FuncId,
}

impl T {
    /// A callable returning `ret`.
    pub fn callable(ret: Option<fn(&mut xir_ir::TypeStore) -> Type>) -> Self {
        let mut m = Module::new();
        let r = ret.map(|g| g(&mut m.types));
        let f = m.add_function(Function::new(FunctionKind::Callable, r));
        T { m, f }
    }
    pub fn func(&mut self) -> &mut Function {
        self.m.func_mut(self.f)
    }
    /// A new block (the first one becomes the body).
    pub fn block(&mut self) -> BlockId {
        let f = self.func();
        if f.body.is_none() {
            f.ensure_body()
        } else {
            f.create_block()
        }
    }
    pub fn arg(&mut self, ty: Type) -> Value {
        Value::Arg(self.func().add_arg(xir_ir::ArgKind::Value, ty))
    }
    pub fn i32(&mut self) -> Type {
        self.m.types.i32()
    }
    pub fn u32t(&mut self) -> Type {
        self.m.types.u32()
    }
    pub fn f32t(&mut self) -> Type {
        self.m.types.f32()
    }
    pub fn boolt(&mut self) -> Type {
        self.m.types.bool()
    }
    pub fn ci32(&mut self, v: i32) -> Value {
        let t = self.i32();
        Value::Const(self.m.constant(t, &v.to_le_bytes()))
    }
    pub fn cu32(&mut self, v: u32) -> Value {
        let t = self.u32t();
        Value::Const(self.m.constant(t, &v.to_le_bytes()))
    }
    pub fn cf32(&mut self, v: f32) -> Value {
        let t = self.f32t();
        Value::Const(self.m.constant(t, &v.to_le_bytes()))
    }
    pub fn cbool(&mut self, v: bool) -> Value {
        let t = self.boolt();
        Value::Const(self.m.constant(t, &[v as u8]))
    }
    /// The one builder ([`InstBuilder`]) at the end of block `b`.
    pub fn at(&mut self, b: BlockId) -> Cursor<'_> {
        Cursor::at_end(self.m.func_mut(self.f), b)
    }
    pub fn name(&mut self, v: Value, n: &str) {
        if let Value::Inst(i) = v {
            self.func().insts[i].metadata.push(Metadata::Name(n.into()));
        }
    }
    /// Placed instructions of the function with `tag`-like predicate.
    pub fn count(&self, pred: impl Fn(&InstKind) -> bool) -> usize {
        let f = self.m.func(self.f);
        f.placed_insts().filter(|i| pred(&f.insts[*i].kind)).count()
    }
    /// The function's terminator of block `b`.
    pub fn term(&self, b: BlockId) -> &InstData {
        let f = self.m.func(self.f);
        &f.insts[f.terminator(b).expect("terminated")]
    }
}
