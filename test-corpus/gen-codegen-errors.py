#!/usr/bin/env python3
"""Generates test-corpus/corpus/codegen-errors/*.xir: inputs xir-to-spirv must reject.

Each entry is a verifier-clean module that the SPIR-V backend refuses (kernel ABI,
dialect, planner limits). The line the diagnostic must point at is marked `<<<` here;
the generator removes the marker and writes the FileCheck line with that line number.
Every file also proves that no output file is written.

    python3 test-corpus/gen-codegen-errors.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "codegen-errors")

K = "const %0: u32 = 00000000;\n"

E = []


def add(name, comment, body, message):
    E.append((name, comment, body, message))


add("kernel-reference-argument", "A kernel reference argument has no Vulkan descriptor.", K + """
kernel %1 (
    %2: &u32; <<<
) = define %3: {
    %4: void = return;
};
""", "kernel reference arguments are not part of the Vulkan descriptor ABI")

add("bool-value-argument", "A bool value argument has no storage-buffer representation in the argument block.", K + """
kernel %1 (
    %2: bool; <<<
) = define %3: {
    %4: void = return;
};
""", "kernel value argument of type bool cannot be passed in the argument block: bool has no storage-buffer representation")

add("struct-with-bool-value-argument", "A structure argument containing a bool cannot be laid out in the argument block.", K + """
type T0 = struct { u32, bool };

kernel %1 (
    %2: T0; <<<
) = define %3: {
    %4: void = return;
};
""", "cannot be passed in the argument block: bool has no storage-buffer representation")

add("f64x3-value-argument", "A 64-bit 3-vector is 32-byte aligned in Vulkan but 16-byte aligned on the host.", K + """
kernel %1 (
    %2: u32;
    %3: vector<f64, 3>; <<<
) = define %4: {
    %5: void = return;
};
""", "Vulkan but 16-byte aligned on the host")

for t, what in [("texture2d<f32>", "textures"), ("bindless_array", "bindless arrays"), ("accel", "acceleration structures")]:
    tag = t.replace("<f32>", "")
    add(f"resource-{tag}", f"{what} are not emitted by this backend yet.", K + f"""
kernel %1 (
    %2: {t}; <<<
) = define %3: {{
    %4: void = return;
}};
""", f"{what} are not emitted by this backend yet")

add("recursion", "SPIR-V has no recursion.", K + """
callable %1: void (
    %2: u32;
) = define %3: {
    %4: void = call %1, %2; <<<
    %5: void = return;
};

kernel %6 () = define %7: {
    %8: void = call %1, %0;
    %9: void = return;
};
""", "recursive call of callable_0: SPIR-V has no recursion")

add("external-call", "A reachable external declaration has no SPIR-V definition.", K + """
external %1: void (
    %2: u32;
);

kernel %3 () = define %4: {
    %5: void = call %1, %0; <<<
    %6: void = return;
};
""", "call of external function external_0 has no SPIR-V definition")

add("indexed-branch", "indexed_branch is raw CFG, produced by destructure-cfg; the backend needs structured switch.", K + """
kernel %1 (
    %2: u32;
) = define %3: {
    %4: void = indexed_branch %2, case 0 %5, default %6; <<<
}
%5: {
    %7: void = return;
}
%6: {
    %8: void = return;
};
""", "`indexed_branch` is not in the SPIR-V backend's dialect")

add("unstructured-cond-br", "A conditional branch outside a loop header is unstructured control flow.", K + """
kernel %1 (
    %2: bool;
) = define %3: {
    %4: void = cond_br %2, %5, %6; <<<
}
%5: {
    %7: void = br %6;
}
%6: {
    %8: void = return;
};
""", "cond_br outside a loop's prepare block is unstructured control flow")

add("clock", "clock needs VK_KHR_shader_clock.", K + """
kernel %1 () = define %2: {
    %3: u64 = clock; <<<
    %4: void = return;
};
""", "`clock` is not in the SPIR-V backend's dialect")

add("pow-int", "pow_int has no exact GLSL.std.450 lowering yet.", K + """
kernel %1 (
    %2: f32;
    %3: i32;
    %4: buffer<f32>;
) = define %5: {
    %6: f32 = arithmetic pow_int %2, %3; <<<
    %7: void = resource_write buffer_write %4, %0, %6;
    %8: void = return;
};
""", "`arithmetic pow_int` is not in the SPIR-V backend's dialect")

add("raster-op", "Raster-stage thread-group ops do not exist in a compute kernel.", K + """
kernel %1 (
    %2: f32;
) = define %3: {
    %4: f32 = thread_group raster_quad_ddx %2; <<<
    %5: void = return;
};
""", "`thread_group raster_quad_ddx` is not in the SPIR-V backend's dialect: raster-stage op in a compute kernel")

add("shared-alloca-in-callable", "Workgroup storage must be declared by the kernel.", K + """
callable %1: void () = define %2: {
    %3: array<u32, 4> = alloca shared; <<<
    %4: void = return;
};

