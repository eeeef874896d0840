#!/usr/bin/env python3
"""Generates test-corpus/corpus/codegen/gen-*.xir: one kernel per (op, type) row.

Each file reads its operands from buffers, applies one XIR op, writes the result, and
checks (1) that xir-to-spirv compiles it, (2) that Debian's spirv-val accepts the binary
for Vulkan 1.2 and (3) that the assembly holds the SPIR-V instruction(s) the row names.
The expected instructions are written here by hand from the SPIR-V and GLSL.std.450
specifications, not copied from the backend's output.

    python3 test-corpus/gen-codegen-corpus.py   # rewrites the gen-*.xir files
"""
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "codegen")

# (type, capability lines expected)
CAPS = {
    "f64": ["OpCapability Float64"],
    "i64": ["OpCapability Int64"],
    "u64": ["OpCapability Int64"],
    "f16": ["OpCapability Float16", "OpCapability StorageBuffer16BitAccess"],
    "i16": ["OpCapability Int16", "OpCapability StorageBuffer16BitAccess"],
    "u16": ["OpCapability Int16", "OpCapability StorageBuffer16BitAccess"],
}

FLOAT_UNARY_GLSL = {
    "abs": "FAbs", "acos": "Acos", "acosh": "Acosh", "asin": "Asin", "asinh": "Asinh",
    "atan": "Atan", "atanh": "Atanh", "cos": "Cos", "cosh": "Cosh", "sin": "Sin",
    "sinh": "Sinh", "tan": "Tan", "tanh": "Tanh", "exp": "Exp", "exp2": "Exp2",
    "log": "Log", "log2": "Log2", "sqrt": "Sqrt", "rsqrt": "InverseSqrt", "ceil": "Ceil",
    "floor": "Floor", "fract": "Fract", "trunc": "Trunc", "rint": "RoundEven",
    "saturate": "FClamp",
}

rows = []  # (name, op, operand types, result type, checks)


def add(name, op, opnds, res, checks):
    rows.append((name, op, opnds, res, checks))


for t in ["f32", "vector<f32, 4>", "f64", "f16"]:
    tag = t.replace("vector<f32, 4>", "v4f32")
    for op, g in FLOAT_UNARY_GLSL.items():
        if t in ("f64", "f16") and op not in ("abs", "sqrt", "floor", "ceil", "trunc", "fract", "rint", "saturate"):
            continue  # GLSL.std.450 transcendentals are 16/32-bit only
        add(f"float-{op}-{tag}", op, [t], t, [f"OpExtInst {{{{.*}}}} {g} "])
    for op, ins in [("binary_add", "OpFAdd"), ("binary_sub", "OpFSub"), ("binary_mul", "OpFMul"),
                    ("binary_div", "OpFDiv"), ("binary_mod", "OpFRem")]:
        add(f"float-{op}-{tag}", op, [t, t], t, [ins])
    add(f"float-unary_minus-{tag}", "unary_minus", [t], t, ["OpFNegate"])
    for op, g in [("min", "FMin"), ("max", "FMax")]:
        add(f"float-{op}-{tag}", op, [t, t], t, [f"OpExtInst {{{{.*}}}} {g} "])
    add(f"float-fma-{tag}", "fma", [t, t, t], t, ["OpExtInst {{.*}} Fma "])
    add(f"float-clamp-{tag}", "clamp", [t, t, t], t, ["OpExtInst {{.*}} FClamp "])
    add(f"float-copysign-{tag}", "copysign", [t, t], t, ["OpBitwiseAnd", "OpBitwiseOr", "OpBitcast"])
    add(f"float-round-{tag}", "round", [t], t, ["OpExtInst {{.*}} Trunc ", "OpExtInst {{.*}} FSign ", "OpSelect"])
