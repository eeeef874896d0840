//! The control-flow plan and function bodies.
//!
//! [`plan_function`] freezes the physical SPIR-V graph of one function before anything is
//! emitted: a synthetic entry block (function-local variables; for the kernel, the
//! argument loads and the partial-block guard), one physical block per block of the
//! structural closure, synthetic unreachable merges for constructs without one, a
//! synthetic header and continue block per `simple_loop`, the reverse-post-order
//! schedule, and every block's physical successors and predecessors. Role blocks that
//! ordinary control flow never reaches are emitted in the canonical unreachable form
//! (a continue target branches back to its header, anything else is `OpUnreachable`):
//! their payload is dropped, as glslang's post-processing does.
//!
//! [`emit_function`] consumes the plan: `OpSelectionMerge` before `if`/`switch`,
//! `OpLoopMerge` in a loop's prepare block, and one `OpPhi` entry per physical
//! predecessor (undefined for a canonical-unreachable predecessor). A planned
//! predecessor without an incoming value is an internal error.

use super::{Emitter, R};
use crate::error::{CodegenError, Loc};
use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{BuiltIn, FunctionControl, Op, SelectionControl, StorageClass, Word};
use rustc_hash::{FxHashMap, FxHashSet};
use xir_ir::op::AllocaOp;
use xir_ir::{ArgKind, BlockId, FuncId, FunctionKind, InstKind, Metadata, ScalarKind, Value};

/// A physical block of the plan.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum PBlock {
    /// The synthetic function entry.
    Entry,
    /// The kernel's early return for threads outside the dispatch.
    GuardReturn,
    /// An XIR block, with its payload.
    Xir(BlockId),
    /// An XIR role block in the canonical unreachable form.
    Dead(BlockId),
    /// A synthetic `OpUnreachable` merge of the construct ending this block.
    SynthMerge(BlockId),
    /// The synthetic header of the `simple_loop` ending this block.
    SimpleHeader(BlockId),
    /// The synthetic continue target of the `simple_loop` ending this block.
    SimpleContinue(BlockId),
}

/// The frozen control-flow plan of one function.
pub(crate) struct CfPlan {
    pub order: Vec<PBlock>,
    pub labels: FxHashMap<PBlock, Word>,
    pub succs: FxHashMap<PBlock, Vec<PBlock>>,
    pub preds: FxHashMap<PBlock, Vec<PBlock>>,
    /// Loop prepare block → (merge, continue) labels.
    pub loop_headers: FxHashMap<BlockId, (PBlock, PBlock)>,
    /// simple_loop body block → its synthetic continue block.
    pub redirect: FxHashMap<BlockId, PBlock>,
    /// Physical block of each XIR block.
    pub phys: FxHashMap<BlockId, PBlock>,
}

