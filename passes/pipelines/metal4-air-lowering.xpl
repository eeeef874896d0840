// metal4-air-lowering — optimize_xir_for_air (reference §7.6). Metal feeds a plain CFG
// (not restructured) into LLVM/AIR codegen. `ray-query-pipeline` is
// ShaderOption::enable_ray_query_pipeline; its outlining uses the Metal backend's
// ray-payload capture filter and cost, as upstream (the payload-byte budget,
// MetalRayQueryPipelinePolicy::max_captured_payload_bytes, is left unbounded).

verify
sequence basic-optimization {
    use basic-opt
}
if has-autodiff-scope {
    if ray-query-pipeline {
        add lower-ray-query-to-pipeline{captured-argument-filter=metal-ray-payload, captured-argument-cost=metal-ray-payload} as outline-ray-query-pipelines abort-on-refusal
    }
    add lower-ray-query-to-loop abort-on-refusal
    add destructure-cfg as destructure-cfg-before-inline abort-on-refusal
    add inline-all{allow-autodiff-scope-in-caller=true} as inline-all-autodiff-callables
    // Shipped as upstream: add_fixed_point(…, 1). A budget of one reports an exhausted
    // convergence budget whenever the cleanup changed something (the SPIR-V backend uses a
    // sequence instead), so non-convergence is allowed here rather than fatal.
    fixed-point post-inline-cleanup max=1 allow-nonconvergence {
        use post-inline-cleanup
    }
    add simplify-cfg
    add reg2mem as reg2mem-before-restructure
    add restructure-cfg as restructure-cfg-before-autodiff abort-on-refusal
    verify{require-no-phi, require-unique-merge-blocks}
    add autodiff
    add reg2mem as reg2mem-after-autodiff
    verify{require-no-phi, require-unique-merge-blocks}
}
if ray-query-pipeline {
    add lower-ray-query-to-pipeline{captured-argument-filter=metal-ray-payload, captured-argument-cost=metal-ray-payload} as outline-ray-query-pipelines abort-on-refusal
}
add lower-ray-query-to-loop abort-on-refusal
add destructure-cfg abort-on-refusal
add inline-all
add mem2reg
use ssa-opt
add unused-callable-removal
add simplify-cfg
verify{require-reachable-blocks}
