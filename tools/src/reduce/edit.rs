//! The module edits reduction candidates are made of. Each edit leaves the module
//! structurally consistent as far as it can (uses of deleted values become undefined
//! values of the same type, phis lose incomings from blocks that no longer branch to
//! them, blocks that stop being reachable disappear); the verifier has the last word on
//! whether a candidate is kept.

use xir_ir::inst::{InstData, InstKind};
use xir_ir::types::TypeData;
use xir_ir::{
    ArgId, BlockId, ConstId, FuncId, Function, InstId, Module, SecondaryMap, Type, Value,
};

/// An undefined value of `ty` (revived if an earlier edit retired it).
pub fn undef(m: &mut Module, ty: Type) -> Value {
    let u = m.undef(ty);
    m.undefs[u].live = true;
    Value::Undef(u)
}

/// A zero constant of `ty`, for plain data types (scalars, vectors, matrices, arrays,
/// structures).
pub fn zero(m: &mut Module, ty: Type) -> Option<Value> {
    if !is_data(m, ty) {
        return None;
    }
    let size = m.types.size_of(ty) as usize;
    Some(Value::Const(m.constant(ty, &vec![0u8; size])))
}

fn is_data(m: &Module, ty: Type) -> bool {
    match m.types.get(ty) {
        TypeData::Scalar(_) | TypeData::Vector { .. } | TypeData::Matrix { .. } => true,
        TypeData::Array { elem, .. } => is_data(m, *elem),
        TypeData::Struct { members, .. } => members.iter().all(|t| is_data(m, *t)),
        _ => false,
    }
}

/// Replaces every use of instruction `i` of `f` by an undefined value of its type.
/// Returns false when `i` is used but has no type (nothing can stand in for it).
pub fn replace_uses_with_undef(m: &mut Module, f: FuncId, i: InstId) -> bool {
    let used = m
        .func(f)
        .placed_insts()
        .any(|u| m.func(f).insts[u].operands.contains(&Value::Inst(i)));
    if !used {
        return true;
    }
    let Some(ty) = m.func(f).insts[i].ty else {
        return false;
    };
    let u = undef(m, ty);
    m.func_mut(f).replace_all_uses(Value::Inst(i), u);
    true
}

/// Deletes instructions (their uses become undefined values). Terminators are skipped.
pub fn delete_insts(m: &mut Module, f: FuncId, insts: &[InstId]) -> bool {
    for &i in insts {
        if m.func(f).insts[i].block.is_none() || m.func(f).insts[i].kind.is_terminator() {
            continue;
        }
        if !replace_uses_with_undef(m, f, i) {
            return false;
        }
        m.func_mut(f).remove_inst(i);
    }
    true
}

/// Deletes functions; calls to them are deleted too (their results become undefined).
pub fn delete_functions(m: &mut Module, funcs: &[FuncId]) -> bool {
    for &g in funcs {
        m.remove_function(g);
    }
    let order = m.func_order.clone();
    for f in order {
        let calls: Vec<InstId> = m
            .func(f)
            .placed_insts()
            .filter(|&i| {
                let d = &m.func(f).insts[i];
                matches!(d.kind, InstKind::Call)
                    && d.operands
                        .first()
                        .and_then(|v| v.as_func())
                        .is_some_and(|g| funcs.contains(&g))
            })
            .collect();
        if !delete_insts(m, f, &calls) {
            return false;
        }
    }
    true
}

/// What a block's terminator becomes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum NewTerminator {
    /// `unreachable`.
    Unreachable,
    /// `return` (with a zero value when the function returns one).
    Return,
    /// `br` to the terminator's `k`-th operand block.
    Successor(usize),
}

/// Replaces the terminator of `b`.
pub fn set_terminator(m: &mut Module, f: FuncId, b: BlockId, t: NewTerminator) -> bool {
    let Some(old) = m.func(f).terminator(b) else {
        return false;
    };
    let data = match t {
        NewTerminator::Unreachable => InstData::new(
            InstKind::Unreachable {
                message: String::new(),
            },
            None,
            [],
        ),
        NewTerminator::Return => {
            let ops = match m.func(f).ret {
                None => Vec::new(),
                Some(ty) => match zero(m, ty) {
                    Some(z) => vec![z],
                    None => return false,
                },
            };
            InstData::new(InstKind::Return, None, ops)
        }
        NewTerminator::Successor(k) => {
            let Some(target) = m.func(f).insts[old].operand_blocks().nth(k) else {
                return false;
            };
            InstData::new(InstKind::Branch, None, [Value::Block(target)])
        }
    };
    if m.func(f).insts[old].kind == data.kind && m.func(f).insts[old].operands == data.operands {
        return false;
    }
    let fun = m.func_mut(f);
    fun.remove_inst(old);
    fun.append_inst(b, data);
    true
}

