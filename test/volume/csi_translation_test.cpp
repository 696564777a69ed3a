// Ports k8s.io/csi-translation-lib v0.34.4 translate_test.go and plugins/*_test.go for the in-tree ->
// CSI direction (case names are upstream's). Upstream tests the plugins' private helpers directly;
// here they are reached through Translator, which is what the scheduler calls:
//  - TestKubernetesVolumeIDToEBSVolumeID: the volume handle of a translated EBS PV;
//  - TestGetStorageAccount: the account part of a translated inline Azure File volume's handle;
//  - TestBackwardCompatibleAccessModes: the access modes of a translated GCE PD PV;
//  - TestTranslateTopologyFromInTreeToCSI: a translated GCE PD PV;
//  - TestAddTopology: a Cinder PV whose zone label holds the zones joined by "__" (the key is then
//    Cinder's, and "empty zones" means an empty label: addTopology's error leaves the PV without
//    node affinity, which is what the translation shows);
//  - TestReplaceTopology: upstream replaces the GCE CSI key by the GA zone key (the CSI -> in-tree use);
//    here the same terms are translated in-tree -> CSI, with the two keys swapped.
// Plugin-level tests go through Translator too, so inline PVs carry volumeMode Filesystem (translate.go
// adds it) and a source-less volume fails with Translator's message instead of the plugin's.
//
// Skipped upstream cases:
//  - everything about StorageClass translation (TestTranslate*InTreeStorageClassToCSI,
//    TestTranslateAllowedTopologies), CSI -> in-tree translation (TestTranslationStability,
//    the in-tree half of TestTopologyTranslation, TestTranslate*CSIPVToInTree,
//    TestTranslateTopologyFromCSIToInTree, TestGetAwsRegionFromZones, TestIsManagedDisk, TestGetDiskName,
//    TestGetFileShareInfo) and TestRepairVolumeHandle: the scheduler never calls them, so they are not
//    ported;
//  - the "empty volume" / "nil" / "nil PV" cases: a reference cannot be null;
//  - expectations on fsType, volumeAttributes and secret references: the translated PV doesn't model
//    them (see csi_translation.h); the rest of those cases' expected PVs is compared.
#include "pkg/volume/csitranslation/csi_translation.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ks::volume::csitranslation {
namespace {

const std::string kGAZone = "topology.kubernetes.io/zone";
const std::string kGARegion = "topology.kubernetes.io/region";
const std::string kBetaZone = "failure-domain.beta.kubernetes.io/zone";
const std::string kBetaRegion = "failure-domain.beta.kubernetes.io/region";

using Labels = std::map<std::string, std::string>;

api::NodeSelectorRequirement in(std::string key, std::vector<std::string> values) {
  return api::NodeSelectorRequirement{std::move(key), "In", std::move(values)};
}

api::VolumeNodeAffinity affinity(std::vector<std::vector<api::NodeSelectorRequirement>> terms) {
  api::VolumeNodeAffinity a;
  a.required.emplace();
  for (auto& t : terms) a.required->nodeSelectorTerms.push_back(api::NodeSelectorTerm{std::move(t), {}});
  return a;
}

// translate_test.go's makeNodeAffinity: one term with all values, or one term per value.
api::VolumeNodeAffinity makeNodeAffinity(bool multiTerms, const std::string& key,
                                         std::vector<std::string> values) {
  if (!multiTerms) return affinity({{in(key, std::move(values))}});
  std::vector<std::vector<api::NodeSelectorRequirement>> terms;
  for (auto& v : values) terms.push_back({in(key, {v})});
  return affinity(std::move(terms));
}

api::PersistentVolume makePV(Labels labels, std::optional<api::NodeSelectorRequirement> topology) {
  api::PersistentVolume pv;
  pv.metadata.labels = std::move(labels);
  if (topology) pv.spec.nodeAffinity = affinity({{*topology}});
  return pv;
}

api::PersistentVolume makeGCEPDPV(Labels labels, std::optional<api::NodeSelectorRequirement> topology) {
  auto pv = makePV(std::move(labels), std::move(topology));
  pv.spec.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{"test-disk", "ext4", 0, false};
  return pv;
}

api::PersistentVolume makeAWSEBSPV(Labels labels, std::optional<api::NodeSelectorRequirement> topology) {
  auto pv = makePV(std::move(labels), std::move(topology));
  pv.spec.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{"vol01", "ext3", 1, true};
  return pv;
}

api::PersistentVolume makeCinderPV(Labels labels, std::optional<api::NodeSelectorRequirement> topology) {
  auto pv = makePV(std::move(labels), std::move(topology));
  pv.spec.cinder = api::CinderVolumeSource{"vol1", false};
  return pv;
}

api::Volume volumeNamed(std::string name) {
  api::Volume v;
  v.name = std::move(name);
  return v;
}

const Labels kBetaTopologyLabels{{kBetaZone, "us-east-1a"}, {kBetaRegion, "us-east-1"}};
const Labels kGATopologyLabels{{kGAZone, "us-east-1a"}, {kGARegion, "us-east-1"}};
const Labels kRegionalBetaPDLabels{{kBetaZone, "europe-west1-b__europe-west1-c"}};
const Labels kRegionalGAPDLabels{{kGAZone, "europe-west1-b__europe-west1-c"}};

const std::string kGCEKey(kGCEPDTopologyKey);

TEST(CSITranslationTest, TestTopologyTranslation) {
  struct Case {
    std::string name;
    api::PersistentVolume pv;
    api::VolumeNodeAffinity expected;
  };
  auto multiTerms = [] {
    auto pv = makeGCEPDPV({}, in(kGAZone, {"europe-west1-f"}));
    pv.spec.nodeAffinity->required->nodeSelectorTerms.push_back({{in(kGAZone, {"europe-west1-g"})}, {}});
    return pv;
  };
  const std::vector<Case> cases = {
      {"GCE PD with beta zone labels", makeGCEPDPV(kBetaTopologyLabels, std::nullopt),
       makeNodeAffinity(false, kGCEKey, {"us-east-1a"})},
      {"GCE PD with GA kubernetes zone labels", makeGCEPDPV(kGATopologyLabels, std::nullopt),
       makeNodeAffinity(false, kGCEKey, {"us-east-1a"})},
      {"GCE PD with existing topology (beta keys)", makeGCEPDPV({}, in(kBetaZone, {"us-east-2a"})),
       makeNodeAffinity(false, kGCEKey, {"us-east-2a"})},
      {"GCE PD with existing topology (CSI keys)", makeGCEPDPV({}, in(kGCEKey, {"us-east-2a"})),
       makeNodeAffinity(false, kGCEKey, {"us-east-2a"})},
      {"GCE PD with zone labels and topology",
       makeGCEPDPV(kBetaTopologyLabels, in(kBetaZone, {"us-east-2a"})),
       makeNodeAffinity(false, kGCEKey, {"us-east-2a"})},
      {"GCE PD with regional zones", makeGCEPDPV(kRegionalBetaPDLabels, std::nullopt),
       makeNodeAffinity(false, kGCEKey, {"europe-west1-b", "europe-west1-c"})},
      {"GCE PD with regional topology", makeGCEPDPV({}, in(kGAZone, {"europe-west1-b", "europe-west1-c"})),
       makeNodeAffinity(false, kGCEKey, {"europe-west1-b", "europe-west1-c"})},
      {"GCE PD with Beta regional zone and topology",
       makeGCEPDPV(kRegionalBetaPDLabels, in(kBetaZone, {"europe-west1-f", "europe-west1-g"})),
       makeNodeAffinity(false, kGCEKey, {"europe-west1-f", "europe-west1-g"})},
      {"GCE PD with GA regional zone and topology",
       makeGCEPDPV(kRegionalGAPDLabels, in(kGAZone, {"europe-west1-f", "europe-west1-g"})),
       makeNodeAffinity(false, kGCEKey, {"europe-west1-f", "europe-west1-g"})},
      {"GCE PD with multiple node selector terms", multiTerms(),
       makeNodeAffinity(true, kGCEKey, {"europe-west1-f", "europe-west1-g"})},
      {"AWS EBS with beta zone labels", makeAWSEBSPV(kBetaTopologyLabels, std::nullopt),
       makeNodeAffinity(false, std::string(kAWSEBSTopologyKey), {"us-east-1a"})},
      {"AWS EBS with beta zone labels and topology",
       makeAWSEBSPV(kBetaTopologyLabels, in(kBetaZone, {"us-east-2a"})),
       makeNodeAffinity(false, std::string(kAWSEBSTopologyKey), {"us-east-2a"})},
      {"AWS EBS with GA zone labels", makeAWSEBSPV(kGATopologyLabels, std::nullopt),
       makeNodeAffinity(false, std::string(kAWSEBSTopologyKey), {"us-east-1a"})},
      {"AWS EBS with GA zone labels and topology",
       makeAWSEBSPV(kGATopologyLabels, in(kGAZone, {"us-east-2a"})),
       makeNodeAffinity(false, std::string(kAWSEBSTopologyKey), {"us-east-2a"})},
      {"OpenStack Cinder with zone labels", makeCinderPV(kBetaTopologyLabels, std::nullopt),
       makeNodeAffinity(false, std::string(kCinderTopologyKey), {"us-east-1a"})},
      {"OpenStack Cinder with zone labels and topology",
       makeCinderPV(kBetaTopologyLabels, in(kBetaZone, {"us-east-2a"})),
       makeNodeAffinity(false, std::string(kCinderTopologyKey), {"us-east-2a"})},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const api::PersistentVolume original = c.pv;
    auto csiPV = translator.translateInTreePVToCSI(c.pv);
    ASSERT_TRUE(csiPV.ok()) << csiPV.error().message();
    EXPECT_EQ(csiPV->spec.nodeAffinity, c.expected);
    EXPECT_EQ(c.pv, original);  // the input is not modified
  }
}

TEST(CSITranslationTest, TestTranslateInTreeInlineVolumeToCSINameUniqueness) {
  // generateUniqueVolumeSource, with two fixed distinct IDs instead of random UUIDs.
  auto source = [](std::string_view driver, const std::string& id) {
    api::Volume v;
    if (driver == kGCEPDDriverName)
      v.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{id, "", 0, false};
    if (driver == kAWSEBSDriverName)
      v.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{id, "", 0, false};
    if (driver == kCinderDriverName) v.cinder = api::CinderVolumeSource{id, false};
    if (driver == kAzureDiskDriverName) v.azureDisk = api::AzureDiskVolumeSource{id, id, std::nullopt, false};
    if (driver == kAzureFileDriverName) v.azureFile = api::AzureFileVolumeSource{id, id, std::nullopt, false};
    if (driver == kVSphereDriverName) {
      v.vsphereVolume = api::VsphereVirtualDiskVolumeSource{
          " [vsanDatastore] 6785a85e-268e-6352-a2e8-02008b7afadd/kubernetes-dynamic-pvc-" + id + ".vmdk", ""};
    }
    if (driver == kPortworxDriverName) v.portworxVolume = api::PortworxVolumeSource{id, false};
    return v;
  };
  Translator translator;
  for (std::string_view driver :
       {kGCEPDDriverName, kAWSEBSDriverName, kCinderDriverName, kAzureDiskDriverName, kAzureFileDriverName,
        kVSphereDriverName, kPortworxDriverName}) {
    SCOPED_TRACE(driver);
    auto pv1 = translator.translateInTreeInlineVolumeToCSI(source(driver, "0d6f1f6e-1"), "");
    auto pv2 = translator.translateInTreeInlineVolumeToCSI(source(driver, "7c2a9b40-2"), "");
    ASSERT_TRUE(pv1.ok()) << pv1.error().message();
    ASSERT_TRUE(pv2.ok()) << pv2.error().message();
    EXPECT_NE(pv1->metadata.name, pv2->metadata.name);
    ASSERT_TRUE(pv1->spec.csi.has_value());
    EXPECT_EQ(pv1->spec.csi->driver, driver);
  }
}

TEST(CSITranslationTest, TestPluginNameMappings) {
  struct Case {
    std::string name, inTreePluginName, csiPluginName;
  };
  const std::vector<Case> cases = {
      {"GCE PD plugin name", "kubernetes.io/gce-pd", "pd.csi.storage.gke.io"},
      {"AWS EBS plugin name", "kubernetes.io/aws-ebs", "ebs.csi.aws.com"},
      // Not upstream's: the other five mappings.
      {"Cinder plugin name", "kubernetes.io/cinder", "cinder.csi.openstack.org"},
      {"Azure Disk plugin name", "kubernetes.io/azure-disk", "disk.csi.azure.com"},
      {"Azure File plugin name", "kubernetes.io/azure-file", "file.csi.azure.com"},
      {"vSphere plugin name", "kubernetes.io/vsphere-volume", "csi.vsphere.vmware.com"},
      {"Portworx plugin name", "kubernetes.io/portworx-volume", "pxd.portworx.com"},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto csiName = translator.getCSINameFromInTreeName(c.inTreePluginName);
    ASSERT_TRUE(csiName.ok()) << csiName.error().message();
    EXPECT_TRUE(translator.isMigratedCSIDriverByName(*csiName));
    auto inTreeName = translator.getInTreeNameFromCSIName(*csiName);
    ASSERT_TRUE(inTreeName.ok()) << inTreeName.error().message();
    EXPECT_TRUE(translator.isMigratableIntreePluginByName(*inTreeName));
    EXPECT_EQ(*inTreeName, c.inTreePluginName);
    EXPECT_EQ(*csiName, c.csiPluginName);
  }
}

// Not upstream's (translate.go's error paths, which csi.go and binder.go rely on).
TEST(CSITranslationTest, LookupsOfUnknownNamesAndSources) {
  Translator translator;
  auto csi = translator.getCSINameFromInTreeName("kubernetes.io/hostpath");
  ASSERT_FALSE(csi.ok());
  EXPECT_EQ(csi.error().message(), "could not find CSI Driver name for plugin kubernetes.io/hostpath");
  auto inTree = translator.getInTreeNameFromCSIName("hostpath.csi.k8s.io");
  ASSERT_FALSE(inTree.ok());
  EXPECT_EQ(inTree.error().message(),
            "could not find In-Tree driver name for CSI plugin hostpath.csi.k8s.io");
  EXPECT_FALSE(translator.isMigratableIntreePluginByName("kubernetes.io/hostpath"));
  EXPECT_FALSE(translator.isMigratedCSIDriverByName("hostpath.csi.k8s.io"));

  api::PersistentVolume csiPV;
  csiPV.metadata.name = "pv1";
  csiPV.spec.csi = api::CSIPersistentVolumeSource{"ebs.csi.aws.com", "vol-1", false};
  EXPECT_FALSE(translator.isPVMigratable(csiPV));
  auto name = translator.getInTreePluginNameFromSpec(&csiPV, nullptr);
  ASSERT_FALSE(name.ok());
  EXPECT_EQ(name.error().message(), "could not find in-tree plugin name from persistent volume pv1");
  auto translated = translator.translateInTreePVToCSI(csiPV);
  ASSERT_FALSE(translated.ok());
  EXPECT_EQ(translated.error().message(), "could not find in-tree plugin translation logic for \"pv1\"");

  api::Volume emptyDir = volumeNamed("scratch");
  emptyDir.otherSource = "emptyDir";
  EXPECT_FALSE(translator.isInlineMigratable(emptyDir));
  auto volName = translator.getInTreePluginNameFromSpec(nullptr, &emptyDir);
  ASSERT_FALSE(volName.ok());
  EXPECT_EQ(volName.error().message(), "could not find in-tree plugin name from volume scratch");
  auto inline_ = translator.translateInTreeInlineVolumeToCSI(emptyDir, "ns");
  ASSERT_FALSE(inline_.ok());
  EXPECT_EQ(inline_.error().message(), "could not find in-tree plugin translation logic for \"scratch\"");
  auto none = translator.getInTreePluginNameFromSpec(nullptr, nullptr);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message(), "both persistent volume and volume are nil");

