//! Every example of LLVM's FileCheck documentation (CommandGuide/FileCheck.rst), each
//! with an input that passes and, where meaningful, one that fails.

mod common;
use common::Expect::*;

const SUB1: &str = "define void @sub1(i32* %p, i32 %v) {\nentry:\n; CHECK: sub1:\n; CHECK: subl\n        %0 = tail call i32 @llvm.atomic.load.sub.i32.p0i32(i32* %p, i32 %v)\n        ret void\n}\n\ndefine void @inc4(i64* %p) {\nentry:\n; CHECK: inc4:\n; CHECK: incq\n        %0 = tail call i64 @llvm.atomic.load.add.i64.p0i64(i64* %p, i64 1)\n        ret void\n}\n";
fc!(
    doc_check_basic,
    SUB1,
    "sub1:\n  subl %eax\ninc4:\n  incq (%rdi)\n",
    [],
    Pass
);
fc!(
    doc_check_basic_fail,
    SUB1,
    "sub1:\n  subl %eax\ninc4:\n  decq (%rdi)\n",
    [],
    Fail(12)
);

const NEXT: &str = "define <2 x double> @t2(<2 x double> %X, double* %P) nounwind {\n\t%tmp3 = load double* %P\n\t%tmp4 = insertelement <2 x double> %X, double %tmp3, i32 1\n\tret <2 x double> %tmp4\n\n; CHECK: t2:\n; CHECK: \tmovl\t8(%esp), %eax\n; CHECK-NEXT: \tmovapd\t(%eax), %xmm0\n; CHECK-NEXT: \tmovhpd\t12(%esp), %xmm0\n; CHECK-NEXT: \tmovapd\t%xmm0, (%eax)\n; CHECK-NEXT: \tret\n}\n";
fc!(
    doc_next,
    NEXT,
    "t2:\n\tmovl\t8(%esp), %eax\n\tmovapd\t(%eax), %xmm0\n\tmovhpd\t12(%esp), %xmm0\n\tmovapd\t%xmm0, (%eax)\n\tret\n",
    [],
    Pass
);
fc!(
    doc_next_fail,
    NEXT,
    "t2:\n\tmovl\t8(%esp), %eax\n\tmovapd\t(%eax), %xmm0\n\tnop\n\tmovhpd\t12(%esp), %xmm0\n\tmovapd\t%xmm0, (%eax)\n\tret\n",
    [],
    Fail(9)
);

const SAME: &str = "!0 = !DILocation(line: 5, scope: !1, inlinedAt: !2)\n\n; CHECK:       !DILocation(line: 5,\n; CHECK-NOT:               column:\n; CHECK-SAME:              scope: ![[SCOPE:[0-9]+]]\n";
fc!(
    doc_same,
    SAME,
    "!0 = !DILocation(line: 5, scope: !1, inlinedAt: !2)\n",
    [],
    Pass
);
fc!(
    doc_same_fail_not,
    SAME,
    "!0 = !DILocation(line: 5, column: 3, scope: !1)\n",
    [],
    Fail(4)
);
fc!(
    doc_same_fail_line,
    SAME,
    "!0 = !DILocation(line: 5,\n scope: !1)\n",
    [],
    Fail(5)
);
const SAME2: &str = "CHECK: {{^}}foo\nCHECK-SAME: bar\n";
fc!(doc_same_anchor, SAME2, "foobar\n", [], Pass);

const EMPTY: &str = "; CHECK: foo\n; CHECK-EMPTY:\n; CHECK-NEXT: bar\n";
fc!(doc_empty, EMPTY, "foo\n\nbar\n", [], Pass);
fc!(doc_empty_fail, EMPTY, "foo\nbar\n", [], Fail(2));
fc!(doc_empty_fail_ws, EMPTY, "foo\n \nbar\n", [], Fail(2));