/// Blocks reachable from the body along operand edges and structured fields (merge,
/// loop body and update), which are the blocks a printer and verifier still see.
pub fn reachable(f: &Function) -> SecondaryMap<BlockId, bool> {
    let mut seen = SecondaryMap::with_default(false);
    let Some(entry) = f.body else { return seen };
    let mut work = vec![entry];
    seen[entry] = true;
    while let Some(b) = work.pop() {
        let Some(t) = f.terminator(b) else { continue };
        let d = &f.insts[t];
        let mut next: Vec<BlockId> = d.operand_blocks().collect();
        if let InstKind::Loop { body, update, .. } = &d.kind {
            next.extend(body.iter().chain(update.iter()).copied());
        }
        next.extend(d.kind.merge());
        for s in next {
            if f.has_block(s) && !seen[s] {
                seen[s] = true;
                work.push(s);
            }
        }
    }
    seen
}

/// Removes the blocks of `f` that `before` marked reachable and that are no longer
/// reachable, then drops phi incomings from blocks that are not predecessors any more
/// (a phi left with none is deleted). Uses of values of removed blocks become undefined.
pub fn cleanup(m: &mut Module, f: FuncId, before: &SecondaryMap<BlockId, bool>) {
    let now = reachable(m.func(f));
    let dead: Vec<BlockId> = m
        .func(f)
        .block_order
        .iter()
        .copied()
        .filter(|&b| before[b] && !now[b])
        .collect();
    for &b in &dead {
        let insts = m.func(f).blocks[b].insts.clone();
        for i in insts {
            replace_uses_with_undef(m, f, i);
        }
        m.func_mut(f).remove_block(b);
    }
    fix_phis(m, f);
}

/// Drops phi incomings whose block is no longer a predecessor.
pub fn fix_phis(m: &mut Module, f: FuncId) {
    let fun = m.func(f);
    let mut preds: SecondaryMap<BlockId, Vec<BlockId>> = SecondaryMap::default();
    for &b in &fun.block_order {
        for s in fun.successors(b) {
            preds[s].push(b);
        }
    }
    let mut empty = Vec::new();
    let order = fun.block_order.to_vec();
    for b in order {
        let insts = m.func(f).blocks[b].insts.clone();
        for i in insts {
            let d = m.func_mut(f).inst_mut(i);
            if !d.is_phi() {
                continue;
            }
            if d.phi_retain(|_, p| preds[b].contains(&p)) == 0 {
                continue;
            }
            if d.phi_len() == 0 {
                empty.push(i);
            }
        }
    }
    delete_insts(m, f, &empty);
}

/// Removes arguments from `f`'s signature and the matching operands of every call.
pub fn remove_args(m: &mut Module, f: FuncId, args: &[ArgId]) -> bool {
    let positions: Vec<usize> = m
        .func(f)
        .arg_order
        .iter()
        .enumerate()
        .filter(|(_, a)| args.contains(a))
        .map(|(k, _)| k)
        .collect();
    if positions.is_empty() {
        return false;
    }
    let order = m.func_order.clone();
    for g in order {
        let calls: Vec<InstId> = m
            .func(g)
            .placed_insts()
            .filter(|&i| {
                let d = &m.func(g).insts[i];
                matches!(d.kind, InstKind::Call) && d.operands.first() == Some(&Value::Func(f))
            })
            .collect();
        for c in calls {
            let d = m.func_mut(g).inst_mut(c);
            for &p in positions.iter().rev() {
                if p + 1 < d.operands.len() {
                    d.operands.remove(p + 1);
                }
            }
        }
    }
    m.func_mut(f).arg_order.retain(|a| !args.contains(a));
    true
}

