// ssa-opt — upstream's create_ssa_optimization_pipeline (reference §7.3). Expects SSA
// form on a plain CFG (after destructure-cfg, inline-all and mem2reg).

add licm
if fast-math {
    add algebraic-simplify{enable-fast-math=true}
} else {
    add algebraic-simplify
}
add const-fold
add sccp
add slp-vectorization
add gvn
add if-conversion
add phi-cleanup
add dce
add local-store-forward
add local-load-elimination
add dead-store-elimination
add dce
