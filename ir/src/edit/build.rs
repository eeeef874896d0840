//! Per-kind constructors shared by every insertion point: [`InstBuilder`] is implemented
//! by the plain [`Cursor`] (building a function, no use index) and by
//! [`RewriteCursor`](super::RewriteCursor) (editing under a [`Rewriter`](super::Rewriter),
//! which keeps its use index valid); a generator that decorates what it inserts
//! implements it too. The constructors are declared by the instruction table's `build`
//! parts ([`crate::inst_table`]), one per kind.

use crate::function::Function;
use crate::inst::{CoroSuspendData, InstData, InstId, InstKind};
use crate::op::{
    AllocaOp, ArithmeticOp, AtomicOp, AutodiffIntrinsicOp, BindlessAccess, CastOp,
    RayQueryObjectReadOp, RayQueryObjectWriteOp, ResourceQueryOp, ResourceReadOp, ResourceWriteOp,
    ThreadGroupOp,
};
use crate::types::Type;
use crate::value::{BlockId, FuncId, Value};

/// Where the next instruction goes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InsertPoint {
    /// At the end of a block.
    End(BlockId),
    /// Just before an instruction.
    Before(InstId),
}

/// The case labels of `(label, block)` pairs (`switch`, `indexed_branch`).
fn case_labels(cases: &[(u64, BlockId)]) -> Vec<u64> {
    cases.iter().map(|c| c.0).collect()
}

/// `[selector, default, case blocks…]` (`switch`, `indexed_branch`).
fn case_operands(
    selector: Value,
    default: BlockId,
    cases: &[(u64, BlockId)],
) -> impl Iterator<Item = Value> + '_ {
    [selector, default.into()]
        .into_iter()
        .chain(cases.iter().map(|c| Value::Block(c.1)))
}

