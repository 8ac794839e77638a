/* cuda_fp16.h (ptxrt): CUDA's half-precision types and the commonly used part of their
 * functions, written for ptx2llvm from the CUDA Math API documentation ("Half Precision
 * Intrinsics"); not NVIDIA's header. C++ only, host and device.
 *
 * __half holds IEEE binary16 bits. Conversions from float round to nearest even (the _rz
 * forms truncate); arithmetic is done in float and rounded once to half, which is the
 * correctly rounded half result for + - * / and sqrt (as CUDA's half instructions give);
 * __hfma is computed in double then rounded. The transcendental functions (hexp, hsin, ...)
 * are the float functions rounded to half. Provided: the types, conversions, arithmetic,
 * comparisons, min/max, math functions, operators, warp shuffles and atomicAdd for __half
 * and __half2. Not provided: the bfloat16 header (cuda_bf16.h), __hcmadd, the _rd/_ru
 * conversions, and the vector comparisons returning masks (__heq2_mask, ...). */
#ifndef PTXRT_CUDA_FP16_H
#define PTXRT_CUDA_FP16_H

#include "cuda_runtime.h"

#if defined(__cplusplus)

#define __PTXRT_HD static __host__ __device__ __forceinline__

/* ---- bits <-> float ---- */
__PTXRT_HD unsigned short __ptxrt_f2h(float f, bool truncate) {
    unsigned int x = __builtin_bit_cast(unsigned int, f);
    unsigned short sign = (unsigned short)((x >> 16) & 0x8000u);
    unsigned int mant = x & 0x7fffffu;
    int exp = (int)((x >> 23) & 0xffu);
    if (exp == 0xff) return (unsigned short)(sign | 0x7c00u | (mant ? 0x200u | (mant >> 13) : 0u));
    int e = exp - 127 + 15;
    if (e >= 31) return (unsigned short)(truncate ? (sign | 0x7bffu) : (sign | 0x7c00u));
    if (e <= 0) {
        if (e < -10) return sign;
        mant |= 0x800000u;
        int shift = 14 - e;
        unsigned int h = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (!truncate && (rem > half || (rem == half && (h & 1u)))) ++h;
        return (unsigned short)(sign | h);
    }
    unsigned int h = ((unsigned int)e << 10) | (mant >> 13), rem = mant & 0x1fffu;
    if (!truncate && (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))) ++h;
    return (unsigned short)(sign | h);
}

