//! The xir2text printer: upstream's nested and flat forms byte for byte, plus the
//! lossless extensions of `docs/text-format.md` (each printed only when needed).
//!
//! Output is assembled like upstream's: a *prelude* (module metadata, `module;`, type
//! declarations appended at first use, constants, and xir's `undef`/`special`
//! declarations) followed by *main* (the functions). Blocks and instructions are printed
//! by a small work-stack machine ([`Work`]) instead of recursion, so nesting depth only
//! costs heap memory; flat instructions (the vast majority) are written straight into
//! main, only structured ones go through the stack. Values are numbered at the moment
//! their text is produced, which reproduces upstream's lazy numbering exactly.
//!
//! Text is written with `push_str` of `&'static str` pieces and `itoa` digits into one
//! reserved buffer (no `fmt` machinery on the hot path); type spellings are cached per
//! type (`print_types.rs`). [`print_module_to`](super::print_stream::print_module_to)
//! streams the same text per function.

use super::debug_info::UserMap;
use super::escape::{is_identifier, write_escaped};
use super::numbering::{self, Key, Namer};
use super::print_inst::{is_structured, structured_body};
use super::print_stream::PreludeWatch;
use crate::entity::EntityRef;
use crate::function::FunctionKind;
use crate::inst::{InstData, InstId, InstKind};
use crate::metadata::Metadata;
use crate::module::Module;
use crate::types::Type;
use crate::value::{BlockId, FuncId, SpecialRegister, UndefId, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt::Write as _;
use std::io;

pub use super::numbering::IdStyle;

/// The deepest nesting level that is indented further: blocks nested deeper than this
/// print at 4 × `MAX_INDENT_DEPTH` (128) columns (`docs/text-format.md`).
pub const MAX_INDENT_DEPTH: usize = 32;

/// Printer options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Flat form: every block a top-level label (`define {`), children as references.
    pub flat: bool,
    /// Debug-info comments: `// users:`, `// preds:` and the `// CFG = {…}` line.
    pub debug_info: bool,
    /// How value ids are spelled.
    pub ids: IdStyle,
}

/// Prints `m` in xir2text syntax.
pub fn print_module(m: &Module, opts: &PrintOptions) -> String {
    let mut p = Printer::for_module(m, opts);
    // Room for the whole text up front (about 65-70 bytes per instruction in practice):
    // growing by doubling would copy it over and over. Pages never written are never
    // touched, so a generous guess costs no memory. (Arena sizes, not `inst_count`: a
    // malformed module may list bad functions.)
    let insts: usize = m.functions.values().map(|f| f.insts.len()).sum();
    p.main
        .reserve(insts.saturating_mul(80).saturating_add(4096));
    // Writing into main cannot fail.
    let _ = p.module(&mut Target::Text);
    // The prelude is in front of main already unless it grew until the end; then it
    // goes there in place: no second copy of the (large) text.
    let mut out = std::mem::take(&mut p.main);
    if !p.prelude.is_empty() {
        out.insert_str(0, &p.prelude);
    }
    out
}

/// The ids printing `m` under `opts` shows (for diagnostics that name entities the way
/// the printed text does); the text itself is dropped function by function.
pub(crate) fn printed_ids(m: &Module, opts: &PrintOptions) -> Namer {
    let mut p = Printer::new(m, opts);
    let _ = p.module(&mut Target::Discard);
    p.namer
}

/// The label the default printer gives each block in `blocks` of function `f` (`%12`),
/// for pass diagnostics that name blocks of a module they leave unchanged; `None` for a
/// block the printed text would not show.
pub fn printed_block_labels(
    m: &Module,
    f: crate::FuncId,
    blocks: &[crate::BlockId],
) -> Vec<Option<String>> {
    let namer = printed_ids(m, &PrintOptions::default());
    blocks
        .iter()
        .map(|b| namer.spelled(crate::text::numbering::Key::Block(f, *b)))
        .collect()
}

/// Where [`Printer::module`] puts the text of main.
pub(crate) enum Target<'w> {
    /// Everything stays in main, which gets the prelude in front as soon as that is
    /// final (see [`PreludeWatch`]; the caller puts it there if it never was).
    Text,
    /// Each function's text goes to the writer once the prelude is final (see
    /// [`PreludeWatch`]); until then main keeps it.
    Stream(&'w mut dyn io::Write),
    /// Each function's text is dropped (a pass run for its side results).
    Discard,
}

