//! The two control-flow forms, defined once: **plain CFG** and **structured**.
//!
//! The verifier's `require-no-unstructured-control-flow` option, the pass pipeline's
//! form preconditions and the backend all ask this module, so they cannot disagree.
//!
//! * **Plain CFG**: no structured construct (`if`, `switch`, `loop`, `simple_loop`,
//!   `ray_query_loop`, `autodiff`, `outline`) and no `break` / `continue`. Branches are
//!   `br`, `cond_br` and `indexed_branch`.
//! * **Structured** (the SPIR-V seed's rules, what spirv-val accepts): no
//!   `indexed_branch`, and a `cond_br` may only end a loop's prepare block. Every loop's
//!   prepare block ends in exactly `br body` or `cond_br c, body, merge` (the two native
//!   loop-header forms). Any other `cond_br` is an unstructured branch. Every executable
//!   edge obeys SPIR-V's structured-exit rules ([`exits`]): an `if` exits only to its
//!   merge, the nearest enclosing switch's merge or the nearest loop's merge or continue
//!   target; a `switch` never to an enclosing switch's merge; a loop only to its own merge
//!   or continue target; back edges only `update → prepare` or back to a `simple_loop`
//!   body; headers dominate their merges; a block merges at most one construct.
//!
//! A function may be in both forms (straight-line code, or only `br`), or in neither
//! (an `if` next to a free `cond_br`).
//!
//! Everything here tolerates malformed functions (dangling handles, missing
//! terminators): the verifier calls it before it knows the function is well formed.
//!
//! ```
//! use xir_ir::analysis::form::{self, Form};
//! let (m, _) = xir_ir::text::parse_module(
//!     "module; kernel %k (%c: bool;) = define %e: { %x: void = cond_br %c, %a, %a; }
//!      %a: { %r: void = return; };",
//! ).unwrap();
//! let f = m.func(m.func_order[0]);
//! assert!(form::is_plain(f));
//! let v = form::first_violation(f, Form::Structured).unwrap();
//! assert_eq!(v.keyword(), "cond_br");
//! ```

pub mod exits;

pub use exits::{ConstructPart, ConstructRef};

use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::inst::{InstData, InstId, InstKind};
use crate::value::{BlockId, Value};

/// A control-flow form.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// No structured constructs, no `break` / `continue`.
    Plain,
    /// No `indexed_branch`; `cond_br` only as a loop prepare's `cond_br c, body, merge`.
    Structured,
}

impl Form {
    /// `plain CFG` / `structured control flow`, as refusals and diagnostics say it.
    pub const fn describe(self) -> &'static str {
        match self {
            Form::Plain => "plain CFG",
            Form::Structured => "structured control flow",
        }
    }
}

/// Why an instruction breaks a form.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ViolationKind {
    /// A structured construct, `break` or `continue` (breaks plain form).
    StructuredConstruct,
    /// An `indexed_branch`, or a `cond_br` that does not end a loop prepare block
    /// (breaks structured form).
    UnstructuredBranch,
    /// The terminator of a loop prepare block is not `br body` or
    /// `cond_br c, body, merge` (breaks structured form).
    BadLoopPrepare,
    /// An edge leaves [`Violation::construct`] to a block that is not one of its
    /// structured exits (breaks structured form).
    BadExit,
    /// An edge to a block that dominates it that is not a loop's back edge (breaks
    /// structured form).
    BadBackEdge,
    /// A construct's merge (or a loop's update block) is reachable without passing
    /// through its header, or is the header itself (breaks structured form).
    MergeNotDominated,
    /// A block is the merge or continue target of two constructs (breaks structured
    /// form); [`Violation::construct`] is the other owner.
    SharedMerge,
}

/// One instruction that breaks a form.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Violation {
    /// The block of the instruction.
    pub block: BlockId,
    /// The instruction.
    pub inst: InstId,
    /// Its text keyword (`if`, `cond_br`, …).
    keyword: &'static str,
    /// Why.
    pub kind: ViolationKind,
    /// The target block of the offending edge, or the merge at issue.
    pub target: Option<BlockId>,
    /// The construct whose rule is broken (for [`ViolationKind::SharedMerge`], the
    /// construct that owns the merge first).
    pub construct: Option<ConstructRef>,
}