fn plan_function(e: &mut Emitter, f: FuncId) -> CfPlan {
    let m = e.m;
    let func = m.func(f);
    let closure = crate::plan::structural_closure(func);
    let body = func.body.expect("dialect check requires a body");
    // Ordinary reachability (operand edges only).
    let mut reach = FxHashSet::default();
    let mut stack = vec![body];
    while let Some(b) = stack.pop() {
        if reach.insert(b)
            && let Some(t) = func.terminator(b)
        {
            stack.extend(func.inst(t).operand_blocks());
        }
    }
    let mut phys = FxHashMap::default();
    for &b in &closure {
        phys.insert(
            b,
            if reach.contains(&b) {
                PBlock::Xir(b)
            } else {
                PBlock::Dead(b)
            },
        );
    }
    let mut loop_headers = FxHashMap::default();
    let mut redirect = FxHashMap::default();
    let mut continue_of: FxHashMap<BlockId, PBlock> = FxHashMap::default(); // update block -> header
    let mut synth = Vec::new();
    for &b in &closure {
        let Some(t) = func.terminator(b) else {
            continue;
        };
        let inst = func.inst(t);
        match &inst.kind {
            InstKind::Loop {
                update: Some(u),
                merge: Some(mg),
                ..
            } => {
                if let Some(p) = inst.operands.first().and_then(|v| v.as_block()) {
                    loop_headers.insert(p, (phys[mg], phys[u]));
                    continue_of.insert(*u, phys[&p]);
                }
            }
            InstKind::SimpleLoop { .. } => {
                if let Some(x) = inst.operands.first().and_then(|v| v.as_block()) {
                    redirect.insert(x, PBlock::SimpleContinue(b));
                }
                synth.push(PBlock::SimpleHeader(b));
                synth.push(PBlock::SimpleContinue(b));
            }
            InstKind::If { merge: None } | InstKind::Switch { merge: None, .. } => {
                synth.push(PBlock::SynthMerge(b))
            }
            _ => {}
        }
    }
    let target = |x: BlockId| -> PBlock { redirect.get(&x).copied().unwrap_or(phys[&x]) };
    let mut succs: FxHashMap<PBlock, Vec<PBlock>> = FxHashMap::default();
    let is_kernel = matches!(func.kind, FunctionKind::Kernel { .. });
    succs.insert(
        PBlock::Entry,
        if is_kernel {
            vec![PBlock::GuardReturn, phys[&body]]
        } else {
            vec![phys[&body]]
        },
    );
    if is_kernel {
        succs.insert(PBlock::GuardReturn, vec![]);
    }
    for &b in &closure {
        let pb = phys[&b];
        let t = func
            .terminator(b)
            .expect("dialect check requires terminators");
        let inst = func.inst(t);
        let s = match pb {
            PBlock::Dead(_) => match continue_of.get(&b) {
                Some(h) => vec![*h],
                None => vec![],
            },
            _ => match &inst.kind {
                InstKind::Loop { .. } => inst.operand_blocks().map(|x| phys[&x]).collect(),
                InstKind::SimpleLoop { .. } => vec![PBlock::SimpleHeader(b)],
                InstKind::If { .. }
                | InstKind::ConditionalBranch
                | InstKind::Switch { .. }
                | InstKind::Branch
                | InstKind::Break
                | InstKind::Continue => inst.operand_blocks().map(target).collect(),
                _ => vec![],
            },
        };
        succs.insert(pb, s);
    }
    for s in &synth {
        let v = match s {
            PBlock::SimpleHeader(b) => {
                let x = func.inst(func.terminator(*b).unwrap()).operands[0]
                    .as_block()
                    .unwrap();
                vec![phys[&x]]
            }
            PBlock::SimpleContinue(b) => vec![PBlock::SimpleHeader(*b)],
            _ => vec![],
        };
        succs.insert(*s, v);
    }
    // Reverse post-order from the entry; successors visited last-first so the first arm
    // is laid out first.
    let mut post = Vec::new();
    let mut seen = FxHashSet::default();
    let mut st: Vec<(PBlock, usize)> = vec![(PBlock::Entry, 0)];
    seen.insert(PBlock::Entry);
    while let Some((n, i)) = st.last_mut() {
        let ss = &succs[n];
        if *i < ss.len() {
            let next = ss[ss.len() - 1 - *i];
            *i += 1;
            if seen.insert(next) {
                st.push((next, 0));
            }
        } else {
            post.push(*n);
            st.pop();
        }
    }
    post.reverse();
    let mut order = post;
    for &b in &closure {
        if seen.insert(phys[&b]) {
            order.push(phys[&b]);
        }
    }
    for s in &synth {
        if seen.insert(*s) {
            order.push(*s);
        }
    }
    if is_kernel && seen.insert(PBlock::GuardReturn) {
        order.push(PBlock::GuardReturn);
    }
    let mut labels = FxHashMap::default();
    for &p in &order {
        labels.insert(p, e.b.id());
    }
    let mut preds: FxHashMap<PBlock, Vec<PBlock>> = FxHashMap::default();
    for &p in &order {
        // Only emitted blocks with a path from the entry or canonical continues count.
        let mut done = FxHashSet::default();
        for &s in &succs[&p] {
            if done.insert(s) {
                preds.entry(s).or_default().push(p);
            }
        }
    }
    CfPlan {
        order,
        labels,
        succs,
        preds,
        loop_headers,
        redirect,
        phys,
    }
}