/// One step of the block/instruction machine.
pub(crate) enum Work {
    /// Literal text.
    Text(&'static str),
    /// Computed text.
    Str(String),
    /// An operand (with the instruction and operand index, for undefined-value typing).
    Val(Value, Option<(InstId, u32)>),
    /// A structured child block: inline at this depth in nested form if not printed yet,
    /// otherwise (and always in flat form) a reference; `None` prints `null`.
    Slot(Option<Value>, usize),
    /// A block reference (`null` for `None`).
    Ref(Option<Value>),
    /// The instructions of a block from an index on, at a depth.
    Insts(BlockId, usize, usize),
    /// Indentation and `}` closing a nested block.
    Close(usize),
    /// Debug info: `// users: …` of a value.
    Users(Value),
    /// A top-level block, printed if not printed yet.
    TopBlock(BlockId),
    /// The extra blocks upstream's traversal misses (docs §4.5).
    Extras,
}

/// Printer state.
pub(crate) struct Printer<'m> {
    pub(crate) m: &'m Module,
    pub(crate) opts: PrintOptions,
    pub(crate) prelude: String,
    pub(crate) main: String,
    pub(crate) namer: Namer,
    /// The name number of each struct and opaque type declared so far.
    pub(crate) type_names: FxHashMap<Type, u32>,
    /// The spelling of each type printed so far, by type index (fixed once a type has
    /// been spelled: struct and opaque names are assigned at first use).
    pub(crate) type_text: Vec<Option<Box<str>>>,
    pub(crate) users: UserMap,
    /// The function being printed.
    pub(crate) cur: FuncId,
    emitted: BlockSet,
    /// Every block printed so far, in text order.
    block_text_order: Vec<(FuncId, BlockId)>,
    /// Whether to record `block_text_order` (only the debug-info first pass needs it).
    record_order: bool,
    referenced: Vec<BlockId>,
    owned_cursor: usize,
    ref_cursor: usize,
    stack: Vec<Work>,
    /// Scratch list for one instruction's body (reused).
    body: Vec<Work>,
}

/// The blocks of the current function printed so far: a bit per arena slot, a hash set
/// for out-of-range handles (invalid modules).
#[derive(Default)]
struct BlockSet {
    dense: Vec<bool>,
    extra: FxHashSet<BlockId>,
}

impl BlockSet {
    fn reset(&mut self, n: usize) {
        self.dense.clear();
        self.dense.resize(n, false);
        self.extra.clear();
    }
    #[inline]
    fn contains(&self, b: &BlockId) -> bool {
        match self.dense.get(b.index()) {
            Some(x) => *x,
            None => self.extra.contains(b),
        }
    }
    #[inline]
    fn insert(&mut self, b: BlockId) {
        match self.dense.get_mut(b.index()) {
            Some(x) => *x = true,
            None => {
                self.extra.insert(b);
            }
        }
    }
}

impl<'m> Printer<'m> {
    /// A printer for `m` that is ready to print: in debug-info mode, a first pass
    /// (text dropped) finds the users of every value in text order, which a reader
    /// reproduces (the owned block order is not in the text).
    pub(crate) fn for_module(m: &'m Module, opts: &PrintOptions) -> Self {
        let mut p = Printer::new(m, opts);
        if opts.debug_info {
            let plain = PrintOptions {
                debug_info: false,
                ..opts.clone()
            };
            let mut first = Printer::new(m, &plain);
            first.record_order = true;
            let _ = first.module(&mut Target::Discard);
            p.users = UserMap::build(m, &first.block_text_order);
        }
        p
    }

    fn new(m: &'m Module, opts: &PrintOptions) -> Self {
        Self {
            m,
            opts: opts.clone(),
            prelude: String::new(),
            main: String::new(),
            namer: Namer::new(opts.ids),
            type_names: FxHashMap::default(),
            type_text: Vec::new(),
            users: UserMap::default(),
            cur: FuncId::new(0),
            emitted: BlockSet::default(),
            block_text_order: Vec::new(),
            record_order: false,
            referenced: Vec::new(),
            owned_cursor: 0,
            ref_cursor: 0,
            stack: Vec::new(),
            body: Vec::new(),
        }
    }

