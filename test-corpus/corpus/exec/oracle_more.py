"""More kernels of the execution-corpus oracle (oracle.py imports this file and calls
`register` with its own namespace: the helpers, `kernel` and `elementwise`).

Same rules as oracle.py: each model is written from the kernel's comment and
docs/semantics.md, never from the interpreter, and never parses XIR.
"""

import math
from fractions import Fraction


def register(o):
    kernel, elementwise, Run = o["kernel"], o["elementwise"], o["Run"]
    wrap, u, cdiv, crem = o["wrap"], o["u"], o["cdiv"], o["crem"]
    fl, ffrom, fbits, round_frac, fma = o["fl"], o["ffrom"], o["fbits"], o["round_frac"], o["fma"]
    arith, popcount, clz32, rev32 = o["arith"], o["popcount"], o["clz32"], o["rev32"]
    I64_MIN, I64_MAX = -(2**63), 2**63 - 1
    NAN = ffrom(0x7FC00000, "f32")

    def vector_elementwise(ins, outs):
        # `elementwise`, with output buffers of vectors initialised to zero vectors.
        r = elementwise(ins, outs)
        for k, (kind, t, init) in enumerate(r.args):
            if kind == "buffer" and k >= len(ins):
                r.args[k] = (kind, t, [[0] * t[2] for _ in init])
        return r

    def rotl(x, s, bits):
        s %= bits
        return ((x << s) | (x >> (bits - s))) & ((1 << bits) - 1) if s else x

    @kernel
    def float_transcendental_points():
        # y[k] = op_k(x[k]) in one thread; binary64 results rounded once to f32 (the
        # points are far from f32 rounding boundaries, where libm's f32 functions and a
        # rounded binary64 result agree).
        pts = [
            (math.sin, 0.5), (math.cos, 0.5), (math.tan, 0.5), (math.asin, 0.5),
            (math.acos, 0.5), (math.atan, 0.5), (lambda v: math.atan2(v, 2.0), 1.0),
            (math.sinh, 0.5), (math.cosh, 0.5), (math.tanh, 0.5), (math.asinh, 1.0),
            (math.acosh, 1.5), (math.atanh, 0.5), (math.exp, 0.5), (lambda v: 2.0**v, 3.0),
            (lambda v: 10.0**v, 2.0), (math.log, 2.0), (math.log2, 8.0), (math.log10, 100.0),
            (lambda v: v**10.0, 2.0),
        ]
        r = Run([1])
        r.buffer("f32", [v for _, v in pts])
        y = r.buffer("f32", [0.0] * len(pts))
        r.final[y] = [fl(f(v)) for f, v in pts]
        return r

    @kernel
    def int64_div_rem_signs():
        a = [7, -7, 7, -7, 2**40 + 3, -(2**50), I64_MAX, I64_MIN, 0]
        b = [2, 2, -2, -2, 2**20, 3, -1, 1, -5]
        return elementwise([("i64", a), ("i64", b)], [
            ("i64", lambda a, b: cdiv(a, b)),
            ("i64", lambda a, b: crem(a, b)),
        ])

    @kernel
    def u64_shifts_rotates():
        a = [1, 2**63, 0xDEADBEEFCAFEBABE, 2**64 - 1, 0x0123456789ABCDEF, 5]
        s = [0, 63, 4, 1, 32, 62]
        return elementwise([("u64", a), ("u64", s)], [
            ("u64", lambda a, s: u(a << s, "u64")),
            ("u64", lambda a, s: a >> s),
            ("u64", lambda a, s: rotl(a, s, 64)),
            ("u64", lambda a, s: rotl(a, (64 - s) % 64, 64)),
        ])

    @kernel
    def int16_shifts():
        a = [-32768, -1, 12345, -300, 1, 32767]
        b = [0x8000, 0xFFFF, 12345, 300, 1, 0x7FFF]
        s = [15, 4, 3, 1, 15, 0]
        t = [15, 8, 3, 1, 15, 0]
        return elementwise([("i16", a), ("u16", b), ("i16", s), ("u16", t)], [
            ("i16", lambda a, b, s, t: a >> s),
            ("i16", lambda a, b, s, t: wrap(a << s, "i16")),
            ("u16", lambda a, b, s, t: b >> t),
            ("u16", lambda a, b, s, t: u(b << t, "u16")),
        ])

    @kernel
    def uint16_div_mod_wrap():
        a = [0, 1, 65535, 300, 40000, 7]
        b = [1, 2, 65535, 7, 300, 65535]
        return elementwise([("u16", a), ("u16", b)], [
            ("u16", lambda a, b: u(a - b, "u16")),
            ("u16", lambda a, b: u(a * b, "u16")),
            ("u16", lambda a, b: a // b),
            ("u16", lambda a, b: a % b),
        ])

    @kernel
    def f64_compare_select():
        nan = float("nan")
        a = [1.0, -0.0, nan, 2.5, -math.inf, 1e300]
        b = [2.0, 0.0, 1.0, nan, 3.0, 1e300]
        return elementwise([("f64", a), ("f64", b)], [
            ("f64", lambda a, b: a if a < b else b),
            ("f64", lambda a, b: a if a != b else b),
            ("f64", lambda a, b: b if a <= b else a),
        ])

    @kernel
    def float_sqrt_f32():
        x = [1.0, 2.0, 0.25, fl(0.1), 1e-40, 3.0e38, math.inf, fl(7.0)]
        x = [fl(v) for v in x]

        def sq(v):
            return v if math.isinf(v) else round_frac(Fraction(math.sqrt(v)), "f32") if math.sqrt(v) ** 2 == v else fl(math.sqrt(v))

        def rs(v):
            s = sq(v)
            return arith("/", 1.0, s, "f32")

        return elementwise([("f32", x)], [("f32", sq), ("f32", rs)])

    @kernel
    def float_copysign_abs_neg():
        x = [1.5, -0.0, 0.0, -math.inf, NAN, fl(-0.1)]
        y = [-1.0, 1.0, -0.0, 2.0, -3.0, -0.0]

        def cs(x, y):
            return ffrom((fbits(x, "f32") & 0x7FFFFFFF) | (fbits(y, "f32") & 0x80000000), "f32")

        return elementwise([("f32", x), ("f32", y)], [
            ("f32", lambda x, y: ffrom(fbits(x, "f32") & 0x7FFFFFFF, "f32")),
            ("f32", lambda x, y: ffrom(fbits(x, "f32") ^ 0x80000000, "f32")),
            ("f32", cs),
        ])

    @kernel
    def cast_float_narrowing():
        d = [0.1, 1e39, -1e-46, 1.0000000596046448, 3.4028235677973366e38, -0.0]
        f = [fl(0.1), 65520.0, 65504.0, fl(1e-8), fl(-2.5e-5), 1.0009765625]
        return elementwise([("f64", d), ("f32", f)], [
            ("f32", lambda d, f: fl(d, "f32") if abs(d) < 3.5e38 else math.copysign(math.inf, d)),
            ("f16", lambda d, f: fl(f, "f16") if abs(f) < 65520.0 else math.copysign(math.inf, f)),
        ])

    @kernel
    def cast_u64_to_float():
        a = [0, 1, 2**53 + 1, 2**64 - 1, 16777217, 2**63 + 2**39]
        b = [0, -1, -(2**53) - 1, I64_MIN, 16777219, I64_MAX]
        return elementwise([("u64", a), ("i64", b)], [
            ("f32", lambda a, b: round_frac(Fraction(a), "f32") if a else 0.0),
            ("f64", lambda a, b: round_frac(Fraction(a), "f64") if a else 0.0),
            ("f32", lambda a, b: round_frac(Fraction(b), "f32") if b else 0.0),
        ])

    @kernel
    def cast_int_truncate_extend():
        a = [0, -1, 0x12345678_9ABC, 255, -129, I64_MIN]
        c = [0, -1, 127, -128, 5, -100]
        d = [0, 255, 128, 127, 5, 200]
        return elementwise([("i64", a), ("i8", c), ("u8", d)], [
            ("i8", lambda a, c, d: wrap(a, "i8")),
            ("u16", lambda a, c, d: u(a, "u16")),
            ("i64", lambda a, c, d: c),
            ("i32", lambda a, c, d: d),
        ])

    @kernel
    def int_clamp_min_max_u32():
        x = [0, 5, 2**31, 2**32 - 1, 100, 7]
        lo = [1, 5, 10, 0, 200, 7]
        hi = [2, 5, 2**31 + 5, 2**32 - 2, 300, 7]
        return elementwise([("u32", x), ("u32", lo), ("u32", hi)], [
            ("u32", lambda x, lo, hi: min(x, lo)),
            ("u32", lambda x, lo, hi: max(x, hi)),
            ("u32", lambda x, lo, hi: min(max(x, lo), hi)),
        ])

    @kernel
    def float_min_max_finite():
        a = [1.0, -2.0, math.inf, -math.inf, fl(0.1), 5.0]
        b = [2.0, -3.0, 1.0, 1.0, fl(0.2), 5.0]
        return elementwise([("f32", a), ("f32", b)], [
            ("f32", lambda a, b: a if a < b else b),
            ("f32", lambda a, b: a if a > b else b),
        ])

    @kernel
    def bool_logic():
        a = [0, 1, 2, -5, 3, 0]
        b = [1, 0, 2, 0, 4, 0]
        c = [2, 5, 3, 1, 1, 0]
        return elementwise([("i32", a), ("i32", b), ("i32", c)], [
            ("u32", lambda a, b, c: int(a < b and b < c)),
            ("u32", lambda a, b, c: int(a < b or b < c)),
            ("u32", lambda a, b, c: int((a < b) != (b < c))),
        ])

    @kernel
    def vector_i32_div_mod():
        vt = ("vector", "i32", 4)
        a = [[7, -7, 7, -7], [2**31 - 1, -(2**31), 100, 0], [1, 2, 3, 4]]
        b = [[2, 2, -2, -2], [-1, 1, -7, 9], [4, 3, 2, 1]]
        return vector_elementwise([(vt, a), (vt, b)], [
            (vt, lambda a, b: [cdiv(x, y) for x, y in zip(a, b)]),
            (vt, lambda a, b: [crem(x, y) for x, y in zip(a, b)]),
        ])

    @kernel
    def vector_u32_shifts():
        vt = ("vector", "u32", 2)
        a = [[1, 2**31], [0xDEADBEEF, 0xFFFFFFFF], [12345, 0]]
        s = [[31, 31], [4, 0], [16, 7]]
        return vector_elementwise([(vt, a), (vt, s)], [
            (vt, lambda a, s: [u(x << k) for x, k in zip(a, s)]),
            (vt, lambda a, s: [x >> k for x, k in zip(a, s)]),
        ])

    @kernel
    def dispatch_partial_block():
        a = [(7 * i + 3) % 1000 for i in range(40)]
        return elementwise([("u32", a)], [("u32", lambda a: u(a * a))])

    @kernel
    def float_sqrt_f16():
        x = [1.0, 2.0, 0.5, 3.0, 65504.0, 0.0001]
        x = [fl(v, "f16") for v in x]
        return elementwise([("f16", x)], [("f16", lambda x: fl(math.sqrt(x), "f16"))])

    @kernel
    def float_fmod_f32():
        x = [7.5, -7.5, 7.5, fl(0.1), fl(1e30), -0.0]
        y = [2.0, 2.0, -2.0, fl(0.03), 3.0, 1.0]
        return elementwise([("f32", x), ("f32", y)], [("f32", lambda x, y: math.fmod(x, y))])

    @kernel
    def uint8_shifts_bitnot():
        a = [0, 1, 0x80, 0xFF, 0x5A, 0x0F]
        s = [0, 7, 7, 4, 1, 3]
        return elementwise([("u8", a), ("u8", s)], [
            ("u8", lambda a, s: u(a << s, "u8")),
            ("u8", lambda a, s: a >> s),
            ("u8", lambda a, s: u(~a, "u8")),
        ])

    @kernel
    def int64_min_max_abs():
        a = [0, -1, I64_MIN, I64_MAX, -(2**40), 5]
        b = [1, -2, 0, I64_MIN, 2**40, 5]
        return elementwise([("i64", a), ("i64", b)], [
            ("i64", lambda a, b: min(a, b)),
            ("i64", lambda a, b: max(a, b)),
            ("i64", lambda a, b: wrap(abs(a), "i64")),
        ])

    @kernel
    def float_fract():
        x = [1.25, -1.25, 3.0, -1e-9, fl(0.1), 1e20]
        x = [fl(v) for v in x]
        return elementwise([("f32", x)], [("f32", lambda x: fl(x - math.floor(x)) if x - math.floor(x) != 0 else 0.0)])

    @kernel
    def float_fma_f32():
        e = ffrom(0x3F800001, "f32")  # 1 + 2^-23
        a = [e, 2.0, fl(0.1), -3.0, 1.5]
        b = [e, 3.0, fl(10.0), 0.5, -2.0]
        c = [-ffrom(0x3F800002, "f32"), 1.0, -1.0, 1.5, 3.0]
        return elementwise([("f32", a), ("f32", b), ("f32", c)], [
            ("f32", lambda a, b, c: fma(a, b, c)),
            ("f32", lambda a, b, c: arith("+", arith("*", a, b, "f32"), c, "f32")),
        ])

    @kernel
    def int_popcount_clz_u32():
        x = [0, 1, 0x80000000, 0xFFFFFFFF, 0x00F0F000, 12345]
        return elementwise([("u32", x)], [
            ("u32", popcount),
            ("u32", clz32),
            ("u32", rev32),
        ])

    @kernel
    def cast_bool_from_float():
        x = [0.0, -0.0, 1.0, NAN, -math.inf, 1e-45]
        x = [v if v != 1e-45 else ffrom(1, "f32") for v in x]
        return elementwise([("f32", x)], [("f32", lambda x: 1.0 if (x != 0 or math.isnan(x)) else 0.0)])
