//! The pass registry's list: one file per pass, one line per pass (the `mod`
//! declaration, the [`PASSES`] entry and the [`DirectPass`] variant all come from that
//! line), and the upstream passes not implemented yet. Pass names are written nowhere
//! else: each implemented pass states its name in its own file
//! ([`declare_pass!`](crate::declare_pass)), and the catalogue, `DirectPass`,
//! `docs/passes.md` and the schema test are derived from this list.
//!
//! Adding a pass: see `docs/adding-a-pass.md` (one file, one line here; when it is an
//! upstream pass, its line in [`NOT_IMPLEMENTED`] goes).

crate::pass_registry! {
    /// Every real (non-test) pass implemented in this crate.
    static PASSES (test_only: false, direct) = [
        algebraic_simplify::AlgebraicSimplify,
        audit_reg2mem_spills::AuditReg2MemSpills,
        autodiff::Autodiff,
        canonicalize_spirv_one_shot_loops::CanonicalizeSpirvOneShotLoops,
        clear_spirv_inactive_payloads::ClearSpirvInactivePayloads,
        const_fold::ConstFold,
        cvp::Cvp,
        dce::Dce,
        dead_arg_elim::DeadArgElim,
        dead_store_elimination::DeadStoreElimination,
        div_rem_pairs::DivRemPairs,
        early_cse::EarlyCse,
        early_return_elimination::EarlyReturnElimination,
        destructure_cfg::DestructureCfg,
        fix_self_referential::FixSelfReferential,
        fuse_consecutive_buffer_reads::FuseConsecutiveBufferReads,
        gvn::Gvn,
        if_conversion::IfConversion,
        indvar_simplify::IndvarSimplify,
        inline::Inline,
        inline_all::InlineAll,
        inline_call_sites::InlineCallSites,
        inline_spirv_pointer_args::InlineSpirvPointerArgs,
        licm::Licm,
        local_load_elimination::LocalLoadElimination,
        local_store_forward::LocalStoreForward,
        loop_rotation::LoopRotation,
        loop_unswitch::LoopUnswitch,
        lower_break_continue::LowerBreakContinue,
        lower_irreducible_cfg::LowerIrreducibleCfg,
        lower_ray_query_loop::LowerRayQueryLoop,
        lower_ray_query_loop_to_loop::LowerRayQueryLoopToLoop,
        lower_ray_query_to_loop::LowerRayQueryToLoop,
        lower_ray_query_to_pipeline::LowerRayQueryToPipeline,
        mem2reg::Mem2Reg,
        phi_cleanup::PhiCleanup,
        promote_ref_arg::PromoteRefArg,
        reassociate::Reassociate,
        reconstruct_ray_query_loop::ReconstructRayQueryLoop,
        reg2mem::Reg2Mem,
        restructure_cfg::RestructureCfg,
        scalarizer::Scalarizer,
        select_factor::SelectFactor,
        sccp::Sccp,
        simplify_cfg::SimplifyCfg,
        simplify_libcalls::SimplifyLibcalls,
        slp_vectorization::SlpVectorization,
        sroa::Sroa,
        trace_gep::TraceGep,
        unused_callable_removal::UnusedCallableRemoval,
    ];
}

/// `(kebab-case name, summary)` of every upstream pass (reference §6.1–6.3 and the
/// pipeline entries of §7) that is not implemented yet, sorted by name. A pipeline naming
/// one fails to load with "not implemented yet" rather than "unknown pass".
/// (`lower_ray_query_handler_graph` in §6.1 is no pass: upstream's file is the dense
/// handler-CFG view used by `lower-ray-query-to-pipeline`'s localization proof.)
pub static NOT_IMPLEMENTED: &[(&str, &str)] = &[
    (
        "dead-field-elimination",
        "Removes unused struct fields of local aggregates.",
    ),
    (
        "defer-local-aggregate-load",
        "Sinks whole-aggregate loads of locals to their uses.",
    ),
    (
        "fast-math-simplify",
        "Float simplifications valid only under fast math.",
    ),
    (
        "integer-alignment",
        "Normalizes integer alignment arithmetic.",
    ),
    (
        "loop-fusion",
        "Fuses adjacent compatible loops (opt-in, plain CFG).",
    ),
    (
        "loop-vectorization",
        "Vectorizes simple loops (opt-in, plain CFG).",
    ),
    (
        "outline",
        "Outlining (an explicit unsupported no-op upstream).",
    ),
    (
        "transpose-gep",
        "Reorders GEP indices over transposed layouts.",
    ),
];