  api::Volume pd = volumeNamed("pd");
  pd.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{"disk", "", 0, false};
  EXPECT_TRUE(translator.isInlineMigratable(pd));
  auto pdName = translator.getInTreePluginNameFromSpec(nullptr, &pd);
  ASSERT_TRUE(pdName.ok());
  EXPECT_EQ(*pdName, "kubernetes.io/gce-pd");
}

// ---- plugins/aws_ebs_test.go ----

const std::string kNormalVolumeID = "vol-02399794d890f9375";
const std::string kAWSVolumeID = "aws:///vol-02399794d890f9375";
const std::string kAWSZoneVolumeID = "aws://us-west-2a/vol-02399794d890f9375";
const std::string kInvalidVolumeID = "aws://us-west-2a/02399794d890f9375";

TEST(AWSEBSTest, TestKubernetesVolumeIDToEBSVolumeID) {
  struct Case {
    std::string name, kubernetesID, ebsVolumeID;
    bool expErr = false;
  };
  const std::vector<Case> cases = {
      {"Normal ID format", kNormalVolumeID, kNormalVolumeID},
      {"aws:///{volumeId} format", kAWSVolumeID, kNormalVolumeID},
      {"aws://{zone}/{volumeId} format", kAWSZoneVolumeID, kNormalVolumeID},
      {"fails on invalid volume ID", kInvalidVolumeID, "", true},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::PersistentVolume pv;
    pv.spec.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{c.kubernetesID, "", 0, false};
    auto got = translator.translateInTreePVToCSI(pv);
    ASSERT_EQ(got.ok(), !c.expErr);
    if (got.ok()) {
      EXPECT_EQ(got->spec.csi->volumeHandle, c.ebsVolumeID);
    }
  }
}

