/* ptxrt_libdevice.h (ptxrt): definitions of the libdevice functions (__nv_*) that clang's
 * CUDA headers call, for builds without NVIDIA's libdevice.10.bc. Written for ptx2llvm from
 * the libdevice user's guide (what each function computes); the implementations are ours.
 *
 * The single-precision transcendental functions are computed in double precision and
 * rounded (errors of about 1 ulp, within CUDA's documented bounds for most of them);
 * the double ones use range reduction and series (a few ulps). Functions this file does
 * not define (the Bessel functions, erfinv, lgamma, ...) stay external: a program that
 * uses them fails to link, naming the __nv_ function; build with libdevice for those
 * (ptx2llvm-cc finds it through PTX2LLVM_LIBDEVICE or a CUDA installation). */
#ifndef PTXRT_LIBDEVICE_H
#define PTXRT_LIBDEVICE_H

#define __PTXRT_NV extern "C" __device__ __inline__ __attribute__((always_inline))

/* ---- bits ---- */
__PTXRT_NV int __nv_float_as_int(float __x) { return __builtin_bit_cast(int, __x); }
__PTXRT_NV unsigned int __nv_float_as_uint(float __x) { return __builtin_bit_cast(unsigned int, __x); }
__PTXRT_NV float __nv_int_as_float(int __x) { return __builtin_bit_cast(float, __x); }
__PTXRT_NV float __nv_uint_as_float(unsigned int __x) { return __builtin_bit_cast(float, __x); }
__PTXRT_NV unsigned long long __nv_double_as_longlong(double __x) { return __builtin_bit_cast(long long, __x); }
__PTXRT_NV double __nv_longlong_as_double(long long __x) { return __builtin_bit_cast(double, __x); }
__PTXRT_NV int __nv_double2hiint(double __x) { return (int)(__builtin_bit_cast(unsigned long long, __x) >> 32); }
__PTXRT_NV int __nv_double2loint(double __x) { return (int)__builtin_bit_cast(unsigned long long, __x); }
__PTXRT_NV double __nv_hiloint2double(int __hi, int __lo) {
    return __builtin_bit_cast(double, ((unsigned long long)(unsigned int)__hi << 32) | (unsigned int)__lo);
}

/* ---- integers ---- */
__PTXRT_NV int __nv_abs(int __a) { return __a < 0 ? -__a : __a; }
__PTXRT_NV long long __nv_llabs(long long __a) { return __a < 0 ? -__a : __a; }
__PTXRT_NV int __nv_min(int __a, int __b) { return __a < __b ? __a : __b; }
__PTXRT_NV int __nv_max(int __a, int __b) { return __a > __b ? __a : __b; }
__PTXRT_NV unsigned int __nv_umin(unsigned int __a, unsigned int __b) { return __a < __b ? __a : __b; }
__PTXRT_NV unsigned int __nv_umax(unsigned int __a, unsigned int __b) { return __a > __b ? __a : __b; }
__PTXRT_NV long long __nv_llmin(long long __a, long long __b) { return __a < __b ? __a : __b; }
__PTXRT_NV long long __nv_llmax(long long __a, long long __b) { return __a > __b ? __a : __b; }
__PTXRT_NV unsigned long long __nv_ullmin(unsigned long long __a, unsigned long long __b) { return __a < __b ? __a : __b; }
__PTXRT_NV unsigned long long __nv_ullmax(unsigned long long __a, unsigned long long __b) { return __a > __b ? __a : __b; }
__PTXRT_NV int __nv_popc(unsigned int __a) { return __builtin_popcount(__a); }
__PTXRT_NV int __nv_popcll(unsigned long long __a) { return __builtin_popcountll(__a); }
__PTXRT_NV int __nv_clz(int __a) { return __a == 0 ? 32 : __builtin_clz((unsigned int)__a); }
__PTXRT_NV int __nv_clzll(long long __a) { return __a == 0 ? 64 : __builtin_clzll((unsigned long long)__a); }
__PTXRT_NV int __nv_ffs(int __a) { return __builtin_ffs(__a); }
__PTXRT_NV int __nv_ffsll(long long __a) { return __builtin_ffsll(__a); }
__PTXRT_NV int __nv_brev(int __a) { return (int)__builtin_bitreverse32((unsigned int)__a); }
__PTXRT_NV long long __nv_brevll(long long __a) { return (long long)__builtin_bitreverse64((unsigned long long)__a); }
__PTXRT_NV int __nv_mul24(int __a, int __b) { return ((__a << 8) >> 8) * ((__b << 8) >> 8); }
__PTXRT_NV unsigned int __nv_umul24(unsigned int __a, unsigned int __b) { return (__a & 0xffffff) * (__b & 0xffffff); }
__PTXRT_NV int __nv_mulhi(int __a, int __b) { return (int)(((long long)__a * __b) >> 32); }
__PTXRT_NV unsigned int __nv_umulhi(unsigned int __a, unsigned int __b) { return (unsigned int)(((unsigned long long)__a * __b) >> 32); }
__PTXRT_NV long long __nv_mul64hi(long long __a, long long __b) { return (long long)(((__int128)__a * __b) >> 64); }
__PTXRT_NV unsigned long long __nv_umul64hi(unsigned long long __a, unsigned long long __b) {
    return (unsigned long long)(((unsigned __int128)__a * __b) >> 64);
}
__PTXRT_NV int __nv_hadd(int __a, int __b) { return (int)(((long long)__a + __b) >> 1); }
__PTXRT_NV int __nv_rhadd(int __a, int __b) { return (int)(((long long)__a + __b + 1) >> 1); }
__PTXRT_NV int __nv_uhadd(unsigned int __a, unsigned int __b) { return (unsigned int)(((unsigned long long)__a + __b) >> 1); }
__PTXRT_NV unsigned int __nv_urhadd(unsigned int __a, unsigned int __b) { return (unsigned int)(((unsigned long long)__a + __b + 1) >> 1); }
__PTXRT_NV int __nv_sad(int __a, int __b, int __c) { return (int)((unsigned int)__c + (unsigned int)(__a > __b ? __a - __b : __b - __a)); }
__PTXRT_NV unsigned int __nv_usad(unsigned int __a, unsigned int __b, unsigned int __c) { return __c + (__a > __b ? __a - __b : __b - __a); }
__PTXRT_NV int __nv_byte_perm(int __ia, int __ib, int __is) {
    unsigned int __a = (unsigned int)__ia, __b = (unsigned int)__ib, __s = (unsigned int)__is;
    unsigned long long __v = ((unsigned long long)__b << 32) | __a;
    unsigned int __r = 0;
    for (int __i = 0; __i < 4; ++__i) {
        unsigned int __sel = (__s >> (4 * __i)) & 7;
        __r |= (unsigned int)((__v >> (8 * __sel)) & 0xff) << (8 * __i);
    }
    return (int)__r;
}

