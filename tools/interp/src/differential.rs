//! Differential execution: generated defined inputs, runs of a module's kernels on them,
//! and the bitwise comparison of two runs' results. `xir-opt --check-semantics`,
//! `xir-bisect --semantics`, `xir-reduce --semantics` and the pass property test share it.
//!
//! * [`generate_inputs`] binds every argument of a kernel from a seed: each buffer gets
//!   one element per dispatched thread, with integers mixing small values (which index
//!   and divide) and full-range ones, floats finite (small, fractional, large, ±0).
//!   Inputs are not defined by construction: a run on them may hit undefined behaviour,
//!   and callers count such inputs as *not defined* and skip them.
//! * [`run_kernels`] interprets every kernel of a module on one input set.
//! * [`first_difference`] compares two result sets bitwise, all NaNs equal.

use crate::exec::{ArgValue, Finished, RunConfig, Schedule};
use crate::layout::{layout, read_scalar};
use crate::scalar::format_lane;
use crate::{Fault, FaultKind};
use xir_ir::rng::Rng;
use xir_ir::{ArgKind, FuncId, FunctionKind, Module, ScalarKind, TypeData};

/// Default step limit of one differential run (all threads together).
pub const DEFAULT_MAX_STEPS: u64 = 20_000_000;

/// The kernels of `m`, in module order.
pub fn kernels(m: &Module) -> Vec<FuncId> {
    m.func_order
        .iter()
        .copied()
        .filter(|&f| matches!(m.func(f).kind, FunctionKind::Kernel { .. }))
        .collect()
}

/// The dispatch a kernel is checked with when none is given: two blocks along x.
pub fn default_dispatch(m: &Module, kernel: FuncId) -> [u32; 3] {
    match m.func(kernel).kind {
        FunctionKind::Kernel { block_size } => [
            block_size[0].saturating_mul(2),
            block_size[1],
            block_size[2],
        ],
        _ => [1, 1, 1],
    }
}

/// Generated inputs for one kernel.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// One value per kernel argument.
    pub args: Vec<ArgValue>,
    /// The dispatch (threads per axis).
    pub dispatch: [u32; 3],
    /// The seed they were generated from.
    pub seed: u64,
}

fn random_lane(rng: &mut Rng, k: ScalarKind) -> u64 {
    let small = |rng: &mut Rng| (rng.below(40) as i64 - 8) as u64;
    match k {
        ScalarKind::Bool => rng.below(2),
        ScalarKind::F16 | ScalarKind::F32 | ScalarKind::F64 => {
            let x: f64 = match rng.below(6) {
                0 => 0.0,
                1 => -0.0,
                2 => small(rng) as i64 as f64,
                3 => (rng.below(2001) as f64 - 1000.0) / 64.0,
                4 => (rng.below(1 << 20) as f64 - (1 << 19) as f64) * 1.0e3,
                _ => (rng.below(1_000_000) as f64) / 997.0 - 500.0,
            };
            match k {
                ScalarKind::F16 => half::f16::from_f64(x).to_bits() as u64,
                ScalarKind::F32 => (x as f32).to_bits() as u64,
                _ => x.to_bits(),
            }
        }
        _ => {
            let v = if rng.chance(70) {
                small(rng)
            } else {
                rng.next_u64()
            };
            v & crate::scalar::mask(k)
        }
    }
}

/// Inputs for `kernel` from `seed`: buffers of one element per thread of `dispatch`,
/// value arguments random. Arguments the interpreter cannot bind are an error.
pub fn generate_inputs(
    m: &Module,
    kernel: FuncId,
    dispatch: [u32; 3],
    seed: u64,
) -> Result<Inputs, String> {
    let mut rng = Rng::new(seed.wrapping_mul(0x9e37_79b9));
    let threads = dispatch.iter().map(|&d| d as u64).product::<u64>();
    if threads > 1 << 20 {
        return Err(format!(
            "dispatch of {threads} threads is too large to check"
        ));
    }
    let f = m.func(kernel);
    let ts = &m.types;
    let mut args = Vec::new();
    for (k, &a) in f.arg_order.iter().enumerate() {
        let ad = &f.args[a];
        let (elem, count) = match (ad.kind, ts.get(ad.ty)) {
            (ArgKind::Resource, TypeData::Buffer { elem: Some(e) }) => (*e, threads),
            (ArgKind::Resource, TypeData::Buffer { elem: None }) => {
                // A byte buffer: four random bytes per thread.
                let bytes = (0..threads * 4).map(|_| rng.below(256) as u8).collect();
                args.push(ArgValue::Buffer(bytes));
                continue;
            }
            (ArgKind::Value, _) => (ad.ty, 1),
            _ => {
                return Err(format!(
                    "argument {k} is a {} argument of a type generated inputs cannot bind",
                    ad.kind.name()
                ));
            }
        };
        let lay = layout(ts, elem).map_err(|e| format!("argument {k}: {e:?}"))?;
        let size = lay.size as usize;
        let mut bytes = vec![0u8; size * count as usize];
        for e in 0..count as usize {
            for &(off, sk) in &lay.plan {
                let v = random_lane(&mut rng, sk);
                crate::layout::write_scalar(&mut bytes, e * size + off as usize, sk, v);
            }
        }
        args.push(match ad.kind {
            ArgKind::Value => ArgValue::Value(bytes),
            _ => ArgValue::Buffer(bytes),
        });
    }
    Ok(Inputs {
        args,
        dispatch,
        seed,
    })
}

