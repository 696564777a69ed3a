// storage/v1 (StorageClass, CSINode, CSIDriver, CSIStorageCapacity, VolumeAttachment), policy/v1
// PodDisruptionBudget, and the apps/v1 pod owners (ReplicaSet, StatefulSet: their selector only), as
// pkg/api/json/other.cpp reads them.

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

// ---- core/v1 TopologySelectorTerm (StorageClass only) ----

bool read(DecodeContext& ctx, std::string_view msg, TopologySelectorLabelRequirement& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "key", out.key);
      case 2:
        return get(ctx, f, "values", out.values);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, TopologySelectorTerm& out) {
  return each(ctx, msg, [&](const Field& f) {
    return f.number != 1 || get(ctx, f, "matchLabelExpressions", out.matchLabelExpressions);
  });
}

// ---- storage/v1 ----

bool read(DecodeContext& ctx, std::string_view msg, StorageClass& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "metadata", out.metadata);
      case 2:
        return get(ctx, f, "provisioner", out.provisioner);
      case 3:
        return get(ctx, f, "parameters", out.parameters);
      case 4:
        return get(ctx, f, "reclaimPolicy", out.reclaimPolicy);
      case 6:
        return get(ctx, f, "allowVolumeExpansion", out.allowVolumeExpansion);
      case 7:
        return get(ctx, f, "volumeBindingMode", out.volumeBindingMode);
      case 8:
        return get(ctx, f, "allowedTopologies", out.allowedTopologies);
      default:
        return true;  // mountOptions
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, VolumeNodeResources& out) {
  return each(ctx, msg, [&](const Field& f) { return f.number != 1 || get(ctx, f, "count", out.count); });
}

bool read(DecodeContext& ctx, std::string_view msg, CSINodeDriver& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "nodeID", out.nodeID);
      case 3:
        return get(ctx, f, "topologyKeys", out.topologyKeys);
      case 4:
        return get(ctx, f, "allocatable", out.allocatable);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, CSINode& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "metadata", out.metadata);
      case 2:
        return embedded(ctx, f, "spec",
                        [&](const Field& s) { return s.number != 1 || get(ctx, s, "drivers", out.drivers); });
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, CSIDriverSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "attachRequired", out.attachRequired);
      case 2:
        return get(ctx, f, "podInfoOnMount", out.podInfoOnMount);
      case 3:
        return get(ctx, f, "volumeLifecycleModes", out.volumeLifecycleModes);
      case 4:
        return get(ctx, f, "storageCapacity", out.storageCapacity);
      case 5:
        return get(ctx, f, "fsGroupPolicy", out.fsGroupPolicy);
      case 11:
        return get(ctx, f, "preventPodSchedulingIfMissing", out.preventPodSchedulingIfMissing);
      default:
        // tokenRequests, requiresRepublish, seLinuxMount, nodeAllocatableUpdatePeriodSeconds,
        // serviceAccountTokenInSecrets
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, CSIDriver& out) {
  return readObject(ctx, msg, out);
}

bool read(DecodeContext& ctx, std::string_view msg, CSIStorageCapacity& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "metadata", out.metadata);
      case 2:
        return get(ctx, f, "nodeTopology", out.nodeTopology);
      case 3:
        return get(ctx, f, "storageClassName", out.storageClassName);
      case 4:
        return get(ctx, f, "capacity", out.capacity);
      case 5:
        return get(ctx, f, "maximumVolumeSize", out.maximumVolumeSize);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, VolumeAttachment& out) {
  auto source = [&](const Field& s) {
    return s.number != 1 || get(ctx, s, "persistentVolumeName", out.persistentVolumeName);
  };
  auto spec = [&](const Field& s) {
    switch (s.number) {
      case 1:
        return get(ctx, s, "attacher", out.attacher);
      case 2:
        return embedded(ctx, s, "source", source);  // inlineVolumeSpec (2) not kept
      case 3:
        return get(ctx, s, "nodeName", out.nodeName);
      default:
        return true;
    }
  };
  auto status = [&](const Field& s) { return s.number != 1 || get(ctx, s, "attached", out.attached); };
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "metadata", out.metadata);
      case 2:
        return embedded(ctx, f, "spec", spec);
      case 3:
        return embedded(ctx, f, "status", status);
      default:
        return true;
    }
  });
}

// ---- policy/v1 ----

bool read(DecodeContext& ctx, std::string_view msg, PodDisruptionBudgetSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "minAvailable", out.minAvailable);
      case 2:
        return get(ctx, f, "selector", out.selector);
      case 3:
        return get(ctx, f, "maxUnavailable", out.maxUnavailable);
      case 4:
        return get(ctx, f, "unhealthyPodEvictionPolicy", out.unhealthyPodEvictionPolicy);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodDisruptionBudgetStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "observedGeneration", out.observedGeneration);
      case 2:
        return get(ctx, f, "disruptedPods", out.disruptedPods);
      case 3:
        return get(ctx, f, "disruptionsAllowed", out.disruptionsAllowed);
      case 4:
        return get(ctx, f, "currentHealthy", out.currentHealthy);
      case 5:
        return get(ctx, f, "desiredHealthy", out.desiredHealthy);
      case 6:
        return get(ctx, f, "expectedPods", out.expectedPods);
      default:
        return true;  // conditions: not kept
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodDisruptionBudget& out) {
  return readObject(ctx, msg, out);
}

// ---- apps/v1 pod owners: the selector (spec field 2 in both) ----

bool read(DecodeContext& ctx, std::string_view msg, ReplicaSetSpec& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 2 || get(ctx, f, "selector", out.selector); });
}

bool read(DecodeContext& ctx, std::string_view msg, StatefulSetSpec& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 2 || get(ctx, f, "selector", out.selector); });
}

bool read(DecodeContext& ctx, std::string_view msg, ReplicaSet& out) {
  return readObject(ctx, msg, out);
}

bool read(DecodeContext& ctx, std::string_view msg, StatefulSet& out) {
  return readObject(ctx, msg, out);
}

}  // namespace ks::api::protocodec