/* ---- exact float operations ---- */
__PTXRT_NV float __nv_fabsf(float __x) { return __builtin_fabsf(__x); }
__PTXRT_NV double __nv_fabs(double __x) { return __builtin_fabs(__x); }
__PTXRT_NV float __nv_floorf(float __x) { return __builtin_floorf(__x); }
__PTXRT_NV double __nv_floor(double __x) { return __builtin_floor(__x); }
__PTXRT_NV float __nv_ceilf(float __x) { return __builtin_ceilf(__x); }
__PTXRT_NV double __nv_ceil(double __x) { return __builtin_ceil(__x); }
__PTXRT_NV float __nv_truncf(float __x) { return __builtin_truncf(__x); }
__PTXRT_NV double __nv_trunc(double __x) { return __builtin_trunc(__x); }
__PTXRT_NV float __nv_rintf(float __x) { return __builtin_rintf(__x); }
__PTXRT_NV double __nv_rint(double __x) { return __builtin_rint(__x); }
__PTXRT_NV float __nv_nearbyintf(float __x) { return __builtin_rintf(__x); }
__PTXRT_NV double __nv_nearbyint(double __x) { return __builtin_rint(__x); }
__PTXRT_NV double __nv_round(double __x) {
    double __a = __builtin_fabs(__x), __t = __builtin_trunc(__a);
    return __builtin_copysign(__a - __t >= 0.5 ? __t + 1.0 : __t, __x);
}
__PTXRT_NV float __nv_roundf(float __x) { return (float)__nv_round((double)__x); }
__PTXRT_NV long long __nv_llrintf(float __x) { return (long long)__builtin_rintf(__x); }
__PTXRT_NV long long __nv_llrint(double __x) { return (long long)__builtin_rint(__x); }
__PTXRT_NV long long __nv_llroundf(float __x) { return (long long)__nv_round((double)__x); }
__PTXRT_NV long long __nv_llround(double __x) { return (long long)__nv_round(__x); }
__PTXRT_NV float __nv_fminf(float __a, float __b) { return __builtin_fminf(__a, __b); }
__PTXRT_NV float __nv_fmaxf(float __a, float __b) { return __builtin_fmaxf(__a, __b); }
__PTXRT_NV double __nv_fmin(double __a, double __b) { return __builtin_fmin(__a, __b); }
__PTXRT_NV double __nv_fmax(double __a, double __b) { return __builtin_fmax(__a, __b); }
__PTXRT_NV float __nv_fmaf(float __a, float __b, float __c) { return __builtin_fmaf(__a, __b, __c); }
__PTXRT_NV double __nv_fma(double __a, double __b, double __c) { return __builtin_fma(__a, __b, __c); }
__PTXRT_NV float __nv_copysignf(float __a, float __b) { return __builtin_copysignf(__a, __b); }
__PTXRT_NV double __nv_copysign(double __a, double __b) { return __builtin_copysign(__a, __b); }
__PTXRT_NV float __nv_fdimf(float __a, float __b) { return __a > __b ? __a - __b : (__a != __a || __b != __b ? __a + __b : 0.0f); }
__PTXRT_NV double __nv_fdim(double __a, double __b) { return __a > __b ? __a - __b : (__a != __a || __b != __b ? __a + __b : 0.0); }
__PTXRT_NV float __nv_fmodf(float __a, float __b) { return __builtin_fmodf(__a, __b); }
__PTXRT_NV double __nv_fmod(double __a, double __b) { return __builtin_fmod(__a, __b); }
__PTXRT_NV float __nv_sqrtf(float __x) { return __nvvm_sqrt_rn_f(__x); }
__PTXRT_NV double __nv_sqrt(double __x) { return __nvvm_sqrt_rn_d(__x); }
/* As libdevice: PTX rsqrt.approx.f32 (ptxrt evaluates it to within rounding). */
__PTXRT_NV float __nv_rsqrtf(float __x) { return __nvvm_rsqrt_approx_f(__x); }
__PTXRT_NV double __nv_rsqrt(double __x) { return 1.0 / __nvvm_sqrt_rn_d(__x); }
__PTXRT_NV float __nv_frcp_rn(float __x) { return __nvvm_rcp_rn_f(__x); }
__PTXRT_NV float __nv_frcp_rz(float __x) { return __nvvm_rcp_rz_f(__x); }
__PTXRT_NV float __nv_frcp_ru(float __x) { return __nvvm_rcp_rp_f(__x); }
__PTXRT_NV float __nv_frcp_rd(float __x) { return __nvvm_rcp_rm_f(__x); }
__PTXRT_NV float __nv_fsqrt_rn(float __x) { return __nvvm_sqrt_rn_f(__x); }
__PTXRT_NV float __nv_fsqrt_rz(float __x) { return __nvvm_sqrt_rz_f(__x); }
__PTXRT_NV float __nv_fsqrt_ru(float __x) { return __nvvm_sqrt_rp_f(__x); }
__PTXRT_NV float __nv_fsqrt_rd(float __x) { return __nvvm_sqrt_rm_f(__x); }
__PTXRT_NV double __nv_dsqrt_rn(double __x) { return __nvvm_sqrt_rn_d(__x); }
__PTXRT_NV double __nv_drcp_rn(double __x) { return __nvvm_rcp_rn_d(__x); }
#define __PTXRT_ROUNDED(OP, SFX, F, D)                                                                    \
    __PTXRT_NV float __nv_f##OP##_##SFX(float __a, float __b) { return __nvvm_##F##_f(__a, __b); }         \
    __PTXRT_NV double __nv_d##OP##_##SFX(double __a, double __b) { return __nvvm_##D##_d(__a, __b); }