__PTXRT_HD float __ptxrt_h2f(unsigned short h) {
    unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
    int exp = (h >> 10) & 0x1f;
    unsigned int mant = h & 0x3ffu, bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {
            exp = 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                --exp;
            }
            bits = sign | ((unsigned int)(exp + 112) << 23) | ((mant & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((unsigned int)(exp + 112) << 23) | (mant << 13);
    }
    return __builtin_bit_cast(float, bits);
}

/* ---- types ---- */
typedef struct __half_raw {
    unsigned short x;
} __half_raw;
typedef struct __half2_raw {
    unsigned short x, y;
} __half2_raw;

struct __align__(2) __half {
    unsigned short __x;
    __half() = default;
    __host__ __device__ constexpr __half(const __half_raw &r) : __x(r.x) {}
    __host__ __device__ __half(float f) : __x(__ptxrt_f2h(f, false)) {}
    __host__ __device__ __half(double f) : __x(__ptxrt_f2h((float)f, false)) {}
    __host__ __device__ __half(int i) : __x(__ptxrt_f2h((float)i, false)) {}
    __host__ __device__ __half(unsigned int i) : __x(__ptxrt_f2h((float)i, false)) {}
    __host__ __device__ __half(long long i) : __x(__ptxrt_f2h((float)i, false)) {}
    __host__ __device__ __half(unsigned long long i) : __x(__ptxrt_f2h((float)i, false)) {}
    __host__ __device__ __half(short i) : __x(__ptxrt_f2h((float)i, false)) {}
    __host__ __device__ __half(unsigned short i) : __x(__ptxrt_f2h((float)i, false)) {}
    __host__ __device__ __half &operator=(const __half_raw &r) {
        __x = r.x;
        return *this;
    }
    __host__ __device__ __half &operator=(float f) {
        __x = __ptxrt_f2h(f, false);
        return *this;
    }
    __host__ __device__ __half &operator=(double f) {
        __x = __ptxrt_f2h((float)f, false);
        return *this;
    }
    __host__ __device__ operator float() const { return __ptxrt_h2f(__x); }
    __host__ __device__ operator __half_raw() const { return __half_raw{__x}; }
    __host__ __device__ explicit operator bool() const { return (__x & 0x7fffu) != 0; }
};

struct __align__(4) __half2 {
    __half x, y;
    __half2() = default;
    __host__ __device__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
    __host__ __device__ __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    __host__ __device__ __half2 &operator=(const __half2_raw &r) {
        x = __half_raw{r.x};
        y = __half_raw{r.y};
        return *this;
    }
    __host__ __device__ operator __half2_raw() const { return __half2_raw{x.__x, y.__x}; }
};

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;

/* ---- conversions ---- */
__PTXRT_HD __half __float2half(float a) { return __half(a); }
__PTXRT_HD __half __float2half_rn(float a) { return __half(a); }
__PTXRT_HD __half __float2half_rz(float a) { return __half_raw{__ptxrt_f2h(a, true)}; }
__PTXRT_HD float __half2float(__half a) { return __ptxrt_h2f(a.__x); }
__PTXRT_HD __half __double2half(double a) { return __half((float)a); }
__PTXRT_HD __half __int2half_rn(int i) { return __half((float)i); }
__PTXRT_HD __half __uint2half_rn(unsigned int i) { return __half((float)i); }
__PTXRT_HD __half __short2half_rn(short i) { return __half((float)i); }
__PTXRT_HD __half __ushort2half_rn(unsigned short i) { return __half((float)i); }
__PTXRT_HD __half __ll2half_rn(long long i) { return __half((float)i); }
__PTXRT_HD int __half2int_rz(__half a) { return (int)__half2float(a); }
__PTXRT_HD int __half2int_rn(__half a) { return (int)__builtin_rintf(__half2float(a)); }
__PTXRT_HD int __half2int_rd(__half a) { return (int)__builtin_floorf(__half2float(a)); }
__PTXRT_HD int __half2int_ru(__half a) { return (int)__builtin_ceilf(__half2float(a)); }
__PTXRT_HD unsigned int __half2uint_rz(__half a) { return (unsigned int)__half2float(a); }
__PTXRT_HD unsigned int __half2uint_rn(__half a) { return (unsigned int)__builtin_rintf(__half2float(a)); }
__PTXRT_HD short __half2short_rz(__half a) { return (short)__half2float(a); }
__PTXRT_HD short __half2short_rn(__half a) { return (short)__builtin_rintf(__half2float(a)); }
__PTXRT_HD long long __half2ll_rz(__half a) { return (long long)__half2float(a); }
__PTXRT_HD short __half_as_short(__half h) { return (short)h.__x; }
__PTXRT_HD unsigned short __half_as_ushort(__half h) { return h.__x; }
__PTXRT_HD __half __short_as_half(short i) { return __half_raw{(unsigned short)i}; }
__PTXRT_HD __half __ushort_as_half(unsigned short i) { return __half_raw{i}; }
__PTXRT_HD __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__PTXRT_HD __half2 make_half2(__half a, __half b) { return __half2(a, b); }
__PTXRT_HD __half2 __half2half2(__half a) { return __half2(a, a); }
__PTXRT_HD __half2 __float2half2_rn(float a) { return __half2(__half(a), __half(a)); }
__PTXRT_HD __half2 __floats2half2_rn(float a, float b) { return __half2(__half(a), __half(b)); }
__PTXRT_HD __half2 __float22half2_rn(float2 a) { return __half2(__half(a.x), __half(a.y)); }
__PTXRT_HD float2 __half22float2(__half2 a) { return make_float2(__half2float(a.x), __half2float(a.y)); }
__PTXRT_HD float __low2float(__half2 a) { return __half2float(a.x); }
__PTXRT_HD float __high2float(__half2 a) { return __half2float(a.y); }
__PTXRT_HD __half __low2half(__half2 a) { return a.x; }
__PTXRT_HD __half __high2half(__half2 a) { return a.y; }
__PTXRT_HD __half2 __low2half2(__half2 a) { return __half2(a.x, a.x); }
__PTXRT_HD __half2 __high2half2(__half2 a) { return __half2(a.y, a.y); }
__PTXRT_HD __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
__PTXRT_HD __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
__PTXRT_HD __half2 __lowhigh2highlow(__half2 a) { return __half2(a.y, a.x); }

/* ---- arithmetic, comparisons (scalar) ---- */
#define __PTXRT_F(h) __half2float(h)
__PTXRT_HD __half __hadd(__half a, __half b) { return __half(__PTXRT_F(a) + __PTXRT_F(b)); }
__PTXRT_HD __half __hsub(__half a, __half b) { return __half(__PTXRT_F(a) - __PTXRT_F(b)); }
__PTXRT_HD __half __hmul(__half a, __half b) { return __half(__PTXRT_F(a) * __PTXRT_F(b)); }
__PTXRT_HD __half __hdiv(__half a, __half b) { return __half(__PTXRT_F(a) / __PTXRT_F(b)); }
__PTXRT_HD __half __hfma(__half a, __half b, __half c) {
    return __half((float)((double)__PTXRT_F(a) * (double)__PTXRT_F(b) + (double)__PTXRT_F(c)));
}
__PTXRT_HD __half __hneg(__half a) { return __half_raw{(unsigned short)(a.__x ^ 0x8000u)}; }
__PTXRT_HD __half __habs(__half a) { return __half_raw{(unsigned short)(a.__x & 0x7fffu)}; }
__PTXRT_HD float __ptxrt_sat(float v) { return v != v ? 0.0f : (v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v)); }
__PTXRT_HD __half __hadd_sat(__half a, __half b) { return __half(__ptxrt_sat(__PTXRT_F(__hadd(a, b)))); }
__PTXRT_HD __half __hsub_sat(__half a, __half b) { return __half(__ptxrt_sat(__PTXRT_F(__hsub(a, b)))); }
__PTXRT_HD __half __hmul_sat(__half a, __half b) { return __half(__ptxrt_sat(__PTXRT_F(__hmul(a, b)))); }
__PTXRT_HD __half __hfma_sat(__half a, __half b, __half c) { return __half(__ptxrt_sat(__PTXRT_F(__hfma(a, b, c)))); }
__PTXRT_HD bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
__PTXRT_HD int __hisinf(__half a) { return (a.__x & 0x7fffu) == 0x7c00u ? ((a.__x & 0x8000u) ? -1 : 1) : 0; }
__PTXRT_HD bool __heq(__half a, __half b) { return __PTXRT_F(a) == __PTXRT_F(b); }
__PTXRT_HD bool __hne(__half a, __half b) { return __PTXRT_F(a) != __PTXRT_F(b) && !__hisnan(a) && !__hisnan(b); }
__PTXRT_HD bool __hlt(__half a, __half b) { return __PTXRT_F(a) < __PTXRT_F(b); }
__PTXRT_HD bool __hle(__half a, __half b) { return __PTXRT_F(a) <= __PTXRT_F(b); }
__PTXRT_HD bool __hgt(__half a, __half b) { return __PTXRT_F(a) > __PTXRT_F(b); }
__PTXRT_HD bool __hge(__half a, __half b) { return __PTXRT_F(a) >= __PTXRT_F(b); }
__PTXRT_HD bool __hequ(__half a, __half b) { return !(__PTXRT_F(a) != __PTXRT_F(b)); }
__PTXRT_HD bool __hneu(__half a, __half b) { return __PTXRT_F(a) != __PTXRT_F(b); }
__PTXRT_HD bool __hltu(__half a, __half b) { return !(__PTXRT_F(a) >= __PTXRT_F(b)); }
__PTXRT_HD bool __hleu(__half a, __half b) { return !(__PTXRT_F(a) > __PTXRT_F(b)); }
__PTXRT_HD bool __hgtu(__half a, __half b) { return !(__PTXRT_F(a) <= __PTXRT_F(b)); }
__PTXRT_HD bool __hgeu(__half a, __half b) { return !(__PTXRT_F(a) < __PTXRT_F(b)); }
/* max/min: the other operand if one is NaN (both NaN: canonical NaN); the _nan forms
 * return NaN if either is. */
