// Decoding realistic objects (as kubectl get -o json / -o yaml prints them), checking specific fields,
// and encode -> decode round trips.

#include <gtest/gtest.h>

#include "test/api/json/test_util.h"

namespace ks::api {
namespace {

using testing::at;
using testing::expectRoundTrip;
using testing::loadFixture;
using testing::readTestdata;

TEST(PodCodec, DecodesMetadata) {
  Pod pod = loadFixture<Pod>("pod.json");
  EXPECT_EQ(pod.metadata.name, "web-7d4b9c8f5d-x2x7k");
  EXPECT_EQ(pod.metadata.namespace_, "shop");
  EXPECT_EQ(pod.metadata.generateName, "web-7d4b9c8f5d-");
  EXPECT_EQ(pod.metadata.uid, "c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f");
  EXPECT_EQ(pod.metadata.resourceVersion, "918273");
  EXPECT_EQ(pod.metadata.labels.at("pod-template-hash"), "7d4b9c8f5d");
  EXPECT_EQ(pod.metadata.annotations.at("kubectl.kubernetes.io/restartedAt"), "2024-05-01T10:00:00Z");
  ASSERT_TRUE(pod.metadata.creationTimestamp.has_value());
  EXPECT_EQ(formatTime(*pod.metadata.creationTimestamp), "2024-05-02T08:15:30Z");
  ASSERT_EQ(pod.metadata.ownerReferences.size(), 1u);
  const OwnerReference& owner = pod.metadata.ownerReferences[0];
  EXPECT_EQ(owner.kind, "ReplicaSet");
  EXPECT_EQ(owner.apiVersion, "apps/v1");
  EXPECT_EQ(owner.controller, std::optional<bool>(true));
  EXPECT_EQ(owner.blockOwnerDeletion, std::optional<bool>(true));
}

TEST(PodCodec, DecodesContainersPortsAndResources) {
  Pod pod = loadFixture<Pod>("pod.json");
  const PodSpec& spec = pod.spec;
  ASSERT_EQ(spec.containers.size(), 1u);
  const Container& web = spec.containers[0];
  EXPECT_EQ(web.image, "registry.example.com/web:1.4.2");
  EXPECT_EQ(web.resources.requests.at("cpu").milliValue(), 250);
  EXPECT_EQ(web.resources.requests.at("memory").value(), 256LL * 1024 * 1024);
  EXPECT_EQ(web.resources.requests.at("ephemeral-storage").value(), 1LL << 30);
  EXPECT_EQ(web.resources.limits.at("cpu").milliValue(), 1000);
  ASSERT_EQ(web.ports.size(), 3u);
  EXPECT_EQ(web.ports[0].hostPort, 80);
  EXPECT_EQ(web.ports[0].containerPort, 8080);
  EXPECT_EQ(web.ports[0].protocol, "TCP");
  EXPECT_EQ(web.ports[1].hostPort, 0);
  EXPECT_EQ(web.ports[1].protocol, "TCP");  // defaulted
  EXPECT_EQ(web.ports[2].protocol, "UDP");
  EXPECT_EQ(web.ports[2].hostIP, "10.0.0.5");
  EXPECT_FALSE(web.restartPolicy.has_value());

  ASSERT_EQ(spec.initContainers.size(), 2u);
  EXPECT_FALSE(spec.initContainers[0].restartPolicy.has_value());
  EXPECT_EQ(spec.initContainers[1].restartPolicy, std::optional<std::string>("Always"));  // sidecar
  EXPECT_EQ(spec.initContainers[1].resources.requests.at("memory").value(), 64LL * 1024 * 1024);

  EXPECT_EQ(spec.overhead.at("cpu").milliValue(), 250);
  EXPECT_EQ(spec.overhead.at("memory").value(), 120LL * 1024 * 1024);
  EXPECT_EQ(spec.priority, std::optional<int32_t>(1000));
  EXPECT_EQ(spec.priorityClassName, "high");
  EXPECT_EQ(spec.preemptionPolicy, std::optional<std::string>("PreemptLowerPriority"));
  EXPECT_EQ(spec.schedulerName, "default-scheduler");
  EXPECT_EQ(spec.serviceAccountName, "web");
  EXPECT_EQ(spec.restartPolicy, "Always");
  EXPECT_EQ(spec.nodeSelector.at("kubernetes.io/arch"), "amd64");
  ASSERT_EQ(spec.schedulingGates.size(), 1u);
  EXPECT_EQ(spec.schedulingGates[0].name, "example.com/quota");
  EXPECT_FALSE(spec.resources.has_value());
  EXPECT_FALSE(spec.hostNetwork);
}

TEST(PodCodec, DecodesAffinity) {
  Pod pod = loadFixture<Pod>("pod.json");
  ASSERT_TRUE(pod.spec.affinity.has_value());
  const Affinity& aff = *pod.spec.affinity;
  ASSERT_TRUE(aff.nodeAffinity.has_value());
  const auto& required = aff.nodeAffinity->requiredDuringSchedulingIgnoredDuringExecution;
  ASSERT_TRUE(required.has_value());
  ASSERT_EQ(required->nodeSelectorTerms.size(), 1u);
  const NodeSelectorTerm& term = required->nodeSelectorTerms[0];
  ASSERT_EQ(term.matchExpressions.size(), 1u);
  EXPECT_EQ(term.matchExpressions[0].key, "kubernetes.io/os");
  EXPECT_EQ(term.matchExpressions[0].op, "In");
  EXPECT_EQ(term.matchExpressions[0].values, std::vector<std::string>{"linux"});
  ASSERT_EQ(term.matchFields.size(), 1u);
  EXPECT_EQ(term.matchFields[0].key, "metadata.name");
  EXPECT_EQ(term.matchFields[0].op, "NotIn");
  const auto& preferred = aff.nodeAffinity->preferredDuringSchedulingIgnoredDuringExecution;
  ASSERT_EQ(preferred.size(), 1u);
  EXPECT_EQ(preferred[0].weight, 20);
  EXPECT_EQ(preferred[0].preference.matchExpressions[0].values.size(), 2u);

  ASSERT_TRUE(aff.podAffinity.has_value());
  ASSERT_EQ(aff.podAffinity->preferredDuringSchedulingIgnoredDuringExecution.size(), 1u);
  const WeightedPodAffinityTerm& wterm = aff.podAffinity->preferredDuringSchedulingIgnoredDuringExecution[0];
  EXPECT_EQ(wterm.weight, 50);
  EXPECT_EQ(wterm.podAffinityTerm.topologyKey, "topology.kubernetes.io/zone");
  ASSERT_TRUE(wterm.podAffinityTerm.namespaceSelector.has_value());  // {} = all namespaces
  EXPECT_TRUE(wterm.podAffinityTerm.namespaceSelector->matchLabels.empty());
  EXPECT_EQ(wterm.podAffinityTerm.labelSelector->matchLabels.at("app.kubernetes.io/name"), "cache");

  ASSERT_TRUE(aff.podAntiAffinity.has_value());
  ASSERT_EQ(aff.podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution.size(), 1u);
  const PodAffinityTerm& anti = aff.podAntiAffinity->requiredDuringSchedulingIgnoredDuringExecution[0];
  EXPECT_EQ(anti.topologyKey, "kubernetes.io/hostname");
  EXPECT_EQ(anti.namespaces, std::vector<std::string>{"shop"});
  EXPECT_EQ(anti.matchLabelKeys, std::vector<std::string>{"pod-template-hash"});
  EXPECT_FALSE(anti.namespaceSelector.has_value());
  ASSERT_TRUE(anti.labelSelector.has_value());
  EXPECT_EQ(anti.labelSelector->matchExpressions[0].op, "In");
}

TEST(PodCodec, DecodesTolerationsAndSpreadConstraints) {
  Pod pod = loadFixture<Pod>("pod.json");
  ASSERT_EQ(pod.spec.tolerations.size(), 2u);
  EXPECT_EQ(pod.spec.tolerations[0].op, "Exists");
  EXPECT_EQ(pod.spec.tolerations[0].effect, "NoExecute");
  EXPECT_EQ(pod.spec.tolerations[0].tolerationSeconds, std::optional<int64_t>(300));
  EXPECT_EQ(pod.spec.tolerations[1].value, "web");
  EXPECT_FALSE(pod.spec.tolerations[1].tolerationSeconds.has_value());

  ASSERT_EQ(pod.spec.topologySpreadConstraints.size(), 2u);
  const TopologySpreadConstraint& zone = pod.spec.topologySpreadConstraints[0];
  EXPECT_EQ(zone.maxSkew, 1);
  EXPECT_EQ(zone.minDomains, std::optional<int32_t>(3));
  EXPECT_EQ(zone.nodeAffinityPolicy, std::optional<std::string>("Honor"));
  EXPECT_EQ(zone.nodeTaintsPolicy, std::optional<std::string>("Ignore"));
  EXPECT_EQ(zone.matchLabelKeys, std::vector<std::string>{"pod-template-hash"});
  EXPECT_EQ(zone.whenUnsatisfiable, "DoNotSchedule");
  const TopologySpreadConstraint& host = pod.spec.topologySpreadConstraints[1];
  EXPECT_EQ(host.maxSkew, 2);
  EXPECT_FALSE(host.minDomains.has_value());
  EXPECT_FALSE(host.nodeAffinityPolicy.has_value());
  EXPECT_EQ(host.whenUnsatisfiable, "ScheduleAnyway");
}

TEST(PodCodec, DecodesVolumes) {
  Pod pod = loadFixture<Pod>("pod.json");
  ASSERT_EQ(pod.spec.volumes.size(), 4u);
  const Volume& data = pod.spec.volumes[0];
  ASSERT_TRUE(data.persistentVolumeClaim.has_value());
  EXPECT_EQ(data.persistentVolumeClaim->claimName, "web-data");
  EXPECT_TRUE(data.persistentVolumeClaim->readOnly);
  EXPECT_EQ(data.otherSource, "");
  const Volume& scratch = pod.spec.volumes[1];
  ASSERT_TRUE(scratch.ephemeral.has_value());
  EXPECT_EQ(scratch.ephemeral->storageClassName, std::optional<std::string>("fast-ssd"));
  EXPECT_EQ(scratch.ephemeral->requests.at("storage").value(), 10LL << 30);
  EXPECT_EQ(pod.spec.volumes[2].otherSource, "configMap");
  EXPECT_EQ(pod.spec.volumes[3].otherSource, "projected");
  EXPECT_FALSE(pod.spec.volumes[3].persistentVolumeClaim.has_value());
}

TEST(PodCodec, DecodesStatus) {
  Pod pod = loadFixture<Pod>("pod.json");
  EXPECT_EQ(pod.status.phase, "Pending");
  EXPECT_EQ(pod.status.nominatedNodeName, "node-3");
  EXPECT_EQ(pod.status.qosClass, "Burstable");
  ASSERT_EQ(pod.status.conditions.size(), 1u);
  const PodCondition& c = pod.status.conditions[0];
  EXPECT_EQ(c.type, "PodScheduled");
  EXPECT_EQ(c.status, "False");
  EXPECT_EQ(c.reason, "Unschedulable");
  EXPECT_FALSE(c.lastProbeTime.has_value());  // null
  EXPECT_EQ(c.lastTransitionTime, std::optional<Time>(at("2024-05-02T08:15:31Z")));
  EXPECT_NE(c.message.find("3 Insufficient cpu"), std::string::npos);
}

TEST(PodCodec, RoundTrips) {
  Pod pod = loadFixture<Pod>("pod.json");
  expectRoundTrip(pod);
  // The encoding omits empty fields and carries the kind.
  std::string enc = encodeJson(pod);
  EXPECT_NE(enc.find(R"("apiVersion":"v1")"), std::string::npos);
  EXPECT_NE(enc.find(R"("kind":"Pod")"), std::string::npos);
  EXPECT_NE(enc.find(R"("configMap":{})"), std::string::npos);
  EXPECT_EQ(enc.find("hostNetwork"), std::string::npos);
  EXPECT_EQ(enc.find("managedFields"), std::string::npos);
  EXPECT_NE(enc.find(R"("cpu":"250m")"), std::string::npos);
}

TEST(PodCodec, AppliesDefaultsWhenAbsent) {
  auto pod = decodeJson<Pod>(
      R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","ports":[{"containerPort":80,"protocol":""}]}]}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  EXPECT_EQ(pod->spec.schedulerName, "default-scheduler");
  EXPECT_EQ(pod->spec.containers[0].ports[0].protocol, "TCP");
  auto noSpec = decodeJson<Pod>(R"({"metadata":{"name":"p"}})");
  ASSERT_TRUE(noSpec.ok());
  EXPECT_EQ(noSpec->spec.schedulerName, "default-scheduler");
}

TEST(PodCodec, PodLevelResourcesAndContainerStatuses) {
  auto pod = decodeJson<Pod>(R"({"spec":{"resources":{"requests":{"cpu":"2"},"limits":{"memory":"1Gi"}},
    "hostNetwork":true,"containers":[{"name":"c"}]},
    "status":{"resize":"InProgress","startTime":"2024-05-02T08:00:00Z",
    "containerStatuses":[{"name":"c","ready":true,"restartCount":0,"allocatedResources":{"cpu":"500m"},
      "resources":{"requests":{"cpu":"500m"}}}],
    "allocatedResources":{"cpu":"1500m"},"resources":{"requests":{"cpu":"2"},"limits":{"cpu":"3"}}}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  ASSERT_TRUE(pod->spec.resources.has_value());
  EXPECT_EQ(pod->spec.resources->requests.at("cpu").milliValue(), 2000);
  EXPECT_EQ(pod->spec.resources->limits.at("memory").value(), 1LL << 30);
  EXPECT_TRUE(pod->spec.hostNetwork);
  EXPECT_EQ(pod->status.resize, "InProgress");
  ASSERT_EQ(pod->status.containerStatuses.size(), 1u);
  EXPECT_EQ(pod->status.containerStatuses[0].allocatedResources.at("cpu").milliValue(), 500);
  ASSERT_TRUE(pod->status.containerStatuses[0].resources.has_value());
  // Pod-level status (InPlacePodLevelResourcesVerticalScaling).
  EXPECT_EQ(pod->status.allocatedResources.at("cpu").milliValue(), 1500);
  ASSERT_TRUE(pod->status.resources.has_value());
  EXPECT_EQ(pod->status.resources->requests.at("cpu").milliValue(), 2000);
  EXPECT_EQ(pod->status.resources->limits.at("cpu").milliValue(), 3000);
  expectRoundTrip(*pod);
}

TEST(PodCodec, LegacyVolumeSources) {
  auto pod = decodeJson<Pod>(R"({"spec":{"containers":[],"volumes":[
    {"name":"g","gcePersistentDisk":{"pdName":"disk-1","fsType":"ext4","partition":1,"readOnly":true}},
    {"name":"a","awsElasticBlockStore":{"volumeID":"vol-1"}},
    {"name":"i","iscsi":{"targetPortal":"10.0.0.1:3260","iqn":"iqn.2001-04.com.example:storage","lun":0}},
    {"name":"r","rbd":{"monitors":["10.0.0.2:6789"],"image":"foo"}},
    {"name":"c","csi":{"driver":"inline.csi.example.com","volumeAttributes":{"a":"b"}}},
    {"name":"e","emptyDir":{"medium":"Memory"}},
    {"name":"h","hostPath":{"path":"/var/log"}}]}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  const auto& v = pod->spec.volumes;
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0].gcePersistentDisk->pdName, "disk-1");
  EXPECT_EQ(v[0].gcePersistentDisk->partition, 1);
  EXPECT_TRUE(v[0].gcePersistentDisk->readOnly);
  EXPECT_EQ(v[1].awsElasticBlockStore->volumeID, "vol-1");
  EXPECT_EQ(v[2].iscsi->iqn, "iqn.2001-04.com.example:storage");
  EXPECT_EQ(v[3].rbd->pool, "rbd");  // defaulted
  EXPECT_EQ(v[3].rbd->monitors, std::vector<std::string>{"10.0.0.2:6789"});
  EXPECT_EQ(v[4].csi->driver, "inline.csi.example.com");
  EXPECT_EQ(v[5].otherSource, "emptyDir");
  EXPECT_EQ(v[6].otherSource, "hostPath");
  expectRoundTrip(*pod);
}

