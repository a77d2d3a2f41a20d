// The cpu plugin's oneDNN glue (see onednn.h).
#include "onednn.h"

#include <omp.h>

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>
#include <array>
#include <cstring>
#include <mutex>
#include <vector>

#include "parallel.h"

namespace plexus::cpu::onednn {

const dnnl::engine& engine() {
  static const dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

bool computes_in(plexus_dtype d) {
  return d == PLEXUS_DTYPE_F32 || d == PLEXUS_DTYPE_BF16;
}

dnnl::memory::data_type data_type(plexus_dtype d) {
  using dt = dnnl::memory::data_type;
  switch (d) {
    case PLEXUS_DTYPE_F32:
      return dt::f32;
    case PLEXUS_DTYPE_BF16:
      return dt::bf16;
    case PLEXUS_DTYPE_F16:
      return dt::f16;
    case PLEXUS_DTYPE_I32:
      return dt::s32;
    case PLEXUS_DTYPE_I8:
      return dt::s8;
    case PLEXUS_DTYPE_U8:
      return dt::u8;
    default:
      sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "oneDNN has no data type for {}", sdk::dtype_name(d));
  }
}

dnnl::memory::desc desc(plexus_dtype d, const dnnl::memory::dims& sizes,
                        const dnnl::memory::dims& strides) {
  return dnnl::memory::desc(sizes, data_type(d), strides);
}

dnnl::memory::desc desc(const plexus_tensor& t, plexus_dtype dtype) {
  dnnl::memory::dims sizes(t.sizes, t.sizes + t.ndim), strides(t.strides, t.strides + t.ndim);
  if (t.ndim == 0) sizes = strides = {1};  // oneDNN has no 0-d memory
  return desc(dtype, sizes, strides);
}

dnnl::memory::desc desc(const plexus_tensor& t) { return desc(t, t.dtype); }

dnnl::memory::desc dense_desc(plexus_dtype d, const dnnl::memory::dims& sizes) {
  dnnl::memory::dims strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return desc(d, sizes, strides);
}

dnnl::memory memory(const dnnl::memory::desc& md, void* data) {
  return dnnl::memory(md, engine(), data);
}

dnnl::memory memory(const plexus_tensor& t) {
  char* base = static_cast<char*>(t.storage) + t.offset * int64_t(sdk::dtype_size(t.dtype));
  return memory(desc(t), base);
}

dnnl::memory scalar_memory(float* value) {
  return memory(dnnl::memory::desc({1}, dnnl::memory::data_type::f32, dnnl::memory::dims{1}),
                value);
}

bool is_reference(const dnnl::primitive_desc_base& pd) {
  return std::strncmp(pd.impl_info_str(), "ref", 3) == 0;
}

dnnl::primitive_attr attr() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

namespace {
// Below this many bytes of operands a primitive runs on the calling thread:
// waking OpenMP's other threads costs more than such work, and when another
// process holds the other cores a parallel region waits a scheduler time
// slice (milliseconds) for them. Small models' ops are all this small.
constexpr size_t kSerialBytes = 128 * 1024;

// One OpenMP thread for the calling thread while alive (nthreads-var is per
// thread).
class SerialScope {
 public:
  explicit SerialScope(bool on) : prev_(on ? omp_get_max_threads() : 0) {
    if (prev_ > 1) omp_set_num_threads(1);
  }
  ~SerialScope() {
    if (prev_ > 1) omp_set_num_threads(prev_);
  }
  SerialScope(const SerialScope&) = delete;
  SerialScope& operator=(const SerialScope&) = delete;

