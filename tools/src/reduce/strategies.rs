//! Reduction strategies: each lists *sites* (things it could remove or simplify) on the
//! current module and applies any subset of them to a copy.
//!
//! | strategy | a site is | applying it |
//! |---|---|---|
//! | `functions` | a function | delete it and every call to it |
//! | `blocks` | a block with successors, and a new terminator | `unreachable`, `return`, or `br` to one successor; blocks no longer reachable go |
//! | `unreachable-blocks` | a block not reachable from the body | delete it |
//! | `merge-blocks` | a block ending in `br S`, S's only predecessor | splice S into it |
//! | `instructions` | a non-terminator instruction | delete it; its uses become undefined |
//! | `forward` | an instruction with an operand of its own type | delete it; its uses take that operand |
//! | `operands-zero` | an instruction or argument operand of data type | a zero constant |
//! | `operands-undef` | such an operand | an undefined value |
//! | `arguments` | an unused argument | remove it from the signature and the calls |
//! | `types` | an array type `array<T, N>`, N > 1, used directly | `array<T, 1>` |
//! | `metadata` | a metadata list (module, function, argument, block, instruction) | clear it |
//! | `globals` | an unused constant, undefined value or special register | delete it |

use super::edit::{self, NewTerminator};
use xir_ir::inst::InstKind;
use xir_ir::types::TypeData;
use xir_ir::{
    ArgId, BlockId, ConstId, FuncId, InstId, Module, SecondaryMap, SpecialRegister, Type, UndefId,
    Value,
};

/// One reduction strategy.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// Delete functions.
    Functions,
    /// Simplify terminators.
    Blocks,
    /// Delete unreachable blocks.
    UnreachableBlocks,
    /// Merge straight-line blocks.
    MergeBlocks,
    /// Delete instructions.
    Instructions,
    /// Replace instructions by an operand.
    Forward,
    /// Operands to zero constants.
    OperandsZero,
    /// Operands to undefined values.
    OperandsUndef,
    /// Remove unused arguments.
    Arguments,
    /// Shorten arrays.
    Types,
    /// Clear metadata.
    Metadata,
    /// Delete unused constants, undefined values and special registers.
    Globals,
}

impl Strategy {
    /// Every strategy, in the order one round runs them (coarse first).
    pub const ALL: [Strategy; 12] = [
        Strategy::Functions,
        Strategy::Blocks,
        Strategy::UnreachableBlocks,
        Strategy::MergeBlocks,
        Strategy::Instructions,
        Strategy::Forward,
        Strategy::Arguments,
        Strategy::OperandsZero,
        Strategy::OperandsUndef,
        Strategy::Types,
        Strategy::Metadata,
        Strategy::Globals,
    ];

    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Functions => "functions",
            Strategy::Blocks => "blocks",
            Strategy::UnreachableBlocks => "unreachable-blocks",
            Strategy::MergeBlocks => "merge-blocks",
            Strategy::Instructions => "instructions",
            Strategy::Forward => "forward",
            Strategy::OperandsZero => "operands-zero",
            Strategy::OperandsUndef => "operands-undef",
            Strategy::Arguments => "arguments",
            Strategy::Types => "types",
            Strategy::Metadata => "metadata",
            Strategy::Globals => "globals",
        }
    }

    /// Looks a strategy up by name.
    pub fn from_name(s: &str) -> Option<Strategy> {
        Self::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// Something a strategy can change.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    /// A function.
    Func(FuncId),
    /// A block's terminator and what it becomes.
    Term(FuncId, BlockId, NewTerminator),
    /// An unreachable block.
    Block(FuncId, BlockId),
    /// A block to merge with its successor.
    Merge(FuncId, BlockId),
    /// An instruction.
    Inst(FuncId, InstId),
    /// An instruction to replace by an operand.
    Forward(FuncId, InstId),
    /// Operand `k` of an instruction, to a zero constant (`true`) or an undefined value.
    Operand(FuncId, InstId, usize, bool),
    /// An argument.
    Arg(FuncId, ArgId),
    /// An array type.
    Type(Type),
    /// A metadata list.
    Meta(MetaOwner),
    /// A constant.
    Const(ConstId),
    /// An undefined value.
    Undef(UndefId),
    /// A special register.
    Special(SpecialRegister),
}

/// Owners of metadata lists.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MetaOwner {
    /// The module.
    Module,
    /// A function.
    Func(FuncId),
    /// An argument.
    Arg(FuncId, ArgId),
    /// A block.
    Block(FuncId, BlockId),
    /// An instruction.
    Inst(FuncId, InstId),
}

