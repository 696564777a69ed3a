// core/v1 Pod and everything it contains (containers, affinity, tolerations, spread constraints, volumes,
// status), and the volume sources PersistentVolume shares. Mirrors pkg/api/json/core_pod.cpp.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "pkg/api/proto/internal.h"

namespace ks::api::protocodec {

bool read(DecodeContext& ctx, std::string_view msg, ContainerResourceClaim& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "request", out.request);
      default:
        return true;
    }
  });
}

// Also reads core/v1 VolumeResourceRequirements (a PVC's), which is {limits = 1, requests = 2}.
bool read(DecodeContext& ctx, std::string_view msg, ResourceRequirements& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "limits", out.limits);
      case 2:
        return get(ctx, f, "requests", out.requests);
      case 3:
        return get(ctx, f, "claims", out.claims);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ContainerPort& out) {
  bool ok = each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "hostPort", out.hostPort);
      case 3:
        return get(ctx, f, "containerPort", out.containerPort);
      case 4:
        return get(ctx, f, "protocol", out.protocol);
      case 5:
        return get(ctx, f, "hostIP", out.hostIP);
      default:
        return true;
    }
  });
  if (out.protocol.empty()) out.protocol = "TCP";  // SetDefaults_ContainerPort; Go writes "" when unset
  return ok;
}

bool read(DecodeContext& ctx, std::string_view msg, ContainerRestartRuleOnExitCodes& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "operator", out.op);
      case 2:
        return get(ctx, f, "values", out.values);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ContainerRestartRule& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "action", out.action);
      case 2:
        return get(ctx, f, "exitCodes", out.exitCodes);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, VolumeMount& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 3:
        return get(ctx, f, "mountPath", out.mountPath);
      case 8:
        return get(ctx, f, "bindMountOptions", out.bindMountOptions);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, Container& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "image", out.image);
      case 6:
        return get(ctx, f, "ports", out.ports);
      case 8:
        return get(ctx, f, "resources", out.resources);
      case 9:
        return get(ctx, f, "volumeMounts", out.volumeMounts);
      case 24:
        return get(ctx, f, "restartPolicy", out.restartPolicy);
      case 25:
        return get(ctx, f, "restartPolicyRules", out.restartPolicyRules);
      default:
        return true;
    }
  });
}

// EphemeralContainer{ephemeralContainerCommon = 1 {name = 1, volumeMounts = 9}, targetContainerName = 2}:
// JSON inlines the common part (no path segment).
bool read(DecodeContext& ctx, std::string_view msg, EphemeralContainer& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return embedded(ctx, f, [&](const Field& c) {
          switch (c.number) {
            case 1:
              return get(ctx, c, "name", out.name);
            case 9:
              return get(ctx, c, "volumeMounts", out.volumeMounts);
            default:
              return true;
          }
        });
      case 2:
        return get(ctx, f, "targetContainerName", out.targetContainerName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, Toleration& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "key", out.key);
      case 2:
        return get(ctx, f, "operator", out.op);
      case 3:
        return get(ctx, f, "value", out.value);
      case 4:
        return get(ctx, f, "effect", out.effect);
      case 5:
        return get(ctx, f, "tolerationSeconds", out.tolerationSeconds);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NodeSelectorRequirement& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "key", out.key);
      case 2:
        return get(ctx, f, "operator", out.op);
      case 3:
        return get(ctx, f, "values", out.values);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NodeSelectorTerm& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "matchExpressions", out.matchExpressions);
      case 2:
        return get(ctx, f, "matchFields", out.matchFields);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NodeSelector& out) {
  return each(ctx, msg, [&](const Field& f) {
    return f.number != 1 || get(ctx, f, "nodeSelectorTerms", out.nodeSelectorTerms);
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PreferredSchedulingTerm& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "weight", out.weight);
      case 2:
        return get(ctx, f, "preference", out.preference);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, NodeAffinity& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "requiredDuringSchedulingIgnoredDuringExecution",
                   out.requiredDuringSchedulingIgnoredDuringExecution);
      case 2:
        return get(ctx, f, "preferredDuringSchedulingIgnoredDuringExecution",
                   out.preferredDuringSchedulingIgnoredDuringExecution);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodAffinityTerm& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "labelSelector", out.labelSelector);
      case 2:
        return get(ctx, f, "namespaces", out.namespaces);
      case 3:
        return get(ctx, f, "topologyKey", out.topologyKey);
      case 4:
        return get(ctx, f, "namespaceSelector", out.namespaceSelector);
      case 5:
        return get(ctx, f, "matchLabelKeys", out.matchLabelKeys);
      case 6:
        return get(ctx, f, "mismatchLabelKeys", out.mismatchLabelKeys);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, WeightedPodAffinityTerm& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "weight", out.weight);
      case 2:
        return get(ctx, f, "podAffinityTerm", out.podAffinityTerm);
      default:
        return true;
    }
  });
}