// Not upstream's: the messages of malformed IDs (net/url's errors), which reach pod status through
// NodeVolumeLimits' inline-volume error.
TEST(AWSEBSTest, MalformedVolumeIDMessages) {
  struct Case {
    std::string id, message;
  };
  const std::vector<Case> cases = {
      {kInvalidVolumeID,
       "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume "
       "(aws://us-west-2a/02399794d890f9375)"},
      {"aws://vol-1",
       "failed to translate Kubernetes ID to EBS Volume ID Invalid format for AWS volume (aws://vol-1)"},
      {"aws://zone/vol-%zz",
       "failed to translate Kubernetes ID to EBS Volume ID Invalid disk name (aws://zone/vol-%zz): parse "
       "\"aws://zone/vol-%zz\": invalid URL escape \"%zz\""},
      {"aws://zone:x/vol-1",
       "failed to translate Kubernetes ID to EBS Volume ID Invalid disk name (aws://zone:x/vol-1): parse "
       "\"aws://zone:x/vol-1\": invalid port \":x\" after host"},
      {"aws://zo ne/vol-1",
       "failed to translate Kubernetes ID to EBS Volume ID Invalid disk name (aws://zo ne/vol-1): parse "
       "\"aws://zo ne/vol-1\": invalid character \" \" in host name"},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.id);
    api::Volume v = volumeNamed("v");
    v.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{c.id, "", 0, false};
    auto got = translator.translateInTreeInlineVolumeToCSI(v, "");
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().message(), c.message);
  }
  // Escapes and a query are decoded and dropped as net/url does.
  api::Volume v = volumeNamed("v");
  v.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{"aws://zone/vol-%41?x=1#frag", "", 0, false};
  auto got = translator.translateInTreeInlineVolumeToCSI(v, "");
  ASSERT_TRUE(got.ok()) << got.error().message();
  EXPECT_EQ(got->spec.csi->volumeHandle, "vol-A");
}

