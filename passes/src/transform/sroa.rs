//! `sroa` — scalar replacement of local aggregates, one level at a time.
//!
//! **What:** a `local` alloca of a struct or array (a vector with `decompose-vectors`, a
//! matrix with `decompose-matrices`) with at least two top-level elements becomes one
//! `local` alloca per element (struct members, array elements, vector lanes, matrix
//! columns), placed where the original was. A `gep` rooted at it with a constant first
//! index `k` becomes `gep` on element `k` with the remaining indices (or element `k`
//! itself); a whole load becomes per-element loads plus `aggregate`; a whole store
//! becomes per-element `extract` + store. A `name` becomes `name_k` on each element; a
//! `reg2mem_spill` marker is copied to each. Nested aggregates are not decomposed in the
//! same run (a second run takes the next level).
//!
//! **Algorithm:** per definition, classify every alloca (its transitive users through
//! `gep` must be loads, stores of which it is the pointer, or `gep`s; a `gep` directly on
//! it needs a constant, non-negative, in-range first index), then rewrite every accepted
//! alloca. An alloca that fails the check is left untouched as a whole.
//!
//! **Preconditions:** none (structured or plain CFG).
//!
//! **Options:** `decompose-vectors` (false), `decompose-matrices` (false), `aggressive`
//! (false; reserved upstream, accepted and without effect there and here).
//!
//! **Bounds:** an aggregate with more than [`MAX_ELEMENTS`] top-level elements is not
//! decomposed (upstream has no bound; this keeps one huge array from exploding into
//! millions of allocas).
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/sroa.cpp` and `sroa.h`
//! (`SROAOptions`, candidate rule, one-level decomposition, name and spill metadata,
//! report keys) and the reference §6.2 and §7.5 (spirv-final runs
//! `sroa{decompose-vectors=true}` after autodiff).
//!
//! **Report keys:** `decomposed_alloca`, `inserted_alloca`. **Changed:**
//! `decomposed_alloca > 0`.
//!
//! **Example:**
//! ```text
//! %a: struct { f32, i32 } = alloca local; %p: f32 = gep %a, 0u32; store %p, %x;
//! →  %a0: f32 = alloca local; %a1: i32 = alloca local; store %a0, %x;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::registry::{PassOptionInfo, PassOptions};
use xir_ir::constant::{ScalarValue, read_scalar};
use xir_ir::edit::{Cursor, InstBuilder};
use xir_ir::inst::InstKind;
use xir_ir::op::{AllocaOp, ArithmeticOp};
use xir_ir::{FuncId, InstId, Metadata, Module, SecondaryMap, Type, TypeData, Value};

/// Aggregates with more top-level elements than this are left alone.
pub const MAX_ELEMENTS: u64 = 1024;

/// The `sroa` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct Sroa {
    /// Split vector allocas into lanes.
    pub decompose_vectors: bool,
    /// Split matrix allocas into columns.
    pub decompose_matrices: bool,
}

crate::declare_pass! {
    Sroa: function pass "sroa" {
        summary: "Splits local aggregate allocas into one alloca per top-level element.",
        form: Either,
        options: [
            PassOptionInfo {
                name: "decompose-vectors",
                default: "false",
                help: "also split vector allocas into scalar lanes",
            },
            PassOptionInfo {
                name: "decompose-matrices",
                default: "false",
                help: "also split matrix allocas into column vectors",
            },
            PassOptionInfo {
                name: "aggressive",
                default: "false",
                help: "reserved upstream (accepted, no effect)",
            },
        ],
        create: |o: &PassOptions| Ok::<_, String>(Sroa {
            decompose_vectors: o.get_bool("decompose-vectors", false)?,
            decompose_matrices: o.get_bool("decompose-matrices", false)?,
        }),
        counters: SroaCounters {
            /// Allocas split.
            decomposed_alloca: Instructions,
            /// Element allocas created.
            inserted_alloca: Instructions,
        }
    }
}

impl Sroa {
    /// The top-level element types of `t`, when this configuration splits it.
    fn elements(&self, m: &mut Module, t: Type) -> Option<Vec<Type>> {
        let elems = match m.types.get(t).clone() {
            TypeData::Struct { members, .. } => members,
            TypeData::Array { elem, len } if len <= MAX_ELEMENTS => vec![elem; len as usize],
            TypeData::Vector { elem, len } if self.decompose_vectors => vec![elem; len as usize],
            TypeData::Matrix { elem, n } if self.decompose_matrices => {
                let col = m.types.vector(elem, n);
                vec![col; n as usize]
            }
            _ => return None,
        };
        (elems.len() > 1).then_some(elems)
    }
}

/// A constant, non-negative integer.
fn const_index(m: &Module, v: Value) -> Option<u64> {
    let c = v.as_const()?;
    let d = &m.constants[c];
    let k = m.types.scalar_kind(d.ty)?;
    if !k.is_int() {
        return None;
    }
    match read_scalar(k, &d.bytes)? {
        ScalarValue::UInt(u) => Some(u),
        ScalarValue::Int(i) if i >= 0 => Some(i as u64),
        _ => None,
    }
}

/// Users of every instruction of `f` (placed users only, one entry per operand).
fn users(m: &Module, f: FuncId) -> SecondaryMap<InstId, Vec<InstId>> {
    let func = m.func(f);
    let mut u: SecondaryMap<InstId, Vec<InstId>> = SecondaryMap::with_default(Vec::new());
    for i in func.placed_insts() {
        for v in &func.inst(i).operands {
            if let Value::Inst(d) = v {
                u[*d].push(i);
            }
        }
    }
    u
}