__PTXRT_ROUNDED(add, rn, add_rn, add_rn)
__PTXRT_ROUNDED(add, rz, add_rz, add_rz)
__PTXRT_ROUNDED(add, ru, add_rp, add_rp)
__PTXRT_ROUNDED(add, rd, add_rm, add_rm)
__PTXRT_ROUNDED(mul, rn, mul_rn, mul_rn)
__PTXRT_ROUNDED(mul, rz, mul_rz, mul_rz)
__PTXRT_ROUNDED(mul, ru, mul_rp, mul_rp)
__PTXRT_ROUNDED(mul, rd, mul_rm, mul_rm)
__PTXRT_ROUNDED(div, rn, div_rn, div_rn)
__PTXRT_ROUNDED(div, rz, div_rz, div_rz)
__PTXRT_ROUNDED(div, ru, div_rp, div_rp)
__PTXRT_ROUNDED(div, rd, div_rm, div_rm)
#undef __PTXRT_ROUNDED
__PTXRT_NV float __nv_fsub_rn(float __a, float __b) { return __nvvm_add_rn_f(__a, -__b); }
__PTXRT_NV float __nv_fsub_rz(float __a, float __b) { return __nvvm_add_rz_f(__a, -__b); }
__PTXRT_NV float __nv_fsub_ru(float __a, float __b) { return __nvvm_add_rp_f(__a, -__b); }
__PTXRT_NV float __nv_fsub_rd(float __a, float __b) { return __nvvm_add_rm_f(__a, -__b); }
__PTXRT_NV double __nv_dsub_rn(double __a, double __b) { return __nvvm_add_rn_d(__a, -__b); }
__PTXRT_NV float __nv_fmaf_rn(float __a, float __b, float __c) { return __nvvm_fma_rn_f(__a, __b, __c); }
__PTXRT_NV float __nv_fmaf_rz(float __a, float __b, float __c) { return __nvvm_fma_rz_f(__a, __b, __c); }
__PTXRT_NV float __nv_fmaf_ru(float __a, float __b, float __c) { return __nvvm_fma_rp_f(__a, __b, __c); }
__PTXRT_NV float __nv_fmaf_rd(float __a, float __b, float __c) { return __nvvm_fma_rm_f(__a, __b, __c); }
__PTXRT_NV double __nv_fma_rn(double __a, double __b, double __c) { return __nvvm_fma_rn_d(__a, __b, __c); }
__PTXRT_NV float __nv_saturatef(float __x) { return __nvvm_saturate_f(__x); }
__PTXRT_NV float __nv_fast_fdividef(float __a, float __b) { return __nvvm_div_approx_f(__a, __b); }
__PTXRT_NV int __nv_isnanf(float __x) { return __x != __x; }
__PTXRT_NV int __nv_isnand(double __x) { return __x != __x; }
__PTXRT_NV int __nv_isinff(float __x) { return __builtin_fabsf(__x) == __builtin_inff(); }
__PTXRT_NV int __nv_isinfd(double __x) { return __builtin_fabs(__x) == __builtin_inf(); }
__PTXRT_NV int __nv_finitef(float __x) { return __builtin_fabsf(__x) < __builtin_inff(); }
__PTXRT_NV int __nv_isfinited(double __x) { return __builtin_fabs(__x) < __builtin_inf(); }
__PTXRT_NV int __nv_signbitf(float __x) { return (int)(__builtin_bit_cast(unsigned int, __x) >> 31); }
__PTXRT_NV int __nv_signbitd(double __x) { return (int)(__builtin_bit_cast(unsigned long long, __x) >> 63); }
__PTXRT_NV float __nv_ldexpf(float __x, int __e) { return __builtin_ldexpf(__x, __e); }
__PTXRT_NV double __nv_ldexp(double __x, int __e) { return __builtin_ldexp(__x, __e); }
__PTXRT_NV float __nv_scalbnf(float __x, int __e) { return __builtin_ldexpf(__x, __e); }
__PTXRT_NV double __nv_scalbn(double __x, int __e) { return __builtin_ldexp(__x, __e); }

