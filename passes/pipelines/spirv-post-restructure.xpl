// spirv-post-restructure — create_spirv_codegen_post_restructure_pipeline (reference
// §7.5, newest version with the one-shot loop canonicalization).

add canonicalize-spirv-one-shot-loops
add clear-spirv-inactive-payloads
// Recover SSA: native OpPhi emission owns SSA (rather than spirv-opt).
add mem2reg as mem2reg-post-restructure
// Fatal when a reg2mem spill marker survives; never reports a change.
add audit-reg2mem-spills abort-on-refusal