 private:
  int prev_;
};

size_t operand_bytes(const std::unordered_map<int, dnnl::memory>& args) {
  size_t n = 0;
  for (const auto& [id, m] : args) n += m.get_desc().get_size();
  return n;
}
}  // namespace

void execute(const dnnl::primitive& p, const std::unordered_map<int, dnnl::memory>& args) {
  SerialScope serial(operand_bytes(args) < kSerialBytes);
  const dnnl_memory_desc_t* md =
      dnnl_primitive_desc_query_md(p.get_primitive_desc(), dnnl_query_scratchpad_md, 0);
  size_t need = md ? dnnl_memory_desc_get_size(md) : 0;
  if (need == 0) {
    p.execute(stream(), args);
  } else {
    // This thread's scratchpad, grown as needed; execution waits below, so
    // the next call on this thread may reuse it.
    struct Free {
      void operator()(void* q) const { std::free(q); }
    };
    thread_local std::unique_ptr<void, Free> buffer;
    thread_local size_t size = 0;
    if (need > size) {
      size_t n = (need + 63) / 64 * 64;
      buffer.reset(std::aligned_alloc(64, n));
      if (!buffer) throw std::bad_alloc();
      size = n;
    }
    std::unordered_map<int, dnnl::memory> with = args;
    with[DNNL_ARG_SCRATCHPAD] = dnnl::memory(dnnl::memory::desc(*md), engine(), buffer.get());
    p.execute(stream(), with);
  }
  stream().wait();
}

Key& Key::add(const plexus_tensor& t) {
  add(int64_t{t.dtype}).add(int64_t{t.ndim});
  raw(t.sizes, sizeof(int64_t) * size_t(t.ndim));
  return raw(t.strides, sizeof(int64_t) * size_t(t.ndim));
}

Key& Key::add(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  add(int64_t{d.ndims}).add(int64_t{d.data_type}).add(int64_t{d.format_kind}).add(d.offset0);
  raw(d.dims, sizeof(d.dims[0]) * size_t(d.ndims));
  if (d.format_kind == dnnl_blocked) {
    const dnnl_blocking_desc_t& b = d.format_desc.blocking;
    raw(b.strides, sizeof(b.strides[0]) * size_t(d.ndims));
    add(int64_t{b.inner_nblks});
    raw(b.inner_blks, sizeof(b.inner_blks[0]) * size_t(b.inner_nblks));
    raw(b.inner_idxs, sizeof(b.inner_idxs[0]) * size_t(b.inner_nblks));
  }
  return *this;
}

namespace detail {
namespace {

struct Entry {
  std::type_index type;
  std::shared_ptr<void> value;
};

// More distinct keys than this and the cache starts over: a bound on memory
// for programs whose shapes never repeat.
constexpr size_t kCapacity = 1024;

std::mutex g_mutex;
std::unordered_map<std::string, Entry>& cache() {
  static std::unordered_map<std::string, Entry> c;
  return c;
}

}  // namespace

std::shared_ptr<void> lookup(const std::string& key, std::type_index type,
                             std::shared_ptr<void> (*make)(void*), void* ctx) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = cache().find(key);
    if (it != cache().end() && it->second.type == type) return it->second.value;
  }
  std::shared_ptr<void> made = make(ctx);  // slow (creates primitives): not under the lock
  std::lock_guard<std::mutex> lock(g_mutex);
  if (cache().size() >= kCapacity) cache().clear();
  auto it = cache().insert_or_assign(key, Entry{type, made}).first;
  return it->second.value;
}

}  // namespace detail

dnnl::reorder reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  Key key("reorder");
  key.add(from).add(to);
  return cached<dnnl::reorder>(key, [&] {
    return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to, attr()));
  });
}

// ---- dtype conversion ------------------------------------------------------

namespace {

using sdk::BFloat16;
using sdk::Half;

// The element types convert() converts between; others are only copied.
template <typename T>
constexpr bool kFloat =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_same_v<T, float>;

// One row of n elements, strided, times scale; F16C for dense f16 <-> f32 rows.
template <typename From, typename To>
void convert_row(const From* s, int64_t ss, To* d, int64_t ds, int64_t n, float scale) {
  if constexpr (kFloat<From> && kFloat<To>) {
    if (scale != 1.0f) {
      for (int64_t i = 0; i < n; ++i) d[i * ds] = To(scale * static_cast<float>(s[i * ss]));
      return;
    }
  }
  int64_t i = 0;
  if constexpr (std::is_same_v<From, Half> && std::is_same_v<To, float>) {
    if (ss == 1 && ds == 1)
      for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i,
                         _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i))));
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, Half>) {
    if (ss == 1 && ds == 1)
      for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(d + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
  } else if constexpr (std::is_same_v<From, To>) {
    if (ss == 1 && ds == 1) {
      std::memcpy(d, s, sizeof(To) * size_t(n));
      return;
    }
  }
  for (; i < n; ++i) {
    if constexpr (std::is_same_v<From, To>)
      d[i * ds] = s[i * ss];
    else
      d[i * ds] = To(static_cast<float>(s[i * ss]));
  }
}

