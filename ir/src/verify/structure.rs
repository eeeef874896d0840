//! Structural checks: function headers (kernel contract, argument kinds, definitions and
//! bodies), block and instruction placement, terminator and phi position, operand
//! handles (same-function, still-placed entities), structured ownership (merge, loop
//! body/update blocks) and switch case labels.

use super::Fx;
use crate::function::{ArgKind, FunctionKind};
use crate::inst::{InstId, InstKind, InstTag};
use crate::types::ScalarKind;
use crate::value::{BlockId, Value};

/// Upstream's kernel block-size rule: 32..=1024 threads, a multiple of 32.
pub(crate) fn valid_block_size(bs: [u32; 3]) -> bool {
    let n = bs.iter().map(|&x| x as u64).product::<u64>();
    (32..=1024).contains(&n) && n % 32 == 0
}

/// Checks the signature and definition shape. Returns whether the function has a body
/// worth checking further.
pub(super) fn check_header(fx: &mut Fx<'_, '_>) -> bool {
    let f = fx.f;
    if let FunctionKind::Kernel { block_size } = f.kind {
        if f.ret.is_some() {
            let r = fx.tname(f.ret);
            fx.err_fn(format!("kernel must return void but returns {r}"));
        }
        if !valid_block_size(block_size) {
            fx.err_fn(format!(
                "kernel block size {}×{}×{} is invalid (the thread count must be a multiple of 32 between 32 and 1024)",
                block_size[0], block_size[1], block_size[2]
            ));
        }
    }
    if let Some(r) = f.ret {
        if !fx.tys.valid(r) {
            fx.err_fn("return type handle is out of range");
        } else if fx.opts.require_non_resource_return_types && fx.tys.is_resource(r) {
            let r = fx.tname(Some(r));
            fx.err_fn(format!(
                "functions cannot return the resource type {r} (require-non-resource-return-types)"
            ));
        }
    }
    let mut seen: crate::entity::SecondaryMap<crate::value::ArgId, bool> =
        crate::entity::SecondaryMap::with_default(false);
    for &a in &f.arg_order {
        let Some(ad) = f.args.get(a) else {
            fx.err_fn("the signature names an argument that does not exist");
            continue;
        };
        if seen[a] {
            fx.err_arg(a, "argument is listed more than once in the signature");
            continue;
        }
        seen[a] = true;
        if !fx.tys.valid(ad.ty) {
            fx.err_arg(a, "argument type handle is out of range");
            continue;
        }
        let res = fx.tys.is_resource(ad.ty);
        let custom = fx.tys.is_custom(ad.ty);
        let t = || fx.tname(Some(ad.ty)); // spelled only for a diagnostic
        let msg = match ad.kind {
            ArgKind::Value if res || custom => format!(
                "value argument cannot have {} type {}",
                if res { "resource" } else { "custom" },
                t()
            ),
            ArgKind::Reference if res => {
                format!("reference argument cannot have resource type {}", t())
            }
            ArgKind::Resource if !res => {
                format!("resource argument must have a resource type, found {}", t())
            }
            _ => continue,
        };
        fx.err_arg(a, msg);
    }
    if !f.kind.has_definition() {
        if f.body.is_some() || !f.block_order.is_empty() {
            fx.err_fn("external function must not have a body or blocks");
        }
        return false;
    }
    let Some(body) = f.body else {
        fx.err_fn("function definition has no body block");
        return false;
    };
    if !f.blocks.is_valid(body) || !f.block_order.contains(&body) {
        fx.err_fn("the body block is not in the function's owned block list");
        return false;
    }
    true
}