/* ---- conversions ---- */
#define __PTXRT_CVT(NAME, R, A, B) __PTXRT_NV R __nv_##NAME(A __x) { return B(__x); }
__PTXRT_CVT(float2int_rn, int, float, __nvvm_f2i_rn)
__PTXRT_CVT(float2int_rz, int, float, __nvvm_f2i_rz)
__PTXRT_CVT(float2int_ru, int, float, __nvvm_f2i_rp)
__PTXRT_CVT(float2int_rd, int, float, __nvvm_f2i_rm)
__PTXRT_CVT(float2uint_rn, unsigned int, float, __nvvm_f2ui_rn)
__PTXRT_CVT(float2uint_rz, unsigned int, float, __nvvm_f2ui_rz)
__PTXRT_CVT(float2uint_ru, unsigned int, float, __nvvm_f2ui_rp)
__PTXRT_CVT(float2uint_rd, unsigned int, float, __nvvm_f2ui_rm)
__PTXRT_CVT(int2float_rn, float, int, __nvvm_i2f_rn)
__PTXRT_CVT(int2float_rz, float, int, __nvvm_i2f_rz)
__PTXRT_CVT(int2float_ru, float, int, __nvvm_i2f_rp)
__PTXRT_CVT(int2float_rd, float, int, __nvvm_i2f_rm)
__PTXRT_CVT(uint2float_rn, float, unsigned int, __nvvm_ui2f_rn)
__PTXRT_CVT(uint2float_rz, float, unsigned int, __nvvm_ui2f_rz)
__PTXRT_CVT(uint2float_ru, float, unsigned int, __nvvm_ui2f_rp)
__PTXRT_CVT(uint2float_rd, float, unsigned int, __nvvm_ui2f_rm)
__PTXRT_CVT(float2ll_rn, long long, float, __nvvm_f2ll_rn)
__PTXRT_CVT(float2ll_rz, long long, float, __nvvm_f2ll_rz)
__PTXRT_CVT(float2ull_rn, unsigned long long, float, __nvvm_f2ull_rn)
__PTXRT_CVT(float2ull_rz, unsigned long long, float, __nvvm_f2ull_rz)
__PTXRT_CVT(ll2float_rn, float, long long, __nvvm_ll2f_rn)
__PTXRT_CVT(ull2float_rn, float, unsigned long long, __nvvm_ull2f_rn)
__PTXRT_CVT(double2int_rn, int, double, __nvvm_d2i_rn)
__PTXRT_CVT(double2int_rz, int, double, __nvvm_d2i_rz)
__PTXRT_CVT(double2int_ru, int, double, __nvvm_d2i_rp)
__PTXRT_CVT(double2int_rd, int, double, __nvvm_d2i_rm)
__PTXRT_CVT(double2uint_rn, unsigned int, double, __nvvm_d2ui_rn)
__PTXRT_CVT(double2uint_rz, unsigned int, double, __nvvm_d2ui_rz)
__PTXRT_CVT(double2float_rn, float, double, __nvvm_d2f_rn)
__PTXRT_CVT(double2float_rz, float, double, __nvvm_d2f_rz)
__PTXRT_CVT(double2float_ru, float, double, __nvvm_d2f_rp)
__PTXRT_CVT(double2float_rd, float, double, __nvvm_d2f_rm)
__PTXRT_CVT(double2ll_rn, long long, double, __nvvm_d2ll_rn)
__PTXRT_CVT(double2ll_rz, long long, double, __nvvm_d2ll_rz)
__PTXRT_CVT(double2ull_rn, unsigned long long, double, __nvvm_d2ull_rn)
__PTXRT_CVT(double2ull_rz, unsigned long long, double, __nvvm_d2ull_rz)
__PTXRT_CVT(ll2double_rn, double, long long, __nvvm_ll2d_rn)
__PTXRT_CVT(ull2double_rn, double, unsigned long long, __nvvm_ull2d_rn)
__PTXRT_CVT(int2double_rn, double, int, (double))
__PTXRT_CVT(uint2double_rn, double, unsigned int, (double))
#undef __PTXRT_CVT