/// Whether argument `a` of `f` is used.
pub fn arg_used(f: &Function, a: ArgId) -> bool {
    f.placed_insts()
        .any(|i| f.insts[i].operands.contains(&Value::Arg(a)))
}

/// Replaces every direct use of type `from` (results, arguments, returns, constants,
/// undefined values) by `to`; constants are cut or zero-extended to the new size.
pub fn substitute_type(m: &mut Module, from: Type, to: Type) {
    let size = m.types.size_of(to) as usize;
    let swap = |t: &mut Type| {
        if *t == from {
            *t = to;
        }
    };
    for f in m.func_order.clone() {
        let fun = m.func_mut(f);
        if let Some(r) = fun.ret.as_mut() {
            swap(r);
        }
        for a in fun.arg_order.clone() {
            swap(&mut fun.args[a].ty);
        }
        for i in fun.placed_insts().collect::<Vec<_>>() {
            if let Some(t) = fun.insts[i].ty.as_mut() {
                swap(t);
            }
        }
    }
    let consts: Vec<ConstId> = m
        .live_constants()
        .filter(|c| m.constants[*c].ty == from)
        .collect();
    for c in consts {
        let mut bytes = m.constants[c].bytes.to_vec();
        bytes.resize(size, 0);
        let nc = m.constant(to, &bytes);
        for f in m.func_order.clone() {
            m.func_mut(f)
                .replace_all_uses(Value::Const(c), Value::Const(nc));
        }
        m.remove_constant(c);
    }
    let undefs: Vec<_> = m
        .live_undefs()
        .filter(|u| m.undefs[*u].ty == from)
        .collect();
    for u in undefs {
        let nu = Value::Undef(m.undef(to));
        for f in m.func_order.clone() {
            m.func_mut(f).replace_all_uses(Value::Undef(u), nu);
        }
        m.undefs[u].live = false;
    }
}

/// Array types used directly by the module whose length is above 1.
pub fn long_arrays(m: &Module) -> Vec<Type> {
    let mut out = Vec::new();
    let mut note = |t: Type| {
        if matches!(m.types.get(t), TypeData::Array { len, .. } if *len > 1) && !out.contains(&t) {
            out.push(t);
        }
    };
    for &f in &m.func_order {
        let fun = m.func(f);
        fun.arg_order.iter().for_each(|a| note(fun.args[*a].ty));
        fun.placed_insts()
            .filter_map(|i| fun.insts[i].ty)
            .for_each(&mut note);
    }
    out
}

/// A measure every accepted candidate must lower, compared lexicographically (so
/// reduction terminates): first entities, non-constant operands, branch and phi operands,
/// metadata items and array lengths; then module-level constants and undefined values.
pub fn size(m: &Module) -> (usize, usize) {
    let aux = m.live_constants().count() + m.live_undefs().count();
    let mut n = m.metadata.len();
    for &f in &m.func_order {
        let fun = m.func(f);
        n += 1 + fun.metadata.len() + fun.arg_order.len() + fun.block_order.len();
        n += fun
            .arg_order
            .iter()
            .map(|a| fun.args[*a].metadata.len())
            .sum::<usize>();
        for &b in &fun.block_order {
            n += fun.blocks[b].metadata.len();
        }
        for i in fun.placed_insts() {
            let d = &fun.insts[i];
            n += 1 + d.metadata.len();
            n += d
                .operands
                .iter()
                .filter(|v| matches!(v, Value::Inst(_) | Value::Arg(_)))
                .count();
            if d.is_phi() {
                n += d.phi_len();
            } else if d.kind.is_terminator() {
                n += d.operands.len();
            }
        }
        for t in long_arrays_in(m, f) {
            if let TypeData::Array { len, .. } = m.types.get(t) {
                n += (*len).min(1 << 20) as usize;
            }
        }
    }
    (n, aux)
}

fn long_arrays_in(m: &Module, f: FuncId) -> Vec<Type> {
    let fun = m.func(f);
    let mut out: Vec<Type> = fun.placed_insts().filter_map(|i| fun.insts[i].ty).collect();
    out.extend(fun.arg_order.iter().map(|a| fun.args[*a].ty));
    out.sort();
    out.dedup();
    out.retain(|t| matches!(m.types.get(*t), TypeData::Array { len, .. } if *len > 1));
    out
}

