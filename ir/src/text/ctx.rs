//! Parser state shared by the grammar actions: the module under construction, the
//! symbol table of `%…` ids, and per-function bookkeeping.
//!
//! The IR is built directly in the actions. Forward references never need fix-up
//! lists for the common cases: the first reference to an unknown id in a block
//! position creates the (still empty) block, in a callee position a placeholder
//! function, and in any other operand position a placeholder instruction; the later
//! definition fills the placeholder in. What is still undefined when the function (or
//! the module) ends is reported at its first use. Undefined values whose type is not
//! declared are patched after the whole module is read (see `resolve.rs`).

use super::lexer::{Progress, ValRef};
use crate::diag::{Diagnostic, Span};
use crate::entity::EntityRef;
use crate::function::{BlockData, Function, FunctionKind};
use crate::inst::{InstData, InstId, InstKind};
use crate::module::Module;
use crate::source_map::SourceMap;
use crate::types::Type;
use crate::value::{ArgId, BlockId, ConstId, FuncId, SpecialRegister, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// Errors reported before the parser gives up.
pub const MAX_ERRORS: usize = 100;

/// First block-id value used to encode a not-yet-typed undefined value in an operand.
pub(crate) const UNDEF_PLACEHOLDER_BASE: u32 = 0x8000_0000;
/// Block id used for operands whose parse failed (never indexed).
const ERR_BLOCK: u32 = 0xFFFF_FFF0;

/// The operand used where a value could not be resolved (an error is already reported).
pub(crate) fn err_value() -> Value {
    Value::Block(BlockId::new(ERR_BLOCK as usize))
}

/// The placeholder operand for undefined value number `k` of [`Ctx::undefs`].
pub(crate) fn undef_placeholder(k: u32) -> Value {
    Value::Block(BlockId::new((UNDEF_PLACEHOLDER_BASE + k) as usize))
}

/// Decodes an [`undef_placeholder`].
pub(crate) fn as_undef_placeholder(v: Value) -> Option<u32> {
    match v {
        Value::Block(b) => {
            let i = b.index() as u32;
            (UNDEF_PLACEHOLDER_BASE..ERR_BLOCK)
                .contains(&i)
                .then(|| i - UNDEF_PLACEHOLDER_BASE)
        }
        _ => None,
    }
}

/// A `%…` label: a number or a symbolic name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Key<'s> {
    /// `%N`.
    Num(u32),
    /// `%name`.
    Name(&'s str),
}

/// What a label is bound to.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Slot {
    /// Nothing yet.
    #[default]
    Empty,
    /// A function (possibly a placeholder created by a forward call).
    Func(FuncId),
    /// A constant.
    Const(ConstId),
    /// A special register.
    Special(SpecialRegister),
    /// An undefined value (index into [`Ctx::undefs`]).
    Undef(u32),
    /// An instruction of a function (a placeholder until placed in a block).
    Inst(FuncId, InstId),
    /// A block of a function.
    Block(FuncId, BlockId),
    /// An argument of a function.
    Arg(FuncId, ArgId),
}

/// The label table: a dense vector for the (usually dense) numeric ids, a hash map for
/// sparse numbers and for symbolic names.
#[derive(Default)]
pub struct SymTab<'s> {
    dense: Vec<Slot>,
    sparse: FxHashMap<u32, Slot>,
    names: FxHashMap<&'s str, Slot>,
    count: usize,
}

impl<'s> SymTab<'s> {
    /// The binding of `%n` when the dense part holds it.
    #[inline]
    pub fn get_dense(&self, n: u32) -> Option<Slot> {
        self.dense.get(n as usize).copied()
    }

    /// The binding of `k`.
    #[inline]
    pub fn get(&self, k: Key<'s>) -> Slot {
        if let Key::Num(n) = k
            && let Some(s) = self.dense.get(n as usize)
        {
            return *s;
        }
        self.get_outside_dense(k)
    }

    /// [`Self::get`] for a key the dense part does not hold.
    #[inline(never)]
    fn get_outside_dense(&self, k: Key<'s>) -> Slot {
        match k {
            Key::Num(n) => self.sparse.get(&n).copied().unwrap_or_default(),
            Key::Name(s) => self.names.get(s).copied().unwrap_or_default(),
        }
    }