/// Per-function emission state.
pub(crate) struct FnState {
    pub f: FuncId,
    pub values: FxHashMap<Value, Word>,
    /// Storage class of every pointer value (allocas, GEPs, reference arguments).
    pub ptr_class: FxHashMap<Value, StorageClass>,
    /// Function-storage variables, placed at the top of the entry block at the end.
    pub vars: Vec<Instruction>,
    /// Planned label of the XIR block being emitted, and the label of the physical block
    /// its instructions currently go to (they differ once a lowering split the block).
    head: Word,
    cur: Word,
    /// Whether the XIR block being emitted is a loop header (its `OpLoopMerge` must stay
    /// in the block that the back edge targets, so it cannot be split).
    no_split: bool,
    /// Planned label → label of the last physical block of a split XIR block: the phis of
    /// its successors name the tail (patched when the function is complete).
    tails: FxHashMap<Word, Word>,
    /// Phis a lowering created inside a split block (their labels are already physical).
    pub lowering_phis: FxHashSet<Word>,
}

impl FnState {
    pub(crate) fn loc(&self, i: xir_ir::InstId) -> Loc {
        Loc::Inst(self.f, i)
    }

    /// Ends the current physical block with a branch to a new block `next` (a lowering's
    /// own loop header) and selects `next`; returns the label of the block that branched.
    /// The lowering's blocks are structured (a nested construct inside the XIR block) and
    /// never seen by the control-flow plan: only the XIR block's tail label changes.
    pub(crate) fn split_block(
        &mut self,
        e: &mut Emitter,
        i: xir_ir::InstId,
        next: Word,
    ) -> R<Word> {
        if self.no_split {
            return Err(CodegenError::user(vec![crate::error::Located::new(
                self.loc(i),
                "this atomic needs a compare-exchange loop, which cannot be placed in a loop's prepare block",
            )
            .help("move the atomic into the loop body")]));
        }
        let pre = self.cur;
        self.branch_to(e, i, next)?;
        self.begin(e, i, next)?;
        Ok(pre)
    }

    /// `OpBranch` ending the current physical block.
    pub(crate) fn branch_to(&mut self, e: &mut Emitter, i: xir_ir::InstId, to: Word) -> R<()> {
        e.b.branch(to)
            .map_err(|x| CodegenError::internal(self.loc(i), format!("{x:?}")))?;
        Ok(())
    }

    /// `OpBranchConditional` ending the current physical block.
    pub(crate) fn cond_branch(
        &mut self,
        e: &mut Emitter,
        i: xir_ir::InstId,
        c: Word,
        t: Word,
        f: Word,
    ) -> R<()> {
        e.b.branch_conditional(c, t, f, [])
            .map_err(|x| CodegenError::internal(self.loc(i), format!("{x:?}")))?;
        Ok(())
    }

    /// Starts physical block `label` inside the current XIR block.
    pub(crate) fn begin(&mut self, e: &mut Emitter, i: xir_ir::InstId, label: Word) -> R<()> {
        e.b.begin_block(Some(label))
            .map_err(|x| CodegenError::internal(self.loc(i), format!("{x:?}")))?;
        self.cur = label;
        self.tails.insert(self.head, label);
        Ok(())
    }
}