/// Fills `owned`, `order` and the placements (noting blocks whose layout is clean),
/// reporting duplicate or dangling list entries and
/// instructions whose `block` field disagrees with the list they are in.
pub(super) fn collect_placement(fx: &mut Fx<'_, '_>) {
    let f = fx.f;
    for &b in &f.block_order {
        if !f.blocks.is_valid(b) {
            fx.err_fn("the owned block list names a block that does not exist");
        } else if fx.is_owned(b) {
            fx.err_block(b, "block is listed more than once in the owned block list");
        } else {
            fx.set_owned(b);
            fx.order.push(b);
        }
    }
    let order = std::mem::take(&mut fx.order);
    for &b in &order {
        // Whether the terminator and phi rules of `check_block_layout` hold for this
        // block so far (every instruction placed here, in a valid order).
        let mut clean = true;
        let (mut saw_terminator, mut saw_non_phi) = (false, false);
        for (k, &i) in f.blocks[b].insts.iter().enumerate() {
            let Some(d) = f.insts.get(i) else {
                fx.err_block(b, "block lists an instruction that does not exist");
                clean = false;
                continue;
            };
            if let Some((pb, _)) = fx.place(i) {
                let (iname, pname) = (fx.iname(i), fx.bname(pb));
                fx.err_block(
                    b,
                    format!("{iname} is listed more than once (already in block {pname})"),
                );
                clean = false;
                continue;
            }
            let tag = d.kind.tag();
            let phi = tag == InstTag::Phi;
            clean &= !(saw_terminator || (phi && saw_non_phi));
            saw_non_phi |= !phi;
            saw_terminator |= tag.is_terminator();
            fx.set_place(i, b, k as u32, tag, d.ty);
            if d.block != Some(b) {
                let said = match d.block {
                    Some(x) => format!("block {}", fx.bname(x)),
                    None => "no block".into(),
                };
                let here = fx.bname(b);
                fx.err_inst(
                    b,
                    i,
                    format!("instruction is listed in block {here} but records {said}"),
                );
            }
        }
        if clean {
            fx.set_layout_clean(b);
        }
    }
    fx.order = order;
}

/// Terminator presence and position, and phi position, for one block.
pub(super) fn check_block_layout(fx: &mut Fx<'_, '_>, b: BlockId) {
    let f = fx.f;
    let insts = &f.blocks[b].insts;
    let terminated = insts
        .last()
        .and_then(|i| f.insts.get(*i))
        .is_some_and(|d| d.kind.is_terminator());
    if fx.opts.require_terminated_blocks && !terminated {
        if insts.is_empty() {
            fx.err_block(b, "block is empty; every block must end with a terminator");
        } else {
            fx.err_block(b, "block does not end with a terminator");
        }
    }
    if fx.layout_clean(b) {
        return; // `collect_placement` saw nothing the walk below would report
    }
    let mut saw_terminator = false;
    let mut saw_non_phi = false;
    for &i in insts {
        if fx.place(i).map(|p| p.0) != Some(b) {
            continue;
        }
        let Some(d) = f.insts.get(i) else { continue };
        if saw_terminator {
            fx.err_inst(b, i, "instruction follows the block's terminator");
        }
        if matches!(d.kind, InstKind::Phi) {
            if saw_non_phi {
                fx.err_inst(
                    b,
                    i,
                    "phi must precede every non-phi instruction of its block",
                );
            }
        } else {
            saw_non_phi = true;
        }
        saw_terminator |= d.kind.is_terminator();
    }
}

/// Checks that every operand names a live entity of this function or module, and that
/// the result type handle is valid. Returns whether all handles are usable.
#[inline]
pub(super) fn check_operand_handles(fx: &mut Fx<'_, '_>, b: BlockId, i: InstId) -> bool {
    let Some(d) = fx.inst(i) else { return false };
    let mut ok = true;
    if let Some(t) = d.ty
        && !fx.tys.valid(t)
    {
        fx.err_inst(b, i, "result type handle is out of range");
        ok = false;
    }
    for (k, &v) in d.operands.iter().enumerate() {
        let problem = match v {
            Value::Inst(x) => match fx.valid_place(x) {
                None => Some("an instruction that does not exist in this function".into()),
                Some(None) => {
                    Some("an instruction that is not placed in any block of this function".into())
                }
                Some(Some(_)) => None,
            },
            Value::Block(x) => {
                (!fx.is_owned(x)).then(|| "a block that is not owned by this function".into())
            }
            Value::Arg(a) => (!*fx.arg_listed.get(a))
                .then(|| "an argument that is not an argument of this function".into()),
            Value::Const(c) => (!fx.m.constants.get(c).is_some_and(|c| c.live))
                .then(|| "a constant that is not a constant of this module".into()),
            Value::Undef(u) => (!fx.m.undefs.get(u).is_some_and(|u| u.live))
                .then(|| "an undefined value that is not part of this module".into()),
            Value::Special(r) => {
                (!fx.m.special_registers.iter().any(|(x, _)| *x == r)).then(|| {
                    format!(
                        "special register `{}`, which the module does not declare",
                        r.name()
                    )
                })
            }
            Value::Func(g) => (!*fx.funcs_listed.get(g))
                .then(|| "a function that is not a function of this module".into()),
        };
        if let Some(p) = problem {
            fx.err_inst(b, i, format!("operand {k} refers to {p}"));
            ok = false;
        }
    }
    ok
}

