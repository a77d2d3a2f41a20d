/*
 * plexus/plugin.h: the plexus plugin ABI, version 1.2 (1.1 added graphs,
 * 1.2 the kernel status PLEXUS_KERNEL_DECLINED).
 *
 * This header is the whole contract between the plexus host (libplexus) and a
 * backend plugin (libplexus-<name>.so). A plugin includes this header and
 * nothing else from plexus; it never links libplexus. Everything it needs
 * from the host arrives through the plexus_host_api table handed to its
 * init function.
 *
 * Plain C99; compiles as C and as C++ without warnings.
 *
 * VERSIONING
 *   PLEXUS_ABI_MAJOR changes only when something is removed or changed
 *   incompatibly; the host refuses a plugin of another major. Within a major,
 *   the host accepts any plugin whose minor is <= its own: a plugin built for
 *   1.N keeps loading into every host 1.M with M >= N. An older host refuses a
 *   newer plugin with a message naming both versions.
 *   Within a major, structs only grow at the end and never change a released
 *   field. Tables and call structs start with `struct_size`, set by whoever
 *   fills the struct to sizeof() as they know it, so the reader knows which
 *   fields exist. The element types that travel in arrays (plexus_tensor,
 *   plexus_scalar, plexus_value) have frozen layouts instead: an array's
 *   stride must be known to both sides, so they never grow; a later minor adds
 *   new types rather than fields. The size checks at the end of this file pin
 *   every released layout (LP64).
 *
 * OWNERSHIP AND LIFETIME (the default, unless a function says otherwise)
 *   - Pointers the host passes to a plugin function are valid during that
 *     call only. Copy what you need to keep.
 *   - Strings and tables a plugin passes to a host function are copied by the
 *     host before it returns, except the plexus_backend table and the function
 *     and user_data pointers in it and in register_kernel, which must stay
 *     valid until the plugin's shutdown returns.
 *   - Device memory returned by a backend's allocate belongs to the host until
 *     it calls deallocate with the same pointer and size.
 *
 * THREADING
 *   The host may call any kernel and any backend function from several
 *   threads at once, except where a function says otherwise. init and
 *   shutdown are called once, from one thread, with no other call in flight.
 *   Host functions are thread-safe unless they say otherwise.
 *
 * ERRORS
 *   Functions return a plexus_status. Before returning an error a plugin may
 *   call host->set_error_message(host_ctx, "...") to say what went wrong; the
 *   host attaches the message to the status it received next on that thread.
 *   No C++ exception may cross this boundary (the C++ helpers in
 *   plexus/plugin.hpp catch them for you). A plugin never prints to stdout;
 *   use host->log.
 *
 * ADDRESSES
 *   Device memory is addressed as (pointer from allocate, byte offset): the
 *   host never does arithmetic on, or dereferences, a device pointer. On the
 *   cpu backend, pointers are host pointers.
 */
#ifndef PLEXUS_PLUGIN_H_
#define PLEXUS_PLUGIN_H_

#include <stddef.h>
#include <stdint.h>

#define PLEXUS_ABI_MAJOR 1
#define PLEXUS_ABI_MINOR 2

