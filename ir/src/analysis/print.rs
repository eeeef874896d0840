//! Printable analyses: the registry behind `xir-opt --print=ANALYSIS`.
//!
//! Each entry of [`PRINTABLE`] names an analysis and prints it for one function, naming
//! blocks by the ids the module printer shows, so the output lines up with
//! `xir-opt`'s output for the same module. Adding an analysis to `--print` is one entry
//! here (plus a corpus file under `test-corpus/corpus/analysis/`).
//!
//! ```
//! use xir_ir::analysis::print::{find, print_analyses};
//! let (m, _) = xir_ir::text::parse_module(
//!     "module; kernel %k () = define %e: { %x: void = br %a; } %a: { %r: void = return; };",
//! ).unwrap();
//! let text = print_analyses(&m, &[find("dom").unwrap()], &Default::default());
//! assert_eq!(text, "dominator tree of function %0:\n  %1\n    %3\n");
//! ```

use super::cfg::Cfg;
use super::closure::StructuralClosure;
use super::dom::DomTree;
use super::form::{self, Form};
use super::loops::LoopForest;
use super::postdom::PostDomTree;
use crate::function::Function;
use crate::metadata::find_name;
use crate::module::Module;
use crate::text::numbering::{Key, Namer};
use crate::text::print::{PrintOptions, printed_ids};
use crate::value::{BlockId, FuncId};
use std::fmt::Write as _;

/// Block and function names as the printer spells them.
pub struct Names {
    namer: Namer,
}

