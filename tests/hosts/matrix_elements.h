/* matrix_elements.h: the element types of the warp-level matrix instructions for the C hosts
 * of the matrix tests: their bit widths and the encoding of values (exact in the type) as
 * fragment bits, and back. */
#ifndef PTX2LLVM_MATRIX_ELEMENTS_H
#define PTX2LLVM_MATRIX_ELEMENTS_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* T_E3M2, T_E2M3, T_E2M1: in 8-bit containers (`.kind::f8f6f4`); T_E2M1_PACKED: eight to a
 * register (`.kind::mxf4*`). */
typedef enum {
    T_F16, T_BF16, T_TF32, T_F32, T_F64, T_S8, T_U8, T_S32, T_S4, T_U4, T_E4M3, T_E5M2,
    T_E3M2, T_E2M3, T_E2M1, T_E2M1_PACKED
} elem_t;

static inline int elem_bits(elem_t t)
{
    switch (t) {
    case T_F16: case T_BF16: return 16;
    case T_S8: case T_U8: case T_E4M3: case T_E5M2: case T_E3M2: case T_E2M3: case T_E2M1: return 8;
    case T_S4: case T_U4: case T_E2M1_PACKED: return 4;
    case T_F64: return 64;
    default: return 32;
    }
}

static inline int per_reg(elem_t t) { return elem_bits(t) >= 32 ? 1 : 32 / elem_bits(t); }
static inline int is_int(elem_t t) { return t == T_S8 || t == T_U8 || t == T_S32 || t == T_S4 || t == T_U4; }

/* binary16 <-> double for values the tests use (exact in binary16). */
static inline uint16_t f16_bits(double v)
{
    if (v == 0) return signbit(v) ? 0x8000 : 0;
    uint16_t s = v < 0 ? 0x8000 : 0;
    double a = fabs(v);
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int exp = e - 1 + 15;
    if (exp <= 0) return s | (uint16_t)lrint(a * 16777216.0); /* subnormal: units of 2^-24 */
    return s | (uint16_t)(exp << 10) | (uint16_t)(lrint((m * 2 - 1) * 1024) & 0x3ff);
}

static inline double f16_value(uint16_t h)
{
    int exp = (h >> 10) & 31, man = h & 0x3ff;
    double v = exp == 0 ? ldexp(man, -24) : exp == 31 ? (man ? NAN : INFINITY) : ldexp(1024 + man, exp - 25);
    return (h & 0x8000) ? -v : v;
}

/* OCP FP8 E4M3 (bias 7) bits of a value with at most 4 significant bits in its range. */
static inline uint8_t e4m3_bits(double v)
{
    if (v == 0) return 0;
    uint8_t s = v < 0 ? 0x80 : 0;
    int e;
    double m = frexp(fabs(v), &e); /* |v| = m * 2^e */
    int exp = e - 1 + 7;
    if (exp <= 0) return s | (uint8_t)lrint(fabs(v) * 512.0); /* subnormal: units of 2^-9 */
    return s | (uint8_t)(exp << 3) | (uint8_t)(lrint((m * 2 - 1) * 8) & 7);
}

static inline double e4m3_value(uint8_t b)
{
    int exp = (b >> 3) & 15, man = b & 7;
    double v = exp == 0 ? ldexp(man, -9) : ldexp(8 + man, exp - 10);
    return (b & 0x80) ? -v : v;
}

/* A finite OCP MX float without infinities or NaN: sign, `exp_bits`, `man_bits`, `bias`. */
static inline double mx_value(unsigned bits, int exp_bits, int man_bits, int bias)
{
    int sign = (bits >> (exp_bits + man_bits)) & 1, exp = (bits >> man_bits) & ((1 << exp_bits) - 1), man = bits & ((1 << man_bits) - 1);
    double v = exp == 0 ? ldexp(man, 1 - bias - man_bits) : ldexp((1 << man_bits) + man, exp - bias - man_bits);
    return sign ? -v : v;
}

/* The bits of value `v` (exact in `t`). The 6- and 4-bit floats are given by their bits
 * (see decode), not encoded from values. */
static inline uint64_t encode(elem_t t, double v)
{
    float f = (float)v;
    uint32_t u;
    uint64_t d;
    switch (t) {
    case T_F16: return f16_bits(v);
    case T_BF16: memcpy(&u, &f, 4); return u >> 16;
    case T_TF32: case T_F32: memcpy(&u, &f, 4); return u;
    case T_F64: memcpy(&d, &v, 8); return d;
    case T_S8: return (uint8_t)(int8_t)v;
    case T_U8: return (uint8_t)v;
    case T_S4: case T_U4: return (uint8_t)(int8_t)v & 15;
    case T_E4M3: return e4m3_bits(v);
    case T_E5M2: return f16_bits(v) >> 8; /* the upper byte of binary16 */
    default: return (uint32_t)(int32_t)(int64_t)v;
    }
}

static inline double decode(elem_t t, uint64_t b)
{
    float f;
    uint32_t u;
    double d;
    switch (t) {
    case T_F16: return f16_value((uint16_t)b);
    case T_BF16: u = (uint32_t)b << 16; memcpy(&f, &u, 4); return f;
    case T_TF32: u = (uint32_t)b & 0xffffe000u; memcpy(&f, &u, 4); return f; /* 13 low bits ignored */
    case T_F32: u = (uint32_t)b; memcpy(&f, &u, 4); return f;
    case T_F64: memcpy(&d, &b, 8); return d;
    case T_S8: return (int8_t)b;
    case T_U8: return (uint8_t)b;
    case T_S4: return (b & 8) ? (int)(b & 15) - 16 : (int)(b & 15);
    case T_U4: return (int)(b & 15);
    case T_E4M3: return e4m3_value((uint8_t)b);
    case T_E5M2: return f16_value((uint16_t)((b & 0xff) << 8));
    /* Containers: .e3m2/.e2m3 in bits 0..5, .e2m1 in bits 2..5. */
    case T_E3M2: return mx_value((unsigned)b & 0x3f, 3, 2, 3);
    case T_E2M3: return mx_value((unsigned)b & 0x3f, 2, 3, 1);
    case T_E2M1: return mx_value(((unsigned)b >> 2) & 15, 2, 1, 1);
    case T_E2M1_PACKED: return mx_value((unsigned)b & 15, 2, 1, 1);
    default: return (int32_t)(uint32_t)b;
    }
}

#endif