// PodAffinity and PodAntiAffinity: the same fields and numbers.
bool read(DecodeContext& ctx, std::string_view msg, PodAffinity& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "requiredDuringSchedulingIgnoredDuringExecution",
                   out.requiredDuringSchedulingIgnoredDuringExecution);
      case 2:
        return get(ctx, f, "preferredDuringSchedulingIgnoredDuringExecution",
                   out.preferredDuringSchedulingIgnoredDuringExecution);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, Affinity& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "nodeAffinity", out.nodeAffinity);
      case 2:
        return get(ctx, f, "podAffinity", out.podAffinity);
      case 3:
        return get(ctx, f, "podAntiAffinity", out.podAntiAffinity);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, TopologySpreadConstraint& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "maxSkew", out.maxSkew);
      case 2:
        return get(ctx, f, "topologyKey", out.topologyKey);
      case 3:
        return get(ctx, f, "whenUnsatisfiable", out.whenUnsatisfiable);
      case 4:
        return get(ctx, f, "labelSelector", out.labelSelector);
      case 5:
        return get(ctx, f, "minDomains", out.minDomains);
      case 6:
        return get(ctx, f, "nodeAffinityPolicy", out.nodeAffinityPolicy);
      case 7:
        return get(ctx, f, "nodeTaintsPolicy", out.nodeTaintsPolicy);
      case 8:
        return get(ctx, f, "matchLabelKeys", out.matchLabelKeys);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodSchedulingGate& out) {
  return each(ctx, msg, [&](const Field& f) { return f.number != 1 || get(ctx, f, "name", out.name); });
}

bool read(DecodeContext& ctx, std::string_view msg, PersistentVolumeClaimVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "claimName", out.claimName);
      case 2:
        return get(ctx, f, "readOnly", out.readOnly);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, GCEPersistentDiskVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "pdName", out.pdName);
      case 2:
        return get(ctx, f, "fsType", out.fsType);
      case 3:
        return get(ctx, f, "partition", out.partition);
      case 4:
        return get(ctx, f, "readOnly", out.readOnly);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, AWSElasticBlockStoreVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "volumeID", out.volumeID);
      case 2:
        return get(ctx, f, "fsType", out.fsType);
      case 3:
        return get(ctx, f, "partition", out.partition);
      case 4:
        return get(ctx, f, "readOnly", out.readOnly);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ISCSIVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "targetPortal", out.targetPortal);
      case 2:
        return get(ctx, f, "iqn", out.iqn);
      case 3:
        return get(ctx, f, "lun", out.lun);
      case 6:
        return get(ctx, f, "readOnly", out.readOnly);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, RBDVolumeSource& out) {
  bool ok = each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "monitors", out.monitors);
      case 2:
        return get(ctx, f, "image", out.image);
      case 4:
        return get(ctx, f, "pool", out.pool);
      case 8:
        return get(ctx, f, "readOnly", out.readOnly);
      default:
        return true;
    }
  });
  if (out.pool.empty()) out.pool = "rbd";  // SetDefaults_RBDVolumeSource
  return ok;
}

bool read(DecodeContext& ctx, std::string_view msg, CSIVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) { return f.number != 1 || get(ctx, f, "driver", out.driver); });
}

bool read(DecodeContext& ctx, std::string_view msg, AzureDiskVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "diskName", out.diskName);
      case 2:
        return get(ctx, f, "diskURI", out.diskURI);
      case 5:
        return get(ctx, f, "readOnly", out.readOnly);
      case 6:
        return get(ctx, f, "kind", out.kind);
      default:
        return true;
    }
  });
}

// Also AzureFilePersistentVolumeSource, which adds secretNamespace = 4.
bool read(DecodeContext& ctx, std::string_view msg, AzureFileVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "secretName", out.secretName);
      case 2:
        return get(ctx, f, "shareName", out.shareName);
      case 3:
        return get(ctx, f, "readOnly", out.readOnly);
      case 4:
        return get(ctx, f, "secretNamespace", out.secretNamespace);
      default:
        return true;
    }
  });
}