/// Structured ownership (merge, loop body/update blocks), autodiff-scope flags and
/// switch/indexed-branch case labels.
#[inline]
pub(super) fn check_control_flow(fx: &mut Fx<'_, '_>, b: BlockId, i: InstId, handles_ok: bool) {
    // Only structured instructions and branches with case labels have anything to check.
    let Some(tag) = fx.placed_tag(i) else { return };
    if tag.is_structured() || tag == InstTag::IndexedBranch {
        check_control_flow_of(fx, b, i, handles_ok);
    }
}

fn check_control_flow_of(fx: &mut Fx<'_, '_>, b: BlockId, i: InstId, handles_ok: bool) {
    let Some(d) = fx.inst(i) else { return };
    let tag = d.kind.tag();
    if tag.is_structured() {
        match d.kind.merge() {
            None if !matches!(d.kind, InstKind::If { .. }) => {
                fx.err_inst(b, i, "structured instruction has no merge block")
            }
            Some(mb) if !fx.is_owned(mb) => {
                fx.err_inst(b, i, "the merge block is not owned by this function")
            }
            _ => {}
        }
    }
    match &d.kind {
        InstKind::Loop { body, update, .. } => {
            for (what, blk) in [("body", body), ("update", update)] {
                match blk {
                    None => fx.err_inst(b, i, format!("loop has no {what} block")),
                    Some(x) if !fx.is_owned(*x) => fx.err_inst(
                        b,
                        i,
                        format!("the loop's {what} block is not owned by this function"),
                    ),
                    _ => {}
                }
            }
        }
        InstKind::AutodiffScope {
            forward,
            n_forward_grads,
            ..
        } if *forward != (*n_forward_grads > 0) => {
            fx.err_inst(
                b,
                i,
                "a forward-mode autodiff scope needs a positive gradient count, and only forward scopes may have one",
            );
        }
        InstKind::Switch { labels, .. } | InstKind::IndexedBranch { labels } if handles_ok => {
            check_case_labels(fx, b, i, labels);
        }
        _ => {}
    }
}

fn check_case_labels(fx: &mut Fx<'_, '_>, b: BlockId, i: InstId, labels: &[u64]) {
    let Some(d) = fx.inst(i) else { return };
    let sel = d.operands.first().and_then(|v| fx.vty(*v));
    let bits = match sel.and_then(|t| fx.tys.scalar(t)) {
        Some(ScalarKind::Bool) => 1,
        Some(ScalarKind::I8 | ScalarKind::U8) => 8,
        Some(ScalarKind::I16 | ScalarKind::U16) => 16,
        Some(ScalarKind::I32 | ScalarKind::U32) => 32,
        _ => 64,
    };
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut seen: rustc_hash::FxHashSet<u64> = Default::default();
    for (k, &l) in labels.iter().enumerate() {
        if l & mask != l {
            fx.err_inst(
                b,
                i,
                format!("case {k} label {l} does not fit the {bits}-bit selector"),
            );
        }
        let c = l & mask;
        if !seen.insert(c) {
            fx.err_inst(
                b,
                i,
                format!("case {k} label {c} duplicates an earlier case"),
            );
        }
    }
}