impl Violation {
    /// The instruction's text keyword (`if`, `cond_br`, `indexed_branch`, …).
    pub fn keyword(&self) -> &'static str {
        self.keyword
    }
    /// A one-line explanation (without the instruction's name).
    pub fn message(&self) -> String {
        match self.kind {
            ViolationKind::StructuredConstruct => {
                format!(
                    "structured control flow ({}) is not plain CFG",
                    self.keyword
                )
            }
            ViolationKind::UnstructuredBranch => format!(
                "unstructured branch ({}): structured form allows `cond_br` only at the end of a loop's prepare block",
                self.keyword
            ),
            ViolationKind::BadLoopPrepare => format!(
                "a loop's prepare block must end in `br body` or `cond_br c, body, merge` (it ends in {} to other targets)",
                self.keyword
            ),
            ViolationKind::BadExit => match self.construct {
                Some(c) => format!(
                    "`{}` leaves the `{}` construct by a branch that is not a structured exit: {}",
                    self.keyword,
                    c.keyword,
                    c.exit_rule()
                ),
                None => format!("`{}` is not a structured exit", self.keyword),
            },
            ViolationKind::BadBackEdge => format!(
                "`{}` branches back to a block that dominates it, which is not a loop's back edge (only update → prepare, or back to a `simple_loop` body from inside it)",
                self.keyword
            ),
            ViolationKind::MergeNotDominated => format!(
                "the merge (or update) block of this `{}` is reachable without passing through its header: a construct's header must dominate its merge",
                self.keyword
            ),
            ViolationKind::SharedMerge => format!(
                "this `{}`'s merge (or update) block is already the merge or continue target of another construct: a block merges at most one construct",
                self.keyword
            ),
        }
    }
}

/// A loop's `(body, merge)` side blocks.
pub type PrepareTargets = (Option<BlockId>, Option<BlockId>);

/// The (body, merge) side blocks of the `loop` whose prepare block is each block.
#[derive(Clone, Debug, Default)]
pub struct LoopPrepares {
    targets: SecondaryMap<BlockId, Option<PrepareTargets>>,
}

impl LoopPrepares {
    /// Scans the placed `loop` instructions of `f`.
    pub fn compute(f: &Function) -> Self {
        let mut p = LoopPrepares::default();
        for_each_placed(f, |_, _, d| {
            if let InstKind::Loop { body, merge, .. } = d.kind
                && let Some(Value::Block(prep)) = d.operands.first()
            {
                p.targets[*prep] = Some((body, merge));
            }
        });
        p
    }
    /// `Some((body, merge))` when `b` is the prepare block of a loop.
    pub fn of(&self, b: BlockId) -> Option<PrepareTargets> {
        *self.targets.get(b)
    }
}

/// Whether the instruction `d`, placed in block `b`, breaks `form`. `prepares` must come
/// from the same function (only [`Form::Structured`] reads it).
pub fn check_inst(
    form: Form,
    b: BlockId,
    i: InstId,
    d: &InstData,
    prepares: &LoopPrepares,
) -> Option<Violation> {
    let keyword = d.kind.tag().text_keyword();
    let kind = match form {
        Form::Plain => {
            let structured = d.kind.tag().is_structured()
                || matches!(d.kind, InstKind::Break | InstKind::Continue);
            structured.then_some(ViolationKind::StructuredConstruct)?
        }
        Form::Structured => match (&d.kind, prepares.of(b)) {
            (InstKind::IndexedBranch { .. }, _) => ViolationKind::UnstructuredBranch,
            (InstKind::ConditionalBranch, None) => ViolationKind::UnstructuredBranch,
            (InstKind::ConditionalBranch, Some((body, merge))) => {
                let ok = d.operands.len() == 3
                    && d.operands[1].as_block() == body
                    && d.operands[2].as_block() == merge
                    && body.is_some();
                (!ok).then_some(ViolationKind::BadLoopPrepare)?
            }
            (k, Some((body, _))) if k.is_terminator() => {
                let ok = matches!(k, InstKind::Branch)
                    && d.operands.len() == 1
                    && d.operands[0].as_block() == body
                    && body.is_some();
                (!ok).then_some(ViolationKind::BadLoopPrepare)?
            }
            _ => return None,
        },
    };
    Some(Violation {
        block: b,
        inst: i,
        keyword,
        kind,
        target: None,
        construct: None,
    })
}

/// Every instruction of `f` that breaks `form`, in block and instruction order.
pub fn violations(f: &Function, form: Form) -> Vec<Violation> {
    let prepares = match form {
        Form::Structured => LoopPrepares::compute(f),
        Form::Plain => LoopPrepares::default(),
    };
    let mut out = Vec::new();
    for_each_placed(f, |b, i, d| {
        out.extend(check_inst(form, b, i, d, &prepares));
    });
    if form == Form::Structured {
        exits::check(f, &mut out);
    }
    out
}

/// The first instruction of `f` that breaks `form`.
pub fn first_violation(f: &Function, form: Form) -> Option<Violation> {
    if form == Form::Plain {
        // No prepare map needed: stop at the first construct.
        let mut found = None;
        let prepares = LoopPrepares::default();
        for_each_placed_until(f, |b, i, d| {
            found = check_inst(form, b, i, d, &prepares);
            found.is_some()
        });
        return found;
    }
    let prepares = LoopPrepares::compute(f);
    let mut found = None;
    for_each_placed_until(f, |b, i, d| {
        found = check_inst(form, b, i, d, &prepares);
        found.is_some()
    });
    if found.is_some() {
        return found;
    }
    let mut out = Vec::new();
    exits::check(f, &mut out);
    out.into_iter().next()
}

/// Whether `f` is in plain-CFG form.
pub fn is_plain(f: &Function) -> bool {
    first_violation(f, Form::Plain).is_none()
}

