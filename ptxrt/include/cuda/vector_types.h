/* vector_types.h (ptxrt): CUDA's built-in vector types and dim3, written for ptx2llvm from
 * the CUDA programming guide (alignments as documented there); not NVIDIA's header. */
#ifndef PTXRT_CUDA_VECTOR_TYPES_H
#define PTXRT_CUDA_VECTOR_TYPES_H

#include "host_defines.h"

typedef struct __attribute__((aligned(1))) char1 { char x; } char1;
typedef struct __attribute__((aligned(2))) char2 { char x, y; } char2;
typedef struct char3 { char x, y, z; } char3;
typedef struct __attribute__((aligned(4))) char4 { char x, y, z, w; } char4;
typedef struct __attribute__((aligned(1))) uchar1 { unsigned char x; } uchar1;
typedef struct __attribute__((aligned(2))) uchar2 { unsigned char x, y; } uchar2;
typedef struct uchar3 { unsigned char x, y, z; } uchar3;
typedef struct __attribute__((aligned(4))) uchar4 { unsigned char x, y, z, w; } uchar4;
typedef struct __attribute__((aligned(2))) short1 { short x; } short1;
typedef struct __attribute__((aligned(4))) short2 { short x, y; } short2;
typedef struct short3 { short x, y, z; } short3;
typedef struct __attribute__((aligned(8))) short4 { short x, y, z, w; } short4;
typedef struct __attribute__((aligned(2))) ushort1 { unsigned short x; } ushort1;
typedef struct __attribute__((aligned(4))) ushort2 { unsigned short x, y; } ushort2;
typedef struct ushort3 { unsigned short x, y, z; } ushort3;
typedef struct __attribute__((aligned(8))) ushort4 { unsigned short x, y, z, w; } ushort4;
typedef struct __attribute__((aligned(4))) int1 { int x; } int1;
typedef struct __attribute__((aligned(8))) int2 { int x, y; } int2;
typedef struct int3 { int x, y, z; } int3;
typedef struct __attribute__((aligned(16))) int4 { int x, y, z, w; } int4;
typedef struct __attribute__((aligned(4))) uint1 { unsigned int x; } uint1;
typedef struct __attribute__((aligned(8))) uint2 { unsigned int x, y; } uint2;
typedef struct uint3 { unsigned int x, y, z; } uint3;
typedef struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; } uint4;
typedef struct __attribute__((aligned(8))) long1 { long x; } long1;
typedef struct __attribute__((aligned(16))) long2 { long x, y; } long2;
typedef struct long3 { long x, y, z; } long3;
typedef struct __attribute__((aligned(16))) long4 { long x, y, z, w; } long4;
typedef struct __attribute__((aligned(8))) ulong1 { unsigned long x; } ulong1;
typedef struct __attribute__((aligned(16))) ulong2 { unsigned long x, y; } ulong2;
typedef struct ulong3 { unsigned long x, y, z; } ulong3;
typedef struct __attribute__((aligned(16))) ulong4 { unsigned long x, y, z, w; } ulong4;
typedef struct __attribute__((aligned(8))) longlong1 { long long x; } longlong1;
typedef struct __attribute__((aligned(16))) longlong2 { long long x, y; } longlong2;
typedef struct longlong3 { long long x, y, z; } longlong3;
typedef struct __attribute__((aligned(16))) longlong4 { long long x, y, z, w; } longlong4;
typedef struct __attribute__((aligned(8))) ulonglong1 { unsigned long long x; } ulonglong1;
typedef struct __attribute__((aligned(16))) ulonglong2 { unsigned long long x, y; } ulonglong2;
typedef struct ulonglong3 { unsigned long long x, y, z; } ulonglong3;
typedef struct __attribute__((aligned(16))) ulonglong4 { unsigned long long x, y, z, w; } ulonglong4;
typedef struct __attribute__((aligned(4))) float1 { float x; } float1;
typedef struct __attribute__((aligned(8))) float2 { float x, y; } float2;
typedef struct float3 { float x, y, z; } float3;
typedef struct __attribute__((aligned(16))) float4 { float x, y, z, w; } float4;
typedef struct __attribute__((aligned(8))) double1 { double x; } double1;
typedef struct __attribute__((aligned(16))) double2 { double x, y; } double2;
typedef struct double3 { double x, y, z; } double3;
typedef struct __attribute__((aligned(16))) double4 { double x, y, z, w; } double4;

typedef struct dim3 {
    unsigned int x, y, z;
#if defined(__cplusplus)
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
} dim3;

#endif