    /// Binds `k`.
    #[inline]
    pub fn set(&mut self, k: Key<'s>, slot: Slot) {
        if let Key::Num(n) = k
            && let Some(s) = self.dense.get_mut(n as usize)
        {
            *s = slot;
            return;
        }
        self.set_outside_dense(k, slot);
    }

    /// [`Self::set`] for a key the dense part does not hold (yet).
    #[inline(never)]
    fn set_outside_dense(&mut self, k: Key<'s>, slot: Slot) {
        self.count += 1;
        match k {
            Key::Num(n) => {
                let n = n as usize;
                if n <= 2 * (self.count + self.dense.len()) + 4096 {
                    // Grow the dense part; move sparse entries that now fall inside it.
                    let new_len = (n + 1).max(self.dense.len() * 3 / 2);
                    self.dense.resize(new_len, Slot::Empty);
                    if !self.sparse.is_empty() {
                        let moved: Vec<u32> = self
                            .sparse
                            .keys()
                            .copied()
                            .filter(|k| (*k as usize) < new_len)
                            .collect();
                        for k in moved {
                            if let Some(s) = self.sparse.remove(&k) {
                                self.dense[k as usize] = s;
                            }
                        }
                    }
                    self.dense[n] = slot;
                } else {
                    self.sparse.insert(n as u32, slot);
                }
            }
            Key::Name(s) => {
                self.names.insert(s, slot);
            }
        }
    }
}

/// A type as written: `void`, a type, or one that failed to resolve (already reported).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// `void`.
    Void,
    /// A type.
    T(Type),
    /// Error already reported.
    Err,
}

/// A block operand: a block, `null` (`block == None && ok`), or an error.
#[derive(Copy, Clone, Debug)]
pub struct BArg {
    /// The block.
    pub block: Option<BlockId>,
    /// Where it was written.
    pub span: Span,
    /// False when an error was already reported.
    pub ok: bool,
}

/// An opened nested block: the block and the block to return to at its `}`.
#[derive(Copy, Clone, Debug)]
pub struct Open {
    /// The opened block.
    pub block: Option<BlockId>,
    /// The enclosing block.
    pub parent: Option<BlockId>,
    /// Label span.
    pub span: Span,
}

/// `%N: T =` of an instruction.
#[derive(Copy, Clone, Debug)]
pub struct Head<'s> {
    /// The id as written.
    pub id: ValRef<'s>,
    /// Span of the id.
    pub id_span: Span,
    /// Result type.
    pub ty: Ty,
}

/// An instruction body: kind and operands (`None` kind = error already reported).
pub struct Body {
    /// Kind.
    pub kind: Option<InstKind>,
    /// Operands.
    pub ops: smallvec::SmallVec<[Value; 3]>,
}

impl Body {
    /// A body with the operands `ops` (written as an array).
    #[inline]
    pub fn new<const N: usize>(kind: InstKind, ops: [Value; N]) -> Self {
        Self {
            kind: Some(kind),
            ops: ops_from(&ops),
        }
    }
    /// A body with an operand list built elsewhere.
    pub fn with_ops(kind: InstKind, ops: smallvec::SmallVec<[Value; 3]>) -> Self {
        Self {
            kind: Some(kind),
            ops,
        }
    }
    /// A failed body.
    pub fn err() -> Self {
        Self {
            kind: None,
            ops: Default::default(),
        }
    }
}

/// An operand list holding `vals`: up to three inline without a loop.
#[inline]
pub fn ops_from(vals: &[Value]) -> smallvec::SmallVec<[Value; 3]> {
    if vals.len() <= 3 {
        let mut buf = [err_value(); 3];
        buf[..vals.len()].copy_from_slice(vals);
        return smallvec::SmallVec::from_buf_and_len(buf, vals.len());
    }
    smallvec::SmallVec::from_slice(vals)
}

/// Arguments of one generic type.
pub type TArgList<'s> = smallvec::SmallVec<[super::tyres::TArg<'s>; 3]>;

/// What statement the parser is in (for "expected ';' after …" messages).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// Between statements.
    None,
    /// After `%N: T =`.
    Inst,
    /// After an argument's type.
    Arg,
    /// In a constant.
    Const,
    /// In a type declaration.
    TypeDecl,
    /// In a function header or after a function body.
    Function,
}