/// The outcome of interpreting one kernel on one input.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// It ran to the end.
    Defined(Finished),
    /// Undefined behaviour or a failed assert.
    Undefined(Fault),
    /// The step limit was reached.
    Inconclusive(Fault),
    /// The interpreter refuses the kernel (the message of the first refusal).
    Refused(String),
}

/// The warp size of differential runs unless a caller gives another (`xir-run`'s
/// default).
pub const DEFAULT_WARP_SIZE: u32 = 32;

/// Runs `kernel` of `m` on `inputs` with warp size [`DEFAULT_WARP_SIZE`].
pub fn run_kernel(m: &Module, kernel: FuncId, inputs: &Inputs, max_steps: u64) -> Outcome {
    run_kernel_with_warp_size(m, kernel, inputs, max_steps, DEFAULT_WARP_SIZE)
}

/// Runs `kernel` of `m` on `inputs` with warp operations over `warp_size` threads
/// (to compare with a device whose subgroup size is `warp_size`).
pub fn run_kernel_with_warp_size(
    m: &Module,
    kernel: FuncId,
    inputs: &Inputs,
    max_steps: u64,
    warp_size: u32,
) -> Outcome {
    let p = match crate::lower(m, kernel, None) {
        Ok(p) => p,
        Err(d) => {
            let msg = d.first().map(|d| d.message.clone()).unwrap_or_default();
            return Outcome::Refused(msg);
        }
    };
    let cfg = RunConfig {
        dispatch: inputs.dispatch,
        block_size: p.block_size,
        warp_size,
        schedule: Schedule::Forward,
        max_steps,
    };
    match crate::run(&p, inputs.args.clone(), &cfg) {
        Ok(f) => Outcome::Defined(f),
        Err(f) if f.kind == FaultKind::Inconclusive => Outcome::Inconclusive(f),
        Err(f) => Outcome::Undefined(f),
    }
}

/// The first element where two runs of `kernel` differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// Kernel argument index of the buffer.
    pub arg: usize,
    /// Element index.
    pub element: usize,
    /// The element in the reference run (lanes, `, `-separated).
    pub expected: String,
    /// The element in the other run.
    pub actual: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "arg{}[{}] = {} (expected {})",
            self.arg, self.element, self.actual, self.expected
        )
    }
}

fn lane_eq(k: ScalarKind, a: u64, b: u64) -> bool {
    if a == b {
        return true;
    }
    let nan = |v: u64| match k {
        ScalarKind::F16 => half::f16::from_bits(v as u16).is_nan(),
        ScalarKind::F32 => f32::from_bits(v as u32).is_nan(),
        ScalarKind::F64 => f64::from_bits(v).is_nan(),
        _ => false,
    };
    nan(a) && nan(b)
}

/// Compares the buffers of two runs of `kernel` (types from `m`, the reference module):
/// bitwise, all NaNs equal. `None` when they agree.
pub fn first_difference(
    m: &Module,
    kernel: FuncId,
    expected: &Finished,
    actual: &Finished,
) -> Option<Difference> {
    first_difference_by(m, kernel, expected, actual, lane_eq)
}

/// Whether two float lanes of kind `k` are both zeros (of either sign).
pub fn both_zero(k: ScalarKind, a: u64, b: u64) -> bool {
    let sign = match k {
        ScalarKind::F16 => 1 << 15,
        ScalarKind::F32 => 1 << 31,
        ScalarKind::F64 => 1 << 63,
        _ => return false,
    };
    a & !sign == 0 && b & !sign == 0
}