TEST(AWSEBSTest, TestTranslateInTreeInlineVolumeToCSI) {
  struct Case {
    std::string name;
    std::optional<std::string> volumeID;  // nullopt: an empty volume source
    std::string expPVName;
    bool expErr = false;
  };
  const std::vector<Case> cases = {
      {"Normal ID format", kNormalVolumeID, "ebs.csi.aws.com-" + kNormalVolumeID},
      {"aws:///{volumeId} format", kAWSVolumeID, "ebs.csi.aws.com-" + kNormalVolumeID},
      {"aws://{zone}/{volumeId} format", kAWSZoneVolumeID, "ebs.csi.aws.com-" + kNormalVolumeID},
      {"fails on invalid volume ID", kInvalidVolumeID, "", true},
      {"fails on empty volume source", std::nullopt, "", true},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::Volume v = volumeNamed("volume");
    if (c.volumeID) v.awsElasticBlockStore = api::AWSElasticBlockStoreVolumeSource{*c.volumeID, "", 0, false};
    auto got = translator.translateInTreeInlineVolumeToCSI(v, "");
    ASSERT_EQ(got.ok(), !c.expErr);
    if (!got.ok()) continue;
    EXPECT_EQ(got->metadata.name, c.expPVName);
    EXPECT_EQ(got->spec.csi->volumeHandle, kNormalVolumeID);
  }
}

