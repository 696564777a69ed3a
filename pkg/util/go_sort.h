#pragma once
// Go's sort.Slice (pattern-defeating quicksort, sort/zsortfunc.go), for results that must order equal
// elements exactly as upstream does. sort.Slice is not stable: from 13 elements on, elements that compare
// equal may end up in any order, but a deterministic one that depends only on the input order. Below 13
// elements it is an insertion sort, i.e. stable.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ks {

namespace gosort_detail {

enum class Hint { Unknown, Increasing, Decreasing };

template <class T, class Less>
struct Sorter {
  std::vector<T>& data;
  Less& lessFn;

  bool less(std::ptrdiff_t i, std::ptrdiff_t j) { return lessFn(data[i], data[j]); }
  void swap(std::ptrdiff_t i, std::ptrdiff_t j) { std::swap(data[i], data[j]); }

  void insertionSort(std::ptrdiff_t a, std::ptrdiff_t b) {
    for (std::ptrdiff_t i = a + 1; i < b; ++i) {
      for (std::ptrdiff_t j = i; j > a && less(j, j - 1); --j) swap(j, j - 1);
    }
  }

  void siftDown(std::ptrdiff_t lo, std::ptrdiff_t hi, std::ptrdiff_t first) {
    std::ptrdiff_t root = lo;
    for (;;) {
      std::ptrdiff_t child = 2 * root + 1;
      if (child >= hi) return;
      if (child + 1 < hi && less(first + child, first + child + 1)) ++child;
      if (!less(first + root, first + child)) return;
      swap(first + root, first + child);
      root = child;
    }
  }

  void heapSort(std::ptrdiff_t a, std::ptrdiff_t b) {
    const std::ptrdiff_t first = a;
    const std::ptrdiff_t hi = b - a;
    for (std::ptrdiff_t i = (hi - 1) / 2; i >= 0; --i) siftDown(i, hi, first);
    for (std::ptrdiff_t i = hi - 1; i >= 0; --i) {
      swap(first, first + i);
      siftDown(0, i, first);
    }
  }

  std::pair<std::ptrdiff_t, bool> partition(std::ptrdiff_t a, std::ptrdiff_t b, std::ptrdiff_t pivot) {
    swap(a, pivot);
    std::ptrdiff_t i = a + 1;
    std::ptrdiff_t j = b - 1;
    while (i <= j && less(i, a)) ++i;
    while (i <= j && !less(j, a)) --j;
    if (i > j) {
      swap(j, a);
      return {j, true};
    }
    swap(i, j);
    ++i;
    --j;
    for (;;) {
      while (i <= j && less(i, a)) ++i;
      while (i <= j && !less(j, a)) --j;
      if (i > j) break;
      swap(i, j);
      ++i;
      --j;
    }
    swap(j, a);
    return {j, false};
  }

  std::ptrdiff_t partitionEqual(std::ptrdiff_t a, std::ptrdiff_t b, std::ptrdiff_t pivot) {
    swap(a, pivot);
    std::ptrdiff_t i = a + 1;
    std::ptrdiff_t j = b - 1;
    for (;;) {
      while (i <= j && !less(a, i)) ++i;
      while (i <= j && less(a, j)) --j;
      if (i > j) break;
      swap(i, j);
      ++i;
      --j;
    }
    return i;
  }

  bool partialInsertionSort(std::ptrdiff_t a, std::ptrdiff_t b) {
    constexpr int kMaxSteps = 5;
    constexpr std::ptrdiff_t kShortestShifting = 50;
    std::ptrdiff_t i = a + 1;
    for (int step = 0; step < kMaxSteps; ++step) {
      while (i < b && !less(i, i - 1)) ++i;
      if (i == b) return true;
      if (b - a < kShortestShifting) return false;
      swap(i, i - 1);
      if (i - a >= 2) {
        for (std::ptrdiff_t j = i - 1; j >= 1; --j) {
          if (!less(j, j - 1)) break;
          swap(j, j - 1);
        }
      }
      if (b - i >= 2) {
        for (std::ptrdiff_t j = i + 1; j < b; ++j) {
          if (!less(j, j - 1)) break;
          swap(j, j - 1);
        }
      }
    }
    return false;
  }