__PTXRT_HD __half __hmax(__half a, __half b) {
    if (__hisnan(a)) return __hisnan(b) ? __half(__half_raw{0x7fffu}) : b;
    if (__hisnan(b)) return a;
    return __PTXRT_F(a) >= __PTXRT_F(b) ? a : b;
}
__PTXRT_HD __half __hmin(__half a, __half b) {
    if (__hisnan(a)) return __hisnan(b) ? __half(__half_raw{0x7fffu}) : b;
    if (__hisnan(b)) return a;
    return __PTXRT_F(a) <= __PTXRT_F(b) ? a : b;
}
__PTXRT_HD __half __hmax_nan(__half a, __half b) { return __hisnan(a) || __hisnan(b) ? __half(__half_raw{0x7fffu}) : __hmax(a, b); }
__PTXRT_HD __half __hmin_nan(__half a, __half b) { return __hisnan(a) || __hisnan(b) ? __half(__half_raw{0x7fffu}) : __hmin(a, b); }

/* ---- math (scalar) ---- */
__PTXRT_HD __half hsqrt(__half a) { return __half(sqrtf(__PTXRT_F(a))); }
__PTXRT_HD __half hrsqrt(__half a) { return __half(1.0f / sqrtf(__PTXRT_F(a))); }
__PTXRT_HD __half hrcp(__half a) { return __half(1.0f / __PTXRT_F(a)); }
__PTXRT_HD __half hexp(__half a) { return __half(expf(__PTXRT_F(a))); }
__PTXRT_HD __half hexp2(__half a) { return __half(exp2f(__PTXRT_F(a))); }
__PTXRT_HD __half hexp10(__half a) { return __half(powf(10.0f, __PTXRT_F(a))); }
__PTXRT_HD __half hlog(__half a) { return __half(logf(__PTXRT_F(a))); }
__PTXRT_HD __half hlog2(__half a) { return __half(log2f(__PTXRT_F(a))); }
__PTXRT_HD __half hlog10(__half a) { return __half(log10f(__PTXRT_F(a))); }
__PTXRT_HD __half hsin(__half a) { return __half(sinf(__PTXRT_F(a))); }
__PTXRT_HD __half hcos(__half a) { return __half(cosf(__PTXRT_F(a))); }
__PTXRT_HD __half htanh(__half a) { return __half(tanhf(__PTXRT_F(a))); }
__PTXRT_HD __half hfloor(__half a) { return __half(floorf(__PTXRT_F(a))); }
__PTXRT_HD __half hceil(__half a) { return __half(ceilf(__PTXRT_F(a))); }
__PTXRT_HD __half htrunc(__half a) { return __half(truncf(__PTXRT_F(a))); }
__PTXRT_HD __half hrint(__half a) { return __half(rintf(__PTXRT_F(a))); }

