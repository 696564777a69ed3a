#include "pkg/informer/factory.h"

#include <type_traits>

namespace ks::informer {

SharedInformerFactory::SharedInformerFactory(client::ListWatchers& listWatchers,
                                             SharedInformerFactoryOptions options)
    : listWatchers_(listWatchers), options_(std::move(options)) {}

SharedInformerFactory::~SharedInformerFactory() {
  stop();
}

template <typename T>
SharedInformer<T>& SharedInformerFactory::informer() {
  std::lock_guard lock(mu_);
  auto& slot = std::get<std::unique_ptr<SharedInformer<T>>>(informers_);
  if (!slot) {
    ReflectorOptions ro = options_.reflector;
    ro.name = api::KindInfo<T>::kResource;
    ro.fieldSelector = std::is_same_v<T, api::Pod> ? options_.podFieldSelector : std::string();
    slot = std::make_unique<SharedInformer<T>>(listWatchers_.listWatcher<T>(), std::move(ro));
    entries_.push_back(Entry{slot.get(), false});
  }
  return *slot;
}

#define KS_WATCHED_KIND(Type, ...) \
  template SharedInformer<api::Type>& SharedInformerFactory::informer<api::Type>();
#include "pkg/api/kinds.def"

void SharedInformerFactory::start() {
  std::lock_guard lock(mu_);
  for (Entry& e : entries_) {
    if (e.started) continue;
    e.informer->start();
    e.started = true;
  }
}

bool SharedInformerFactory::waitForCacheSync(std::chrono::milliseconds timeout) {
  std::vector<InformerBase*> started;
  {
    std::lock_guard lock(mu_);
    for (const Entry& e : entries_) {
      if (e.started) started.push_back(e.informer);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (InformerBase* informer : started) {
    auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (!informer->waitForSync(std::max(left, std::chrono::milliseconds(0)))) return false;
  }
  return true;
}

void SharedInformerFactory::stop() {
  std::vector<InformerBase*> all;
  {
    std::lock_guard lock(mu_);
    for (const Entry& e : entries_) all.push_back(e.informer);
  }
  for (InformerBase* informer : all) informer->stop();
}

}  // namespace ks::informer