/// Emits one function (callee before caller: every callee id already exists).
pub(crate) fn emit_function(e: &mut Emitter, f: FuncId) -> R<()> {
    let m = e.m;
    let func = m.func(f);
    let plan = plan_function(e, f);
    let is_kernel = f == e.kernel;
    let mut st = FnState {
        f,
        values: FxHashMap::default(),
        ptr_class: FxHashMap::default(),
        vars: Vec::new(),
        head: 0,
        cur: 0,
        no_split: false,
        tails: FxHashMap::default(),
        lowering_phis: FxHashSet::default(),
    };
    // Preallocate every result id (phis and loop-carried values refer forward).
    for p in &plan.order {
        if let PBlock::Xir(b) = p {
            for &i in &func.blocks[*b].insts {
                let inst = func.inst(i);
                if inst.ty.is_some() || matches!(inst.kind, InstKind::Alloca(_)) {
                    let id = e.b.id();
                    st.values.insert(Value::Inst(i), id);
                }
            }
        }
    }
    let ret = match func.ret {
        Some(t) => e.logical(t),
        None => e.void_ty(),
    };
    let mut params = Vec::new();
    let mut param_tys = Vec::new();
    if !is_kernel {
        for &a in &func.arg_order {
            let arg = &func.args[a];
            match arg.kind {
                ArgKind::Value => {
                    let t = e.logical(arg.ty);
                    param_tys.push(t);
                    params.push((a, t));
                }
                ArgKind::Reference => {
                    let t = e.logical(arg.ty);
                    let pt = e.ptr_ty(StorageClass::Function, t);
                    param_tys.push(pt);
                    params.push((a, pt));
                    st.ptr_class.insert(Value::Arg(a), StorageClass::Function);
                }
                ArgKind::Resource => {}
            }
        }
    }
    let fty = e.fn_ty(ret, param_tys);
    let fid = e.func_ids[&f];
    e.b.begin_function(ret, Some(fid), FunctionControl::NONE, fty)
        .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
    e.name_from(fid, &func.metadata);
    for (a, t) in params {
        let id =
            e.b.function_parameter(t)
                .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
        e.name_from(id, &func.args[a].metadata);
        st.values.insert(Value::Arg(a), id);
    }
    let fn_index = e.b.selected_function().expect("function begun");
    // A simple_loop body's phis move to the loop's synthetic header; each gets a
    // forwarding phi in the synthetic continue block (for the `continue` edges).
    let mut forward: FxHashMap<xir_ir::InstId, Word> = FxHashMap::default();
    for &x in plan.redirect.keys() {
        for &i in &func.blocks[x].insts {
            if matches!(func.inst(i).kind, InstKind::Phi) {
                forward.insert(i, e.b.id());
            }
        }
    }
    for &p in &plan.order {
        let label = plan.labels[&p];
        e.b.begin_block(Some(label))
            .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
        match p {
            PBlock::Entry => {
                let body = plan.labels[&plan.phys[&func.body.unwrap()]];
                if is_kernel {
                    emit_kernel_prologue(e, &mut st)?;
                    let u3 = e.vec_ty(ScalarKind::U32, 3);
                    let gid_var = e.builtin_var(BuiltIn::GlobalInvocationId, u3);
                    let gid = e.op(Op::Load, u3, vec![Operand::IdRef(gid_var)]);
                    let ds = super::group::load_arg_block_member(e, e.dispatch_size_member, u3);
                    let b3 = e.vec_ty(ScalarKind::Bool, 3);
                    let ge = e.op(
                        Op::UGreaterThanEqual,
                        b3,
                        vec![Operand::IdRef(gid), Operand::IdRef(ds)],
                    );
                    let bt = e.bool_ty();
                    let oob = e.op(Op::Any, bt, vec![Operand::IdRef(ge)]);
                    e.op_void(
                        Op::SelectionMerge,
                        vec![
                            Operand::IdRef(body),
                            Operand::SelectionControl(SelectionControl::NONE),
                        ],
                    );
                    e.b.branch_conditional(oob, plan.labels[&PBlock::GuardReturn], body, [])
                        .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
                } else {
                    e.b.branch(body)
                        .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
                }
            }
            PBlock::GuardReturn | PBlock::SynthMerge(_) => {
                if p == PBlock::GuardReturn {
                    e.b.ret()
                        .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
                } else {
                    e.b.unreachable()
                        .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
                }
            }
            PBlock::SimpleHeader(b) => {
                simple_loop_phis(e, &mut st, &plan, b, &forward, true)?;
                let mg = match func.inst(func.terminator(b).unwrap()).kind {
                    InstKind::SimpleLoop { merge: Some(mg) } => plan.phys[&mg],
                    _ => unreachable!(),
                };
                let (ml, cl) = (plan.labels[&mg], plan.labels[&PBlock::SimpleContinue(b)]);
                e.loop_merge(ml, cl);
                let x = plan.labels[&plan.succs[&p][0]];
                e.b.branch(x)
                    .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
            }
            PBlock::SimpleContinue(b) => {
                simple_loop_phis(e, &mut st, &plan, b, &forward, false)?;
                let h = plan.labels[&PBlock::SimpleHeader(b)];
                e.b.branch(h)
                    .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
            }
            PBlock::Dead(b) => {
                e.name_from(label, &func.blocks[b].metadata);
                match plan.succs[&p].first() {
                    Some(h) => e.b.branch(plan.labels[h]),
                    None => e.b.unreachable(),
                }
                .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
            }
            PBlock::Xir(b) => emit_block(e, &mut st, &plan, b)?,
        }
    }
    e.b.end_function()
        .map_err(|x| CodegenError::internal(Loc::Func(f), format!("{x:?}")))?;
    // Function-local variables go first in the entry block.
    let vars = std::mem::take(&mut st.vars);
    let function = &mut e.b.module_mut().functions[fn_index];
    function.blocks[0].instructions.splice(0..0, vars);
    // Phis name the tail of a split predecessor.
    if !st.tails.is_empty() {
        for block in &mut function.blocks {
            for inst in block.instructions.iter_mut() {
                if inst.class.opcode != Op::Phi
                    || inst
                        .result_id
                        .is_some_and(|r| st.lowering_phis.contains(&r))
                {
                    continue;
                }
                for pair in inst.operands.chunks_mut(2) {
                    if let [_, Operand::IdRef(l)] = pair
                        && let Some(&t) = st.tails.get(l)
                    {
                        *l = t;
                    }
                }
            }
        }
    }
    Ok(())
}

