/* Prelude for the shared kernel sources when compiled by NVRTC (see prelude_opencl.h: the same
 * names, mapped to CUDA). Launch geometry follows OpenCL's: global size = grid * block. */

#define KERNEL extern "C" __global__
#define GLOBAL
#define LOCAL __shared__
#define LOCAL_PTR
#define DEVICE_FN static __device__ __forceinline__
#define BARRIER() __syncthreads()

typedef signed char i8;
typedef unsigned char u8;
typedef short i16;
typedef unsigned short u16;
typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
typedef unsigned long long uptr;
typedef unsigned char uchar;

DEVICE_FN i64 locus_pick(int d, unsigned x, unsigned y, unsigned z) { return d == 0 ? x : (d == 1 ? y : z); }
#define LID(d) ((i64)locus_pick((d), threadIdx.x, threadIdx.y, threadIdx.z))
#define GROUP_ID(d) ((i64)locus_pick((d), blockIdx.x, blockIdx.y, blockIdx.z))
#define LSIZE(d) ((i64)locus_pick((d), blockDim.x, blockDim.y, blockDim.z))
#define GID(d) (GROUP_ID(d) * LSIZE(d) + LID(d))
#define GSIZE(d) ((i64)locus_pick((d), gridDim.x, gridDim.y, gridDim.z) * LSIZE(d))

/* binary16 <-> float with the hardware conversions, written as PTX so that no header is
 * needed: NVRTC has no built-in cuda_fp16.h, and users' machines may lack the toolkit's. */
DEVICE_FN float locus_h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
DEVICE_FN unsigned short locus_f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
#define LOAD_HALF(p, i) locus_h2f((p)[i])
#define STORE_HALF(p, i, v) ((p)[i] = locus_f2h(v))
#define AS_FLOAT(u) __uint_as_float(u)
#define AS_UINT(f) __float_as_uint(f)
#define AS_DOUBLE(u) __longlong_as_double((long long)(u))
#define AS_U64(d) ((u64)__double_as_longlong(d))

#define ATOMIC_CAS32(p, cmp, val) atomicCAS((unsigned int*)(p), (cmp), (val))
#define ATOMIC_CAS64(p, cmp, val) atomicCAS((unsigned long long*)(p), (cmp), (val))