// Same-size element types for plain copies of other dtypes.
template <size_t N>
struct Bytes {
  unsigned char b[N];
};

template <typename F>
void visit_storage(plexus_dtype d, F&& f) {
  switch (d) {
    case PLEXUS_DTYPE_F16:
      return f(sdk::DTypeTag<Half>{});
    case PLEXUS_DTYPE_BF16:
      return f(sdk::DTypeTag<BFloat16>{});
    case PLEXUS_DTYPE_F32:
      return f(sdk::DTypeTag<float>{});
    default:
      switch (sdk::dtype_size(d)) {
        case 1:
          return f(sdk::DTypeTag<Bytes<1>>{});
        case 2:
          return f(sdk::DTypeTag<Bytes<2>>{});
        case 4:
          return f(sdk::DTypeTag<Bytes<4>>{});
        default:
          return f(sdk::DTypeTag<Bytes<8>>{});
      }
  }
}

// A view without its leading size-1 dims, so the parallel split has work to share.
View drop_leading_ones(View v) {
  while (v.ndim > 1 && v.sizes[0] == 1) {
    ++v.sizes;
    ++v.strides;
    --v.ndim;
  }
  return v;
}

}  // namespace

void convert(const View& from_in, const View& to_in, float scale) {
  bool same = from_in.dtype == to_in.dtype && scale == 1.0f;
  auto is_float = [](plexus_dtype d) {
    return d == PLEXUS_DTYPE_F16 || d == PLEXUS_DTYPE_BF16 || d == PLEXUS_DTYPE_F32;
  };
  if (!same && !(is_float(from_in.dtype) && is_float(to_in.dtype)))
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "onednn::convert from {} to {}",
              sdk::dtype_name(from_in.dtype), sdk::dtype_name(to_in.dtype));
  if (from_in.ndim > sdk::kMaxIterDims)
    sdk::fail(PLEXUS_ERROR_UNSUPPORTED, "onednn::convert: {} dims (at most {})", from_in.ndim,
              sdk::kMaxIterDims);
  for (int32_t d = 0; d < from_in.ndim; ++d)
    if (from_in.sizes[d] == 0) return;
  if (same && from_in.data == to_in.data &&
      std::equal(from_in.strides, from_in.strides + from_in.ndim, to_in.strides))
    return;  // the same elements
  // Both views have the same sizes; drop the same leading dims from each.
  View from = drop_leading_ones(from_in);
  View to = to_in;
  to.sizes += from_in.ndim - from.ndim;
  to.strides += from_in.ndim - from.ndim;
  to.ndim = from.ndim;

  visit_storage(from.dtype, [&](auto ft) {
    using From = typename decltype(ft)::type;
    visit_storage(to.dtype, [&](auto tt) {
      using To = typename decltype(tt)::type;
      if constexpr (std::is_same_v<From, To> || (kFloat<From> && kFloat<To>)) {
        const From* src = static_cast<const From*>(from.data);
        To* dst = static_cast<To*>(to.data);
        int64_t n0 = from.ndim ? from.sizes[0] : 1;
        int64_t per_row = 1;
        for (int32_t d = 1; d < from.ndim; ++d) per_row *= from.sizes[d];
        parallel_for(n0, per_row, [&](int64_t b, int64_t e) {
          std::array<int64_t, sdk::kMaxIterDims> sizes{};
          std::copy(from.sizes, from.sizes + from.ndim, sizes.begin());
          if (from.ndim) sizes[0] = e - b;
          const From* s = src + (from.ndim ? b * from.strides[0] : 0);
          To* o = dst + (from.ndim ? b * to.strides[0] : 0);
          sdk::for_each_row<2>(from.ndim, sizes.data(), {from.strides, to.strides},
                               [&](const std::array<int64_t, 2>& off, int64_t n,
                                   const std::array<int64_t, 2>& step) {
                                 convert_row(s + off[0], step[0], o + off[1], step[1], n, scale);
                               });
        });
      }
    });
  });
}

}  // namespace plexus::cpu::onednn