TEST(NodeCodec, DecodesYamlFixture) {
  Node node = loadFixture<Node>("node.yaml");
  EXPECT_EQ(node.metadata.name, "node-3");
  EXPECT_EQ(node.metadata.labels.at("topology.kubernetes.io/zone"), "eu-west-1b");
  EXPECT_EQ(node.metadata.annotations.at("node.alpha.kubernetes.io/ttl"), "0");
  EXPECT_TRUE(node.spec.unschedulable);
  EXPECT_EQ(node.spec.podCIDR, "10.244.3.0/24");
  EXPECT_EQ(node.spec.providerID, "aws:///eu-west-1b/i-0123456789abcdef0");
  ASSERT_EQ(node.spec.taints.size(), 2u);
  EXPECT_EQ(node.spec.taints[0].key, "dedicated");
  EXPECT_EQ(node.spec.taints[0].value, "db");
  EXPECT_EQ(node.spec.taints[0].effect, "NoSchedule");
  EXPECT_FALSE(node.spec.taints[0].timeAdded.has_value());
  EXPECT_EQ(node.spec.taints[1].timeAdded, std::optional<Time>(at("2024-05-02T08:00:00Z")));

  const NodeStatus& st = node.status;
  EXPECT_EQ(st.allocatable.at("cpu").milliValue(), 3920);
  EXPECT_EQ(st.allocatable.at("memory").value(), 15208576LL * 1024);
  EXPECT_EQ(st.allocatable.at("pods").value(), 110);
  EXPECT_EQ(st.allocatable.at("example.com/gpu").value(), 2);
  EXPECT_EQ(st.allocatable.at("hugepages-2Mi").value(), 512LL << 20);
  EXPECT_TRUE(st.allocatable.at("hugepages-1Gi").isZero());
  EXPECT_EQ(st.allocatable.at("ephemeral-storage").value(), 95491281146LL);
  EXPECT_EQ(st.capacity.at("cpu").value(), 4);
  ASSERT_EQ(st.conditions.size(), 2u);
  EXPECT_EQ(st.conditions[1].type, "Ready");
  EXPECT_EQ(st.conditions[1].status, "True");
  EXPECT_EQ(st.conditions[1].lastHeartbeatTime, std::optional<Time>(at("2024-05-02T08:14:02Z")));
  ASSERT_EQ(st.addresses.size(), 2u);
  EXPECT_EQ(st.addresses[0].type, "InternalIP");
  EXPECT_EQ(st.addresses[0].address, "10.0.3.17");
  ASSERT_EQ(st.images.size(), 2u);
  EXPECT_EQ(st.images[0].names.size(), 2u);
  EXPECT_EQ(st.images[0].names[1], "registry.example.com/web:1.4.2");
  EXPECT_EQ(st.images[0].sizeBytes, 123456789);
  EXPECT_EQ(st.declaredFeatures, (std::vector<std::string>{"RestartAllContainersOnContainerExits",
                                                           "UserNamespacesHostNetworkSupport"}));
  expectRoundTrip(node);
  EXPECT_NE(
      encodeJson(node).find(
          R"("declaredFeatures":["RestartAllContainersOnContainerExits","UserNamespacesHostNetworkSupport"])"),
      std::string::npos);
}

