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
    def warp_vote_bits():
        # Warp size 8, two warps; a warp op reads its warp's 8 lanes (all active).
        W = 8
        a = [1, 3, 5, 7, 9, 11, 13, 15, 2, 3, 4, 6, 8, 10, 12, 14]
        n = len(a)
        r = Run([n])
        r.buffer("u32", a)

        def warp(t):
            return a[t - t % W : t - t % W + W]

        def band(xs):
            v = 0xFFFFFFFF
            for x in xs:
                v &= x
            return v

        def bxor(xs):
            v = 0
            for x in xs:
                v ^= x
            return v

        def odd(xs):
            return [x & 1 == 1 for x in xs]

        def prefix_product(t):
            v = 1
            for x in warp(t)[: t % W]:
                v = u(v * x)
            return v

        outs = [
            ("u32", lambda t: int(t % W == 0)),
            ("u32", lambda t: 0),
            ("u32", lambda t: band(warp(t))),
            ("u32", lambda t: bxor(warp(t))),
            ("u32", lambda t: int(all(odd(warp(t))))),
            ("u32", lambda t: int(any(odd(warp(t))))),
            (("vector", "u32", 4),
             lambda t: [sum(1 << l for l, c in enumerate(odd(warp(t))) if c), 0, 0, 0]),
            ("u32", prefix_product),
            ("u32", lambda t: warp(t)[0]),
        ]
        for ty, f in outs:
            z = [0, 0, 0, 0] if isinstance(ty, tuple) else 0
            k = r.buffer(ty, [z] * n)
            r.final[k] = [f(t) for t in range(n)]
        return r

    @kernel
    def atomics_exchange_sub_and():
        xf = [1.5, -0.0, 7.0, 100.25]
        nf = [2.0, 3.5, -0.0, -1.0]
        xu = [5, 6, 7, 0xFFFFFFFF]
        ex = [5, 0, 7, 1]
        de = [50, 60, 70, 80]
        sf = [10.0, 0.5, -2.0, 1024.0]
        df = [2.5, 0.5, 0.25, -0.5]
        au = [0xFF, 0xF0F0, 0xFFFFFFFF, 12]
        mu = [0x0F, 0xFF00, 0x12345678, 0]
        r = Run([len(xf)])
        kxf = r.buffer("f32", xf)
        r.buffer("f32", nf)
        kxu = r.buffer("u32", xu)
        r.buffer("u32", ex)
        r.buffer("u32", de)
        ksf = r.buffer("f32", sf)
        r.buffer("f32", df)
        kau = r.buffer("u32", au)
        r.buffer("u32", mu)
        r.final[kxf] = list(nf)
        r.final[kxu] = [d if x == e else x for x, e, d in zip(xu, ex, de)]
        r.final[ksf] = [fl(x - d) for x, d in zip(sf, df)]
        r.final[kau] = [x & m for x, m in zip(au, mu)]
        for t, old in [("f32", xf), ("u32", xu), ("f32", sf), ("u32", au)]:
            k = r.buffer(t, [0.0 if t == "f32" else 0] * len(xf))
            r.final[k] = list(old)
        return r

    @kernel
    def volatile_buffers():
        src = [0, 1, 0xFFFFFFFF, 1000]
        words = [0x12345678, 0, 0xFFFFFFFF, 0xABCDEF00]
        r = Run([len(src)])
        r.buffer("u32", src)
        dst = r.buffer("u32", [0] * len(src))
        bb = r.byte_buffer("u32", words)
        r.final[dst] = [u(x + 7) for x in src]
        r.final[bb] = [b for w in words for b in (w ^ 0xFF).to_bytes(4, "little")]
        return r

    @kernel
    def matrix_comp_ops():
        mt = ("matrix", "f32", 2)
        a = [[[1.0, 2.0], [3.0, 4.0]], [[-6.0, 0.5], [9.0, -0.0]], [[1048576.0, -7.0], [0.25, 3.0]],
             [[0.0, 8.0], [-1.5, 10.0]]]
        b = [[[2.0, 4.0], [0.5, -8.0]], [[3.0, 0.25], [-3.0, 2.0]], [[2.0, 7.0], [0.125, -0.5]],
             [[-4.0, 16.0], [3.0, 5.0]]]
        v = [[1.0, 2.0, 3.0, 4.0], [-0.5, 2.0, 0.25, 8.0], [1e10, 1e-10, 1.0, -1.0],
             [0.0, 5.0, -5.0, 2.0]]
        v = [[fl(x) for x in w] for w in v]
        n = len(a)
        r = Run([n])
        r.buffer(mt, a)
        r.buffer(mt, b)
        r.buffer(("vector", "f32", 4), v)
        zm = [[0.0, 0.0], [0.0, 0.0]]

        def comp(f, x, y):
            return [[f(p, q) for p, q in zip(c1, c2)] for c1, c2 in zip(x, y)]

        for f in [
            lambda x, y: comp(lambda p, q: -p, x, y),
            lambda x, y: comp(lambda p, q: fl(p - q), x, y),
            lambda x, y: comp(lambda p, q: fl(p / q), x, y),
        ]:
            k = r.buffer(mt, [zm] * n)
            r.final[k] = [f(a[i], b[i]) for i in range(n)]

        def prod(w):
            p = w[0]
            for x in w[1:]:
                p = fl(p * x)
            return p

        k = r.buffer("f32", [0.0] * n)
        r.final[k] = [prod(w) for w in v]
        return r

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