const NOT: &str = "define i8 @coerce_offset0(i32 %V, i32* %P) {\n  store i32 %V, i32* %P\n\n  %P2 = bitcast i32* %P to i8*\n  %P3 = getelementptr i8* %P2, i32 2\n\n  %A = load i8* %P3\n  ret i8 %A\n; CHECK: @coerce_offset0\n; CHECK-NOT: load\n; CHECK: ret i8\n}\n";
fc!(
    doc_not,
    NOT,
    "define i8 @coerce_offset0(i32 %V, i32* %P) {\n  ret i8 %x\n}\n",
    [],
    Pass
);
fc!(
    doc_not_fail,
    NOT,
    "define i8 @coerce_offset0(i32 %V, i32* %P) {\n  %A = load i8* %P3\n  ret i8 %A\n}\n",
    [],
    Fail(10)
);

const COUNT: &str = "; CHECK: foo\n; CHECK-COUNT-6: vmovaps\n; CHECK-NOT: vmovaps\n";
fc!(
    doc_count,
    COUNT,
    "foo\nvmovaps\nvmovaps\nvmovaps\nvmovaps\nvmovaps\nvmovaps\nbar\n",
    [],
    Pass
);
fc!(
    doc_count_fail_few,
    COUNT,
    "foo\nvmovaps\nvmovaps\nbar\n",
    [],
    Fail(2)
);
fc!(
    doc_count_fail_many,
    COUNT,
    "foo\nvmovaps\nvmovaps\nvmovaps\nvmovaps\nvmovaps\nvmovaps\nvmovaps\n",
    [],
    Fail(3)
);

const DAG: &str = "; CHECK-DAG: add [[REG1:r[0-9]+]], r1, r2\n; CHECK-DAG: add [[REG2:r[0-9]+]], r3, r4\n; CHECK:     mul r5, [[REG1]], [[REG2]]\n";
fc!(
    doc_dag,
    DAG,
    "add r10, r3, r4\nadd r11, r1, r2\nmul r5, r11, r10\n",
    [],
    Pass
);
fc!(
    doc_dag_fail,
    DAG,
    "add r10, r3, r4\nadd r11, r1, r2\nmul r5, r10, r11\n",
    [],
    Fail(3)
);

const DAGNOT: &str = "; CHECK-DAG: BEFORE\n; CHECK-NOT: NOT\n; CHECK-DAG: AFTER\n";
fc!(doc_dag_not, DAGNOT, "BEFORE\nAFTER\n", [], Pass);
fc!(doc_dag_not_reorder, DAGNOT, "AFTER\nBEFORE\n", [], Fail(3));
fc!(doc_dag_not_hit, DAGNOT, "BEFORE\nNOT\nAFTER\n", [], Fail(2));

const DAGOVL: &str = "; CHECK-DAG: abc\n; CHECK-DAG: abc\n";
fc!(doc_dag_overlap_needs_two, DAGOVL, "abc\n", [], Fail(2));
fc!(doc_dag_overlap_two, DAGOVL, "abc abc\n", [], Pass);
fc!(
    doc_dag_overlap_flag,
    DAGOVL,
    "abc\n",
    ["--allow-deprecated-dag-overlap"],
    Pass
);

const DAGNEW: &str =
    "; CHECK-DAG: new # {{[0-9]+}}\n; CHECK-DAG: new # {{[0-9]+}}\n; CHECK-DAG: new # {{[0-9]+}}\n";
fc!(doc_dag_new, DAGNEW, "new # 5\nnew # 6\nnew # 7\n", [], Pass);
fc!(doc_dag_new_fail, DAGNEW, "new # 5\nnew # 6\n", [], Fail(3));

const LABEL: &str = "define %struct.C* @C_ctor_base(%struct.C* %this, i32 %x) {\nentry:\n; CHECK-LABEL: C_ctor_base:\n; CHECK: mov [[SAVETHIS:r[0-9]+]], r0\n; CHECK: bl A_ctor_base\n; CHECK: mov r0, [[SAVETHIS]]\n  ret %struct.C* %this\n}\n\ndefine %struct.D* @D_ctor_base(%struct.D* %this, i32 %x) {\nentry:\n; CHECK-LABEL: D_ctor_base:\n  ret void\n}\n";
fc!(
    doc_label,
    LABEL,
    "C_ctor_base:\n mov r4, r0\n bl A_ctor_base\n mov r0, r4\nD_ctor_base:\n",
    [],
    Pass
);
fc!(
    doc_label_fail,
    LABEL,
    "C_ctor_base:\n mov r4, r0\n bl A_ctor_base\nD_ctor_base:\n mov r0, r4\n",
    [],
    Fail(6)
);
fc!(doc_label_missing, LABEL, "C_ctor_base:\n", [], Fail(12));

