// The trimmer against glibc's own allocator. Built without the sanitizers in every tree
// (ks_add_test NO_SANITIZERS), since they replace malloc; the trimmer's source is compiled in.
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "pkg/app/heap_trimmer.h"

namespace ks::app {
namespace {

using namespace std::chrono_literals;

long residentKiB() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = 0;
  statm >> size >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// What the daemon relies on: memory freed in the middle of a thread's arena stays resident until the
// trimmer runs, then goes back to the kernel.
TEST(HeapTrimmerTest, DefaultTrimReturnsFreedArenaMemory) {
  constexpr size_t kBlock = 4000, kBlocks = 8192;  // 32 MB of small blocks, below the mmap threshold
  std::vector<char*> blocks;
  std::thread([&blocks] {  // a thread of its own, as the daemon's workers, so a non-main arena holds them
    for (size_t i = 0; i < kBlocks; ++i) {
      blocks.push_back(static_cast<char*>(std::malloc(kBlock)));
      std::memset(blocks.back(), 1, kBlock);
    }
    // Keep the last block so that the free space is not at the top of the heap, which free() gives back.
    for (size_t i = 0; i + 1 < kBlocks; ++i) std::free(blocks[i]);
  }).join();
  const long freedButResident = residentKiB();
  {
    HeapTrimmer trimmer(1ms);
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (residentKiB() > freedButResident - 16 * 1024 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(5ms);
    }
  }
  EXPECT_LT(residentKiB(), freedButResident - 16 * 1024) << "RSS did not drop by half the 32 MB freed";
  std::free(blocks.back());
}

}  // namespace
}  // namespace ks::app
