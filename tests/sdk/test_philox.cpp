// The SDK's Philox4x32-10 against Random123's known answers (the three
// `philox4x32 10` lines of its kat_vectors), and the value rules of Note
// [random streams].
#include <catch2/catch.hpp>

#include "plexus/sdk/philox.hpp"

using namespace plexus;

TEST_CASE("philox4x32_10 gives Random123's known answers", "[sdk][random]") {
  struct Kat {
    uint32_t ctr[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
       {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat& k : kats) {
    sdk::PhiloxWords r =
        sdk::philox4x32_10(k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3], k.key[0], k.key[1]);
    for (int i = 0; i < 4; ++i) CHECK(r.w[i] == k.out[i]);
  }
  // constexpr: usable where a kernel needs a compile-time value.
  static_assert(sdk::philox4x32_10(0, 0, 0, 0, 0, 0).w[0] == 0x6627e8d5u);
}

TEST_CASE("a random op's element i takes the counter offset + i, carried into the high word",
          "[sdk][random]") {
  const uint64_t seed = (uint64_t{7} << 32) | 9, offset = (uint64_t{1} << 32) - 1;
  sdk::PhiloxWords a = sdk::random_words(seed, offset, 1);
  sdk::PhiloxWords b = sdk::philox4x32_10(0, 1, 0, 0, 9, 7);
  for (int i = 0; i < 4; ++i) CHECK(a.w[i] == b.w[i]);
}

TEST_CASE("the uniforms and the bernoulli threshold are exact", "[sdk][random]") {
  sdk::PhiloxWords top{{0xffffffffu, 0xffffffffu, 0, 0}}, zero{{0, 0, 0, 0}};
  CHECK(sdk::uniform_float(zero) == 0.0f);
  CHECK(sdk::uniform_float(top) == 1.0f - 0x1p-24f);  // below 1
  CHECK(sdk::uniform_double(top) == 1.0 - 0x1p-53);
  CHECK(sdk::normal_u1_float(zero) == 0x1p-24f);  // above 0: its log is finite
  CHECK(sdk::normal_u1_float(top) == 1.0f);
  CHECK(sdk::bernoulli_threshold(0) == 0);
  CHECK(sdk::bernoulli_threshold(1) == (1u << 24));
  CHECK(sdk::bernoulli_threshold(0.25) == (1u << 22));                // on a step: not rounded up
  CHECK(sdk::bernoulli_threshold(0.25 + 0x1p-30) == (1u << 22) + 1);  // between steps: up
  // p = 1 keeps every draw, p = 0 none.
  CHECK(sdk::bernoulli_draw(top, sdk::bernoulli_threshold(1)));
  CHECK_FALSE(sdk::bernoulli_draw(zero, sdk::bernoulli_threshold(0)));
}
