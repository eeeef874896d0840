// cleanup — a runnable scalar cleanup built only from implemented passes: fold
// constants, delete dead code, simplify the CFG and drop trivial phis until nothing
// changes (at most 8 rounds).

fixed-point cleanup max=8 {
    add const-fold
    add dce
    add simplify-cfg
    add phi-cleanup
}
