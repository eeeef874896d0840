// A memory-form cleanup, as run before autodiff lowering: its output must stay
// phi-free (upstream keeps the autodiff pipeline phi-free on purpose).
// DELIBERATELY WRONG for the docs/bisect.md demo: mem2reg was moved into the cleanup
// fixed point; it belongs after the final legalization.

add dce
fixed-point cleanup max=4 {
    add mem2reg
    add const-fold
    add dce
}
add simplify-cfg
