#pragma once
// SharedInformerFactory: one SharedInformer per kind over a client::ListWatchers, created lazily by the
// accessors (as informers.SharedInformerFactory.Core().V1().Pods()), started together, waited on
// together, stopped together.
//
// Thread-safety: all methods may be called from any thread. Informers created after start() are not
// running until start() is called again (as upstream). stop() joins every informer's threads.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "pkg/api/kinds.h"
#include "pkg/client/client.h"
#include "pkg/informer/shared_informer.h"

namespace ks::informer {

struct SharedInformerFactoryOptions {
  // Template for every informer's reflector (name and selectors are set per kind).
  ReflectorOptions reflector;
  // Field selector of the pod informer; kube-scheduler uses
  // "status.phase!=Succeeded,status.phase!=Failed" (see kSchedulerPodFieldSelector).
  std::string podFieldSelector;
};

// What kube-scheduler's pod informer selects (scheduler.go newPodInformer).
inline constexpr std::string_view kSchedulerPodFieldSelector = "status.phase!=Succeeded,status.phase!=Failed";

class SharedInformerFactory {
 public:
  explicit SharedInformerFactory(client::ListWatchers& listWatchers,
                                 SharedInformerFactoryOptions options = {});
  ~SharedInformerFactory();
  SharedInformerFactory(const SharedInformerFactory&) = delete;
  SharedInformerFactory& operator=(const SharedInformerFactory&) = delete;

  // One accessor per watched kind of pkg/api/kinds.def: pods(), nodes(), csiStorageCapacities(), ...
#define KS_WATCHED_KIND(Type, accessor, ...) \
  SharedInformer<api::Type>& accessor() {    \
    return informer<api::Type>();            \
  }
#include "pkg/api/kinds.def"

  // The informer of the watched kind T (informer<api::Pod>() is pods()), named after its resource; the
  // pod informer selects with options.podFieldSelector.
  template <typename T>
  SharedInformer<T>& informer();

  // Starts every informer created so far that is not running yet.
  void start();
  // Waits until every started informer has synced; false when `timeout` passes first.
  bool waitForCacheSync(std::chrono::milliseconds timeout);
  // Stops every informer and joins its threads. Idempotent.
  void stop();

 private:
  client::ListWatchers& listWatchers_;
  const SharedInformerFactoryOptions options_;

  std::mutex mu_;
  struct Entry {
    InformerBase* informer;
    bool started;
  };
  std::vector<Entry> entries_;  // guarded by mu_, creation order
  template <typename... Ts>
  using Slots = std::tuple<std::unique_ptr<SharedInformer<Ts>>...>;
  api::ApplyKinds<Slots, api::WatchedKinds> informers_;  // guarded by mu_, created lazily
};

}  // namespace ks::informer