kernel %5 () = define %6: {
    %7: void = call %1;
    %8: void = return;
};
""", "shared alloca in a callable")

add("callable-used-buffer-formal", "A callable that uses a buffer formal must be specialized by spirv-final.", K + """
callable %1: u32 (
    %2: buffer<u32>; <<<
) = define %3: {
    %4: u32 = resource_read buffer_read %2, %0;
    %5: void = return %4;
};

kernel %6 (
    %7: buffer<u32>;
) = define %8: {
    %9: u32 = call %1, %7;
    %10: void = return;
};
""", "a used resource formal of a callable cannot be a SPIR-V function parameter")

add("reference-argument-gep", "A pointer into an aggregate is not a memory object declaration.", K + """
callable %1: void (
    %2: &u32;
) = define %3: {
    %4: void = store %2, %0;
    %5: void = return;
};

kernel %6 () = define %7: {
    %8: array<u32, 4> = alloca local;
    %9: u32 = getelementptr %8, %0;
    %10: void = call %1, %9; <<<
    %11: void = return;
};
""", "reference argument 0 must be a local alloca or a reference argument")

add("reference-argument-shared", "Shared memory passed by reference must be specialized by spirv-final.", K + """
callable %1: void (
    %2: &u32;
) = define %3: {
    %4: void = store %2, %0;
    %5: void = return;
};

kernel %6 () = define %7: {
    %8: u32 = alloca shared;
    %10: void = call %1, %8; <<<
    %11: void = return;
};
""", "reference argument 0 must be a local alloca or a reference argument")

add("reg2mem-spill", "A reg2mem spill slot must be consumed by mem2reg before code generation.", K + """
kernel %1 () = define %2: {
    [reg2mem_spill = phi]
    %3: u32 = alloca local; <<<
    %4: void = return;
};
""", "reg2mem spill slot survived to code generation")

add("fp8-value", "FP8 arithmetic needs SPV_EXT_float8, not emitted.", K + """
kernel %1 (
    %2: buffer<f32>;
) = define %3: {
    %4: f32 = resource_read buffer_read %2, %0;
    %5: f8e4m3 = cast static_cast %4; <<<
    %6: void = return;
};
""", "FP8 needs SPV_EXT_float8")

add("loop-prepare-shape", "A loop's prepare block must end with br body or cond_br %c, body, merge.", K + """
kernel %1 (
    %2: bool;
) = define %3: {
    %4: void = loop prepare %5: {
        %6: void = cond_br %2, %8, %7; <<<
    }, body %7: {
        %9: void = br %10;
    }, update %10: {
        %11: void = br %5;
    }, merge %8: {
        %12: void = return;
    };
};
""", "a loop's prepare block must end with `br body` or `cond_br %c, body, merge`")

add("debug-break", "debug_break has no SPIR-V equivalent.", K + """
kernel %1 () = define %2: {
    %3: void = debug_break; <<<
    %4: void = return;
};
""", "`debug_break` is not in the SPIR-V backend's dialect")

add("custom-type-value", "Opaque custom types have no SPIR-V representation.", K + """
type T0 = opaque "LC_RayQueryAll";