const REGEX: &str = "; CHECK: movhpd\t{{[0-9]+}}(%esp), {{%xmm[0-7]}}\n";
fc!(doc_regex, REGEX, "movhpd 12(%esp), %xmm0\n", [], Pass);
fc!(
    doc_regex_fail,
    REGEX,
    "movhpd 12(%esp), %xmm8\n",
    [],
    Fail(1)
);
fc!(doc_regex_brace, "; CHECK: {{[{][{]}}\n", "{{\n", [], Pass);

const VARS: &str = "; CHECK: test5:\n; CHECK:    notw\t[[REGISTER:%[a-z]+]]\n; CHECK:    andw\t{{.*}}[[REGISTER]]\n";
fc!(
    doc_vars,
    VARS,
    "test5:\n notw %ax\n andw %bx, %ax\n",
    [],
    Pass
);
fc!(
    doc_vars_fail,
    VARS,
    "test5:\n notw %ax\n andw %bx, %cx\n",
    [],
    Fail(3)
);

const NUM: &str = "; CHECK: load r[[#REG:]], [r0]\n; CHECK: load r[[#REG+1]], [r1]\n";
fc!(doc_numeric, NUM, "load r5, [r0]\nload r6, [r1]\n", [], Pass);
fc!(
    doc_numeric_fail,
    NUM,
    "load r5, [r0]\nload r7, [r1]\n",
    [],
    Fail(2)
);
const NUMFMT: &str = "; CHECK: mov r[[#REG_A:]], 0x[[#%X,IMM:]]\n; CHECK: add r[[#REG_A + 1]], r[[#REG_A]], 0x[[#%X,IMM + 1]]\n";
fc!(
    doc_numeric_fmt,
    NUMFMT,
    "mov r4, 0xFF\nadd r5, r4, 0x100\n",
    [],
    Pass
);
fc!(
    doc_numeric_fmt_fail,
    NUMFMT,
    "mov r4, 0xFF\nadd r5, r4, 0x101\n",
    [],
    Fail(2)
);
fc!(
    doc_numeric_prec,
    "; CHECK: [[#%.8X,ADDR:]]\n; CHECK: [[#%.8X,ADDR + 4]]\n",
    "0000FFF0\n0000FFF4\n",
    [],
    Pass
);
fc!(
    doc_numeric_alt,
    "; CHECK: [[#%#x,ADDR:]]\n; CHECK: [[#%#x,ADDR + 16]]\n",
    "0xff\n0x10f\n",
    [],
    Pass
);
fc!(
    doc_numeric_func,
    "; CHECK: [[#A:]] [[#B:]]\n; CHECK: [[#mul(A, B)]] [[#add(A,B)]]\n",
    "6 7\n42 13\n",
    [],
    Pass
);
fc!(
    doc_numeric_signed,
    "; CHECK: [[#%d,OFF:]]\n; CHECK: [[#%d,OFF - 8]]\n",
    "4\n-4\n",
    [],
    Pass
);
fc!(
    doc_numeric_equal_constraint,
    "; CHECK: [[#N:]]\n; CHECK: [[#==N]]\n",
    "3\n3\n",
    [],
    Pass
);

const LINE: &str =
    "int a\n// CHECK: test.cpp:[[# @LINE + 4]]:6: error: expected ';' after top level declarator\n";
fc!(
    doc_line,
    LINE,
    "test.cpp:6:6: error: expected ';' after top level declarator\n",
    [],
    Pass
);
fc!(
    doc_line_fail,
    LINE,
    "test.cpp:5:6: error: expected ';' after top level declarator\n",
    [],
    Fail(2)
);
fc!(
    doc_line_legacy,
    "// CHECK: test.cpp:[[@LINE+4]]:6: error\n",
    "test.cpp:5:6: error\n",
    [],
    Pass
);

