#include "pkg/scheduler/backend/heap/heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

namespace ks::heap {
namespace {

struct Item {
  std::string name;
  int value = 0;
};

Heap<Item> makeHeap() {
  return Heap<Item>([](const Item& i) { return i.name; },
                    [](const Item& a, const Item& b) { return a.value < b.value; });
}

TEST(HeapTest, PopsInOrder) {
  auto h = makeHeap();
  for (int v : {5, 3, 9, 1, 7}) h.addOrUpdate({"i" + std::to_string(v), v});
  std::vector<int> got;
  while (auto item = h.pop()) got.push_back(item->value);
  EXPECT_EQ(got, (std::vector<int>{1, 3, 5, 7, 9}));
  EXPECT_TRUE(h.empty());
  EXPECT_FALSE(h.pop().has_value());
}

TEST(HeapTest, UpdateReordersAndKeepsOneCopy) {
  auto h = makeHeap();
  h.addOrUpdate({"a", 1});
  h.addOrUpdate({"b", 2});
  h.addOrUpdate({"c", 3});
  h.addOrUpdate({"a", 10});  // moves down
  h.addOrUpdate({"c", 0});   // moves up
  EXPECT_EQ(h.size(), 3u);
  EXPECT_EQ(h.peek()->name, "c");
  EXPECT_EQ(h.get("a")->value, 10);
  EXPECT_EQ(h.pop()->name, "c");
  EXPECT_EQ(h.pop()->name, "b");
  EXPECT_EQ(h.pop()->name, "a");
}

TEST(HeapTest, RemoveByKey) {
  auto h = makeHeap();
  for (int v = 0; v < 10; ++v) h.addOrUpdate({"i" + std::to_string(v), v});
  EXPECT_TRUE(h.remove("i0"));
  EXPECT_TRUE(h.remove("i5"));
  EXPECT_FALSE(h.remove("i5"));
  EXPECT_FALSE(h.has("i5"));
  EXPECT_TRUE(h.has("i6"));
  std::vector<int> got;
  while (auto item = h.pop()) got.push_back(item->value);
  EXPECT_EQ(got, (std::vector<int>{1, 2, 3, 4, 6, 7, 8, 9}));
}

// Random operations against a sorted reference: peek/pop always return the minimum.
TEST(HeapTest, RandomOperationsMatchReference) {
  std::mt19937 rng(42);
  auto h = makeHeap();
  std::map<std::string, int> ref;
  for (int step = 0; step < 5000; ++step) {
    std::string key = "k" + std::to_string(rng() % 200);
    switch (rng() % 3) {
      case 0: {
        int v = static_cast<int>(rng() % 1000);
        h.addOrUpdate({key, v});
        ref[key] = v;
        break;
      }
      case 1:
        EXPECT_EQ(h.remove(key), ref.erase(key) == 1);
        break;
      default: {
        auto popped = h.pop();
        if (ref.empty()) {
          EXPECT_FALSE(popped.has_value());
          break;
        }
        ASSERT_TRUE(popped.has_value());
        int minValue = std::min_element(ref.begin(), ref.end(), [](auto& a, auto& b) {
                         return a.second < b.second;
                       })->second;
        EXPECT_EQ(popped->value, minValue);
        ref.erase(popped->name);
      }
    }
    ASSERT_EQ(h.size(), ref.size());
  }
}

}  // namespace
}  // namespace ks::heap
