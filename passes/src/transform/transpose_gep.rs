//! `transpose-gep` — turn element loads and stores of local aggregates into whole-value
//! `extract` / `insert`.
//!
//! **What:** for a `getelementptr` into a thread-local variable `%v`:
//! `load(gep(%v, i…))` becomes `extract(load(%v), i…)`, and `store(gep(%v, i…), e)`
//! becomes `store(%v, insert(load(%v), e, i…))`; the GEP then has no use and is removed.
//! Afterwards the variable is only loaded and stored whole, which `mem2reg` can promote.
//! `trace-gep` runs first on the function (as upstream does), so GEP chains start at
//! their variable; its two counters are reported here too. A variable with a rewritten
//! access is stored a zero value right where it is created (below).
//!
//! **Why it is exact:** the variable is `local` (one per thread and call frame) and its
//! address is used by nothing but loads, stores and GEPs, so reading it whole and writing
//! it whole at the position of an element access observes and changes exactly that
//! element: no other thread or call can see the other elements in between. Element
//! indices are the same values in the same order; an out-of-range index is undefined
//! either way (docs/semantics.md). A whole load reads elements the program may not have
//! written yet, and reading an unwritten local lane is undefined (docs/semantics.md; the
//! interpreter reports it), so each such variable gets `store %v, <zero>` right after its
//! `alloca`: every whole load then reads written memory; the zero is only ever observed
//! where the original program read an unwritten element, which was undefined.
//!
//! **Algorithm:** run `trace-gep`; trace every pointer to its local variable
//! ([`LocalPointers`]: variables whose address escapes into a phi, a stored value or
//! another lvalue are not traced); mark as not applicable every variable whose address
//! reaches any instruction other than `alloca`, `load`, `store` and `getelementptr`
//! (a call, an atomic, a print …). For each remaining GEP with at least one index, in
//! layout order: rewrite its loads, then its stores, at their positions (the index chain
//! runs from the variable: through an annotated inner GEP too), then remove it. Then
//! insert the zero store after the `alloca` of each variable that had an access
//! rewritten.
//!
//! **Refusals (GEP kept):** an annotated GEP (one address may feed several accesses, and
//! its metadata would have no single owner); a GEP into a variable that is not applicable
//! (above); a GEP into an `array` of more than 16 elements with any non-constant index in
//! its chain (a dynamic element access would become a copy of the whole array per
//! access; upstream: arrays of at most 16 elements have a select-chain fast path in the
//! SPIR-V backend); a GEP into a variable of more than 64 KiB (every access would copy
//! it, and its zero would be a constant as large).
//!
//! **Metadata:** a load's metadata moves to its `extract`, a store's to the new store.
//!
//! **Preconditions:** none (structured or plain CFG).
//!
//! **Upstream followed:** LuisaCompute `src/xir/passes/transpose_gep.cpp` and its header
//! at `16ba40f` (the rewrite templates, the trace-gep prelude, the not-applicable set, the
//! annotated-GEP and large-dynamic-array refusals, metadata to the replacement).
//! Differences: report keys are `TransposeGEPInfo`'s fields without `_count` (upstream
//! publishes none: no pipeline runs the pass); the large-array check looks at the whole
//! index chain for every GEP (upstream checks the GEP's own indices when choosing GEPs
//! and the chain only per access, which could skip an access and still remove its GEP);
//! metadata keeps its order (upstream prepends each clone, reversing it); a variable
//! whose address escapes into a longer-lived alias (rejected by the verifier today) is
//! left alone; the zero store and the 64 KiB limit are this port's (upstream reads
//! unwritten lanes, which its targets leave unspecified but xir defines as undefined
//! behaviour); the zero stores are counted internally, not published.
//!
//! **Report keys:** `traced_gep`, `removed_noop_gep` (the `trace-gep` prelude's),
//! `transposed_load`, `transposed_store`, `removed_gep`. **Changed:** any is non-zero
//! (instructions only).
//!
//! **Example:**
//! ```text
//! %v: array<f32, 4> = alloca local;     %v: array<f32, 4> = alloca local;
//!                                        store %v, <zero>;
//! %p: f32 = getelementptr %v, %i;   →    %a: array<f32, 4> = load %v;
//! %x: f32 = load %p;                     %x: f32 = arithmetic extract %a, %i;
//! ```