/// An undefined value as written in the text.
pub struct UndefInfo {
    /// Declared or inferred model value.
    pub resolved: Option<crate::value::UndefId>,
    /// The spelling (`%N.undefined`), for messages.
    pub name: String,
    /// Declaration or first-use span.
    pub span: Span,
}

/// One operand that still holds an [`undef_placeholder`].
#[derive(Copy, Clone, Debug)]
pub struct UndefUse {
    /// Function.
    pub func: FuncId,
    /// Instruction.
    pub inst: InstId,
    /// Operand index.
    pub index: u32,
    /// Undefined value index.
    pub undef: u32,
    /// Text position of the instruction (uses are ordered by it).
    pub pos: u32,
}

/// A switch whose labels wait for the selector type (known at function end).
pub struct SwitchFix {
    /// The switch.
    pub inst: InstId,
    /// Labels as written, with spans.
    pub labels: Vec<(i128, Span)>,
}

/// Bookkeeping of the function being parsed.
pub struct FuncState<'s> {
    /// The function.
    pub id: FuncId,
    /// Placeholder instructions created by forward references: (inst, label, first use).
    pub pending_insts: Vec<(InstId, Key<'s>, Span)>,
    /// Blocks referenced before their definition: (block, first use).
    pub pending_blocks: Vec<(BlockId, Span)>,
    /// Which blocks have a definition (label) already.
    pub block_defined: Vec<bool>,
    /// Switch labels to canonicalise.
    pub switch_fixes: Vec<SwitchFix>,
    /// Whether the body block was set.
    pub body_set: bool,
    /// Every placed instruction with its block, in placement order. The blocks'
    /// instruction lists are filled from it when the function ends (nothing reads them
    /// before), each allocated once at its final length instead of growing.
    pub placed: Vec<(BlockId, InstId)>,
}

/// A forward reference left open at the end of its function (a function defined later,
/// or an error).
pub struct GlobalPending<'s> {
    /// Function holding the placeholder.
    pub func: FuncId,
    /// The placeholder instruction.
    pub inst: InstId,
    /// The label.
    pub key: Key<'s>,
    /// First use.
    pub span: Span,
}

/// Everything the grammar actions share.
pub struct Ctx<'s> {
    /// Source text.
    pub src: &'s str,
    /// The module being built.
    pub module: Module,
    /// Spans of what was built.
    pub map: SourceMap,
    /// Diagnostics so far.
    pub diags: Vec<Diagnostic>,
    /// Labels.
    pub syms: SymTab<'s>,
    /// Declared type names.
    pub tnames: FxHashMap<&'s str, (Type, Span)>,
    /// Size and alignment of every interned type (by type index).
    pub layouts: Vec<(u64, u64)>,
    /// The function being parsed.
    pub func: Option<FuncState<'s>>,
    /// The block receiving instructions.
    pub cur_block: Option<BlockId>,
    /// Undefined values written in the text.
    pub undefs: Vec<UndefInfo>,
    /// Operands still holding undefined-value placeholders.
    pub undef_uses: Vec<UndefUse>,
    /// Number of [`Ctx::undefs`] without a model value yet.
    pub unresolved_undefs: usize,
    /// Forward references left open at function ends.
    pub global_pending: Vec<GlobalPending<'s>>,
    /// Placeholder functions created by forward calls: (function, label, first use).
    pub pending_funcs: Vec<(FuncId, Key<'s>, Span)>,
    /// Which functions have a definition (header) already.
    pub func_defined: Vec<bool>,
    /// Labels that appeared in text skipped by error recovery.
    pub poisoned: FxHashSet<Key<'s>>,
    /// Whether `module;` was seen.
    pub seen_header: bool,
    /// Current statement kind.
    pub stmt: Stmt,
    /// Progress ticks (read by the token stream's recovery guard).
    pub progress: Rc<Progress>,
    /// Syntax errors so far.
    pub syntax_errors: usize,
    /// End of the last error-suppression window (byte offset).
    pub suppress_until: usize,
    /// Case labels of the switch being built (consumed by `finish_inst`).
    pub pending_labels: Option<Vec<(i128, Span)>>,
    /// The body of the instruction being built (set by the `Body` action).
    pub body: Option<Body>,
    /// Operand list being accumulated.
    pub ops: smallvec::SmallVec<[Value; 3]>,
    /// Generic type arguments being accumulated (a stack: types nest).
    pub targs: Vec<super::tyres::TArg<'s>>,
    /// Interned scalar types by kind (fast path for type names).
    pub scalar_cache: [Option<Type>; 16],
    /// `special` declarations seen (register, span).
    pub special_decls: Vec<(SpecialRegister, Span)>,
    /// Switches whose labels are canonicalised at the end of the module.
    pub switch_fixes: Vec<(FuncId, SwitchFix)>,
    /// The emptied [`FuncState::placed`] of the last function, reused by the next.
    pub placed_spare: Vec<(BlockId, InstId)>,
    /// Arena lengths of the last function ended with instructions (a capacity guess for
    /// the next).
    pub last_sizes: FuncSizes,
}

