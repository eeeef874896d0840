// post-restructure-cleanup — upstream's create_post_restructure_cleanup_pipeline
// (reference §7.3).

add const-fold
if fast-math {
    add algebraic-simplify{enable-fast-math=true}
} else {
    add algebraic-simplify
}
add dce
add early-cse
add local-store-forward
add local-load-elimination
add dead-store-elimination
add gvn
add dce