use crate::pass::{FunctionPass, PassContext, PassError};
use crate::transform::trace_gep::{TraceGep, TraceGepCounters};
use crate::util::local_mem::LocalPointers;
use smallvec::SmallVec;
use xir_ir::edit::{InsertPoint, InstBuilder, Rewriter};
use xir_ir::op::ArithmeticOp;
use xir_ir::{FuncId, Function, InstId, InstKind, Module, SecondaryMap, TypeData, Value};

/// The `transpose-gep` pass.
#[derive(Copy, Clone, Debug, Default)]
pub struct TransposeGep;

crate::declare_pass! {
    TransposeGep: function pass "transpose-gep" {
        summary: "Rewrites element loads/stores through GEPs into local aggregates as extract/insert on the whole value (after trace-gep).",
        form: Either,
        counters: TransposeGepCounters {
            /// GEPs rewritten to start from their chain's origin (the trace-gep prelude).
            traced_gep: Instructions,
            /// Index-less GEPs removed (the trace-gep prelude).
            removed_noop_gep: Instructions,
            /// Loads through a GEP replaced by an extract from a whole load.
            transposed_load: Instructions,
            /// Stores through a GEP replaced by a whole store of an insert.
            transposed_store: Instructions,
            /// GEPs removed after their accesses were transposed.
            removed_gep: Instructions,
        }
        internal {
            /// Variables given a zero store where they are created (see the header).
            zero_initialized_variable: Instructions,
        }
    }
}

/// Variables larger than this (in bytes) are not transposed: every access would copy
/// the whole value, and the zero store would need a constant as large.
const MAX_VARIABLE_BYTES: u64 = 1 << 16;

/// Arrays longer than this are not transposed when indexed dynamically (upstream's
/// threshold).
const MAX_DYNAMIC_ARRAY_LEN: u64 = 16;

impl FunctionPass for TransposeGep {
    fn run_on_function(
        &self,
        module: &mut Module,
        f: FuncId,
        cx: &mut PassContext,
        counters: &mut TransposeGepCounters,
    ) -> Result<(), PassError> {
        let mut traced = TraceGepCounters::default();
        TraceGep.run_on_function(module, f, cx, &mut traced)?;
        counters.traced_gep += traced.traced_gep;
        counters.removed_noop_gep += traced.removed_noop_gep;

        let candidates = candidates(module, f);
        if candidates.is_empty() {
            return Ok(());
        }
        let mut rw = Rewriter::for_module(module, f);
        let mut accessed: Vec<InstId> = Vec::new();
        for (gep, var, indices) in candidates {
            let var_ty = rw.inst(var).ty.expect("an alloca has a type");
            let users: Vec<(InstId, u32)> = rw
                .uses(Value::Inst(gep))
                .iter()
                .map(|u| (u.inst, u.index))
                .collect();
            let loads = users
                .iter()
                .filter(|(u, k)| *k == 0 && rw.inst(*u).kind == InstKind::Load);
            let loads: Vec<InstId> = loads.map(|(u, _)| *u).collect();
            let stores = users
                .iter()
                .filter(|(u, k)| *k == 0 && rw.inst(*u).kind == InstKind::Store);
            let stores: Vec<InstId> = stores.map(|(u, _)| *u).collect();
            if !loads.is_empty() || !stores.is_empty() {
                accessed.push(var);
            }
            for l in loads {
                let ty = rw.inst(l).ty.expect("a load has a type");
                let at = InsertPoint::Before(l);
                let whole = rw.at(at).load(var_ty, Value::Inst(var));
                let mut ops: SmallVec<[Value; 4]> = SmallVec::new();
                ops.push(whole);
                ops.extend(indices.iter().copied());
                let e = rw.at(at).arith(ArithmeticOp::Extract, ty, &ops);
                move_metadata(&mut rw, l, e);
                rw.replace_all_uses(Value::Inst(l), e);
                rw.remove(l);
                counters.transposed_load += 1;
            }
            for s in stores {
                let value = rw.inst(s).operands[1];
                let at = InsertPoint::Before(s);
                let whole = rw.at(at).load(var_ty, Value::Inst(var));
                let mut ops: SmallVec<[Value; 4]> = SmallVec::new();
                ops.push(whole);
                ops.push(value);
                ops.extend(indices.iter().copied());
                let updated = rw.at(at).arith(ArithmeticOp::Insert, var_ty, &ops);
                let new_store = rw.at(at).store(Value::Inst(var), updated);
                move_metadata(&mut rw, s, Value::Inst(new_store));
                rw.remove(s);
                counters.transposed_store += 1;
            }
            if rw.uses(Value::Inst(gep)).is_empty() {
                rw.remove(gep);
                counters.removed_gep += 1;
            }
        }
        accessed.sort_unstable();
        accessed.dedup();
        for var in accessed {
            let ty = rw.inst(var).ty.expect("an alloca has a type");
            let g = rw.globals();
            let size = g.types.size_of(ty) as usize; // at most MAX_VARIABLE_BYTES
            let zero = Value::Const(g.constant(ty, &vec![0u8; size]));
            let after = rw.next_inst(var).expect("an alloca is not a terminator");
            rw.at(InsertPoint::Before(after)).store(Value::Inst(var), zero);
            counters.zero_initialized_variable += 1;
        }
        Ok(())
    }
}

