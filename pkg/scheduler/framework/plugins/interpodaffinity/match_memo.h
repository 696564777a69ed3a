#pragma once
// What PreFilter and PreScore share to match terms against every existing pod without paying for each
// pod: the pods of a node mostly share a handful of label sets and term lists (PodInfo interns both, so
// equal ones are one address), and a match is computed once per distinct one in a chunk of nodes.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "pkg/scheduler/framework/parallelize/parallelism.h"
#include "pkg/scheduler/framework/types.h"

namespace ks::plugins::interpodaffinity {

// Match results cached by the address of an interned PodMatchIdentity or AffinityTerm. Valid while the
// snapshot's PodInfos (which hold those instances) are: one PreFilter or PreScore call.
class MatchMemo {
 public:
  // Bit i: whether `terms[i]` (at most kMaxTerms) matches `pod`'s identity; the terms come from the pod
  // being scheduled, so they are the same for the whole memo.
  static constexpr std::size_t kMaxTerms = 64;
  template <class MatchTerm>
  uint64_t identityBits(const framework::PodMatchIdentity& pod, std::size_t terms, MatchTerm&& matchTerm) {
    // Neighbouring pods mostly share their identity: check the last one before hashing.
    if (&pod == lastIdentity_) return lastBits_;
    auto [it, inserted] = identities_.try_emplace(&pod, 0);
    if (inserted) {
      for (std::size_t i = 0; i < terms; ++i) {
        if (matchTerm(i, pod)) it->second |= uint64_t{1} << i;
      }
    }
    lastIdentity_ = &pod;
    lastBits_ = it->second;
    return lastBits_;
  }

  // Whether an existing pod's `term` matches the pod being scheduled (`pod`, in a namespace with
  // `nsLabels`: both fixed for the whole memo).
  bool termMatches(const framework::AffinityTerm& term, const api::Pod& pod, const api::Labels& nsLabels) {
    if (&term == lastTerm_) return lastTermMatches_;
    auto [it, inserted] = terms_.try_emplace(&term, false);
    if (inserted) it->second = term.matches(pod, nsLabels);
    lastTerm_ = &term;
    lastTermMatches_ = it->second;
    return lastTermMatches_;
  }

 private:
  std::unordered_map<const framework::PodMatchIdentity*, uint64_t> identities_;
  std::unordered_map<const framework::AffinityTerm*, bool> terms_;
  const framework::PodMatchIdentity* lastIdentity_ = nullptr;
  uint64_t lastBits_ = 0;
  const framework::AffinityTerm* lastTerm_ = nullptr;
  bool lastTermMatches_ = false;
};

// One node's sums per topology key (a node has one domain per key), before the node's label values are
// looked up: a handful of keys, so a flat list. A key added with a zero sum still counts as touched (upstream
// keeps such map entries).
class KeySums {
 public:
  void add(const std::string& key, int64_t value) {
    for (auto& [k, sum] : sums_) {
      if (k == &key || *k == key) {
        sum += value;
        return;
      }
    }
    sums_.emplace_back(&key, value);
  }
  bool empty() const { return sums_.empty(); }
  void clear() { sums_.clear(); }
  // fn(key, value of the node's label, sum) for each key the node has a label for.
  template <class Fn>
  void forEachDomain(const api::Node& node, Fn&& fn) const {
    for (const auto& [key, sum] : sums_) {
      if (auto it = node.metadata.labels.find(*key); it != node.metadata.labels.end()) fn(it->first, it->second, sum);
    }
  }

 private:
  std::vector<std::pair<const std::string*, int64_t>> sums_;
};

// [0, n) split into contiguous chunks for the parallelizer, with one MatchMemo per chunk (a few chunks per
// thread keep the threads balanced; each chunk can collect its results in its own slot).
class NodeChunks {
 public:
  NodeChunks(framework::parallelize::Parallelizer& parallelizer, std::size_t n)
      : parallelizer_(parallelizer),
        n_(n),
        chunks_(std::min(n, static_cast<std::size_t>(parallelizer.threads()) * 4)) {}

  std::size_t size() const { return chunks_; }

  // fn(chunk, begin, end, memo) for every chunk, in parallel.
  void run(const std::function<void(std::size_t, std::size_t, std::size_t, MatchMemo&)>& fn) {
    parallelizer_.until(static_cast<int>(chunks_), [&](int c) {
      MatchMemo memo;
      const auto chunk = static_cast<std::size_t>(c);
      fn(chunk, n_ * chunk / chunks_, n_ * (chunk + 1) / chunks_, memo);
    });
  }

 private:
  framework::parallelize::Parallelizer& parallelizer_;
  std::size_t n_;
  std::size_t chunks_;
};

}  // namespace ks::plugins::interpodaffinity