    /// Prints the module: the prelude into `prelude`, main as `target` says. Only a
    /// stream can fail.
    pub(crate) fn module(&mut self, target: &mut Target<'_>) -> io::Result<()> {
        let m = self.m;
        self.namer.pre_pass(m);
        self.type_text.resize(m.types.len(), None);
        if !m.metadata.is_empty() {
            write_mdlist(&mut self.prelude, &m.metadata);
            self.prelude.push('\n');
        }
        self.prelude.push_str("module;\n\n");
        for c in m.live_constants() {
            self.constant(c);
        }
        let mut watch = match target {
            Target::Discard => None,
            _ => Some(PreludeWatch::new(m)),
        };
        for &f in &m.func_order {
            self.function(f);
            if let Some(pending) = &mut watch
                && pending.is_final(self)
            {
                watch = None;
                self.prelude_is_final(target)?;
            }
            match target {
                Target::Discard => self.main.clear(),
                Target::Stream(w) if watch.is_none() => {
                    w.write_all(self.main.as_bytes())?;
                    self.main.clear();
                }
                _ => {}
            }
        }
        // Undefined values and special registers that never appeared (docs §4.3, §4.4).
        for u in m.live_undefs() {
            if !self.namer.is_seen(Key::Undef(u)) {
                self.namer.uid(Key::Undef(u));
                self.declare_undef(u);
            }
        }
        for (r, _) in &m.special_registers {
            if !self.namer.is_seen(Key::Special(*r)) {
                self.namer.uid(Key::Special(*r));
                self.declare_special(*r);
            }
        }
        if let Target::Stream(w) = target {
            // The prelude is empty here if it was written already.
            w.write_all(self.prelude.as_bytes())?;
            w.write_all(self.main.as_bytes())?;
            self.prelude.clear();
            self.main.clear();
        }
        Ok(())
    }

    /// Nothing more can be added to the prelude: a stream gets it now; text puts it in
    /// front of main now, while main is short (instead of moving all of main at the
    /// end). Either way `prelude` is left empty.
    fn prelude_is_final(&mut self, target: &mut Target<'_>) -> io::Result<()> {
        match target {
            Target::Stream(w) => w.write_all(self.prelude.as_bytes())?,
            Target::Text => {
                let len = self.prelude.len() + self.main.len();
                let mut text = String::with_capacity(self.main.capacity().max(len));
                text.push_str(&self.prelude);
                text.push_str(&self.main);
                self.main = text;
            }
            Target::Discard => {}
        }
        self.prelude = String::new();
        Ok(())
    }

    fn constant(&mut self, c: crate::value::ConstId) {
        let Some(data) = self.m.constants.get(c) else {
            return;
        };
        let t = self.type_ident(Some(data.ty));
        let mut v = String::new();
        self.namer.write(&mut v, Key::Const(c));
        if !data.metadata.is_empty() {
            write_mdlist(&mut self.prelude, &data.metadata);
            self.prelude.push('\n');
        }
        let p = &mut self.prelude;
        let _ = write!(p, "const {v}: {t} = ");
        for b in data.bytes.iter() {
            let _ = write!(p, "{b:02x}");
        }
        p.push(';');
        self.users_comment(true, Key::Const(c));
        self.prelude.push_str("\n\n");
    }