// ---- plugins/azure_disk_test.go ----

TEST(AzureDiskTest, TestTranslateAzureDiskInTreeInlineVolumeToCSI) {
  struct Case {
    std::string name;
    api::Volume volume;
    std::optional<api::PersistentVolume> expVol;  // nullopt: an error
  };
  api::Volume disk;
  disk.azureDisk = api::AzureDiskVolumeSource{"diskname", "datadiskuri", std::nullopt, false};
  api::Volume blob = disk;
  blob.azureDisk->kind = "Dedicated";
  api::PersistentVolume want;
  want.metadata.name = "datadiskuri";
  want.spec.csi = api::CSIPersistentVolumeSource{"disk.csi.azure.com", "datadiskuri", false};
  want.spec.accessModes = {"ReadWriteOnce"};
  want.spec.volumeMode = "Filesystem";
  const std::vector<Case> cases = {
      {"no azure disk volume", api::Volume{}, std::nullopt},
      {"azure disk volume", disk, want},
      {"azure disk volume with non-managed kind", blob, std::nullopt},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = translator.translateInTreeInlineVolumeToCSI(c.volume, "");
    ASSERT_EQ(got.ok(), c.expVol.has_value());
    if (got.ok()) {
      EXPECT_EQ(*got, *c.expVol);
    }
  }
  auto err = translator.translateInTreeInlineVolumeToCSI(blob, "");
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().message(), "kind(Dedicated) is not supported in csi migration");
}

TEST(AzureDiskTest, TestTranslateAzureDiskInTreePVToCSI) {
  const std::string diskURI = "/subscriptions/12/resourceGroups/23/providers/Microsoft.Compute/disks/name";
  struct Case {
    std::string name;
    api::PersistentVolume volume;
    std::optional<api::PersistentVolume> expVol;
  };
  api::PersistentVolume disk;
  disk.spec.azureDisk = api::AzureDiskVolumeSource{"", diskURI, std::nullopt, true};
  api::PersistentVolume blob = disk;
  blob.spec.azureDisk->kind = "Dedicated";
  api::PersistentVolume want;
  want.spec.csi = api::CSIPersistentVolumeSource{"disk.csi.azure.com", diskURI, true};
  const std::vector<Case> cases = {
      {"no azure disk volume", api::PersistentVolume{}, std::nullopt},
      {"azure disk volume", disk, want},
      {"azure disk volume with non-managed kind", blob, std::nullopt},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = translator.translateInTreePVToCSI(c.volume);
    ASSERT_EQ(got.ok(), c.expVol.has_value());
    if (got.ok()) {
      EXPECT_EQ(*got, *c.expVol);
    }
  }
}

// ---- plugins/azure_file_test.go ----

TEST(AzureFileTest, TestTranslateAzureFileInTreePVToCSI) {
  struct Case {
    std::string name;
    api::PersistentVolume volume;
    std::optional<api::PersistentVolume> expVol;
  };
  auto pv = [](std::optional<std::string> rg, std::optional<std::string> secretNamespace,
               std::optional<std::string> claimNamespace) {
    api::PersistentVolume p;
    p.metadata.name = "uuid";
    if (rg) p.metadata.annotations["kubernetes.io/azure-file-resource-group"] = *rg;
    p.spec.azureFile = api::AzureFileVolumeSource{"secretname", "sharename", secretNamespace, true};
    if (claimNamespace) {
      p.spec.claimRef.emplace();
      p.spec.claimRef->namespace_ = *claimNamespace;
    }
    return p;
  };
  auto translated = [](api::PersistentVolume p, std::string handle) {
    p.spec.azureFile.reset();
    p.spec.csi = api::CSIPersistentVolumeSource{"file.csi.azure.com", std::move(handle), true};
    return p;
  };
  const std::vector<Case> cases = {
      {"no azure file volume", api::PersistentVolume{}, std::nullopt},
      {"return error if secret namespace could not be found", pv("rg", std::nullopt, std::nullopt),
       std::nullopt},
      {"azure file volume", pv(std::nullopt, "secretnamespace", std::nullopt),
       translated(pv(std::nullopt, "secretnamespace", std::nullopt),
                  "#secretname#sharename#uuid#secretnamespace")},
      {"azure file volume with rg annotation", pv("rg", "secretnamespace", std::nullopt),
       translated(pv("rg", "secretnamespace", std::nullopt), "rg#secretname#sharename#uuid#secretnamespace")},
      {"get secret namespace from ClaimRef when it's missing in pv spec source",
       pv("rg", std::nullopt, "secretnamespace"),
       translated(pv("rg", std::nullopt, "secretnamespace"), "rg#secretname#sharename#uuid#secretnamespace")},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = translator.translateInTreePVToCSI(c.volume);
    ASSERT_EQ(got.ok(), c.expVol.has_value()) << (got.ok() ? "" : got.error().message());
    if (got.ok()) {
      EXPECT_EQ(*got, *c.expVol);
    }
  }
  auto err = translator.translateInTreePVToCSI(pv("rg", std::nullopt, std::nullopt));
  ASSERT_FALSE(err.ok());
  EXPECT_EQ(err.error().message(), "could not find a secret namespace in PersistentVolumeSource or ClaimRef");
}

