//! `xir-opt --check-semantics[=N]`: differential execution around every pass invocation.
//!
//! Before the pipeline, every kernel of the module is interpreted (`xir-interp`, the
//! reference interpreter) on N generated inputs (buffers of one element per thread of a
//! two-block dispatch; see `xir_interp::differential`). Runs that hit undefined
//! behaviour are *not defined* and are not compared; the number of defined runs is
//! reported, and a module with none fails (nothing would be checked).
//!
//! After every invocation that changed the module, the kernels are interpreted again on
//! the defined inputs. The first invocation whose results differ from the reference
//! (bitwise, all NaNs equal) or that turns a defined run into undefined behaviour fails
//! the run (exit status 3, like other passes that broke the module), naming the
//! invocation path, the input (its seed and dispatch) and the first differing element.
//! Passes whose name mentions `fast-math` are excepted: they may change float results.
//!
//! Layering: this is an [`Instrumentation`] hook, like the IR printer; the driver
//! depends on the interpreter library (which depends on `xir-ir` only), never the
//! passes on either.

use xir_interp::differential::{DEFAULT_MAX_STEPS, Outcome, Reference, kernels};
use xir_ir::Module;
use xir_passes::pipeline::{Instrumentation, Invocation};

/// The `--check-semantics` hook.
pub struct SemanticChecker {
    reference_module: Module,
    reference: Reference,
    /// The first failure (`error: …` text), once found; later invocations are not checked.
    pub failure: Option<String>,
    /// Invocations checked.
    pub checked: u64,
}

impl SemanticChecker {
    /// Interprets `m` on `n` inputs per kernel. `Err` when no run is defined.
    pub fn new(m: &Module, n: u32) -> Result<(Self, String), String> {
        let reference = Reference::new(m, n, DEFAULT_MAX_STEPS)
            .map_err(|e| format!("--check-semantics: {e}"))?;
        let k = kernels(m).len();
        if k == 0 {
            return Err("--check-semantics: the module has no kernel to run".into());
        }
        let defined = reference.defined();
        let total = reference.total();
        if defined == 0 {
            let why = reference
                .runs
                .iter()
                .flatten()
                .find_map(|(_, o)| match o {
                    Outcome::Undefined(f) | Outcome::Inconclusive(f) => Some(f.message.clone()),
                    Outcome::Refused(r) => Some(format!("refused: {r}")),
                    Outcome::Defined(_) => None,
                })
                .unwrap_or_default();
            return Err(format!(
                "--check-semantics: none of the {total} runs was defined (first: {why})"
            ));
        }
        let note = format!("check-semantics: {defined} of {total} runs defined\n");
        Ok((
            Self {
                reference_module: m.clone(),
                reference,
                failure: None,
                checked: 0,
            },
            note,
        ))
    }

    /// Checks `m` now (after invocation `inv`); records the first mismatch.
    fn check(&mut self, inv: &Invocation<'_>, m: &Module) {
        if self.failure.is_some() || inv.pass.contains("fast-math") {
            return;
        }
        self.checked += 1;
        let Some(mm) = self
            .reference
            .check(&self.reference_module, m, DEFAULT_MAX_STEPS)
        else {
            return;
        };
        let (_, dispatch) = self.reference.runs[mm.kernel]
            .iter()
            .find(|(i, _)| i.seed == mm.seed)
            .map(|(i, o)| (o, i.dispatch))
            .unwrap_or((&Outcome::Refused(String::new()), [0; 3]));
        let name = kernel_name(&self.reference_module, mm.kernel);
        self.failure = Some(format!(
            "pass '{}' (invocation {}) changed the semantics of kernel {name} on generated input {} (dispatch {},{},{}): {}",
            inv.path, inv.index, mm.seed, dispatch[0], dispatch[1], dispatch[2], mm.message
        ));
    }
}

fn kernel_name(m: &Module, k: usize) -> String {
    let f = kernels(m)[k];
    match xir_ir::metadata::find_name(&m.func(f).metadata) {
        Some(n) => format!("'{n}'"),
        // `#i`: the i-th function of the module, as `xir-run --kernel` names it.
        None => format!(
            "#{}",
            m.func_order.iter().position(|&g| g == f).unwrap_or(0)
        ),
    }
}

impl Instrumentation for SemanticChecker {
    fn after_pass(&mut self, inv: &Invocation<'_>, m: &Module, changed: bool) {
        if changed {
            self.check(inv, m);
        }
    }
}