    fn function(&mut self, fid: FuncId) {
        let m = self.m;
        let Some(f) = m.functions.get(fid) else {
            return;
        };
        self.cur = fid;
        self.emitted.reset(f.blocks.len());
        self.referenced.clear();
        self.owned_cursor = 0;
        self.ref_cursor = 0;
        if !f.metadata.is_empty() {
            write_mdlist(&mut self.main, &f.metadata);
            self.main.push('\n');
        }
        self.main.push_str(f.kind.keyword());
        self.main.push(' ');
        self.namer.write(&mut self.main, Key::Func(fid));
        match f.kind {
            FunctionKind::Kernel { block_size } => {
                if block_size != FunctionKind::DEFAULT_BLOCK_SIZE {
                    let [x, y, z] = block_size;
                    let _ = write!(self.main, " block_size({x}, {y}, {z})");
                }
            }
            _ => {
                self.main.push_str(": ");
                self.push_type(f.ret);
            }
        }
        self.main.push_str(" (");
        if !f.arg_order.is_empty() {
            self.main.push('\n');
        }
        for &a in &f.arg_order {
            let Some(arg) = f.args.get(a) else {
                continue;
            };
            if !arg.metadata.is_empty() {
                self.indent(1);
                write_mdlist(&mut self.main, &arg.metadata);
                self.main.push('\n');
            }
            self.indent(1);
            self.namer.write(&mut self.main, Key::Arg(fid, a));
            self.main.push_str(": ");
            if arg.kind == crate::function::ArgKind::Reference {
                self.main.push('&');
            }
            self.push_type(Some(arg.ty));
            self.main.push(';');
            self.users_comment(false, Key::Arg(fid, a));
            self.main.push('\n');
        }
        self.main.push(')');
        let body = f.body.filter(|_| f.kind.has_definition());
        if let Some(body) = body {
            let order = numbering::pre_order(f);
            self.stack.clear();
            if self.opts.flat {
                self.main.push_str(" = define {\n");
                self.stack.push(Work::Text("}"));
                self.stack.push(Work::Extras);
                self.stack
                    .extend(order.iter().rev().map(|b| Work::TopBlock(*b)));
            } else {
                self.main.push_str(" = define ");
                self.stack.push(Work::Extras);
                self.stack
                    .extend(order.iter().rev().map(|b| Work::TopBlock(*b)));
                self.stack.push(Work::Slot(Some(Value::Block(body)), 0));
            }
            self.run();
        }
        self.main.push(';');
        self.users_comment(false, Key::Func(fid));
        self.main.push_str("\n\n");
        if self.opts.debug_info && body.is_some() {
            self.cfg_comment(fid);
        }
    }

    /// Runs the work stack until it is empty.
    fn run(&mut self) {
        while let Some(w) = self.stack.pop() {
            match w {
                Work::Text(s) => self.main.push_str(s),
                Work::Str(s) => self.main.push_str(&s),
                Work::Val(v, ctx) => self.value(v, ctx),
                Work::Ref(None) | Work::Slot(None, _) => self.main.push_str("null"),
                Work::Ref(Some(v)) => self.value(v, None),
                Work::Slot(Some(Value::Block(b)), depth)
                    if !self.opts.flat && !self.emitted.contains(&b) =>
                {
                    self.open_nested_block(b, depth)
                }
                Work::Slot(Some(v), _) => self.value(v, None),
                Work::Insts(b, from, depth) => self.insts(b, from, depth),
                Work::Close(depth) => {
                    self.indent(depth);
                    self.main.push('}');
                }
                Work::Users(v) => self.users_comment(false, Key::of(self.cur, v)),
                Work::TopBlock(b) => self.top_block(b),
                Work::Extras => self.extras(),
            }
        }
    }

    fn top_block(&mut self, b: BlockId) {
        if self.emitted.contains(&b) {
            return;
        }
        if self.opts.flat {
            self.open_flat_block(b);
        } else {
            self.main.push('\n');
            self.open_nested_block(b, 0);
        }
    }

    /// Schedules the next block that is owned or referenced but not printed yet.
    fn extras(&mut self) {
        let f = &self.m.functions[self.cur];
        let valid = |b: &BlockId| f.blocks.is_valid(*b);
        while let Some(&b) = f.block_order.get(self.owned_cursor) {
            self.owned_cursor += 1;
            if valid(&b) && !self.emitted.contains(&b) {
                self.stack.push(Work::Extras);
                self.stack.push(Work::TopBlock(b));
                return;
            }
        }
        while let Some(&b) = self.referenced.get(self.ref_cursor) {
            self.ref_cursor += 1;
            if valid(&b) && !self.emitted.contains(&b) {
                self.stack.push(Work::Extras);
                self.stack.push(Work::TopBlock(b));
                return;
            }
        }
    }

    fn open_nested_block(&mut self, b: BlockId, depth: usize) {
        self.emitted.insert(b);
        if self.record_order {
            self.block_text_order.push((self.cur, b));
        }
        let f = &self.m.functions[self.cur];
        let Some(data) = f.blocks.get(b) else {
            self.value(Value::Block(b), None);
            return;
        };
        if !data.metadata.is_empty() {
            write_mdlist(&mut self.main, &data.metadata);
            self.main.push(' ');
        }
        self.namer.write(&mut self.main, Key::Block(self.cur, b));
        self.main.push_str(": {");
        self.block_comment(b);
        self.main.push('\n');
        self.stack.push(Work::Close(depth));
        self.stack.push(Work::Insts(b, 0, depth + 1));
    }