/// The sites of `s` on `m`, in module order.
pub fn sites(s: Strategy, m: &Module) -> Vec<Site> {
    let mut out = Vec::new();
    for &f in &m.func_order {
        let fun = m.func(f);
        match s {
            Strategy::Functions => out.push(Site::Func(f)),
            Strategy::Blocks => {
                let live = edit::reachable(fun);
                for &b in &fun.block_order {
                    let Some(t) = fun.terminator(b) else { continue };
                    let d = &fun.insts[t];
                    let n = d.operand_blocks().count();
                    if !live[b] || (n == 0 && d.kind.merge().is_none()) {
                        continue;
                    }
                    out.push(Site::Term(f, b, NewTerminator::Return));
                    out.push(Site::Term(f, b, NewTerminator::Unreachable));
                    if !matches!(d.kind, InstKind::Branch) {
                        for k in 0..n {
                            out.push(Site::Term(f, b, NewTerminator::Successor(k)));
                        }
                    }
                }
            }
            Strategy::UnreachableBlocks => {
                let live = edit::reachable(fun);
                out.extend(
                    fun.block_order
                        .iter()
                        .filter(|b| !live[**b])
                        .map(|&b| Site::Block(f, b)),
                );
            }
            Strategy::MergeBlocks => out.extend(
                fun.block_order
                    .iter()
                    .filter(|&&b| edit::mergeable_successor(fun, b).is_some())
                    .map(|&b| Site::Merge(f, b)),
            ),
            Strategy::Instructions => out.extend(
                fun.placed_insts()
                    .filter(|&i| !fun.insts[i].kind.is_terminator())
                    .map(|i| Site::Inst(f, i)),
            ),
            Strategy::Forward => out.extend(
                fun.placed_insts()
                    .filter(|&i| {
                        let d = &fun.insts[i];
                        !d.kind.is_terminator()
                            && !matches!(d.kind, InstKind::Phi)
                            && d.ty.is_some()
                            && d.operands
                                .iter()
                                .any(|v| *v != Value::Inst(i) && m.value_type(f, *v) == d.ty)
                    })
                    .map(|i| Site::Forward(f, i)),
            ),
            Strategy::OperandsZero | Strategy::OperandsUndef => {
                for i in fun.placed_insts() {
                    let d = &fun.insts[i];
                    if matches!(d.kind, InstKind::Call) && d.operands.len() == 1 {
                        continue;
                    }
                    for (k, v) in d.operands.iter().enumerate() {
                        let typed = match v {
                            Value::Inst(x) => fun.insts[*x].ty,
                            Value::Arg(a) => Some(fun.args[*a].ty),
                            _ => None,
                        };
                        let ok = typed
                            .is_some_and(|t| s == Strategy::OperandsUndef || edit_zero_ok(m, t));
                        if ok {
                            out.push(Site::Operand(f, i, k, s == Strategy::OperandsZero));
                        }
                    }
                }
            }
            Strategy::Arguments => out.extend(
                fun.arg_order
                    .iter()
                    .filter(|a| !edit::arg_used(fun, **a))
                    .map(|&a| Site::Arg(f, a)),
            ),
            Strategy::Metadata => {
                if !fun.metadata.is_empty() {
                    out.push(Site::Meta(MetaOwner::Func(f)));
                }
                for &a in &fun.arg_order {
                    if !fun.args[a].metadata.is_empty() {
                        out.push(Site::Meta(MetaOwner::Arg(f, a)));
                    }
                }
                for &b in &fun.block_order {
                    if !fun.blocks[b].metadata.is_empty() {
                        out.push(Site::Meta(MetaOwner::Block(f, b)));
                    }
                    for &i in &fun.blocks[b].insts {
                        if !fun.insts[i].metadata.is_empty() {
                            out.push(Site::Meta(MetaOwner::Inst(f, i)));
                        }
                    }
                }
            }
            Strategy::Types | Strategy::Globals => {}
        }
    }
    match s {
        Strategy::Metadata if !m.metadata.is_empty() => {
            out.insert(0, Site::Meta(MetaOwner::Module))
        }
        Strategy::Types => out.extend(edit::long_arrays(m).into_iter().map(Site::Type)),
        Strategy::Globals => {
            let (c, u, r) = edit::unused_globals(m);
            out.extend(c.into_iter().map(Site::Const));
            out.extend(u.into_iter().map(Site::Undef));
            out.extend(r.into_iter().map(Site::Special));
        }
        _ => {}
    }
    out
}

fn edit_zero_ok(m: &Module, t: Type) -> bool {
    matches!(
        m.types.get(t),
        TypeData::Scalar(_) | TypeData::Vector { .. } | TypeData::Matrix { .. }
    )
}

