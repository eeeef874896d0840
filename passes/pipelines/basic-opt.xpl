// basic-opt — upstream's create_basic_optimization_pipeline (reference §7.3,
// pass_pipeline.cpp 0c84a1aa). A plain list of leaves run once, in this exact order.
// `fast-math` is the pipeline's OptimizationPipelineOptions::enable_fast_math.

add licm
add dce
add local-store-forward
add local-load-elimination
add dce
if fast-math {
    add algebraic-simplify{enable-fast-math=true}
} else {
    add algebraic-simplify
}
add const-fold
add dce
add promote-ref-arg
add sroa                      // default options: no vector/matrix decomposition
add dead-store-elimination
add dce
