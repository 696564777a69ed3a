#pragma once
// The assume caches of the volume binder (upstream volumebinding/assume_cache.go): PVs by name, listed by
// storage class, and PVCs by "namespace/name", over the generic cache in pkg/scheduler/util.

#include <memory>
#include <string>

#include "pkg/api/core.h"
#include "pkg/scheduler/util/assume_cache.h"
#include "pkg/volume/volume_helpers.h"

namespace ks::volumebinding {

using assumecache::AssumeCache;
using assumecache::parseResourceVersion;

// PVs by name, listed by storage class (upstream PVAssumeCache).
class PVAssumeCache : public AssumeCache<api::PersistentVolume> {
 public:
  PVAssumeCache()
      : AssumeCache("v1.PersistentVolume", [](const api::PersistentVolume& pv) { return volume::persistentVolumeClass(pv); }) {}
};

// PVCs by "namespace/name" (upstream PVCAssumeCache).
class PVCAssumeCache : public AssumeCache<api::PersistentVolumeClaim> {
 public:
  PVCAssumeCache() : AssumeCache("v1.PersistentVolumeClaim") {}
};

}  // namespace ks::volumebinding
