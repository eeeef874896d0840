// spirv-legalize — the SPIR-V backend's legalization (reference §7.5). The parts outside
// `if optimize` are the SPIR-V input language contract.

add reconstruct-ray-query-loop abort-on-refusal
add lower-ray-query-to-loop abort-on-refusal
add promote-ref-arg as promote-readonly-ref-args
if optimize {
    add licm
}
add destructure-cfg abort-on-refusal
add inline-spirv-pointer-args abort-on-refusal
if optimize {
    add inline
    sequence post-inline-cleanup {
        use post-inline-cleanup
    }
    add dead-arg-elim
    add mem2reg
    add algebraic-simplify
    add const-fold
    add reassociate
    add sccp
    add dce
    add early-cse
    add local-store-forward
    add local-load-elimination
    add dead-store-elimination
    add gvn
    add if-conversion
    add phi-cleanup
    add unused-callable-removal
    add simplify-cfg
}
add reg2mem as reg2mem-pre-restructure
add restructure-cfg{mode=in-place-discardable} abort-on-refusal
// Its output may hold self-referential inserts that the next entry repairs.
sequence post-restructure-boundary verify=deferred {
    use spirv-post-restructure
}
add fix-self-referential abort-on-refusal
