//! The function builder: insertion point, pools of available values (every pooled value
//! dominates the insertion point), constants, metadata and the function skeletons.

use super::control::Construct;
use super::{Env, Rng, recipes};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::function::{ArgKind, Function};
use xir_ir::inst::{InstData, InstId};
use xir_ir::metadata::{CurveBasis, CurveBasisSet, Metadata, MetadataKind, SpillKind, StridedMma};
use xir_ir::module::Module;
use xir_ir::types::{ScalarKind, Type, TypeData};
use xir_ir::value::{BlockId, SpecialRegister, Value};

/// A `break`/`continue` scope.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Scope {
    /// `break` target.
    pub brk: BlockId,
    /// `continue` target (loops only).
    pub cont: Option<BlockId>,
}

/// Builds one function.
pub(crate) struct Fb<'g> {
    pub m: &'g mut Module,
    pub rng: &'g mut Rng,
    pub env: &'g Env,
    pub f: Function,
    pub cur: BlockId,
    /// Data rvalues available at the insertion point.
    pub vals: Vec<(Value, Type)>,
    /// Lvalues available at the insertion point.
    pub lvals: Vec<(Value, Type)>,
    /// Resource arguments.
    pub res: Vec<(Value, Type)>,
    /// A ray-query object (lvalue), once created in the entry block.
    pub rq: Option<Value>,
    pub scopes: Vec<Scope>,
    pub depth: u32,
}

/// A metadata item of kind `k` with random payload.
pub(crate) fn metadata_of(k: MetadataKind, rng: &mut Rng) -> Metadata {
    match k {
        MetadataKind::Name => Metadata::Name(format!("v{}", rng.below(1000))),
        MetadataKind::Location => Metadata::Location {
            file: format!("src/file{}.cpp", rng.below(9)),
            line: rng.below(500) as i32,
        },
        MetadataKind::Comment => Metadata::Comment(format!("note {}", rng.below(100))),
        MetadataKind::CurveBasis => {
            let mut s = CurveBasisSet::default();
            for b in CurveBasis::ALL {
                if rng.chance(50) {
                    s.insert(b);
                }
            }
            Metadata::CurveBasis(s)
        }
        MetadataKind::SignatureConstraint => Metadata::SignatureConstraint,
        MetadataKind::Reg2MemSpill => Metadata::Reg2MemSpill(if rng.chance(50) {
            SpillKind::Phi
        } else {
            SpillKind::CrossBlock
        }),
        MetadataKind::NoInline => Metadata::NoInline,
        MetadataKind::ContiguousCopy => Metadata::ContiguousCopy {
            element_count: 1 + rng.below(256),
            vector_width: 1 << rng.below(3),
        },
        MetadataKind::StridedMma => Metadata::StridedMma(Box::new(StridedMma {
            extents: [16, 16, 8 << rng.below(2)],
            strides: [16, 16, 16],
            vector_width: 4,
            reassociation: rng.chance(50),
            vectorization_mode: rng.below(3) as u32,
        })),
    }
}

/// Instructions go at the end of the current block, some with a random name, location
/// or comment.
impl InstBuilder for Fb<'_> {
    fn insert(&mut self, mut d: InstData) -> InstId {
        if self.rng.chance(4) {
            let k = self.rng.pick(&[
                MetadataKind::Name,
                MetadataKind::Location,
                MetadataKind::Comment,
            ]);
            d.metadata.push(metadata_of(k, self.rng));
        }
        Cursor::at_end(&mut self.f, self.cur).insert(d)
    }
}

impl<'g> Fb<'g> {
    /// A builder for `f` with a fresh body block.
    pub fn new(m: &'g mut Module, rng: &'g mut Rng, env: &'g Env, mut f: Function) -> Self {
        let body = f.ensure_body();
        Fb {
            m,
            rng,
            env,
            f,
            cur: body,
            vals: Vec::new(),
            lvals: Vec::new(),
            res: Vec::new(),
            rq: None,
            scopes: Vec::new(),
            depth: 0,
        }
    }

    /// Puts the arguments into the pools (and sometimes annotates them).
    pub fn seed_args(&mut self) {
        for &a in &self.f.arg_order.clone() {
            let d = &self.f.args[a];
            let (kind, ty) = (d.kind, d.ty);
            match kind {
                ArgKind::Value => self.vals.push((Value::Arg(a), ty)),
                ArgKind::Reference => {
                    if !self.m.types.is_custom(ty) {
                        self.lvals.push((Value::Arg(a), ty));
                    }
                }
                ArgKind::Resource => self.res.push((Value::Arg(a), ty)),
            }
            if self.rng.chance(20) {
                let k = self.rng.pick(&[MetadataKind::Name, MetadataKind::Comment]);
                let md = metadata_of(k, self.rng);
                self.f.args[a].metadata.push(md);
            }
        }
    }

