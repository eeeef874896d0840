#!/usr/bin/env python3
"""Independent oracle for the execution corpus (test-corpus/corpus/exec/).

For every kernel listed here this script holds the input buffers and a Python model of
what the kernel computes, written from the kernel's comment and docs/semantics.md, not
from the interpreter and without parsing XIR. It writes

  Inputs/NAME.json      the SPEC.json the kernel's RUN line passes to xir-run;
  Inputs/NAME.expected  what `xir-run --format=text --float-format=bits` must print
                        (floats as bit patterns, so the comparison is bit-exact).

    python3 oracle.py            rewrite the files beside this script
    python3 oracle.py --check    regenerate into a temporary directory and diff against
                                 the checked-in files; exit 1 on any difference

Python 3.11 standard library only: `struct` rounds to f16/f32/f64 and gives bit
patterns, `fractions` gives exact products for fma and wide int -> float rounding.
The Rust corpus runner's bless mode never writes these files (the RUN lines compare
with `diff`, and bless only rewrites FileCheck blocks).
"""

import difflib
import json
import math
import os
import struct
import sys
import tempfile
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------- types ----------
# A type is a scalar name ("u32", "f16", "bool", ...) or a tuple:
#   ("vector", elem, n)   ("matrix", elem, n)   ("array", elem_type, n)
#   ("struct", [member types])

INT_BITS = {"i8": 8, "u8": 8, "i16": 16, "u16": 16, "i32": 32, "u32": 32, "i64": 64, "u64": 64}
FLOAT_FMT = {"f16": "<e", "f32": "<f", "f64": "<d"}
FLOAT_PARAMS = {  # precision p, emin, emax
    "f16": (11, -14, 15),
    "f32": (24, -126, 127),
    "f64": (53, -1022, 1023),
}


def type_text(t):
    if isinstance(t, str):
        return t
    if t[0] in ("vector", "matrix", "array"):
        return "%s<%s, %d>" % (t[0], type_text(t[1]), t[2])
    if t[0] == "struct":
        return "struct { %s }" % ", ".join(type_text(m) for m in t[1])
    raise ValueError(t)


def wrap(v, t):
    """Two's-complement wrap of the Python int v to integer type t."""
    bits = INT_BITS[t]
    v &= (1 << bits) - 1
    if t.startswith("i") and v >> (bits - 1):
        v -= 1 << bits
    return v


def round_frac(q, t):
    """Round the exact rational q to float type t (nearest, ties to even)."""
    p, emin, emax = FLOAT_PARAMS[t]
    q = Fraction(q)
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    e = max(e, emin)
    scale = Fraction(2) ** (e - (p - 1))
    n = round(q / scale)  # Fraction.__round__: ties to even
    val = n * scale
    if val >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(val)


def fl(x, t="f32"):
    """Round a Python float (binary64) to float type t."""
    if t == "f64" or math.isnan(x) or math.isinf(x) or x == 0:
        return x  # (a zero keeps its sign)
    return round_frac(Fraction(x), t)


def fbits(x, t):
    return struct.unpack("<" + {"f16": "H", "f32": "I", "f64": "Q"}[t], struct.pack(FLOAT_FMT[t], x))[0]


def ffrom(b, t):
    return struct.unpack(FLOAT_FMT[t], struct.pack("<" + {"f16": "H", "f32": "I", "f64": "Q"}[t], b))[0]


def fma(a, b, c, t="f32"):
    q = Fraction(a) * Fraction(b) + Fraction(c)
    if q == 0:
        return a * b + c  # an exact zero: binary64 gives it the IEEE sign
    return round_frac(q, t)


def arith(op, a, b, t):
    """a op b for op in + - * / on finite or infinite floats of type t, one rounding."""
    py = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[op]
    if math.isinf(a) or math.isinf(b):
        return py()
    x, y = Fraction(a), Fraction(b)
    q = {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y}[op]()
    if q == 0:
        return py()  # an exact zero: binary64 gives it the IEEE sign
    return round_frac(q, t)


# ------------------------------------------------------- printing (bits) --------

def text(t, v):
    """One element as `xir-run --format=text --float-format=bits` prints it."""
    if isinstance(t, str):
        if t == "bool":
            return "true" if v else "false"
        if t in FLOAT_FMT:
            w = {"f16": 4, "f32": 8, "f64": 16}[t]
            return "0x%0*x" % (w, fbits(v, t))
        assert wrap(v, t) == v, (t, v)
        return str(v)
    if t[0] == "vector":
        return "(" + ", ".join(text(t[1], x) for x in v) + ")"
    if t[0] == "matrix":
        return "[" + ", ".join("(" + ", ".join(text(t[1], x) for x in col) + ")" for col in v) + "]"
    if t[0] == "array":
        return "[" + ", ".join(text(t[1], x) for x in v) + "]"
    if t[0] == "struct":
        return "{" + ", ".join(text(m, x) for m, x in zip(t[1], v)) + "}"
    raise ValueError(t)


def to_json(t, v):
    """One element for SPEC.json: floats as shortest decimals (exact by construction),
    non-finite as strings."""
    if isinstance(t, str):
        if t in FLOAT_FMT:
            if math.isnan(v):
                return "0x%x" % fbits(v, t)
            if math.isinf(v):
                return "inf" if v > 0 else "-inf"
            assert fl(v, t) == v, (t, v)
            return v
        return v
    if t[0] in ("vector", "array"):
        return [to_json(t[1], x) for x in v]
    if t[0] == "matrix":
        return [[to_json(t[1], x) for x in col] for col in v]
    if t[0] == "struct":
        return [to_json(m, x) for m, x in zip(t[1], v)]
    raise ValueError(t)


# -------------------------------------------------------------- kernels ----------

KERNELS = {}


def kernel(fn):
    KERNELS[fn.__name__.replace("_", "-")] = fn
    return fn


class Run:
    """The inputs and expected outputs of one kernel."""

    def __init__(self, dispatch, block_size=None):
        self.dispatch = list(dispatch) + [1] * (3 - len(dispatch))
        self.block_size = block_size
        self.args = []  # (kind, type, init or value)
        self.final = {}  # arg -> final contents
        self.print_type = {}  # arg -> element type results print with (byte buffers: u8)

    def buffer(self, t, init):
        self.args.append(("buffer", t, list(init)))
        self.final[len(self.args) - 1] = list(init)
        return len(self.args) - 1

    def byte_buffer(self, t, init):
        """A byte buffer (`buffer<void>`) initialised with packed elements of type t;
        its final contents (a list of bytes) print one byte per line."""
        k = self.buffer(t, init)
        self.print_type[k] = "u8"
        return k

    def value(self, t, v):
        self.args.append(("value", t, v))
        return len(self.args) - 1

    def spec(self):
        s = {"dispatch": self.dispatch}
        if self.block_size:
            s["block_size"] = self.block_size
        bufs = []
        for i, (kind, t, v) in enumerate(self.args):
            if kind == "buffer":
                bufs.append({"arg": i, "type": type_text(t), "init": [to_json(t, x) for x in v]})
            else:
                bufs.append({"arg": i, "value": to_json(t, v)})
        s["buffers"] = bufs
        return json.dumps(s) + "\n"

    def expected(self):
        out = []
        for i, (kind, t, _) in enumerate(self.args):
            if kind != "buffer":
                continue
            t = self.print_type.get(i, t)
            for k, v in enumerate(self.final[i]):
                out.append("arg%d[%d] = %s\n" % (i, k, text(t, v)))
        return "".join(out)