/// Whether `f` is in structured form.
pub fn is_structured(f: &Function) -> bool {
    first_violation(f, Form::Structured).is_none()
}

fn for_each_placed(f: &Function, mut visit: impl FnMut(BlockId, InstId, &InstData)) {
    for_each_placed_until(f, |b, i, d| {
        visit(b, i, d);
        false
    });
}

/// Visits placed instructions (owned blocks in order, instructions whose `block` field
/// agrees) until `visit` returns true. Dangling handles are skipped.
fn for_each_placed_until(f: &Function, mut visit: impl FnMut(BlockId, InstId, &InstData) -> bool) {
    for &b in &f.block_order {
        let Some(bd) = f.blocks.get(b) else { continue };
        for &i in &bd.insts {
            let Some(d) = f.insts.get(i) else { continue };
            if d.block == Some(b) && visit(b, i, d) {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::parse_module;

    fn func(src: &str) -> (crate::Module, crate::FuncId) {
        let (m, _) = parse_module(src).expect("parses");
        let f = m.func_order[0];
        (m, f)
    }

    const LOOP: &str = "module; kernel %k (%c: bool;) = define %e: {
        %l: void = loop prepare %p: { %x: void = TERM; }, body %b: { %y: void = br %u; },
        update %u: { %z: void = br %p; }, merge %m: { %r: void = return; }; };";

    fn with(term: &str) -> (crate::Module, crate::FuncId) {
        func(&LOOP.replace("TERM", term))
    }

    /// The three former definitions disagreed on these; there is one answer now.
    #[test]
    fn loop_prepare_forms() {
        // Canonical headers: structured (the verifier used to reject the cond_br).
        for ok in ["cond_br %c, %b, %m", "br %b"] {
            let (m, f) = with(ok);
            assert!(is_structured(m.func(f)), "{ok}");
            assert!(!is_plain(m.func(f)), "{ok}: a loop is not plain CFG");
        }
        // Other prepare terminators: not structured (the passes used to accept any
        // cond_br in a prepare block).
        for bad in ["cond_br %c, %m, %b", "cond_br %c, %b, %b", "br %m"] {
            let (m, f) = with(bad);
            let v = first_violation(m.func(f), Form::Structured).expect(bad);
            assert_eq!(v.kind, ViolationKind::BadLoopPrepare, "{bad}");
        }
    }

    #[test]
    fn plain_and_structured_constructs() {
        let (m, f) = func(
            "module; kernel %k (%c: bool;) = define %e: { %x: void = cond_br %c, %a, %a; }
             %a: { %r: void = return; };",
        );
        assert!(is_plain(m.func(f)));
        let v = first_violation(m.func(f), Form::Structured).unwrap();
        assert_eq!(
            (v.keyword(), v.kind),
            ("cond_br", ViolationKind::UnstructuredBranch)
        );
        let (m, f) = func(
            "module; kernel %k (%c: bool;) = define %e: {
             %i: void = if %c, then %t: { %x: void = br %j; }, else %j, merge %j: {
             %r: void = return; }; };",
        );
        assert!(is_structured(m.func(f)));
        let v = first_violation(m.func(f), Form::Plain).unwrap();
        assert_eq!(
            (v.keyword(), v.kind),
            ("if", ViolationKind::StructuredConstruct)
        );
        // Straight-line code is in both forms.
        let (m, f) = func("module; kernel %k () = define %e: { %r: void = return; };");
        assert!(is_plain(m.func(f)) && is_structured(m.func(f)));
    }

    /// SPIR-V's structured exits: a nested loop may leave only by its own merge or
    /// continue target; an `if` in it may break or continue that loop.
    #[test]
    fn structured_exits() {
        let src = "module; kernel %k (%c: bool;) = define %e: {
            %o: void = simple_loop body %ob, merge %om; }
            %ob: { %i: void = simple_loop body %ib, merge %im; }
            %ib: { %x: void = if %c, then %t, else %f, merge %j; }
            %t: { %y: void = br TARGET; }
            %f: { %z: void = br %j; }
            %j: { %w: void = br %ib; }
            %im: { %v: void = br %om; }
            %om: { %r: void = return; };";
        for ok in ["%im", "%ib", "%j"] {
            let (m, f) = func(&src.replace("TARGET", ok));
            assert!(is_structured(m.func(f)), "{ok}");
        }
        let (m, f) = func(&src.replace("TARGET", "%om"));
        let v = first_violation(m.func(f), Form::Structured).expect("outer merge");
        assert_eq!(v.kind, ViolationKind::BadExit);
        // The innermost construct left is the `if`: its nearest loop is the inner one.
        assert_eq!(v.construct.map(|c| c.part), Some(ConstructPart::Selection));
        let (m, f) = func(&src.replace("TARGET", "%ob"));
        let v = first_violation(m.func(f), Form::Structured).expect("outer continue");
        assert_eq!(v.kind, ViolationKind::BadExit);
    }
}
