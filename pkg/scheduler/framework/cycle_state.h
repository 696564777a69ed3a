#pragma once
// CycleState: per-scheduling-cycle scratch space that plugins share between extension points
// (PreFilter -> Filter, PreScore -> Score, Reserve -> PreBind ...), as upstream's CycleState.
//
// Slots are typed: each StateData subclass T gets a process-wide index the first time stateKeyOf<T>() is
// called, so read<T>() is one bounds check and one vector load; no string maps on the hot path.
//
// Threading: read() may be called concurrently from the Filter/Score worker threads. write() and erase()
// must not race with any other access; they belong to the single-threaded points (PreFilter, PreScore,
// Reserve, Permit, PreBind, ...) or to a clone owned by one thread (preemption's dry runs).

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ks::framework {

// Data a plugin stores in CycleState. clone() must return an independent deep copy (preemption mutates
// clones while the original stays in use); immutable data may be shared by the clone.
class StateData {
 public:
  virtual ~StateData() = default;
  virtual std::unique_ptr<StateData> clone() const = 0;
};

using StateKey = std::size_t;

namespace detail {
StateKey nextStateKey();
StateKey stateKeyCount();
}  // namespace detail

// The slot index of state type T; stable for the life of the process.
template <class T>
StateKey stateKeyOf() {
  static const StateKey key = detail::nextStateKey();
  return key;
}

// A small set of plugin names (usually empty), used for the per-cycle skip lists.
class PluginNameSet {
 public:
  bool empty() const { return names_.empty(); }
  std::size_t size() const { return names_.size(); }
  bool contains(std::string_view name) const;
  void insert(std::string_view name);
  void clear() { names_.clear(); }
  const std::vector<std::string>& names() const { return names_; }
  bool operator==(const PluginNameSet&) const = default;

 private:
  std::vector<std::string> names_;  // sorted, unique
};

class CycleState {
 public:
  CycleState();

  // Returns the stored T, or nullptr when no T was written in this cycle (upstream's ErrNotFound).
  template <class T>
  T* read() const {
    const StateKey k = stateKeyOf<T>();
    return k < slots_.size() ? static_cast<T*>(slots_[k].get()) : nullptr;
  }

  // Stores data in T's slot, replacing any previous value.
  template <class T>
  void write(std::unique_ptr<T> data) {
    static_assert(std::is_base_of_v<StateData, T>, "CycleState stores StateData subclasses");
    slotFor(stateKeyOf<T>()) = std::move(data);
  }

  template <class T>
  void erase() {
    const StateKey k = stateKeyOf<T>();
    if (k < slots_.size()) slots_[k].reset();
  }

  // A deep copy: every slot cloned through StateData::clone(), skip sets and flags copied.
  std::unique_ptr<CycleState> clone() const;

  // Plugins whose PreFilter returned Skip: their Filter (and PreFilterExtensions) are not run.
  const PluginNameSet& skipFilterPlugins() const { return skipFilterPlugins_; }
  void setSkipFilterPlugins(PluginNameSet s) { skipFilterPlugins_ = std::move(s); }
  // Plugins whose PreScore returned Skip: their Score is not run.
  const PluginNameSet& skipScorePlugins() const { return skipScorePlugins_; }
  void setSkipScorePlugins(PluginNameSet s) { skipScorePlugins_ = std::move(s); }
  // Plugins whose PreBindPreFlight returned Skip: their PreBind is not run.
  const PluginNameSet& skipPreBindPlugins() const { return skipPreBindPlugins_; }
  void setSkipPreBindPlugins(PluginNameSet s) { skipPreBindPlugins_ = std::move(s); }
  // Plugins whose PreBindPreFlight allowed their PreBind to run in parallel with adjacent such plugins.
  const PluginNameSet& parallelPreBindPlugins() const { return parallelPreBindPlugins_; }
  void setParallelPreBindPlugins(PluginNameSet s) { parallelPreBindPlugins_ = std::move(s); }

  // Whether per-plugin duration metrics are sampled in this cycle.
  bool shouldRecordPluginMetrics() const { return recordPluginMetrics_; }
  void setRecordPluginMetrics(bool v) { recordPluginMetrics_ = v; }

 private:
  std::unique_ptr<StateData>& slotFor(StateKey k);

  std::vector<std::unique_ptr<StateData>> slots_;
  PluginNameSet skipFilterPlugins_;
  PluginNameSet skipScorePlugins_;
  PluginNameSet skipPreBindPlugins_;
  PluginNameSet parallelPreBindPlugins_;
  bool recordPluginMetrics_ = false;
};

}  // namespace ks::framework
