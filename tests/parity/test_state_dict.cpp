// State dicts cross between plexus and PyTorch as safetensors files under
// PyTorch's names, both ways. libtorch 1.13 has no safetensors writer, so the
// test writes libtorch's own state_dict() with a minimal writer of its own
// (the format: an 8-byte little-endian header length, a JSON header of
// name -> dtype, shape, data_offsets, then the raw bytes), and reads what
// plexus saves with a reader of its own: neither side uses plexus's parser.

#include "parity/torch_bridge.h"  // first: see its comment

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

#include "plexus/autograd.h"
#include "plexus/random.h"
#include "simple_nn.h"

using namespace plexus;
using plexus::testing::to_torch;
using plexus::testing::values;

namespace {

// The seed's network as PyTorch users write it, with libtorch's own initialisation.
struct TorchNet : torch::nn::Module {
  torch::nn::Linear fc1{10, 64}, fc2{64, 32}, fc3{32, 1};
  TorchNet() {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("fc3", fc3);
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return fc3(torch::relu(fc2(torch::relu(fc1(x)))));
  }
};

std::filesystem::path scratch(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("plexus-parity-" + std::to_string(getpid()) + "-" + name);
}

// Writes float32 tensors as a safetensors file, with PyTorch's metadata.
void write_safetensors(const std::filesystem::path& file,
                       const std::map<std::string, torch::Tensor>& tensors) {
  nlohmann::json header = {{"__metadata__", {{"format", "pt"}}}};
  std::string data;
  for (const auto& [name, t] : tensors) {
    torch::Tensor c = t.detach().to(torch::kFloat32).contiguous();
    const size_t begin = data.size();
    data.append(static_cast<const char*>(c.data_ptr()), c.numel() * sizeof(float));
    header[name] = {{"dtype", "F32"}, {"shape", c.sizes().vec()}, {"data_offsets", {begin, data.size()}}};
  }
  std::string text = header.dump();
  uint64_t n = text.size();
  std::ofstream out(file, std::ios::binary);
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << text << data;
}

// Reads a safetensors file of float32 tensors into libtorch tensors.
std::map<std::string, torch::Tensor> read_safetensors(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() >= 8);
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(static_cast<unsigned char>(bytes[i])) << (8 * i);
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  const char* data = bytes.data() + 8 + n;
  std::map<std::string, torch::Tensor> out;
  for (auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    REQUIRE(entry["dtype"] == "F32");
    auto shape = entry["shape"].get<std::vector<int64_t>>();
    auto offsets = entry["data_offsets"].get<std::vector<size_t>>();
    torch::Tensor t = torch::empty(shape, torch::kFloat32);
    REQUIRE(offsets[1] - offsets[0] == t.numel() * sizeof(float));
    std::memcpy(t.data_ptr(), data + offsets[0], offsets[1] - offsets[0]);
    out.emplace(name, t);
  }
  return out;
}

void check_same(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i);
    CHECK(std::abs(got[i] - want[i]) <= 1e-6 * (1 + std::abs(want[i])));
  }
}

}  // namespace

TEST_CASE("a state dict libtorch's model saved loads into plexus, and plexus's back",
          "[parity]") {
  torch::manual_seed(5);
  TorchNet tnet;
  std::map<std::string, torch::Tensor> tstate;
  for (const auto& item : tnet.named_parameters()) tstate.emplace(item.key(), item.value());
  const std::filesystem::path from_torch = scratch("from-torch.safetensors");
  write_safetensors(from_torch, tstate);

  Generator gen(11);  // different weights until the file is loaded
  train::SimpleNN net(gen, Device());
  net.load(from_torch);
  std::map<std::string, Tensor> state = net.state_dict();
  REQUIRE(state.size() == tstate.size());
  for (const auto& [name, t] : tstate) {
    INFO(name);
    REQUIRE(state.count(name) == 1);
    check_same(values(state.at(name)), values(t));
  }
  Tensor x = randn({7, 10}, gen);
  check_same(values(net(x)), values(tnet.forward(to_torch(x))));

  // plexus's weights move on (one step), are saved, and libtorch reads them.
  {
    NoGradGuard no_grad;
    for (auto& [name, p] : net.named_parameters()) p.add_(randn(p.sizes(), gen), 0.1);
  }
  const std::filesystem::path from_plexus = scratch("from-plexus.safetensors");
  net.save(from_plexus);
  std::map<std::string, torch::Tensor> read = read_safetensors(from_plexus);
  REQUIRE(read.size() == tstate.size());
  {
    torch::NoGradGuard no_grad;
    for (auto& item : tnet.named_parameters()) {
      INFO(item.key());
      REQUIRE(read.count(item.key()) == 1);
      item.value().copy_(read.at(item.key()));
    }
  }
  check_same(values(tnet.forward(to_torch(x))), values(net(x)));
  std::filesystem::remove(from_torch);
  std::filesystem::remove(from_plexus);
}
