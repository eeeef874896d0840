//! The module: types, constants, undefined values, special registers, functions and
//! module metadata.

use crate::entity::PrimaryMap;
use crate::function::Function;
use crate::metadata::MetadataList;
use crate::types::{Type, TypeData, TypeStore};
use crate::value::{ConstId, FuncId, SpecialRegister, SpecialRegisterType, UndefId, Value};
use rustc_hash::FxHashMap;

/// The type of special register `r`, interned in `types`.
fn intern_special_register_type(types: &mut TypeStore, r: SpecialRegister) -> Type {
    match r.ty() {
        SpecialRegisterType::Uint3 => {
            let u = types.u32();
            types.vector(u, 3)
        }
        SpecialRegisterType::Uint => types.u32(),
        SpecialRegisterType::Float3 => {
            let f = types.f32();
            types.vector(f, 3)
        }
        SpecialRegisterType::Bool => types.bool(),
    }
}

/// A module-level constant: a type and its native in-memory bytes (with padding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstData {
    /// Type.
    pub ty: Type,
    /// Native little-endian bytes, `size_of(ty)` long.
    pub bytes: Box<[u8]>,
    /// Metadata.
    pub metadata: MetadataList,
    /// False once removed from the module's constant list.
    pub live: bool,
}

/// A module-level undefined value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndefData {
    /// Type.
    pub ty: Type,
    /// Metadata.
    pub metadata: MetadataList,
    /// False once removed.
    pub live: bool,
}

/// An XIR module.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Interned types.
    pub types: TypeStore,
    /// Module metadata.
    pub metadata: MetadataList,
    /// Constant arena (list order = arena order, skipping dead entries).
    pub constants: PrimaryMap<ConstId, ConstData>,
    const_lookup: FxHashMap<(Type, Box<[u8]>), ConstId>,
    /// Undefined values (one live entry per type).
    pub undefs: PrimaryMap<UndefId, UndefData>,
    undef_lookup: FxHashMap<Type, UndefId>,
    /// Special registers in use, in creation order, with their metadata.
    pub special_registers: Vec<(SpecialRegister, MetadataList)>,
    /// Function arena.
    pub functions: PrimaryMap<FuncId, Function>,
    /// Functions in module order.
    pub func_order: Vec<FuncId>,
}

impl Module {
    /// An empty module.
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns a constant by exact (type, bytes) equality.
    pub fn constant(&mut self, ty: Type, bytes: &[u8]) -> ConstId {
        self.globals().constant(ty, bytes)
    }

    /// Adds a constant that is *not* shared (used by readers when two declared constants
    /// have identical type and bytes, which upstream's lists can contain when metadata
    /// differs).
    pub fn push_unshared_constant(&mut self, ty: Type, bytes: &[u8]) -> ConstId {
        let b: Box<[u8]> = bytes.into();
        let c = self.constants.push(ConstData {
            ty,
            bytes: b.clone(),
            metadata: Vec::new(),
            live: true,
        });
        self.const_lookup.entry((ty, b)).or_insert(c);
        c
    }

    /// Removes a constant from the module's list (the caller guarantees it is unused).
    pub fn remove_constant(&mut self, c: ConstId) {
        let d = &mut self.constants[c];
        d.live = false;
        let key = (d.ty, d.bytes.clone());
        if self.const_lookup.get(&key) == Some(&c) {
            self.const_lookup.remove(&key);
        }
    }