// The pod fields NodeDeclaredFeatures infers requirements from: restart rules, bind mount options (also of
// ephemeral containers, whose common part JSON inlines) and hostUsers.
TEST(PodCodec, DecodesDeclaredFeatureInputs) {
  auto pod = decodeJson<Pod>(R"({"spec":{
    "hostNetwork": true, "hostUsers": false,
    "containers": [{"name": "web", "restartPolicy": "Never",
      "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [1, 42]}}],
      "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": true,
                        "bindMountOptions": ["noexec", "nosuid"]}]}],
    "ephemeralContainers": [{"name": "debug", "image": "busybox", "targetContainerName": "web",
      "volumeMounts": [{"name": "data", "mountPath": "/d", "bindMountOptions": ["nodev"]}]}]}})");
  ASSERT_TRUE(pod.ok()) << pod.error().message();
  const PodSpec& spec = pod->spec;
  EXPECT_EQ(spec.hostUsers, std::optional<bool>(false));
  ASSERT_EQ(spec.containers[0].restartPolicyRules.size(), 1u);
  const ContainerRestartRule& rule = spec.containers[0].restartPolicyRules[0];
  EXPECT_EQ(rule.action, "RestartAllContainers");
  ASSERT_TRUE(rule.exitCodes.has_value());
  EXPECT_EQ(rule.exitCodes->op, "In");
  EXPECT_EQ(rule.exitCodes->values, (std::vector<int32_t>{1, 42}));
  ASSERT_EQ(spec.containers[0].volumeMounts.size(), 1u);
  EXPECT_EQ(spec.containers[0].volumeMounts[0].mountPath, "/data");
  EXPECT_EQ(spec.containers[0].volumeMounts[0].bindMountOptions,
            (std::vector<std::string>{"noexec", "nosuid"}));
  ASSERT_EQ(spec.ephemeralContainers.size(), 1u);
  EXPECT_EQ(spec.ephemeralContainers[0].name, "debug");
  EXPECT_EQ(spec.ephemeralContainers[0].targetContainerName, "web");
  EXPECT_EQ(spec.ephemeralContainers[0].volumeMounts[0].bindMountOptions, std::vector<std::string>{"nodev"});
  expectRoundTrip(*pod);
  // hostUsers=false is written (it differs from unset).
  EXPECT_NE(encodeJson(*pod).find(R"("hostUsers":false)"), std::string::npos);
}