fn emit_kernel_prologue(e: &mut Emitter, st: &mut FnState) -> R<()> {
    let m = e.m;
    let func = m.func(st.f);
    for &a in &func.arg_order {
        let arg = &func.args[a];
        if arg.kind != ArgKind::Value {
            continue;
        }
        let member = e.arg_members[&a];
        let laid = e.laid(arg.ty);
        let v = super::group::load_arg_block_member(e, member, laid);
        let v = if e.needs_layout(arg.ty) {
            let t = e.logical(arg.ty);
            e.op(Op::CopyLogical, t, vec![Operand::IdRef(v)])
        } else {
            v
        };
        e.name_from(v, &arg.metadata);
        st.values.insert(Value::Arg(a), v);
    }
    Ok(())
}

fn emit_block(e: &mut Emitter, st: &mut FnState, plan: &CfPlan, b: BlockId) -> R<()> {
    let m = e.m;
    let f = st.f;
    let func = m.func(f);
    let me = PBlock::Xir(b);
    e.name_from(plan.labels[&me], &func.blocks[b].metadata);
    st.head = plan.labels[&me];
    st.cur = st.head;
    st.no_split = plan.loop_headers.contains_key(&b);
    let preds = plan.preds.get(&me).cloned().unwrap_or_default();
    let insts = &func.blocks[b].insts;
    let (&term, body) = insts
        .split_last()
        .expect("dialect check requires terminators");
    let moved_phis = plan.redirect.contains_key(&b);
    for &i in body {
        let inst = func.inst(i);
        if moved_phis && matches!(inst.kind, InstKind::Phi) {
            continue; // emitted in the simple_loop's synthetic header
        }
        if let InstKind::Phi = &inst.kind {
            let ty = e.logical(inst.ty.expect("phi has a type"));
            let mut ops = Vec::new();
            for p in &preds {
                let val = match p {
                    PBlock::Xir(q) => phi_incoming(e, st, i, *q)?,
                    PBlock::Dead(_) => e.undef_of(ty),
                    _ => {
                        return Err(CodegenError::internal(
                            st.loc(i),
                            "phi in a block with a synthetic predecessor",
                        ));
                    }
                };
                ops.push(Operand::IdRef(val));
                ops.push(Operand::IdRef(plan.labels[p]));
            }
            let id = st.values[&Value::Inst(i)];
            e.op_to(Op::Phi, ty, id, ops);
            e.name_from(id, &inst.metadata);
            continue;
        }
        line_from(e, &inst.metadata);
        super::mem::emit_inst(e, st, i)?;
        if let Some(&id) = st.values.get(&Value::Inst(i)) {
            e.name_from(id, &inst.metadata);
        }
    }
    let inst = func.inst(term);
    line_from(e, &inst.metadata);
    let lab = |x: Option<BlockId>| -> Word {
        let x = x.expect("block operand");
        plan.labels[&plan.redirect.get(&x).copied().unwrap_or(plan.phys[&x])]
    };
    let err = |x: rspirv::dr::Error| CodegenError::internal(Loc::Inst(f, term), format!("{x:?}"));
    if let Some(&(mg, ct)) = plan.loop_headers.get(&b) {
        e.loop_merge(plan.labels[&mg], plan.labels[&ct]);
    }
    let ops = &inst.operands;
    match &inst.kind {
        InstKind::If { merge } => {
            let ml = match merge {
                Some(mg) => plan.labels[&plan.phys[mg]],
                None => plan.labels[&PBlock::SynthMerge(b)],
            };
            let c = e_value(e, st, ops[0])?;
            e.op_void(
                Op::SelectionMerge,
                vec![
                    Operand::IdRef(ml),
                    Operand::SelectionControl(SelectionControl::NONE),
                ],
            );
            e.b.branch_conditional(c, lab(ops[1].as_block()), lab(ops[2].as_block()), [])
                .map_err(err)?;
        }
        InstKind::Switch { labels, merge } => {
            let ml = match merge {
                Some(mg) => plan.labels[&plan.phys[mg]],
                None => plan.labels[&PBlock::SynthMerge(b)],
            };
            let sel_t = m.value_type(f, ops[0]).expect("typed selector");
            let k = m.types.scalar_kind(sel_t).expect("scalar selector");
            let mut sel = e_value(e, st, ops[0])?;
            let (width8, k) = if k == ScalarKind::Bool {
                let u = e.u32_ty();
                let one = e.const_u32(1);
                let zero = e.const_u32(0);
                sel = e.op(
                    Op::Select,
                    u,
                    vec![
                        Operand::IdRef(sel),
                        Operand::IdRef(one),
                        Operand::IdRef(zero),
                    ],
                );
                (false, ScalarKind::U32)
            } else {
                (k.size() == 8, k)
            };
            let targets: Vec<(Operand, Word)> = labels
                .iter()
                .zip(&ops[2..])
                .map(|(&l, t)| {
                    let lit = if width8 {
                        Operand::LiteralBit64(l)
                    } else {
                        Operand::LiteralBit32((l & super::types::mask(k)) as u32)
                    };
                    (lit, lab(t.as_block()))
                })
                .collect();
            e.op_void(
                Op::SelectionMerge,
                vec![
                    Operand::IdRef(ml),
                    Operand::SelectionControl(SelectionControl::NONE),
                ],
            );
            e.b.switch(sel, lab(ops[1].as_block()), targets)
                .map_err(err)?;
        }
        InstKind::Loop { .. } | InstKind::SimpleLoop { .. } => {
            let next = plan.succs[&me][0];
            e.b.branch(plan.labels[&next]).map_err(err)?;
        }
        InstKind::Branch | InstKind::Break | InstKind::Continue => {
            e.b.branch(lab(ops[0].as_block())).map_err(err)?;
        }
        InstKind::ConditionalBranch => {
            let c = e_value(e, st, ops[0])?;
            e.b.branch_conditional(c, lab(ops[1].as_block()), lab(ops[2].as_block()), [])
                .map_err(err)?;
        }
        InstKind::Return => match ops.first() {
            Some(v) => {
                let v = e_value(e, st, *v)?;
                e.b.ret_value(v).map_err(err)?;
            }
            None => e.b.ret().map_err(err)?,
        },
        InstKind::Unreachable { .. } => e.b.unreachable().map_err(err)?,
        _ => {
            return Err(CodegenError::internal(
                Loc::Inst(f, term),
                "terminator outside the dialect reached emission",
            ));
        }
    }
    Ok(())
}

