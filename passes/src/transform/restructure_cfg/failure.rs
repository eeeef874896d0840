//! `restructure-cfg`: why a definition cannot be restructured, and what was done.

use super::RestructureCfgCounters;
use super::guards::GuardRequest;
use crate::form::describe_function;
use xir_ir::text::print::printed_block_labels;
use xir_ir::{BlockId, FuncId, Module};

/// Why a definition cannot be restructured. Blocks are those of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A multi-entry cycle: its blocks and its entry blocks.
    Irreducible {
        /// Every block of the strongly connected region.
        blocks: Vec<BlockId>,
        /// The region's blocks with a predecessor outside it.
        entries: Vec<BlockId>,
    },
    /// A branch the structured form cannot express.
    Unstructured {
        /// Source block.
        from: BlockId,
        /// Target block, when one edge is at fault.
        to: Option<BlockId>,
        /// Why.
        why: &'static str,
    },
    /// Input this pass does not accept (phis, unterminated blocks, mixed forms).
    Invalid {
        /// The block at fault.
        block: BlockId,
        /// What is wrong.
        what: &'static str,
    },
    /// A safety bound ran out.
    IterationLimit {
        /// `main-iteration-limit` or `post-iteration-limit`.
        which: &'static str,
    },
    /// The candidate failed the verifier (first message).
    Verifier(String),
    /// Internal to the walk: `otherwise`, unless a guard variable can take the edge
    /// (`guards.rs`). Never returned by [`super::restructure_function`].
    Guardable {
        /// The guard that would express the edge.
        request: GuardRequest,
        /// The failure when no guard is made.
        otherwise: Box<Failure>,
    },
}

impl Failure {
    pub(super) fn count(&self, c: &mut RestructureCfgCounters) {
        match self {
            Failure::Irreducible { .. } => c.irreducible_region += 1,
            Failure::Unstructured { .. } => c.unstructured_branch += 1,
            Failure::Invalid { .. } | Failure::Verifier(_) => c.invalid_construct += 1,
            Failure::IterationLimit { .. } => c.iteration_limit += 1,
            Failure::Guardable { otherwise, .. } => otherwise.count(c),
        }
    }

    /// A one-line description naming blocks the way the printed input does.
    pub fn describe(&self, m: &Module, f: FuncId) -> String {
        let label = |bs: &[BlockId]| -> String {
            printed_block_labels(m, f, bs)
                .into_iter()
                .map(|l| l.unwrap_or_else(|| "a new block".to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let func = describe_function(m, f);
        match self {
            Failure::Irreducible { blocks, entries } => format!(
                "{func} has an irreducible region {{{}}} entered at {}",
                label(blocks),
                label(entries)
            ),
            Failure::Unstructured { from, to, why } => match to {
                Some(t) => format!(
                    "{func}: unstructured branch from {} to {}: {why}",
                    label(&[*from]),
                    label(&[*t])
                ),
                None => format!("{func}: block {}: {why}", label(&[*from])),
            },
            Failure::Invalid { block, what } => {
                format!("{func}: block {} {what}", label(&[*block]))
            }
            Failure::IterationLimit { which } => {
                format!("{func}: restructuring exceeded {which}")
            }
            Failure::Verifier(msg) => {
                format!("{func}: the restructured candidate is invalid: {msg}")
            }
            Failure::Guardable { otherwise, .. } => otherwise.describe(m, f),
        }
    }
}

/// What [`restructure_function`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restructured {
    /// `loop` / `simple_loop` constructs formed.
    pub loops: u64,
    /// `if` constructs formed.
    pub ifs: u64,
    /// `switch` constructs formed.
    pub switches: u64,
    /// Auxiliary rewrites.
    pub canonicalized: u64,
    /// Guard (flag) variables created.
    pub guards: u64,
}

impl Restructured {
    pub(super) fn add_to(&self, c: &mut RestructureCfgCounters) {
        c.restructured_loop += self.loops;
        c.restructured_if += self.ifs;
        c.restructured_switch += self.switches;
        c.canonicalized_cfg += self.canonicalized;
        c.guard_variables += self.guards;
    }
}