/// How many instructions and blocks a function's arenas hold.
#[derive(Copy, Clone, Debug, Default)]
pub struct FuncSizes {
    /// Instruction-arena length.
    pub insts: usize,
    /// Block-arena length.
    pub blocks: usize,
}

impl<'s> Ctx<'s> {
    /// A fresh context for `src`.
    pub fn new(src: &'s str, progress: Rc<Progress>) -> Self {
        Self {
            src,
            module: Module::new(),
            map: SourceMap::default(),
            diags: Vec::new(),
            syms: SymTab::default(),
            tnames: FxHashMap::default(),
            layouts: Vec::new(),
            func: None,
            cur_block: None,
            undefs: Vec::new(),
            undef_uses: Vec::new(),
            unresolved_undefs: 0,
            global_pending: Vec::new(),
            pending_funcs: Vec::new(),
            func_defined: Vec::new(),
            poisoned: FxHashSet::default(),
            seen_header: false,
            stmt: Stmt::None,
            progress,
            syntax_errors: 0,
            suppress_until: 0,
            pending_labels: None,
            switch_fixes: Vec::new(),
            special_decls: Vec::new(),
            body: None,
            ops: smallvec::SmallVec::new(),
            targs: Vec::new(),
            scalar_cache: [None; 16],
            placed_spare: Vec::new(),
            last_sizes: FuncSizes::default(),
        }
    }

    /// Records progress for the recovery guard.
    #[inline]
    pub fn tick(&self) {
        self.progress.tick();
    }

    /// Reports an error.
    pub fn error(&mut self, msg: impl Into<String>, span: Span) {
        self.push(Diagnostic::error(msg, Some(span)));
    }

    /// Reports a prepared diagnostic (parsing stops after [`MAX_ERRORS`]).
    pub fn push(&mut self, d: Diagnostic) {
        if self.diags.len() >= MAX_ERRORS {
            self.progress.stop.set(true);
            return;
        }
        self.diags.push(d);
    }