  void breakPatterns(std::ptrdiff_t a, std::ptrdiff_t b) {
    const std::ptrdiff_t length = b - a;
    if (length < 8) return;
    uint64_t random = static_cast<uint64_t>(length);  // Go's xorshift seeded with the length
    const uint64_t modulus = uint64_t{1} << std::bit_width(static_cast<uint64_t>(length));
    for (std::ptrdiff_t idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1; ++idx) {
      random ^= random << 13;
      random ^= random >> 7;
      random ^= random << 17;
      auto other = static_cast<std::ptrdiff_t>(random & (modulus - 1));
      if (other >= length) other -= length;
      swap(idx, a + other);
    }
  }

  std::ptrdiff_t order2Median(std::ptrdiff_t a, std::ptrdiff_t b, std::ptrdiff_t c, int& swaps) {
    auto order2 = [&](std::ptrdiff_t& x, std::ptrdiff_t& y) {
      if (less(y, x)) {
        ++swaps;
        std::swap(x, y);
      }
    };
    order2(a, b);
    order2(b, c);
    order2(a, b);
    return b;
  }

  std::pair<std::ptrdiff_t, Hint> choosePivot(std::ptrdiff_t a, std::ptrdiff_t b) {
    constexpr std::ptrdiff_t kShortestNinther = 50;
    constexpr int kMaxSwaps = 4 * 3;
    const std::ptrdiff_t l = b - a;
    int swaps = 0;
    std::ptrdiff_t i = a + l / 4 * 1;
    std::ptrdiff_t j = a + l / 4 * 2;
    std::ptrdiff_t k = a + l / 4 * 3;
    if (l >= 8) {
      if (l >= kShortestNinther) {
        i = order2Median(i - 1, i, i + 1, swaps);
        j = order2Median(j - 1, j, j + 1, swaps);
        k = order2Median(k - 1, k, k + 1, swaps);
      }
      j = order2Median(i, j, k, swaps);
    }
    if (swaps == 0) return {j, Hint::Increasing};
    if (swaps == kMaxSwaps) return {j, Hint::Decreasing};
    return {j, Hint::Unknown};
  }

  void reverseRange(std::ptrdiff_t a, std::ptrdiff_t b) {
    for (std::ptrdiff_t i = a, j = b - 1; i < j; ++i, --j) swap(i, j);
  }

  void pdqsort(std::ptrdiff_t a, std::ptrdiff_t b, int limit) {
    constexpr std::ptrdiff_t kMaxInsertion = 12;
    bool wasBalanced = true;
    bool wasPartitioned = true;
    for (;;) {
      const std::ptrdiff_t length = b - a;
      if (length <= kMaxInsertion) {
        insertionSort(a, b);
        return;
      }
      if (limit == 0) {
        heapSort(a, b);
        return;
      }
      if (!wasBalanced) {
        breakPatterns(a, b);
        --limit;
      }
      auto [pivot, hint] = choosePivot(a, b);
      if (hint == Hint::Decreasing) {
        reverseRange(a, b);
        pivot = (b - 1) - (pivot - a);
        hint = Hint::Increasing;
      }
      if (wasBalanced && wasPartitioned && hint == Hint::Increasing && partialInsertionSort(a, b)) return;
      if (a > 0 && !less(a - 1, pivot)) {
        a = partitionEqual(a, b, pivot);
        continue;
      }
      auto [mid, alreadyPartitioned] = partition(a, b, pivot);
      wasPartitioned = alreadyPartitioned;
      const std::ptrdiff_t leftLen = mid - a;
      const std::ptrdiff_t rightLen = b - mid;
      const std::ptrdiff_t balanceThreshold = length / 8;
      if (leftLen < rightLen) {
        wasBalanced = leftLen >= balanceThreshold;
        pdqsort(a, mid, limit);
        a = mid + 1;
      } else {
        wasBalanced = rightLen >= balanceThreshold;
        pdqsort(mid + 1, b, limit);
        b = mid;
      }
    }
  }
};

}  // namespace gosort_detail

// Sorts `v` as Go's sort.Slice(v, less) does, element for element.
template <class T, class Less>
void goSortSlice(std::vector<T>& v, Less less) {
  const auto n = static_cast<std::ptrdiff_t>(v.size());
  gosort_detail::Sorter<T, Less> s{v, less};
  s.pdqsort(0, n, static_cast<int>(std::bit_width(static_cast<uint64_t>(n))));
}

}  // namespace ks