    /// Finishes the function (random function/block metadata).
    pub fn finish(mut self) -> Function {
        if self.rng.chance(30) {
            let k = self.rng.pick(&MetadataKind::ALL);
            let md = metadata_of(k, self.rng);
            self.f.metadata.push(md);
        }
        for b in self.f.block_order.iter().copied() {
            if self.rng.chance(5) {
                let md = metadata_of(MetadataKind::Comment, self.rng);
                self.f.blocks[b].metadata.push(md);
            }
        }
        self.f
    }

    // ---- emission ----

    /// Pools `v` if it is a data value; returns it.
    pub fn keep(&mut self, v: Value, t: Type) -> Value {
        if !self.m.types.is_custom(t) && !self.m.types.is_resource(t) {
            self.vals.push((v, t));
        }
        v
    }

    /// Starts a new block (not yet reachable from anything).
    pub fn block(&mut self) -> BlockId {
        self.f.create_block()
    }

    // ---- values ----

    /// A data value of type `t` that dominates the insertion point.
    pub fn val(&mut self, t: Type) -> Value {
        if self.rng.chance(4) {
            return Value::Undef(self.m.undef(t));
        }
        if self.rng.chance(65) && !self.vals.is_empty() {
            // Scan the pool circularly from a random start: a random match without
            // collecting the candidates.
            let n = self.vals.len();
            let start = self.rng.index(n);
            for k in 0..n {
                let (v, x) = self.vals[(start + k) % n];
                if x == t {
                    return v;
                }
            }
        }
        match self.konst(t) {
            Some(c) => c,
            None => Value::Undef(self.m.undef(t)),
        }
    }

    /// A value of scalar kind `k`.
    pub fn sval(&mut self, k: ScalarKind) -> Value {
        let t = self.m.types.scalar(k);
        self.val(t)
    }

    /// A non-negative integer constant of kind `k` (struct indices, lanes, labels).
    pub fn int_const(&mut self, k: ScalarKind, v: u64) -> Value {
        let t = self.m.types.scalar(k);
        let bytes = v.to_le_bytes();
        Value::Const(self.m.constant(t, &bytes[..k.size() as usize]))
    }

    /// A constant of type `t`, if constants of that type exist.
    pub fn konst(&mut self, t: Type) -> Option<Value> {
        let size = self.m.types.size_of(t) as usize;
        let mut bytes = vec![0u8; size];
        if !self.fill(t, &mut bytes, 0, 0) {
            return None;
        }
        Some(Value::Const(self.m.constant(t, &bytes)))
    }

    fn fill(&mut self, t: Type, out: &mut [u8], at: usize, depth: u32) -> bool {
        if depth > 6 {
            return false;
        }
        let ts = &self.m.types;
        match ts.get(t).clone() {
            TypeData::Scalar(k) => {
                let bytes: Vec<u8> = match k {
                    ScalarKind::Bool => vec![self.rng.below(2) as u8],
                    ScalarKind::F16 => {
                        let x = half::f16::from_f32(self.small_float() as f32);
                        x.to_bits().to_le_bytes().to_vec()
                    }
                    ScalarKind::F32 => (self.small_float() as f32).to_le_bytes().to_vec(),
                    ScalarKind::F64 => self.small_float().to_le_bytes().to_vec(),
                    k if k.is_int() => {
                        let mut v = self.rng.below(17) as i64;
                        if k.is_signed_int() && self.rng.chance(30) {
                            v = -v;
                        }
                        if k == ScalarKind::I4 {
                            v &= 0x7;
                        }
                        v.to_le_bytes()[..k.size() as usize].to_vec()
                    }
                    _ => vec![self.rng.below(0x38) as u8],
                };
                out[at..at + bytes.len()].copy_from_slice(&bytes);
                true
            }
            TypeData::Vector { elem, len } => {
                let es = ts.size_of(elem) as usize;
                (0..len as usize).all(|k| self.fill(elem, out, at + k * es, depth + 1))
            }
            TypeData::Matrix { elem, n } => {
                let col = self.m.types.vector(elem, n);
                let cs = self.m.types.size_of(col) as usize;
                (0..n as usize).all(|k| self.fill(col, out, at + k * cs, depth + 1))
            }
            TypeData::Array { elem, len } if len <= 64 => {
                let es = ts.size_of(elem) as usize;
                (0..len as usize).all(|k| self.fill(elem, out, at + k * es, depth + 1))
            }
            TypeData::Struct { members, .. } => {
                let offs = ts.struct_offsets(t);
                members
                    .iter()
                    .zip(offs)
                    .all(|(m, o)| self.fill(*m, out, at + o as usize, depth + 1))
            }
            _ => false,
        }
    }

    fn small_float(&mut self) -> f64 {
        let xs = [0.0, 1.0, -1.0, 0.5, 2.0, 0.25, 3.0, -2.5, 10.0];
        self.rng.pick(&xs)
    }

    /// A special register as an operand (registering it and interning its type).
    pub fn special(&mut self, r: SpecialRegister) -> (Value, Type) {
        let t = self.m.special_register_type(r);
        (self.m.special(r), t)
    }

