// The runtime's own readers, on hand-made input: the fat binary walker and the PTX scan that
// answers cudaFuncGetAttributes and the launch checks. No nvcc needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "fatbin.h"
#include "ptx_info.h"

namespace {

struct Wrapper {
  int32_t magic = 0x466243B1;
  int32_t version = 1;
  const uint8_t* data = nullptr;
  const void* unused = nullptr;
};

template <typename T>
void put(std::vector<uint8_t>& b, size_t at, T v) {
  if (b.size() < at + sizeof v) b.resize(at + sizeof v);
  memcpy(b.data() + at, &v, sizeof v);
}

// A fat binary with one entry per (kind, arch, text).
std::vector<uint8_t> fatbin(const std::vector<std::tuple<uint16_t, uint32_t, std::string>>& entries,
                            uint64_t flags = 0x11) {
  std::vector<uint8_t> b(16);
  for (const auto& [kind, arch, text] : entries) {
    size_t at = b.size();
    uint64_t padded = (text.size() + 1 + 7) / 8 * 8;
    put<uint16_t>(b, at, kind);
    put<uint16_t>(b, at + 2, 0x0101);
    put<uint32_t>(b, at + 4, 80);
    put<uint64_t>(b, at + 8, padded);
    put<uint32_t>(b, at + 28, arch);
    put<uint64_t>(b, at + 40, flags);
    put<uint64_t>(b, at + 56, text.size());
    b.resize(at + 80 + padded, 0);
    memcpy(b.data() + at + 80, text.data(), text.size());
  }
  put<uint32_t>(b, 0, 0xBA55ED50);
  put<uint16_t>(b, 4, 1);
  put<uint16_t>(b, 6, 16);
  put<uint64_t>(b, 8, b.size() - 16);
  return b;
}

TEST(Fatbin, PicksTheHighestArchPtx) {
  auto b = fatbin({{2, 90, "ELF"}, {1, 75, "ptx 75"}, {1, 80, "ptx 80"}, {1, 52, "ptx 52"}});
  Wrapper w;
  w.data = b.data();
  simrt::PtxImage image = simrt::extract_ptx(&w);
  EXPECT_EQ("", image.error);
  EXPECT_EQ("ptx 80", image.text);
  EXPECT_EQ(80u, image.arch);
}

TEST(Fatbin, SaysWhyThereIsNoPtx) {
  auto only_sass = fatbin({{2, 90, "ELF"}});
  Wrapper w;
  w.data = only_sass.data();
  EXPECT_NE(std::string::npos, simrt::extract_ptx(&w).error.find("holds no PTX"));
  auto legacy = fatbin({{1, 80, "xx"}}, 0x2011);
  w.data = legacy.data();
  EXPECT_NE(std::string::npos, simrt::extract_ptx(&w).error.find("legacy compression"));
  w.magic = 0x1234;
  EXPECT_NE(std::string::npos, simrt::extract_ptx(&w).error.find("bad magic"));
}

TEST(Fatbin, BadZstdIsReported) {
  auto b = fatbin({{1, 80, "definitely not zstd"}}, 0x8011);
  Wrapper w;
  w.data = b.data();
  simrt::PtxImage image = simrt::extract_ptx(&w);
  EXPECT_EQ("", image.text);
  EXPECT_NE(std::string::npos, image.error.find("zstd")) << image.error;
}

// drills_sim_replay reads fat binaries from a file: a damaged one is refused, never read past.
TEST(Fatbin, DamagedFatbinFromAFileStaysInBounds) {
  auto b = fatbin({{1, 80, "ptx 80"}});
  EXPECT_EQ(b.size(), simrt::fatbin_size(b.data(), b.size()));
  EXPECT_EQ("ptx 80", simrt::extract_ptx_from_fatbin(b.data(), b.size()).text);
  EXPECT_EQ(0u, simrt::fatbin_size(b.data(), b.size() - 1));
  EXPECT_NE(std::string::npos,
            simrt::extract_ptx_from_fatbin(b.data(), b.size() - 1).error.find("beyond the data"));
  auto long_entry = b;
  put<uint64_t>(long_entry, 16 + 8, 1ull << 40);   // the entry's payload runs past the end
  EXPECT_NE(std::string::npos,
            simrt::extract_ptx_from_fatbin(long_entry.data(), long_entry.size()).error.find("no PTX"));
  auto compressed = b;
  put<uint32_t>(compressed, 16 + 16, 1u << 30);    // compressed size beyond the payload
  EXPECT_NE(std::string::npos, simrt::extract_ptx_from_fatbin(compressed.data(), compressed.size())
                                   .error.find("compressed size"));
}

const char* kPtx = R"(
.version 8.7
.target sm_80
.address_size 64
// .shared .b8 commented_out[999];
.shared .align 4 .b8 _ZZ4tileE1t[4224];
.shared .align 8 .f64 only_in_helper[3][5];
.shared .align 4 .u32 unused_shared;
.extern .shared .align 16 .b8 dynamic_smem[];
.global .align 4 .u32 counter = 7;
.file	1 "/tmp/has // in it.cu"

.func (.param .b32 func_retval0) _Z6helperi(.param .b32 _Z6helperi_param_0)
{
  .reg .b32 %r<3>;
  mov.u32 %r1, only_in_helper;
  st.param.b32 [func_retval0], %r1;
  ret;
}

.visible .entry _Z4tilePf(.param .u64 _Z4tilePf_param_0)
.maxntid 256, 1, 1
{
  .local .align 8 .b8 __local_depot1[48];
  .reg .b32 %r<5>;
.loc	1 20 0
  .shared .align 4 .b8 inner[64];
  mov.u32 %r1, _ZZ4tileE1t;
  call.uni (retval0), _Z6helperi, (param0);
  ld.shared.u32 %r2, [inner];
  ret;
}

.visible .entry _Z3dynv()
.reqntid 32, 4
{
  mov.u32 %r1, dynamic_smem;
  ret;
}
)";

TEST(PtxScan, StaticSharedLocalAndBounds) {
  simrt::PtxInfo info = simrt::scan_ptx(kPtx);
  EXPECT_EQ(87, info.version);
  ASSERT_EQ(2u, info.kernels.size());
  const simrt::KernelInfo& tile = info.kernels.at("_Z4tilePf");
  // 4224 (module scope) + 64 (function scope) + 3*5*8 (through the helper it calls)
  EXPECT_EQ(4224u + 64u + 120u, tile.static_shared_bytes);
  EXPECT_EQ(48u, tile.local_bytes);
  EXPECT_EQ(256, tile.max_threads);
  const simrt::KernelInfo& dyn = info.kernels.at("_Z3dynv");
  EXPECT_EQ(0u, dyn.static_shared_bytes);
  EXPECT_EQ(128, dyn.max_threads);
}

}  // namespace