TEST(AzureFileTest, TestGetStorageAccount) {
  struct Case {
    std::string secretName;
    std::string account;  // the secret name itself when it doesn't match
  };
  const std::vector<Case> cases = {
      {"azure-storage-account-accountname-secret", "accountname"},
      {"azure-storage-account-accountname-dup-secret", "accountname-dup"},
      {"invalid", "invalid"},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.secretName);
    api::Volume v = volumeNamed("vol");
    v.azureFile = api::AzureFileVolumeSource{c.secretName, "share", std::nullopt, false};
    auto got = translator.translateInTreeInlineVolumeToCSI(v, "");
    ASSERT_TRUE(got.ok()) << got.error().message();
    // Not upstream's: the inline handle and PV (default secret namespace without a pod namespace).
    EXPECT_EQ(got->spec.csi->volumeHandle, "#" + c.account + "#share#vol#default");
    EXPECT_EQ(got->metadata.name, got->spec.csi->volumeHandle);
    EXPECT_EQ(got->spec.accessModes, std::vector<std::string>{"ReadWriteMany"});
  }
  api::Volume v = volumeNamed("vol");
  v.azureFile = api::AzureFileVolumeSource{"azure-storage-account-acc-secret", "share", std::nullopt, true};
  auto got = translator.translateInTreeInlineVolumeToCSI(v, "podns");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->spec.csi->volumeHandle, "#acc#share#vol#podns");
  EXPECT_TRUE(got->spec.csi->readOnly);
}

// ---- plugins/gce_pd_test.go ----

TEST(GCEPDTest, TestBackwardCompatibleAccessModes) {
  struct Case {
    std::string name;
    std::vector<std::string> accessModes, expAccessModes;
  };
  const std::vector<Case> cases = {
      {"ROX", {"ReadOnlyMany"}, {"ReadOnlyMany"}},
      {"RWO", {"ReadWriteOnce"}, {"ReadWriteOnce"}},
      {"RWX", {"ReadWriteMany"}, {"ReadWriteOnce"}},
      {"RWO, ROX", {"ReadOnlyMany", "ReadWriteOnce"}, {"ReadWriteOnce"}},
      {"RWO, RWX", {"ReadWriteOnce", "ReadWriteMany"}, {"ReadWriteOnce"}},
      {"RWX, ROX", {"ReadWriteMany", "ReadOnlyMany"}, {"ReadWriteOnce"}},
      {"RWX, ROX, RWO", {"ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany"}, {"ReadWriteOnce"}},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto pv = makeGCEPDPV({}, std::nullopt);
    pv.spec.accessModes = c.accessModes;
    auto got = translator.translateInTreePVToCSI(pv);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->spec.accessModes, c.expAccessModes);
  }
}

TEST(GCEPDTest, TestInlineReadOnly) {
  api::Volume v;
  v.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{"foo", "", 0, true};
  auto pv = Translator().translateInTreeInlineVolumeToCSI(v, "");
  ASSERT_TRUE(pv.ok()) << pv.error().message();
  ASSERT_TRUE(pv->spec.csi.has_value());
  EXPECT_TRUE(pv->spec.csi->readOnly);
  EXPECT_EQ(pv->spec.accessModes, std::vector<std::string>{"ReadOnlyMany"});
  // Not upstream's: the rest of the inline PV.
  EXPECT_EQ(pv->metadata.name, "pd.csi.storage.gke.io-foo");
  EXPECT_EQ(pv->spec.csi->volumeHandle, "projects/UNSPECIFIED/zones/UNSPECIFIED/disks/foo");
  EXPECT_EQ(pv->spec.volumeMode, "Filesystem");
}

TEST(GCEPDTest, TestTranslateInTreePVToCSIVolIDFmt) {
  struct Case {
    std::string desc, topologyLabelKey, topologyLabelValue, wantVolId;
  };
  const std::vector<Case> cases = {
      {"beta topology key zonal", kBetaZone, "us-east1-a",
       "projects/UNSPECIFIED/zones/us-east1-a/disks/pd-name"},
      {"v1 topology key zonal", kGAZone, "us-east1-a", "projects/UNSPECIFIED/zones/us-east1-a/disks/pd-name"},
      {"beta topology key regional", kBetaZone, "us-central1-a__us-central1-c",
       "projects/UNSPECIFIED/regions/us-central1/disks/pd-name"},
      {"v1 topology key regional", kGAZone, "us-central1-a__us-central1-c",
       "projects/UNSPECIFIED/regions/us-central1/disks/pd-name"},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.desc);
    api::PersistentVolume pv;
    pv.metadata.labels[c.topologyLabelKey] = c.topologyLabelValue;
    pv.spec.gcePersistentDisk = api::GCEPersistentDiskVolumeSource{"pd-name", "", 0, false};
    auto got = translator.translateInTreePVToCSI(pv);
    ASSERT_TRUE(got.ok()) << got.error().message();
    EXPECT_EQ(got->spec.csi->volumeHandle, c.wantVolId);
  }
}