/// Whether every transitive user of alloca `a` is acceptable.
fn is_candidate(
    m: &Module,
    f: FuncId,
    users: &SecondaryMap<InstId, Vec<InstId>>,
    a: InstId,
    n: usize,
) -> bool {
    let func = m.func(f);
    let mut work: Vec<(InstId, InstId)> = users[a].iter().map(|u| (a, *u)).collect();
    let mut seen: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
    while let Some((used, u)) = work.pop() {
        let d = func.inst(u);
        match d.kind {
            InstKind::Load => {}
            InstKind::Store => {
                // Only as the pointer, never as the stored value.
                if d.operands.get(1) == Some(&Value::Inst(used)) {
                    return false;
                }
            }
            InstKind::Gep => {
                if d.operands.first() != Some(&Value::Inst(used)) {
                    return false;
                }
                if used == a {
                    match d.operands.get(1).and_then(|v| const_index(m, *v)) {
                        Some(k) if (k as usize) < n => {}
                        _ => return false,
                    }
                }
                if !seen[u] {
                    seen[u] = true;
                    work.extend(users[u].iter().map(|x| (u, *x)));
                }
            }
            _ => return false,
        }
    }
    true
}

fn decompose(
    m: &mut Module,
    f: FuncId,
    users: &SecondaryMap<InstId, Vec<InstId>>,
    a: InstId,
    elems: &[Type],
    c: &mut SroaCounters,
) {
    let u32_ty = m.types.u32();
    let idx: Vec<Value> = (0..elems.len() as u32)
        .map(|k| Value::Const(m.constant(u32_ty, &k.to_le_bytes())))
        .collect();
    let mut direct: Vec<InstId> = users[a].clone();
    direct.sort();
    direct.dedup();
    let first_index: Vec<Option<usize>> = direct
        .iter()
        .map(|&u| {
            let d = m.func(f).inst(u);
            match d.kind {
                InstKind::Gep => d
                    .operands
                    .get(1)
                    .and_then(|v| const_index(m, *v))
                    .map(|k| k as usize),
                _ => None,
            }
        })
        .collect();
    let func = m.func_mut(f);
    let agg_ty = func.inst(a).ty;
    let md = func.inst(a).metadata.clone();
    let mut parts = Vec::with_capacity(elems.len());
    for (k, &t) in elems.iter().enumerate() {
        let part = Cursor::before(func, a).alloca(AllocaOp::Local, t);
        let data = func.inst_mut(part.as_inst().expect("an alloca"));
        for item in &md {
            match item {
                Metadata::Name(n) => data.metadata.push(Metadata::Name(format!("{n}_{k}"))),
                Metadata::Reg2MemSpill(_) => data.metadata.push(item.clone()),
                _ => {}
            }
        }
        parts.push(part);
        c.inserted_alloca += 1;
    }
    for (&u, k) in direct.iter().zip(first_index) {
        let d = func.inst(u).clone();
        match d.kind {
            InstKind::Gep => {
                let target = parts[k.expect("checked by is_candidate")];
                let new = if d.operands.len() > 2 {
                    let ty = d.ty.expect("a gep has a type");
                    let g = Cursor::before(func, u).gep(ty, target, &d.operands[2..]);
                    func.inst_mut(g.as_inst().expect("a gep")).metadata = d.metadata.clone();
                    g
                } else {
                    target
                };
                func.replace_all_uses(Value::Inst(u), new);
            }
            InstKind::Load => {
                let mut at = Cursor::before(func, u);
                let loads: Vec<Value> = parts.iter().zip(elems).map(|(p, t)| at.load(*t, *p)).collect();
                let agg_ty = agg_ty.expect("an alloca has a type");
                let agg = at.arith(ArithmeticOp::Aggregate, agg_ty, &loads);
                func.replace_all_uses(Value::Inst(u), agg);
            }
            InstKind::Store => {
                let val = d.operands[1];
                let mut at = Cursor::before(func, u);
                for ((p, t), i) in parts.iter().zip(elems).zip(&idx) {
                    let e = at.arith(ArithmeticOp::Extract, *t, &[val, *i]);
                    at.store(*p, e);
                }
            }
            _ => unreachable!("checked by is_candidate"),
        }
        func.remove_inst(u);
    }
    func.remove_inst(a);
    c.decomposed_alloca += 1;
}

impl FunctionPass for Sroa {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        _cx: &mut PassContext,
        c: &mut SroaCounters,
    ) -> Result<(), PassError> {
        let allocas: Vec<(InstId, Type)> = {
            let func = module.func(f);
            func.placed_insts()
                .filter(|i| matches!(func.inst(*i).kind, InstKind::Alloca(AllocaOp::Local)))
                .filter_map(|i| func.inst(i).ty.map(|t| (i, t)))
                .collect()
        };
        if allocas.is_empty() {
            return Ok(());
        }
        let users = users(module, f);
        let mut accepted = Vec::new();
        for (a, t) in allocas {
            if let Some(elems) = self.elements(module, t)
                && is_candidate(module, f, &users, a, elems.len())
            {
                accepted.push((a, elems));
            }
        }
        for (a, elems) in accepted {
            decompose(module, f, &users, a, &elems, c);
        }
        Ok(())
    }
}
