// spirv-structured-opt — the SPIR-V backend's structured optimization (reference §7.5).
// Runs on structured control flow and deliberately has no DCE. The scalarizer is opt-in:
// `scalarizer` is true when LUISA_XIR_ENABLE_SCALARIZER=1 (or --pipeline-param).

if scalarizer {
    add scalarizer
}
add trace-gep
add local-store-forward
add local-load-elimination
add algebraic-simplify
add simplify-libcalls
add reassociate
add const-fold
add cvp
add indvar-simplify
add div-rem-pairs
add promote-ref-arg
add sroa{decompose-vectors=true, decompose-matrices=false, aggressive=false}
add gvn
add dead-store-elimination