// Also CinderPersistentVolumeSource (same numbers).
bool read(DecodeContext& ctx, std::string_view msg, CinderVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "volumeID", out.volumeID);
      case 3:
        return get(ctx, f, "readOnly", out.readOnly);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, VsphereVirtualDiskVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "volumePath", out.volumePath);
      case 3:
        return get(ctx, f, "storagePolicyName", out.storagePolicyName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PortworxVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "volumeID", out.volumeID);
      case 3:
        return get(ctx, f, "readOnly", out.readOnly);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ImageVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "reference", out.reference);
      case 2:
        return get(ctx, f, "pullPolicy", out.pullPolicy);
      default:
        return true;
    }
  });
}

// {volumeClaimTemplate = 1 {spec = 2 {storageClassName = 5, resources = 2 {requests = 2}}}}
bool read(DecodeContext& ctx, std::string_view msg, EphemeralVolumeSource& out) {
  return each(ctx, msg, [&](const Field& f) {
    return f.number != 1 || embedded(ctx, f, "volumeClaimTemplate", [&](const Field& tmpl) {
             return tmpl.number != 2 || embedded(ctx, tmpl, "spec", [&](const Field& spec) {
                      if (spec.number == 5) return get(ctx, spec, "storageClassName", out.storageClassName);
                      return spec.number != 2 || embedded(ctx, spec, "resources", [&](const Field& res) {
                               return res.number != 2 || get(ctx, res, "requests", out.requests);
                             });
                    });
           });
  });
}

namespace {

// The VolumeSource members the model does not keep, in the JSON codec's order: Volume::otherSource names
// the first one present.
struct OtherVolumeSource {
  uint32_t number;
  std::string_view name;
};
constexpr OtherVolumeSource kOtherVolumeSources[] = {{1, "hostPath"},    {2, "emptyDir"},
                                                     {5, "gitRepo"},     {6, "secret"},
                                                     {7, "nfs"},         {9, "glusterfs"},
                                                     {12, "flexVolume"}, {14, "cephfs"},
                                                     {15, "flocker"},    {16, "downwardAPI"},
                                                     {17, "fc"},         {19, "configMap"},
                                                     {21, "quobyte"},    {23, "photonPersistentDisk"},
                                                     {26, "projected"},  {25, "scaleIO"},
                                                     {27, "storageos"}};

}  // namespace

bool read(DecodeContext& ctx, std::string_view msg, Volume& out) {
  size_t other = std::size(kOtherVolumeSources);
  // VolumeSource = 2 is inline in JSON: its members have no path segment of their own.
  auto source = [&](const Field& f) {
    switch (f.number) {
      case 3:
        return get(ctx, f, "gcePersistentDisk", out.gcePersistentDisk);
      case 4:
        return get(ctx, f, "awsElasticBlockStore", out.awsElasticBlockStore);
      case 8:
        return get(ctx, f, "iscsi", out.iscsi);
      case 10:
        return get(ctx, f, "persistentVolumeClaim", out.persistentVolumeClaim);
      case 11:
        return get(ctx, f, "rbd", out.rbd);
      case 13:
        return get(ctx, f, "cinder", out.cinder);
      case 18:
        return get(ctx, f, "azureFile", out.azureFile);
      case 20:
        return get(ctx, f, "vsphereVolume", out.vsphereVolume);
      case 22:
        return get(ctx, f, "azureDisk", out.azureDisk);
      case 24:
        return get(ctx, f, "portworxVolume", out.portworxVolume);
      case 28:
        return get(ctx, f, "csi", out.csi);
      case 29:
        return get(ctx, f, "ephemeral", out.ephemeral);
      case 30:
        return get(ctx, f, "image", out.image);
      default:
        for (size_t i = 0; i < other; ++i) {
          if (kOtherVolumeSources[i].number == f.number) other = i;
        }
        return true;
    }
  };
  bool ok = each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return embedded(ctx, f, source);
      default:
        return true;
    }
  });
  if (ok && other < std::size(kOtherVolumeSources)) out.otherSource = kOtherVolumeSources[other].name;
  return ok;
}

