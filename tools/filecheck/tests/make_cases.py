#!/usr/bin/env python3
"""Writes the hand-written differential cases under tests/diff-cases/.

Each case is (name, args, check file, input). The expected result stored in the case file
(`expect: CODE LINE`) is recorded from LLVM's real FileCheck (FileCheck-19), so the cases
also run without LLVM installed. Re-run after editing:  python3 make_cases.py [FileCheck]
"""
import os, subprocess, sys, tempfile

FC = sys.argv[1] if len(sys.argv) > 1 else "FileCheck-19"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "diff-cases")

C = []
def case(name, check, inp, args=""):
    C.append((name, args, check, inp))

# ---- CHECK
case("check-basic", "CHECK: foo\nCHECK: bar\n", "foo\nbar\n")
case("check-order", "CHECK: bar\nCHECK: foo\n", "foo\nbar\n")
case("check-missing", "CHECK: foo\nCHECK: qux\n", "foo\nbar\n")
case("check-substring", "CHECK: oo b\n", "foo bar\n")
case("check-same-line-twice", "CHECK: a\nCHECK: a\n", "a a\n")
case("check-nooverlap", "CHECK: aa\nCHECK: aa\n", "aaa\n")
case("check-ws-collapse", "CHECK: a   b\tc\n", "a b    c\n")
case("check-trailing-ws", "CHECK: foo   \n", "foo\n")
case("check-empty-pattern", "CHECK:\n", "foo\n")
case("check-prefix-in-word", "XCHECK: nope\nCHECK: foo\n", "foo\n")
case("check-no-checks", "nothing here\n", "foo\n")
case("check-crlf", "CHECK: foo\r\nCHECK: bar\r\n", "foo\r\nbar\r\n")
# ---- CHECK-NEXT
case("next-ok", "CHECK: a\nCHECK-NEXT: b\nCHECK-NEXT: c\n", "a\nb\nc\n")
case("next-skip", "CHECK: a\nCHECK-NEXT: c\n", "a\nb\nc\n")
case("next-same-line", "CHECK: a\nCHECK-NEXT: b\n", "a b\n")
case("next-first", "CHECK-NEXT: a\n", "a\n")
case("next-missing", "CHECK: a\nCHECK-NEXT: z\n", "a\nb\n")
case("next-after-dag", "CHECK: x\nCHECK-DAG: b\nCHECK-DAG: a\nCHECK-NEXT: c\n", "x\na\nb\nc\n")
case("next-blank-between", "CHECK: a\nCHECK-NEXT: b\n", "a\n\nb\n")
# ---- CHECK-SAME
case("same-ok", "CHECK: a\nCHECK-SAME: b\nCHECK-SAME: c\n", "a b c\n")
case("same-next-line", "CHECK: a\nCHECK-SAME: b\n", "a\nb\n")
case("same-first", "CHECK-SAME: a\n", "a\n")
case("same-order", "CHECK: a\nCHECK-SAME: c\nCHECK-SAME: b\n", "a b c\n")
case("same-with-not", "CHECK: a\nCHECK-NOT: x\nCHECK-SAME: c\n", "a x c\n")
case("same-with-not-ok", "CHECK: a\nCHECK-NOT: x\nCHECK-SAME: c\n", "a b c x\n")
# ---- CHECK-NOT
case("not-ok", "CHECK: a\nCHECK-NOT: x\nCHECK: b\n", "a\ny\nb\n")
case("not-hit", "CHECK: a\nCHECK-NOT: x\nCHECK: b\n", "a\nx\nb\n")
case("not-at-start", "CHECK-NOT: bad\nCHECK: a\n", "bad\na\n")
case("not-at-end", "CHECK: a\nCHECK-NOT: bad\n", "a\nbad\n")
case("not-at-end-ok", "CHECK: a\nCHECK-NOT: bad\n", "bad\na\n")
case("not-only", "CHECK-NOT: bad\n", "good\n")
case("not-only-hit", "CHECK-NOT: bad\n", "so bad\n")
case("not-regex", "CHECK: a\nCHECK-NOT: {{x[0-9]}}\nCHECK: b\n", "a\nx5\nb\n")
case("not-two", "CHECK: a\nCHECK-NOT: x\nCHECK-NOT: y\nCHECK: b\n", "a\ny\nb\n")
case("not-combo", "CHECK-DAG-NOT: a\n", "a\n")
# ---- CHECK-DAG
case("dag-any-order", "CHECK-DAG: b\nCHECK-DAG: a\n", "a\nb\n")
case("dag-missing", "CHECK-DAG: a\nCHECK-DAG: z\n", "a\nb\n")
case("dag-overlap", "CHECK-DAG: a\nCHECK-DAG: a\n", "a\n")
case("dag-overlap-ok", "CHECK-DAG: a\nCHECK-DAG: a\n", "a a\n")
case("dag-not-between", "CHECK-DAG: a\nCHECK-NOT: x\nCHECK-DAG: b\n", "a\nx\nb\n")
case("dag-not-between-ok", "CHECK-DAG: a\nCHECK-NOT: x\nCHECK-DAG: b\n", "x\na\nb\n")
case("dag-then-check", "CHECK-DAG: b\nCHECK-DAG: a\nCHECK: c\n", "b\nc\na\n")
case("dag-vars", "CHECK-DAG: def [[R:r[0-9]+]]\nCHECK-DAG: use [[R]]\n", "use r1\ndef r1\n")
case("dag-vars-bad", "CHECK-DAG: def [[R:r[0-9]+]]\nCHECK-DAG: use [[R]]\n", "use r2\ndef r1\n")
case("dag-groups", "CHECK-DAG: a\nCHECK: m\nCHECK-DAG: b\n", "b\na\nm\n")
case("dag-overlap-allowed", "CHECK-DAG: a\nCHECK-DAG: a\n", "a\n", "--allow-deprecated-dag-overlap")
# ---- CHECK-LABEL
case("label-ok", "CHECK-LABEL: f1:\nCHECK: x\nCHECK-LABEL: f2:\nCHECK: y\n", "f1:\nx\nf2:\ny\n")
case("label-block-miss", "CHECK-LABEL: f1:\nCHECK: y\nCHECK-LABEL: f2:\nCHECK: y\n", "f1:\nx\nf2:\ny\n")
case("label-missing", "CHECK-LABEL: f1:\nCHECK-LABEL: f3:\n", "f1:\nf2:\n")
case("label-two-failures", "CHECK-LABEL: f1:\nCHECK: q\nCHECK-LABEL: f2:\nCHECK: r\n", "f1:\nx\nf2:\ny\n")
case("label-var", "CHECK-LABEL: [[X:f]]\n", "f\n")
case("label-next", "CHECK-LABEL: f:\nCHECK-NEXT: a\n", "f:\na\n")
case("label-not-region", "CHECK-LABEL: f1:\nCHECK-NOT: bad\nCHECK-LABEL: f2:\n", "f1:\nok\nf2:\nbad\n")
# ---- CHECK-EMPTY
case("empty-ok", "CHECK: a\nCHECK-EMPTY:\nCHECK-NEXT: b\n", "a\n\nb\n")
case("empty-notempty", "CHECK: a\nCHECK-EMPTY:\n", "a\nb\n")
case("empty-spaces", "CHECK: a\nCHECK-EMPTY:\n", "a\n  \nb\n", "--strict-whitespace")
case("empty-first", "CHECK-EMPTY:\n", "\n")
case("empty-nonempty-pattern", "CHECK: a\nCHECK-EMPTY: x\n", "a\n\n")
case("empty-twice", "CHECK: a\nCHECK-EMPTY:\nCHECK-EMPTY:\n", "a\n\n\nb\n")
case("empty-eof", "CHECK: a\nCHECK-EMPTY:\n", "a\n")
# ---- CHECK-COUNT
case("count-ok", "CHECK-COUNT-3: x\n", "x\nx\nx\n")
case("count-few", "CHECK-COUNT-3: x\n", "x\nx\n")
case("count-more-ok", "CHECK-COUNT-2: x\n", "x x x\n")
case("count-then-not", "CHECK-COUNT-2: x\nCHECK-NOT: x\n", "x x x\n")
case("count-zero", "CHECK-COUNT-0: x\n", "x\n")
case("count-regex", "CHECK-COUNT-2: {{[0-9]+}}\n", "12 34\n")
case("count-bad", "CHECK-COUNT-x: a\n", "a\n")
# ---- COM / comments
case("com-disables", "COM: CHECK: nothing\nCHECK: a\n", "a\n")
case("com-only", "COM: CHECK: a\n", "a\n")
case("run-comment", "RUN: CHECK: zz\nCHECK: a\n", "a\n")
case("com-suffix", "COM-NEXT: x\nCHECK: a\n", "a\n")
case("comment-prefixes-custom", "MYCOM: CHECK: zz\nCHECK: a\n", "a\n", "--comment-prefixes=MYCOM")
case("comment-prefixes-replaces", "COM: CHECK: zz\nCHECK: a\n", "a\n", "--comment-prefixes=MYCOM")
case("comment-prefix-dup", "CHECK: a\n", "a\n", "--comment-prefixes=CHECK")
# ---- LITERAL
case("literal-ok", "CHECK{LITERAL}: [[x]] {{y}}\n", "a [[x]] {{y}}\n")
case("literal-miss", "CHECK{LITERAL}: [[x]]\n", "x\n")
case("literal-next", "CHECK: a\nCHECK-NEXT{LITERAL}: {{b}}\n", "a\n{{b}}\n")
case("literal-dag", "CHECK-DAG{LITERAL}: [[b]]\nCHECK-DAG{LITERAL}: [[a]]\n", "[[a]]\n[[b]]\n")
case("literal-bad-mod", "CHECK{LITERALLY}: a\n", "a\n")
case("literal-not", "CHECK: a\nCHECK-NOT{LITERAL}: {{.*}}\n", "a\n{{.*}}\n")
# ---- prefixes
case("prefix-custom", "FOO: a\nCHECK: nothing\n", "a\n", "--check-prefix=FOO")
case("prefixes-two", "A: a\nB: b\n", "a\nb\n", "--check-prefixes=A,B")
case("prefix-unused", "A: a\n", "a\n", "--check-prefixes=A,B")
case("prefix-unused-allowed", "A: a\n", "a\n", "--check-prefixes=A,B --allow-unused-prefixes")
case("prefix-dup", "A: a\n", "a\n", "--check-prefixes=A,A")
case("prefix-bad-char", "A: a\n", "a\n", "--check-prefix=A.B")
case("prefix-none-found", "CHECK: a\n", "a\n", "--check-prefix=ZZ")
case("prefix-longest", "CHECK-A: x\nCHECK: y\n", "y\n", "--check-prefixes=CHECK,CHECK-A")
case("prefix-separate-value", "P: a\n", "a\n", "-check-prefix P")
case("prefix-misspelled", "CHECK_NEXT: a\n", "a\n")
# ---- regex
case("re-class", "CHECK: x{{[0-9]+}}y\n", "x123y\n")
case("re-alt", "CHECK: a{{b|c}}d\n", "acd\n")
case("re-alt-longest", "CHECK: [[V:a|ab]]c\nCHECK: [[V]]\n", "abc ab\n")
case("re-dot-no-newline", "CHECK: a{{.*}}c\n", "a\nc\n")
case("re-anchor", "CHECK: {{^}}foo{{$}}\n", "xfoo\nfoo\n")
case("re-bad", "CHECK: {{[a}}\n", "a\n")
case("re-unclosed", "CHECK: {{abc\n", "abc\n")
case("re-backslash-d", "CHECK: {{\\d}}\n", "d\n")
case("re-brace-literal", "CHECK: {{a{}}\n", "a{\n")
case("re-posix-class", "CHECK: {{[[:digit:]]+}} x\n", "42 x\n")
case("re-space-class", "CHECK: a{{[[:space:]]+}}b\n", "a\nb\n")
case("re-negated-newline", "CHECK: a{{[^x]}}b\n", "a\nb\n")
case("re-repeat", "CHECK: {{(ab){2}}}\n", "abab\n")
case("re-stacked-rep", "CHECK: {{a+?}}\n", "a\n")
case("re-star-first", "CHECK: {{*a}}\n", "a\n")
case("re-empty", "CHECK: x{{}}\n", "x\n")
case("re-longest-opt", "CHECK: [[X:(ab)?(abcd)?]]\nCHECK: -[[X]]-\n", "abcd\n-abcd-\n")
case("re-word-boundary", "CHECK: {{[[:<:]]foo[[:>:]]}}\n", "xfoo foo\n")
# Raw non-UTF-8 bytes (written as "\udcXX", i.e. byte 0xXX, through surrogateescape).
# LLVM's regcomp compares and iterates range ends as signed chars, so [\x80-9] is
# -128..=57: bytes 0x80-0xFF and 0x00-0x39 (found by the filecheck_differential fuzzer).
case("re-range-high-to-digit", "CHECK-LABEL: f\nCHECK: [[$X:[0\udc80-9]]]\nCHECK-LABEL: g\nCHECK: [[$X]]\n", "f 1\ng 1*\n", "--enable-var-scope")
case("re-range-high-to-digit-byte", "CHECK: a{{[\udc80-9]+}}b\n", "a\udcff\udc9012b\n")
case("re-range-high-bytes", "CHECK: a{{[\udc80-\udcff]+}}b\n", "a\udcc3\udca9b\n")
case("re-range-digit-to-high", "CHECK: {{[9-\udc80]}}\n", "9\n")
case("re-range-high-reversed", "CHECK: {{[\udcff-\udc80]}}\n", "\udc80\n")
# ---- variables
case("var-def-use", "CHECK: x=[[X:[0-9]+]]\nCHECK: y=[[X]]\n", "x=5\ny=5\n")
case("var-mismatch", "CHECK: x=[[X:[0-9]+]]\nCHECK: y=[[X]]\n", "x=5\ny=6\n")
case("var-undefined", "CHECK: [[NOPE]]\n", "a\n")
case("var-same-line", "CHECK: op [[R:r[0-9]+]], [[R]]\n", "op r1, r2 op r3, r3\n")
case("var-same-line-miss", "CHECK: op [[R:r[0-9]+]], [[R]]\n", "op r1, r2\n")
case("var-redefine", "CHECK: [[X:a+]]\nCHECK: [[X:b+]]\nCHECK: [[X]]\n", "aa bb bb\n")
case("var-bad-name", "CHECK: [[1X:a]]\n", "a\n")
case("var-space", "CHECK: [[X :a]]\n", "a\n")
case("var-no-end", "CHECK: [[X:a\n", "a\n")
case("var-empty-regex", "CHECK: a[[X:]]b\nCHECK: [[X]]c\n", "ab\nc\n")
case("var-escape", "CHECK: [[X:a.c]]\nCHECK: [[X]]\n", "a.c\na.c\n")
case("var-escape-miss", "CHECK: [[X:a.c]]\nCHECK: [[X]]\n", "abc\naxc\n")
case("var-D", "CHECK: [[V]]\n", "hello\n", "-DV=hello")
case("var-D-miss", "CHECK: [[V]]\n", "hello\n", "-DV=bye")
case("var-D-noeq", "CHECK: a\n", "a\n", "-DV")
case("var-D-badname", "CHECK: a\n", "a\n", "-D1V=x")
case("var-D-empty-value", "CHECK: a[[V]]b\n", "ab\n", "-DV=")
case("var-scope", "CHECK-LABEL: f\nCHECK: [[X:[0-9]]]\nCHECK-LABEL: g\nCHECK: [[X]]\n", "f 1\ng 1\n", "--enable-var-scope")
case("var-scope-off", "CHECK-LABEL: f\nCHECK: [[X:[0-9]]]\nCHECK-LABEL: g\nCHECK: [[X]]\n", "f 1\ng 1\n")
case("var-scope-global", "CHECK-LABEL: f\nCHECK: [[$X:[0-9]]]\nCHECK-LABEL: g\nCHECK: [[$X]]\n", "f 1\ng 1\n", "--enable-var-scope")
case("var-scope-D", "CHECK-LABEL: f\nCHECK: [[V]]\nCHECK-LABEL: g\nCHECK: [[V]]\n", "f a\ng a\n", "--enable-var-scope -DV=a")
case("var-scope-num", "CHECK-LABEL: f\nCHECK: [[#N:]]\nCHECK-LABEL: g\nCHECK: [[#N]]\n", "f 1\ng 1\n", "--enable-var-scope")
# ---- numeric
case("num-def-use", "CHECK: a [[#N:]]\nCHECK: b [[#N+1]]\n", "a 5\nb 6\n")
case("num-def-use-miss", "CHECK: a [[#N:]]\nCHECK: b [[#N+1]]\n", "a 5\nb 7\n")
case("num-hex", "CHECK: [[#%x,A:]]\nCHECK: [[#A+1]]\n", "ff\n100\n")
case("num-HEX-alt", "CHECK: [[#%#X,A:]]\nCHECK: [[#%#X,A*2]]\n", "0xA\n0x14\n")
case("num-mul-fn", "CHECK: [[#A:]] [[#B:]]\nCHECK: [[#mul(A,B)]] [[#max(A,B)]] [[#min(A,B)]] [[#div(B,A)]] [[#sub(B,A)]]\n", "3 12\n36 12 3 4 9\n")
case("num-prec", "CHECK: [[#%.3u,N:]]\nCHECK: [[#%.3u,N+1]]\n", "007\n008\n")
case("num-signed", "CHECK: [[#%d,N:]]\nCHECK: [[#%d,N-10]]\n", "-5\n-15\n")
case("num-unsigned-neg", "CHECK: [[#N:]]\nCHECK: [[#N-10]]\n", "5\n-5\n")
case("num-undefined", "CHECK: [[#NOPE+1]]\n", "1\n")
case("num-same-line", "CHECK: [[#N:]] [[#N+1]]\n", "1 2\n")
case("num-bad-format", "CHECK: [[#%q,N:]]\n", "1\n")
case("num-bad-op", "CHECK: [[#N:]]\nCHECK: [[#N*2]]\n", "1\n2\n")
case("num-constraint", "CHECK: [[#N:]]\nCHECK: [[#==N]]\n", "7\n7\n")
case("num-D", "CHECK: [[#N]] [[#N+1]]\n", "10 11\n", "-D#N=10")
case("num-D-fmt", "CHECK: [[#N]]\n", "a\n", "-D#%x,N=10")
case("num-D-expr", "CHECK: [[#N]]\n", "12\n", "-D#M=10 -D#N=M+2")
case("num-line", "CHECK: line [[#@LINE]]\nCHECK: line [[@LINE-1]]\n", "line 1\nline 1\n")
case("num-line-miss", "CHECK: line [[#@LINE]]\n", "line 2\n")
case("num-conflict", "CHECK: [[#%x,A:]] [[#%u,B:]]\nCHECK: [[#A+B]]\n", "a 1\nb\n")
case("num-def-expr", "CHECK: [[#A:]]\nCHECK: [[#B:A+1]]\nCHECK: [[#B]]\n", "1\n2\n2\n")
case("num-wrong-arity", "CHECK: [[#add(1)]]\n", "1\n")
case("num-undef-fn", "CHECK: [[#foo(1,2)]]\n", "1\n")
# ---- options
case("strict-ws-fail", "CHECK: a b\n", "a  b\n", "--strict-whitespace")
case("strict-ws-ok", "CHECK: a  b\n", "a  b\n", "--strict-whitespace")
case("strict-ws-tab", "CHECK: a\tb\n", "a b\n", "--strict-whitespace")
case("strict-ws-default-tab", "CHECK: a\tb\n", "a b\n")
case("strict-ws-leading", "CHECK:   a\n", " a\n", "--strict-whitespace")
case("full-lines-ok", "CHECK: foo bar\n", "foo bar\n", "--match-full-lines")
case("full-lines-partial", "CHECK: foo\n", "foo bar\n", "--match-full-lines")
case("full-lines-ws", "CHECK: foo\n", "   foo  \n", "--match-full-lines")
case("full-lines-strict", "CHECK: foo\n", "  foo\n", "--match-full-lines --strict-whitespace")
case("full-lines-not", "CHECK: a\nCHECK-NOT: x\n", "a\nyxy\n", "--match-full-lines")
case("full-lines-regex", "CHECK: {{[a-z]+}} = [[V:[0-9]+]]\n", "x = 42\n", "--match-full-lines")
case("ignore-case-ok", "CHECK: HeLLo\n", "hello\n", "--ignore-case")
case("ignore-case-off", "CHECK: HeLLo\n", "hello\n")
case("ignore-case-regex", "CHECK: {{[A-C]+}}x\n", "abcx\n", "--ignore-case")
case("ignore-case-var", "CHECK: [[V:ab]]\nCHECK: [[V]]\n", "AB\nab\n", "--ignore-case")
case("ignore-case-not", "CHECK: a\nCHECK-NOT: BAD\nCHECK: b\n", "a\nbad\nb\n", "--ignore-case")
case("implicit-not-ok", "CHECK: a\nCHECK: b\n", "a\nb\n", "--implicit-check-not=warning")
case("implicit-not-hit", "CHECK: a\nCHECK: b\n", "a\nwarning\nb\n", "--implicit-check-not=warning")
case("implicit-not-end", "CHECK: a\n", "a\nwarning\n", "--implicit-check-not=warning")
case("implicit-not-only", "", "x\n", "--implicit-check-not=warning")
case("implicit-not-only-hit", "", "warning\n", "--implicit-check-not=warning")
case("implicit-not-two", "CHECK: a\n", "a\nerror\n", "--implicit-check-not=warning --implicit-check-not=error")
case("implicit-not-regex", "CHECK: a\n", "a\nw1\n", "--implicit-check-not={{w[0-9]}}")
case("allow-empty-ok", "CHECK-NOT: x\n", "", "--allow-empty")
case("allow-empty-off", "CHECK-NOT: x\n", "")
case("allow-empty-fail", "CHECK: x\n", "", "--allow-empty")
case("allow-empty-implicit", "", "", "--allow-empty --implicit-check-not=x")
case("allow-empty-label", "CHECK-LABEL: x\n", "", "--allow-empty")
case("dump-never", "CHECK: zz\n", "a\n", "--dump-input=never")
case("dump-always", "CHECK: a\n", "a\n", "--dump-input=always")
case("dump-always-fail", "CHECK: zz\n", "a\n", "--dump-input=always")
case("dump-fail", "CHECK: a\nCHECK: zz\n", "a\nb\n", "--dump-input=fail")
case("dump-help", "CHECK: a\n", "a\n", "--dump-input=help")
case("dump-bad", "CHECK: a\n", "a\n", "--dump-input=bogus")
case("verbose-pass", "CHECK: a\n", "a\n", "-v")
case("verbose-fail", "CHECK: a\nCHECK: q\n", "a\nb\n", "-v")
case("verbose-never", "CHECK: a\nCHECK-NOT: z\n", "a\nb\n", "-v --dump-input=never")
case("vv-dag", "CHECK-DAG: a\nCHECK-DAG: a\n", "a a\n", "-vv")
case("vv-fail", "CHECK: a\nCHECK-NEXT: c\n", "a\nb\nc\n", "-vv")
case("single-dash", "FOO: a\n", "a\n", "-check-prefix=FOO -match-full-lines")
case("unknown-option", "CHECK: a\n", "a\n", "--bogus-option")
case("no-check-file", None, "a\n", "")
case("missing-check-file", None, "a\n", "/nonexistent/check.txt")


