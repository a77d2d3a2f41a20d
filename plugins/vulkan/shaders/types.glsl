// The element type of a shader compiled with -DDTYPE_<X>: its storage (LOAD,
// STORE, compute type C) and how a scalar pushed as 64 bits reads (SCALAR).
// Half and bfloat16 compute in float; integers narrower than 32 bits compute
// in int and wrap when stored; bool computes as int 0/1.
#if defined(DTYPE_F32)
#define C float
#define LOAD(a, i) BufF32(a).v[i]
#define STORE(a, i, x) BufF32(a).v[i] = (x)
#define SCALAR(b) uintBitsToFloat(uint(b))
#define IS_FLOAT 1
#elif defined(DTYPE_F16)
#define C float
#define LOAD(a, i) float(BufF16(a).v[i])
#define STORE(a, i, x) BufF16(a).v[i] = float16_t(x)
#define SCALAR(b) uintBitsToFloat(uint(b))
#define IS_FLOAT 1
#elif defined(DTYPE_BF16)
#define C float
#define LOAD(a, i) bf16_to_f32(BufU16(a).v[i])
#define STORE(a, i, x) BufU16(a).v[i] = f32_to_bf16(x)
#define SCALAR(b) uintBitsToFloat(uint(b))
#define IS_FLOAT 1
#elif defined(DTYPE_F64)
#define C double
#define LOAD(a, i) BufF64(a).v[i]
#define STORE(a, i, x) BufF64(a).v[i] = (x)
#define SCALAR(b) uint64BitsToDouble(b)
#define IS_FLOAT 1
#define IS_F64 1
#elif defined(DTYPE_I64)
#define C int64_t
#define LOAD(a, i) BufI64(a).v[i]
#define STORE(a, i, x) BufI64(a).v[i] = (x)
#define SCALAR(b) int64_t(b)
#define IS_SIGNED 1
#elif defined(DTYPE_I32)
#define C int
#define LOAD(a, i) BufI32(a).v[i]
#define STORE(a, i, x) BufI32(a).v[i] = (x)
#define SCALAR(b) int(b)
#define IS_SIGNED 1
#elif defined(DTYPE_I16)
#define C int
#define LOAD(a, i) int(BufI16(a).v[i])
#define STORE(a, i, x) BufI16(a).v[i] = int16_t(x)
#define SCALAR(b) int(b)
#define IS_SIGNED 1
#elif defined(DTYPE_I8)
#define C int
#define LOAD(a, i) int(BufI8(a).v[i])
#define STORE(a, i, x) BufI8(a).v[i] = int8_t(x)
#define SCALAR(b) int(b)
#define IS_SIGNED 1
#elif defined(DTYPE_U8)
#define C int
#define LOAD(a, i) int(BufU8(a).v[i])
#define STORE(a, i, x) BufU8(a).v[i] = uint8_t(x)
#define SCALAR(b) int(b)
#elif defined(DTYPE_BOOL)
#define C int
#define LOAD(a, i) int(BufU8(a).v[i])
#define STORE(a, i, x) BufU8(a).v[i] = uint8_t((x) != 0 ? 1 : 0)
#define SCALAR(b) int(b)
#define IS_BOOL 1
#else
#error "compile with -DDTYPE_<F32|F16|BF16|F64|I64|I32|I16|I8|U8|BOOL>"
#endif

#ifndef IS_FLOAT
#define IS_FLOAT 0
#endif