/// Like [`first_difference`] but lanes are equal when `same(kind, expected, actual)`
/// or they are bitwise equal or both NaN.
pub fn first_difference_by(
    m: &Module,
    kernel: FuncId,
    expected: &Finished,
    actual: &Finished,
    same: impl Fn(ScalarKind, u64, u64) -> bool,
) -> Option<Difference> {
    let lane_eq = |k, a, b| lane_eq(k, a, b) || same(k, a, b);
    let f = m.func(kernel);
    for (k, &a) in f.arg_order.iter().enumerate() {
        let (Some(Some(x)), Some(Some(y))) = (expected.buffers.get(k), actual.buffers.get(k))
        else {
            continue;
        };
        let elem = match m.types.get(f.args[a].ty) {
            TypeData::Buffer { elem: Some(e) } => Some(*e),
            _ => None,
        };
        let lay = elem.and_then(|e| layout(&m.types, e).ok());
        let (size, plan) = match &lay {
            Some(l) if l.size > 0 => (l.size as usize, l.plan.clone()),
            _ => (1, vec![(0, ScalarKind::U8)]),
        };
        if x.len() != y.len() {
            return Some(Difference {
                arg: k,
                element: x.len().min(y.len()) / size,
                expected: format!("{} bytes", x.len()),
                actual: format!("{} bytes", y.len()),
            });
        }
        for e in 0..x.len() / size {
            let base = e * size;
            let same = plan.iter().all(|&(off, sk)| {
                let o = base + off as usize;
                lane_eq(sk, read_scalar(x, o, sk), read_scalar(y, o, sk))
            });
            if !same {
                let show = |b: &[u8]| {
                    plan.iter()
                        .map(|&(off, sk)| {
                            format_lane(sk, read_scalar(b, base + off as usize, sk), false)
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                return Some(Difference {
                    arg: k,
                    element: e,
                    expected: show(x),
                    actual: show(y),
                });
            }
        }
    }
    None
}

/// Reference results of a module: per kernel (module order), per input, the outcome.
pub struct Reference {
    /// Kernel position → inputs and outcomes.
    pub runs: Vec<Vec<(Inputs, Outcome)>>,
}

impl Reference {
    /// Interprets every kernel of `m` on `n` generated inputs each.
    pub fn new(m: &Module, n: u32, max_steps: u64) -> Result<Self, String> {
        let mut runs = Vec::new();
        for kernel in kernels(m) {
            let dispatch = default_dispatch(m, kernel);
            let mut per = Vec::new();
            for s in 0..n as u64 {
                let inputs = generate_inputs(m, kernel, dispatch, s)?;
                let out = run_kernel(m, kernel, &inputs, max_steps);
                per.push((inputs, out));
            }
            runs.push(per);
        }
        Ok(Self { runs })
    }

    /// Inputs on which the reference run was defined, over all kernels.
    pub fn defined(&self) -> usize {
        self.runs
            .iter()
            .flatten()
            .filter(|(_, o)| matches!(o, Outcome::Defined(_)))
            .count()
    }

    /// Total inputs.
    pub fn total(&self) -> usize {
        self.runs.iter().map(Vec::len).sum()
    }

    /// Re-runs `m` (a transformed copy of the reference module `reference`) on every
    /// defined input; the first input whose result changed, explained.
    pub fn check(&self, reference: &Module, m: &Module, max_steps: u64) -> Option<Mismatch> {
        let now = kernels(m);
        let before = kernels(reference);
        if now.len() != before.len() {
            return Some(Mismatch {
                kernel: 0,
                seed: 0,
                message: format!(
                    "the module had {} kernels and now has {}",
                    before.len(),
                    now.len()
                ),
            });
        }
        for (k, per) in self.runs.iter().enumerate() {
            for (inputs, out) in per {
                let Outcome::Defined(want) = out else {
                    continue;
                };
                let message = match run_kernel(m, now[k], inputs, max_steps) {
                    Outcome::Defined(got) => {
                        match first_difference(reference, before[k], want, &got) {
                            None => continue,
                            Some(d) => format!("result differs: {d}"),
                        }
                    }
                    Outcome::Undefined(f) => {
                        format!("a defined run became undefined: {}", f.message)
                    }
                    Outcome::Inconclusive(f) => {
                        format!("a defined run became inconclusive: {}", f.message)
                    }
                    Outcome::Refused(r) => {
                        format!("the interpreter now refuses the kernel: {r}")
                    }
                };
                return Some(Mismatch {
                    kernel: k,
                    seed: inputs.seed,
                    message,
                });
            }
        }
        None
    }
}

/// A changed result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Kernel position (module order).
    pub kernel: usize,
    /// The input's seed.
    pub seed: u64,
    /// What changed.
    pub message: String,
}