/// Module-level values no placed instruction uses: constants, undefined values and
/// special registers.
pub fn unused_globals(
    m: &Module,
) -> (
    Vec<ConstId>,
    Vec<xir_ir::UndefId>,
    Vec<xir_ir::SpecialRegister>,
) {
    let mut consts: SecondaryMap<ConstId, bool> = SecondaryMap::with_default(false);
    let mut undefs: SecondaryMap<xir_ir::UndefId, bool> = SecondaryMap::with_default(false);
    let mut specials = Vec::new();
    for &f in &m.func_order {
        let fun = m.func(f);
        for i in fun.placed_insts() {
            for v in &fun.insts[i].operands {
                match v {
                    Value::Const(c) => consts[*c] = true,
                    Value::Undef(u) => undefs[*u] = true,
                    Value::Special(r) => specials.push(*r),
                    _ => {}
                }
            }
        }
    }
    (
        m.live_constants().filter(|c| !consts[*c]).collect(),
        m.live_undefs().filter(|u| !undefs[*u]).collect(),
        m.special_registers
            .iter()
            .map(|(r, _)| *r)
            .filter(|r| !specials.contains(r))
            .collect(),
    )
}

/// Whether `b` is named by a structured construct (merge, loop body/update/prepare) or
/// by a phi, which a block merge must not remove.
fn structurally_named(f: &Function, b: BlockId) -> bool {
    f.placed_insts().any(|i| {
        let d = &f.insts[i];
        d.kind.side_blocks().contains(&b)
            || (d.is_phi() && d.phi_blocks().any(|x| x == b))
            || (matches!(d.kind, InstKind::Loop { .. } | InstKind::SimpleLoop { .. })
                && d.operand_blocks().any(|x| x == b))
    })
}

/// Whether `b` ends in `br S` where `S` is a different block whose only predecessor is
/// `b`, with no phis and not named by any construct: then the two can be one block.
pub fn mergeable_successor(f: &Function, b: BlockId) -> Option<BlockId> {
    let t = f.terminator(b)?;
    let d = &f.insts[t];
    if !matches!(d.kind, InstKind::Branch) {
        return None;
    }
    let s = d.operand_blocks().next()?;
    if s == b || Some(s) == f.body || !f.has_block(s) {
        return None;
    }
    let preds = f
        .block_order
        .iter()
        .filter(|&&p| f.successors(p).any(|x| x == s))
        .count();
    let has_phi = f.blocks[s]
        .insts
        .iter()
        .any(|i| matches!(f.insts[*i].kind, InstKind::Phi));
    (preds == 1 && !has_phi && !structurally_named(f, s)).then_some(s)
}

/// Appends the instructions of `b`'s only successor to `b` (dropping the `br`), and
/// removes the successor. Phis naming the successor as incoming block now name `b`.
pub fn merge_blocks(m: &mut Module, f: FuncId, b: BlockId) -> bool {
    let Some(s) = mergeable_successor(m.func(f), b) else {
        return false;
    };
    let fun = m.func_mut(f);
    let Some(t) = fun.terminator(b) else {
        return false;
    };
    fun.remove_inst(t);
    let moved = std::mem::take(&mut fun.blocks[s].insts);
    for &i in &moved {
        fun.insts[i].block = Some(b);
    }
    fun.blocks[b].insts.extend(moved);
    fun.remove_block(s);
    for i in fun.placed_insts().collect::<Vec<_>>() {
        let d = &mut fun.insts[i];
        d.kind.map_side_blocks(|x| if x == s { b } else { x });
        if d.is_phi() {
            d.phi_rename_block(s, b);
        }
    }
    true
}

/// Deletes instruction `i`, replacing its uses by its first operand of the same type.
pub fn forward_operand(m: &mut Module, f: FuncId, i: InstId) -> bool {
    let fun = m.func(f);
    let d = &fun.insts[i];
    if d.block.is_none() || d.kind.is_terminator() || matches!(d.kind, InstKind::Phi) {
        return false;
    }
    let Some(ty) = d.ty else { return false };
    let Some(op) = d
        .operands
        .iter()
        .copied()
        .find(|v| *v != Value::Inst(i) && m.value_type(f, *v) == Some(ty))
    else {
        return false;
    };
    let fun = m.func_mut(f);
    fun.replace_all_uses(Value::Inst(i), op);
    fun.remove_inst(i);
    true
}