// Not upstream's: the regional-zone errors of gceGetRegionFromZones.
TEST(GCEPDTest, RegionalZonesOfSeveralRegionsFail) {
  Translator translator;
  auto pv = makeGCEPDPV({{kGAZone, "us-central1-a__europe-west1-b"}}, std::nullopt);
  auto got = translator.translateInTreePVToCSI(pv);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message(),
            "failed to get region from zones: multiple or no regions gotten from zones, got: "
            "map[europe-west1:{} us-central1:{}]");
  pv = makeGCEPDPV({{kGAZone, "zone1__us-central1-a"}}, std::nullopt);
  got = translator.translateInTreePVToCSI(pv);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(
      got.error().message(),
      "failed to get region from zones: zone in unexpected format, expected: {locale}-{region}-{zone}, got: "
      "zone1");
}

// ---- plugins/in_tree_volume_test.go ----

TEST(InTreeVolumeTest, TestTranslateTopologyFromInTreeToCSI) {
  const Labels useast1aGALabels{{kGAZone, "us-east1-a"}, {kGARegion, "us-east1"}};
  struct Case {
    std::string name;
    std::vector<api::NodeSelectorRequirement> term;
    std::vector<api::NodeSelectorRequirement> expectedTerm;
  };
  const std::vector<Case> cases = {
      {"Replace GA Kubernetes Zone Topology to GCE CSI Topology",
       {in(kGAZone, {"us-east1-a"}), in(kGARegion, {"us-east1"})},
       {in(kGCEKey, {"us-east1-a"}), in(kGARegion, {"us-east1"})}},
      {"Replace Beta Kubernetes Topology to GCE CSI Topology and upgrade region label",
       {in(kBetaZone, {"us-west2-b"}), in(kBetaRegion, {"us-west2"})},
       {in(kGCEKey, {"us-west2-b"}), in(kGARegion, {"us-west2"})}},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::PersistentVolume pv = makeGCEPDPV(useast1aGALabels, std::nullopt);
    pv.metadata.name = "gcepd";
    pv.spec.nodeAffinity = affinity({c.term});
    auto got = translator.translateInTreePVToCSI(pv);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->spec.nodeAffinity, affinity({c.expectedTerm}));
  }
}

TEST(InTreeVolumeTest, TestAddTopology) {
  const std::string cinderKey(kCinderTopologyKey);
  struct Case {
    std::string name;
    std::string zones;  // joined by "__" into the zone label
    std::optional<api::VolumeNodeAffinity> expectedAffinity;
  };
  const std::vector<Case> cases = {
      {"empty zones", "", std::nullopt},
      {"only whitespace-named zones", " __\n__\t__  ", std::nullopt},
      {"including whitespace-named zones", " __us-central1-a",
       affinity({{in(cinderKey, {"us-central1-a"})}})},
      {"unsorted zones", "us-central1-f__us-central1-a__us-central1-c__us-central1-b",
       affinity({{in(cinderKey, {"us-central1-a", "us-central1-b", "us-central1-c", "us-central1-f"})}})},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = translator.translateInTreePVToCSI(makeCinderPV({{kGAZone, c.zones}}, std::nullopt));
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->spec.nodeAffinity, c.expectedAffinity);
  }
}

TEST(InTreeVolumeTest, TestReplaceTopology) {
  struct Case {
    std::string name;
    std::vector<std::vector<api::NodeSelectorRequirement>> terms, expected;
  };
  const std::vector<Case> cases = {
      {"Replace single csi topology from PV",
       {{in(kGAZone, {"us-east1-a"})}},
       {{in(kGCEKey, {"us-east1-a"})}}},
      {"Not found the topology key so do nothing",
       {{in(kGCEKey, {"us-east1-a"})}},
       {{in(kGCEKey, {"us-east1-a"})}}},
      {"Replace the topology key from multiple terms",
       {{in(kGAZone, {"us-east1-a"})}, {in(kGAZone, {"us-east1-c"})}},
       {{in(kGCEKey, {"us-east1-a"})}, {in(kGCEKey, {"us-east1-c"})}}},
      {"Replace the topology key from single term and not combine topology key",
       {{in(kGAZone, {"us-east1-a"}), in(kGCEKey, {"us-east1-c"})}},
       {{in(kGCEKey, {"us-east1-a"}), in(kGCEKey, {"us-east1-c"})}}},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    api::PersistentVolume pv = makeGCEPDPV({}, std::nullopt);
    pv.spec.nodeAffinity = affinity(c.terms);
    auto got = translator.translateInTreePVToCSI(pv);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->spec.nodeAffinity, affinity(c.expected));
  }
}

// ---- plugins/portworx_test.go ----

TEST(PortworxTest, TestTranslatePortworxInTreeInlineVolumeToCSI) {
  api::Volume v = volumeNamed("PortworxVol");
  v.portworxVolume = api::PortworxVolumeSource{"ID", false};
  api::PersistentVolume want;
  want.metadata.name = "pxd.portworx.com-ID";
  want.spec.csi = api::CSIPersistentVolumeSource{"pxd.portworx.com", "ID", false};
  want.spec.accessModes = {"ReadWriteOnce"};
  want.spec.volumeMode = "Filesystem";
  auto got = Translator().translateInTreeInlineVolumeToCSI(v, "ns");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, want);
}