kernel %1 () = define %2: {
    %3: T0 = alloca local; <<<
    %4: void = return;
};
""", "opaque custom types have no SPIR-V representation")

add("texture-size-query", "Texture queries are not emitted yet.", K + """
kernel %1 (
    %2: buffer<u32>;
) = define %3: {
    %4: u64 = resource_query buffer_device_address %2; <<<
    %5: void = return;
};
""", "`resource_query buffer_device_address` is not in the SPIR-V backend's dialect")

add("bindless-value-in-callable", "An unsupported type in a callable signature is reported at the argument.", K + """
callable %1: void (
    %2: f8e5m2; <<<
) = define %3: {
    %4: void = return;
};

kernel %8 (
    %9: f32;
) = define %10: {
    %11: f8e5m2 = cast static_cast %9;
    %12: void = call %1, %11;
    %13: void = return;
};
""", "the argument has type f8e5m2 that the SPIR-V backend cannot represent")

add("empty-struct-local", "Empty structures have no SPIR-V type.", K + """
type T0 = struct {  };

kernel %1 () = define %2: {
    %3: T0 = alloca local; <<<
    %4: void = return;
};
""", "empty structures have no SPIR-V type")

add("zero-length-array-local", "XIR represents zero-length host arrays; the SPIR-V dialect rejects them (seed: dialect boundary).", K + """
kernel %1 () = define %2: {
    %3: array<u32, 0> = alloca local; <<<
    %4: void = return;
};
""", "zero-length arrays have no SPIR-V type (OpTypeArray length must be positive)")

add("zero-length-array-buffer", "A buffer of zero-length arrays is rejected at the dialect boundary, not by the reader.", K + """
kernel %1 (
    %2: buffer<array<f32, 0>>; <<<
) = define %3: {
    %4: void = return;
};
""", "zero-length arrays have no SPIR-V type")

add("i4-value", "4-bit types have no SPIR-V representation.", K + """
kernel %1 (
    %2: f32;
) = define %3: {
    %4: i4 = cast static_cast %2; <<<
    %5: void = return;
};
""", "4-bit types have no SPIR-V representation")

add("autodiff-intrinsic", "Autodiff must be lowered before code generation.", K + """
kernel %1 (
    %2: f32;
) = define %3: {
    %4: void = @autodiff_requires_gradient %2; <<<
    %5: void = return;
};
""", "autodiff must be lowered before code generation")


# Planner rejections of the uint32 word-storage ABI (codegen/src/plan.rs buffer_reprs,
# emit/mem.rs, emit/cfg.rs).
add("word-storage-u64-atomic", "A 64-bit integer atomic needs typed storage; a structure with a bool member uses 32-bit words.", K + """
const %1: u32 = 02000000;
const %2: u64 = 0100000000000000;
type T0 = struct { bool, u32, u64 };

kernel %3 (
    %4: buffer<T0>;
) = define %5: {
    %6: u64 = atomic fetch_add %4, %0, %1, %2; <<<
    %7: void = return;
};
""", "64-bit integer atomic fetch_add needs typed storage, but this buffer uses the uint32 word-storage ABI")

add("word-storage-i64-vector-atomic", "A 64-bit 4-vector buffer uses word storage: an i64 atomic on a lane has no 64-bit word.", K + """
const %1: i64 = 0100000000000000;

kernel %2 (
    %3: buffer<vector<i64, 4>>;
) = define %4: {
    %5: i64 = atomic fetch_max %3, %0, %0, %1; <<<
    %6: void = return;
};
""", "64-bit integer atomic fetch_max needs typed storage")

add("word-storage-buffer-size-bool", "buffer_size of a buffer<bool>: 1-byte elements in 4-byte words, the count is not recoverable.", K + """
kernel %1 (
    %2: buffer<bool>;
    %3: buffer<u32>;
) = define %4: {
    %5: u32 = resource_query buffer_size %2; <<<
    %6: void = resource_write buffer_write %3, %0, %5;
    %7: void = return;
};
""", "buffer_size of a word-storage buffer with a 1-byte stride: the element count is not recoverable from the bound word count")

add("word-storage-buffer-size-struct", "buffer_size of a word-storage buffer whose 3-byte stride is not a whole number of words.", K + """
type T0 = struct { bool, bool, bool };

