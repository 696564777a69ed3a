// Ported from k8s.io/component-helpers/nodedeclaredfeatures (v0.37.2) bitmap.go and featureset.go.

#include "pkg/api/nodedeclaredfeatures/feature_set.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>

namespace ks::api::nodedeclaredfeatures {

namespace {

[[noreturn]] void panic(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::abort();
}

std::string sizeMismatch(const char* sep, int a, int b) {
  return "bitmap size mismatch" + std::string(sep) + " " + std::to_string(a) + " != " + std::to_string(b);
}

}  // namespace

FeatureSet::FeatureSet(int size) : size_(size) {
  if (size < 0) panic("bitmap size must be positive: " + std::to_string(size));
  words_.assign((static_cast<size_t>(size) + 63) / 64, 0);
}

void FeatureSet::set(int i) {
  if (i < 0 || i >= size_) panic("bitmap index out of range: " + std::to_string(i));
  words_[static_cast<size_t>(i) / 64] |= uint64_t{1} << (i % 64);
}

bool FeatureSet::get(int i) const {
  if (i < 0 || i >= size_) panic("bitmap index out of range: " + std::to_string(i));
  return (words_[static_cast<size_t>(i) / 64] & (uint64_t{1} << (i % 64))) != 0;
}

bool FeatureSet::isEmpty() const {
  return std::all_of(words_.begin(), words_.end(), [](uint64_t w) { return w == 0; });
}

Result<FeatureSet> FeatureSet::difference(const FeatureSet& other) const {
  if (size_ != other.size_) return Error(sizeMismatch(":", size_, other.size_));
  FeatureSet diff(size_);
  for (size_t i = 0; i < words_.size(); ++i) diff.words_[i] = words_[i] & ~other.words_[i];
  return diff;
}

Result<bool> FeatureSet::isSubset(const FeatureSet& other) const {
  if (size_ != other.size_) return Error(sizeMismatch(";", size_, other.size_));
  for (size_t i = 0; i < words_.size(); ++i) {
    if ((words_[i] & ~other.words_[i]) != 0) return false;
  }
  return true;
}

std::string FeatureSet::toString() const {
  std::string out(static_cast<size_t>(size_), '0');
  for (int i = 0; i < size_; ++i) {
    if (get(i)) out[static_cast<size_t>(i)] = '1';
  }
  return out;
}

FeatureMapper::FeatureMapper(std::vector<std::string> features) : registeredFeatures_(std::move(features)) {
  std::sort(registeredFeatures_.begin(), registeredFeatures_.end());
}

FeatureSet FeatureMapper::newFeatureSet() const {
  return FeatureSet(static_cast<int>(registeredFeatures_.size()));
}

Result<FeatureSet> FeatureMapper::mapSorted(const std::vector<std::string>& sortedFeatures) const {
  return mapSorted(sortedFeatures, false);
}

FeatureSet FeatureMapper::mustMapSorted(const std::vector<std::string>& sortedFeatures) const {
  auto s = mapSorted(sortedFeatures);
  if (!s.ok()) panic(s.error().message());
  return std::move(s).value();
}

FeatureSet FeatureMapper::tryMap(const std::vector<std::string>& sortedFeatures) const {
  return std::move(mapSorted(sortedFeatures, true)).value();
}

// One merge pass over the two sorted lists.
Result<FeatureSet> FeatureMapper::mapSorted(const std::vector<std::string>& sortedFeatures,
                                            bool ignoreUnknown) const {
  FeatureSet s = newFeatureSet();
  size_t i = 0;
  size_t j = 0;
  while (i < sortedFeatures.size() && j < registeredFeatures_.size()) {
    if (sortedFeatures[i] == registeredFeatures_[j]) {
      s.set(static_cast<int>(j));
      ++i;
      ++j;
    } else if (sortedFeatures[i] < registeredFeatures_[j]) {
      if (!ignoreUnknown) return Error("unknown feature " + sortedFeatures[i]);
      ++i;
    } else {
      ++j;
    }
  }
  if (!ignoreUnknown && i < sortedFeatures.size()) return Error("unknown feature " + sortedFeatures[i]);
  return s;
}

Result<std::vector<std::string>> FeatureMapper::unmap(const FeatureSet& s) const {
  if (static_cast<size_t>(s.size()) != registeredFeatures_.size()) {
    return Error("feature size mismatch! s.size=" + std::to_string(s.size()) +
                 "; len(m.registeredFeatures)=" + std::to_string(registeredFeatures_.size()));
  }
  std::vector<std::string> keys;
  for (size_t i = 0; i < s.words().size(); ++i) {
    for (uint64_t w = s.words()[i]; w != 0; w &= w - 1) {
      keys.push_back(registeredFeatures_[i * 64 + static_cast<size_t>(std::countr_zero(w))]);
    }
  }
  return keys;
}

}  // namespace ks::api::nodedeclaredfeatures