for t in ["f32", "vector<f32, 3>"]:
    tag = t.replace("vector<f32, 3>", "v3f32")
    add(f"float-pow-{tag}", "pow", [t, t], t, ["OpExtInst {{.*}} Pow "])
    add(f"float-atan2-{tag}", "atan2", [t, t], t, ["OpExtInst {{.*}} Atan2 "])
    add(f"float-exp10-{tag}", "exp10", [t], t, ["OpExtInst {{.*}} Pow "])
    add(f"float-log10-{tag}", "log10", [t], t, ["OpExtInst {{.*}} Log2 ", "OpFMul"])
    add(f"float-lerp-{tag}", "lerp", [t, t, t], t, ["OpDecorate {{.*}} NoContraction", "OpFSub", "OpFMul", "OpFAdd"])
    add(f"float-smoothstep-{tag}", "smoothstep", [t, t, t], t, ["OpExtInst {{.*}} SmoothStep "])
    add(f"float-step-{tag}", "step", [t, t], t, ["OpExtInst {{.*}} Step "])
# Scalar edges smeared to the vector width.
add("float-lerp-scalar-t", "lerp", ["vector<f32, 4>", "vector<f32, 4>", "f32"], "vector<f32, 4>", ["OpDecorate {{.*}} NoContraction", "OpCompositeConstruct %v4float", "OpFSub", "OpFMul", "OpFAdd"])
add("float-step-scalar-edge", "step", ["f32", "vector<f32, 2>"], "vector<f32, 2>", ["OpCompositeConstruct %v2float", "OpExtInst {{.*}} Step "])

INT_BIN = [("binary_add", "OpIAdd"), ("binary_sub", "OpISub"), ("binary_mul", "OpIMul"),
           ("binary_bit_and", "OpBitwiseAnd"), ("binary_bit_or", "OpBitwiseOr"),
           ("binary_bit_xor", "OpBitwiseXor"), ("binary_shift_left", "OpShiftLeftLogical")]
for t, signed in [("i32", True), ("u32", False), ("vector<i32, 2>", True), ("vector<u32, 4>", False),
                  ("i64", True), ("u64", False), ("i16", True), ("u16", False)]:
    tag = t.replace("vector<i32, 2>", "v2i32").replace("vector<u32, 4>", "v4u32")
    for op, ins in INT_BIN:
        add(f"int-{op}-{tag}", op, [t, t], t, [ins])
    add(f"int-binary_div-{tag}", "binary_div", [t, t], t, ["OpSDiv" if signed else "OpUDiv"])
    add(f"int-binary_mod-{tag}", "binary_mod", [t, t], t, ["OpSDiv", "OpIMul", "OpISub"] if signed else ["OpUMod"])
    add(f"int-binary_shift_right-{tag}", "binary_shift_right", [t, t], t,
        ["OpShiftRightArithmetic" if signed else "OpShiftRightLogical"])
    add(f"int-unary_bit_not-{tag}", "unary_bit_not", [t], t, ["OpNot"])
    if t in ("i32", "u32", "u64"):
        add(f"int-min-{tag}", "min", [t, t], t, ["OpExtInst {{.*}} " + ("SMin " if signed else "UMin ")])
        add(f"int-max-{tag}", "max", [t, t], t, ["OpExtInst {{.*}} " + ("SMax " if signed else "UMax ")])
        add(f"int-clamp-{tag}", "clamp", [t, t, t], t, ["OpExtInst {{.*}} " + ("SClamp " if signed else "UClamp ")])
        add(f"int-rotate_left-{tag}", "binary_rotate_left", [t, t], t, ["OpShiftLeftLogical", "OpShiftRightLogical", "OpBitwiseOr"])
        add(f"int-rotate_right-{tag}", "binary_rotate_right", [t, t], t, ["OpShiftLeftLogical", "OpShiftRightLogical", "OpBitwiseOr"])
    if signed and t in ("i32", "v2i32", "vector<i32, 2>"):
        add(f"int-abs-{tag}", "abs", [t], t, ["OpExtInst {{.*}} SAbs "])
        add(f"int-unary_minus-{tag}", "unary_minus", [t], t, ["OpSNegate"])