/// Moves the metadata of `from` to instruction `to`.
fn move_metadata(rw: &mut Rewriter, from: InstId, to: Value) {
    let Value::Inst(to) = to else {
        unreachable!("builders return instructions")
    };
    let md = std::mem::take(rw.metadata_mut(from));
    *rw.metadata_mut(to) = md;
}

/// The GEPs to transpose, in layout order, each with its variable and the index chain
/// from the variable.
fn candidates(module: &Module, f: FuncId) -> Vec<(InstId, InstId, SmallVec<[Value; 4]>)> {
    let func = module.func(f);
    let locals = LocalPointers::compute(func);
    let mut not_applicable: SecondaryMap<InstId, bool> = SecondaryMap::with_default(false);
    for i in func.placed_insts() {
        let d = &func.insts[i];
        if matches!(
            d.kind,
            InstKind::Alloca(_) | InstKind::Load | InstKind::Store | InstKind::Gep
        ) {
            continue;
        }
        for op in &d.operands {
            if let Some(var) = locals.base(*op) {
                not_applicable[var] = true;
            }
        }
    }
    let mut out = Vec::new();
    for g in func.placed_insts() {
        let d = &func.insts[g];
        if d.kind != InstKind::Gep || d.operands.len() < 2 || !d.metadata.is_empty() {
            continue;
        }
        let Some(var) = locals.base(Value::Inst(g)) else {
            continue;
        };
        if *not_applicable.get(var) {
            continue;
        }
        let Some(indices) = index_chain(func, g, var) else {
            continue;
        };
        let var_ty = func.insts[var].ty.expect("an alloca has a type");
        if module.types.size_of(var_ty) > MAX_VARIABLE_BYTES {
            continue;
        }
        let large_array = matches!(
            module.types.get(var_ty),
            TypeData::Array { len, .. } if *len > MAX_DYNAMIC_ARRAY_LEN
        );
        if large_array && indices.iter().any(|v| !matches!(v, Value::Const(_))) {
            continue;
        }
        out.push((g, var, indices));
    }
    out
}

/// The indices from variable `var` to the element GEP `g` addresses, outermost first
/// (through every GEP of the chain). `None` if the chain does not reach `var` within
/// the function's instruction count.
fn index_chain(func: &Function, g: InstId, var: InstId) -> Option<SmallVec<[Value; 4]>> {
    let mut groups: SmallVec<[&[Value]; 2]> = SmallVec::new();
    let mut cur = g;
    for _ in 0..func.insts.len() {
        let d = &func.insts[cur];
        if cur == var {
            let mut out = SmallVec::new();
            for grp in groups.iter().rev() {
                out.extend(grp.iter().copied());
            }
            return Some(out);
        }
        if d.kind != InstKind::Gep {
            return None;
        }
        groups.push(&d.operands[1..]);
        let Value::Inst(base) = *d.operands.first()? else {
            return None;
        };
        cur = base;
    }
    None
}