/// Declares [`InstBuilder`] with one constructor per row of the instruction table
/// (`inst_rows!`), from the row's `build` part (`@ctor` skips the row's other fields).
macro_rules! inst_builder {
    ($($v:ident = $kw:literal $(/ $iname:literal)? { $($row:tt)* }),* $(,)?) => {
        /// Builds instructions at an insertion point. Implementors provide
        /// [`Self::insert`]; every constructor goes through it.
        ///
        /// There is one constructor per instruction kind, declared by the kind's row of
        /// the instruction table ([`crate::inst_table`]): parameters are the payload, the
        /// result type, the operands, then successor and side blocks; kinds that always
        /// have a result return it as a [`Value`], the others (op-dependent results
        /// included) the [`InstId`]. Names are the keyword (`br`, `phi`, `load`), the
        /// kind in snake case (`thread_group`, `autodiff_scope`), `arith` and `ret`, and
        /// `if_`, `loop_`, `break_`, `continue_` where the keyword is Rust's. Constructors
        /// check nothing: the verifier does.
        ///
        /// Plain control flow:
        ///
        /// ```
        /// use xir_ir::edit::{Cursor, InstBuilder};
        /// use xir_ir::{Function, FunctionKind, InstKind, Value};
        /// let mut m = xir_ir::Module::new();
        /// let bool_ty = m.types.bool();
        /// let mut f = Function::new(FunctionKind::Callable, None);
        /// let c = Value::Arg(f.add_arg(xir_ir::ArgKind::Value, bool_ty));
        /// let (entry, a, b) = (f.ensure_body(), f.create_block(), f.create_block());
        /// Cursor::at_end(&mut f, entry).cond_br(c, a, b);
        /// Cursor::at_end(&mut f, a).ret(None);
        /// let i = Cursor::at_end(&mut f, b).unreachable("never");
        /// assert_eq!(f.successors(entry).collect::<Vec<_>>(), vec![a, b]);
        /// let kind = &f.insts[i].kind;
        /// assert!(matches!(kind, InstKind::Unreachable { message } if message == "never"));
        /// ```
        ///
        /// Structured constructs take their blocks, side blocks included:
        ///
        /// ```
        /// use xir_ir::edit::{Cursor, InstBuilder};
        /// use xir_ir::{Function, FunctionKind, InstKind};
        /// let mut f = Function::new(FunctionKind::Callable, None);
        /// let entry = f.ensure_body();
        /// let [prepare, body, update, merge] = std::array::from_fn(|_| f.create_block());
        /// let l = Cursor::at_end(&mut f, entry).loop_(prepare, body, update, merge);
        /// assert_eq!(f.successors(entry).collect::<Vec<_>>(), vec![prepare]);
        /// assert_eq!(f.insts[l].kind.side_blocks().as_slice(), &[body, update, merge]);
        /// assert_eq!(f.insts[l].kind.merge(), Some(merge));
        /// ```
        ///
        /// Values and memory (operands first, the result type with the op):
        ///
        /// ```
        /// use xir_ir::edit::{Cursor, InstBuilder};
        /// use xir_ir::op::{AllocaOp, ArithmeticOp, CastOp};
        /// use xir_ir::{Function, FunctionKind, Value};
        /// let mut m = xir_ir::Module::new();
        /// let (u32_ty, f32_ty) = (m.types.u32(), m.types.f32());
        /// let mut f = Function::new(FunctionKind::Callable, Some(f32_ty));
        /// let a = Value::Arg(f.add_arg(xir_ir::ArgKind::Value, u32_ty));
        /// let entry = f.ensure_body();
        /// let mut b = Cursor::at_end(&mut f, entry);
        /// let slot = b.alloca(AllocaOp::Local, u32_ty);
        /// b.store(slot, a);
        /// let x = b.load(u32_ty, slot);
        /// let y = b.arith(ArithmeticOp::BinaryAdd, u32_ty, &[x, x]);
        /// let z = b.cast(CastOp::StaticCast, f32_ty, y);
        /// b.ret(Some(z));
        /// assert_eq!(f.blocks[entry].insts.len(), 6);
        /// ```
        ///
        /// Phis take their incoming edges as `(value, block)` pairs:
        ///
        /// ```
        /// use xir_ir::edit::{Cursor, InstBuilder};
        /// use xir_ir::{Function, FunctionKind, Value};
        /// let mut m = xir_ir::Module::new();
        /// let u32_ty = m.types.u32();
        /// let zero = Value::Const(m.constant(u32_ty, &0u32.to_le_bytes()));
        /// let one = Value::Const(m.constant(u32_ty, &1u32.to_le_bytes()));
        /// let mut f = Function::new(FunctionKind::Callable, Some(u32_ty));
        /// let (a, b, join) = (f.ensure_body(), f.create_block(), f.create_block());
        /// let p = Cursor::at_end(&mut f, join).phi(u32_ty, &[(zero, a), (one, b)]);
        /// let Value::Inst(p) = p else { unreachable!() };
        /// let edges: Vec<_> = f.insts[p].phi_incoming().collect();
        /// assert_eq!(edges, [(zero, a), (one, b)]);
        /// ```
        pub trait InstBuilder {
            /// Places `data` at the insertion point and returns it.
            fn insert(&mut self, data: InstData) -> InstId;

            /// Inserts an instruction of any kind (for code that already holds the
            /// parts, e.g. a reader or a cloner; prefer the per-kind constructors).
            fn ins(
                &mut self,
                kind: InstKind,
                ty: Option<Type>,
                operands: impl IntoIterator<Item = Value>,
            ) -> InstId
            where
                Self: Sized,
            {
                self.insert(InstData::new(kind, ty, operands))
            }

            $(inst_builder!(@ctor $v $kw $($row)*);)*
        }
    };
    (@ctor $v:ident $kw:literal
        build: fn $ctor:ident($($p:ident: $pt:ty),* $(,)?) -> $ret:ident = $body:expr $(,)?
    ) => {
        #[doc = concat!("`", $kw, "`: an [`InstKind::", stringify!($v), "`].")]
        fn $ctor(&mut self, $($p: $pt),*) -> $ret
        where
            Self: Sized,
        {
            inst_builder!(@ret $ret, self.insert($body))
        }
    };
    (@ctor $v:ident $kw:literal $skip:tt $($rest:tt)*) => {
        inst_builder!(@ctor $v $kw $($rest)*);
    };
    (@ret Value, $i:expr) => { Value::Inst($i) };
    (@ret InstId, $i:expr) => { $i };
}
crate::inst_table::inst_rows!(inst_builder);

/// Builds instructions into a function that no [`Rewriter`](super::Rewriter) is
/// editing (constructing a function from scratch, tests, generators).
///
/// ```
/// use xir_ir::edit::{Cursor, InstBuilder};
/// use xir_ir::{Function, FunctionKind};
/// let mut f = Function::new(FunctionKind::Callable, None);
/// let (entry, exit) = (f.ensure_body(), f.create_block());
/// Cursor::at_end(&mut f, entry).br(exit);
/// Cursor::at_end(&mut f, exit).ret(None);
/// assert_eq!(f.successors(entry).collect::<Vec<_>>(), vec![exit]);
/// ```
pub struct Cursor<'f> {
    /// The function being built.
    pub func: &'f mut Function,
    /// Current insertion point.
    pub at: InsertPoint,
}