TEST(NamespaceCodec, PhaseComesFromStatus) {
  Namespace ns = loadFixture<Namespace>("namespace.yaml");
  EXPECT_EQ(ns.metadata.name, "shop");
  EXPECT_EQ(ns.phase, "Terminating");
  EXPECT_EQ(ns.metadata.labels.at("team"), "payments");
  EXPECT_EQ(ns.metadata.deletionTimestamp, std::optional<Time>(at("2024-05-02T09:00:00Z")));
  expectRoundTrip(ns);
  EXPECT_NE(encodeJson(ns).find(R"("status":{"phase":"Terminating"})"), std::string::npos);
}

TEST(PersistentVolumeCodec, DecodesNodeAffinityClaimRefAndPhase) {
  PersistentVolume pv = loadFixture<PersistentVolume>("pv.json");
  EXPECT_EQ(pv.phase, "Bound");
  EXPECT_EQ(pv.spec.capacity.at("storage").value(), 10LL << 30);
  EXPECT_EQ(pv.spec.accessModes, std::vector<std::string>{"ReadWriteOnce"});
  EXPECT_EQ(pv.spec.persistentVolumeReclaimPolicy, "Delete");
  EXPECT_EQ(pv.spec.storageClassName, "fast-ssd");
  EXPECT_EQ(pv.spec.volumeMode, std::optional<std::string>("Filesystem"));
  ASSERT_TRUE(pv.spec.claimRef.has_value());
  EXPECT_EQ(pv.spec.claimRef->namespace_, "shop");
  EXPECT_EQ(pv.spec.claimRef->name, "web-data");
  EXPECT_EQ(pv.spec.claimRef->uid, "3f2e1d0c-aaaa-4bbb-8ccc-123456789abc");
  ASSERT_TRUE(pv.spec.csi.has_value());
  EXPECT_EQ(pv.spec.csi->driver, "ebs.csi.aws.com");
  EXPECT_EQ(pv.spec.csi->volumeHandle, "vol-0abc123def4567890");
  ASSERT_TRUE(pv.spec.nodeAffinity.has_value());
  ASSERT_TRUE(pv.spec.nodeAffinity->required.has_value());
  const auto& expr = pv.spec.nodeAffinity->required->nodeSelectorTerms.at(0).matchExpressions.at(0);
  EXPECT_EQ(expr.key, "topology.ebs.csi.aws.com/zone");
  EXPECT_EQ(expr.values, std::vector<std::string>{"eu-west-1b"});
  EXPECT_EQ(pv.metadata.finalizers.size(), 2u);
  expectRoundTrip(pv);
}

