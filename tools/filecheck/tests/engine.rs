//! Engine tests: directives, patterns, variables, options and malformed check files.

mod common;
use common::Expect::*;

// CHECK
fc!(plain_in_order, "CHECK: a\nCHECK: b\n", "a\nb\n", [], Pass);
fc!(
    plain_out_of_order,
    "CHECK: b\nCHECK: a\n",
    "a\nb\n",
    [],
    Fail(2)
);
fc!(
    plain_no_overlap,
    "CHECK: abab\nCHECK: ab\n",
    "ababab\n",
    [],
    Pass
);
fc!(
    plain_no_overlap_fail,
    "CHECK: aba\nCHECK: ab\n",
    "abab\n",
    [],
    Fail(2)
);
fc!(plain_substring, "CHECK: ell\n", "hello\n", [], Pass);
fc!(
    plain_missing_second,
    "CHECK: a\nCHECK: zz\n",
    "a\n",
    [],
    Fail(2)
);
fc!(plain_ws_canonical, "CHECK: a  \t b\n", "a b\n", [], Pass);
fc!(
    plain_ws_input_canonical,
    "CHECK: a b\n",
    "a \t  b\n",
    [],
    Pass
);
fc!(plain_trailing_ws_pattern, "CHECK: a   \n", "a\n", [], Pass);
fc!(plain_leading_ws_pattern, "CHECK:     a\n", "a\n", [], Pass);
fc!(plain_empty_pattern, "CHECK:\n", "a\n", [], Bad(1));
fc!(
    plain_prefix_inside_word,
    "MYCHECK: zz\nCHECK: a\n",
    "a\n",
    [],
    Pass
);
fc!(plain_prefix_after_dash, "-CHECK: zz\n", "a\n", [], Code(2));
fc!(plain_no_checks, "hello\n", "a\n", [], Code(2));
fc!(
    plain_crlf_check,
    "CHECK: a\r\nCHECK: b\r\n",
    "a\nb\n",
    [],
    Pass
);
fc!(
    plain_crlf_input,
    "CHECK: a\nCHECK-NEXT: b\n",
    "a\r\nb\r\n",
    [],
    Pass
);
fc!(plain_eof_no_newline, "CHECK: a", "a", [], Pass);
fc!(plain_non_utf8, "CHECK: a\u{e9}b\n", "xa\u{e9}b\n", [], Pass);
// CHECK-NEXT
fc!(next_pass, "CHECK: a\nCHECK-NEXT: b\n", "a\nb\n", [], Pass);
fc!(
    next_same_line,
    "CHECK: a\nCHECK-NEXT: b\n",
    "a b\n",
    [],
    Fail(2)
);
fc!(
    next_two_lines_later,
    "CHECK: a\nCHECK-NEXT: b\n",
    "a\nx\nb\n",
    [],
    Fail(2)
);
fc!(
    next_not_found,
    "CHECK: a\nCHECK-NEXT: q\n",
    "a\nb\n",
    [],
    Fail(2)
);
fc!(next_as_first, "CHECK-NEXT: a\n", "a\n", [], Bad(1));
fc!(
    next_after_label,
    "CHECK-LABEL: f\nCHECK-NEXT: a\n",
    "f\na\n",
    [],
    Pass
);
fc!(
    next_chain,
    "CHECK: 1\nCHECK-NEXT: 2\nCHECK-NEXT: 3\nCHECK-NEXT: 4\n",
    "1\n2\n3\n4\n",
    [],
    Pass
);
fc!(
    next_chain_break,
    "CHECK: 1\nCHECK-NEXT: 2\nCHECK-NEXT: 3\nCHECK-NEXT: 4\n",
    "1\n2\n3\n\n4\n",
    [],
    Fail(4)
);
// CHECK-SAME
fc!(same_pass, "CHECK: a\nCHECK-SAME: b\n", "a b\n", [], Pass);
fc!(
    same_fail,
    "CHECK: a\nCHECK-SAME: b\n",
    "a\nb\n",
    [],
    Fail(2)
);
fc!(same_first, "CHECK-SAME: a\n", "a\n", [], Bad(1));
fc!(
    same_chain,
    "CHECK: a\nCHECK-SAME: b\nCHECK-SAME: c\nCHECK-NEXT: d\n",
    "a b c\nd\n",
    [],
    Pass
);
fc!(
    same_anchor_start,
    "CHECK: a\nCHECK-SAME: {{^}}b\n",
    "ab\n",
    [],
    Pass
);
// CHECK-NOT
fc!(
    not_between_pass,
    "CHECK: a\nCHECK-NOT: b\nCHECK: c\n",
    "a\nc\nb\n",
    [],
    Pass
);
fc!(
    not_between_fail,
    "CHECK: a\nCHECK-NOT: b\nCHECK: c\n",
    "a\nb\nc\n",
    [],
    Fail(2)
);
fc!(
    not_before_first,
    "CHECK-NOT: x\nCHECK: a\n",
    "x\na\n",
    [],
    Fail(1)
);
fc!(
    not_after_last,
    "CHECK: a\nCHECK-NOT: x\n",
    "a\nx\n",
    [],
    Fail(2)
);
fc!(
    not_multiple_first_reported,
    "CHECK: a\nCHECK-NOT: x\nCHECK-NOT: y\nCHECK: b\n",
    "a\nx y\nb\n",
    [],
    Fail(2)
);
fc!(
    not_regex_brace_clash,
    "CHECK-NOT: {{[0-9]{3}}}\n",
    "12 ab\n",
    [],
    Bad(1)
);
fc!(
    not_regex,
    "CHECK-NOT: {{([0-9]{3})}}\n",
    "12 ab\n",
    [],
    Pass
);
fc!(
    not_regex_hit,
    "CHECK-NOT: {{([0-9]{3})}}\n",
    "123\n",
    [],
    Fail(1)
);
fc!(not_combo_error, "CHECK-NOT-NEXT: a\n", "a\n", [], Bad(1));
fc!(
    not_var,
    "CHECK: [[X:[a-z]+]]\nCHECK-NOT: [[X]]\n",
    "foo\nbar\n",
    [],
    Pass
);
fc!(
    not_var_hit,
    "CHECK: [[X:[a-z]+]]\nCHECK-NOT: [[X]]\n",
    "foo\nfoo\n",
    [],
    Fail(2)
);
fc!(
    not_dollar_region_end,
    "CHECK: a\nCHECK-NOT: {{x$}}\nCHECK: y\n",
    "a xy\n",
    [],
    Fail(2)
);
// CHECK-DAG
fc!(
    dag_reverse,
    "CHECK-DAG: b\nCHECK-DAG: a\n",
    "a b\n",
    [],
    Pass
);
fc!(
    dag_missing,
    "CHECK-DAG: b\nCHECK-DAG: q\n",
    "a b\n",
    [],
    Fail(2)
);
fc!(
    dag_overlap_discard,
    "CHECK-DAG: ab\nCHECK-DAG: b\n",
    "ab\n",
    [],
    Fail(2)
);
fc!(
    dag_overlap_second,
    "CHECK-DAG: ab\nCHECK-DAG: b\n",
    "ab b\n",
    [],
    Pass
);
fc!(
    dag_then_next,
    "CHECK: s\nCHECK-DAG: b\nCHECK-DAG: a\nCHECK-NEXT: c\n",
    "s\nb\na\nc\n",
    [],
    Pass
);
fc!(
    dag_before_check_bound,
    "CHECK-DAG: x\nCHECK: m\n",
    "m\nx\n",
    [],
    Fail(2)
);
fc!(
    dag_not_dag,
    "CHECK-DAG: a\nCHECK-NOT: n\nCHECK-DAG: b\n",
    "a\nb\nn\n",
    [],
    Pass
);
fc!(
    dag_not_dag_fail,
    "CHECK-DAG: a\nCHECK-NOT: n\nCHECK-DAG: b\n",
    "a\nn\nb\n",
    [],
    Fail(2)
);
fc!(
    dag_trailing_not,
    "CHECK: a\nCHECK-DAG: b\nCHECK-NOT: c\n",
    "a\nb\nc\n",
    [],
    Fail(3)
);
fc!(
    dag_var_order,
    "CHECK-DAG: use [[V]]\nCHECK-DAG: def [[V:[0-9]+]]\n",
    "def 1\nuse 1\n",
    [],
    Fail(1)
);
// CHECK-LABEL
fc!(
    label_blocks,
    "CHECK-LABEL: f:\nCHECK: a\nCHECK-LABEL: g:\nCHECK: b\n",
    "f:\na\ng:\nb\n",
    [],
    Pass
);
fc!(
    label_confines,
    "CHECK-LABEL: f:\nCHECK: b\nCHECK-LABEL: g:\n",
    "f:\na\ng:\nb\n",
    [],
    Fail(2)
);
fc!(
    label_multiple_errors,
    "CHECK-LABEL: f:\nCHECK: x\nCHECK-LABEL: g:\nCHECK: y\n",
    "f:\na\ng:\nb\n",
    [],
    Fail(2)
);
fc!(
    label_not_found,
    "CHECK-LABEL: f:\nCHECK-LABEL: h:\n",
    "f:\ng:\n",
    [],
    Fail(2)
);
fc!(label_with_var, "CHECK-LABEL: [[X]]\n", "a\n", [], Bad(1));
fc!(
    label_with_numeric_use,
    "CHECK-LABEL: [[#N]]\n",
    "1\n",
    [],
    Bad(1)
);
// CHECK-EMPTY
fc!(empty_pass, "CHECK: a\nCHECK-EMPTY:\n", "a\n\n", [], Pass);
fc!(
    empty_fail,
    "CHECK: a\nCHECK-EMPTY:\n",
    "a\nb\n\n",
    [],
    Fail(2)
);
fc!(
    empty_with_text,
    "CHECK: a\nCHECK-EMPTY: b\n",
    "a\n\n",
    [],
    Bad(2)
);
fc!(empty_first, "CHECK-EMPTY:\n", "\n", [], Bad(1));
fc!(empty_at_eof, "CHECK: a\nCHECK-EMPTY:\n", "a\n", [], Pass);
// CHECK-COUNT
fc!(count_exact, "CHECK-COUNT-2: a\n", "a a\n", [], Pass);
fc!(count_short, "CHECK-COUNT-3: a\n", "a a\n", [], Fail(1));
fc!(count_zero, "CHECK-COUNT-0: a\n", "a\n", [], Bad(1));
fc!(
    count_next,
    "CHECK: s\nCHECK-COUNT-2: a\nCHECK-NEXT: b\n",
    "s\na\na\nb\n",
    [],
    Pass
);
fc!(
    count_literal,
    "CHECK-COUNT-2{LITERAL}: [[a]]\n",
    "[[a]] [[a]]\n",
    [],
    Pass
);
// comments and prefixes
fc!(com_line, "COM: CHECK: zz\nCHECK: a\n", "a\n", [], Pass);
fc!(run_line, "RUN: CHECK: zz\nCHECK: a\n", "a\n", [], Pass);
fc!(
    custom_comment,
    "//: CHECK: zz\nCMT: CHECK: zz\nCHECK: a\n",
    "a\n",
    ["--comment-prefixes=CMT"],
    Fail(1)
);
fc!(
    custom_comment_only,
    "CMT: CHECK: zz\nCHECK: a\n",
    "a\n",
    ["--comment-prefixes=CMT"],
    Pass
);
fc!(
    com_not_comment_when_replaced,
    "COM: CHECK: zz\nCHECK: a\n",
    "a\n",
    ["--comment-prefixes=CMT"],
    Fail(1)
);
fc!(
    prefix_two,
    "A: a\nB: b\n",
    "a\nb\n",
    ["--check-prefixes=A,B"],
    Pass
);
fc!(
    prefix_unused,
    "A: a\n",
    "a\n",
    ["--check-prefixes=A,B"],
    Code(2)
);
fc!(
    prefix_unused_ok,
    "A: a\n",
    "a\n",
    ["--check-prefixes=A,B", "--allow-unused-prefixes"],
    Pass
);
fc!(
    prefix_duplicate,
    "A: a\n",
    "a\n",
    ["--check-prefix=A", "--check-prefix=A"],
    Code(2)
);
fc!(
    prefix_invalid,
    "A: a\n",
    "a\n",
    ["--check-prefix=A+"],
    Code(2)
);
fc!(
    prefix_dup_with_comment,
    "A: a\n",
    "a\n",
    ["--check-prefix=COM"],
    Code(2)
);
fc!(
    prefix_single_dash,
    "A: a\n",
    "a\n",
    ["-check-prefix", "A"],
    Pass
);
fc!(misspelled, "CHECK_NEXT: a\n", "a\n", [], Bad(1));
// regex
fc!(
    re_leftmost_longest_alt,
    "CHECK: [[X:a|ab]]\nCHECK: ={{$}}\nCHECK: [[X]]c\n",
    "ab=\nabc\n",
    [],
    Pass
);
fc!(
    re_leftmost_longest_capture,
    "CHECK: [[X:b|bcd]]\nCHECK: -[[X]]-\n",
    "abcde\n-bcd-\n",
    [],
    Pass
);
fc!(
    re_optional_groups,
    "CHECK: x[[Y:(ab)?(abcd)?]]\nCHECK: ={{$}}\nCHECK: <[[Y]]>\n",
    "xabcd=\n<abcd>\n",
    [],
    Pass
);
fc!(re_escape_is_literal, "CHECK: {{\\w}}\n", "w\n", [], Pass);
fc!(
    re_escape_is_literal_fail,
    "CHECK: {{a\\w}}\n",
    "ab\n",
    [],
    Fail(1)
);
fc!(
    re_dot_not_newline,
    "CHECK: a{{.}}b\n",
    "a\nb\n",
    [],
    Fail(1)
);
fc!(
    re_neg_class_not_newline,
    "CHECK: a{{[^c]}}b\n",
    "a\nb\n",
    [],
    Fail(1)
);
fc!(
    re_class_space_newline,
    "CHECK: a{{[[:space:]]}}b\n",
    "a\nb\n",
    [],
    Pass
);
fc!(re_caret_line_start, "CHECK: {{^}}b\n", "ab\nb\n", [], Pass);
fc!(re_bad_bracket, "CHECK: {{[z-a]}}\n", "a\n", [], Bad(1));
fc!(re_bad_class, "CHECK: {{[[:foo:]]}}\n", "a\n", [], Bad(1));
fc!(re_bad_paren, "CHECK: {{(a}}\n", "a\n", [], Bad(1));
fc!(re_bad_count, "CHECK: {{a{3,1}}}\n", "a\n", [], Bad(1));
fc!(re_literal_brace, "CHECK: {{a{b}}\n", "a{b\n", [], Pass);
fc!(
    re_bracket_close_first,
    "CHECK: {{[]x]+}}\n",
    "]x]\n",
    [],
    Pass
);
fc!(
    re_nested_brackets_in_var,
    "CHECK: [[V:[[:alpha:]]+]] [[V]]\n",
    "ab ab\n",
    [],
    Pass
);
fc!(
    re_var_missing_bracket,
    "CHECK: [[V:a]b]]\n",
    "a\n",
    [],
    Fail(1)
);
// variables
fc!(var_use_before_def, "CHECK: [[X]]\n", "a\n", [], Fail(1));
fc!(
    var_same_line_backref,
    "CHECK: [[X:[a-z]+]]=[[X]]\n",
    "ab=cd xy=xy\n",
    [],
    Pass
);
fc!(
    var_same_line_backref_fail,
    "CHECK: [[X:[a-z]+]]=[[X]]\n",
    "ab=cd\n",
    [],
    Fail(1)
);
fc!(
    var_redefinition_latest,
    "CHECK: [[X:a]]\nCHECK: [[X:b]]\nCHECK: [[X]]\n",
    "a b b\n",
    [],
    Pass
);
fc!(
    var_regex_special_value,
    "CHECK: [[X:.+]]\nCHECK: <[[X]]>\n",
    "a+b*c\n<a+b*c>\n",
    [],
    Pass
);
fc!(
    var_collision_num_str,
    "CHECK: [[#X:]]\nCHECK: [[X:a]]\n",
    "1 a\n",
    [],
    Bad(2)
);
fc!(
    var_define_string,
    "CHECK: [[A]]-[[B]]\n",
    "x-y\n",
    ["-DA=x", "-DB=y"],
    Pass
);
fc!(var_define_missing_eq, "CHECK: a\n", "a\n", ["-DA"], Code(2));
fc!(
    var_scope_cleared,
    "CHECK-LABEL: f\nCHECK: [[X:[0-9]]]\nCHECK-LABEL: g\nCHECK: [[X]]\n",
    "f 1\ng 1\n",
    ["--enable-var-scope"],
    Fail(4)
);
fc!(
    var_scope_global_kept,
    "CHECK-LABEL: f\nCHECK: [[$X:[0-9]]]\nCHECK-LABEL: g\nCHECK: [[$X]]\n",
    "f 1\ng 1\n",
    ["--enable-var-scope"],
    Pass
);
// numeric
fc!(
    num_capture_and_add,
    "CHECK: [[#N:]]\nCHECK: [[#N+2]]\n",
    "3\n5\n",
    [],
    Pass
);
fc!(
    num_hex_lower,
    "CHECK: [[#%x,N:]]\nCHECK: [[#N*2]]\n",
    "a\n14\n",
    [],
    Bad(2)
);
fc!(
    num_hex_mul_fn,
    "CHECK: [[#%x,N:]]\nCHECK: [[#mul(N,2)]]\n",
    "a\n14\n",
    [],
    Pass
);
fc!(
    num_upper,
    "CHECK: [[#%X,N:]]\nCHECK: [[#N+1]]\n",
    "F\n10\n",
    [],
    Pass
);
fc!(num_prec_fail, "CHECK: [[#%.2u,N:]]\n", "7\n", [], Fail(1));
fc!(
    num_prec_pass,
    "CHECK: [[#%.2u,N:]]\nCHECK: [[#N]]\n",
    "07\n07\n",
    [],
    Pass
);
fc!(
    num_negative_unsigned_overflow,
    "CHECK: [[#N:]]\nCHECK: [[#N-9]]\n",
    "1\n-8\n",
    [],
    Fail(2)
);
fc!(
    num_signed_negative,
    "CHECK: [[#%d,N:]]\nCHECK: [[#%d,N-9]]\n",
    "1\n-8\n",
    [],
    Pass
);
fc!(
    num_div_zero,
    "CHECK: [[#N:]]\nCHECK: [[#div(N,0)]]\n",
    "1\n2\n",
    [],
    Fail(2)
);
fc!(
    num_min_max,
    "CHECK: [[#A:]],[[#B:]]\nCHECK: [[#min(A,B)]],[[#max(A,B)]]\n",
    "9,4\n4,9\n",
    [],
    Pass
);
fc!(
    num_paren,
    "CHECK: [[#A:]]\nCHECK: [[#(A+1)-(A-1)]]\n",
    "5\n2\n",
    [],
    Pass
);
fc!(num_literal_hex, "CHECK: [[#0x10+1]]\n", "17\n", [], Pass);
fc!(
    num_same_line_use,
    "CHECK: [[#N:]] [[#N]]\n",
    "1 1\n",
    [],
    Bad(1)
);
fc!(num_bad_alt, "CHECK: [[#%#u,N:]]\n", "1\n", [], Bad(1));
fc!(num_bad_precision, "CHECK: [[#%.u,N:]]\n", "1\n", [], Bad(1));
// Bounds (issue 15, item 7): a precision over the limit is a check-file error, not a
// panic or a 100 MB regex; a regex over the engine's size limit is an error of its
// pattern (exit 1, as FileCheck-19), not a panic.
fc!(
    num_precision_at_limit,
    "CHECK: [[#%.4096x,N:]]\n",
    "1\n",
    [],
    Fail(1)
);
fc!(
    num_precision_over_limit,
    "CHECK: [[#%.4097x,N:]]\n",
    "1\n",
    [],
    Bad(1)
);
fc!(
    num_precision_million,
    "CHECK: [[#%.1000000x,N:0]]\n",
    "0\n",
    [],
    Bad(1)
);
fc!(
    num_precision_huge,
    "CHECK: [[#%.100000000x,N:0]]\n",
    "0\n",
    [],
    Bad(1)
);
fc!(
    regex_over_size_limit,
    "CHECK: {{((a{1,100}){1,100}){1,100}b}}\n",
    "aab\n",
    [],
    Fail(1)
);
fc!(
    regex_over_size_limit_not,
    "CHECK: x\nCHECK-NOT: {{((a{1,100}){1,100}){1,100}b}}\n",
    "x\naab\n",
    [],
    Fail(2)
);
fc!(
    regex_over_size_limit_dag,
    "CHECK-DAG: {{((a{1,100}){1,100}){1,100}b}}\n",
    "aab\n",
    [],
    Fail(1)
);
fc!(num_pseudo_def, "CHECK: [[#@LINE:]]\n", "1\n", [], Bad(1));
fc!(num_bad_pseudo, "CHECK: [[#@FOO]]\n", "1\n", [], Bad(1));
fc!(num_line_plain, "\nCHECK: [[#@LINE]]\n", "2\n", [], Pass);
fc!(num_define, "CHECK: [[#X+1]]\n", "43\n", ["-D#X=42"], Pass);
fc!(
    num_define_undefined_use,
    "CHECK: a\n",
    "a\n",
    ["-D#X=Y+1"],
    Code(2)
);
// options
fc!(
    opt_strict_ws,
    "CHECK: a b\n",
    "a  b\n",
    ["--strict-whitespace"],
    Fail(1)
);
fc!(
    opt_strict_ws_tab_regex,
    "CHECK: a{{\t}}b\n",
    "a\tb\n",
    ["--strict-whitespace"],
    Pass
);
fc!(
    opt_full_lines_pass,
    "CHECK: a b\n",
    " a b \n",
    ["--match-full-lines"],
    Pass
);
fc!(
    opt_full_lines_fail,
    "CHECK: a\n",
    "a b\n",
    ["--match-full-lines"],
    Fail(1)
);
fc!(
    opt_full_lines_strict_keeps_space,
    "CHECK: a\n",
    " a\n",
    ["--match-full-lines", "--strict-whitespace"],
    Pass
);
fc!(
    opt_full_lines_strict_fail,
    "CHECK:a\n",
    " a\n",
    ["--match-full-lines", "--strict-whitespace"],
    Fail(1)
);
fc!(
    opt_full_lines_not_partial,
    "CHECK: a\nCHECK-NOT: x\n",
    "a\nbxb\n",
    ["--match-full-lines"],
    Fail(2)
);
fc!(
    opt_ignore_case,
    "CHECK: ABC\n",
    "abc\n",
    ["--ignore-case"],
    Pass
);
fc!(
    opt_ignore_case_regex,
    "CHECK: {{X+}}\n",
    "xx\n",
    ["--ignore-case"],
    Pass
);
fc!(
    opt_implicit_not_pass,
    "CHECK: a\n",
    "a\nb\n",
    ["--implicit-check-not=c"],
    Pass
);
fc!(
    opt_implicit_not_fail,
    "CHECK: a\n",
    "c\na\n",
    ["--implicit-check-not=c"],
    Code(1)
);
fc!(
    opt_implicit_not_no_checks,
    "",
    "b\n",
    ["--implicit-check-not=c"],
    Pass
);
fc!(
    opt_implicit_not_custom_prefix_needs_checks,
    "",
    "b\n",
    ["--implicit-check-not=c", "--check-prefix=P"],
    Code(2)
);
fc!(
    opt_allow_empty,
    "CHECK-NOT: a\n",
    "",
    ["--allow-empty"],
    Pass
);
fc!(opt_empty_input_rejected, "CHECK-NOT: a\n", "", [], Code(2));
fc!(
    opt_dump_never,
    "CHECK: q\n",
    "a\n",
    ["--dump-input=never"],
    Fail(1)
);
fc!(opt_unknown, "CHECK: a\n", "a\n", ["--frobnicate"], Code(1));
fc!(
    opt_bool_value,
    "CHECK: A\n",
    "a\n",
    ["--ignore-case=true"],
    Pass
);
fc!(
    opt_bool_false,
    "CHECK: A\n",
    "a\n",
    ["--ignore-case=false"],
    Fail(1)
);
