#pragma once
// CSI migration translation (k8s.io/csi-translation-lib v0.34.4) as far as the scheduler uses it:
// the mapping between the seven migratable in-tree volume plugins and their CSI drivers, and the
// translation of in-tree PersistentVolumes and inline pod volumes into CSI ones. NodeVolumeLimits
// counts translated volumes against the CSI driver's limit (driver + volumeHandle); VolumeBinding
// checks the translated PV's node affinity, where zone/region labels became the driver's topology keys.
//
// The translated PV carries what the scheduler reads: metadata (name, labels, annotations), accessModes,
// volumeMode, claimRef, nodeAffinity and csi {driver, volumeHandle, readOnly}. The CSI fields only the
// kubelet and the external attacher use (fsType, volumeAttributes, secret references) are not modelled.
// StorageClass translation, CSI -> in-tree translation and volume-handle repair are not ported: the
// scheduler calls none of them.
//
// All functions are pure and thread-safe.

#include <string>
#include <string_view>

#include "pkg/api/core.h"
#include "pkg/api/storage.h"
#include "pkg/util/result.h"

namespace ks::volume::csitranslation {

// In-tree plugin names, the CSI drivers that replace them, and the drivers' topology keys.
inline constexpr std::string_view kGCEPDInTreePluginName = "kubernetes.io/gce-pd";
inline constexpr std::string_view kGCEPDDriverName = "pd.csi.storage.gke.io";
inline constexpr std::string_view kGCEPDTopologyKey = "topology.gke.io/zone";

inline constexpr std::string_view kAWSEBSInTreePluginName = "kubernetes.io/aws-ebs";
inline constexpr std::string_view kAWSEBSDriverName = "ebs.csi.aws.com";
inline constexpr std::string_view kAWSEBSTopologyKey = "topology.ebs.csi.aws.com/zone";

inline constexpr std::string_view kAzureDiskInTreePluginName = "kubernetes.io/azure-disk";
inline constexpr std::string_view kAzureDiskDriverName = "disk.csi.azure.com";
inline constexpr std::string_view kAzureDiskTopologyKey = "topology.disk.csi.azure.com/zone";

inline constexpr std::string_view kAzureFileInTreePluginName = "kubernetes.io/azure-file";
inline constexpr std::string_view kAzureFileDriverName = "file.csi.azure.com";

inline constexpr std::string_view kCinderInTreePluginName = "kubernetes.io/cinder";
inline constexpr std::string_view kCinderDriverName = "cinder.csi.openstack.org";
inline constexpr std::string_view kCinderTopologyKey = "topology.cinder.csi.openstack.org/zone";

inline constexpr std::string_view kVSphereInTreePluginName = "kubernetes.io/vsphere-volume";
inline constexpr std::string_view kVSphereDriverName = "csi.vsphere.vmware.com";
inline constexpr std::string_view kVSphereTopologyZoneKey = "topology.csi.vmware.com/zone";
inline constexpr std::string_view kVSphereTopologyRegionKey = "topology.csi.vmware.com/region";

inline constexpr std::string_view kPortworxVolumePluginName = "kubernetes.io/portworx-volume";
inline constexpr std::string_view kPortworxDriverName = "pxd.portworx.com";

// Whether CSI migration is on for the in-tree plugin in v1.34: always for the GA ones (AWS EBS, GCE PD,
// Azure Disk, Cinder), for Portworx with the CSIMigrationPortworx gate, never for the others.
bool isCSIMigrationOnForPlugin(std::string_view inTreePluginName, bool enableCSIMigrationPortworx);
// Whether the node's CSINode lists the plugin in its storage.alpha.kubernetes.io/migrated-plugins
// annotation (the kubelet migrated it there); false without CSINode.
bool isPluginMigratedToCSIOnNode(std::string_view inTreePluginName, const api::CSINode* csiNode);

// Upstream's CSITranslator. Stateless: a member or a temporary works equally well.
class Translator {
 public:
  // Whether the PV's source is one of the migratable in-tree sources.
  bool isPVMigratable(const api::PersistentVolume& pv) const;
  // Whether the inline volume's source is one of the migratable in-tree sources.
  bool isInlineMigratable(const api::Volume& volume) const;
  // Whether `inTreePluginName` (e.g. "kubernetes.io/aws-ebs") is a migratable plugin.
  bool isMigratableIntreePluginByName(std::string_view inTreePluginName) const;
  // Whether `csiDriverName` replaces a migratable in-tree plugin.
  bool isMigratedCSIDriverByName(std::string_view csiDriverName) const;

  // The in-tree plugin of `pv` when it is given, else of `volume`. Errors when the source is not
  // migratable ("could not find in-tree plugin name from persistent volume <name>" / "... from volume
  // <name>") or both are null.
  Result<std::string> getInTreePluginNameFromSpec(const api::PersistentVolume* pv,
                                                  const api::Volume* volume) const;
  // The CSI driver replacing the in-tree plugin, e.g. "kubernetes.io/gce-pd" -> "pd.csi.storage.gke.io".
  Result<std::string> getCSINameFromInTreeName(std::string_view pluginName) const;
  // The in-tree plugin a CSI driver replaces.
  Result<std::string> getInTreeNameFromCSIName(std::string_view csiDriverName) const;

  // A copy of `pv` with its in-tree source replaced by the CSI source and the zone/region topology
  // moved to the driver's keys (GCE PD, AWS EBS, Cinder, vSphere). Errors when the source is not
  // migratable or the plugin rejects it (a malformed EBS volume ID, a non-managed Azure disk, an Azure
  // file share without secret namespace, GCE PD zones of several regions).
  Result<api::PersistentVolume> translateInTreePVToCSI(const api::PersistentVolume& pv) const;
  // A PV standing for the inline volume, with the CSI source the migrated plugin would use; its
  // volumeMode is Filesystem. `podNamespace` is the Azure File secret namespace ("default" when empty).
  Result<api::PersistentVolume> translateInTreeInlineVolumeToCSI(const api::Volume& volume,
                                                                 std::string_view podNamespace) const;
};

}  // namespace ks::volume::csitranslation