TEST(PersistentVolumeClaimCodec, DecodesYamlFixture) {
  PersistentVolumeClaim pvc = loadFixture<PersistentVolumeClaim>("pvc.yaml");
  EXPECT_EQ(pvc.metadata.annotations.at("volume.kubernetes.io/selected-node"), "node-3");
  EXPECT_EQ(pvc.spec.storageClassName, std::optional<std::string>("fast-ssd"));
  EXPECT_EQ(pvc.spec.volumeName, "pvc-3f2e1d0c-aaaa-4bbb-8ccc-123456789abc");
  EXPECT_EQ(pvc.spec.resources.requests.at("storage").value(), 10LL << 30);
  ASSERT_TRUE(pvc.spec.selector.has_value());
  EXPECT_EQ(pvc.spec.selector->matchExpressions.at(0).op, "NotIn");
  EXPECT_EQ(pvc.status.phase, "Bound");
  EXPECT_EQ(pvc.status.capacity.at("storage").value(), 10LL << 30);
  expectRoundTrip(pvc);
}

TEST(BindingCodec, DecodesAndEncodesAsTheApiServerExpects) {
  auto b = decodeJson<Binding>(readTestdata("binding.json"));
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(b->metadata.name, "web-7d4b9c8f5d-x2x7k");
  EXPECT_EQ(b->target.kind, "Node");
  EXPECT_EQ(b->target.name, "node-3");
  expectRoundTrip(*b);

  Binding binding;
  binding.metadata.name = "p";
  binding.metadata.namespace_ = "ns";
  binding.metadata.uid = "u1";
  binding.target.kind = "Node";
  binding.target.name = "n1";
  EXPECT_EQ(encodeJson(binding),
            R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","namespace":"ns","uid":"u1"},)"
            R"("target":{"kind":"Node","name":"n1"}})");
}

TEST(StorageClassCodec, DecodesAllowedTopologies) {
  StorageClass sc = loadFixture<StorageClass>("storageclass.yaml");
  EXPECT_EQ(sc.provisioner, "ebs.csi.aws.com");
  EXPECT_EQ(sc.volumeBindingMode, std::optional<std::string>("WaitForFirstConsumer"));
  EXPECT_EQ(sc.reclaimPolicy, std::optional<std::string>("Delete"));
  EXPECT_EQ(sc.allowVolumeExpansion, std::optional<bool>(true));
  EXPECT_EQ(sc.parameters.at("type"), "gp3");
  EXPECT_EQ(sc.parameters.at("encrypted"), "true");
  ASSERT_EQ(sc.allowedTopologies.size(), 1u);
  const auto& req = sc.allowedTopologies[0].matchLabelExpressions.at(0);
  EXPECT_EQ(req.key, "topology.ebs.csi.aws.com/zone");
  EXPECT_EQ(req.values, (std::vector<std::string>{"eu-west-1a", "eu-west-1b"}));
  expectRoundTrip(sc);
}

TEST(CSINodeCodec, DriversComeFromSpec) {
  CSINode n = loadFixture<CSINode>("csinode.json");
  EXPECT_EQ(n.metadata.name, "node-3");
  ASSERT_EQ(n.drivers.size(), 2u);
  EXPECT_EQ(n.drivers[0].name, "ebs.csi.aws.com");
  EXPECT_EQ(n.drivers[0].nodeID, "i-0123456789abcdef0");
  ASSERT_TRUE(n.drivers[0].allocatable.has_value());
  EXPECT_EQ(n.drivers[0].allocatable->count, std::optional<int32_t>(25));
  EXPECT_EQ(n.drivers[0].topologyKeys.size(), 2u);
  EXPECT_TRUE(n.drivers[1].topologyKeys.empty());
  EXPECT_FALSE(n.drivers[1].allocatable.has_value());
  expectRoundTrip(n);
}

