#include "pkg/util/intern.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace ks::util {
namespace {

TEST(InternPoolTest, EqualValuesShareOneInstanceWhileHeld) {
  InternPool<std::string> pool;
  auto a = pool.intern("alpha");
  auto b = pool.intern(std::string("alpha"));
  auto c = pool.intern("beta");
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(*c, "beta");
  EXPECT_EQ(pool.size(), 2u);
  // The last holder's release takes the instance out of the pool.
  c.reset();
  EXPECT_EQ(pool.size(), 1u);
  a.reset();
  EXPECT_EQ(pool.size(), 1u);
  b.reset();
  EXPECT_EQ(pool.size(), 0u);
  EXPECT_EQ(*pool.intern("alpha"), "alpha");
}

// Hash collisions keep values apart: equality decides.
struct ConstantHash {
  std::size_t operator()(const std::string&) const { return 7; }
};

TEST(InternPoolTest, CollidingHashesStayDistinct) {
  InternPool<std::string, ConstantHash> pool;
  auto a = pool.intern("a");
  auto b = pool.intern("b");
  EXPECT_NE(a.get(), b.get());
  EXPECT_EQ(pool.intern("a").get(), a.get());
  EXPECT_EQ(pool.size(), 2u);
}

// Interning and releasing from several threads at once (the TSan lane checks the locking).
TEST(InternPoolTest, ConcurrentInternAndRelease) {
  InternPool<std::string, ConstantHash> pool;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 2000; ++i) {
        auto v = pool.intern(std::to_string((i + t) % 5));
        ASSERT_EQ(*v, std::to_string((i + t) % 5));
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(pool.size(), 0u);
}

}  // namespace
}  // namespace ks::util