kernel %1 (
    %2: buffer<T0>;
    %3: buffer<u64>;
) = define %4: {
    %5: u64 = resource_query buffer_size %2; <<<
    %6: void = resource_write buffer_write %3, %0, %5;
    %7: void = return;
};
""", "buffer_size of a word-storage buffer with a 3-byte stride")

add("word-storage-element-too-large", "A word-storage element that would expand to more scalars per access than the planner allows.", K + """
kernel %1 (
    %2: buffer<array<bool, 5000>>; <<<
) = define %3: {
    %4: void = return;
};
""", "a word-storage buffer element of 5000 scalars exceeds the backend's limit of 4096 per access")

add("cas-loop-in-loop-prepare", "A float fetch_add on a word-storage buffer is a compare-exchange loop, which a loop's prepare block cannot hold.", K + """
const %1: f32 = 0000803f;

kernel %2 (
    %3: buffer<f32>;
) = define %4: {
    %5: f32 = atomic compare_exchange %3, %0, %1, %1;
    %6: void = loop prepare %7: {
        %8: f32 = atomic fetch_add %3, %0, %1; <<<
        %9: void = br %10;
    }, body %10: {
        %11: void = br %12;
    }, update %12: {
        %13: void = br %7;
    }, merge %14: {
        %15: void = return;
    };
};
""", "this atomic needs a compare-exchange loop, which cannot be placed in a loop's prepare block")
add("word-storage-u64x3-atomic", "A 64-bit 3-vector buffer uses word storage: a u64 exchange on a lane has no 64-bit word.", K + """
const %1: u32 = 02000000;
const %2: u64 = 0100000000000000;

kernel %3 (
    %4: buffer<vector<u64, 3>>;
) = define %5: {
    %6: u64 = atomic exchange %4, %0, %1, %2; <<<
    %7: void = return;
};
""", "64-bit integer atomic exchange needs typed storage")

add("word-storage-buffer-size-bool2", "buffer_size of a buffer<vector<bool, 2>>: 2-byte elements in 4-byte words.", K + """
kernel %1 (
    %2: buffer<vector<bool, 2>>;
    %3: buffer<u64>;
) = define %4: {
    %5: u64 = resource_query buffer_size %2; <<<
    %6: void = resource_write buffer_write %3, %0, %5;
    %7: void = return;
};
""", "buffer_size of a word-storage buffer with a 2-byte stride")


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        if f.endswith(".xir") and not f.startswith("cli-"):
            os.remove(os.path.join(OUT, f))
    for name, comment, body, message in E:
        header = [
            f"// {comment}",
            "// Generated by test-corpus/gen-codegen-errors.py.",
            "// RUN: rm -f %t.spv",
            "// RUN: not xir-to-spirv %s -o %t.spv 2>&1 | FileCheck %s",
            "// RUN: not cat %t.spv",
            None,
            "",
            "module;",
        ]
        lines = body.strip("\n").split("\n")
        marked = [i for i, l in enumerate(lines) if l.endswith(" <<<")]
        assert len(marked) == 1, name
        lines[marked[0]] = lines[marked[0]][: -len(" <<<")]
        line_no = len(header) + 1 + marked[0]
        msg = message.replace("[", "\\[").replace("{", "{{\"{\"}}") if False else message
        header[5] = f"// CHECK: {name}.xir:{line_no}:{{{{[0-9]+}}}}: error: {{{{.*}}}}{msg}"
        text = "\n".join(header) + "\n" + "\n".join(lines) + "\n"
        with open(os.path.join(OUT, name + ".xir"), "w") as fh:
            fh.write(text)
    print(f"{len(E)} files")


if __name__ == "__main__":
    main()