    fn open_flat_block(&mut self, b: BlockId) {
        self.emitted.insert(b);
        if self.record_order {
            self.block_text_order.push((self.cur, b));
        }
        let f = &self.m.functions[self.cur];
        let Some(data) = f.blocks.get(b) else {
            return;
        };
        if !data.metadata.is_empty() {
            write_mdlist(&mut self.main, &data.metadata);
            self.main.push('\n');
        }
        self.namer.write(&mut self.main, Key::Block(self.cur, b));
        self.main.push(':');
        self.block_comment(b);
        self.main.push('\n');
        self.stack.push(Work::Insts(b, 0, 1));
    }

    /// Prints the instructions of `b` from index `from` on at `depth`: flat ones
    /// directly, up to the first structured one, whose body goes on the stack above the
    /// rest of the block.
    fn insts(&mut self, b: BlockId, from: usize, depth: usize) {
        let m: &'m Module = self.m;
        let f = &m.functions[self.cur];
        let Some(data) = f.blocks.get(b) else {
            return;
        };
        for (k, &i) in data.insts.iter().enumerate().skip(from) {
            let Some(d) = f.insts.get(i) else {
                continue;
            };
            if is_structured(&d.kind) {
                self.stack.push(Work::Insts(b, k + 1, depth));
                self.inst(i, d, depth);
                return;
            }
            self.inst(i, d, depth);
        }
    }

    fn inst(&mut self, i: InstId, d: &'m InstData, depth: usize) {
        if !d.metadata.is_empty() {
            self.indent(depth);
            write_mdlist(&mut self.main, &d.metadata);
            self.main.push('\n');
        }
        self.indent(depth);
        if !self.namer.write_numbered_inst(&mut self.main, self.cur, i) {
            self.namer.write(&mut self.main, Key::Inst(self.cur, i));
        }
        self.main.push_str(": ");
        self.push_type(d.ty);
        self.main.push_str(" = ");
        if !is_structured(&d.kind) {
            self.flat_body(i, d);
            self.main.push(';');
            self.users_comment(false, Key::Inst(self.cur, i));
            self.main.push('\n');
            return;
        }
        let mut body = std::mem::take(&mut self.body);
        body.clear();
        structured_body(self.m, self.cur, i, d, depth, &mut body);
        body.push(Work::Text(";"));
        if self.opts.debug_info {
            body.push(Work::Users(Value::Inst(i)));
        }
        body.push(Work::Text("\n"));
        self.stack.extend(body.drain(..).rev());
        self.body = body;
    }

    /// Prints a value reference; declares undefined values and special registers at
    /// their first print when the text alone would lose a fact (docs §4.3, §4.4).
    pub(crate) fn value(&mut self, v: Value, ctx: Option<(InstId, u32)>) {
        // The common case first: an instruction numbered already.
        if let Value::Inst(i) = v
            && self.namer.write_numbered_inst(&mut self.main, self.cur, i)
        {
            return;
        }
        let fresh = self.namer.write(&mut self.main, Key::of(self.cur, v));
        match v {
            Value::Block(b) => self.referenced.push(b),
            Value::Undef(u) if fresh && self.undef_needs_decl(u, ctx) => self.declare_undef(u),
            Value::Special(r)
                if fresh && self.special_metadata(r).is_some_and(|md| !md.is_empty()) =>
            {
                self.declare_special(r)
            }
            _ => {}
        }
    }

    fn undef_needs_decl(&self, u: UndefId, ctx: Option<(InstId, u32)>) -> bool {
        let Some(data) = self.m.undefs.get(u) else {
            return false;
        };
        if !data.metadata.is_empty() {
            return true;
        }
        let default = ctx.and_then(|(i, k)| {
            let d = self.m.functions[self.cur].insts.get(i)?;
            if !super::print_inst::operands_valid(self.m, self.cur, d) {
                return None;
            }
            // A store's rule and the inference defaults may read other operands' types:
            // unknown to a reader if one is an undefined value it has not met before.
            let exact = crate::typing::operand_type(&d.kind, k as usize).is_some();
            if !exact || matches!(d.kind, InstKind::Store) {
                let unknown = d.operands.iter().enumerate().any(|(j, &o)| {
                    j != k as usize
                        && matches!(o, Value::Undef(o)
                            if o == u || !self.namer.is_seen(Key::Undef(o)))
                });
                if unknown {
                    return None;
                }
            }
            super::infer::infer_operand_type(self.m, self.cur, d, k as usize)
        });
        default != Some(data.ty)
    }