#if defined(__GNUC__) || defined(__clang__)
#define PLEXUS_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define PLEXUS_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
#define PLEXUS_EXTERN_C extern "C"
extern "C" {
#else
#define PLEXUS_EXTERN_C
#endif

/* ---- Status codes ------------------------------------------------------ */

typedef int32_t plexus_status;
enum {
  PLEXUS_OK = 0,
  PLEXUS_ERROR_INVALID_ARGUMENT = 1, /* the caller passed something wrong */
  PLEXUS_ERROR_OUT_OF_MEMORY = 2,    /* an allocation failed */
  PLEXUS_ERROR_UNSUPPORTED = 3,      /* no such kernel, dtype or feature */
  PLEXUS_ERROR_NOT_FOUND = 4,        /* unknown op, device or name */
  PLEXUS_ERROR_DEVICE = 5,           /* the device or its driver failed */
  PLEXUS_ERROR_VERSION_MISMATCH = 6, /* ABI or format version not accepted */
  PLEXUS_ERROR_INTERNAL = 7,         /* a bug */
  PLEXUS_ERROR_IO = 8,               /* reading or writing a file failed */
  /* ABI 1.2, from kernels only: not an error. The kernel does not take this
   * call (a dtype combination, layout or size it has no code for) and has
   * written nothing; the host goes on as if it were not registered: the
   * op's composite, then the fallback policy. A message set before returning
   * it says why, in the host's fallback warning and errors. */
  PLEXUS_KERNEL_DECLINED = 9
};

/* ---- Element types ----------------------------------------------------- */

typedef int32_t plexus_dtype;
enum {
  PLEXUS_DTYPE_BOOL = 0, /* 1 byte, 0 or 1 */
  PLEXUS_DTYPE_U8 = 1,
  PLEXUS_DTYPE_I8 = 2,
  PLEXUS_DTYPE_I16 = 3,
  PLEXUS_DTYPE_I32 = 4,
  PLEXUS_DTYPE_I64 = 5,
  PLEXUS_DTYPE_F16 = 6,  /* IEEE binary16 */
  PLEXUS_DTYPE_BF16 = 7, /* bfloat16 */
  PLEXUS_DTYPE_F32 = 8,
  PLEXUS_DTYPE_F64 = 9
};
#define PLEXUS_NUM_DTYPES 10
/* A set of dtypes as a bit mask: PLEXUS_DTYPE_BIT(PLEXUS_DTYPE_F32) | ... */
#define PLEXUS_DTYPE_BIT(d) (1u << (d))

/* ---- Values passed to kernels ----------------------------------------- */

/* A strided view of device memory. Frozen layout (48 bytes). */
typedef struct plexus_tensor {
  void* storage;          /* what the backend's allocate returned (a host pointer on cpu) */
  int64_t offset;         /* elements from storage to element [0, ..., 0] */
  const int64_t* sizes;   /* ndim sizes */
  const int64_t* strides; /* ndim strides in elements; 0 for a broadcast dim; never negative */
  int32_t ndim;           /* 0 for a scalar tensor */
  plexus_dtype dtype;
  int32_t device_index; /* which device of the backend */
  int32_t reserved;     /* 0 */
} plexus_tensor;

/* A number: bool, 64-bit integer or double. Frozen layout (16 bytes). */
typedef struct plexus_scalar {
  int32_t kind; /* PLEXUS_SCALAR_BOOL, _INT or _FLOAT */
  int32_t reserved;
  union {
    int64_t i; /* bool (0/1) and int */
    double f;  /* float */
  } v;
} plexus_scalar;
enum { PLEXUS_SCALAR_BOOL = 0, PLEXUS_SCALAR_INT = 1, PLEXUS_SCALAR_FLOAT = 2 };

/* Which member of plexus_value is set. */
typedef int32_t plexus_value_tag;
enum {
  PLEXUS_VALUE_NONE = 0,        /* an optional argument that was not given */
  PLEXUS_VALUE_TENSOR = 1,      /* u.tensor */
  PLEXUS_VALUE_TENSOR_LIST = 2, /* u.tensor_list */
  PLEXUS_VALUE_SCALAR = 3,      /* u.scalar */
  PLEXUS_VALUE_INT = 4,         /* u.i */
  PLEXUS_VALUE_INT_LIST = 5,    /* u.int_list */
  PLEXUS_VALUE_FLOAT = 6,       /* u.f */
  PLEXUS_VALUE_BOOL = 7,        /* u.b (0 or 1) */
  PLEXUS_VALUE_STRING = 8,      /* u.string, not NUL-terminated */
  PLEXUS_VALUE_DTYPE = 9,       /* u.dtype */
  PLEXUS_VALUE_DEVICE = 10      /* u.device: slot of the device type and index */
};

/* One argument of a kernel call. Frozen layout (24 bytes). */
typedef struct plexus_value {
  plexus_value_tag tag;
  int32_t reserved;
  union {
    const plexus_tensor* tensor;
    struct {
      const plexus_tensor* items;
      int64_t count;
    } tensor_list;
    plexus_scalar scalar;
    int64_t i;
    double f;
    int32_t b;
    struct {
      const int64_t* items;
      int64_t count;
    } int_list;
    struct {
      const char* data;
      int64_t size;
    } string;
    plexus_dtype dtype;
    struct {
      int32_t type;
      int32_t index;
    } device;
  } u;
} plexus_value;

/* ---- Kernels ------------------------------------------------------------ */

/* Note [The out-variant contract]
 * This is the one statement of what the host does before a kernel of a
 * catalog op runs; the SDK and the vendor guide cite it by name.
 *   - The kernel is registered on the op's out variant ("add.out", "mm.out",
 *     "sum.IntList_out"), or on its in-place form where the catalog has no
 *     out variant ("fill_.Scalar", "copy_"). `plexus ops NAME` prints the
 *     schema; args follow it one for one, every optional argument that was
 *     not given arriving as PLEXUS_VALUE_NONE.
 *   - The host has checked every argument, computed the output's shape and
 *     dtype and allocated it on the kernel's device. The kernel writes the
 *     written argument (`out`, or `self` for fill_/copy_), which never
 *     overlaps an input except by being exactly that input.
 *   - Elementwise ops: every tensor argument has the output's sizes
 *     (broadcast dims have stride 0) and the compute dtype, call->dtype.
 *   - Reductions (sum, mean, amax, amin): `dim` arrives sorted,
 *     non-negative and without repeats; None and [] arrive as every dim
 *     [0, ..., ndim-1] (a 0-d self as []). A `dtype=` argument has already
 *     been applied: self arrives in the compute dtype. argmax/argmin get
 *     self in its own dtype and a wrapped dim or None.
 *   - Tensors keep their views: any strides (never negative), storage
 *     offsets, 0-d and empty tensors reach the kernel.
 *   - `dtype_mask` (register_kernel) is matched against call->dtype, the
 *     compute dtype: the dtype the inputs arrive in, converted by the host.
 *     The output may differ (bool for comparisons, int64 for argmax), and
 *     some inputs keep their own dtype: copy_'s source (its mask is the
 *     destination's, so every source dtype reaches it), argmax/argmin's
 *     self, where's bool condition, and integer index arguments
 *     (embedding, index_select: int32 or int64). A kernel that meets a
 *     combination it has no code for returns PLEXUS_KERNEL_DECLINED (ABI
 *     1.2), and the host's composite or fallback runs instead. */

/* One call of a kernel. Everything it points to is valid during the call.
 * Catalog ops: see Note [The out-variant contract] above.
 *
 * For an op a plugin defines itself (define_op), args are as the caller
 * passed them; the kernel allocates its result with host->alloc_output.
 *
 * Kernels run asynchronously on `stream` and may return before the work is
 * done. Thread-safety: kernels are called from any thread, concurrently. */
typedef struct plexus_kernel_call {
  size_t struct_size;       /* sizeof(plexus_kernel_call) as the host knows it */
  const char* op;           /* full op name, e.g. "add.out" */
  const plexus_value* args; /* num_args values, in schema order */
  int64_t num_args;
  int32_t device_index; /* the device to run on */
  plexus_dtype dtype;   /* the compute dtype this kernel was chosen for */
  void* stream;         /* the stream to run on; NULL is the device's default stream */
  void* host_call;      /* opaque; pass to alloc_output */
} plexus_kernel_call;

/* A kernel. Returns PLEXUS_OK, PLEXUS_KERNEL_DECLINED (ABI 1.2: the host
 * runs the call another way), or an error (after set_error_message). */
typedef plexus_status (*plexus_kernel_fn)(void* user_data, const plexus_kernel_call* call);

/* ---- Backends ------------------------------------------------------------ */

enum {
  PLEXUS_DEVICE_KIND_CPU = 0,
  PLEXUS_DEVICE_KIND_GPU = 1,
  PLEXUS_DEVICE_KIND_EMULATED = 2, /* a GPU API on the CPU (lavapipe) or a simulator */
  PLEXUS_DEVICE_KIND_ACCELERATOR = 3 /* any other accelerator (NPU, FPGA, ...) */
};

/* Capability flags of a device. */
enum {
  PLEXUS_CAP_ASYNC = 1u << 0,         /* kernels and copies run asynchronously to the host */
  PLEXUS_CAP_HOST_ADDRESSABLE = 1u << 1 /* device pointers are host pointers */
};

/* What a device reports about itself. The host zeroes the struct and sets
 * struct_size before calling get_properties; the plugin fills the fields. */
typedef struct plexus_device_properties {
  size_t struct_size;
  char name[256];  /* NUL-terminated, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" */
  char vendor[128];
  int32_t kind;    /* PLEXUS_DEVICE_KIND_* */
  uint32_t capabilities;  /* PLEXUS_CAP_* */
  uint64_t total_memory;  /* bytes; 0 when unknown */
  uint32_t dtypes;        /* PLEXUS_DTYPE_BIT mask of the dtypes the device can hold */
  uint32_t reserved;
} plexus_device_properties;

/* The header every optional extension struct starts with. Extensions are
 * chained through `next`; a reader skips types it does not know. */
typedef struct plexus_extension {
  size_t struct_size;
  int32_t type; /* registered extension type; 0 is never used */
  int32_t reserved;
  const struct plexus_extension* next;
} plexus_extension;

/* Backend flags. */
enum {
  /* The backend pools memory itself: the host calls allocate/deallocate for
   * every tensor instead of caching blocks. */
  PLEXUS_BACKEND_OWN_MEMORY_POOL = 1u << 0
};

/* A device type: memory, copies, streams and events. The host keeps the
 * pointer to this table and calls through it until the plugin's shutdown.
 * Every function gets the table's user_data and a device index in
 * [0, device_count()). Functions marked "required" must not be NULL. A copy
 * or memset with a NULL stream runs on the device's default stream. */
typedef struct plexus_backend {
  size_t struct_size;   /* sizeof(plexus_backend) as the plugin knows it */
  const char* name;     /* device type name, [a-z][a-z0-9_]*; copied by the host */
  void* user_data;      /* passed back to every function */
  uint32_t flags;       /* PLEXUS_BACKEND_* */
  uint32_t reserved;

  /* Required. How many devices exist; 0 when the driver or hardware is
   * missing (not an error: the plugin still loads). */
  int32_t (*device_count)(void* user_data);
  /* Optional. Why device_count() is 0, e.g. "CUDA driver not found"; NULL or
   * "" otherwise. The string must stay valid until shutdown. */
  const char* (*unavailable_reason)(void* user_data);
  /* Required. Fills *out (see plexus_device_properties). */
  plexus_status (*get_properties)(void* user_data, int32_t device, plexus_device_properties* out);

  /* Required. Allocates nbytes (> 0) of device memory into *out; returns
   * PLEXUS_ERROR_OUT_OF_MEMORY when it cannot. */
  plexus_status (*allocate)(void* user_data, int32_t device, size_t nbytes, void** out);
  /* Required. Frees memory from allocate; nbytes is the size asked for. The
   * host calls it only after the work using the memory was submitted; the
   * backend must keep it alive until that work is done. */
  void (*deallocate)(void* user_data, int32_t device, void* ptr, size_t nbytes);
  /* Required. Sets nbytes bytes at (ptr + offset) to value. */
  plexus_status (*memset)(void* user_data, int32_t device, void* ptr, size_t offset, int32_t value,
                          size_t nbytes, void* stream);

  /* Required. Copies nbytes from host memory src to (dst + dst_offset). The
   * host keeps src valid until the copy is done: the copy may return early
   * only if it has already taken the bytes. */
  plexus_status (*copy_host_to_device)(void* user_data, int32_t device, void* dst,
                                       size_t dst_offset, const void* src, size_t nbytes,
                                       void* stream);
  /* Required. Copies nbytes from (src + src_offset) to host memory dst and
   * returns only when the bytes are there (after earlier work on the stream). */
  plexus_status (*copy_device_to_host)(void* user_data, int32_t device, void* dst,
                                       const void* src, size_t src_offset, size_t nbytes,
                                       void* stream);
  /* Required. Copies nbytes within one device; the ranges do not overlap. */
  plexus_status (*copy_device_to_device)(void* user_data, int32_t device, void* dst,
                                         size_t dst_offset, const void* src, size_t src_offset,
                                         size_t nbytes, void* stream);

  /* Streams and events: the one rule (the loader enforces it; sdk::Backend
   * checks it at compile time). Two optional groups, each all or none:
   *   streams: stream_create, stream_destroy, stream_synchronize;
   *   events:  event_create, event_destroy, event_record, event_wait,
   *            event_synchronize.
   * The groups are independent: a backend may offer events without streams
   * (recorded on the default stream, NULL). A backend without streams has its
   * work run on the default stream only; one without events gets none. A
   * partial group is refused when the backend registers, naming the group. */

  /* Streams: ordered queues of work. *out (out) receives the new stream,
   * owned by the host until it passes it to stream_destroy. */
  plexus_status (*stream_create)(void* user_data, int32_t device, void** out);
  void (*stream_destroy)(void* user_data, int32_t device, void* stream);
  /* Waits on the host until all work on the stream is done. */
  plexus_status (*stream_synchronize)(void* user_data, int32_t device, void* stream);
  /* Events: markers in a stream. *out (out) receives the new event, owned by
   * the host until it passes it to event_destroy. The host may destroy an
   * event right after event_wait or event_record: work already queued must
   * not depend on the event object staying alive (as on CUDA). */
  plexus_status (*event_create)(void* user_data, int32_t device, void** out);
  void (*event_destroy)(void* user_data, int32_t device, void* event);
  /* Marks the point in `stream` (NULL: the default stream) reached so far. */
  plexus_status (*event_record)(void* user_data, int32_t device, void* event, void* stream);
  /* Makes later work on `stream` wait for the event (not the host). */
  plexus_status (*event_wait)(void* user_data, int32_t device, void* event, void* stream);
  /* Waits on the host until the event's work is done. */
  plexus_status (*event_synchronize)(void* user_data, int32_t device, void* event);

  /* Required. Waits on the host until all work on the device is done. */
  plexus_status (*synchronize)(void* user_data, int32_t device);

  /* Optional. Chained extensions (NULL when none). */
  const plexus_extension* extensions;
} plexus_backend;

/* ---- Graphs (ABI 1.1, optional) ------------------------------------------ */

/* A backend that compiles graphs chains a plexus_graph_extension (type
 * PLEXUS_EXTENSION_GRAPH) to its table's `extensions`. The host offers it
 * subgraphs of a captured call (plexus::compile): chains of elementwise ops
 * on one of its devices today. Nodes it does not take run through ordinary
 * dispatch, so a backend without the extension loses nothing. Everything a
 * plexus_graph points to is valid during the call it is passed to only. */
enum { PLEXUS_EXTENSION_GRAPH = 1 };

/* Roles of a graph value. */
enum {
  PLEXUS_GRAPH_VALUE_INTERNAL = 0, /* made and read inside the graph only */
  PLEXUS_GRAPH_VALUE_INPUT = 1,    /* read from inputs[input] at run */
  PLEXUS_GRAPH_VALUE_OUTPUT = 2,   /* written to outputs[output] at run */
  PLEXUS_GRAPH_VALUE_CONSTANT = 4  /* a number: `constant` */
};

/* One tensor of a graph. An in-place node's value is both an input and an
 * output (role INPUT | OUTPUT): read from inputs[input], written to
 * outputs[output], which the host binds to the same memory. */
typedef struct plexus_graph_value {
  plexus_dtype dtype;
  int32_t ndim;
  const int64_t* sizes;
  const int64_t* strides; /* in elements: the layout the bound tensor has at
                             every run (0 where broadcast) */
  int32_t role;           /* PLEXUS_GRAPH_VALUE_* bits */
  int32_t input;          /* index into run()'s inputs, or -1 */
  int32_t output;         /* index into run()'s outputs, or -1 */
  int32_t reserved;
  plexus_scalar constant; /* CONSTANT: the number */
} plexus_graph_value;

/* One op of a graph, in execution order. */
typedef struct plexus_graph_node {
  const char* op;          /* full schema name: "mul.Tensor", "lerp_.Scalar" */
  int32_t num_args;        /* the schema's argument count */
  int32_t result;          /* the value it makes, or writes (in-place ops) */
  const int32_t* args;     /* per schema argument: a value index, or -1 */
  const plexus_value* attrs; /* per schema argument: its value where args[i] is -1
                                (a Scalar, an int, ...); PLEXUS_VALUE_NONE otherwise */
} plexus_graph_node;

typedef struct plexus_graph {
  size_t struct_size; /* sizeof(plexus_graph) as the host knows it */
  int32_t device;     /* the backend's device index the graph runs on */
  int32_t num_values;
  const plexus_graph_value* values;
  int32_t num_nodes;
  int32_t num_inputs; /* run() binds this many tensors to inputs ... */
  const plexus_graph_node* nodes;
  int32_t num_outputs; /* ... and this many to outputs */
  int32_t reserved;
} plexus_graph;

typedef struct plexus_graph_extension {
  plexus_extension header; /* type PLEXUS_EXTENSION_GRAPH,
                              struct_size = sizeof(plexus_graph_extension) */
  void* user_data;         /* passed back to every function */
  /* Required. Sets supported[i] to 1 for each node the backend could run
   * inside a compiled graph (0 otherwise). The host compiles only graphs
   * whose every node is supported. */
  plexus_status (*supports)(void* user_data, const plexus_graph* graph, uint8_t* supported);
  /* Required. Compiles the graph into *out (owned by the host until release). */
  plexus_status (*compile)(void* user_data, const plexus_graph* graph, void** out);
  /* Required. Runs a compiled graph with tensors bound to its inputs and
   * outputs (in the graph's order; same sizes, strides and dtypes as its
   * values), on `stream` (NULL: the default stream). May run asynchronously,
   * as kernels do. */
  plexus_status (*run)(void* user_data, void* compiled, const plexus_tensor* inputs,
                       const plexus_tensor* outputs, void* stream);
  /* Required. Frees a compiled graph (after the work using it is done). */
  void (*release)(void* user_data, void* compiled);
} plexus_graph_extension;

/* ---- The host table ------------------------------------------------------ */

enum {
  PLEXUS_LOG_TRACE = 0,
  PLEXUS_LOG_DEBUG = 1,
  PLEXUS_LOG_INFO = 2,
  PLEXUS_LOG_WARN = 3,
  PLEXUS_LOG_ERROR = 4
};

/* What the host offers a plugin. Valid from init until shutdown returns.
 * Every function takes host_ctx first. */
typedef struct plexus_host_api {
  size_t struct_size;  /* sizeof(plexus_host_api) as the host knows it */
  uint32_t abi_major;  /* the host's ABI version */
  uint32_t abi_minor;
  void* host_ctx;

  /* Registers a device type. The host copies the name and keeps the table
   * pointer (see plexus_backend). *out_slot receives the device type's slot,
   * used to register kernels. Fails with INVALID_ARGUMENT for a bad or
   * already registered name, or a table missing a required function.
   * Only during init. */
  plexus_status (*register_backend)(void* host_ctx, const plexus_backend* backend,
                                    int32_t* out_slot);
  /* Registers fn as the kernel of op (e.g. "add.out") on the device type in
   * `slot`, for the dtypes in dtype_mask (PLEXUS_DTYPE_BIT mask of compute
   * dtypes: Note [The out-variant contract]). fn and
   * user_data must stay valid until shutdown. Fails with NOT_FOUND for an
   * unknown op, INVALID_ARGUMENT when the op is not one kernels register on
   * (the message names the right one) or the kernel is registered twice.
   * Only during init. */
  plexus_status (*register_kernel)(void* host_ctx, int32_t slot, const char* op,
                                   uint32_t dtype_mask, plexus_kernel_fn fn, void* user_data);
  /* Defines a new op from its schema, in the plugin's own namespace, e.g.
   * "myvendor::fused_gelu(Tensor self) -> Tensor". Its kernels get the
   * arguments as the caller passed them and allocate their result with
   * alloc_output. Only during init. */
  plexus_status (*define_op)(void* host_ctx, const char* schema);
  /* Logs a message (copied) through the host's logger for this plugin. */
  void (*log)(void* host_ctx, int32_t level, const char* message);
  /* Attaches a message (copied) to the error status the plugin is about to
   * return on this thread. */
  void (*set_error_message)(void* host_ctx, const char* message);
  /* From a kernel of a plugin-defined op: allocates its result on the call's
   * device, with this dtype and these sizes (contiguous), and describes it in
   * *out. out->sizes and out->strides point into host memory valid until the
   * kernel returns. One result per call; the host owns it. */
  plexus_status (*alloc_output)(void* host_ctx, const plexus_kernel_call* call, plexus_dtype dtype,
                                int32_t ndim, const int64_t* sizes, plexus_tensor* out);
  /* A per-plugin option from the application's configuration ("exclude_cpu_devices"),
   * or NULL when unset. The string stays valid until shutdown. */
  const char* (*get_option)(void* host_ctx, const char* key);
  /* The absolute directory the plugin's library was loaded from, without a
   * trailing slash, for files shipped beside it (shaders, tables). Valid
   * until shutdown. */
  const char* (*plugin_directory)(void* host_ctx);
} plexus_host_api;

/* ---- The plugin's entry point -------------------------------------------- */

/* What a plugin says about itself. The first five fields never change in any
 * ABI version, so any host can read them to decide whether to go on. */
typedef struct plexus_plugin_info {
  size_t struct_size;  /* sizeof(plexus_plugin_info) as the plugin knows it */
  uint32_t abi_major;  /* PLEXUS_ABI_MAJOR the plugin was built with */
  uint32_t abi_minor;  /* PLEXUS_ABI_MINOR the plugin was built with */
  const char* name;    /* plugin name, e.g. "cpu"; must match its manifest */
  const char* version; /* the plugin's own version, e.g. "1.2.0" */

  /* Called once after the version check: registers backends and kernels
   * through `host` (valid until shutdown returns) and may set *state, which is
   * passed to shutdown. On an error the host calls shutdown, then unloads. */
  plexus_status (*init)(const plexus_host_api* host, void** state);
  /* Called once before unloading, after the host synchronized every device
   * and freed its cached memory. May be NULL. */
  void (*shutdown)(void* state);
} plexus_plugin_info;

/* The one symbol a plugin exports. The host calls it first, with its own ABI
 * version, and reads only the first five fields of the result before
 * deciding. Returns a pointer to static data valid until unload; may return
 * NULL to refuse the host. Must not allocate, print, or touch a device. */
#define PLEXUS_PLUGIN_ENTRY_SYMBOL "plexus_plugin_entry"
typedef const plexus_plugin_info* (*plexus_plugin_entry_fn)(uint32_t host_abi_major,
                                                            uint32_t host_abi_minor);

/* ---- Pinned sizes of ABI 1.0 and 1.1 (LP64; 1.2 added no struct) ----------- */

/* C99 has no static_assert: a negative array size fails the build instead. */
#define PLEXUS_ABI_ASSERT_SIZE(type, size) \
  typedef char plexus_abi_size_check_##type[(sizeof(type) == (size)) ? 1 : -1]
#if UINTPTR_MAX == 0xffffffffffffffffu
PLEXUS_ABI_ASSERT_SIZE(plexus_tensor, 48);
PLEXUS_ABI_ASSERT_SIZE(plexus_scalar, 16);
PLEXUS_ABI_ASSERT_SIZE(plexus_value, 24);
PLEXUS_ABI_ASSERT_SIZE(plexus_kernel_call, 56);
PLEXUS_ABI_ASSERT_SIZE(plexus_device_properties, 416);
PLEXUS_ABI_ASSERT_SIZE(plexus_extension, 24);
PLEXUS_ABI_ASSERT_SIZE(plexus_backend, 184);
PLEXUS_ABI_ASSERT_SIZE(plexus_host_api, 88);
PLEXUS_ABI_ASSERT_SIZE(plexus_plugin_info, 48);
/* ABI 1.1 */
PLEXUS_ABI_ASSERT_SIZE(plexus_graph_value, 56);
PLEXUS_ABI_ASSERT_SIZE(plexus_graph_node, 32);
PLEXUS_ABI_ASSERT_SIZE(plexus_graph, 48);
PLEXUS_ABI_ASSERT_SIZE(plexus_graph_extension, 64);
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PLEXUS_PLUGIN_H_ */