def elementwise(ins, outs):
    """Kernels whose thread i reads in_k[i] and writes out_j[i] = f_j(inputs).
    ins: [(type, values)]; outs: [(type, f)] with f taking the input values."""
    n = len(ins[0][1])
    r = Run([n])
    for t, vals in ins:
        assert len(vals) == n
        r.buffer(t, vals)
    zero = {"bool": False}
    for t, f in outs:
        z = 0.0 if t in FLOAT_FMT else zero.get(t, 0)
        a = r.buffer(t, [z] * n)
        r.final[a] = [f(*[vals[i] for _, vals in ins]) for i in range(n)]
    return r


# ---- integer helpers (docs/semantics.md, "Integer arithmetic") ----

def cdiv(a, b):
    """C division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def crem(a, b):
    """C remainder: the sign of the dividend."""
    return a - cdiv(a, b) * b


def u(v, t="u32"):
    return v & ((1 << INT_BITS[t]) - 1)


def popcount(x):
    return bin(x).count("1")


def clz32(x):
    return 32 - x.bit_length()


def ctz32(x):
    return 32 if x == 0 else (x & -x).bit_length() - 1


def rev32(x):
    return int("{:032b}".format(x)[::-1], 2)


def fmin(a, b):
    return a if a < b else b


def fmax(a, b):
    return a if a > b else b


def trunc_to_int(x, t):
    v = math.trunc(x)
    assert wrap(v, t) == v, "float -> int out of range is undefined"
    return v


I32_MIN, I32_MAX = -(2**31), 2**31 - 1
F32_SUB = ffrom(0x00000003, "f32")  # a subnormal
F32_MAX = ffrom(0x7F7FFFFF, "f32")


@kernel
def int_wrap_i32():
    a = [0, 1, -1, I32_MAX, I32_MIN, 123456789, -7, 65536]
    b = [0, I32_MAX, 1, 1, -1, 987654321, 3, 65536]
    t = "i32"
    return elementwise([(t, a), (t, b)], [
        (t, lambda a, b: wrap(a + b, t)),
        (t, lambda a, b: wrap(a - b, t)),
        (t, lambda a, b: wrap(a * b, t)),
        (t, lambda a, b: wrap(-a, t)),
        (t, lambda a, b: wrap(abs(a), t)),
    ])


@kernel
def int_div_rem_signs():
    a = [7, -7, 7, -7, I32_MAX, I32_MIN, 0, 5]
    b = [3, 3, -3, -3, -2, 3, -5, 7]
    c = [7, 4294967295, 100, 0, 3000000000, 1, 2, 2147483648]
    d = [2, 16, 7, 5, 3, 1, 3, 4294967295]
    return elementwise([("i32", a), ("i32", b), ("u32", c), ("u32", d)], [
        ("i32", lambda a, b, c, d: cdiv(a, b)),
        ("i32", lambda a, b, c, d: crem(a, b)),
        ("u32", lambda a, b, c, d: c // d),
        ("u32", lambda a, b, c, d: c % d),
    ])


@kernel
def shifts_rotates():
    x = [1, 0x80000001, 0xDEADBEEF, 0xFFFFFFFF, 0x12345678, 7, 0, 0x0000FFFF]
    s = [0, 1, 4, 31, 16, 29, 5, 8]
    y = [-1, -8, 0x40000000, I32_MIN, -123456, 5, I32_MAX, -2]
    k = [0, 1, 30, 31, 4, 2, 31, 30]

    def rotl(x, s):
        return u((x << s) | (x >> (32 - s))) if s else x

    def rotr(x, s):
        return u((x >> s) | (x << (32 - s))) if s else x

    return elementwise([("u32", x), ("u32", s), ("i32", y), ("i32", k)], [
        ("u32", lambda x, s, y, k: u(x << s)),
        ("u32", lambda x, s, y, k: x >> s),
        ("i32", lambda x, s, y, k: y >> k),  # Python's >> on ints is arithmetic
        ("i32", lambda x, s, y, k: wrap(y << k, "i32")),
        ("u32", lambda x, s, y, k: rotl(x, s)),
        ("u32", lambda x, s, y, k: rotr(x, s)),
    ])


@kernel
def bit_ops():
    x = [0, 1, 0x80000000, 0xFFFFFFFF, 0xDEADBEEF, 0x00F0F000, 12, 0x55555555]
    y = [0xFFFFFFFF, 3, 0x80000001, 0, 0x0F0F0F0F, 0x0FF00FF0, 10, 0xAAAAAAAA]
    return elementwise([("u32", x), ("u32", y)], [
        ("u32", lambda x, y: x & y),
        ("u32", lambda x, y: x | y),
        ("u32", lambda x, y: x ^ y),
        ("u32", lambda x, y: u(~x)),
        ("u32", lambda x, y: popcount(x)),
        ("u32", lambda x, y: clz32(x)),
        ("u32", lambda x, y: ctz32(x)),
        ("u32", lambda x, y: rev32(x)),
    ])


@kernel
def compare_select_minmax():
    a = [1, -1, 5, I32_MIN, 11, -11, 0, 7]
    b = [2, 1, 5, I32_MAX, -3, -20, -1, 7]
    return elementwise([("i32", a), ("i32", b)], [
        ("bool", lambda a, b: a < b),
        ("bool", lambda a, b: u(a) < u(b)),
        ("bool", lambda a, b: a == b),
        ("i32", lambda a, b: b if a < b else a),
        ("i32", lambda a, b: min(a, b)),
        ("i32", lambda a, b: max(a, b)),
        ("i32", lambda a, b: min(max(a, -10), 10)),
    ])


def float_arith(t):
    a = [1.5, -2.25, F32_SUB, F32_MAX, fl(0.1), 7.0, -0.0, 1.0, math.inf, 3.0]
    b = [0.25, 4.0, F32_SUB, 2.0, fl(0.2), -3.0, 5.0, 3.0, 1.0, fl(1e-20)]
    c = [2.0, 0.0, fl(0.3), 1.0, fl(0.03), 16.0, 0.5, -0.0, 1e-30 if t == "f64" else F32_SUB, 9.0]
    if t == "f64":
        a[3] = 1.7976931348623157e308
        a[2] = b[2] = 5e-324
        a[4], b[4], c[4] = 0.1, 0.2, 0.03

    return elementwise([(t, a), (t, b), (t, c)], [
        (t, lambda a, b, c: arith("+", a, b, t)),
        (t, lambda a, b, c: arith("-", a, b, t)),
        (t, lambda a, b, c: arith("*", a, b, t)),
        (t, lambda a, b, c: arith("/", a, b, t)),
        (t, lambda a, b, c: a if math.isinf(a) else fma(a, b, c, t)),
        (t, lambda a, b, c: fmin(a, b)),
        (t, lambda a, b, c: fmax(a, b)),
        (t, lambda a, b, c: fl(math.sqrt(c), t) if t == "f32" else math.sqrt(c)),
    ])


@kernel
def float_arith_f32():
    return float_arith("f32")


@kernel
def float_arith_f64():
    return float_arith("f64")


@kernel
def float_arith_f16():
    t = "f16"
    a = [1.5, 0.1, 65504.0, 6e-08, -2.0, 1000.0, 3.0, 0.333]
    b = [2.0, 0.2, 32.0, 0.5, 3.0, 999.0, 7.0, -0.1]
    a = [fl(x, t) for x in a]
    b = [fl(x, t) for x in b]

    return elementwise([(t, a), (t, b)], [
        (t, lambda a, b: arith("+", a, b, t)),
        (t, lambda a, b: arith("-", a, b, t)),
        (t, lambda a, b: arith("*", a, b, t)),
        (t, lambda a, b: arith("/", a, b, t)),
        (t, lambda a, b: fmin(a, b)),
    ])


@kernel
def cast_int_float():
    a = [0, -1, 16777217, -16777219, I32_MAX, I32_MIN, 123456789, 3]
    un = [0, 1, 16777217, 4294967295, 2147483649, 33554435, 100, 7]
    x = [-2.75, 2.75, -0.5, 1e9, -2147483648.0, fl(0.1), 65519.0, 65520.0]
    y = [3.99, 0.0, 4294967040.0, 0.5, 1.0, 2147483648.0, 7.5, 1e-3]
    x = [fl(v) for v in x]
    y = [fl(v) for v in y]
    d = [0.1, -1e300, 1e-50, 3.0000001, 16777217.0, 2.5, -0.0, 1.0 / 3]
    h = [1.0, -0.0, 65504.0, 6e-08, 0.333, -2.5, 0.1, 1024.0]
    h = [fl(v, "f16") for v in h]
    return elementwise([("i32", a), ("u32", un), ("f32", x), ("f32", y), ("f64", d), ("f16", h)], [
        ("f32", lambda a, un, x, y, d, h: round_frac(a, "f32")),
        ("f32", lambda a, un, x, y, d, h: round_frac(un, "f32")),
        ("i32", lambda a, un, x, y, d, h: trunc_to_int(x, "i32")),
        ("u32", lambda a, un, x, y, d, h: trunc_to_int(y, "u32")),
        ("f32", lambda a, un, x, y, d, h: fl(d, "f32")),
        ("f64", lambda a, un, x, y, d, h: x),
        ("f16", lambda a, un, x, y, d, h: fl(x, "f16")),
        ("f32", lambda a, un, x, y, d, h: h),
    ])


@kernel
def cast_int_widths():
    s = [0, 1, -1, -32768, 32767, -2, 1234, -300]
    w = [0, 1, 65535, 32768, 32767, 2, 1234, 40000]
    ll = [0, -1, 65536 + 5, -(2**63), 2**63 - 1, 0x12345678ABCD, -129, 200]
    v = [0, 1, 4294967295, 2147483648, 255, 256, 0x1234, 128]
    return elementwise([("i16", s), ("u16", w), ("i64", ll), ("u32", v)], [
        ("i32", lambda s, w, l, v: s),
        ("u32", lambda s, w, l, v: u(s)),
        ("i32", lambda s, w, l, v: w),
        ("i16", lambda s, w, l, v: wrap(l, "i16")),
        ("u64", lambda s, w, l, v: u(s, "u64")),
        ("i64", lambda s, w, l, v: v),
        ("u8", lambda s, w, l, v: u(v, "u8")),
        ("i8", lambda s, w, l, v: wrap(l, "i8")),
    ])


@kernel
def cast_bitwise():
    x = [1.0, -0.0, math.inf, F32_SUB, fl(0.1), -2.5]
    un = [0x3F800000, 0x80000000, 0x7FC00001, 0xFF800000, 1, 0x7F7FFFFF]
    d = [1.0, -0.0, 0.1, 5e-324, -math.inf, 2.0**-1022]
    ll = [0x3FF0000000000000, -(2**63), 1, -1 - 0x000FFFFFFFFFFFFF + 0, 0x7FF0000000000000, 4]
    ll[3] = wrap(0xFFEFFFFFFFFFFFFF, "i64")  # -max double
    p = [[1, 0], [0, 1], [0xFFFF, 0x7FFF], [0x1234, 0xABCD], [0, 0], [65535, 65535]]
    vt = ("vector", "u16", 2)

    def f32_of(v):
        return ffrom(v, "f32")

    return elementwise([("f32", x), ("u32", un), ("f64", d), ("i64", ll), (vt, p)], [
        ("u32", lambda x, un, d, l, p: fbits(x, "f32")),
        ("f32", lambda x, un, d, l, p: f32_of(un)),
        ("i64", lambda x, un, d, l, p: wrap(fbits(d, "f64"), "i64")),
        ("f64", lambda x, un, d, l, p: ffrom(u(l, "u64"), "f64")),
        ("u32", lambda x, un, d, l, p: p[0] | (p[1] << 16)),
    ])


@kernel
def cast_bool():
    a = [0, 1, -1, 256, 0, I32_MIN]
    x = [0.0, -0.0, math.nan, F32_SUB, -math.inf, 2.5]
    b = [False, True, False, True, True, False]
    return elementwise([("i32", a), ("f32", x), ("bool", b)], [
        ("bool", lambda a, x, b: a != 0),
        ("bool", lambda a, x, b: math.isnan(x) or x != 0),
        ("u32", lambda a, x, b: int(b)),
        ("f32", lambda a, x, b: 1.0 if b else 0.0),
    ])


@kernel
def int64_arith():
    a = [0, 2**64 - 1, 2**63, 0x123456789ABCDEF0, 2**53 + 1, 3, 2**32, 16777217 * 2**20 + 1]
    b = [0, 1, 2**63, 0x0FEDCBA987654321, 2**53, 2**62, 2**32, 7]
    ll = [0, -1, -(2**63) + 1, 2**63 - 1, -1000000000000, 2**53 + 1, -7, 123]
    m = [1, 2, -1, -2, 7, -3, 2, -(2**63)]
    return elementwise([("u64", a), ("u64", b), ("i64", ll), ("i64", m)], [
        ("u64", lambda a, b, l, m: u(a + b, "u64")),
        ("u64", lambda a, b, l, m: u(a * b, "u64")),
        ("i64", lambda a, b, l, m: wrap(l - m, "i64")),
        ("i64", lambda a, b, l, m: cdiv(l, m)),
        ("i64", lambda a, b, l, m: l >> 3),
        ("f64", lambda a, b, l, m: round_frac(l, "f64")),
        ("f32", lambda a, b, l, m: round_frac(a, "f32")),
    ])


@kernel
def vector_f32():
    vt = ("vector", "f32", 4)
    a = [[1.0, 2.0, 3.0, 4.0], [fl(0.1), fl(0.2), fl(0.3), fl(0.4)], [-1.5, 1e30, -1e30, 1.0]]
    b = [[0.5, -1.0, 2.0, 0.25], [fl(0.7), fl(0.6), fl(0.5), fl(3.3)], [2.0, 1e10, -1e10, fl(1e-7)]]
    a = [[fl(x) for x in v] for v in a]
    b = [[fl(x) for x in v] for v in b]

    def add(x, y):
        return fl(x + y)

    def mul(x, y):
        return fl(x * y)

    def dot(a, b):
        s = mul(a[0], b[0])
        for i in range(1, 4):
            s = add(s, mul(a[i], b[i]))
        return s

    def rsum(a):
        s = a[0]
        for x in a[1:]:
            s = add(s, x)
        return s

    n = len(a)
    r = Run([n])
    r.buffer(vt, a)
    r.buffer(vt, b)
    outs = [
        (vt, lambda a, b: [add(x, y) for x, y in zip(a, b)]),
        (vt, lambda a, b: [mul(x, y) for x, y in zip(a, b)]),
        ("f32", dot),
        ("f32", lambda a, b: rsum(a)),
        (vt, lambda a, b: a[::-1]),
        ("f32", lambda a, b: b[2]),
    ]
    for t, f in outs:
        k = r.buffer(t, [[0.0] * 4 if t == vt else 0.0] * n)
        r.final[k] = [f(a[i], b[i]) for i in range(n)]
    return r


@kernel
def matrix_f32():
    mt = ("matrix", "f32", 2)
    vt = ("vector", "f32", 2)
    m = [[[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], [0.0, 0.5]], [[-1.0, 5.0], [7.0, -3.0]]]
    v = [[1.0, 1.0], [4.0, -2.0], [0.5, 0.25]]

    def mv(m, v):  # result[r] = m[0][r]*v[0] + m[1][r]*v[1]
        return [fl(fl(m[0][r] * v[0]) + fl(m[1][r] * v[1])) for r in range(2)]

    def tr(m):
        return [[m[0][0], m[1][0]], [m[0][1], m[1][1]]]

    n = len(m)
    r = Run([n])
    r.buffer(mt, m)
    r.buffer(vt, v)
    zm = [[0.0, 0.0], [0.0, 0.0]]
    for t, z, f in [
        (vt, [0.0, 0.0], mv),
        (mt, zm, lambda m, v: tr(m)),
        (mt, zm, lambda m, v: [[fl(x + y) for x, y in zip(c1, c2)] for c1, c2 in zip(m, tr(m))]),
        ("f32", 0.0, lambda m, v: fl(m[0][0] * m[1][1] - m[1][0] * m[0][1])),
    ]:
        k = r.buffer(t, [z] * n)
        r.final[k] = [f(m[i], v[i]) for i in range(n)]
    return r


# ---- control flow ----

@kernel
def if_else_nested():
    x = [0, 1, 2, 100, 101, 102, 4294967295, 4294967294]

    def f(v):
        if v % 2 == 0:
            return v // 2 if v > 100 else u(v * 3)
        return u(v + 7)

    return elementwise([("u32", x)], [("u32", f)])


@kernel
def loop_break_continue():
    n = [0, 1, 5, 10, 10, 100, 7, 3]
    lim = [0, 0, 100, 10, 1000, 50, 0, 4294967295]

    def run(n, lim):
        s = k = 0
        while k < n:
            if k % 3 == 0:
                k += 1
                continue
            s += k
            if s > lim:
                break
            k += 1
        return s, k

    return elementwise([("u32", n), ("u32", lim)], [
        ("u32", lambda n, lim: run(n, lim)[0]),
        ("u32", lambda n, lim: run(n, lim)[1]),
    ])


@kernel
def simple_loop_gcd():
    a = [12, 17, 0, 100, 4294967295, 1071, 7, 48]
    b = [18, 5, 9, 0, 3, 462, 7, 180]
    r = elementwise([("u32", a), ("u32", b)], [])
    r.final[0] = [math.gcd(x, y) for x, y in zip(a, b)]
    return r


@kernel
def cfg_indexed_branch():
    x = [0, 1, 2, 3, 4, 5, 6, 7, 40, 41, 42, 43, 1000001]

    def f(v):
        p = [v * 10, v + 1, v ^ 50, 0][v % 4]
        return 50 if p < 50 else p

    return elementwise([("u32", x)], [("u32", f)])


# ---- threads: shared memory with barriers, atomics; callables; array buffers ----

@kernel
def shared_reduction_sum():
    vals = [(k * 2654435761) & 0xFFFFFFFF for k in range(64)]
    r = Run([64])
    r.buffer("u32", vals)
    out = r.buffer("u32", [0, 0, 7])  # the third slot is never written
    r.final[out] = [u(sum(vals[:32])), u(sum(vals[32:])), 7]
    return r


@kernel
def shared_prefix_sum():
    vals = [wrap(k * k * 1000003 - 5000, "i32") for k in range(32)]
    vals[5] = I32_MAX  # the running sum wraps
    r = Run([32])
    a = r.buffer("i32", vals)
    r.final[a] = [wrap(sum(vals[: k + 1]), "i32") for k in range(32)]
    return r


@kernel
def atomics_histogram():
    vals = [(k * 37 + (k >> 2) * 11) % 1000 for k in range(64)]
    hist = [0] * 8
    for v in vals:
        hist[v & 7] += 1
    stats = [max(vals), min(vals), 0, 0]
    for v in vals:
        stats[2] |= 1 << (v & 7)
        stats[3] ^= v
    r = Run([64])
    r.buffer("u32", vals)
    h = r.buffer("u32", [0] * 8)
    s = r.buffer("u32", [0, 0xFFFFFFFF, 0, 0])
    c = r.buffer("i32", [10])
    r.final[h] = hist
    r.final[s] = stats
    r.final[c] = [10 - 64]
    return r


@kernel
def callables_nested():
    a = [0, 1, -1, 3, 1000, -1291, 2000000, 7]
    b = [5, 6, 7, 8, 9, 10, 11, 12]

    def poly(x):
        sq = wrap(x * x, "i32")
        cube = wrap(x * sq, "i32")
        return wrap(cube - wrap(2 * x, "i32") + sq, "i32")

    r = Run([len(a)])
    ka = r.buffer("i32", a)
    kb = r.buffer("i32", b)
    ko = r.buffer("i32", [0] * len(a))
    r.final[ka], r.final[kb] = list(b), list(a)
    r.final[ko] = [poly(x) for x in a]
    return r


@kernel
def array_buffer():
    t = ("array", "u32", 4)
    arrs = [[1, 2, 3, 4], [0, 0, 0, 0], [4294967295, 1, 0, 5], [10, 20, 30, 40], [7, 7, 7, 4294967290]]
    r = Run([len(arrs)])
    k = r.buffer(t, arrs)
    s = r.buffer("u32", [0] * len(arrs))
    r.final[k] = [a[::-1] for a in arrs]
    r.final[s] = [u(sum(a)) for a in arrs]
    return r


# ---- more element types and float ops ----

@kernel
def vector_int_compare_select():
    vt = ("vector", "i32", 3)
    bt = ("vector", "bool", 3)
    a = [[1, 2, 3], [-1, 0, I32_MAX], [5, 5, 5], [I32_MIN, -7, 100]]
    b = [[3, 2, 1], [0, 0, 1], [6, 7, 8], [-1, -8, 99]]
    r = Run([len(a)])
    r.buffer(vt, a)
    r.buffer(vt, b)
    lt = [[x < y for x, y in zip(p, q)] for p, q in zip(a, b)]
    for t, z, vals in [
        (vt, [0, 0, 0], [[wrap(x + y, "i32") for x, y in zip(p, q)] for p, q in zip(a, b)]),
        (bt, [False] * 3, lt),
        (vt, [0, 0, 0], [[y if c else x for x, y, c in zip(p, q, m)] for p, q, m in zip(a, b, lt)]),
        ("bool", False, [all(m) for m in lt]),
        ("bool", False, [any(m) for m in lt]),
    ]:
        k = r.buffer(t, [z] * len(a))
        r.final[k] = vals
    return r


def fz(r, x):
    """A rounding op's integral result r as a float, keeping x's sign on zero."""
    return math.copysign(0.0, x) if r == 0 else float(r)


@kernel
def float_rounding_ops():
    x = [2.5, -2.5, 3.5, -0.5, 1.25, -7.75, fl(0.49999997), 1e10, -0.0, -0.25, 0.5, fl(-1.1)]
    y = [-1.0, 1.0, -0.0, 0.0, -math.inf, 2.0, -3.0, -1.0, 1.0, -1.0, -0.0, 5.0]

    def ffloor(x):
        return fz(math.floor(x), x)

    return elementwise([("f32", x), ("f32", y)], [
        ("f32", lambda x, y: ffloor(x)),
        ("f32", lambda x, y: fz(math.ceil(x), x)),
        ("f32", lambda x, y: fz(math.trunc(x), x)),
        ("f32", lambda x, y: fz(math.copysign(math.floor(abs(x) + 0.5), x), x)),
        ("f32", lambda x, y: fz(round(x), x)),  # Python's round: halfway to even
        ("f32", lambda x, y: fl(x - ffloor(x))),
        ("f32", lambda x, y: abs(x)),
        ("f32", lambda x, y: math.copysign(x, y)),
    ])


@kernel
def float_lerp_step_clamp():
    a = [0.0, 1.0, -2.0, fl(0.1), 10.0, -1.0]
    b = [1.0, 3.0, 2.0, fl(0.7), 20.0, -0.5]
    t = [0.5, fl(0.3), 3.0, -1.0, 10.0, fl(-0.75)]
    return elementwise([("f32", a), ("f32", b), ("f32", t)], [
        ("f32", lambda a, b, t: fl(fl(t * fl(b - a)) + a)),
        ("f32", lambda a, b, t: 0.0 if t < a else 1.0),
        ("f32", lambda a, b, t: min(max(t, a), b)),
        ("f32", lambda a, b, t: min(max(t, 0.0), 1.0)),
    ])


@kernel
def int16_arith():
    a = [0, 1, -1, 32767, -32768, 300, -7, 12345]
    b = [0, 32767, 1, 1, -1, 300, 3, 2]
    c = [0, 1, 65535, 32768, 100, 40000, 7, 2]
    d = [1, 2, 1, 32767, 100, 3, 65535, 2]
    return elementwise([("i16", a), ("i16", b), ("u16", c), ("u16", d)], [
        ("i16", lambda a, b, c, d: wrap(a + b, "i16")),
        ("i16", lambda a, b, c, d: wrap(a * b, "i16")),
        ("i16", lambda a, b, c, d: a >> 2),
        ("u16", lambda a, b, c, d: u(c - d, "u16")),
        ("u16", lambda a, b, c, d: c // d),
        ("bool", lambda a, b, c, d: c > d),
    ])


@kernel
def struct_buffer_mixed():
    st = ("struct", ["u16", "f64", "i8", ("vector", "f32", 3)])
    elems = [
        [3, 0.1, 5, [1.0, 2.0, 3.0]],
        [65535, -2.5, -128, [0.5, -0.5, fl(0.1)]],
        [0, 1e300, 127, [-1.0, 0.0, fl(1e30)]],
        [7, 1.0 / 3, 0, [fl(1e-8), 100.0, -0.0]],
    ]

    def f(e):
        p = e[1] * float(e[0])
        pf = fl(p)
        return [e[0], p, wrap(-e[2], "i8"), [fl(x + pf) for x in e[3]]]

    r = Run([len(elems)])
    k = r.buffer(st, elems)
    r.final[k] = [f(e) for e in elems]
    return r


@kernel
def warp_reductions():
    x = [3, 5, 7, 2, 9, 4, 6, 1, 65536, 65536, 65536, 65536, 65536, 65536, 65536, 65536]
    x[8:] = [4] * 8
    x[7] = 100003
    W = 8
    warps = [x[k : k + W] for k in range(0, len(x), W)]

    def per_lane(f):
        return [f(warps[i // W], i % W) for i in range(len(x))]

    def prod(ws):
        p = 1
        for v in ws:
            p = u(p * v)
        return p

    def bor(ws):
        r = 0
        for v in ws:
            r |= v
        return r

    r = Run([len(x)])
    r.buffer("u32", x)
    for t, vals in [
        ("u32", per_lane(lambda ws, l: min(ws))),
        ("u32", per_lane(lambda ws, l: max(ws))),
        ("u32", per_lane(lambda ws, l: prod(ws))),
        ("u32", per_lane(lambda ws, l: bor(ws))),
        ("u32", per_lane(lambda ws, l: sum(v & 1 for v in ws))),
        ("u32", per_lane(lambda ws, l: sum(v & 1 for v in ws[:l]))),
        ("u32", per_lane(lambda ws, l: ws[5])),
        ("bool", per_lane(lambda ws, l: len(set(ws)) == 1)),
    ]:
        k = r.buffer(t, [False if t == "bool" else 0] * len(x))
        r.final[k] = vals
    return r


@kernel
def dispatch_2d_transpose():
    W, H = 8, 6
    src = [fl(0.5 * k - 3.25) for k in range(W * H)]
    r = Run([W, H], )
    r.buffer("f32", src)
    o = r.buffer("f32", [-1.0] * (W * H))
    b = r.buffer("u32", [99] * (W * H))
    out = [-1.0] * (W * H)
    blk = [99] * (W * H)
    for y in range(H):
        for x in range(W):
            out[x * H + y] = src[y * W + x]
            blk[y * W + x] = y // 4
    r.final[o] = out
    r.final[b] = blk
    return r


# ---- the first eight kernels (their CHECK lines stay; these add bit-exact diffs) ----

@kernel
def saxpy():
    a = 2.0
    x = [1.0, 2.5, -0.0, math.inf]
    y = [0.5, 0.25, -0.0, 1.0]
    r = Run([4])
    r.value("f32", a)
    r.buffer("f32", x)
    k = r.buffer("f32", y)
    r.final[k] = [fl(fl(a * xi) + yi) for xi, yi in zip(x, y)]
    return r


@kernel
def atomics_counter_cas():
    n = 8
    r = Run([n])
    o = r.buffer("u32", [0, 0])
    f = r.buffer("f32", [0.0, 1.0])
    r.final[o] = [n, sum(range(n))]
    acc = 1.0
    for _ in range(n):
        acc = fl(acc + 2.5)
    r.final[f] = [2.5, acc]  # only the first compare_exchange sees 0.0
    return r


@kernel
def callable_reference_arg():
    r = Run([3])
    k = r.buffer("i32", [0, 0, 0])
    r.final[k] = [10 + 2 * t for t in range(3)]
    return r


@kernel
def cfg_phi_collatz():
    x = [1, 6, 7, 27]

    def steps(v):
        n = 0
        while v > 1:
            v = 3 * v + 1 if v % 2 else v // 2
            n += 1
        return n

    r = Run([len(x)])
    k = r.buffer("u32", x)
    r.final[k] = [steps(v) for v in x]
    return r


@kernel
def loop_sum_squares():
    r = Run([5])
    k = r.buffer("u32", [9] * 5)
    r.final[k] = [sum(j * j for j in range(i)) for i in range(5)]
    return r


@kernel
def shared_barrier_reverse():
    r = Run([32])
    k = r.buffer("u32", [0] * 32)
    r.final[k] = [31 - i for i in range(32)]
    return r


@kernel
def struct_buffer_switch():
    st = ("struct", ["u32", "f32", ("vector", "i16", 2)])
    elems = [[0, 1.5, [1, -2]], [1, 0.0, [-32768, 32767]], [7, 3.0, [5, 6]]]

    def f(e):
        tag, val, vec = e
        nv = fl(val + val) if tag == 0 else (-val if tag == 1 else 0.0)
        return [tag, nv, vec[::-1]]

    r = Run([len(elems)])
    k = r.buffer(st, elems)
    r.final[k] = [f(e) for e in elems]
    return r


@kernel
def warp_sum_prefix():
    n, W = 10, 8
    lanes = [t % W for t in range(n)]
    warps = [lanes[k : k + W] for k in range(0, n, W)]
    r = Run([n])
    s = r.buffer("u32", [0] * n)
    p = r.buffer("u32", [0] * n)
    r.final[s] = [sum(warps[t // W]) for t in range(n)]
    r.final[p] = [sum(warps[t // W][: t % W]) for t in range(n)]
    return r


@kernel
def cast_float_int_edges():
    d = [2.0**53 + 2, -(2.0**63), 2.0**63 - 1024, -1.9, 1e18, -0.0]
    e = [2.0**64 - 2048, 2.0**63, 0.999, 4294967296.0 * 3, 1e19, 12.5]
    x = [-32768.0, fl(32767.9), -1.5, fl(0.99), fl(1e-3), -0.0]
    y = [fl(255.9), 0.5, 0.0, 200.25, 1.0, fl(3.999)]
    return elementwise([("f64", d), ("f64", e), ("f32", x), ("f32", y)], [
        ("i64", lambda d, e, x, y: trunc_to_int(d, "i64")),
        ("u64", lambda d, e, x, y: trunc_to_int(e, "u64")),
        ("u32", lambda d, e, x, y: trunc_to_int(y, "u32")),
        ("i16", lambda d, e, x, y: trunc_to_int(x, "i16")),
        ("u8", lambda d, e, x, y: trunc_to_int(y, "u8")),
        ("i64", lambda d, e, x, y: trunc_to_int(x, "i64")),
    ])


@kernel
def vector_f32_geometry():
    vt = ("vector", "f32", 3)
    a = [[3.0, 4.0, 12.0], [1.0, 0.0, 0.0], [0.1, 0.2, 0.3], [-2.0, 1.5, 1e-3]]
    b = [[1.0, 2.0, 3.0], [0.0, 1.0, 0.0], [0.7, -1.0, 2.0], [4.0, -0.5, 2.0]]
    a = [[fl(x) for x in v] for v in a]
    b = [[fl(x) for x in v] for v in b]

    def m(x, y):
        return fl(x * y)

    def cross(a, b):
        return [fl(m(a[1], b[2]) - m(a[2], b[1])),
                fl(m(a[2], b[0]) - m(a[0], b[2])),
                fl(m(a[0], b[1]) - m(a[1], b[0]))]

    def lsq(a):
        return fl(fl(m(a[0], a[0]) + m(a[1], a[1])) + m(a[2], a[2]))

    def length(a):
        return fl(math.sqrt(lsq(a)))

    n = len(a)
    r = Run([n])
    r.buffer(vt, a)
    r.buffer(vt, b)
    for t, f in [
        (vt, cross),
        ("f32", lambda a, b: lsq(a)),
        ("f32", lambda a, b: length(a)),
        (vt, lambda a, b: [fl(x / length(a)) for x in a]),
        (vt, lambda a, b: [fmax(x, y) for x, y in zip(a, b)]),
    ]:
        k = r.buffer(t, [[0.0] * 3 if t == vt else 0.0] * n)
        r.final[k] = [f(a[i], b[i]) for i in range(n)]
    return r


@kernel
def vector_f16():
    ht = ("vector", "f16", 4)
    a = [[1.0, 0.1, 65504.0, 6e-08], [-2.5, 300.0, 0.333, 1024.0], [0.0, -0.0, 1.5, 2.0]]
    b = [[2.0, 0.2, 32.0, 0.5], [0.5, 300.0, 3.0, -1024.0], [-0.0, -0.0, 1e-4, 0.0009765625]]
    a = [[fl(x, "f16") for x in v] for v in a]
    b = [[fl(x, "f16") for x in v] for v in b]
    n = len(a)
    r = Run([n])
    r.buffer(ht, a)
    r.buffer(ht, b)
    ft = ("vector", "f32", 4)
    for t, f in [
        (ht, lambda a, b: [arith("+", x, y, "f16") for x, y in zip(a, b)]),
        (ht, lambda a, b: [arith("*", x, y, "f16") for x, y in zip(a, b)]),
        (ft, lambda a, b: list(a)),
        (ht, lambda a, b: [fl(fl(x * x), "f16") for x in a]),
    ]:
        k = r.buffer(t, [[0.0] * 4] * n)
        r.final[k] = [f(a[i], b[i]) for i in range(n)]
    return r


@kernel
def float_compare_classify():
    nan = ffrom(0x7FC00000, "f32")
    a = [1.0, nan, -0.0, math.inf, 2.0, -math.inf, nan, F32_SUB]
    b = [2.0, 1.0, 0.0, math.inf, nan, 3.0, nan, 0.0]
    return elementwise([("f32", a), ("f32", b)], [
        ("bool", lambda a, b: a < b),
        ("bool", lambda a, b: a >= b),
        ("bool", lambda a, b: a == b),
        ("bool", lambda a, b: a != b),
        ("bool", lambda a, b: math.isnan(a)),
        ("bool", lambda a, b: math.isinf(a)),
        ("f32", lambda a, b: a if a == b else b),
    ])


@kernel
def cfg_loop_phi_fib64():
    n = [0, 1, 2, 10, 50, 93, 94, 100]

    def fib(k):
        a, b = 0, 1
        for _ in range(k):
            a, b = b, u(a + b, "u64")
        return a

    return elementwise([("u32", n)], [("u64", fib)])


@kernel
def switch_state_machine():
    x = [0, 1, 3, 7, 0b101, 0b1001, 0xFFFFFFFF, 0b10010010]

    def run(x):
        st = cnt = 0
        for k in range(32):
            bit = (x >> k) & 1
            if st == 0:
                st = 1 if bit else 0
            elif st == 1:
                st = 2
            elif st == 2:
                cnt += 1
                st = 3 if bit else 0
        return st, cnt

    return elementwise([("u32", x)], [
        ("u32", lambda x: run(x)[0]),
        ("u32", lambda x: run(x)[1]),
    ])


@kernel
def local_array_gep():
    x = [0, 1, 2, 1000, 4294967295, 536870912]

    def f(x):
        a = [u(x * k + 1) for k in range(8)]
        return u(sum(a[(3 * j + 1) % 8] for j in range(8)))

    return elementwise([("u32", x)], [("u32", f)])


@kernel
def byte_buffer_rw():
    # Records of 8 bytes: (u32 n, f32 x). Thread i reads both through byte_buffer_read at
    # byte offsets 8i and 8i + 4 and writes back (f32(n), bits of x as u32).
    recs = [(3, 1.5), (0, -0.0), (16777217, fl(0.1)), (4294967295, math.inf)]
    words = []
    for n, x in recs:
        words += [n, fbits(x, "f32")]
    out = b"".join(struct.pack("<fI", round_frac(n, "f32"), fbits(x, "f32")) for n, x in recs)
    r = Run([len(recs)])
    k = r.byte_buffer("u32", words)
    r.final[k] = list(out)
    f = r.buffer("f32", [0.0] * 5)
    sz = r.buffer("u64", [0, 0])
    r.final[sz] = [len(words) * 4, 5]
    return r


@kernel
def shared_atomic_histogram():
    n = 96
    vals = [(k * k * 7 + k * 3 + 1) % 23 for k in range(n)]
    hist = [0] * 8
    for v in vals:
        hist[v & 7] += 1
    r = Run([n])
    r.buffer("u32", vals)
    h = r.buffer("u32", [100] * 8)
    r.final[h] = [100 + c for c in hist]
    return r


@kernel
def atomics_per_slot():
    n = 5
    xu = [10, 20, 30, 40, 50]
    new = [1, 2, 3, 4294967295, 0]
    xf = [0.0, -0.0, 1.0, 0.0, math.inf]
    xl = [0, 2**64 - 1, 2**63, 5, 123456789012345]
    dl = [1, 2, 2**63, 2**64 - 5, 0]
    xi = [0, -5, 2**63 - 1, -(2**63), 7]
    di = [-1, 3, -(2**63), 0, 7]
    fa = [0.5, 2.0, fl(0.1), -1.0, 3.0]
    r = Run([n])
    r.buffer("u32", xu)
    r.buffer("u32", new)
    kf = r.buffer("f32", xf)
    kl = r.buffer("u64", xl)
    r.buffer("u64", dl)
    ki = r.buffer("i64", xi)
    r.buffer("i64", di)
    kfa = r.buffer("f32", fa)
    ou = r.buffer("u32", [0] * n)
    of = r.buffer("f32", [0.0] * n)
    ol = r.buffer("u64", [0] * n)
    oi = r.buffer("i64", [0] * n)
    r.final[0] = list(new)
    # compare_exchange(0.0 -> 1.0) compares bit patterns: -0.0 does not match
    r.final[kf] = [1.0 if fbits(x, "f32") == 0 else x for x in xf]
    r.final[kl] = [u(a + b, "u64") for a, b in zip(xl, dl)]
    r.final[ki] = [min(a, b) for a, b in zip(xi, di)]
    r.final[kfa] = [arith("+", a, b, "f32") for a, b in zip(fa, xf)]
    r.final[ou] = list(xu)
    r.final[of] = list(xf)
    r.final[ol] = list(xl)
    r.final[oi] = list(xi)
    return r


@kernel
def matrix_f32_mul_inverse():
    mt = ("matrix", "f32", 2)
    vt = ("vector", "f32", 2)
    a = [[[2.0, 1.0], [1.0, 1.0]], [[4.0, 2.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]]
    b = [[[1.0, 2.0], [3.0, 4.0]], [[fl(0.1), 1.0], [-1.0, fl(0.3)]], [[0.5, 0.5], [-2.0, 8.0]]]
    v = [[1.0, 2.0], [fl(0.1), -3.0], [-0.5, 0.25]]

    def mm(A, B):
        return [[fl(fl(A[0][row] * B[c][0]) + fl(A[1][row] * B[c][1])) for row in range(2)]
                for c in range(2)]

    def inv(A):
        m00, m10, m01, m11 = A[0][0], A[0][1], A[1][0], A[1][1]
        det = Fraction(m00) * Fraction(m11) - Fraction(m01) * Fraction(m10)
        q = [[Fraction(m11) / det, -Fraction(m10) / det], [-Fraction(m01) / det, Fraction(m00) / det]]
        return [[round_frac(x, "f32") for x in col] for col in q]

    n = len(a)
    r = Run([n])
    r.buffer(mt, a)
    r.buffer(mt, b)
    r.buffer(vt, v)
    zm = [[0.0, 0.0], [0.0, 0.0]]
    for f in [
        lambda A, B, v: mm(A, B),
        lambda A, B, v: inv(A),
        lambda A, B, v: [[fl(x * 0.5) for x in col] for col in B],
        lambda A, B, v: [[fl(v[row] * v[c]) for row in range(2)] for c in range(2)],
    ]:
        k = r.buffer(mt, [zm] * n)
        r.final[k] = [f(a[i], b[i], v[i]) for i in range(n)]
    return r


@kernel
def vector_f32_reflect():
    vt = ("vector", "f32", 3)
    iv = [[1.0, -1.0, 0.5], [fl(0.3), fl(0.7), -2.0], [3.0, 4.0, 5.0], [-1.5, 0.25, 8.0]]
    nv = [[0.0, 1.0, 0.0], [fl(0.6), 0.0, fl(0.8)], [-1.0, 0.5, 0.25], [0.5, -0.5, 1.0]]
    iv = [[fl(x) for x in p] for p in iv]
    nv = [[fl(x) for x in p] for p in nv]

    def dot(a, b):
        s = fl(a[0] * b[0])
        for k in (1, 2):
            s = fl(s + fl(a[k] * b[k]))
        return s

    def reflect(i, n):
        t = fl(2.0 * dot(n, i))
        return [fl(i[k] - fl(t * n[k])) for k in range(3)]

    def faceforward(n, i, nref):
        return list(n) if dot(nref, i) < 0 else [-x for x in n]

    def red(f, v):
        acc = v[0]
        for x in v[1:]:
            acc = f(acc, x)
        return acc

    m = len(iv)
    r = Run([m])
    r.buffer(vt, iv)
    r.buffer(vt, nv)
    for t, f in [
        (vt, reflect),
        (vt, lambda i, n: faceforward(n, i, n)),
        ("f32", lambda i, n: red(fmin, i)),
        ("f32", lambda i, n: red(fmax, i)),
    ]:
        k = r.buffer(t, [[0.0] * 3 if t == vt else 0.0] * m)
        r.final[k] = [f(iv[j], nv[j]) for j in range(m)]
    return r


@kernel
def float_smoothstep():
    e0 = [0.0, 0.0, -1.0, 1.0, 0.0, fl(0.1)]
    e1 = [1.0, 1.0, 1.0, 3.0, 10.0, fl(0.7)]
    x = [0.5, 2.0, fl(-0.3), 1.0, fl(3.3), fl(0.2)]

    def ss(a, b, x):
        t = min(max(arith("/", arith("-", x, a, "f32"), arith("-", b, a, "f32"), "f32"), 0.0), 1.0)
        return arith("*", arith("*", t, t, "f32"), arith("-", 3.0, arith("*", 2.0, t, "f32"), "f32"), "f32")

    return elementwise([("f32", e0), ("f32", e1), ("f32", x)], [("f32", ss)])


@kernel
def int8_arith():
    a = [0, 1, 255, 128, 200, 16, 7, 127]
    b = [0, 255, 1, 128, 100, 16, 9, 2]
    c = [0, -1, 127, -128, 100, -7, 7, -100]
    d = [1, 1, -1, 1, -100, 3, -3, 7]
    return elementwise([("u8", a), ("u8", b), ("i8", c), ("i8", d)], [
        ("u8", lambda a, b, c, d: u(a + b, "u8")),
        ("u8", lambda a, b, c, d: u(a * b, "u8")),
        ("i8", lambda a, b, c, d: wrap(c - d, "i8")),
        ("i8", lambda a, b, c, d: wrap(-c, "i8")),
        ("u8", lambda a, b, c, d: u(c, "u8")),
        ("i8", lambda a, b, c, d: wrap(a, "i8")),
        ("i8", lambda a, b, c, d: crem(c, d)),
    ])


@kernel
def struct_nested_array():
    st = ("struct", [("array", "f32", 2), "u32", ("vector", "i32", 2)])
    elems = [
        [[1.0, 2.0], 99, [-1, 5]],
        [[-0.0, math.inf], 0, [-3, -4]],
        [[fl(0.1), fl(0.2)], 7, [I32_MAX, 1]],
        [[5.5, -5.5], 1, [0, 0]],
    ]

    def f(e):
        arr, _, v = e
        return [[arr[1], arr[0]], int(v[0] < 0) + int(v[1] < 0), [v[0], wrap(v[0] + v[1], "i32")]]

    r = Run([len(elems)])
    k = r.buffer(st, elems)
    r.final[k] = [f(e) for e in elems]
    return r


@kernel
def callable_struct_buffer_args():
    st = ("struct", ["f32", "f32"])
    pts = [[1.0, 2.0], [0.0, -0.0], [fl(0.1), math.inf], [-3.5, 4.25]]

    def rot(p):
        return [-p[1], p[0]]

    r = Run([len(pts)])
    k = r.buffer(st, pts)
    r.final[k] = [rot(rot(rot(p))) for p in pts]
    return r


@kernel
def cfg_nested_loops():
    n = [0, 1, 2, 5, 17, 40]

    def f(n):
        acc = 0
        for i in range(n):
            for j in range(i):
                acc = u(acc + u((i ^ j) * (j + 1)))
        return acc

    return elementwise([("u32", n)], [("u32", f)])


# More kernels, in oracle_more.py (this file stays under the size limit).
sys.path.insert(0, HERE)
import oracle_more  # noqa: E402

oracle_more.register(globals())


# ------------------------------------------------------------------ main ----------

def generate(directory):
    os.makedirs(directory, exist_ok=True)
    for name, fn in sorted(KERNELS.items()):
        run = fn()
        with open(os.path.join(directory, name + ".json"), "w") as f:
            f.write(run.spec())
        with open(os.path.join(directory, name + ".expected"), "w") as f:
            f.write(run.expected())


def main(argv):
    inputs = os.path.join(HERE, "Inputs")
    if argv[1:] == []:
        generate(inputs)
        print("oracle: wrote %d kernels' inputs and expectations to %s" % (len(KERNELS), inputs))
        return 0
    if argv[1:] != ["--check"]:
        print("usage: oracle.py [--check]", file=sys.stderr)
        return 2
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        generate(tmp)
        for name in sorted(os.listdir(tmp)):
            new = open(os.path.join(tmp, name)).read()
            path = os.path.join(inputs, name)
            old = open(path).read() if os.path.exists(path) else ""
            if new != old:
                bad += 1
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(True), new.splitlines(True), path, "oracle: " + name))
        for name in sorted(KERNELS):
            if not os.path.exists(os.path.join(HERE, name + ".xir")):
                bad += 1
                print("oracle: %s has no kernel file %s.xir" % (name, name))
    if bad:
        print("oracle: %d file(s) differ from the oracle; run `python3 %s` and review" % (bad, argv[0]))
        return 1
    print("oracle: %d kernels, all inputs and expectations match" % len(KERNELS))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