    fn declare_undef(&mut self, u: UndefId) {
        let Some(data) = self.m.undefs.get(u) else {
            return;
        };
        let t = self.type_ident(Some(data.ty));
        if !data.metadata.is_empty() {
            write_mdlist(&mut self.prelude, &data.metadata);
            self.prelude.push('\n');
        }
        self.prelude.push_str("undef ");
        self.namer.write(&mut self.prelude, Key::Undef(u));
        let _ = write!(self.prelude, ": {t};\n\n");
    }

    fn special_metadata(&self, r: SpecialRegister) -> Option<&'m [Metadata]> {
        let m: &'m Module = self.m;
        m.special_registers
            .iter()
            .find(|(x, _)| *x == r)
            .map(|(_, md)| &md[..])
    }

    fn declare_special(&mut self, r: SpecialRegister) {
        if let Some(md) = self.special_metadata(r).filter(|md| !md.is_empty()) {
            write_mdlist(&mut self.prelude, md);
            self.prelude.push('\n');
        }
        self.prelude.push_str("special ");
        self.namer.write(&mut self.prelude, Key::Special(r));
        self.prelude.push_str(";\n\n");
    }

    /// Appends 4 × `depth` spaces to main, at most 4 × [`MAX_INDENT_DEPTH`]: deeper
    /// blocks print at that indentation (whitespace means nothing to the reader, so the
    /// text reads back the same), so a deeply nested function costs output linear in its
    /// size, not in size × depth (a 9,990-deep loop nest printed 800 MB unbounded).
    #[inline]
    pub(crate) fn indent(&mut self, depth: usize) {
        const SPACES: &str = "                                                                ";
        let mut n = depth.min(MAX_INDENT_DEPTH) * 4;
        while n > SPACES.len() {
            self.main.push_str(SPACES);
            n -= SPACES.len();
        }
        self.main.push_str(&SPACES[..n]);
    }
}

/// Appends `[item, item]` for a metadata list.
pub(crate) fn write_mdlist(out: &mut String, list: &[Metadata]) {
    out.push('[');
    for (k, md) in list.iter().enumerate() {
        if k > 0 {
            out.push_str(", ");
        }
        write_metadata(out, md);
    }
    out.push(']');
}

fn write_metadata(out: &mut String, md: &Metadata) {
    match md {
        Metadata::Name(n) => {
            out.push_str("name = ");
            if is_identifier(n) {
                out.push_str(n);
            } else {
                write_escaped(out, n);
            }
        }
        Metadata::Location { file, line } => {
            out.push_str("location = (");
            write_escaped(out, file);
            let _ = write!(out, ", {line})");
        }
        Metadata::Comment(c) => {
            out.push_str("comment = ");
            write_escaped(out, c);
        }
        Metadata::CurveBasis(set) => {
            out.push_str("curve_basis = {");
            for (k, b) in set.iter().enumerate() {
                if k > 0 {
                    out.push_str(", ");
                }
                out.push_str(b.name());
            }
            out.push('}');
        }
        Metadata::SignatureConstraint => out.push_str("signature_constraint"),
        Metadata::Reg2MemSpill(k) => {
            let _ = write!(out, "reg2mem_spill = {}", k.name());
        }
        Metadata::NoInline => out.push_str("no_inline"),
        Metadata::ContiguousCopy {
            element_count,
            vector_width,
        } => {
            let _ = write!(out, "contiguous_copy = ({element_count}, {vector_width})");
        }
        Metadata::StridedMma(s) => {
            let [m, n, k] = s.extents;
            let [a, b, c] = s.strides;
            let _ = write!(
                out,
                "strided_mma = {{extents = ({m}, {n}, {k}), strides = ({a}, {b}, {c}), \
                 vector_width = {}, reassociation = {}, vectorization_mode = {}}}",
                s.vector_width, s.reassociation, s.vectorization_mode
            );
        }
    }
}