/// The value phi `i` takes from XIR block `q` (a planned predecessor).
fn phi_incoming(e: &mut Emitter, st: &mut FnState, i: xir_ir::InstId, q: BlockId) -> R<Word> {
    let inst = e.m.func(st.f).inst(i);
    if !inst.is_phi() {
        return Err(CodegenError::internal(st.loc(i), "not a phi"));
    }
    match inst.phi_value_from(q) {
        Some(v) => e_value(e, st, v),
        None => Err(CodegenError::internal(
            st.loc(i),
            "phi has no incoming value for a planned predecessor",
        )),
    }
}

/// The phis of the body of the `simple_loop` ending block `b`, in its synthetic header
/// (`header`: one entry per physical predecessor, the entry block `b` and the synthetic
/// continue) or their forwarding phis in its synthetic continue block (one entry per
/// block that continues the loop). The header phi takes the XIR phi's id: the body's
/// only predecessor is the header, which dominates it.
fn simple_loop_phis(
    e: &mut Emitter,
    st: &mut FnState,
    plan: &CfPlan,
    b: BlockId,
    forward: &FxHashMap<xir_ir::InstId, Word>,
    header: bool,
) -> R<()> {
    let func = e.m.func(st.f);
    let x = func.inst(func.terminator(b).expect("terminator")).operands[0]
        .as_block()
        .expect("simple_loop body");
    let me = if header {
        PBlock::SimpleHeader(b)
    } else {
        PBlock::SimpleContinue(b)
    };
    let preds = plan.preds.get(&me).cloned().unwrap_or_default();
    let cont_preds = plan
        .preds
        .get(&PBlock::SimpleContinue(b))
        .is_some_and(|p| !p.is_empty());
    for &i in &func.blocks[x].insts {
        let inst = func.inst(i);
        let InstKind::Phi = &inst.kind else {
            continue;
        };
        let ty = e.logical(inst.ty.expect("phi has a type"));
        if !header && !cont_preds {
            continue; // the continue block is unreachable: the header reads undef
        }
        let mut ops = Vec::new();
        for p in &preds {
            let val = match p {
                PBlock::SimpleContinue(_) if cont_preds => forward[&i],
                PBlock::Xir(q) => phi_incoming(e, st, i, *q)?,
                _ => e.undef_of(ty),
            };
            ops.push(Operand::IdRef(val));
            ops.push(Operand::IdRef(plan.labels[p]));
        }
        let id = if header {
            st.values[&Value::Inst(i)]
        } else {
            forward[&i]
        };
        e.op_to(Op::Phi, ty, id, ops);
        if header {
            e.name_from(id, &inst.metadata);
        }
    }
    Ok(())
}

