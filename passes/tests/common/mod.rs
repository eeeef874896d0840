//! Shared helpers for the pipeline tests: a tiny module, a stand-in verifier (every
//! block ends in exactly one terminator) and a recording instrumentation.

#![allow(dead_code)]

use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::{Function, FunctionKind, Module, Value};
use xir_passes::pipeline::{
    Instrumentation, Invocation, Loader, Pipeline, RunOptions, RunResult, Runner, Verifier,
};
use xir_passes::registry::Registry;

/// A kernel `entry: br exit; exit: return`.
pub fn module() -> Module {
    let mut m = Module::new();
    let mut f = Function::new(FunctionKind::kernel(), None);
    let entry = f.ensure_body();
    let exit = f.create_block();
    Cursor::at_end(&mut f, entry).br(exit);
    Cursor::at_end(&mut f, exit).ret(None);
    m.add_function(f);
    m
}

/// A kernel whose body is a structured `if`.
pub fn structured_module() -> Module {
    let mut m = Module::new();
    let b = m.types.bool();
    let t = m.constant(b, &[1]);
    let mut f = Function::new(FunctionKind::kernel(), None);
    let entry = f.ensure_body();
    let then = f.create_block();
    let merge = f.create_block();
    Cursor::at_end(&mut f, entry).if_(Value::Const(t), then, merge, merge);
    Cursor::at_end(&mut f, then).br(merge);
    Cursor::at_end(&mut f, merge).ret(None);
    m.add_function(f);
    m
}

/// Every block of every body ends in exactly one terminator.
pub struct TerminatorVerifier;

impl Verifier for TerminatorVerifier {
    fn verify(&self, m: &Module, _flags: &[String]) -> Result<(), String> {
        for (k, &f) in m.func_order.iter().enumerate() {
            let func = m.func(f);
            for (bk, &b) in func.block_order.iter().enumerate() {
                let insts = &func.blocks[b].insts;
                let terms = insts
                    .iter()
                    .filter(|i| func.inst(**i).kind.is_terminator())
                    .count();
                if terms != 1 || func.terminator(b).is_none() {
                    return Err(format!("function #{k}: block #{bk} is not terminated"));
                }
            }
        }
        Ok(())
    }
}

/// Records every hook call as a line.
#[derive(Default)]
pub struct Recorder {
    pub events: Vec<String>,
}

impl Instrumentation for Recorder {
    fn before_pass(&mut self, inv: &Invocation<'_>, _m: &Module) {
        self.events
            .push(format!("before ({}) {}", inv.index, inv.path));
    }
    fn after_pass(&mut self, inv: &Invocation<'_>, _m: &Module, changed: bool) {
        self.events.push(format!(
            "after ({}) {} changed={changed}",
            inv.index, inv.path
        ));
    }
    fn refused(&mut self, inv: &Invocation<'_>, _m: &Module, reason: &str) {
        self.events
            .push(format!("refused ({}) {}: {reason}", inv.index, inv.path));
    }
    fn skipped(&mut self, inv: &Invocation<'_>) {
        self.events
            .push(format!("skipped ({}) {}", inv.index, inv.path));
    }
}

/// Loads inline pipeline text with test passes enabled (panics on load errors).
pub fn load(text: &str) -> Pipeline {
    let reg = Registry::new(true);
    let loader = Loader::new(&reg);
    match loader.load_inline(text) {
        Ok(p) => p,
        Err(e) => panic!("{}", e.render()),
    }
}

/// Runs `text` on `m`; returns the result and the log text.
pub fn run_with(text: &str, m: &mut Module, options: RunOptions) -> (RunResult, String) {
    let p = load(text);
    let mut log = Vec::new();
    let v = TerminatorVerifier;
    let r = Runner::new(options, &mut log).with_verifier(&v).run(&p, m);
    (r, String::from_utf8(log).unwrap())
}

/// Runs with default options (verify-each on).
pub fn run(text: &str, m: &mut Module) -> (RunResult, String) {
    run_with(text, m, RunOptions::default())
}