    /// Pools some special registers and undefined values at function entry.
    fn seed_globals(&mut self) {
        let forced = SpecialRegister::ALL[(self.env.seed % 12) as usize];
        let mut regs = vec![forced];
        for _ in 0..self.rng.below(3) {
            regs.push(self.rng.pick(&SpecialRegister::ALL));
        }
        for r in regs {
            let (v, t) = self.special(r);
            self.vals.push((v, t));
        }
    }

    // ---- function skeletons ----

    /// A full body: optional entry allocas, statements, constructs, a terminator.
    pub fn body(&mut self, kernel: bool) {
        self.seed_globals();
        self.entry_allocas();
        if kernel {
            self.kernel_prologue();
            let window = self.env.recipes.clone();
            let constructs = self.env.constructs.clone();
            // Interleave the recipe window with the required constructs.
            let per = window.len() / (constructs.len() + 1) + 1;
            let mut ci = constructs.into_iter();
            for (k, r) in window.into_iter().enumerate() {
                recipes::emit(self, r);
                if (k + 1) % per == 0
                    && let Some(c) = ci.next()
                {
                    self.construct(c);
                }
            }
            for c in ci {
                self.construct(c);
            }
        } else {
            self.region();
        }
        self.finish_function();
    }

    /// The body of a ray-query pipeline handler: a few reads/writes on the query, return.
    pub fn handler_body(&mut self) {
        let q = Value::Arg(self.f.arg_order[0]);
        self.rq = Some(q);
        let r = self.rng.index(recipes::RQ_COUNT);
        recipes::emit_rq(self, r);
        self.region();
        self.ret(None);
    }

    /// A raster stage body; fragments may discard.
    pub fn raster_body(&mut self, fragment: bool) {
        self.seed_globals();
        self.region();
        if fragment {
            recipes::raster_fragment_ops(self);
            if self.rng.chance(50) {
                let c = self.sval(ScalarKind::Bool);
                let t = self.block();
                let e = self.block();
                self.cond_br(c, t, e);
                self.cur = t;
                self.raster_discard();
                self.cur = e;
            }
        }
        self.finish_function();
    }

    fn entry_allocas(&mut self) {
        // One scalar kind per module is guaranteed (rotation), plus random composites.
        let k = ScalarKind::ALL[(self.env.seed as usize) % ScalarKind::ALL.len()];
        let kinds = [
            k,
            self.rng.pick(ScalarKind::ALL),
            ScalarKind::F32,
            ScalarKind::U32,
        ];
        for k in kinds {
            let t = self.m.types.scalar(k);
            self.alloca_with_store(t);
        }
        let n = self.rng.below(3);
        for _ in 0..n {
            let t = recipes::random_composite(self);
            self.alloca_with_store(t);
        }
    }

    /// `alloca` of `t` (local), initialised with a store, pooled as an lvalue.
    pub fn alloca_with_store(&mut self, t: Type) -> Value {
        let a = self.alloca(xir_ir::op::AllocaOp::Local, t);
        if self.rng.chance(5)
            && let Value::Inst(i) = a
        {
            self.f.insts[i]
                .metadata
                .push(Metadata::Reg2MemSpill(SpillKind::CrossBlock));
        }
        let v = self.val(t);
        self.store(a, v);
        self.lvals.push((a, t));
        a
    }

    fn kernel_prologue(&mut self) {
        // The ray-query object every ray-query recipe uses.
        super::resources::make_ray_query(self);
    }

    /// A region: a few statements (recipes or, below the depth limit, constructs).
    pub fn region(&mut self) {
        let n = 1 + self.rng.below(self.env.cfg.max_stmts as u64);
        for _ in 0..n {
            if self.depth < self.env.cfg.max_depth && self.rng.chance(25) {
                let c = self.rng.pick(&Construct::NESTABLE);
                self.construct(c);
            } else {
                let r = self.rng.index(recipes::SIMPLE_COUNT);
                recipes::emit_simple(self, r);
            }
        }
    }

    /// Ends the function: return, unreachable, a coroutine suspend, or a call.
    fn finish_function(&mut self) {
        if self.rng.chance(30) && !self.env.callees.is_empty() {
            recipes::call_some(self);
        }
        if self.rng.chance(10) {
            let msg = if self.rng.chance(50) {
                "unreachable end".to_string()
            } else {
                String::new()
            };
            self.unreachable(msg);
        } else {
            let ret = self.f.ret;
            let v = ret.map(|t| self.val(t));
            self.ret(v);
        }
        if self.rng.chance(20) {
            // A block nothing branches to (unreachable by traversal).
            let b = self.block();
            self.cur = b;
            self.vals.retain(|(v, _)| !matches!(v, Value::Inst(_)));
            self.lvals.retain(|(v, _)| !matches!(v, Value::Inst(_)));
            recipes::emit_simple(self, 0);
            self.unreachable("orphan");
        }
    }
}
