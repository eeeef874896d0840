//! `lower-break-continue` — `break`/`continue` to plain branches.
//!
//! **What:** every `break %t` and `continue %t` terminator of every owned block becomes
//! `br %t`, keeping its identity and metadata. The enclosing constructs are left alone,
//! so the result mixes structured constructs with plain branches out of them (upstream's
//! Pipeline A step; `destructure-cfg` does this and more).
//!
//! **Algorithm:** collect every `break`/`continue` of the module, check each target,
//! then rewrite all of them; linear in the number of blocks.
//!
//! **Preconditions:** none.
//!
//! **Refusals** (module byte-identical): a `break`/`continue` whose target is not a block
//! owned by its function, counted in `rejected_break` / `rejected_continue` (upstream
//! collects every function's work list and rewrites nothing when any site is rejected).
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/lower_break_continue.cpp` and its
//! header (whole-module preflight, counters, `changed()`/`succeeded()`).
//!
//! **Report keys:** `lowered_break`, `lowered_continue`, `rejected_break`,
//! `rejected_continue`. **Changed:** `lowered_break + lowered_continue > 0`.
//!
//! **Example:**
//! ```text
//! %3: void = break %merge;      →   %3: void = br %merge;
//! %4: void = continue %update;  →   %4: void = br %update;
//! ```

use crate::form::describe_function;
use crate::declare::Counters;
use crate::pass::{Pass, PassContext, PassError, PassRun};
use xir_ir::inst::InstKind;
use xir_ir::{FuncId, Function, InstId, Module, Value};

/// The `lower-break-continue` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct LowerBreakContinue;

crate::declare_pass! {
    LowerBreakContinue: module pass "lower-break-continue" {
        summary: "Lowers break/continue into branches.",
        form: Either,
        counters: LowerBreakContinueCounters {
            /// `break` → `br`.
            lowered_break: ControlFlow,
            /// `continue` → `br`.
            lowered_continue: ControlFlow,
            /// `break`s with a bad target (refusal).
            rejected_break: Nothing,
            /// `continue`s with a bad target (refusal).
            rejected_continue: Nothing,
        }
    }
}

/// The `break`s and `continue`s of one function, and how many have a bad target.
#[derive(Clone, Debug, Default)]
pub struct Sites {
    /// Well-formed `break` terminators.
    pub breaks: Vec<InstId>,
    /// Well-formed `continue` terminators.
    pub continues: Vec<InstId>,
    /// `break`s whose target is not an owned block.
    pub rejected_breaks: u64,
    /// `continue`s whose target is not an owned block.
    pub rejected_continues: u64,
}

/// Collects the sites of `func` (no mutation).
pub fn collect_sites(func: &Function) -> Sites {
    let mut s = Sites::default();
    for &b in &func.block_order {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let d = func.inst(t);
        let ok = matches!(d.operands.first(), Some(Value::Block(x)) if func.has_block(*x));
        match (&d.kind, ok) {
            (InstKind::Break, true) => s.breaks.push(t),
            (InstKind::Break, false) => s.rejected_breaks += 1,
            (InstKind::Continue, true) => s.continues.push(t),
            (InstKind::Continue, false) => s.rejected_continues += 1,
            _ => {}
        }
    }
    s
}

/// Rewrites the collected sites into `br`.
pub fn lower_sites(func: &mut Function, s: &Sites) {
    for &t in s.breaks.iter().chain(&s.continues) {
        func.inst_mut(t).kind = InstKind::Branch;
    }
}

impl Pass for LowerBreakContinue {
    fn run(&self, module: &mut Module, _cx: &mut PassContext) -> Result<PassRun, PassError> {
        let mut c = LowerBreakContinueCounters::default();
        let mut all: Vec<(FuncId, Sites)> = Vec::new();
        let mut first_bad: Option<FuncId> = None;
        for &f in &module.func_order {
            if module.func(f).body.is_none() {
                continue;
            }
            let s = collect_sites(module.func(f));
            c.rejected_break += s.rejected_breaks;
            c.rejected_continue += s.rejected_continues;
            if s.rejected_breaks + s.rejected_continues > 0 && first_bad.is_none() {
                first_bad = Some(f);
            }
            all.push((f, s));
        }
        if let Some(f) = first_bad {
            let reason = format!(
                "{} has a break or continue whose target is not one of its blocks",
                describe_function(module, f)
            );
            return Ok(PassRun::refused(reason, c.report()));
        }
        for (f, s) in all {
            lower_sites(module.func_mut(f), &s);
            c.lowered_break += s.breaks.len() as u64;
            c.lowered_continue += s.continues.len() as u64;
        }
        Ok(PassRun::new(c.changed(), c.report()))
    }
}