for t in ["u32", "vector<u32, 2>"]:
    tag = t.replace("vector<u32, 2>", "v2u32")
    add(f"bits-clz-{tag}", "clz", [t], t, ["OpExtInst {{.*}} FindUMsb ", "OpISub"])
    add(f"bits-ctz-{tag}", "ctz", [t], t, ["OpExtInst {{.*}} FindILsb ", "OpExtInst {{.*}} UMin "])
    add(f"bits-popcount-{tag}", "popcount", [t], t, ["OpBitCount"])
    add(f"bits-reverse-{tag}", "reverse", [t], t, ["OpBitReverse"])

# Comparisons: bool result, stored through a static_cast to u32 (bool → OpSelect).
for t, pre in [("f32", "F"), ("i32", "S"), ("u32", "U"), ("f64", "F"), ("i64", "S")]:
    for op, base in [("binary_less", "LessThan"), ("binary_greater", "GreaterThan"),
                     ("binary_less_equal", "LessThanEqual"), ("binary_greater_equal", "GreaterThanEqual")]:
        ins = ("OpFOrd" + base) if pre == "F" else ("Op" + pre + base)
        add(f"cmp-{op}-{t}", op, [t, t], "bool", [ins])
    if t in ("f32", "i32"):
        add(f"cmp-binary_equal-{t}", "binary_equal", [t, t], "bool", ["OpFOrdEqual" if pre == "F" else "OpIEqual"])
        add(f"cmp-binary_not_equal-{t}", "binary_not_equal", [t, t], "bool", ["OpFUnordNotEqual" if pre == "F" else "OpINotEqual"])
add("cmp-isnan-f32", "isnan", ["f32"], "bool", ["OpIsNan"])
add("cmp-isinf-f32", "isinf", ["f32"], "bool", ["OpIsInf"])

# Geometry and reductions.
v3 = "vector<f32, 3>"
add("geom-cross", "cross", [v3, v3], v3, ["OpVectorShuffle", "OpFMul", "OpFSub"])
add("geom-dot", "dot", [v3, v3], "f32", ["OpFMul %v3float", "OpCompositeExtract %float", "OpFAdd %float"])
add("geom-length", "length", [v3], "f32", ["OpFMul %v3float", "OpFAdd %float", "OpExtInst {{.*}} Sqrt "])
add("geom-length_squared", "length_squared", [v3], "f32", ["OpFMul %v3float", "OpFAdd %float"])
add("geom-normalize", "normalize", [v3], v3, ["OpExtInst {{.*}} Sqrt ", "OpFDiv %v3float"])
add("geom-reflect", "reflect", [v3, v3], v3, ["OpFAdd %float", "OpFMul %float", "OpFMul %v3float", "OpFSub %v3float"])
add("geom-faceforward", "faceforward", [v3, v3, v3], v3, ["OpFOrdLessThan %bool", "OpFNegate %v3float", "OpSelect %v3float"])
for op, ins in [("reduce_sum", "OpFAdd %float"), ("reduce_product", "OpFMul %float"),
                ("reduce_min", "OpExtInst %float {{.*}} FMin "), ("reduce_max", "OpExtInst %float {{.*}} FMax ")]:
    add(f"reduce-{op}-v4f32", op, ["vector<f32, 4>"], "f32", ["OpCompositeExtract %float", ins])
add("reduce-reduce_sum-v3u32", "reduce_sum", ["vector<u32, 3>"], "u32", ["OpCompositeExtract %uint", "OpIAdd %uint"])
add("reduce-reduce_max-v2i32", "reduce_max", ["vector<i32, 2>"], "i32", ["OpExtInst %int {{.*}} SMax "])

