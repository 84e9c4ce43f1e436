/* Prelude for the shared kernel sources when compiled by an OpenCL driver (docs/adding-a-backend.md).
 * The kernels are written in an OpenCL-C subset that uses only the macros and typedefs below;
 * prelude_cuda.h defines the same names for NVRTC. Nothing else OpenCL-specific may appear in
 * a kernel file. Build options pick the dtype (-DDT_F32, ...) and capabilities (-DHAS_FP64,
 * -DHAS_INT64_ATOMICS). */
#pragma OPENCL FP_CONTRACT OFF
#ifdef HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef HAS_INT64_ATOMICS
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#define KERNEL __kernel
#define GLOBAL __global
#define LOCAL __local
#define LOCAL_PTR __local /* the address space of a pointer to LOCAL memory (a helper's parameter) */
#define DEVICE_FN static inline
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define GID(d) ((i64)get_global_id(d))
#define LID(d) ((i64)get_local_id(d))
#define GROUP_ID(d) ((i64)get_group_id(d))
#define LSIZE(d) ((i64)get_local_size(d))
#define GSIZE(d) ((i64)get_global_size(d))

typedef char i8;
typedef uchar u8;
typedef short i16;
typedef ushort u16;
typedef int i32;
typedef uint u32;
typedef long i64;
typedef ulong u64;
typedef size_t uptr;

/* half storage is u16; arithmetic happens in float */
#define LOAD_HALF(p, i) vload_half((i), (const GLOBAL half*)(p))
#define STORE_HALF(p, i, v) vstore_half_rte((v), (i), (GLOBAL half*)(p))
#define AS_FLOAT(u) as_float(u)
#define AS_UINT(f) as_uint(f)
#define AS_DOUBLE(u) as_double(u)
#define AS_U64(d) as_ulong(d)

/* compare-and-swap on 32- and 64-bit words; return the old value */
#define ATOMIC_CAS32(p, cmp, val) atomic_cmpxchg((volatile GLOBAL u32*)(p), (cmp), (val))
#define ATOMIC_CAS64(p, cmp, val) atom_cmpxchg((volatile GLOBAL u64*)(p), (cmp), (val))
