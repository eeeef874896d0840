// pre-autodiff — the SPIR-V backend's pre-autodiff legalization (reference §7.5): bring
// the module to the phi-free, restructured form autodiff requires.

add reconstruct-ray-query-loop abort-on-refusal
add lower-ray-query-to-loop abort-on-refusal
add destructure-cfg abort-on-refusal
add inline-all{allow-autodiff-scope-in-caller=true}
if optimize {
    sequence post-inline-cleanup {
        use post-inline-cleanup
    }
    add dead-arg-elim
    add simplify-cfg
}
add reg2mem as reg2mem-pre-restructure
add restructure-cfg{mode=in-place-discardable} abort-on-refusal
// Upstream repairs this entry's self-referential inserts with the next one, so the IR
// in between may be invalid: verification waits for fix-self-referential.
add reg2mem as reg2mem-post-restructure verify=deferred
add fix-self-referential abort-on-refusal