    /// Live constants in list order.
    pub fn live_constants(&self) -> impl Iterator<Item = ConstId> + '_ {
        self.constants
            .iter()
            .filter(|(_, d)| d.live)
            .map(|(c, _)| c)
    }

    /// The undefined value of `ty` (created on first request).
    pub fn undef(&mut self, ty: Type) -> UndefId {
        self.globals().undef(ty)
    }

    /// Live undefined values in list order.
    pub fn live_undefs(&self) -> impl Iterator<Item = UndefId> + '_ {
        self.undefs.iter().filter(|(_, d)| d.live).map(|(c, _)| c)
    }

    /// Registers `r` as used (creating its entry on first request) and returns it as a value.
    pub fn special(&mut self, r: SpecialRegister) -> Value {
        self.globals().special(r)
    }

    /// The type of special register `r`.
    pub fn special_register_type(&mut self, r: SpecialRegister) -> Type {
        intern_special_register_type(&mut self.types, r)
    }

    /// The type of special register `r` if it is already interned.
    pub fn find_special_register_type(&self, r: SpecialRegister) -> Option<Type> {
        use crate::types::ScalarKind;
        let t = &self.types;
        match r.ty() {
            SpecialRegisterType::Uint3 => {
                let u = t.find(&TypeData::Scalar(ScalarKind::U32))?;
                t.find(&TypeData::Vector { elem: u, len: 3 })
            }
            SpecialRegisterType::Uint => t.find(&TypeData::Scalar(ScalarKind::U32)),
            SpecialRegisterType::Float3 => {
                let f = t.find(&TypeData::Scalar(ScalarKind::F32))?;
                t.find(&TypeData::Vector { elem: f, len: 3 })
            }
            SpecialRegisterType::Bool => t.find(&TypeData::Scalar(ScalarKind::Bool)),
        }
    }

    /// Splits the module into function `f` and the module-level tables, so a pass can
    /// edit one function while interning types, constants and undefined values:
    ///
    /// ```
    /// # use xir_ir::{Module, Function, FunctionKind};
    /// let mut m = Module::new();
    /// let f = m.add_function(Function::new(FunctionKind::Callable, None));
    /// let (func, mut globals) = m.split(f);
    /// let u32_ty = globals.types.u32();
    /// let one = globals.constant(u32_ty, &1u32.to_le_bytes());
    /// func.ensure_body();
    /// # let _ = one;
    /// ```
    pub fn split(&mut self, f: FuncId) -> (&mut Function, Globals<'_>) {
        let Module {
            types,
            constants,
            const_lookup,
            undefs,
            undef_lookup,
            special_registers,
            functions,
            ..
        } = self;
        (
            &mut functions[f],
            Globals {
                types,
                constants,
                const_lookup,
                undefs,
                undef_lookup,
                special_registers,
            },
        )
    }

    /// The module-level tables alone (see [`Module::split`]).
    pub fn globals(&mut self) -> Globals<'_> {
        let Module {
            types,
            constants,
            const_lookup,
            undefs,
            undef_lookup,
            special_registers,
            ..
        } = self;
        Globals {
            types,
            constants,
            const_lookup,
            undefs,
            undef_lookup,
            special_registers,
        }
    }

    /// Adds a function at the end of the module.
    pub fn add_function(&mut self, f: Function) -> FuncId {
        let id = self.functions.push(f);
        self.func_order.push(id);
        id
    }

    /// Removes a function from the module list.
    pub fn remove_function(&mut self, f: FuncId) {
        self.func_order.retain(|x| *x != f);
    }

    /// The function.
    #[inline]
    pub fn func(&self, f: FuncId) -> &Function {
        &self.functions[f]
    }

    /// The function, mutably.
    #[inline]
    pub fn func_mut(&mut self, f: FuncId) -> &mut Function {
        &mut self.functions[f]
    }

    /// The type of a value as seen from inside function `f` (`None` = void / untyped:
    /// blocks and functions).
    pub fn value_type(&self, f: FuncId, v: Value) -> Option<Type> {
        match v {
            Value::Inst(i) => self.functions[f].insts[i].ty,
            Value::Arg(a) => Some(self.functions[f].args[a].ty),
            Value::Const(c) => Some(self.constants[c].ty),
            Value::Undef(u) => Some(self.undefs[u].ty),
            Value::Special(r) => self.find_special_register_type(r),
            Value::Block(_) => None,
            Value::Func(_) => None,
        }
    }

    /// Total placed instructions.
    pub fn inst_count(&self) -> usize {
        self.func_order
            .iter()
            .map(|f| self.functions[*f].inst_count())
            .sum()
    }
}

/// The module-level tables borrowed next to one function ([`Module::split`]): types,
/// constants, undefined values and special registers.
pub struct Globals<'m> {
    /// Interned types.
    pub types: &'m mut TypeStore,
    /// The constant arena (read; intern through [`Globals::constant`]).
    pub constants: &'m mut PrimaryMap<ConstId, ConstData>,
    const_lookup: &'m mut FxHashMap<(Type, Box<[u8]>), ConstId>,
    /// The undefined-value arena (read; create through [`Globals::undef`]).
    pub undefs: &'m mut PrimaryMap<UndefId, UndefData>,
    undef_lookup: &'m mut FxHashMap<Type, UndefId>,
    special_registers: &'m mut Vec<(SpecialRegister, MetadataList)>,
}

impl Globals<'_> {
    /// Interns a constant by exact (type, bytes) equality.
    pub fn constant(&mut self, ty: Type, bytes: &[u8]) -> ConstId {
        if let Some(&c) = self.const_lookup.get(&(ty, Box::from(bytes))) {
            return c;
        }
        let b: Box<[u8]> = bytes.into();
        let c = self.constants.push(ConstData {
            ty,
            bytes: b.clone(),
            metadata: Vec::new(),
            live: true,
        });
        self.const_lookup.insert((ty, b), c);
        c
    }

    /// The undefined value of `ty` (created on first request).
    pub fn undef(&mut self, ty: Type) -> UndefId {
        if let Some(&u) = self.undef_lookup.get(&ty) {
            return u;
        }
        let u = self.undefs.push(UndefData {
            ty,
            metadata: Vec::new(),
            live: true,
        });
        self.undef_lookup.insert(ty, u);
        u
    }

    /// Registers `r` as used and returns it as a value.
    pub fn special(&mut self, r: SpecialRegister) -> Value {
        if !self.special_registers.iter().any(|(x, _)| *x == r) {
            self.special_registers.push((r, Vec::new()));
        }
        Value::Special(r)
    }

    /// The type of a module-level value (constant, undefined value, special register);
    /// `None` for values that live in a function (instructions, arguments, blocks) and
    /// for functions.
    pub fn global_value_type(&mut self, v: Value) -> Option<Type> {
        match v {
            Value::Const(c) => Some(self.constants[c].ty),
            Value::Undef(u) => Some(self.undefs[u].ty),
            Value::Special(r) => Some(intern_special_register_type(self.types, r)),
            Value::Inst(_) | Value::Arg(_) | Value::Block(_) | Value::Func(_) => None,
        }
    }
}