/* ---- __half2, lane by lane ---- */
#define __PTXRT_H2_1(NAME, F) \
    __PTXRT_HD __half2 NAME(__half2 a) { return __half2(F(a.x), F(a.y)); }
#define __PTXRT_H2_2(NAME, F) \
    __PTXRT_HD __half2 NAME(__half2 a, __half2 b) { return __half2(F(a.x, b.x), F(a.y, b.y)); }
__PTXRT_H2_2(__hadd2, __hadd)
__PTXRT_H2_2(__hsub2, __hsub)
__PTXRT_H2_2(__hmul2, __hmul)
__PTXRT_H2_2(__h2div, __hdiv)
__PTXRT_H2_2(__hadd2_sat, __hadd_sat)
__PTXRT_H2_2(__hsub2_sat, __hsub_sat)
__PTXRT_H2_2(__hmul2_sat, __hmul_sat)
__PTXRT_H2_2(__hmax2, __hmax)
__PTXRT_H2_2(__hmin2, __hmin)
__PTXRT_H2_1(__hneg2, __hneg)
__PTXRT_H2_1(__habs2, __habs)
__PTXRT_H2_1(h2sqrt, hsqrt)
__PTXRT_H2_1(h2rsqrt, hrsqrt)
__PTXRT_H2_1(h2rcp, hrcp)
__PTXRT_H2_1(h2exp, hexp)
__PTXRT_H2_1(h2exp2, hexp2)
__PTXRT_H2_1(h2log, hlog)
__PTXRT_H2_1(h2log2, hlog2)
__PTXRT_H2_1(h2sin, hsin)
__PTXRT_H2_1(h2cos, hcos)
__PTXRT_H2_1(h2floor, hfloor)
__PTXRT_H2_1(h2ceil, hceil)
__PTXRT_H2_1(h2trunc, htrunc)
__PTXRT_H2_1(h2rint, hrint)
#undef __PTXRT_H2_1
#undef __PTXRT_H2_2
__PTXRT_HD __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
__PTXRT_HD __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c) {
    return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
__PTXRT_HD __half2 __hisnan2(__half2 a) { return __half2(__half(__hisnan(a.x) ? 1.0f : 0.0f), __half(__hisnan(a.y) ? 1.0f : 0.0f)); }
#define __PTXRT_H2_CMP(NAME, BNAME, F)                                                         \
    __PTXRT_HD __half2 NAME(__half2 a, __half2 b) {                                            \
        return __half2(__half(F(a.x, b.x) ? 1.0f : 0.0f), __half(F(a.y, b.y) ? 1.0f : 0.0f)); \
    }                                                                                          \
    __PTXRT_HD bool BNAME(__half2 a, __half2 b) { return F(a.x, b.x) && F(a.y, b.y); }
__PTXRT_H2_CMP(__heq2, __hbeq2, __heq)
__PTXRT_H2_CMP(__hne2, __hbne2, __hne)
__PTXRT_H2_CMP(__hlt2, __hblt2, __hlt)
__PTXRT_H2_CMP(__hle2, __hble2, __hle)
__PTXRT_H2_CMP(__hgt2, __hbgt2, __hgt)
__PTXRT_H2_CMP(__hge2, __hbge2, __hge)
#undef __PTXRT_H2_CMP

/* ---- operators ---- */
__host__ __device__ __forceinline__ __half operator+(const __half &a, const __half &b) { return __hadd(a, b); }
__host__ __device__ __forceinline__ __half operator-(const __half &a, const __half &b) { return __hsub(a, b); }
__host__ __device__ __forceinline__ __half operator*(const __half &a, const __half &b) { return __hmul(a, b); }
__host__ __device__ __forceinline__ __half operator/(const __half &a, const __half &b) { return __hdiv(a, b); }
__host__ __device__ __forceinline__ __half &operator+=(__half &a, const __half &b) { return a = __hadd(a, b); }
__host__ __device__ __forceinline__ __half &operator-=(__half &a, const __half &b) { return a = __hsub(a, b); }
__host__ __device__ __forceinline__ __half &operator*=(__half &a, const __half &b) { return a = __hmul(a, b); }
__host__ __device__ __forceinline__ __half &operator/=(__half &a, const __half &b) { return a = __hdiv(a, b); }
__host__ __device__ __forceinline__ __half operator+(const __half &a) { return a; }
__host__ __device__ __forceinline__ __half operator-(const __half &a) { return __hneg(a); }
__host__ __device__ __forceinline__ __half &operator++(__half &a) { return a = __hadd(a, __half(1.0f)); }
__host__ __device__ __forceinline__ __half &operator--(__half &a) { return a = __hsub(a, __half(1.0f)); }
__host__ __device__ __forceinline__ bool operator==(const __half &a, const __half &b) { return __heq(a, b); }
__host__ __device__ __forceinline__ bool operator!=(const __half &a, const __half &b) { return __hneu(a, b); }
__host__ __device__ __forceinline__ bool operator<(const __half &a, const __half &b) { return __hlt(a, b); }
__host__ __device__ __forceinline__ bool operator<=(const __half &a, const __half &b) { return __hle(a, b); }
__host__ __device__ __forceinline__ bool operator>(const __half &a, const __half &b) { return __hgt(a, b); }
__host__ __device__ __forceinline__ bool operator>=(const __half &a, const __half &b) { return __hge(a, b); }
__host__ __device__ __forceinline__ __half2 operator+(const __half2 &a, const __half2 &b) { return __hadd2(a, b); }
__host__ __device__ __forceinline__ __half2 operator-(const __half2 &a, const __half2 &b) { return __hsub2(a, b); }
__host__ __device__ __forceinline__ __half2 operator*(const __half2 &a, const __half2 &b) { return __hmul2(a, b); }
__host__ __device__ __forceinline__ __half2 operator/(const __half2 &a, const __half2 &b) { return __h2div(a, b); }
__host__ __device__ __forceinline__ __half2 &operator+=(__half2 &a, const __half2 &b) { return a = __hadd2(a, b); }
__host__ __device__ __forceinline__ __half2 &operator-=(__half2 &a, const __half2 &b) { return a = __hsub2(a, b); }
__host__ __device__ __forceinline__ __half2 &operator*=(__half2 &a, const __half2 &b) { return a = __hmul2(a, b); }
__host__ __device__ __forceinline__ __half2 &operator/=(__half2 &a, const __half2 &b) { return a = __h2div(a, b); }
__host__ __device__ __forceinline__ __half2 operator-(const __half2 &a) { return __hneg2(a); }
__host__ __device__ __forceinline__ bool operator==(const __half2 &a, const __half2 &b) { return __hbeq2(a, b); }
__host__ __device__ __forceinline__ bool operator!=(const __half2 &a, const __half2 &b) { return !__hbeq2(a, b); }
#undef __PTXRT_F

#if defined(__CUDA__)
/* ---- warp shuffles and atomics (device) ---- */
static __device__ __forceinline__ unsigned int __ptxrt_h2_bits(__half2 h) {
    return (unsigned int)h.x.__x | ((unsigned int)h.y.__x << 16);
}
static __device__ __forceinline__ __half2 __ptxrt_bits_h2(unsigned int b) {
    return __half2(__half_raw{(unsigned short)(b & 0xffffu)}, __half_raw{(unsigned short)(b >> 16)});
}
#define __PTXRT_SHFL(NAME, ARG)                                                                           \
    static __device__ __forceinline__ __half NAME(unsigned int __m, __half __v, ARG __a, int __w = 32) {  \
        return __half_raw{(unsigned short)NAME(__m, (int)__v.__x, __a, __w)};                            \
    }                                                                                                     \
    static __device__ __forceinline__ __half2 NAME(unsigned int __m, __half2 __v, ARG __a, int __w = 32) { \
        return __ptxrt_bits_h2((unsigned int)NAME(__m, (int)__ptxrt_h2_bits(__v), __a, __w));             \
    }
__PTXRT_SHFL(__shfl_sync, int)
__PTXRT_SHFL(__shfl_up_sync, unsigned int)
__PTXRT_SHFL(__shfl_down_sync, unsigned int)
__PTXRT_SHFL(__shfl_xor_sync, int)
#undef __PTXRT_SHFL

static __device__ __forceinline__ __half2 atomicAdd(__half2 *__p, __half2 __v) {
    unsigned int *__w = (unsigned int *)__p;
    unsigned int __old = *__w, __assumed;
    do {
        __assumed = __old;
        __old = atomicCAS(__w, __assumed, __ptxrt_h2_bits(__hadd2(__ptxrt_bits_h2(__assumed), __v)));
    } while (__old != __assumed);
    return __ptxrt_bits_h2(__old);
}
static __device__ __forceinline__ __half atomicAdd(__half *__p, __half __v) {
    unsigned long long __a = (unsigned long long)__p;
    unsigned int *__w = (unsigned int *)(__a & ~3ull);
    unsigned int __shift = (__a & 2ull) ? 16u : 0u;
    unsigned int __old = *__w, __assumed;
    do {
        __assumed = __old;
        __half __cur = __half_raw{(unsigned short)(__assumed >> __shift)};
        unsigned int __sum = __hadd(__cur, __v).__x;
        __old = atomicCAS(__w, __assumed, (__assumed & ~(0xffffu << __shift)) | (__sum << __shift));
    } while (__old != __assumed);
    return __half_raw{(unsigned short)(__old >> __shift)};
}
static __device__ __forceinline__ __half __ldg(const __half *__p) { return *__p; }
static __device__ __forceinline__ __half2 __ldg(const __half2 *__p) { return *__p; }
#endif

#undef __PTXRT_HD
#endif /* __cplusplus */
#endif