TEST(CSIDriverCodec, DecodesSpec) {
  CSIDriver d = loadFixture<CSIDriver>("csidriver.yaml");
  EXPECT_EQ(d.metadata.name, "ebs.csi.aws.com");
  EXPECT_EQ(d.spec.attachRequired, std::optional<bool>(true));
  EXPECT_EQ(d.spec.podInfoOnMount, std::optional<bool>(false));
  EXPECT_EQ(d.spec.storageCapacity, std::optional<bool>(true));
  EXPECT_EQ(d.spec.fsGroupPolicy, std::optional<std::string>("ReadWriteOnceWithFSType"));
  EXPECT_EQ(d.spec.volumeLifecycleModes, std::vector<std::string>{"Persistent"});
  EXPECT_EQ(d.spec.preventPodSchedulingIfMissing, std::optional<bool>(true));
  expectRoundTrip(d);
  EXPECT_NE(encodeJson(d).find(R"("preventPodSchedulingIfMissing":true)"), std::string::npos);
  // Unset stays unset (omitempty).
  CSIDriver unset = d;
  unset.spec.preventPodSchedulingIfMissing.reset();
  EXPECT_EQ(encodeJson(unset).find("preventPodSchedulingIfMissing"), std::string::npos);
  // An explicit false survives encoding (pointer field, not omitted).
  EXPECT_NE(encodeJson(d).find(R"("podInfoOnMount":false)"), std::string::npos);
}

TEST(CSIStorageCapacityCodec, DecodesQuantitiesAndTopology) {
  CSIStorageCapacity c = loadFixture<CSIStorageCapacity>("csistoragecapacity.json");
  EXPECT_EQ(c.storageClassName, "fast-ssd");
  ASSERT_TRUE(c.capacity.has_value());
  EXPECT_EQ(c.capacity->value(), 1LL << 40);
  ASSERT_TRUE(c.maximumVolumeSize.has_value());
  EXPECT_EQ(c.maximumVolumeSize->value(), 16LL << 40);
  ASSERT_TRUE(c.nodeTopology.has_value());
  EXPECT_EQ(c.nodeTopology->matchLabels.at("topology.ebs.csi.aws.com/zone"), "eu-west-1b");
  expectRoundTrip(c);
}

TEST(PodDisruptionBudgetCodec, DecodesIntOrString) {
  PodDisruptionBudget pdb = loadFixture<PodDisruptionBudget>("pdb.yaml");
  ASSERT_TRUE(pdb.spec.maxUnavailable.has_value());
  EXPECT_TRUE(pdb.spec.maxUnavailable->isString);
  EXPECT_EQ(pdb.spec.maxUnavailable->strVal, "25%");
  EXPECT_FALSE(pdb.spec.minAvailable.has_value());
  EXPECT_EQ(pdb.spec.unhealthyPodEvictionPolicy, std::optional<std::string>("AlwaysAllow"));
  EXPECT_EQ(pdb.spec.selector->matchLabels.at("app.kubernetes.io/name"), "web");
  EXPECT_EQ(pdb.status.disruptionsAllowed, 1);
  EXPECT_EQ(pdb.status.currentHealthy, 3);
  EXPECT_EQ(pdb.status.desiredHealthy, 2);
  EXPECT_EQ(pdb.status.expectedPods, 3);
  EXPECT_EQ(pdb.status.observedGeneration, 2);
  EXPECT_EQ(pdb.status.disruptedPods.at("web-7d4b9c8f5d-abcde"), at("2024-05-02T08:10:00Z"));
  expectRoundTrip(pdb);

  auto intPdb = decodeJson<PodDisruptionBudget>(R"({"spec":{"minAvailable":2}})");
  ASSERT_TRUE(intPdb.ok()) << intPdb.error().message();
  EXPECT_FALSE(intPdb->spec.minAvailable->isString);
  EXPECT_EQ(intPdb->spec.minAvailable->intVal, 2);
  EXPECT_NE(encodeJson(*intPdb).find(R"("minAvailable":2)"), std::string::npos);
  // Zero status counters are always present, as in the API (no omitempty).
  EXPECT_NE(encodeJson(*intPdb).find(R"("disruptionsAllowed":0)"), std::string::npos);
}

