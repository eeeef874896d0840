// post-inline-cleanup — upstream's create_post_inline_cleanup_pipeline (reference §7.3).

add slp-vectorization
add fuse-consecutive-buffer-reads
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
add sroa
add dead-store-elimination
add dce