/* ---- double-precision transcendental functions ---- */
#define __PTXRT_LN2_HI 6.93147180369123816490e-01
#define __PTXRT_LN2_LO 1.90821492927058770002e-10
#define __PTXRT_PI 3.14159265358979323846

__PTXRT_NV double __nv_exp(double __x) {
    if (__x != __x) return __x;
    if (__x > 709.782712893384) return __builtin_inf();
    if (__x < -745.1332191019412) return 0.0;
    double __n = __builtin_rint(__x * 1.4426950408889634);
    double __r = (__x - __n * __PTXRT_LN2_HI) - __n * __PTXRT_LN2_LO;
    /* e^r for |r| <= ln2/2: Taylor series to r^13 (error < 1e-17). */
    double __p = 1.0 / 6227020800.0;
    __p = __p * __r + 1.0 / 479001600.0;
    __p = __p * __r + 1.0 / 39916800.0;
    __p = __p * __r + 1.0 / 3628800.0;
    __p = __p * __r + 1.0 / 362880.0;
    __p = __p * __r + 1.0 / 40320.0;
    __p = __p * __r + 1.0 / 5040.0;
    __p = __p * __r + 1.0 / 720.0;
    __p = __p * __r + 1.0 / 120.0;
    __p = __p * __r + 1.0 / 24.0;
    __p = __p * __r + 1.0 / 6.0;
    __p = __p * __r + 0.5;
    __p = __p * __r * __r + __r;
    return __builtin_ldexp(1.0 + __p, (int)__n);
}
__PTXRT_NV double __nv_expm1(double __x) {
    if (__builtin_fabs(__x) < 0.5) {
        /* Taylor series: x + x^2/2! + ... + x^17/17! */
        double __t = __x, __s = __x;
        for (int __k = 2; __k <= 17; ++__k) { __t *= __x / __k; __s += __t; }
        return __s;
    }
    return __nv_exp(__x) - 1.0;
}
__PTXRT_NV double __nv_exp2(double __x) { return __nv_exp(__x * 0.6931471805599453); }
__PTXRT_NV double __nv_exp10(double __x) { return __nv_exp(__x * 2.302585092994046); }
__PTXRT_NV double __nv_log(double __x) {
    if (__x != __x || __x < 0.0) return __builtin_nan("");
    if (__x == 0.0) return -__builtin_inf();
    if (__x == __builtin_inf()) return __x;
    int __e = 0;
    double __m = __builtin_frexp(__x, &__e); /* [0.5, 1) */
    if (__m < 0.70710678118654752) { __m *= 2.0; __e -= 1; }
    double __s = (__m - 1.0) / (__m + 1.0), __s2 = __s * __s;
    /* log(m) = 2 (s + s^3/3 + s^5/5 + ...), |s| <= 0.1716 */
    double __p = 1.0 / 25.0;
    for (int __k = 23; __k >= 3; __k -= 2) __p = __p * __s2 + 1.0 / __k;
    __p = __p * __s2;
    double __lm = 2.0 * __s + 2.0 * __s * __p;
    return (__e * __PTXRT_LN2_HI + __lm) + __e * __PTXRT_LN2_LO;
}
__PTXRT_NV double __nv_log2(double __x) { return __nv_log(__x) * 1.4426950408889634; }
__PTXRT_NV double __nv_log10(double __x) { return __nv_log(__x) * 0.4342944819032518; }
__PTXRT_NV double __nv_log1p(double __x) {
    double __u = 1.0 + __x;
    if (__u == 1.0) return __x;
    if (__u == __builtin_inf()) return __u;
    return __nv_log(__u) * __x / (__u - 1.0);
}
__PTXRT_NV double __nv_pow(double __x, double __y) {
    if (__y == 0.0 || __x == 1.0) return 1.0;
    if (__x != __x || __y != __y) return __x + __y;
    double __ax = __builtin_fabs(__x);
    int __odd = 0;
    if (__x < 0.0) {
        if (__builtin_trunc(__y) != __y) return __builtin_nan("");
        __odd = __builtin_fabs(__builtin_fmod(__y, 2.0)) == 1.0;
    }
    if (__ax == 0.0) {
        double __r = __y < 0.0 ? __builtin_inf() : 0.0;
        return __odd ? __builtin_copysign(__r, __x) : __r;
    }
    double __r = __nv_exp(__y * __nv_log(__ax));
    return __odd ? -__r : __r;
}
/* sin/cos of |r| <= pi/4. */
__PTXRT_NV double __ptxrt_sin_poly(double __r) {
    double __r2 = __r * __r, __t = __r, __s = __r;
    for (int __k = 1; __k <= 11; ++__k) { __t *= -__r2 / ((2 * __k) * (2 * __k + 1)); __s += __t; }
    return __s;
}
__PTXRT_NV double __ptxrt_cos_poly(double __r) {
    double __r2 = __r * __r, __t = 1.0, __s = 1.0;
    for (int __k = 1; __k <= 11; ++__k) { __t *= -__r2 / ((2 * __k - 1) * (2 * __k)); __s += __t; }
    return __s;
}
/* x = q * pi/2 + r (Cody-Waite with a three-part pi/2; exact enough for |x| < 2^20). */
__PTXRT_NV double __ptxrt_reduce(double __x, int *__q) {
    double __n = __builtin_rint(__x * 0.6366197723675814);
    *__q = (int)(long long)__n;
    return ((__x - __n * 1.5707963267341256) - __n * 6.077100506506192e-11) - __n * 2.0222662487959506e-21;
}
__PTXRT_NV double __nv_sin(double __x) {
    if (!(__builtin_fabs(__x) < __builtin_inf())) return __builtin_nan("");
    int __q;
    double __r = __ptxrt_reduce(__x, &__q);
    switch (__q & 3) {
    case 0: return __ptxrt_sin_poly(__r);
    case 1: return __ptxrt_cos_poly(__r);
    case 2: return -__ptxrt_sin_poly(__r);
    default: return -__ptxrt_cos_poly(__r);
    }
}
__PTXRT_NV double __nv_cos(double __x) {
    if (!(__builtin_fabs(__x) < __builtin_inf())) return __builtin_nan("");
    int __q;
    double __r = __ptxrt_reduce(__x, &__q);
    switch (__q & 3) {
    case 0: return __ptxrt_cos_poly(__r);
    case 1: return -__ptxrt_sin_poly(__r);
    case 2: return -__ptxrt_cos_poly(__r);
    default: return __ptxrt_sin_poly(__r);
    }
}
__PTXRT_NV void __nv_sincos(double __x, double *__s, double *__c) { *__s = __nv_sin(__x); *__c = __nv_cos(__x); }
__PTXRT_NV double __nv_tan(double __x) { return __nv_sin(__x) / __nv_cos(__x); }
__PTXRT_NV double __nv_sinpi(double __x) { return __nv_sin(__x * __PTXRT_PI); }
__PTXRT_NV double __nv_cospi(double __x) { return __nv_cos(__x * __PTXRT_PI); }
__PTXRT_NV double __nv_atan(double __x) {
    if (__x != __x) return __x;
    double __a = __builtin_fabs(__x), __off = 0.0;
    int __inv = __a > 1.0;
    if (__inv) __a = 1.0 / __a;
    /* two halvings: atan(a) = 2 atan(a / (1 + sqrt(1 + a^2))) */
    __a = __a / (1.0 + __nvvm_sqrt_rn_d(1.0 + __a * __a));
    __a = __a / (1.0 + __nvvm_sqrt_rn_d(1.0 + __a * __a));
    double __a2 = __a * __a, __t = __a, __s = __a;
    for (int __k = 1; __k <= 14; ++__k) { __t *= -__a2; __s += __t / (2 * __k + 1); }
    __s *= 4.0;
    if (__inv) __s = __PTXRT_PI / 2 - __s;
    (void)__off;
    return __builtin_copysign(__s, __x);
}
__PTXRT_NV double __nv_atan2(double __y, double __x) {
    if (__x != __x || __y != __y) return __x + __y;
    if (__x == 0.0 && __y == 0.0) return __builtin_signbit(__x) ? __builtin_copysign(__PTXRT_PI, __y) : __builtin_copysign(0.0, __y);
    if (__builtin_fabs(__x) == __builtin_inf() && __builtin_fabs(__y) == __builtin_inf())
        return __builtin_copysign(__x > 0 ? __PTXRT_PI / 4 : 3 * __PTXRT_PI / 4, __y);
    double __r;
    if (__builtin_fabs(__y) > __builtin_fabs(__x)) __r = __builtin_copysign(__PTXRT_PI / 2, __y) - __nv_atan(__x / __y);
    else {
        __r = __nv_atan(__y / __x);
        if (__x < 0.0) __r += __builtin_copysign(__PTXRT_PI, __y);
    }
    return __r;
}
__PTXRT_NV double __nv_asin(double __x) { return __nv_atan2(__x, __nvvm_sqrt_rn_d((1.0 - __x) * (1.0 + __x))); }
__PTXRT_NV double __nv_acos(double __x) { return __nv_atan2(__nvvm_sqrt_rn_d((1.0 - __x) * (1.0 + __x)), __x); }
__PTXRT_NV double __nv_sinh(double __x) {
    if (__builtin_fabs(__x) < 0.5) { double __e = __nv_expm1(__x); return 0.5 * (__e + __e / (__e + 1.0)); }
    double __e = __nv_exp(__builtin_fabs(__x));
    return __builtin_copysign(0.5 * (__e - 1.0 / __e), __x);
}
__PTXRT_NV double __nv_cosh(double __x) { double __e = __nv_exp(__builtin_fabs(__x)); return 0.5 * (__e + 1.0 / __e); }
__PTXRT_NV double __nv_tanh(double __x) {
    double __a = __builtin_fabs(__x);
    if (__a > 22.0) return __builtin_copysign(1.0, __x);
    double __e = __nv_expm1(2.0 * __a);
    return __builtin_copysign(__e / (__e + 2.0), __x);
}
__PTXRT_NV double __nv_asinh(double __x) { double __a = __builtin_fabs(__x); return __builtin_copysign(__nv_log1p(__a + __a * __a / (1.0 + __nvvm_sqrt_rn_d(1.0 + __a * __a))), __x); }
__PTXRT_NV double __nv_acosh(double __x) { return __nv_log(__x + __nvvm_sqrt_rn_d(__x - 1.0) * __nvvm_sqrt_rn_d(__x + 1.0)); }
__PTXRT_NV double __nv_atanh(double __x) { return 0.5 * __nv_log1p(2.0 * __x / (1.0 - __x)); }
__PTXRT_NV double __nv_cbrt(double __x) {
    if (__x == 0.0 || !(__builtin_fabs(__x) < __builtin_inf())) return __x;
    double __a = __builtin_fabs(__x), __r = __nv_exp(__nv_log(__a) / 3.0);
    __r = __r - (__r * __r * __r - __a) / (3.0 * __r * __r);
    return __builtin_copysign(__r, __x);
}
__PTXRT_NV double __nv_rcbrt(double __x) { return 1.0 / __nv_cbrt(__x); }
__PTXRT_NV double __nv_hypot(double __a, double __b) {
    __a = __builtin_fabs(__a); __b = __builtin_fabs(__b);
    double __m = __a > __b ? __a : __b, __n = __a > __b ? __b : __a;
    if (__m == 0.0 || __m == __builtin_inf()) return __m + __n;
    double __q = __n / __m;
    return __m * __nvvm_sqrt_rn_d(1.0 + __q * __q);
}
/* erf: series for |x| < 2.5, continued fraction for erfc beyond (error ~1e-15). */
__PTXRT_NV double __ptxrt_erfc_cf(double __a) {
    double __f = 0.0;
    for (int __k = 60; __k >= 1; --__k) __f = (__k * 0.5) / (__a + __f);
    return __nv_exp(-__a * __a) / (__a + __f) * 0.5641895835477563;
}
__PTXRT_NV double __nv_erf(double __x) {
    double __a = __builtin_fabs(__x);
    if (__a < 2.5) {
        double __t = __a, __s = __a, __a2 = __a * __a;
        for (int __k = 1; __k < 60; ++__k) { __t *= -__a2 / __k; __s += __t / (2 * __k + 1); }
        return __builtin_copysign(__s * 1.1283791670955126, __x);
    }
    return __builtin_copysign(1.0 - __ptxrt_erfc_cf(__a), __x);
}
__PTXRT_NV double __nv_erfc(double __x) {
    if (__x < 2.5) return 1.0 - __nv_erf(__x);
    return __ptxrt_erfc_cf(__x);
}
__PTXRT_NV double __nv_frexp(double __x, int *__e) { return __builtin_frexp(__x, __e); }
__PTXRT_NV double __nv_modf(double __x, double *__i) { *__i = __builtin_trunc(__x); return __x - *__i; }
__PTXRT_NV int __nv_ilogb(double __x) { int __e; __builtin_frexp(__x, &__e); return __e - 1; }
__PTXRT_NV double __nv_logb(double __x) { return (double)__nv_ilogb(__x); }
__PTXRT_NV double __nv_remainder(double __a, double __b) { return __a - __builtin_rint(__a / __b) * __b; }