    /// The source text of `span`.
    pub fn text(&self, span: Span) -> &'s str {
        self.src.get(span.range()).unwrap_or("")
    }

    /// The label and optional decoration of a value reference.
    #[inline]
    pub fn split_ref(v: ValRef<'s>) -> (Key<'s>, Option<&'s str>) {
        match v {
            ValRef::Num(n) => (Key::Num(n), None),
            ValRef::Name(s) => (Key::Name(s), None),
            ValRef::Decorated(s) => Self::split_decorated(s),
        }
    }

    /// [`Self::split_ref`] of `%base.suffix`.
    #[inline(never)]
    fn split_decorated(s: &'s str) -> (Key<'s>, Option<&'s str>) {
        let (base, suffix) = s.split_once('.').unwrap_or((s, ""));
        let key = match base.parse::<u32>() {
            Ok(n) if base.as_bytes()[0].is_ascii_digit() => Key::Num(n),
            _ => Key::Name(base),
        };
        (key, Some(suffix))
    }

    /// The current function id (only called inside functions).
    #[inline]
    pub fn fid(&self) -> Option<FuncId> {
        self.func.as_ref().map(|f| f.id)
    }

    /// Reports `redefinition of %x`, pointing at the previous definition when known.
    pub fn redefinition(&mut self, span: Span, prev: Option<Span>) {
        let mut d = Diagnostic::error(format!("redefinition of {}", self.text(span)), Some(span))
            .with_label("defined again here");
        if let Some(p) = prev {
            d = d.with_secondary(p, "previous definition here");
        }
        self.push(d);
    }

    /// The span of whatever `slot` names, when known.
    pub fn slot_span(&self, slot: Slot) -> Option<Span> {
        match slot {
            Slot::Const(c) => self.map.constant(c),
            Slot::Func(f) => self.map.func(f),
            Slot::Inst(f, i) => self.map.inst(f, i),
            Slot::Block(f, b) => self.map.block(f, b),
            Slot::Arg(f, a) => self.map.arg(f, a),
            Slot::Undef(k) => self.undefs.get(k as usize).map(|u| u.span),
            Slot::Special(_) | Slot::Empty => None,
        }
    }

    /// Whether `slot` is local to a function other than the current one (a new scope).
    pub fn foreign(&self, slot: Slot) -> bool {
        let cur = self.fid();
        match slot {
            Slot::Inst(f, _) | Slot::Block(f, _) | Slot::Arg(f, _) => Some(f) != cur,
            _ => false,
        }
    }

    // ----- uses --------------------------------------------------------------------

    /// Resolves an operand in a generic (non-block, non-callee) position.
    #[inline]
    pub fn use_value(&mut self, v: (ValRef<'s>, Span)) -> Value {
        self.tick();
        // The common case, a `%N` of this function or a constant, without a call.
        if let ValRef::Num(n) = v.0
            && let Some(slot) = self.syms.get_dense(n)
        {
            let cur = self.fid();
            match slot {
                Slot::Inst(f, i) if Some(f) == cur => return Value::Inst(i),
                Slot::Arg(f, a) if Some(f) == cur => return Value::Arg(a),
                Slot::Const(c) => return Value::Const(c),
                _ => {}
            }
        }
        self.use_value_general(v)
    }

    /// [`Self::use_value`] for every case (its inline part handles the common ones).
    #[inline(never)]
    fn use_value_general(&mut self, v: (ValRef<'s>, Span)) -> Value {
        let (key, deco) = Self::split_ref(v.0);
        if let Some(d) = deco {
            return self.use_decorated(key, d, v.1);
        }
        let slot = self.syms.get(key);
        match slot {
            Slot::Inst(f, i) if Some(f) == self.fid() => Value::Inst(i),
            Slot::Arg(f, a) if Some(f) == self.fid() => Value::Arg(a),
            Slot::Block(f, b) if Some(f) == self.fid() => Value::Block(b),
            Slot::Const(c) => Value::Const(c),
            Slot::Func(f) => Value::Func(f),
            Slot::Special(r) => Value::Special(r),
            Slot::Undef(k) => self.undef_value(k),
            _ => self.forward_inst(key, v.1),
        }
    }

    fn undef_value(&self, k: u32) -> Value {
        match self.undefs[k as usize].resolved {
            Some(u) => Value::Undef(u),
            None => undef_placeholder(k),
        }
    }

    /// A placeholder instruction for a forward reference in the current function.
    fn forward_inst(&mut self, key: Key<'s>, span: Span) -> Value {
        let Some(fs) = self.func.as_mut() else {
            self.error(format!("use of undefined value {}", self.text(span)), span);
            return err_value();
        };
        let f = fs.id;
        let i = self.module.functions[f]
            .insts
            .push(InstData::new(InstKind::Clock, None, []));
        fs.pending_insts.push((i, key, span));
        self.syms.set(key, Slot::Inst(f, i));
        Value::Inst(i)
    }

    /// `%N.undefined` or `%N.<special register>`.
    fn use_decorated(&mut self, key: Key<'s>, deco: &'s str, span: Span) -> Value {
        let slot = self.syms.get(key);
        if deco == "undefined" {
            return match slot {
                Slot::Undef(k) => self.undef_value(k),
                s if s == Slot::Empty || self.foreign(s) => {
                    let k = self.new_undef(key, span, None);
                    self.undef_value(k)
                }
                s => self.kind_clash(span, s, "an undefined value"),
            };
        }
        let Some(r) = SpecialRegister::from_name(deco) else {
            let mut d = Diagnostic::error(format!("unknown special register '{deco}'"), Some(span));
            let names = SpecialRegister::ALL.iter().map(|r| r.name());
            if let Some(s) = super::syntax::suggest(deco, names) {
                d = d.with_help(format!("did you mean '{s}'?"));
            }
            self.push(d);
            return err_value();
        };
        match slot {
            Slot::Special(x) if x == r => Value::Special(r),
            s if s == Slot::Empty || self.foreign(s) => {
                self.module.special_register_type(r);
                let v = self.module.special(r);
                self.syms.set(key, Slot::Special(r));
                v
            }
            s => self.kind_clash(span, s, &format!("special register {}", r.name())),
        }
    }

    /// Registers a new undefined value (optionally with a declared type).
    pub fn new_undef(&mut self, key: Key<'s>, span: Span, ty: Option<Type>) -> u32 {
        let k = self.undefs.len() as u32;
        let resolved = ty.map(|t| self.module.undef(t));
        if let Some(u) = resolved {
            self.map.undefs.set(u, span);
        } else {
            self.unresolved_undefs += 1;
        }
        let name = self.text(span).to_string();
        self.undefs.push(UndefInfo {
            resolved,
            name,
            span,
        });
        self.syms.set(key, Slot::Undef(k));
        k
    }

    fn kind_clash(&mut self, span: Span, prev: Slot, wanted: &str) -> Value {
        let what = match prev {
            Slot::Func(_) => "a function",
            Slot::Const(_) => "a constant",
            Slot::Special(_) => "a special register",
            Slot::Undef(_) => "an undefined value",
            Slot::Inst(..) => "an instruction",
            Slot::Block(..) => "a block",
            Slot::Arg(..) => "an argument",
            Slot::Empty => "undefined",
        };
        let mut d = Diagnostic::error(
            format!("{} is {what}, not {wanted}", self.text(span)),
            Some(span),
        );
        if let Some(p) = self.slot_span(prev) {
            d = d.with_secondary(p, "defined here");
        }
        self.push(d);
        err_value()
    }

    /// Resolves a callee (a function, possibly defined later).
    pub fn use_func(&mut self, v: (ValRef<'s>, Span)) -> Value {
        self.tick();
        let (key, deco) = Self::split_ref(v.0);
        if deco.is_some() {
            return self.use_value(v);
        }
        let slot = self.syms.get(key);
        match slot {
            Slot::Func(f) => Value::Func(f),
            s if s == Slot::Empty || self.foreign(s) => {
                let f = self
                    .module
                    .functions
                    .push(Function::new(FunctionKind::External, None));
                self.func_defined.resize(self.module.functions.len(), false);
                self.pending_funcs.push((f, key, v.1));
                self.syms.set(key, Slot::Func(f));
                Value::Func(f)
            }
            Slot::Inst(_, i)
                if self.func.as_ref().is_some_and(|fs| {
                    fs.pending_insts.iter().any(|p| p.0 == i)
                        && self.module.functions[fs.id].insts[i].block.is_none()
                }) =>
            {
                // Used as a plain operand first; the end of the module decides.
                Value::Inst(i)
            }
            s => self.kind_clash(v.1, s, "a function"),
        }
    }

    /// Resolves a block operand (creating the block on a forward reference).
    pub fn block_ref(&mut self, v: (ValRef<'s>, Span)) -> BArg {
        self.tick();
        let (key, deco) = Self::split_ref(v.0);
        let bad = BArg {
            block: None,
            span: v.1,
            ok: false,
        };
        let Some(fid) = self.fid() else {
            return bad;
        };
        if deco.is_some() {
            self.error(format!("{} is not a block", self.text(v.1)), v.1);
            return bad;
        }
        let slot = self.syms.get(key);
        let block = match slot {
            Slot::Block(f, b) if f == fid => b,
            s if s == Slot::Empty || self.foreign(s) => {
                let b = self.new_block(key);
                if let Some(fs) = self.func.as_mut() {
                    fs.pending_blocks.push((b, v.1));
                }
                b
            }
            s => {
                self.kind_clash(v.1, s, "a block");
                return bad;
            }
        };
        BArg {
            block: Some(block),
            span: v.1,
            ok: true,
        }
    }

    pub fn new_block(&mut self, key: Key<'s>) -> BlockId {
        let fs = self.func.as_mut().expect("inside a function");
        let b = self.module.functions[fs.id]
            .blocks
            .push(BlockData::default());
        fs.block_defined.push(false);
        self.syms.set(key, Slot::Block(fs.id, b));
        b
    }

    /// `null` in a block position.
    pub fn null_block(&self, span: Span) -> BArg {
        BArg {
            block: None,
            span,
            ok: true,
        }
    }
}