bool read(DecodeContext& ctx, std::string_view msg, PodResourceClaim& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 3:
        return get(ctx, f, "resourceClaimName", out.resourceClaimName);
      case 4:
        return get(ctx, f, "resourceClaimTemplateName", out.resourceClaimTemplateName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodSpec& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "volumes", out.volumes);
      case 20:
        return get(ctx, f, "initContainers", out.initContainers);
      case 2:
        return get(ctx, f, "containers", out.containers);
      case 34:
        return get(ctx, f, "ephemeralContainers", out.ephemeralContainers);
      case 3:
        return get(ctx, f, "restartPolicy", out.restartPolicy);
      case 7:
        return get(ctx, f, "nodeSelector", out.nodeSelector);
      case 8:
        return get(ctx, f, "serviceAccountName", out.serviceAccountName);
      case 10:
        return get(ctx, f, "nodeName", out.nodeName);
      case 11:
        return get(ctx, f, "hostNetwork", out.hostNetwork);
      case 37:
        return get(ctx, f, "hostUsers", out.hostUsers);
      case 18:
        return get(ctx, f, "affinity", out.affinity);
      case 19:
        return get(ctx, f, "schedulerName", out.schedulerName);
      case 22:
        return get(ctx, f, "tolerations", out.tolerations);
      case 24:
        return get(ctx, f, "priorityClassName", out.priorityClassName);
      case 25:
        return get(ctx, f, "priority", out.priority);
      case 31:
        return get(ctx, f, "preemptionPolicy", out.preemptionPolicy);
      case 32:
        return get(ctx, f, "overhead", out.overhead);
      case 33:
        return get(ctx, f, "topologySpreadConstraints", out.topologySpreadConstraints);
      case 38:
        return get(ctx, f, "schedulingGates", out.schedulingGates);
      case 39:
        return get(ctx, f, "resourceClaims", out.resourceClaims);
      case 40:
        return get(ctx, f, "resources", out.resources);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodCondition& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "type", out.type);
      case 2:
        return get(ctx, f, "status", out.status);
      case 3:
        return get(ctx, f, "lastProbeTime", out.lastProbeTime);
      case 4:
        return get(ctx, f, "lastTransitionTime", out.lastTransitionTime);
      case 5:
        return get(ctx, f, "reason", out.reason);
      case 6:
        return get(ctx, f, "message", out.message);
      case 7:
        return get(ctx, f, "observedGeneration", out.observedGeneration);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ContainerStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 10:
        return get(ctx, f, "allocatedResources", out.allocatedResources);
      case 11:
        return get(ctx, f, "resources", out.resources);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodResourceClaimStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "name", out.name);
      case 2:
        return get(ctx, f, "resourceClaimName", out.resourceClaimName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, ContainerExtendedResourceRequest& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "containerName", out.containerName);
      case 2:
        return get(ctx, f, "resourceName", out.resourceName);
      case 3:
        return get(ctx, f, "requestName", out.requestName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodExtendedResourceClaimStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "requestMappings", out.requestMappings);
      case 2:
        return get(ctx, f, "resourceClaimName", out.resourceClaimName);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, PodStatus& out) {
  return each(ctx, msg, [&](const Field& f) {
    switch (f.number) {
      case 1:
        return get(ctx, f, "phase", out.phase);
      case 2:
        return get(ctx, f, "conditions", out.conditions);
      case 7:
        return get(ctx, f, "startTime", out.startTime);
      case 8:
        return get(ctx, f, "containerStatuses", out.containerStatuses);
      case 9:
        return get(ctx, f, "qosClass", out.qosClass);
      case 10:
        return get(ctx, f, "initContainerStatuses", out.initContainerStatuses);
      case 11:
        return get(ctx, f, "nominatedNodeName", out.nominatedNodeName);
      case 14:
        return get(ctx, f, "resize", out.resize);
      case 15:
        return get(ctx, f, "resourceClaimStatuses", out.resourceClaimStatuses);
      case 18:
        return get(ctx, f, "extendedResourceClaimStatus", out.extendedResourceClaimStatus);
      case 19:
        return get(ctx, f, "allocatedResources", out.allocatedResources);
      case 20:
        return get(ctx, f, "resources", out.resources);
      default:
        return true;
    }
  });
}

bool read(DecodeContext& ctx, std::string_view msg, Pod& out) {
  bool ok = readObject(ctx, msg, out);
  // SetDefaults_PodSpec, also when spec is absent, as the JSON codec does.
  if (out.spec.schedulerName.empty()) out.spec.schedulerName = "default-scheduler";
  return ok;
}

}  // namespace ks::api::protocodec