/* ---- single precision: the double functions, rounded ---- */
#define __PTXRT_F1(NAME) __PTXRT_NV float __nv_##NAME##f(float __x) { return (float)__nv_##NAME((double)__x); }
__PTXRT_F1(exp) __PTXRT_F1(expm1) __PTXRT_F1(exp2) __PTXRT_F1(exp10) __PTXRT_F1(log) __PTXRT_F1(log2)
__PTXRT_F1(log10) __PTXRT_F1(log1p) __PTXRT_F1(sin) __PTXRT_F1(cos) __PTXRT_F1(tan) __PTXRT_F1(sinpi)
__PTXRT_F1(cospi) __PTXRT_F1(atan) __PTXRT_F1(asin) __PTXRT_F1(acos) __PTXRT_F1(sinh) __PTXRT_F1(cosh)
__PTXRT_F1(tanh) __PTXRT_F1(asinh) __PTXRT_F1(acosh) __PTXRT_F1(atanh) __PTXRT_F1(cbrt) __PTXRT_F1(rcbrt)
__PTXRT_F1(erf) __PTXRT_F1(erfc) __PTXRT_F1(logb)
#undef __PTXRT_F1
__PTXRT_NV float __nv_powf(float __x, float __y) { return (float)__nv_pow((double)__x, (double)__y); }
__PTXRT_NV float __nv_powif(float __x, int __y) { return (float)__nv_pow((double)__x, (double)__y); }
__PTXRT_NV double __nv_powi(double __x, int __y) { return __nv_pow(__x, (double)__y); }
__PTXRT_NV float __nv_atan2f(float __y, float __x) { return (float)__nv_atan2((double)__y, (double)__x); }
__PTXRT_NV float __nv_hypotf(float __a, float __b) { return (float)__nvvm_sqrt_rn_d((double)__a * __a + (double)__b * __b); }
__PTXRT_NV void __nv_sincosf(float __x, float *__s, float *__c) { *__s = __nv_sinf(__x); *__c = __nv_cosf(__x); }
__PTXRT_NV float __nv_frexpf(float __x, int *__e) { return __builtin_frexpf(__x, __e); }
__PTXRT_NV float __nv_modff(float __x, float *__i) { *__i = __builtin_truncf(__x); return __x - *__i; }
__PTXRT_NV int __nv_ilogbf(float __x) { return __nv_ilogb((double)__x); }
__PTXRT_NV float __nv_remainderf(float __a, float __b) { return (float)__nv_remainder(__a, __b); }
__PTXRT_NV float __nv_fast_expf(float __x) { return __nvvm_ex2_approx_f(__x * 1.4426950408889634f); }
__PTXRT_NV float __nv_fast_exp10f(float __x) { return __nvvm_ex2_approx_f(__x * 3.3219280948873622f); }
__PTXRT_NV float __nv_fast_logf(float __x) { return __nvvm_lg2_approx_f(__x) * 0.6931471805599453f; }
__PTXRT_NV float __nv_fast_log2f(float __x) { return __nvvm_lg2_approx_f(__x); }
__PTXRT_NV float __nv_fast_log10f(float __x) { return __nvvm_lg2_approx_f(__x) * 0.3010299956639812f; }
__PTXRT_NV float __nv_fast_sinf(float __x) { return __nvvm_sin_approx_f(__x); }
__PTXRT_NV float __nv_fast_cosf(float __x) { return __nvvm_cos_approx_f(__x); }
__PTXRT_NV void __nv_fast_sincosf(float __x, float *__s, float *__c) { *__s = __nvvm_sin_approx_f(__x); *__c = __nvvm_cos_approx_f(__x); }
__PTXRT_NV float __nv_fast_tanf(float __x) { return __nvvm_sin_approx_f(__x) / __nvvm_cos_approx_f(__x); }
__PTXRT_NV float __nv_fast_powf(float __x, float __y) { return __nvvm_ex2_approx_f(__y * __nvvm_lg2_approx_f(__x)); }

#undef __PTXRT_NV
#endif
