// plexus-bench's side of the CUDA peers (bench/cuda_peers.cu): opens
// libplexus-bench-cuda-peers.so, when it was built, and turns its C
// interface into bench peers. The library is looked for in
// $PLEXUS_BENCH_CUDA_PEERS, then in ../lib beside this executable.
#pragma once

#include <string>
#include <vector>

#include "cases.h"

namespace plexus::bench {

// The CUDA peers of case_name on CUDA device `device`; empty when the library
// is absent (why_absent then says why, once) or has none for the case.
std::vector<Peer> cuda_peers(const std::string& case_name, int device, std::string& why_absent);

}  // namespace plexus::bench