fn line_from(e: &mut Emitter, md: &[Metadata]) {
    for x in md {
        if let Metadata::Location { file, line } = x
            && *line >= 0
        {
            let s = e.string_id(file);
            e.op_void(
                Op::Line,
                vec![
                    Operand::IdRef(s),
                    Operand::LiteralBit32(*line as u32),
                    Operand::LiteralBit32(0),
                ],
            );
        }
    }
}

/// The SPIR-V id of an XIR operand value (special registers are loaded here).
pub(crate) fn e_value(e: &mut Emitter, st: &mut FnState, v: Value) -> R<Word> {
    match v {
        Value::Inst(_) | Value::Arg(_) => st.values.get(&v).copied().ok_or_else(|| {
            CodegenError::internal(
                Loc::Func(st.f),
                format!("value {v:?} used before it was planned"),
            )
        }),
        Value::Const(c) => Ok(e.xir_const(c)),
        Value::Undef(u) => {
            let t = e.m.undefs[u].ty;
            let t = e.logical(t);
            Ok(e.undef_of(t))
        }
        Value::Special(r) => super::group::special(e, st, r),
        Value::Block(_) | Value::Func(_) => Err(CodegenError::internal(
            Loc::Func(st.f),
            "block or function used as a value",
        )),
    }
}

/// Declares the Workgroup variable of a shared alloca, or a Function variable.
pub(crate) fn declare_alloca(
    e: &mut Emitter,
    st: &mut FnState,
    i: xir_ir::InstId,
    op: AllocaOp,
) -> R<()> {
    let inst = e.m.func(st.f).inst(i);
    let t = e.logical(inst.ty.expect("alloca has a type"));
    let id = st.values[&Value::Inst(i)];
    match op {
        AllocaOp::Local => {
            let pt = e.ptr_ty(StorageClass::Function, t);
            st.vars.push(Instruction::new(
                Op::Variable,
                Some(pt),
                Some(id),
                vec![Operand::StorageClass(StorageClass::Function)],
            ));
            st.ptr_class.insert(Value::Inst(i), StorageClass::Function);
        }
        AllocaOp::Shared => {
            let pt = e.ptr_ty(StorageClass::Workgroup, t);
            e.b.module_mut().types_global_values.push(Instruction::new(
                Op::Variable,
                Some(pt),
                Some(id),
                vec![Operand::StorageClass(StorageClass::Workgroup)],
            ));
            e.interface.push(id);
            e.shared.insert(i, id);
            st.ptr_class.insert(Value::Inst(i), StorageClass::Workgroup);
        }
    }
    Ok(())
}