const NEWLINE: &str = "// CHECK: DW_AT_location [DW_FORM_sec_offset] ([[DLOC:0x[0-9a-f]+]]){{[[:space:]].*}}\"foo\"\n// CHECK: {{^}}[[DLOC]]:\n";
fc!(
    doc_match_newline,
    NEWLINE,
    "DW_AT_location [DW_FORM_sec_offset] (0x00000233)\nDW_AT_name \"foo\"\n0x00000233:\n",
    [],
    Pass
);

const COM: &str = "; COM: CHECK: ignored\n; CHECK: foo\n; COM: \n";
fc!(doc_com, COM, "foo\n", [], Pass);
fc!(
    doc_com_run,
    "; RUN: %t | FileCheck %s\n; CHECK: foo\n",
    "foo\n",
    [],
    Pass
);

fc!(
    doc_literal,
    "CHECK{LITERAL}: [[[10,20]], [[30,40]]]\n",
    "[[[10,20]], [[30,40]]]\n",
    [],
    Pass
);
fc!(
    doc_literal_fail,
    "CHECK{LITERAL}: [[[10,20]], [[30,40]]]\n",
    "[[[10,20]], [[30,41]]]\n",
    [],
    Fail(1)
);
fc!(
    doc_literal_mods,
    "CHECK: a\nCHECK-DAG{LITERAL}: [[10,20]]\nCHECK-NEXT{LITERAL}: {{x}}\n",
    "a\n[[10,20]]\n{{x}}\n",
    [],
    Pass
);
fc!(
    doc_literal_next_first,
    "CHECK-DAG{LITERAL}: [[10,20]]\nCHECK-NEXT{LITERAL}: {{x}}\n",
    "[[10,20]]\n{{x}}\n",
    [],
    Bad(2)
);

fc!(
    doc_implicit_not,
    "CHECK: a\nCHECK: b\n",
    "a\nwarning: x\nb\n",
    ["--implicit-check-not=warning:"],
    Code(1)
);
fc!(
    doc_define,
    "; CHECK: Value: [[VALUE]]\n",
    "Value: 10\n",
    ["-DVALUE=10"],
    Pass
);
fc!(
    doc_define_num,
    "; CHECK: Value: [[#VALUE+1]]\n",
    "Value: 11\n",
    ["-D#VALUE=10"],
    Pass
);
fc!(
    doc_define_num_fmt,
    "; CHECK: Value: [[#VALUE]]\n",
    "Value: A\n",
    ["-D#%X,VALUE=10"],
    Pass
);
fc!(
    doc_prefixes,
    "; X32: pinsrd_1:\n; X32:    pinsrd $1, 4(%esp), %xmm0\n\n; X64: pinsrd_1:\n; X64:    pinsrd $1, %edi, %xmm0\n",
    "pinsrd_1:\npinsrd $1, %edi, %xmm0\n",
    ["--check-prefix=X64"],
    Pass
);
fc!(
    doc_prefixes_fail,
    "; X32: pinsrd_1:\n; X32:    pinsrd $1, 4(%esp), %xmm0\n",
    "pinsrd_1:\npinsrd $1, %edi, %xmm0\n",
    ["--check-prefix=X32"],
    Fail(2)
);
fc!(
    doc_var_scope,
    "// CHECK-LABEL: f:\n// CHECK: [[LOCAL:loc]] [[$GLOBAL:glob]]\n// CHECK-LABEL: g:\n// CHECK: [[$GLOBAL]]\n// CHECK-NOT: [[LOCAL]]\n",
    "f:\nloc glob\ng:\nglob\n",
    ["--enable-var-scope"],
    Fail(5)
);
fc!(
    doc_full_lines,
    "CHECK: foo\n",
    "foo\n",
    ["--match-full-lines"],
    Pass
);
fc!(
    doc_strict_ws,
    "CHECK: a\tb\n",
    "a\tb\n",
    ["--strict-whitespace"],
    Pass
);
