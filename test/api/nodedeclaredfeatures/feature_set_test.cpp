// Ports upstream k8s.io/component-helpers/nodedeclaredfeatures bitmap_test.go and featureset_test.go.
#include "pkg/api/nodedeclaredfeatures/feature_set.h"

#include <set>

#include <gtest/gtest.h>

namespace ks::api::nodedeclaredfeatures {
namespace {

FeatureSet withBits(int size, const std::vector<int>& bits) {
  FeatureSet b(size);
  for (int i : bits) b.set(i);
  return b;
}

// Upstream TestNewBitmap: the number of 64-bit words.
TEST(BitmapTest, NewBitmap) {
  const std::vector<std::pair<int, size_t>> cases = {{0, 0},  {1, 1},   {63, 1}, {64, 1},
                                                     {65, 2}, {128, 2}, {129, 3}};
  for (const auto& [size, words] : cases)
    EXPECT_EQ(FeatureSet(size).words().size(), words) << "size " << size;
}

// Upstream TestBitmap_GetSet (the bounds panics are in BitmapDeathTest).
TEST(BitmapTest, GetSet) {
  FeatureSet b(128);
  const std::vector<int> indices = {0, 63, 64, 127};
  for (int i : indices) EXPECT_FALSE(b.get(i)) << i;
  for (int i : indices) b.set(i);
  for (int i : indices) EXPECT_TRUE(b.get(i)) << i;
  for (int i : {1, 62, 65}) EXPECT_FALSE(b.get(i)) << i;
}

TEST(BitmapDeathTest, IndexOutOfRange) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  FeatureSet b(128);
  EXPECT_DEATH(b.set(-1), "bitmap index out of range: -1");
  EXPECT_DEATH((void)b.get(-1), "bitmap index out of range: -1");
  EXPECT_DEATH(b.set(128), "bitmap index out of range: 128");
  EXPECT_DEATH((void)b.get(128), "bitmap index out of range: 128");
  EXPECT_DEATH(FeatureSet(-1), "bitmap size must be positive: -1");
}

// Upstream TestBitmap_DifferenceSubset: isSubset holds exactly when the difference is empty.
TEST(BitmapTest, DifferenceSubset) {
  struct Case {
    std::string name;
    int bSize, otherSize;
    std::vector<int> bSets, otherSets;
    bool expectedErr;
    std::vector<int> expectedDiff;
  };
  const std::vector<Case> cases = {
      {"Mismatch size", 64, 128, {}, {}, true, {}},
      {"Disjoint sets", 64, 64, {1, 2}, {3, 4}, false, {1, 2}},
      {"Overlap", 64, 64, {1, 2, 3}, {2, 3, 4}, false, {1}},
      {"Identical", 64, 64, {1, 2}, {1, 2}, false, {}},
      {"Subset", 64, 64, {1, 2}, {1, 2, 3}, false, {}},
      {"Superset", 64, 64, {1, 2, 3}, {1, 2}, false, {3}},
      {"Empty contains Empty", 64, 64, {}, {}, false, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const FeatureSet b = withBits(c.bSize, c.bSets);
    const FeatureSet other = withBits(c.otherSize, c.otherSets);
    auto diff = b.difference(other);
    auto subset = b.isSubset(other);
    ASSERT_EQ(!diff.ok(), c.expectedErr);
    ASSERT_EQ(!subset.ok(), c.expectedErr);
    if (c.expectedErr) continue;
    EXPECT_EQ(*diff, withBits(c.bSize, c.expectedDiff));
    EXPECT_EQ(*subset, c.expectedDiff.empty());
  }
  EXPECT_EQ(FeatureSet(64).difference(FeatureSet(128)).error().message(), "bitmap size mismatch: 64 != 128");
  EXPECT_EQ(FeatureSet(64).isSubset(FeatureSet(128)).error().message(), "bitmap size mismatch; 64 != 128");
}

// Upstream TestBitmap_Equal, TestBitmap_IsEmpty, TestBitmap_Clone.
TEST(BitmapTest, EqualEmptyClone) {
  EXPECT_EQ(withBits(64, {1}), withBits(64, {1}));
  EXPECT_NE(withBits(64, {1}), withBits(64, {2}));
  EXPECT_NE(withBits(64, {1}), withBits(128, {1}));

  FeatureSet b(64);
  EXPECT_TRUE(b.isEmpty());
  b.set(10);
  EXPECT_FALSE(b.isEmpty());

  const FeatureSet original = withBits(64, {1});
  FeatureSet clone = original;
  EXPECT_EQ(clone, original);
  clone.set(2);
  EXPECT_NE(clone, original);
  EXPECT_FALSE(original.get(2));
  EXPECT_TRUE(clone.get(2));
}

// Upstream TestBitmap_String.
TEST(BitmapTest, String) {
  EXPECT_EQ(withBits(5, {0, 4}).toString(), "10001");
  EXPECT_EQ(withBits(10, {}).toString(), "0000000000");
  EXPECT_EQ(withBits(65, {0, 64}).toString(), "1" + std::string(63, '0') + "1");
}

// Upstream TestFeatureMapper.
TEST(FeatureMapperTest, MapAndUnmap) {
  const std::vector<std::string> features = {"a", "b", "c", "d"};
  const FeatureMapper mapper(features);
  struct Case {
    std::string name;
    std::vector<std::string> input;
    bool expectError;
    std::set<int> expectedSet;  // indices in features
  };
  const std::vector<Case> cases = {
      {"Empty input", {}, false, {}},
      {"Single valid feature", {"a"}, false, {0}},
      {"Multiple valid features", {"a", "c"}, false, {0, 2}},
      {"All features", {"a", "b", "c", "d"}, false, {0, 1, 2, 3}},
      {"Unknown feature (start)", {"0", "a"}, true, {0}},
      {"Unknown feature (middle)", {"a", "ab", "b"}, true, {0, 1}},
      {"Unknown feature (end)", {"d", "e"}, true, {3}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const FeatureSet fs = mapper.tryMap(c.input);
    for (int i = 0; i < static_cast<int>(features.size()); ++i)
      EXPECT_EQ(fs.get(i), c.expectedSet.count(i) == 1) << i;

    auto fs2 = mapper.mapSorted(c.input);
    EXPECT_EQ(!fs2.ok(), c.expectError);
    if (fs2.ok()) {
      EXPECT_EQ(*fs2, fs);
      EXPECT_EQ(mapper.mustMapSorted(c.input), fs);
    }

    auto unmapped = mapper.unmap(fs);
    ASSERT_TRUE(unmapped.ok()) << unmapped.error().message();
    EXPECT_EQ(unmapped->size(), c.expectedSet.size());
    if (c.expectError) {
      // Only names of the input come back.
      for (const auto& u : *unmapped)
        EXPECT_NE(std::find(c.input.begin(), c.input.end(), u), c.input.end()) << u;
    } else {
      EXPECT_EQ(*unmapped, c.input);
    }
  }
  EXPECT_EQ(mapper.mapSorted({"a", "ab", "b"}).error().message(), "unknown feature ab");
  EXPECT_EQ(mapper.unmap(FeatureSet(3)).error().message(),
            "feature size mismatch! s.size=3; len(m.registeredFeatures)=4");
}

TEST(FeatureMapperDeathTest, MustMapSortedAbortsOnUnknown) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const FeatureMapper mapper({"a", "b"});
  EXPECT_DEATH(mapper.mustMapSorted({"c"}), "unknown feature c");
}

}  // namespace
}  // namespace ks::api::nodedeclaredfeatures
