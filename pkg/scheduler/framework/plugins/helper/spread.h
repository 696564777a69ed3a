#pragma once
// The default spreading selector of a pod (upstream plugins/helper/spread.go): the pods "of the same
// application" as `pod` are those selected by the Services that select the pod, ANDed with the selector
// of its controller when that is a ReplicationController, ReplicaSet or StatefulSet.
//
// Thread-safety: the stores are thread-safe; these functions only read them.

#include <memory>
#include <vector>

#include "pkg/api/apps.h"
#include "pkg/api/core.h"
#include "pkg/api/labels.h"
#include "pkg/informer/store.h"

namespace ks::plugins::helper {

// GetPodServices: the services in the pod's namespace whose (non-empty) selector matches the pod's
// labels, in store key order. A service without a selector selects nothing. Uses the store's
// "namespace" index when it has one, otherwise scans the store.
std::vector<std::shared_ptr<const api::Service>> getPodServices(const informer::Store<api::Service>& services,
                                                                const api::Pod& pod);

// DefaultSelector: the matchLabels of every service selecting the pod merged into one set (they all
// match the pod, so they don't conflict), plus the controller's selector: a ReplicationController's map
// is merged into the set, a ReplicaSet's or StatefulSet's label selector is ANDed. A controller that is
// not in the store, an unparsable apiVersion or a selector that fails to compile leaves it out. An empty
// result (everything) means "no default selector".
api::Selector defaultSelector(const api::Pod& pod, const informer::Store<api::Service>& services,
                              const informer::Store<api::ReplicationController>& replicationControllers,
                              const informer::Store<api::ReplicaSet>& replicaSets,
                              const informer::Store<api::StatefulSet>& statefulSets);

}  // namespace ks::plugins::helper
