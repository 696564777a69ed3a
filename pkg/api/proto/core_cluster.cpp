// core/v1 Node, Namespace, PersistentVolume, PersistentVolumeClaim, Service and ReplicationController.
// Mirrors pkg/api/json/core_cluster.cpp (and the Service/ReplicationController readers of other.cpp).

#include <string_view>

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

bool read(DecodeContext& ctx, std::string_view msg, Taint& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "key", out.key);
      case 2:
        return get(ctx, f, "value", out.value);
      case 3:
        return get(ctx, f, "effect", out.effect);
      case 4:
        return get(ctx, f, "timeAdded", out.timeAdded);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NodeSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "podCIDR", out.podCIDR);
      case 3:
        return get(ctx, f, "providerID", out.providerID);
      case 4:
        return get(ctx, f, "unschedulable", out.unschedulable);
      case 5:
        return get(ctx, f, "taints", out.taints);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NodeCondition& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "type", out.type);
      case 2:
        return get(ctx, f, "status", out.status);
      case 3:
        return get(ctx, f, "lastHeartbeatTime", out.lastHeartbeatTime);
      case 4:
        return get(ctx, f, "lastTransitionTime", out.lastTransitionTime);
      case 5:
        return get(ctx, f, "reason", out.reason);
      case 6:
        return get(ctx, f, "message", out.message);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NodeAddress& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "type", out.type);
      case 2:
        return get(ctx, f, "address", out.address);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ContainerImage& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "names", out.names);
      case 2:
        return get(ctx, f, "sizeBytes", out.sizeBytes);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NodeStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "capacity", out.capacity);
      case 2:
        return get(ctx, f, "allocatable", out.allocatable);
      case 4:
        return get(ctx, f, "conditions", out.conditions);
      case 5:
        return get(ctx, f, "addresses", out.addresses);
      case 8:
        return get(ctx, f, "images", out.images);
      case 14:
        return get(ctx, f, "declaredFeatures", out.declaredFeatures);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, Node& out) {
  return readObject(ctx, msg, out);
}

namespace {

// status = 3 {phase = 1}, which the model keeps as the object's `phase` (Namespace, PersistentVolume).
bool statusPhase(DecodeContext& ctx, const Field& f, std::string& phase) {
  return embedded(ctx, f, "status",
                  [&](const Field& s) { return s.number != 1 || get(ctx, s, "phase", phase); });
}

}  // namespace

bool read(DecodeContext& ctx, std::string_view msg, Namespace& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "metadata", out.metadata);
      case 3:
        return statusPhase(ctx, f, out.phase);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, VolumeNodeAffinity& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 1 || get(ctx, f, "required", out.required); });
}

bool read(DecodeContext& ctx, std::string_view msg, CSIPersistentVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "driver", out.driver);
      case 2:
        return get(ctx, f, "volumeHandle", out.volumeHandle);
      case 3:
        return get(ctx, f, "readOnly", out.readOnly);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PersistentVolumeSpec& out) {
  // PersistentVolumeSource = 2 is inline in JSON: its members have no path segment of their own.
  auto source = [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "gcePersistentDisk", out.gcePersistentDisk);
      case 2:
        return get(ctx, f, "awsElasticBlockStore", out.awsElasticBlockStore);
      case 8:
        return get(ctx, f, "cinder", out.cinder);
      case 13:
        return get(ctx, f, "azureFile", out.azureFile);
      case 14:
        return get(ctx, f, "vsphereVolume", out.vsphereVolume);
      case 16:
        return get(ctx, f, "azureDisk", out.azureDisk);
      case 18:
        return get(ctx, f, "portworxVolume", out.portworxVolume);
      case 22:
        return get(ctx, f, "csi", out.csi);
      default:
        return true;
    }
  };
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "capacity", out.capacity);
      case 2:
        return embedded(ctx, f, source);
      case 3:
        return get(ctx, f, "accessModes", out.accessModes);
      case 4:
        return get(ctx, f, "claimRef", out.claimRef);
      case 5:
        return get(ctx, f, "persistentVolumeReclaimPolicy", out.persistentVolumeReclaimPolicy);
      case 6:
        return get(ctx, f, "storageClassName", out.storageClassName);
      case 8:
        return get(ctx, f, "volumeMode", out.volumeMode);
      case 9:
        return get(ctx, f, "nodeAffinity", out.nodeAffinity);
      case 10:
        return get(ctx, f, "volumeAttributesClassName", out.volumeAttributesClassName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PersistentVolume& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "metadata", out.metadata);
      case 2:
        return get(ctx, f, "spec", out.spec);
      case 3:
        return statusPhase(ctx, f, out.phase);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PersistentVolumeClaimSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "accessModes", out.accessModes);
      case 2:
        return get(ctx, f, "resources", out.resources);  // VolumeResourceRequirements
      case 3:
        return get(ctx, f, "volumeName", out.volumeName);
      case 4:
        return get(ctx, f, "selector", out.selector);
      case 5:
        return get(ctx, f, "storageClassName", out.storageClassName);
      case 6:
        return get(ctx, f, "volumeMode", out.volumeMode);
      case 9:
        return get(ctx, f, "volumeAttributesClassName", out.volumeAttributesClassName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PersistentVolumeClaimStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "phase", out.phase);
      case 2:
        return get(ctx, f, "accessModes", out.accessModes);
      case 3:
        return get(ctx, f, "capacity", out.capacity);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PersistentVolumeClaim& out) {
  return readObject(ctx, msg, out);
}

// ServiceSpec and ReplicationControllerSpec both carry the pod selector as selector = 2.
bool read(DecodeContext& ctx, std::string_view msg, ServiceSpec& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 2 || get(ctx, f, "selector", out.selector); });
}

bool read(DecodeContext& ctx, std::string_view msg, ReplicationControllerSpec& out) {
  return each(ctx, msg,
              [&](const Field& f) { return f.number != 2 || get(ctx, f, "selector", out.selector); });
}

bool read(DecodeContext& ctx, std::string_view msg, Service& out) {
  return readObject(ctx, msg, out);
}

bool read(DecodeContext& ctx, std::string_view msg, ReplicationController& out) {
  return readObject(ctx, msg, out);
}

}  // namespace ks::api::protocodec