/// Applies `sites` to `m`. Returns false when a site cannot be applied (the candidate is
/// dropped without testing).
pub fn apply(m: &mut Module, sites: &[Site]) -> bool {
    let before: Vec<(FuncId, SecondaryMap<BlockId, bool>)> = m
        .func_order
        .iter()
        .map(|&f| (f, edit::reachable(m.func(f))))
        .collect();
    let unused_before = edit::unused_globals(m);
    let funcs: Vec<FuncId> = sites
        .iter()
        .filter_map(|s| match s {
            Site::Func(f) => Some(*f),
            _ => None,
        })
        .collect();
    if !funcs.is_empty() && !edit::delete_functions(m, &funcs) {
        return false;
    }
    let mut changed_term = false;
    let mut retargeted: Vec<(FuncId, BlockId)> = Vec::new();
    for s in sites {
        let ok = match *s {
            Site::Func(_) => true,
            Site::Term(f, b, t) => {
                // Two choices for one block in one chunk: keep the first.
                if !m.func_order.contains(&f)
                    || !m.func(f).has_block(b)
                    || retargeted.contains(&(f, b))
                {
                    true
                } else {
                    retargeted.push((f, b));
                    changed_term |= edit::set_terminator(m, f, b, t);
                    true
                }
            }
            Site::Block(f, b) => {
                let insts = m.func(f).blocks[b].insts.clone();
                for i in insts {
                    edit::replace_uses_with_undef(m, f, i);
                }
                m.func_mut(f).remove_block(b);
                edit::fix_phis(m, f);
                true
            }
            Site::Merge(f, b) => {
                if m.func(f).has_block(b) {
                    edit::merge_blocks(m, f, b);
                }
                true
            }
            Site::Inst(f, i) => edit::delete_insts(m, f, &[i]),
            Site::Forward(f, i) => {
                m.func(f).insts[i].block.is_none() || edit::forward_operand(m, f, i)
            }
            Site::Operand(f, i, k, zero) => replace_operand(m, f, i, k, zero),
            Site::Arg(f, a) => edit::remove_args(m, f, &[a]),
            Site::Type(t) => shrink_array(m, t),
            Site::Meta(o) => {
                clear_metadata(m, o);
                true
            }
            Site::Const(c) => {
                m.remove_constant(c);
                true
            }
            Site::Undef(u) => {
                m.undefs[u].live = false;
                true
            }
            Site::Special(r) => {
                m.special_registers.retain(|(x, _)| *x != r);
                true
            }
        };
        if !ok {
            return false;
        }
    }
    if changed_term {
        for (f, reach) in &before {
            if m.func_order.contains(f) {
                edit::cleanup(m, *f, reach);
            }
        }
    }
    // Undefined values and special registers that this edit left unused go too (the
    // text would otherwise declare them); ones unused before stay for `globals`.
    let (_, undefs, specials) = edit::unused_globals(m);
    for u in undefs {
        if !unused_before.1.contains(&u) {
            m.undefs[u].live = false;
        }
    }
    m.special_registers
        .retain(|(r, _)| !specials.contains(r) || unused_before.2.contains(r));
    true
}

fn replace_operand(m: &mut Module, f: FuncId, i: InstId, k: usize, zero: bool) -> bool {
    let Some(&v) = m.func(f).insts[i].operands.get(k) else {
        return false;
    };
    let ty = match v {
        Value::Inst(x) => m.func(f).insts[x].ty,
        Value::Arg(a) => Some(m.func(f).args[a].ty),
        _ => return true,
    };
    let Some(ty) = ty else { return false };
    let new = if zero {
        match edit::zero(m, ty) {
            Some(z) => z,
            None => return false,
        }
    } else {
        edit::undef(m, ty)
    };
    m.func_mut(f).inst_mut(i).operands[k] = new;
    true
}

fn shrink_array(m: &mut Module, t: Type) -> bool {
    let TypeData::Array { elem, len } = m.types.get(t).clone() else {
        return false;
    };
    if len <= 1 {
        return false;
    }
    let to = m.types.intern(TypeData::Array { elem, len: 1 });
    edit::substitute_type(m, t, to);
    true
}

fn clear_metadata(m: &mut Module, o: MetaOwner) {
    match o {
        MetaOwner::Module => m.metadata.clear(),
        MetaOwner::Func(f) => m.func_mut(f).metadata.clear(),
        MetaOwner::Arg(f, a) => m.func_mut(f).args[a].metadata.clear(),
        MetaOwner::Block(f, b) => m.func_mut(f).blocks[b].metadata.clear(),
        MetaOwner::Inst(f, i) => m.func_mut(f).insts[i].metadata.clear(),
    }
}
