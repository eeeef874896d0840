//! The SPIR-V structural closure of one function: the block identities the backend may
//! emit (seed *spirv-codegen*, "Structural closure and inactive payload"; upstream's
//! `plan_spirv_codegen_structural_closure`).
//!
//! * **Ordinary** blocks: reachable from the body along terminator successor operands
//!   (`br`/`break`/`continue` target, both arms of `if`/`cond_br`, default and cases of
//!   `switch`/`indexed_branch`, a `loop`'s prepare, a `simple_loop`'s body, a ray-query
//!   loop's dispatch and its three targets, an autodiff scope's entry, an outline's
//!   target), in reverse post-order from the body.
//! * **Disconnected role blocks**: not ordinary, but named as a structured role — the
//!   merge of a construct, a `loop`'s body or update — by a block already in the closure,
//!   closed recursively over their own successors and roles. Their identity must survive
//!   even when their payload is dead.
//! * **True orphans**: owned blocks outside the closure. They take no part in emission.
//!
//! The closure is computed without folding any condition. A successor or role naming a
//! block the function does not own makes the analysis fail with the owner and role
//! ([`ClosureError`]); the verifier rejects such modules anyway.

use crate::entity::SecondaryMap;
use crate::function::Function;
use crate::inst::{InstId, InstKind};
use crate::value::BlockId;

/// How an owned block relates to the structural closure.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Membership {
    /// Reachable from the body by successor operands.
    Ordinary,
    /// In the closure only through a structured role (merge, loop body or update).
    DisconnectedRole,
    /// Outside the closure.
    TrueOrphan,
}

/// The structural closure of one function.
#[derive(Clone, Debug, Default)]
pub struct StructuralClosure {
    /// Ordinary blocks in reverse post-order, then disconnected role blocks in the order
    /// the closure found them.
    pub blocks: Vec<BlockId>,
    /// How many of [`Self::blocks`] are ordinary (the prefix).
    pub ordinary_count: usize,
    member: SecondaryMap<BlockId, u8>,
}

/// A successor or role that names a block the function does not own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosureError {
    /// The terminator naming the block (`None`: the body itself is missing or unowned).
    pub owner: Option<InstId>,
    /// The role: `successor`, `merge`, `body`, `update` or `body entry`.
    pub role: &'static str,
    /// The block named.
    pub block: Option<BlockId>,
}

const ORDINARY: u8 = 1;
const ROLE: u8 = 2;

impl StructuralClosure {
    /// Computes the closure of `f` (a definition). Iterative; linear in blocks + edges.
    pub fn compute(f: &Function) -> Result<Self, ClosureError> {
        let mut owned: SecondaryMap<BlockId, bool> = SecondaryMap::with_default(false);
        for &b in &f.block_order {
            owned[b] = true;
        }
        let Some(entry) = f.body.filter(|b| owned[*b]) else {
            return Err(ClosureError {
                owner: None,
                role: "body entry",
                block: f.body,
            });
        };
        let check = |owner: InstId, role: &'static str, b: BlockId| {
            if owned[b] {
                Ok(b)
            } else {
                Err(ClosureError {
                    owner: Some(owner),
                    role,
                    block: Some(b),
                })
            }
        };
        let succs = |b: BlockId| -> Result<Vec<BlockId>, ClosureError> {
            match f.terminator(b) {
                None => Ok(Vec::new()),
                Some(t) => f.insts[t]
                    .successors()
                    .map(|s| check(t, "successor", s))
                    .collect(),
            }
        };
        let mut c = StructuralClosure {
            member: SecondaryMap::with_default(0),
            ..Default::default()
        };
        // Ordinary part: iterative DFS post-order, reversed.
        let mut post = Vec::new();
        let mut stack: Vec<(BlockId, Vec<BlockId>, usize)> = vec![(entry, succs(entry)?, 0)];
        c.member[entry] = ORDINARY;
        while let Some((b, ss, next)) = stack.last_mut() {
            if *next < ss.len() {
                let t = ss[*next];
                *next += 1;
                if c.member[t] == 0 {
                    c.member[t] = ORDINARY;
                    let st = succs(t)?;
                    stack.push((t, st, 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
        post.reverse();
        c.ordinary_count = post.len();
        c.blocks = post;
        // Role closure: merges and loop body/update, recursively with their successors.
        let mut k = 0;
        while k < c.blocks.len() {
            let b = c.blocks[k];
            k += 1;
            let Some(t) = f.terminator(b) else { continue };
            let d = &f.insts[t];
            let mut next: Vec<(&'static str, BlockId)> =
                d.successors().map(|s| ("successor", s)).collect();
            if let Some(m) = d.kind.merge() {
                next.push(("merge", m));
            }
            if let InstKind::Loop { body, update, .. } = &d.kind {
                next.extend(body.map(|x| ("body", x)));
                next.extend(update.map(|x| ("update", x)));
            }
            for (role, s) in next {
                let s = check(t, role, s)?;
                if c.member[s] == 0 {
                    c.member[s] = ROLE;
                    c.blocks.push(s);
                }
            }
        }
        Ok(c)
    }

    /// How `b` (an owned block) relates to the closure.
    pub fn membership(&self, b: BlockId) -> Membership {
        match *self.member.get(b) {
            ORDINARY => Membership::Ordinary,
            ROLE => Membership::DisconnectedRole,
            _ => Membership::TrueOrphan,
        }
    }

    /// Whether `b` is in the closure (ordinary or role).
    pub fn contains(&self, b: BlockId) -> bool {
        *self.member.get(b) != 0
    }

    /// The ordinary blocks, in reverse post-order.
    pub fn ordinary(&self) -> &[BlockId] {
        &self.blocks[..self.ordinary_count]
    }

    /// The disconnected role blocks, in discovery order.
    pub fn disconnected_roles(&self) -> &[BlockId] {
        &self.blocks[self.ordinary_count..]
    }

    /// The owned blocks of `f` outside the closure, in owned order.
    pub fn true_orphans(&self, f: &Function) -> Vec<BlockId> {
        f.block_order
            .iter()
            .copied()
            .filter(|b| !self.contains(*b))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_ordinary_role_and_orphan_blocks() {
        let (m, _) = crate::text::parse_module(
            "module; kernel %k (%c: bool;) = define %e: {
               %l: void = simple_loop body %b, merge %m; }
             %b: { %x: void = break %out; }
             %m: { %y: void = br %after; }
             %after: { %z: void = return; }
             %out: { %w: void = return; }
             %orphan: { %v: void = br %m; };",
        )
        .unwrap();
        let f = m.func(m.func_order[0]);
        let c = StructuralClosure::compute(f).unwrap();
        let order = &f.block_order;
        assert_eq!(c.ordinary(), &[order[0], order[1], order[4]]);
        assert_eq!(c.disconnected_roles(), &[order[2], order[3]]);
        assert_eq!(c.true_orphans(f), vec![order[5]]);
        assert_eq!(c.membership(order[3]), Membership::DisconnectedRole);
    }
}