def first_error_line(stderr, path):
    for line in stderr.splitlines():
        if ": error: " in line:
            if line.startswith(path + ":"):
                return line[len(path) + 1:].split(":")[0]
            return "-"
    return "-"


def main():
    os.makedirs(OUT, exist_ok=True)
    names = set()
    with tempfile.TemporaryDirectory() as d:
        for name, args, check, inp in C:
            assert name not in names, name
            names.add(name)
            path = os.path.join(d, "check.txt")
            argv = [FC]
            if check is not None:
                with open(path, "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
                    f.write(check)
                argv.append(path)
            argv += args.split()
            r = subprocess.run(argv, input=inp.encode("utf-8", "surrogateescape"), capture_output=True)
            line = first_error_line(r.stderr.decode(errors="replace"), path) if r.returncode else "-"
            with open(os.path.join(OUT, name + ".case"), "w", newline="", encoding="utf-8", errors="surrogateescape") as f:
                f.write("# xir-filecheck differential case; expect = exit status and check-file line of\n")
                f.write("# the first error, recorded from LLVM FileCheck 19 by tests/make_cases.py\n")
                f.write("args: %s\n" % args)
                f.write("expect: %d %s\n" % (r.returncode, line))
                if check is not None:
                    f.write("=== check\n" + check)
                f.write("=== input\n" + inp)
    print("wrote %d cases" % len(C))


main()
