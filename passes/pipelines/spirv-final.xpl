// spirv-final — the whole XIR side of the SPIR-V backend
// (luisa_spirv_backend_translate_ast_to_xir, reference §7.5): verify the input, optional
// structured optimization, autodiff legalization and lowering when the module has an
// autodiff scope, then legalization and the codegen dialect check.

verify
if optimize {
    use spirv-structured-opt
    verify
}
if has-autodiff-scope {
    use pre-autodiff
    verify{require-unique-merge-blocks, require-canonical-break-continue-targets}
    // Autodiff lowering. No DCE or mem2reg on purpose: the output stays phi-free until
    // legalization.
    add autodiff
    add scalarizer                                  // always, unlike structured opt
    add sroa{decompose-vectors=true}
    add reg2mem
    verify
}
use spirv-legalize
// The single fail-closed handoff to the backend (validate_spirv_xir_codegen_dialect):
// the driver runs codegen's dialect table here.
check spirv-dialect