// The pod owners system default spreading reads: only metadata and the selector are kept.
TEST(PodOwnerCodecs, DecodeSelectorsIgnoringTheRest) {
  auto svc = decodeJson<Service>(
      R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop"},)"
      R"("spec":{"selector":{"app":"web"},"ports":[{"port":80}],"type":"ClusterIP"}})");
  ASSERT_TRUE(svc.ok()) << svc.error().message();
  EXPECT_EQ(svc->spec.selector.at("app"), "web");
  expectRoundTrip(*svc);

  auto rc = decodeJson<ReplicationController>(
      R"({"metadata":{"name":"rc","namespace":"ns"},"spec":{"replicas":3,"selector":{"app":"old"}}})");
  ASSERT_TRUE(rc.ok()) << rc.error().message();
  EXPECT_EQ(rc->spec.selector.at("app"), "old");
  expectRoundTrip(*rc);

  auto rs = decodeJson<ReplicaSet>(
      R"({"metadata":{"name":"web-5d8f7","namespace":"shop","uid":"u1"},)"
      R"("spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"},)"
      R"("matchExpressions":[{"key":"tier","operator":"In","values":["fe"]}]},"template":{}}})");
  ASSERT_TRUE(rs.ok()) << rs.error().message();
  ASSERT_TRUE(rs->spec.selector.has_value());
  EXPECT_EQ(rs->spec.selector->matchLabels.at("app"), "web");
  ASSERT_EQ(rs->spec.selector->matchExpressions.size(), 1u);
  expectRoundTrip(*rs);

  auto sts = decodeJson<StatefulSet>(R"({"metadata":{"name":"db","namespace":"ns"},"spec":{}})");
  ASSERT_TRUE(sts.ok()) << sts.error().message();
  EXPECT_FALSE(sts->spec.selector.has_value());
  expectRoundTrip(*sts);

  auto bad = decodeJson<ReplicaSet>(R"({"spec":{"selector":{"matchLabels":["app"]}}})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message().rfind("spec.selector.matchLabels", 0), 0u) << bad.error().message();
}

TEST(LeaseCodec, MicroTimes) {
  auto lease = decodeJson<Lease>(readTestdata("lease.json"));
  ASSERT_TRUE(lease.ok()) << lease.error().message();
  EXPECT_EQ(lease->spec.holderIdentity,
            std::optional<std::string>("control-plane-1_2f6c1a9e-1b2c-4d3e-9f40-5a6b7c8d9e0f"));
  EXPECT_EQ(lease->spec.leaseDurationSeconds, std::optional<int32_t>(15));
  EXPECT_EQ(lease->spec.leaseTransitions, std::optional<int32_t>(4));
  ASSERT_TRUE(lease->spec.acquireTime.has_value());
  EXPECT_EQ(formatMicroTime(*lease->spec.acquireTime), "2024-05-02T07:00:00.123456Z");
  EXPECT_EQ(formatMicroTime(*lease->spec.renewTime), "2024-05-02T08:15:29.987654Z");
  expectRoundTrip(*lease);
  EXPECT_NE(encodeJson(*lease).find(R"("renewTime":"2024-05-02T08:15:29.987654Z")"), std::string::npos);
}

TEST(EventCodec, DecodesEventsV1) {
  auto ev = decodeJson<Event>(readTestdata("event.json"));
  ASSERT_TRUE(ev.ok()) << ev.error().message();
  EXPECT_EQ(formatMicroTime(ev->eventTime), "2024-05-02T08:15:31.000542Z");
  EXPECT_EQ(ev->reason, "FailedScheduling");
  EXPECT_EQ(ev->action, "Scheduling");
  EXPECT_EQ(ev->type, "Warning");
  EXPECT_EQ(ev->reportingController, "default-scheduler");
  EXPECT_EQ(ev->reportingInstance, "default-scheduler-control-plane-1");
  EXPECT_EQ(ev->regarding.kind, "Pod");
  EXPECT_EQ(ev->regarding.name, "web-7d4b9c8f5d-x2x7k");
  EXPECT_FALSE(ev->related.has_value());
  ASSERT_TRUE(ev->series.has_value());
  EXPECT_EQ(ev->series->count, 3);
  EXPECT_EQ(formatMicroTime(ev->series->lastObservedTime), "2024-05-02T08:17:01.250000Z");
  EXPECT_EQ(ev->note, "0/5 nodes are available: 3 Insufficient cpu.");
  expectRoundTrip(*ev);
  std::string enc = encodeJson(*ev);
  EXPECT_NE(enc.find(R"("apiVersion":"events.k8s.io/v1")"), std::string::npos);
  EXPECT_NE(enc.find(R"("eventTime":"2024-05-02T08:15:31.000542Z")"), std::string::npos);
}

TEST(StatusCodec, Decodes409Body) {
  auto st = decodeJson<ApiStatus>(readTestdata("status_conflict.json"));
  ASSERT_TRUE(st.ok()) << st.error().message();
  EXPECT_EQ(st->status, "Failure");
  EXPECT_EQ(st->reason, "Conflict");
  EXPECT_EQ(st->code, 409);
  EXPECT_NE(st->message.find("is already assigned to node \"node-2\""), std::string::npos);
  ASSERT_TRUE(st->details.has_value());
  EXPECT_EQ(st->details->kind, "pods/binding");
  EXPECT_EQ(st->details->retryAfterSeconds, 1);
  ASSERT_EQ(st->details->causes.size(), 1u);
  EXPECT_EQ(st->details->causes[0].type, "FieldValueInvalid");
  EXPECT_EQ(st->details->causes[0].field, "spec.nodeName");
  expectRoundTrip(*st);
  std::string enc = encodeJson(*st);
  EXPECT_NE(enc.find(R"("kind":"Status")"), std::string::npos);
  EXPECT_NE(enc.find(R"("reason":"FieldValueInvalid")"), std::string::npos);
}

TEST(LabelSelectorCodec, DecodesAndEncodesWithoutKind) {
  auto sel = decodeJson<LabelSelector>(
      R"({"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"Exists"}]})");
  ASSERT_TRUE(sel.ok()) << sel.error().message();
  EXPECT_EQ(sel->matchLabels.at("app"), "web");
  EXPECT_EQ(sel->matchExpressions.at(0).op, "Exists");
  EXPECT_TRUE(sel->matchExpressions.at(0).values.empty());
  EXPECT_EQ(encodeJson(*sel),
            R"({"matchExpressions":[{"key":"tier","operator":"Exists"}],"matchLabels":{"app":"web"}})");
  EXPECT_EQ(encodeJson(LabelSelector{}), "{}");
}

