#!/usr/bin/env python3
# A differential soundness check of the race rule's integer values (REF15's ranges, REF16's known
# bits; server/measure/ptxrace.c, int_value_def): random chains of 1-6 integer PTX operations
# (32- and 64-bit add/sub/and/or/xor/not/shifts/mul.lo/hi/wide/mad.lo/min/max/neg/abs/div/rem/
# popc/clz/selp/cvt; since REF17 also prmt, lop3, bfe, bfi, brev, shf, mad.hi; since REF18 sad,
# mad.wide, an add.cc/addc pair and an int -> .f64 -> int round trip with an add.f64; since
# REF19 sub.cc/subc and mad.lo/.hi.cc/madc.lo pairs; since REF20 the round trip's .f64 op may
# be a div.rn or an fma.rn by constants) on words of data and on a [0, 1] int from
# a float, ending in `& 127` as %r9,
# the extra offset of REF14's written form (lane t stores s[t], reads s[t + 16 + %r9], no
# barrier). Each chain is also computed here on ~600 inputs (edge values and random words). Where
# the scan finds the race at k, the rule took %r9 to be the constant k - 16: every input must give
# that value, else the chain is printed as UNSOUND. (It checks soundness only: a chain the rule
# does not judge is not a failure. The semantics here are this script's own reading of the PTX
# ISA, the same the rule was written from.)
#
#   tests/tools/ptxrace_int_fuzz.py [SEED [N]]     (default 1, 300 chains)
#
# Environment: SCAN the hk_ptxrace_scan binary (default build/tests/hk_ptxrace_scan).
# Prints each unsound chain and a count; exit 1 when any is unsound.
import math, os, random, subprocess, sys, tempfile
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
N = int(sys.argv[2]) if len(sys.argv) > 2 else 300
SCAN = os.environ.get('SCAN', os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../build/tests/hk_ptxrace_scan'))
HEAD = (".version 8.8\n.target sm_90\n.address_size 64\n.visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n"
        "\t.reg .pred %p<9>;\n\t.reg .b32 %r<200>;\n\t.reg .f32 %f<9>;\n\t.reg .b64 %rd<200>;\n\t.reg .f64 %fd<200>;\n"
        "\t.shared .align 4 .b8 s[4096];\n\tld.param.u64 %rd1, [k_param_0];\n\tcvta.to.global.u64 %rd2, %rd1;\n"
        "\tld.global.f32 %f1, [%rd2];\n\tld.global.u32 %r21, [%rd2+4];\n\tld.global.u32 %r22, [%rd2+8];\n")
TAIL = ("\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r2, %r1, 2;\n\tmov.u32 %r3, s;\n"
        "\tadd.s32 %r4, %r3, %r2;\n\tst.shared.u32 [%r4], %r1;\n"
        "\tadd.s32 %r10, %r9, 16;\n\tshl.b32 %r11, %r10, 2;\n\tadd.s32 %r12, %r4, %r11;\n"
        "\tld.shared.u32 %r13, [%r12];\n\tst.global.u32 [%rd2], %r13;\n\tret;\n}\n")
M32, M64 = (1 << 32) - 1, (1 << 64) - 1
def sx(u, w): u &= (1 << w) - 1; return u - (1 << w) if u >> (w - 1) else u
def tdiv(a, b): q = abs(a) // abs(b); return q if (a >= 0) == (b > 0) else -q
def trem(a, b): return a - tdiv(a, b) * b

def gen():
    # env: list of (name, width) ; concrete: function of inputs -> pattern
    lines = []; regs = []  # (name, w, fn)
    nr = [30]; nd = [30]
    def new(w):
        if w == 32: nr[0] += 1; return "%%r%d" % nr[0]
        nd[0] += 1; return "%%rd%d" % nd[0]
    # sources
    m = random.choice([1, 3, 7, 15, 0xff, M32])
    r = new(32); lines.append("\tand.b32 %s, %%r21, %d;" % (r, m)); regs.append((r, 32, lambda e, m=m: e['x'] & m))
    lines.append("\tabs.f32 %f2, %f1;\n\tmin.f32 %f4, %f2, 0f3F800000;\n\tcvt.rzi.s32.f32 %r20, %f4;")
    regs.append(("%r20", 32, lambda e: e['one']))
    m2 = random.choice([1, 3, M32])
    r = new(32); lines.append("\tand.b32 %s, %%r22, %d;" % (r, m2)); regs.append((r, 32, lambda e, m=m2: e['y'] & m))
    lines.append("\tsetp.ne.s32 %p2, %r22, 0;")
    for _ in range(random.randint(1, 6)):
        a = random.choice(regs); b = random.choice(regs)
        imm = random.choice([0, 1, 2, 3, 4, 5, 7, 8, 16, 31, 255, -1, -2, -3, 0x7fffffff, 0x80000000, 65536])
        k = random.randint(0, 31)
        if a[1] == 32:
            A = a[2]
            B = b[2] if b[1] == 32 else None
            op = random.choice(['add', 'sub', 'and', 'or', 'xor', 'not', 'shl', 'shru', 'shrs', 'mullo', 'mulhiu', 'mulhis',
                                'mins', 'maxs', 'minu', 'maxu', 'neg', 'abs', 'remu', 'rems', 'divu', 'divs', 'popc', 'clz',
                                'selp', 'cvts64', 'cvtu64', 'mulwides', 'mulwideu', 'madlo', 'cvtu16', 'cvts8',
                                'prmt', 'lop3', 'bfeu', 'bfes', 'bfi', 'brev', 'shfl', 'shfr', 'madhiu', 'madhis',
                                'sadu', 'sads', 'madwideu', 'madwides', 'addc', 'f64rt', 'subc', 'madc',
                                'madchi'])
            useimm = B is None or random.random() < 0.5
            bo = str(imm) if useimm else b[0]
            Bf = (lambda e, v=imm: v & M32) if useimm else B
            d = new(64 if op in ('cvts64', 'cvtu64', 'mulwides', 'mulwideu', 'madwideu', 'madwides') else 32)
            if op in ('sadu', 'sads', 'madwideu', 'madwides', 'addc', 'f64rt', 'subc', 'madc', 'madchi'):
                # (REF18) sad, mad.wide, add.cc + addc, a round trip through .f64
                c = random.choice([r for r in regs if r[1] == 32]); C = c[2]
                if op == 'sadu':
                    f = lambda e, A=A, Bf=Bf, imm=imm: (abs(A(e) - Bf(e)) + imm) & M32
                    txt = "sad.u32 %s, %s, %s, %d" % (d, a[0], bo, imm)
                elif op == 'sads':
                    f = lambda e, A=A, Bf=Bf, imm=imm: (abs(sx(A(e), 32) - sx(Bf(e), 32)) + imm) & M32
                    txt = "sad.s32 %s, %s, %s, %d" % (d, a[0], bo, imm)
                elif op in ('madwideu', 'madwides'):
                    i64 = random.choice([0, 1, 3, -1, 255, 1 << 40, 1 << 33])
                    if op == 'madwideu':
                        f = lambda e, A=A, Bf=Bf, i64=i64: (A(e) * Bf(e) + i64) & M64
                    else:
                        f = lambda e, A=A, Bf=Bf, i64=i64: (sx(A(e), 32) * sx(Bf(e), 32) + i64) & M64
                    txt = "mad.wide.%s32 %s, %s, %s, %d" % (op[-1], d, a[0], bo, i64)
                    lines.append("\t" + txt + ";"); regs.append((d, 64, f)); continue
                elif op == 'subc':
                    # (REF19) sub.cc + subc: the borrow of a - b
                    t = new(32); i2 = random.choice([0, 1, 0xfffffffe, 0xffffffff, 7])
                    lines.append("\tsub.cc.u32 %s, %s, %s;" % (t, a[0], bo))
                    regs.append((t, 32, lambda e, A=A, Bf=Bf: (A(e) - Bf(e)) & M32))
                    f = lambda e, A=A, Bf=Bf, C=C, i2=i2: (C(e) - i2 - (1 if A(e) < Bf(e) else 0)) & M32
                    txt = "subc.u32 %s, %s, %d" % (d, c[0], i2)
                elif op in ('madc', 'madchi'):
                    # (REF19) mad.lo/.hi.cc + madc.lo: the carry of the product's half plus i3
                    t = new(32); i3 = random.choice([0, 1, 0x7fffffff, 0xfffffffe, 0xffffffff, 7])
                    i2 = random.choice([0, 1, 2, 3]); i4 = random.choice([0, 1, 5, 0xffffffff])
                    hi = op == 'madchi'
                    half = (lambda e, A=A, Bf=Bf: (A(e) * Bf(e)) >> 32) if hi else \
                           (lambda e, A=A, Bf=Bf: (A(e) * Bf(e)) & M32)
                    lines.append("\tmad.%s.cc.u32 %s, %s, %s, %d;" % ('hi' if hi else 'lo', t, a[0], bo, i3))
                    regs.append((t, 32, lambda e, half=half, i3=i3: (half(e) + i3) & M32))
                    f = lambda e, half=half, C=C, i2=i2, i3=i3, i4=i4: \
                        (C(e) * i2 + i4 + ((half(e) + i3) >> 32)) & M32
                    txt = "madc.lo.u32 %s, %s, %d, %d" % (d, c[0], i2, i4)
                elif op == 'addc':
                    t = new(32); i2 = random.choice([0, 1, 0xfffffffe, 0xffffffff, 7])
                    lines.append("\tadd.cc.u32 %s, %s, %s;" % (t, a[0], bo))
                    regs.append((t, 32, lambda e, A=A, Bf=Bf: (A(e) + Bf(e)) & M32))
                    f = lambda e, A=A, Bf=Bf, C=C, i2=i2: (C(e) + i2 + ((A(e) + Bf(e)) >> 32)) & M32
                    txt = "addc.u32 %s, %s, %d" % (d, c[0], i2)
                else:
                    sg = random.random() < 0.5; add = random.choice([0.5, -0.5, 1.5, 0.25, 2.0 ** 31, -2.0 ** 31, -1.0])
                    f1 = new(64).replace('%rd', '%fd'); f2 = new(64).replace('%rd', '%fd')
                    lines.append("\tcvt.rn.f64.%s32 %s, %s;" % ('s' if sg else 'u', f1, a[0]))
                    bits = lambda x: int.from_bytes(__import__('struct').pack('>d', x), 'big')
                    # (REF20) the .f64 op: an add, or a quotient by a constant (div.rn), or an fma
                    # with two constants (fma.rn): each one rounding to nearest of the exact value,
                    # as Python's int / int and float(Fraction) round
                    kind = random.choice(['add', 'div', 'fma'])
                    c1 = random.choice([3.0, -3.0, 0.5, 7.0, 2.0 ** -20, 1e300, 1.0 + 2.0 ** -52])
                    c2 = random.choice([0.25, -0.5, 2.0 ** 31, 1e-300, -(1.0 + 2.0 ** -51), 0.0])
                    if kind == 'add':
                        lines.append("\tadd.f64 %s, %s, 0d%016X;" % (f2, f1, bits(add)))
                    elif kind == 'div':
                        lines.append("\tdiv.rn.f64 %s, %s, 0d%016X;" % (f2, f1, bits(c1)))
                    else:
                        lines.append("\tfma.rn.f64 %s, %s, 0d%016X, 0d%016X;" % (f2, f1, bits(c1), bits(c2)))
                    def f(e, A=A, sg=sg, add=add, kind=kind, c1=c1, c2=c2):
                        from fractions import Fraction
                        x = sx(A(e), 32) if sg else A(e)
                        if kind == 'add':
                            v = x + add
                        else:
                            q = Fraction(x) / Fraction(c1) if kind == 'div' else \
                                Fraction(x) * Fraction(c1) + Fraction(c2)
                            try:
                                v = float(q)
                            except OverflowError: # past DBL_MAX: rounds to an infinity
                                v = math.inf if q > 0 else -math.inf
                        lo, hi = (-(1 << 31), (1 << 31) - 1) if sg else (0, M32)
                        t = math.trunc(v) if math.isfinite(v) else (hi if v > 0 else lo)
                        return min(max(t, lo), hi) & M32
                    txt = "cvt.rzi.%s32.f64 %s, %s" % ('s' if sg else 'u', d, f2)
                lines.append("\t" + txt + ";"); regs.append((d, 32, f)); continue
            if op in ('cvtu16', 'cvts8'):
                # narrow then widen back through a 16-/8-bit register name: use cvt to u16 then cvt.u32.u16
                nw = 16 if op == 'cvtu16' else 8; sgn = op == 'cvts8'
                lines.append("\tcvt.%s%d.u32 %s, %s;" % ('s' if sgn else 'u', nw, d.replace('%r', '%rs'), a[0]))
                d2 = new(32)
                lines.append("\tcvt.u32.%s%d %s, %s;" % ('s' if sgn else 'u', nw, d2, d.replace('%r', '%rs')))
                f = (lambda e, A=A, nw=nw, sgn=sgn: (sx(A(e), nw) if sgn else A(e) & ((1 << nw) - 1)) & M32)
                regs.append((d2, 32, f)); continue
            def mk32(A, Bf, k, imm, d, a, bo):
              return {'add': ("add.s32 %s, %s, %s" % (d, a[0], bo), lambda e: (A(e) + Bf(e)) & M32),
                 'sub': ("sub.s32 %s, %s, %s" % (d, a[0], bo), lambda e: (A(e) - Bf(e)) & M32),
                 'and': ("and.b32 %s, %s, %s" % (d, a[0], bo), lambda e: A(e) & Bf(e)),
                 'or': ("or.b32 %s, %s, %s" % (d, a[0], bo), lambda e: A(e) | Bf(e)),
                 'xor': ("xor.b32 %s, %s, %s" % (d, a[0], bo), lambda e: A(e) ^ Bf(e)),
                 'not': ("not.b32 %s, %s" % (d, a[0]), lambda e: ~A(e) & M32),
                 'shl': ("shl.b32 %s, %s, %d" % (d, a[0], k), lambda e: (A(e) << k) & M32),
                 'shru': ("shr.u32 %s, %s, %d" % (d, a[0], k), lambda e: A(e) >> k),
                 'shrs': ("shr.s32 %s, %s, %d" % (d, a[0], k), lambda e: (sx(A(e), 32) >> k) & M32),
                 'mullo': ("mul.lo.s32 %s, %s, %s" % (d, a[0], bo), lambda e: (A(e) * Bf(e)) & M32),
                 'mulhiu': ("mul.hi.u32 %s, %s, %s" % (d, a[0], bo), lambda e: (A(e) * Bf(e)) >> 32),
                 'mulhis': ("mul.hi.s32 %s, %s, %s" % (d, a[0], bo), lambda e: ((sx(A(e), 32) * sx(Bf(e), 32)) >> 32) & M32),
                 'mins': ("min.s32 %s, %s, %s" % (d, a[0], bo), lambda e: min(sx(A(e), 32), sx(Bf(e), 32)) & M32),
                 'maxs': ("max.s32 %s, %s, %s" % (d, a[0], bo), lambda e: max(sx(A(e), 32), sx(Bf(e), 32)) & M32),
                 'minu': ("min.u32 %s, %s, %s" % (d, a[0], bo), lambda e: min(A(e), Bf(e))),
                 'maxu': ("max.u32 %s, %s, %s" % (d, a[0], bo), lambda e: max(A(e), Bf(e))),
                 'neg': ("neg.s32 %s, %s" % (d, a[0]), lambda e: -A(e) & M32),
                 'abs': ("abs.s32 %s, %s" % (d, a[0]), lambda e: abs(sx(A(e), 32)) & M32),
                 'popc': ("popc.b32 %s, %s" % (d, a[0]), lambda e: bin(A(e)).count('1')),
                 'clz': ("clz.b32 %s, %s" % (d, a[0]), lambda e: 32 - A(e).bit_length()),
                 'selp': ("selp.b32 %s, %s, %s, %%p2" % (d, a[0], bo), lambda e: A(e) if e['y'] != 0 else Bf(e)),
                 'cvts64': ("cvt.s64.s32 %s, %s" % (d, a[0]), lambda e: sx(A(e), 32) & M64),
                 'cvtu64': ("cvt.u64.u32 %s, %s" % (d, a[0]), lambda e: A(e)),
                 'mulwides': ("mul.wide.s32 %s, %s, %s" % (d, a[0], bo), lambda e: (sx(A(e), 32) * sx(Bf(e), 32)) & M64),
                 'mulwideu': ("mul.wide.u32 %s, %s, %s" % (d, a[0], bo), lambda e: (A(e) * Bf(e)) & M64),
                 'madlo': ("mad.lo.s32 %s, %s, %s, %d" % (d, a[0], bo, imm), lambda e: (A(e) * Bf(e) + (imm & M32)) & M32),
                 }
            L = mk32(A, Bf, k, imm, d, a, bo)
            if op in ('prmt', 'lop3', 'bfeu', 'bfes', 'bfi', 'brev', 'shfl', 'shfr', 'madhiu', 'madhis'):
                # (REF17) the bit operations: selectors, LUTs, fields and amounts as immediates
                c = random.choice([r for r in regs if r[1] == 32]); C = c[2]
                if op == 'prmt':
                    sel = random.choice([0x4441, 0x1111, 0x3210, 0x7654, 0xBBBB, 0x8888]) if random.random() < 0.4 \
                        else random.getrandbits(16)
                    def f(e, A=A, Bf=Bf, sel=sel):
                        by = A(e) | (Bf(e) << 32); r = 0
                        for i in range(4):
                            n = (sel >> (4 * i)) & 15; v = (by >> (8 * (n & 7))) & 255
                            if n & 8: v = 255 if v & 128 else 0
                            r |= v << (8 * i)
                        return r
                    txt = "prmt.b32 %s, %s, %s, %d" % (d, a[0], bo, sel)
                elif op == 'lop3':
                    lut = random.getrandbits(8)
                    def f(e, A=A, Bf=Bf, C=C, lut=lut):
                        x, y, z = A(e), Bf(e), C(e); r = 0
                        for i in range(8):
                            if (lut >> i) & 1:
                                r |= (x if i & 4 else ~x) & (y if i & 2 else ~y) & (z if i & 1 else ~z)
                        return r & M32
                    txt = "lop3.b32 %s, %s, %s, %s, %d" % (d, a[0], bo, c[0], lut)
                elif op in ('bfeu', 'bfes'):
                    pos = random.randint(0, 31); ln = random.randint(1, 32 - pos)
                    if op == 'bfeu':
                        f = lambda e, A=A, pos=pos, ln=ln: (A(e) >> pos) & ((1 << ln) - 1)
                    else:
                        f = lambda e, A=A, pos=pos, ln=ln: sx((A(e) >> pos) & ((1 << ln) - 1), ln) & M32
                    txt = "bfe.%s32 %s, %s, %d, %d" % ('u' if op == 'bfeu' else 's', d, a[0], pos, ln)
                elif op == 'bfi':
                    pos = random.randint(0, 31); ln = random.randint(1, 32 - pos); fm = ((1 << ln) - 1) << pos
                    f = lambda e, A=A, C=C, pos=pos, fm=fm: ((C(e) & ~fm) | ((A(e) << pos) & fm)) & M32
                    txt = "bfi.b32 %s, %s, %s, %d, %d" % (d, a[0], c[0], pos, ln)
                elif op == 'brev':
                    f = lambda e, A=A: int('{:032b}'.format(A(e))[::-1], 2)
                    txt = "brev.b32 %s, %s" % (d, a[0])
                elif op in ('shfl', 'shfr'):
                    mode = random.choice(['wrap', 'clamp']); amt = random.choice([0, 1, 2, 7, 31, 32, 33, 40, 64])
                    n = amt & 31 if mode == 'wrap' else min(amt, 32)
                    if op == 'shfl':
                        f = lambda e, A=A, C=C, n=n: (((C(e) << 32 | A(e)) << n) >> 32) & M32
                    else:
                        f = lambda e, A=A, C=C, n=n: ((C(e) << 32 | A(e)) >> n) & M32
                    txt = "shf.%s.%s.b32 %s, %s, %s, %d" % (op[3], mode, d, a[0], c[0], amt)
                else:
                    if op == 'madhiu':
                        f = lambda e, A=A, Bf=Bf, imm=imm: (((A(e) * Bf(e)) >> 32) + (imm & M32)) & M32
                    else:
                        f = lambda e, A=A, Bf=Bf, imm=imm: (((sx(A(e), 32) * sx(Bf(e), 32)) >> 32) + imm) & M32
                    txt = "mad.hi.%s32 %s, %s, %s, %d" % (op[-1], d, a[0], bo, imm)
                lines.append("\t" + txt + ";"); regs.append((d, 32, f)); continue
            if op in ('remu', 'rems', 'divu', 'divs'):
                dv = random.choice([1, 2, 3, 4, 8, 7])
                f = (lambda A, dv: {'remu': lambda e: A(e) % dv, 'divu': lambda e: A(e) // dv,
                     'rems': lambda e: trem(sx(A(e), 32), dv) & M32, 'divs': lambda e: tdiv(sx(A(e), 32), dv) & M32})(A, dv)[op]
                opn = {'remu': 'rem.u32', 'rems': 'rem.s32', 'divu': 'div.u32', 'divs': 'div.s32'}[op]
                lines.append("\t%s %s, %s, %d;" % (opn, d, a[0], dv)); regs.append((d, 32, f)); continue
            txt, f = L[op]
            lines.append("\t" + txt + ";"); regs.append((d, 64 if d.startswith('%rd') else 32, f))
        else:
            A = a[2]
            op = random.choice(['shl', 'shru', 'shrs', 'and', 'add', 'sub', 'cvt32', 'cvts32', 'or', 'xor', 'mullo'])
            k = random.randint(0, 63)
            imm = random.choice([0, 1, 3, -1, 1 << 40, (1 << 63), 255])
            d = new(32 if op in ('cvt32', 'cvts32') else 64)
            def mk64(A, k, imm, d, a):
              return {'shl': ("shl.b64 %s, %s, %d" % (d, a[0], k), lambda e: (A(e) << k) & M64),
                 'shru': ("shr.u64 %s, %s, %d" % (d, a[0], k), lambda e: A(e) >> k),
                 'shrs': ("shr.s64 %s, %s, %d" % (d, a[0], k), lambda e: (sx(A(e), 64) >> k) & M64),
                 'and': ("and.b64 %s, %s, %d" % (d, a[0], imm), lambda e: A(e) & (imm & M64)),
                 'or': ("or.b64 %s, %s, %d" % (d, a[0], imm), lambda e: A(e) | (imm & M64)),
                 'xor': ("xor.b64 %s, %s, %d" % (d, a[0], imm), lambda e: A(e) ^ (imm & M64)),
                 'add': ("add.s64 %s, %s, %d" % (d, a[0], imm), lambda e: (A(e) + imm) & M64),
                 'sub': ("sub.s64 %s, %s, %d" % (d, a[0], imm), lambda e: (A(e) - imm) & M64),
                 'mullo': ("mul.lo.s64 %s, %s, %d" % (d, a[0], imm), lambda e: (A(e) * imm) & M64),
                 'cvt32': ("cvt.u32.u64 %s, %s" % (d, a[0]), lambda e: A(e) & M32),
                 'cvts32': ("cvt.s32.s64 %s, %s" % (d, a[0]), lambda e: A(e) & M32)}
            L = mk64(A, k, imm, d, a)
            txt, f = L[op]
            lines.append("\t" + txt + ";"); regs.append((d, 32 if op in ('cvt32', 'cvts32') else 64, f))
    last = [r for r in regs if r[1] == 32][-1]
    lines.append("\tand.b32 %%r9, %s, 127;" % last[0])
    fin = lambda e, F=last[2]: F(e) & 127
    return "\n".join(lines) + "\n", fin

inputs = [dict(x=x, one=o, y=y) for x in list(range(20)) + [0x7fffffff, 0x80000000, M32, M32 - 1, 0x12345678, 0xdeadbeef, 65535, 65536]
          for o in (0, 1) for y in (0, 1, 2, 3, M32)]
random_inputs = [dict(x=random.getrandbits(32), one=random.randint(0, 1), y=random.getrandbits(32)) for _ in range(300)]
bad = found = 0
fd, tmp = tempfile.mkstemp(suffix='.ptx')
os.close(fd)
for it in range(N):
    mid, fin = gen()
    vals = set(fin(e) for e in inputs + random_inputs)
    open(tmp, 'w').write(HEAD + mid + TAIL)
    out = subprocess.run([SCAN, '--block', '256', tmp], capture_output=True, text=True).stdout
    f = out.split(' | ')
    if len(f) > 3 and f[1] == 'race':
        found += 1
        kk = int(f[3])
        if len(vals) != 1 or kk - 16 != next(iter(vals)):
            bad += 1
            print("UNSOUND k=%d values=%s\n%s" % (kk, sorted(vals)[:8], mid))
    elif len(f) > 1 and f[1] not in ('none', 'race'):
        print("odd:", out[:200])
os.unlink(tmp)
print("programs %d found %d unsound %d" % (N, found, bad))
sys.exit(1 if bad else 0)
