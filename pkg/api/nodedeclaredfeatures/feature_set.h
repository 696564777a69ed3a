#pragma once
// Sets of node features as bitmaps over a fixed, sorted list of known feature names
// (k8s.io/component-helpers/nodedeclaredfeatures: bitmap.go, featureset.go). The scheduler maps a node's
// status.declaredFeatures once, when the node is set on its NodeInfo, and a pod's inferred requirements
// once per cycle; Filter is then a word-wise subset test.

#include <cstdint>
#include <string>
#include <vector>

#include "pkg/util/result.h"

namespace ks::api::nodedeclaredfeatures {

// Upstream's bitmap (FeatureSet is an alias of it there). An index outside [0, size) is a programming
// error and aborts, as upstream panics.
class FeatureSet {
 public:
  FeatureSet() = default;
  // `size` bits, all clear; a negative size aborts.
  explicit FeatureSet(int size);

  int size() const { return size_; }
  const std::vector<uint64_t>& words() const { return words_; }

  void set(int i);
  bool get(int i) const;
  bool isEmpty() const;

  // The bits set here and not in `other`; an error when the sizes differ.
  Result<FeatureSet> difference(const FeatureSet& other) const;
  // Whether every bit set here is set in `other`; an error when the sizes differ. Allocates nothing.
  Result<bool> isSubset(const FeatureSet& other) const;
  // Equal sizes and bits (upstream Equal).
  bool operator==(const FeatureSet&) const = default;

  // One character per bit, bit 0 first: "10001".
  std::string toString() const;

 private:
  std::vector<uint64_t> words_;
  int size_ = 0;
};

// Maps feature names to bit positions: the position of a name in the sorted list of known features.
class FeatureMapper {
 public:
  explicit FeatureMapper(std::vector<std::string> features);

  // The known features, sorted.
  const std::vector<std::string>& registeredFeatures() const { return registeredFeatures_; }

  // An empty set sized to the known features.
  FeatureSet newFeatureSet() const;
  // The set of `sortedFeatures`; "unknown feature <name>" for a name not known.
  Result<FeatureSet> mapSorted(const std::vector<std::string>& sortedFeatures) const;
  // mapSorted, aborting on an unknown feature (tests and constant inputs only).
  FeatureSet mustMapSorted(const std::vector<std::string>& sortedFeatures) const;
  // The set of `sortedFeatures`, ignoring the names not known (a node may declare features newer than us).
  FeatureSet tryMap(const std::vector<std::string>& sortedFeatures) const;
  // The names of the features set in `s`, sorted; an error when `s` is not sized to the known features.
  Result<std::vector<std::string>> unmap(const FeatureSet& s) const;

 private:
  Result<FeatureSet> mapSorted(const std::vector<std::string>& sortedFeatures, bool ignoreUnknown) const;

  std::vector<std::string> registeredFeatures_;
};

}  // namespace ks::api::nodedeclaredfeatures