TEST(ListCodec, DecodesPodListWithContinue) {
  auto list = decodeListJson<Pod>(readTestdata("podlist.json"));
  ASSERT_TRUE(list.ok()) << list.error().message();
  EXPECT_EQ(list->metadata.resourceVersion, "918500");
  EXPECT_EQ(list->metadata.continue_, "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6OTE4NTAwLCJzdGFydCI6ImIifQ");
  EXPECT_EQ(list->metadata.remainingItemCount, std::optional<int64_t>(1198));
  ASSERT_EQ(list->items.size(), 2u);
  EXPECT_EQ(list->items[0].metadata.name, "a");
  EXPECT_EQ(list->items[0].spec.schedulerName, "default-scheduler");
  EXPECT_EQ(list->items[0].spec.containers[0].resources.requests.at("cpu").milliValue(), 100);
  EXPECT_EQ(list->items[1].spec.nodeName, "node-1");
  EXPECT_EQ(list->items[1].spec.schedulerName, "my-scheduler");
  EXPECT_EQ(list->items[1].spec.containers[0].ports[0].protocol, "TCP");

  std::string enc = encodeListJson(*list);
  EXPECT_NE(enc.find(R"("kind":"PodList")"), std::string::npos);
  auto back = decodeListJson<Pod>(enc);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->metadata, list->metadata);
  EXPECT_EQ(back->items, list->items);
}

TEST(ListCodec, ItemErrorsNameTheIndex) {
  auto list = decodeListJson<Node>(
      R"({"kind":"NodeList","metadata":{},"items":[{},{"spec":{"unschedulable":"yes"}}]})");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.error().message(), "items[1].spec.unschedulable: expected a boolean, got string");
  auto empty = decodeListJson<Node>(
      R"({"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":null})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->items.empty());
  EXPECT_EQ(empty->metadata.resourceVersion, "5");
}

TEST(WatchCodec, DecodesEveryEventType) {
  std::string text = readTestdata("watch.jsonl");
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  ASSERT_EQ(lines.size(), 5u);

  auto added = decodeWatchEventJson<Pod>(lines[0]);
  ASSERT_TRUE(added.ok()) << added.error().message();
  EXPECT_EQ(added->type, WatchEventType::Added);
  EXPECT_EQ(added->object.metadata.resourceVersion, "100");
  EXPECT_EQ(added->object.status.phase, "Pending");

  auto modified = decodeWatchEventJson<Pod>(lines[1]);
  ASSERT_TRUE(modified.ok());
  EXPECT_EQ(modified->type, WatchEventType::Modified);
  EXPECT_EQ(modified->object.spec.nodeName, "node-1");

  auto deleted = decodeWatchEventJson<Pod>(lines[2]);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted->type, WatchEventType::Deleted);
  EXPECT_EQ(deleted->object.metadata.deletionGracePeriodSeconds, std::optional<int64_t>(0));
  EXPECT_EQ(deleted->object.metadata.deletionTimestamp, std::optional<Time>(at("2024-05-02T09:00:00Z")));

  auto bookmark = decodeWatchEventJson<Pod>(lines[3]);
  ASSERT_TRUE(bookmark.ok()) << bookmark.error().message();
  EXPECT_EQ(bookmark->type, WatchEventType::Bookmark);
  EXPECT_EQ(bookmark->object.metadata.resourceVersion, "12746");
  EXPECT_EQ(bookmark->object.metadata.annotations.at("k8s.io/initial-events-end"), "true");
  EXPECT_FALSE(bookmark->object.metadata.creationTimestamp.has_value());

  auto error = decodeWatchEventJson<Pod>(lines[4]);
  ASSERT_TRUE(error.ok()) << error.error().message();
  EXPECT_EQ(error->type, WatchEventType::Error);
  EXPECT_EQ(error->status.code, 410);
  EXPECT_EQ(error->status.reason, "Expired");
  EXPECT_EQ(error->status.message, "too old resource version: 100 (12746)");

  // Re-encoding each event decodes back to the same event.
  for (const std::string& line : lines) {
    auto ev = decodeWatchEventJson<Pod>(line);
    ASSERT_TRUE(ev.ok());
    auto again = decodeWatchEventJson<Pod>(encodeWatchEventJson(*ev));
    ASSERT_TRUE(again.ok()) << again.error().message();
    EXPECT_EQ(again->type, ev->type);
    EXPECT_EQ(again->object, ev->object);
    EXPECT_EQ(again->status, ev->status);
  }
}

TEST(WatchCodec, OtherKinds) {
  auto node = decodeWatchEventJson<Node>(
      R"({"type":"ADDED","object":{"kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"2"}}}})");
  ASSERT_TRUE(node.ok());
  EXPECT_EQ(node->object.status.allocatable.at("cpu").value(), 2);
  auto lease =
      decodeWatchEventJson<Lease>(R"({"type":"DELETED","object":{"metadata":{"name":"l"},"spec":{}}})");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(lease->type, WatchEventType::Deleted);
}

TEST(NlohmannCodec, FromAndToJson) {
  nlohmann::json j = nlohmann::json::parse(readTestdata("csinode.json"));
  auto n = fromJson<CSINode>(j);
  ASSERT_TRUE(n.ok()) << n.error().message();
  nlohmann::json out = toJson(*n);
  EXPECT_EQ(out["kind"], "CSINode");
  EXPECT_EQ(out["apiVersion"], "storage.k8s.io/v1");
  EXPECT_EQ(out["spec"]["drivers"][0]["allocatable"]["count"], 25);
  auto back = fromJson<CSINode>(out);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, *n);

  auto bad = fromJson<CSINode>(nlohmann::json::array());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(), "expected an object, got array");

  List<Namespace> list;
  list.metadata.resourceVersion = "7";
  list.items.push_back(Namespace{});
  list.items[0].metadata.name = "default";
  list.items[0].phase = "Active";
  nlohmann::json lj = listToJson(list);
  EXPECT_EQ(lj["kind"], "NamespaceList");
  auto lback = listFromJson<Namespace>(lj);
  ASSERT_TRUE(lback.ok());
  EXPECT_EQ(lback->items.at(0), list.items[0]);
}

}  // namespace
}  // namespace ks::api