TEST(PortworxTest, TestTranslatePortworxInTreePVToCSI) {
  struct Case {
    std::string name;
    api::PersistentVolume inTree;
    std::optional<api::PersistentVolume> csi;
  };
  auto pv = [](bool source, bool secretAnnotations) {
    api::PersistentVolume p;
    p.metadata.name = "pxd.portworx.com";
    if (secretAnnotations) {
      p.metadata.annotations = {{"openstorage.io/auth-secret-name", "test-secret"},
                                {"openstorage.io/auth-secret-namespace", "test-namespace"}};
    }
    p.spec.accessModes = {"ReadWriteOnce"};
    p.spec.claimRef.emplace();
    p.spec.claimRef->name = "test-pvc";
    p.spec.claimRef->namespace_ = "default";
    if (source) p.spec.portworxVolume = api::PortworxVolumeSource{"ID1111", false};
    return p;
  };
  auto translated = [&pv](bool secretAnnotations) {
    api::PersistentVolume p = pv(false, secretAnnotations);
    p.spec.csi = api::CSIPersistentVolumeSource{"pxd.portworx.com", "ID1111", false};
    return p;
  };
  const std::vector<Case> cases = {
      {"no Portworx volume", pv(false, false), std::nullopt},
      {"normal", pv(true, false), translated(false)},
      {"with secret annotations", pv(true, true), translated(true)},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = translator.translateInTreePVToCSI(c.inTree);
    ASSERT_EQ(got.ok(), c.csi.has_value());
    if (got.ok()) {
      EXPECT_EQ(*got, *c.csi);
    }
  }
}

// ---- plugins/vsphere_volume_test.go ----

TEST(VSphereTest, TestTranslateVSphereInTreePVToCSI) {
  const std::string path =
      "[vsanDatastore] 6785a85e-268e-6352-a2e8-02008b7afadd/kubernetes-dynamic-pvc-68734c9f-a679-42e6-a694-"
      "39632c51e31f.vmdk";
  struct Case {
    std::string name;
    api::PersistentVolume intreePV;
    std::optional<api::PersistentVolume> csiPV;
  };
  auto pv = [&path](Labels labels) {
    api::PersistentVolume p;
    p.metadata.name = "pvc-d8b4475f-2c47-486e-9b57-43ae006f9b59";
    p.metadata.labels = std::move(labels);
    p.spec.vsphereVolume = api::VsphereVirtualDiskVolumeSource{path, "vSAN Default Storage Policy"};
    p.spec.accessModes = {"ReadWriteOnce"};
    return p;
  };
  auto translated = [&pv, &path](Labels labels, bool topology) {
    api::PersistentVolume p = pv(std::move(labels));
    p.spec.vsphereVolume.reset();
    p.spec.csi = api::CSIPersistentVolumeSource{"csi.vsphere.vmware.com", path, false};
    if (topology) {
      p.spec.nodeAffinity = affinity(
          {{in("topology.csi.vmware.com/zone", {"z1"}), in("topology.csi.vmware.com/region", {"r1"})}});
    }
    return p;
  };
  const Labels beta{{kBetaZone, "z1"}, {kBetaRegion, "r1"}};
  const Labels ga{{kGAZone, "z1"}, {kGARegion, "r1"}};
  const std::vector<Case> cases = {
      {"expect error when in-tree vsphere PV is nil", api::PersistentVolume{}, std::nullopt},
      {"translate valid vSphere in-tree PV to vSphere CSI PV", pv({}), translated({}, false)},
      {"translate valid vSphere in-tree PV with beta topology labels to vSphere CSI PV", pv(beta),
       translated(beta, true)},
      {"translate valid vSphere in-tree PV with GA topology labels to vSphere CSI PV", pv(ga),
       translated(ga, true)},
  };
  Translator translator;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    auto got = translator.translateInTreePVToCSI(c.intreePV);
    ASSERT_EQ(got.ok(), c.csiPV.has_value());
    if (got.ok()) {
      EXPECT_EQ(*got, *c.csiPV);
    }
  }
}

TEST(VSphereTest, TestTranslatevSphereInTreeInlineVolumeToCSI) {
  Translator translator;
  EXPECT_FALSE(translator.translateInTreeInlineVolumeToCSI(api::Volume{}, "").ok());

  api::Volume v = volumeNamed("inlinevolume");
  v.vsphereVolume = api::VsphereVirtualDiskVolumeSource{"[vsanDatastore] volume/inlinevolume.vmdk", ""};
  api::PersistentVolume want;
  want.metadata.name = "csi.vsphere.vmware.com-[vsanDatastore] volume/inlinevolume.vmdk";
  want.spec.csi = api::CSIPersistentVolumeSource{"csi.vsphere.vmware.com",
                                                 "[vsanDatastore] volume/inlinevolume.vmdk", false};
  want.spec.accessModes = {"ReadWriteOnce"};
  want.spec.volumeMode = "Filesystem";
  auto got = translator.translateInTreeInlineVolumeToCSI(v, "");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, want);
}

}  // namespace
}  // namespace ks::volume::csitranslation