impl<'f> Cursor<'f> {
    /// A cursor at the end of `b`.
    pub fn at_end(func: &'f mut Function, b: BlockId) -> Self {
        Self {
            func,
            at: InsertPoint::End(b),
        }
    }
    /// A cursor just before `i`.
    pub fn before(func: &'f mut Function, i: InstId) -> Self {
        Self {
            func,
            at: InsertPoint::Before(i),
        }
    }
}

impl InstBuilder for Cursor<'_> {
    fn insert(&mut self, data: InstData) -> InstId {
        match self.at {
            InsertPoint::End(b) => self.func.append_inst(b, data),
            InsertPoint::Before(i) => self.func.insert_inst_before(i, data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::FunctionKind;
    use crate::inst::InstTag;
    use crate::module::Module;
    use crate::op::Arity;
    use crate::verify::types::expected_count;

    /// An operand count the arity accepts.
    fn count(a: Arity) -> usize {
        match a {
            Arity::Exact(k) | Arity::AtLeast(k) => k as usize,
            Arity::OneOf(ks) => ks[0] as usize,
        }
    }

    /// One instance of `tag` built through its constructor, with the successor and side
    /// blocks it must have (written here by hand, not read from the table).
    fn build_one(
        b: &mut Cursor<'_>,
        tag: InstTag,
        (v, t, callee): (Value, Type, FuncId),
        [x, y, z, w]: [BlockId; 4],
    ) -> (InstId, Vec<BlockId>, Vec<BlockId>) {
        let id = |v: Value| v.as_inst().expect("a result");
        let vs = |n: usize| vec![v; n];
        let none = Vec::new;
        let access = BindlessAccess::default();
        match tag {
            InstTag::If => (b.if_(v, x, y, z), vec![x, y], vec![z]),
            InstTag::Switch => (b.switch(v, x, &[(1, y), (7, z)], w), vec![x, y, z], vec![w]),
            InstTag::Loop => (b.loop_(x, y, z, w), vec![x], vec![y, z, w]),
            InstTag::SimpleLoop => (b.simple_loop(x, y), vec![x], vec![y]),
            InstTag::Branch => (b.br(x), vec![x], none()),
            InstTag::ConditionalBranch => (b.cond_br(v, x, y), vec![x, y], none()),
            InstTag::Unreachable => (b.unreachable("m"), none(), none()),
            InstTag::Break => (b.break_(x), vec![x], none()),
            InstTag::Continue => (b.continue_(y), vec![y], none()),
            InstTag::Return => (b.ret(Some(v)), none(), none()),
            InstTag::RasterDiscard => (b.raster_discard(), none(), none()),
            InstTag::CoroSuspend => {
                let data = CoroSuspendData {
                    token: 3,
                    name: "s".into(),
                    exports: vec!["e".into(), "f".into()],
                    ..Default::default()
                };
                (b.coro_suspend(data, Some(v), &[v, v], &[]), none(), none())
            }
            InstTag::CoroResume => (b.coro_resume(3, Some(v)), none(), none()),
            InstTag::CoroTerminate => (b.coro_terminate(), none(), none()),
            InstTag::Phi => (id(b.phi(t, &[(v, x), (v, y)])), none(), none()),
            InstTag::Alloca => (id(b.alloca(AllocaOp::Local, t)), none(), none()),
            InstTag::Load => (id(b.load(t, v)), none(), none()),
            InstTag::Store => (b.store(v, v), none(), none()),
            InstTag::Gep => (id(b.gep(t, v, &[v, v])), none(), none()),
            InstTag::Atomic => {
                let op = AtomicOp::CompareExchange;
                let i = b.atomic(op, t, v, &[v], &vs(count(op.arity())));
                (id(i), none(), none())
            }
            InstTag::Arithmetic => {
                let op = ArithmeticOp::Fma;
                (id(b.arith(op, t, &vs(count(op.arity())))), none(), none())
            }
            InstTag::ThreadGroup => {
                let op = ThreadGroupOp::WarpActiveMax;
                (
                    b.thread_group(op, Some(t), &vs(count(op.arity()))),
                    none(),
                    none(),
                )
            }
            InstTag::ResourceQuery => {
                let op = ResourceQueryOp::ALL[0];
                let i = b.resource_query(op, access, t, &vs(count(op.arity())));
                (id(i), none(), none())
            }
            InstTag::ResourceRead => {
                let op = ResourceReadOp::ALL[0];
                let i = b.resource_read(op, access, t, &vs(count(op.arity())));
                (id(i), none(), none())
            }
            InstTag::ResourceWrite => {
                let op = ResourceWriteOp::BindlessBufferWrite;
                let i = b.resource_write(op, access, &vs(count(op.arity())));
                (i, none(), none())
            }
            InstTag::RayQueryLoop => (b.ray_query_loop(x, y), vec![x], vec![y]),
            InstTag::RayQueryDispatch => (b.ray_query_dispatch(v, x, y, z), vec![x, y, z], none()),
            InstTag::RayQueryObjectRead => {
                let op = RayQueryObjectReadOp::CommittedHit;
                (id(b.ray_query_object_read(op, t, v)), none(), none())
            }
            InstTag::RayQueryObjectWrite => {
                let op = RayQueryObjectWriteOp::CommitProcedural;
                (b.ray_query_object_write(op, v, Some(v)), none(), none())
            }
            InstTag::RayQueryPipeline => (
                b.ray_query_pipeline(v, callee, callee, &[v]),
                none(),
                none(),
            ),
            InstTag::AutodiffScope => (b.autodiff_scope(x, y, true, 2), vec![x], vec![y]),
            InstTag::AutodiffIntrinsic => {
                let op = AutodiffIntrinsicOp::PropagateGradient;
                let i = b.autodiff_intrinsic(op, None, &vs(count(op.arity())));
                (i, none(), none())
            }
            InstTag::Call => (b.call(Some(t), callee, &[v, v]), none(), none()),
            InstTag::Cast => (id(b.cast(CastOp::BitwiseCast, t, v)), none(), none()),
            InstTag::Print => (b.print("{} {}", &[v, v]), none(), none()),
            InstTag::Clock => (id(b.clock(t)), none(), none()),
            InstTag::DebugBreak => (b.debug_break(Some(9), &[v]), none(), none()),
            InstTag::Assert => (b.assert(v, "a"), none(), none()),
            InstTag::Assume => (b.assume(v, "b"), none(), none()),
            InstTag::Outline => (b.outline(z, w), vec![z], vec![w]),
            InstTag::IndexedBranch => (b.indexed_branch(v, x, &[(3, y)]), vec![x, y], none()),
        }
    }

    /// Every kind's constructor makes an instruction of that kind whose operand count the
    /// table's shape accepts, whose successors are the blocks given as successors and
    /// whose side blocks are the ones given as side blocks.
    #[test]
    fn every_kind_has_a_constructor_that_builds_it() {
        let mut m = Module::new();
        let t = m.types.u32();
        let v = Value::Const(m.constant(t, &5u32.to_le_bytes()));
        let callee = m.add_function(Function::new(FunctionKind::Callable, None));
        let mut f = Function::new(FunctionKind::Callable, None);
        let blocks = [(); 4].map(|_| f.create_block());
        for &tag in InstTag::ALL {
            let home = f.create_block();
            let mut b = Cursor::at_end(&mut f, home);
            let (i, succs, side) = build_one(&mut b, tag, (v, t, callee), blocks);
            let d = &f.insts[i];
            assert_eq!(d.kind.tag(), tag);
            assert_eq!(d.block, Some(home), "{tag:?} placed");
            assert!(expected_count(d).is_ok(), "{tag:?}: operand count");
            assert_eq!(d.successors().collect::<Vec<_>>(), succs, "{tag:?}");
            assert_eq!(d.kind.side_blocks().to_vec(), side, "{tag:?}");
            assert_eq!(d.kind.merge(), side.last().copied(), "{tag:?}: merge");
        }
        // Payloads come through.
        let find = |tag| f.insts.values().find(|d| d.kind.tag() == tag).unwrap();
        match &find(InstTag::Switch).kind {
            InstKind::Switch { labels, .. } => assert_eq!(labels, &[1, 7]),
            k => panic!("{k:?}"),
        }
        match &find(InstTag::CoroSuspend).kind {
            InstKind::CoroSuspend(s) => assert!(s.has_frame && s.token == 3),
            k => panic!("{k:?}"),
        }
        assert_eq!(find(InstTag::Clock).ty, Some(t));
        assert_eq!(find(InstTag::Store).ty, None);
    }
}
