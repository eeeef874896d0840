//! # xir-interp — the reference interpreter of XIR compute kernels
//!
//! Executes a kernel as LuisaCompute defines it (`docs/semantics.md` gives the meaning
//! of every op with its source), and never computes undefined behaviour: an
//! out-of-bounds index, a division by zero, a shift past the width, a data race, a
//! branch on an undefined value, … stop the run with the instruction's location and the
//! thread ([`FaultKind::Undefined`]).
//!
//! ```text
//! Module ──lower()──▶ Program ──run(args, RunConfig)──▶ Finished | Fault
//! ```
//!
//! * [`lower`] turns the kernel and the callables it reaches into a register machine
//!   ([`code`]): per function a flat op list over `u64` lanes, each value at a fixed
//!   register offset, phis as edge moves. What is not executed ([`support`]) is refused
//!   here, located, before anything runs.
//! * [`exec`] runs it: blocks in order, threads under a deterministic scheduler that
//!   honours `synchronize_block`, warp ops in lock step, a shadow-memory race detector.
//! * [`spec`] reads the buffer specification (`SPEC.json`) and prints results; it is
//!   engine-neutral (buffers are native-layout bytes), for `xir-run`'s other engines too.

#![warn(missing_docs)]

pub mod code;
pub mod differential;
pub mod exec;
pub mod layout;
pub mod lower;
pub mod scalar;
pub mod spec;
pub mod support;
mod vecmath;

pub use exec::{ArgValue, Finished, RunConfig, Schedule, run};
pub use lower::lower;

use xir_ir::diag::{Diagnostic, Span};
use xir_ir::{FuncId, InstId, Module};

/// A lowered kernel.
pub struct Program {
    pub(crate) codes: Vec<code::Code>,
    pub(crate) args: Vec<code::KernelArg>,
    pub(crate) shared_lanes: u32,
    pub(crate) track_undef: bool,
    /// The kernel's block size from the module.
    pub block_size: [u32; 3],
    /// The kernel.
    pub kernel: FuncId,
}

impl Program {
    /// Ops of all lowered functions (for statistics).
    pub fn op_count(&self) -> usize {
        self.codes.iter().map(|c| c.ops.len()).sum()
    }
}

/// Why a run stopped early.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// Undefined behaviour was detected (exit status 3).
    Undefined,
    /// `assert` failed (exit status 3: the kernel's own check of a defined-ness
    /// precondition).
    AssertFailed,
    /// The step limit was reached (exit status 4).
    Inconclusive,
}

/// A run that stopped early, located.
#[derive(Clone, Debug)]
pub struct Fault {
    /// What kind.
    pub kind: FaultKind,
    /// What happened.
    pub message: String,
    /// The function.
    pub func: FuncId,
    /// The instruction.
    pub inst: Option<InstId>,
    /// Its source location.
    pub span: Option<Span>,
    /// The thread (dispatch id).
    pub thread: [u32; 3],
    /// The block (block id).
    pub block: [u32; 3],
    /// `print` lines up to the fault.
    pub prints: Vec<String>,
}

impl Fault {
    /// The fault as a diagnostic: the message at the instruction, the thread as a note.
    pub fn diagnostic(&self) -> Diagnostic {
        let head = match self.kind {
            FaultKind::Undefined => format!("undefined behaviour: {}", self.message),
            FaultKind::AssertFailed => self.message.clone(),
            FaultKind::Inconclusive => format!("inconclusive: {}", self.message),
        };
        let t = self.thread;
        let b = self.block;
        Diagnostic::error(head, self.span).with_note(format!(
            "in thread dispatch_id ({}, {}, {}) of block ({}, {}, {})",
            t[0], t[1], t[2], b[0], b[1], b[2]
        ))
    }
}

/// The kernel named `name` (its `name` metadata, its label in `source`, or `#k` for
/// the k-th function), or the only kernel of the module.
pub fn find_kernel(
    m: &Module,
    name: Option<&str>,
    map: Option<&xir_ir::source_map::SourceMap>,
    source: Option<&str>,
) -> Result<FuncId, String> {
    let kernels: Vec<FuncId> = m
        .func_order
        .iter()
        .copied()
        .filter(|&f| matches!(m.func(f).kind, xir_ir::FunctionKind::Kernel { .. }))
        .collect();
    let Some(name) = name else {
        return match kernels.as_slice() {
            [k] => Ok(*k),
            [] => Err("the module has no kernel".into()),
            _ => Err(format!(
                "the module has {} kernels; choose one with --kernel NAME",
                kernels.len()
            )),
        };
    };
    let label = |f: FuncId| -> Option<String> {
        let span = map?.func(f)?;
        let text = source?.get(span.range())?;
        let at = text.find('%')?;
        let rest = &text[at + 1..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '$' || c == '-'))
            .unwrap_or(rest.len());
        Some(rest[..end].to_string())
    };
    let wanted = name.strip_prefix('%').unwrap_or(name);
    for (k, &f) in m.func_order.iter().enumerate() {
        let md = xir_ir::metadata::find_name(&m.func(f).metadata);
        if md == Some(wanted) || label(f).as_deref() == Some(wanted) || format!("#{k}") == wanted {
            return Ok(f);
        }
    }
    Err(format!("no function named '{name}' in the module"))
}

/// Exit statuses of `xir-run`.
pub mod exit {
    /// Success.
    pub const OK: i32 = 0;
    /// Bad input (usage, parse, verify, spec, refusal).
    pub const USER: i32 = 1;
    /// Internal error.
    pub const INTERNAL: i32 = 2;
    /// Undefined behaviour (or a failed assert).
    pub const UNDEFINED: i32 = 3;
    /// Step limit reached.
    pub const INCONCLUSIVE: i32 = 4;
}