# Matrices.
m3 = "matrix<f32, 3>"
m4 = "matrix<f32, 4>"
add("matrix-linalg-mat-mat", "matrix_linalg_mul", [m4, m4], m4, ["OpMatrixTimesMatrix"])
add("matrix-linalg-mat-vec", "matrix_linalg_mul", [m4, "vector<f32, 4>"], "vector<f32, 4>", ["OpMatrixTimesVector"])
add("matrix-linalg-vec-mat", "matrix_linalg_mul", ["vector<f32, 3>", m3], "vector<f32, 3>", ["OpVectorTimesMatrix"])
add("matrix-transpose", "matrix_transpose", [m3], m3, ["OpTranspose"])
add("matrix-determinant", "matrix_determinant", [m3], "f32", ["OpExtInst {{.*}} Determinant "])
add("matrix-inverse", "matrix_inverse", [m4], m4, ["OpExtInst {{.*}} MatrixInverse "])
add("matrix-comp-add", "matrix_comp_add", [m3, m3], m3, ["OpCompositeExtract %v3float", "OpFAdd %v3float", "OpCompositeConstruct %mat3v3float"])
add("matrix-comp-mul-scalar", "matrix_comp_mul", [m4, "f32"], m4, ["OpCompositeConstruct %v4float", "OpFMul %v4float"])
add("matrix-comp-neg", "matrix_comp_neg", [m3], m3, ["OpFNegate %v3float"])
add("matrix-outer-product", "outer_product", ["vector<f32, 3>", "vector<f32, 3>"], m3, ["OpOuterProduct %mat3v3float"])


def ident(name):
    return re.sub(r"[^a-z0-9_-]", "", name.replace(" ", "").replace("<", "-").replace(">", "").replace(",", "-"))


def render(name, op, opnds, res, checks):
    lines = []
    lines.append(f"// Generated by test-corpus/gen-codegen-corpus.py: arithmetic {op} on {', '.join(opnds)} -> {res}.")
    lines.append("// REQUIRES: spirv-tools")
    lines.append("// RUN: xir-to-spirv %s -o %t.spv")
    lines.append("// RUN: spirv-val --target-env vulkan1.2 %t.spv")
    lines.append("// RUN: xir-to-spirv %s --emit=spirv-asm | FileCheck %s")
    caps = []
    for t in opnds + [res]:
        for k, cs in CAPS.items():
            if k in t:
                for c in cs:
                    if c not in caps:
                        caps.append(c)
    for c in caps:
        lines.append(f"// CHECK-DAG: {c}")
    lines.append("// CHECK: OpEntryPoint GLCompute %{{.*}} \"main\"")
    for c in checks:
        lines.append(f"// CHECK: {c}")
    lines.append("")
    lines.append("module;")
    lines.append("")
    lines.append("const %0: u32 = 00000000;")
    lines.append("")
    # Arguments: one buffer per distinct operand type, one output buffer.
    types = []
    for t in opnds:
        if t not in types:
            types.append(t)
    out_t = "u32" if res == "bool" else res
    lines.append("kernel %1 (")
    n = 2
    buf = {}
    for t in types:
        buf[t] = n
        lines.append(f"    %{n}: buffer<{t}>;")
        n += 1
    outb = n
    lines.append(f"    %{n}: buffer<{out_t}>;")
    n += 1
    lines.append(f") = define %{n}: {{")
    n += 1
    idx = n
    lines.append(f"    %{idx}: u32 = arithmetic extract %90.dispatch_id, %0;")
    n += 1
    vals = {}
    for t in types:
        vals[t] = n
        lines.append(f"    %{n}: {t} = resource_read buffer_read %{buf[t]}, %{idx};")
        n += 1
    args = ", ".join(f"%{vals[t]}" for t in opnds)
    r = n
    lines.append(f"    %{r}: {res} = arithmetic {op} {args};")
    n += 1
    if res == "bool":
        lines.append(f"    %{n}: u32 = cast static_cast %{r};")
        r = n
        n += 1
    lines.append(f"    %{n}: void = resource_write buffer_write %{outb}, %{idx}, %{r};")
    n += 1
    lines.append(f"    %{n}: void = return;")
    lines.append("};")
    return "\n".join(lines) + "\n"


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.startswith("gen-") and f.endswith(".xir"):
            os.remove(os.path.join(OUT, f))
    seen = set()
    for name, op, opnds, res, checks in rows:
        fname = "gen-" + ident(name) + ".xir"
        assert fname not in seen, fname
        seen.add(fname)
        with open(os.path.join(OUT, fname), "w") as fh:
            fh.write(render(name, op, opnds, res, checks))
    print(f"{len(rows)} files")


if __name__ == "__main__":
    main()