impl Names {
    /// The ids printing `m` under `opts` shows.
    pub fn new(m: &Module, opts: &PrintOptions) -> Self {
        Names {
            namer: printed_ids(m, opts),
        }
    }
    /// `%N` for block `b` of function `f` (`%?` if the printer never shows it).
    pub fn block(&self, f: FuncId, b: BlockId) -> String {
        self.namer
            .spelled(Key::Block(f, b))
            .unwrap_or_else(|| "%?".into())
    }
    /// `%N` for function `f`, plus `('name')` when it has a name.
    pub fn func(&self, m: &Module, f: FuncId) -> String {
        let id = self
            .namer
            .spelled(Key::Func(f))
            .unwrap_or_else(|| "%?".into());
        match find_name(&m.func(f).metadata) {
            Some(n) => format!("{id} ('{n}')"),
            None => id,
        }
    }
    /// Names of a list of blocks, space-separated (`none` when empty).
    pub fn blocks(&self, f: FuncId, bs: &[BlockId]) -> String {
        if bs.is_empty() {
            return "none".into();
        }
        bs.iter()
            .map(|b| self.block(f, *b))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A printable analysis.
pub struct PrintableAnalysis {
    /// The `--print=` name.
    pub name: &'static str,
    /// One line for `--help` and docs.
    pub summary: &'static str,
    /// Appends the analysis of function `f` (which has a body) to `out`.
    pub print: fn(m: &Module, f: FuncId, names: &Names, out: &mut String),
}

/// Every printable analysis, in `--print` help order.
pub const PRINTABLE: &[PrintableAnalysis] = &[
    PrintableAnalysis {
        name: "cfg",
        summary: "successors of every block (reverse post-order, then unreachable blocks)",
        print: print_cfg,
    },
    PrintableAnalysis {
        name: "dom",
        summary: "dominator tree",
        print: print_dom,
    },
    PrintableAnalysis {
        name: "postdom",
        summary: "post-dominator tree (rooted at a virtual exit)",
        print: print_postdom,
    },
    PrintableAnalysis {
        name: "loops",
        summary: "natural loops: blocks, latches, depth, preheader, exits",
        print: print_loops,
    },
    PrintableAnalysis {
        name: "form",
        summary: "whether the function is plain CFG and whether it is structured",
        print: print_form,
    },
    PrintableAnalysis {
        name: "structural-closure",
        summary: "SPIR-V structural closure: ordinary blocks, disconnected role blocks, true orphans",
        print: print_closure,
    },
];

/// The printable analysis called `name`.
pub fn find(name: &str) -> Option<&'static PrintableAnalysis> {
    PRINTABLE.iter().find(|a| a.name == name)
}

/// Prints `analyses` for every function with a body, function by function in module
/// order, naming blocks as printing `m` under `opts` would.
pub fn print_analyses(m: &Module, analyses: &[&PrintableAnalysis], opts: &PrintOptions) -> String {
    let names = Names::new(m, opts);
    let mut out = String::new();
    for &f in &m.func_order {
        if m.func(f).body.is_none() {
            continue;
        }
        for a in analyses {
            (a.print)(m, f, &names, &mut out);
        }
    }
    out
}

fn header(out: &mut String, what: &str, m: &Module, f: FuncId, names: &Names) {
    let _ = writeln!(out, "{what} of function {}:", names.func(m, f));
}

fn print_cfg(m: &Module, f: FuncId, names: &Names, out: &mut String) {
    let func = m.func(f);
    let cfg = Cfg::compute(func);
    header(out, "cfg", m, f, names);
    for &b in &cfg.rpo {
        let _ = writeln!(
            out,
            "  {} -> {}",
            names.block(f, b),
            names.blocks(f, cfg.succs(b))
        );
    }
    for &b in &func.block_order {
        if !cfg.is_reachable(b) {
            let _ = writeln!(
                out,
                "  {} -> {} (unreachable)",
                names.block(f, b),
                names.blocks(f, cfg.succs(b))
            );
        }
    }
}

/// Prints a tree (children from `kids`) from each root, two spaces per level.
fn tree(
    out: &mut String,
    roots: &[BlockId],
    base: usize,
    kids: impl Fn(BlockId) -> Vec<BlockId>,
    name: impl Fn(BlockId) -> String,
) {
    let mut stack: Vec<(BlockId, usize)> = roots.iter().rev().map(|r| (*r, base)).collect();
    while let Some((b, d)) = stack.pop() {
        let _ = writeln!(out, "{:w$}{}", "", name(b), w = 2 * d);
        for c in kids(b).into_iter().rev() {
            stack.push((c, d + 1));
        }
    }
}

fn print_dom(m: &Module, f: FuncId, names: &Names, out: &mut String) {
    let func = m.func(f);
    let cfg = Cfg::compute(func);
    let dom = DomTree::compute(func, &cfg);
    header(out, "dominator tree", m, f, names);
    let roots: Vec<BlockId> = dom.root().into_iter().collect();
    tree(
        out,
        &roots,
        1,
        |b| dom.children(b).to_vec(),
        |b| names.block(f, b),
    );
}

fn print_postdom(m: &Module, f: FuncId, names: &Names, out: &mut String) {
    let func = m.func(f);
    let cfg = Cfg::compute(func);
    let pd = PostDomTree::compute(func, &cfg);
    header(out, "post-dominator tree", m, f, names);
    out.push_str("  <exit>\n");
    tree(
        out,
        pd.roots(),
        2,
        |b| pd.children(b).to_vec(),
        |b| names.block(f, b),
    );
    let outside: Vec<BlockId> = cfg
        .rpo
        .iter()
        .copied()
        .filter(|b| !pd.contains(*b))
        .collect();
    if !outside.is_empty() {
        let _ = writeln!(out, "  never reach an exit: {}", names.blocks(f, &outside));
    }
}

fn print_loops(m: &Module, f: FuncId, names: &Names, out: &mut String) {
    let func = m.func(f);
    let cfg = Cfg::compute(func);
    let loops = LoopForest::compute(&cfg, &DomTree::compute(func, &cfg));
    header(out, "loops", m, f, names);
    if loops.is_empty() {
        out.push_str("  none\n");
    }
    // Outer loops come first; print each loop's nest depth-first.
    let roots: Vec<_> = loops
        .loops()
        .filter(|(_, d)| d.parent.is_none())
        .map(|(l, _)| l)
        .collect();
    let mut stack: Vec<_> = roots.into_iter().rev().collect();
    while let Some(l) = stack.pop() {
        let d = &loops[l];
        let pad = 2 * d.depth as usize;
        let _ = writeln!(
            out,
            "{:pad$}loop {} (depth {}): blocks {}; latches {}; preheader {}; exits {}",
            "",
            names.block(f, d.header),
            d.depth,
            names.blocks(f, &d.blocks),
            names.blocks(f, &d.latches),
            d.preheader.map_or("none".into(), |p| names.block(f, p)),
            names.blocks(f, &d.exits),
        );
        let kids: Vec<_> = loops
            .loops()
            .filter(|(_, c)| c.parent == Some(l))
            .map(|(c, _)| c)
            .collect();
        stack.extend(kids.into_iter().rev());
    }
}

fn describe(func: &Function, f: FuncId, names: &Names, form: Form) -> String {
    match form::first_violation(func, form) {
        None => "yes".into(),
        Some(v) => format!("no ({} in {})", v.keyword(), names.block(f, v.block)),
    }
}

fn print_form(m: &Module, f: FuncId, names: &Names, out: &mut String) {
    let func = m.func(f);
    header(out, "form", m, f, names);
    let _ = writeln!(
        out,
        "  plain CFG: {}",
        describe(func, f, names, Form::Plain)
    );
    let _ = writeln!(
        out,
        "  structured: {}",
        describe(func, f, names, Form::Structured)
    );
}

fn print_closure(m: &Module, f: FuncId, names: &Names, out: &mut String) {
    let func = m.func(f);
    header(out, "structural closure", m, f, names);
    match StructuralClosure::compute(func) {
        Ok(c) => {
            let _ = writeln!(out, "  ordinary: {}", names.blocks(f, c.ordinary()));
            let _ = writeln!(
                out,
                "  disconnected role blocks: {}",
                names.blocks(f, c.disconnected_roles())
            );
            let _ = writeln!(
                out,
                "  true orphans: {}",
                names.blocks(f, &c.true_orphans(func))
            );
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "  invalid: a {} names block {} that the function does not own",
                e.role,
                e.block.map_or("(none)".into(), |b| names.block(f, b))
            );
        }
    }
}
