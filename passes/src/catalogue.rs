//! Upstream's pass catalogue (reference §6.1–6.3 and the pipeline entries of §7): every
//! pass name a pipeline may use, with a one-line summary.
//!
//! The registry consults this list to tell a pass that merely is *not implemented yet*
//! (a pipeline naming it fails to load, listing every such pass) from a misspelt name (an
//! error with suggestions). Implemented passes appear here too; the registry's own entry
//! wins.

/// `(kebab-case name, summary)` for every upstream pass, sorted by name.
pub static UPSTREAM_PASSES: &[(&str, &str)] = &[
    (
        "algebraic-simplify",
        "Peephole identities (x*1, x+0, x-x, …), fast-math aware.",
    ),
    (
        "audit-reg2mem-spills",
        "Counts surviving reg2mem spill markers; fails if any remain.",
    ),
    (
        "autodiff",
        "Lowers autodiff scopes to explicit derivative code.",
    ),
    (
        "canonicalize-spirv-one-shot-loops",
        "Turns loops without a back edge into plain regions.",
    ),
    (
        "clear-spirv-inactive-payloads",
        "Replaces the payload of inactive blocks by `unreachable`.",
    ),
    (
        "const-fold",
        "Evaluates arithmetic on constants into interned constants.",
    ),
    ("cvp", "Correlated value propagation."),
    (
        "dce",
        "Removes dead instructions, write-only allocas and unreachable blocks.",
    ),
    (
        "dead-arg-elim",
        "Removes unused arguments of internal callables.",
    ),
    (
        "dead-field-elimination",
        "Removes unused struct fields of local aggregates.",
    ),
    (
        "dead-store-elimination",
        "Removes stores to thread-local memory overwritten before a read.",
    ),
    (
        "defer-local-aggregate-load",
        "Sinks whole-aggregate loads of locals to their uses.",
    ),
    (
        "destructure-cfg",
        "Structured control flow to plain CFG (switch to indexed_branch).",
    ),
    (
        "div-rem-pairs",
        "Merges a division and remainder of the same operands.",
    ),
    (
        "early-cse",
        "Block-local common subexpression elimination of pure instructions.",
    ),
    (
        "early-return-elimination",
        "Rewrites early returns into structured exits.",
    ),
    (
        "fast-math-simplify",
        "Float simplifications valid only under fast math.",
    ),
    (
        "fix-self-referential",
        "Repairs `insert` instructions that use their own result.",
    ),
    (
        "fuse-consecutive-buffer-reads",
        "Fuses adjacent buffer reads into wider reads.",
    ),
    (
        "gvn",
        "Dominance-based global value numbering of pure instructions.",
    ),
    (
        "if-conversion",
        "Converts small plain-CFG diamonds into selects.",
    ),
    ("indvar-simplify", "Simplifies loop induction variables."),
    (
        "inline",
        "Heuristic inlining (single call site, or small callees).",
    ),
    (
        "inline-all",
        "Inlines every non-recursive call, leaf first.",
    ),
    ("inline-call-sites", "Inlines a chosen set of call sites."),
    (
        "inline-spirv-pointer-args",
        "Legalizes calls that pass pointers for SPIR-V.",
    ),
    (
        "integer-alignment",
        "Normalizes integer alignment arithmetic.",
    ),
    (
        "licm",
        "Hoists invariant, speculatable instructions into the loop prepare block.",
    ),
    (
        "local-load-elimination",
        "Replaces loads of a local by an earlier equal load.",
    ),
    (
        "local-store-forward",
        "Forwards a stored value to later loads in straight-line code.",
    ),
    (
        "loop-fusion",
        "Fuses adjacent compatible loops (opt-in, plain CFG).",
    ),
    (
        "loop-rotation",
        "Rotates loops into do-while form (opt-in, plain CFG).",
    ),
    (
        "loop-unswitch",
        "Hoists loop-invariant conditions out of loops.",
    ),
    (
        "loop-vectorization",
        "Vectorizes simple loops (opt-in, plain CFG).",
    ),
    (
        "lower-break-continue",
        "Lowers break/continue into branches.",
    ),
    (
        "lower-irreducible-cfg",
        "Makes irreducible control flow reducible.",
    ),
    (
        "lower-ray-query-handler-graph",
        "Lowers ray-query handler graphs.",
    ),
    (
        "lower-ray-query-loop",
        "Outlines ray-query loops (older lowering).",
    ),
    (
        "lower-ray-query-loop-to-loop",
        "Lowers ray-query loops to loops (older lowering).",
    ),
    (
        "lower-ray-query-to-loop",
        "Lowers ray-query loop + dispatch into a structured loop.",
    ),
    (
        "lower-ray-query-to-pipeline",
        "Outlines ray-query handlers into a ray-query pipeline.",
    ),
    (
        "mem2reg",
        "Promotes local allocas used only by loads and stores to SSA values.",
    ),
    (
        "outline",
        "Outlining (an explicit unsupported no-op upstream).",
    ),
    (
        "phi-cleanup",
        "Removes phis whose incomings are all equal or self.",
    ),
    (
        "promote-ref-arg",
        "Turns read-only reference arguments into value arguments.",
    ),
    ("reassociate", "Reassociates commutative arithmetic."),
    (
        "reconstruct-ray-query-loop",
        "Re-forms explicit ray-query loops.",
    ),
    (
        "reg2mem",
        "Lowers phis and cross-block values to local allocas.",
    ),
    (
        "restructure-cfg",
        "Plain reducible CFG to structured control flow.",
    ),
    (
        "scalarizer",
        "Splits vector arithmetic into scalar operations.",
    ),
    ("sccp", "Sparse conditional constant propagation."),
    ("select-factor", "Factors common operands out of selects."),
    (
        "simplify-cfg",
        "Folds constant branches, threads empty blocks, merges chains.",
    ),
    (
        "simplify-libcalls",
        "Simplifies calls to known math functions.",
    ),
    (
        "slp-vectorization",
        "Superword-level parallelism vectorization.",
    ),
    ("sroa", "Splits local aggregate allocas into scalars."),
    (
        "trace-gep",
        "Folds GEP-of-GEP chains and removes no-op GEPs.",
    ),
    (
        "transpose-gep",
        "Reorders GEP indices over transposed layouts.",
    ),
    (
        "unused-callable-removal",
        "Removes callables unreachable from kernels.",
    ),
];

/// Whether `name` is an upstream pass name.
pub fn is_upstream_pass(name: &str) -> bool {
    UPSTREAM_PASSES.binary_search_by(|p| p.0.cmp(name)).is_ok()
}

/// The summary of upstream pass `name`.
pub fn summary(name: &str) -> Option<&'static str> {
    UPSTREAM_PASSES
        .binary_search_by(|p| p.0.cmp(name))
        .ok()
        .map(|i| UPSTREAM_PASSES[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_is_sorted_unique_kebab_case() {
        for w in UPSTREAM_PASSES.windows(2) {
            assert!(w[0].0 < w[1].0, "{} before {}", w[0].0, w[1].0);
        }
        for (n, s) in UPSTREAM_PASSES {
            assert!(
                n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            );
            assert!(!s.is_empty());
        }
        assert!(is_upstream_pass("licm"));
        assert!(!is_upstream_pass("lcim"));
    }
}
