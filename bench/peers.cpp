// Peers for plexus-bench (see peers.h). Buffers live as long as the returned
// operation; results are kept somewhere the compiler cannot drop.
#include "peers.h"

#include <dnnl.hpp>
#include <memory>
#include <vector>

namespace plexus::bench {

Op omp_add_loop(int64_t n) {
  auto buf = std::make_shared<std::vector<float>>(size_t(3 * n), 1.0f);
  return [buf, n] {
    const float* a = buf->data();
    const float* b = a + n;
    float* c = buf->data() + 2 * n;
#pragma omp parallel for simd num_threads(2) schedule(static)
    for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
  };
}

Op omp_sum_loop(int64_t n) {
  auto buf = std::make_shared<std::vector<float>>(size_t(n + 1), 1.0f);
  return [buf, n] {
    const float* a = buf->data();
    float s = 0;
#pragma omp parallel for simd num_threads(2) schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < n; ++i) s += a[i];
    (*buf)[size_t(n)] = s;
  };
}

Op onednn_sgemm(int64_t n) {
  using dnnl::memory;
  struct State {
    dnnl::engine engine{dnnl::engine::kind::cpu, 0};
    dnnl::stream stream{engine};
    memory a, b, c;
    dnnl::matmul matmul;
  };
  auto s = std::make_shared<State>();
  memory::desc md({n, n}, memory::data_type::f32, memory::format_tag::ab);
  s->a = memory(md, s->engine);
  s->b = memory(md, s->engine);
  s->c = memory(md, s->engine);
  for (const memory* m : {&s->a, &s->b}) {
    float* p = static_cast<float*>(m->get_data_handle());
    for (int64_t i = 0; i < n * n; ++i) p[i] = 1.0f;
  }
  s->matmul = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(md, md, md), s->engine));
  return [s] {
    s->matmul.execute(s->stream,
                      {{DNNL_ARG_SRC, s->a}, {DNNL_ARG_WEIGHTS, s->b}, {DNNL_ARG_DST, s->c}});
    s->stream.wait();
  };
}

}  // namespace plexus::bench
