// Ports upstream plugins/podtopologyspread/filtering_test.go (v1.34.4): TestPreFilterState,
// TestPreFilterStateAddPod, TestPreFilterStateRemovePod, TestSingleConstraint, TestMultipleConstraints and
// TestPreFilterDisabled, every case. Cases run with the gates exactly as upstream sets them (the plugin
// fields it overrides; both off unless a case enables them). BenchmarkFilter is not ported.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "test/scheduler/framework/plugins/podtopologyspread/test_util.h"

namespace ks::plugins::podtopologyspread {
namespace {

using namespace testutil;  // NOLINT

std::vector<api::NodePtr> fourNodesTwoZones() {
  return {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
          nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
          nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}}),
          nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}})};
}

std::vector<api::NodePtr> threeNodesTwoZones() {
  return {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
          nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
          nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}})};
}

TEST(PodTopologySpreadFilteringTest, PreFilterState) {
  struct Case {
    std::string name;
    api::Pod pod;
    std::vector<api::NodePtr> nodes;
    std::vector<api::PodPtr> existingPods;
    Objects objs;
    std::vector<api::TopologySpreadConstraint> defaultConstraints;
    WantPreFilterState want;
    framework::Code wantPrefilterStatus = framework::Code::Success;
    bool enableNodeInclusionPolicy = false;
    bool enableMatchLabelKeys = false;
  };
  const auto foo = mustConvert(fooSelector());
  const auto bar = mustConvert(barSelector());
  const std::vector<Case> cases = {
      {
          .name = "clean cluster with one spreadConstraint",
          .pod =
              MakePod()
                  .name("p")
                  .label("foo", "")
                  .spreadConstraint(5, "zone", kDoNotScheduleS, makeLabelSelector().label("foo", "bar").obj())
                  .obj(),
          .nodes = fourNodesTwoZones(),
          .want = {{tsc(5, "zone", mustConvert(makeLabelSelector().label("foo", "bar").obj()))},
                   {cp({"zone1", 0}, {"zone2", 0})},
                   {{{"zone1", 0}, {"zone2", 0}}}},
      },
      {
          .name = "normal case with one spreadConstraint",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo)}, {cp({"zone2", 2}, {"zone1", 3})}, {{{"zone1", 3}, {"zone2", 2}}}},
      },
      {
          .name = "normal case with null label selector",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, kNilSelector)
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo)},
          .want = {{tsc(1, "zone", api::Selector::nothing())},
                   {cp({"zone2", 0}, {"zone1", 0})},
                   {{{"zone1", 0}, {"zone2", 0}}}},
      },
      {
          .name = "normal case with one spreadConstraint, on a 3-zone cluster",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}}),
                    nodeL("node-o", {{"zone", "zone3"}, {"node", "node-o"}}),
                    nodeL("node-p", {{"zone", "zone3"}, {"node", "node-p"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo)},
                   {cp({"zone3", 0}, {"zone2", 2})},
                   {{{"zone1", 3}, {"zone2", 2}, {"zone3", 0}}}},
      },
      {
          .name = "namespace mismatch doesn't count",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo, "ns1"),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo, "ns2"),
                           epod("p-y2", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo)}, {cp({"zone2", 1}, {"zone1", 2})}, {{{"zone1", 2}, {"zone2", 1}}}},
      },
      {
          .name = "normal case with two spreadConstraints",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo),
                           epod("p-y4", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo), tsc(1, "node", foo)},
                   {cp({"zone1", 3}, {"zone2", 4}), cp({"node-x", 0}, {"node-b", 1})},
                   {{{"zone1", 3}, {"zone2", 4}},
                    {{"node-a", 2}, {"node-b", 1}, {"node-x", 0}, {"node-y", 4}}}},
      },
      {
          .name = "soft spreadConstraints should be bypassed",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kScheduleAnywayS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = threeNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo),
                           epod("p-y4", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo), tsc(1, "node", foo)},
                   {cp({"zone1", 3}, {"zone2", 4}), cp({"node-b", 1}, {"node-a", 2})},
                   {{{"zone1", 3}, {"zone2", 4}}, {{"node-a", 2}, {"node-b", 1}, {"node-y", 4}}}},
      },
      {
          .name = "different labelSelectors - simple version",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = threeNodesTwoZones(),
          .existingPods = {epod("p-a", "node-a", kFoo), epod("p-b", "node-b", kBar)},
          .want = {{tsc(1, "zone", foo), tsc(1, "node", bar)},
                   {cp({"zone2", 0}, {"zone1", 1}), cp({"node-a", 0}, {"node-y", 0})},
                   {{{"zone1", 1}, {"zone2", 0}}, {{"node-a", 0}, {"node-b", 1}, {"node-y", 0}}}},
      },
      {
          .name = "different labelSelectors - complex pods",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = threeNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFooBar),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFooBar), epod("p-y3", "node-y", kFoo),
                           epod("p-y4", "node-y", kFooBar)},
          .want = {{tsc(1, "zone", foo), tsc(1, "node", bar)},
                   {cp({"zone1", 3}, {"zone2", 4}), cp({"node-b", 0}, {"node-a", 1})},
                   {{{"zone1", 3}, {"zone2", 4}}, {{"node-a", 1}, {"node-b", 0}, {"node-y", 2}}}},
      },
      {
          .name = "two spreadConstraints, and with podAffinity",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityNotIn("node", {"node-x"})  // exclude node-x
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo),
                           epod("p-y4", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo), tsc(1, "node", foo)},
                   {cp({"zone1", 3}, {"zone2", 4}), cp({"node-b", 1}, {"node-a", 2})},
                   {{{"zone1", 3}, {"zone2", 4}}, {{"node-a", 2}, {"node-b", 1}, {"node-y", 4}}}},
      },
      {
          .name = "default constraints and a service",
          .pod = MakePod().name("p").label("foo", "bar").label("baz", "kar").obj(),
          .objs = {.services = {service({{"foo", "bar"}})}},
          .defaultConstraints = {defaultConstraint(3, "node", kDoNotScheduleS),
                                 defaultConstraint(2, "node", kScheduleAnywayS),
                                 defaultConstraint(5, "rack", kDoNotScheduleS)},
          .want = {{tsc(3, "node", mustConvert(makeLabelSelector().label("foo", "bar").obj())),
                    tsc(5, "rack", mustConvert(makeLabelSelector().label("foo", "bar").obj()))},
                   {cp(), cp()},
                   {{}, {}}},
      },
      {
          .name = "default constraints and a service that doesn't match",
          .pod = MakePod().name("p").label("foo", "bar").obj(),
          .objs = {.services = {service({{"baz", "kep"}})}},
          .defaultConstraints = {defaultConstraint(3, "node", kDoNotScheduleS)},
          .wantPrefilterStatus = framework::Code::Skip,
      },
      {
          .name = "default constraints and a service, but pod has constraints",
          .pod =
              MakePod()
                  .name("p")
                  .label("foo", "bar")
                  .label("baz", "tar")
                  .spreadConstraint(1, "zone", kDoNotScheduleS, makeLabelSelector().label("baz", "tar").obj())
                  .spreadConstraint(2, "planet", kScheduleAnywayS,
                                    makeLabelSelector().label("fot", "rok").obj())
                  .obj(),
          .objs = {.services = {service({{"foo", "bar"}})}},
          .defaultConstraints = {defaultConstraint(2, "node", kDoNotScheduleS)},
          .want = {{tsc(1, "zone", mustConvert(makeLabelSelector().label("baz", "tar").obj()))},
                   {cp()},
                   {{}}},
      },
      {
          .name = "default soft constraints and a service",
          .pod = MakePod().name("p").label("foo", "bar").obj(),
          .objs = {.services = {service({{"foo", "bar"}})}},
          .defaultConstraints = {defaultConstraint(2, "node", kScheduleAnywayS)},
          .wantPrefilterStatus = framework::Code::Skip,
      },
      {
          .name = "TpKeyToDomainsNum is calculated when MinDomains is enabled",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo),
                           epod("p-y4", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo), tsc(1, "node", foo)},
                   {cp({"zone1", 3}, {"zone2", 4}), cp({"node-x", 0}, {"node-b", 1})},
                   {{{"zone1", 3}, {"zone2", 4}},
                    {{"node-a", 2}, {"node-b", 1}, {"node-x", 0}, {"node-y", 4}}}},
      },
      {
          .name = "feature gate disabled with NodeAffinityPolicy",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}})},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-b", "node-b", kBar),
                           epod("p-c", "node-b", kBar), epod("p-d", "node-c", {})},
          .want = {{tsc(1, "node", bar)},
                   {cp({"node-a", 1}, {"node-b", 2})},
                   {{{"node-a", 1}, {"node-b", 2}}}},
          .enableNodeInclusionPolicy = false,
      },
      {
          .name = "NodeAffinityPolicy honored with labelSelectors",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}})},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-b", "node-b", kBar),
                           epod("p-c", "node-b", kBar), epod("p-d", "node-c", {})},
          .want = {{tsc(1, "node", bar)},
                   {cp({"node-a", 1}, {"node-b", 2})},
                   {{{"node-a", 1}, {"node-b", 2}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy ignored with labelSelectors",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector(), std::nullopt, kIgnorePolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}})},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-b", "node-b", kBar),
                           epod("p-c", "node-b", kBar), epod("p-d", "node-c", {})},
          .want = {{tsc(1, "node", bar, kIgnore, kIgnore)},
                   {cp({"node-c", 0}, {"node-a", 1})},
                   {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy honored with nodeAffinity",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityIn("foo", {""})
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}})},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-c", "node-b", kBar),
                           epod("p-d", "node-b", kBar), epod("p-e", "node-c", {})},
          .want = {{tsc(1, "node", bar)},
                   {cp({"node-a", 1}, {"node-b", 2})},
                   {{{"node-a", 1}, {"node-b", 2}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeAffinityPolicy ignored with nodeAffinity",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityIn("foo", {""})
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector(), std::nullopt, kIgnorePolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}})},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-b", "node-b", kBar),
                           epod("p-c", "node-b", kBar), epod("p-d", "node-c", {})},
          .want = {{tsc(1, "node", bar, kIgnore, kIgnore)},
                   {cp({"node-c", 0}, {"node-a", 1})},
                   {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "feature gate disabled with NodeTaintsPolicy",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}}, unschedulableTaints())},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-b", "node-b", kBar),
                           epod("p-c", "node-b", kBar), epod("p-d", "node-c", {})},
          .want = {{tsc(1, "node", bar)},
                   {cp({"node-c", 0}, {"node-a", 1})},
                   {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}},
          .enableNodeInclusionPolicy = false,
      },
      {
          .name = "NodeTaintsPolicy ignored",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}}, unschedulableTaints())},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-b", "node-b", kBar),
                           epod("p-c", "node-b", kBar), epod("p-d", "node-c", {})},
          .want = {{tsc(1, "node", bar)},
                   {cp({"node-c", 0}, {"node-a", 1})},
                   {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeTaintsPolicy honored",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}}, unschedulableTaints())},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-b", "node-b", kBar),
                           epod("p-c", "node-b", kBar), epod("p-d", "node-c", {})},
          .want = {{tsc(1, "node", bar, kHonor, kHonor)},
                   {cp({"node-a", 1}, {"node-b", 2})},
                   {{{"node-a", 1}, {"node-b", 2}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "NodeTaintsPolicy honored with tolerated taints",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .toleration("node.kubernetes.io/unschedulable")
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}, {"bar", ""}}, unschedulableTaints())},
          .existingPods = {epod("p-a", "node-a", kBar), epod("p-b", "node-b", kBar),
                           epod("p-c", "node-b", kBar), epod("p-d", "node-c", {})},
          .want = {{tsc(1, "node", bar, kHonor, kHonor)},
                   {cp({"node-c", 0}, {"node-a", 1})},
                   {{{"node-a", 1}, {"node-b", 2}, {"node-c", 0}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector(), std::nullopt, kIgnorePolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}})},
          .existingPods = {epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo)},
          .want = {{tsc(1, "zone", foo), tsc(1, "node", foo, kIgnore, kIgnore)},
                   {cp({"zone1", 0}, {"zone2", 1}), cp({"node-a", 0}, {"node-x", 1})},
                   {{{"zone1", 0}, {"zone2", 1}}, {{"node-a", 0}, {"node-b", 2}, {"node-x", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}, unschedulableTaints()),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}})},
          .existingPods = {epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo)},
          .want = {{tsc(1, "zone", foo, kHonor, kHonor), tsc(1, "node", foo)},
                   {cp({"zone1", 0}, {"zone2", 1}), cp({"node-a", 0}, {"node-x", 1})},
                   {{{"zone1", 0}, {"zone2", 1}}, {{"node-a", 0}, {"node-b", 2}, {"node-x", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}},
                          unschedulableTaints()),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo), tsc(1, "node", foo)},
                   {cp({"zone1", 0}, {"zone2", 1}), cp({"node-b", 0}, {"node-x", 1})},
                   {{{"zone1", 0}, {"zone2", 1}}, {{"node-b", 0}, {"node-x", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "two node inclusion Constraints, zone: ignore/ignore, node: honor/honor",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector(), std::nullopt, kIgnorePolicy)
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}},
                          unschedulableTaints()),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}, {"foo", ""}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-x1", "node-x", kFoo), epod("p-x2", "node-x", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo, kIgnore, kIgnore), tsc(1, "node", foo, kHonor, kHonor)},
                   {cp({"zone1", 2}, {"zone2", 3}), cp({"node-y", 1}, {"node-x", 2})},
                   {{{"zone1", 2}, {"zone2", 3}}, {{"node-x", 2}, {"node-y", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "matchLabelKeys ignored when feature gate disabled",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt,
                                       std::nullopt, {"bar"})
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo)},
          .want = {{tsc(1, "zone", foo)}, {cp({"zone2", 2}, {"zone1", 3})}, {{{"zone1", 3}, {"zone2", 2}}}},
          .enableMatchLabelKeys = false,
      },
      {
          .name = "matchLabelKeys ANDed with LabelSelector when LabelSelector isn't empty",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "a")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt,
                                       std::nullopt, {"bar"})
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", {{"foo", ""}, {"bar", "a"}}),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", {{"foo", ""}, {"bar", "a"}}),
                           epod("p-y2", "node-y", kBar)},
          .want = {{tsc(1, "zone", mustConvert(makeLabelSelector().exists("foo").label("bar", "a").obj()))},
                   {cp({"zone2", 1}, {"zone1", 1})},
                   {{{"zone1", 1}, {"zone2", 1}}}},
          .enableMatchLabelKeys = true,
      },
      {
          .name = "matchLabelKeys ANDed with LabelSelector when LabelSelector is empty",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "a")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, makeLabelSelector().obj(), std::nullopt,
                                       std::nullopt, std::nullopt, {"foo"})
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", {{"foo", "a"}}), epod("p-a2", "node-a", {{"foo", "a"}}),
                           epod("p-b1", "node-b", {{"foo", "a"}}), epod("p-y1", "node-y", {{"foo", "a"}}),
                           epod("p-y2", "node-y", {{"foo", "a"}})},
          .want = {{tsc(1, "zone", mustConvert(makeLabelSelector().label("foo", "a").obj()))},
                   {cp({"zone2", 2}, {"zone1", 3})},
                   {{{"zone1", 3}, {"zone2", 2}}}},
          .enableMatchLabelKeys = true,
      },
      {
          .name = "key in matchLabelKeys is ignored when LabelSelector is nil when feature gate enabled",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, kNilSelector, std::nullopt, std::nullopt,
                                       std::nullopt, {"bar"})
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", {{"foo", "a"}}), epod("p-a2", "node-a", {{"foo", "a"}}),
                           epod("p-b1", "node-b", {{"foo", "a"}}), epod("p-y1", "node-y", {{"foo", "a"}}),
                           epod("p-y2", "node-y", {{"foo", "a"}})},
          .want = {{tsc(1, "zone", mustConvert(kNilSelector))},
                   {cp({"zone2", 0}, {"zone1", 0})},
                   {{{"zone1", 0}, {"zone2", 0}}}},
          .enableMatchLabelKeys = true,
      },
      {
          .name = "no pod is matched when LabelSelector is nil when feature gate disabled",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, kNilSelector, std::nullopt, std::nullopt,
                                       std::nullopt, {"bar"})
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", {{"foo", "a"}}), epod("p-a2", "node-a", {{"foo", "a"}}),
                           epod("p-b1", "node-b", {{"foo", "a"}}), epod("p-y1", "node-y", {{"foo", "a"}}),
                           epod("p-y2", "node-y", {{"foo", "a"}})},
          .want = {{tsc(1, "zone", mustConvert(kNilSelector))},
                   {cp({"zone2", 0}, {"zone1", 0})},
                   {{{"zone1", 0}, {"zone2", 0}}}},
      },
      {
          .name = "key in matchLabelKeys is ignored when it isn't exist in pod.labels",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt,
                                       std::nullopt, {"bar"})
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", {{"foo", "a"}}), epod("p-a2", "node-a", {{"foo", "a"}}),
                           epod("p-b1", "node-b", {{"foo", "a"}}), epod("p-y1", "node-y", {{"foo", "a"}}),
                           epod("p-y2", "node-y", {{"foo", "a"}})},
          .want = {{tsc(1, "zone", foo)}, {cp({"zone2", 2}, {"zone1", 3})}, {{{"zone1", 3}, {"zone2", 2}}}},
          .enableMatchLabelKeys = true,
      },
      {
          .name = "two spreadConstraints with the same topologyKey",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "zone", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFooBar), epod("p-b1", "node-b", kFoo),
                           epod("p-x1", "node-x", kBar), epod("p-y1", "node-y", kFooBar),
                           epod("p-y2", "node-y", kBar)},
          .want = {{tsc(1, "zone", foo), tsc(1, "zone", bar)},
                   {cp({"zone2", 1}, {"zone1", 2}), cp({"zone1", 1}, {"zone2", 3})},
                   {{{"zone1", 2}, {"zone2", 1}}, {{"zone1", 1}, {"zone2", 3}}}},
      },
      {
          .name = "skip if not specified",
          .pod = MakePod().name("p").label("foo", "").obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}})},
          .wantPrefilterStatus = framework::Code::Skip,
      },
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    PluginEnv env(tt.existingPods, tt.nodes, tt.objs);
    auto p = env.plugin(listDefaulting(tt.defaultConstraints),
                        features(tt.enableNodeInclusionPolicy, tt.enableMatchLabelKeys));
    ASSERT_NE(p, nullptr);
    framework::CycleState cs;
    framework::PreFilterResult result;
    auto s = p->preFilter(cs, *plugintesting::podInfo(tt.pod), env.lister().list(), result);
    EXPECT_EQ(s.code(), tt.wantPrefilterStatus) << s.toString();
    if (!s.isSuccess()) continue;
    const auto* got = cs.read<PreFilterState>();
    ASSERT_NE(got, nullptr);
    expectPreFilterState(tt.want, *got);
  }
}

TEST(PodTopologySpreadFilteringTest, PreFilterStateAddPod) {
  const auto nodeConstraint = tsc(1, "node", mustConvert(fooSelector()));
  const auto zoneConstraint = tsc(1, "zone", mustConvert(fooSelector()));
  struct Case {
    std::string name;
    api::Pod preemptor;
    api::Pod addedPod;
    std::vector<api::PodPtr> existingPods;
    size_t nodeIdx = 0;  // which node addedPod belongs to
    std::vector<api::NodePtr> nodes;
    WantPreFilterState want;
    bool enableNodeInclusionPolicy = false;
  };
  const std::vector<Case> cases = {
      {
          .name = "node a and b both impact current min match",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", kFoo),
          .existingPods = {},  // it's an empty cluster
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}})},
          .want = {{nodeConstraint}, {cp({"node-b", 0}, {"node-a", 1})}, {{{"node-a", 1}, {"node-b", 0}}}},
      },
      {
          .name = "only node a impacts current min match",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", kFoo),
          .existingPods = {epod("p-b1", "node-b", kFoo)},
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}})},
          .want = {{nodeConstraint}, {cp({"node-a", 1}, {"node-b", 1})}, {{{"node-a", 1}, {"node-b", 1}}}},
      },
      {
          .name = "add a pod in a different namespace doesn't change topologyKeyToMinPodsMap",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", kFoo, "ns1"),
          .existingPods = {epod("p-b1", "node-b", kFoo)},
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}})},
          .want = {{nodeConstraint}, {cp({"node-a", 0}, {"node-b", 1})}, {{{"node-a", 0}, {"node-b", 1}}}},
      },
      {
          .name = "add pod on non-critical node won't trigger re-calculation",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-b2", "node-b", kFoo),
          .existingPods = {epod("p-b1", "node-b", kFoo)},
          .nodeIdx = 1,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}})},
          .want = {{nodeConstraint}, {cp({"node-a", 0}, {"node-b", 2})}, {{{"node-a", 0}, {"node-b", 2}}}},
      },
      {
          .name = "node a and x both impact topologyKeyToMinPodsMap on zone and node",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", kFoo),
          .existingPods = {},  // it's an empty cluster
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}})},
          .want = {{zoneConstraint, nodeConstraint},
                   {cp({"zone2", 0}, {"zone1", 1}), cp({"node-x", 0}, {"node-a", 1})},
                   {{{"zone1", 1}, {"zone2", 0}}, {{"node-a", 1}, {"node-x", 0}}}},
      },
      {
          .name = "only node a impacts topologyKeyToMinPodsMap on zone and node",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", kFoo),
          .existingPods = {epod("p-x1", "node-x", kFoo)},
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}})},
          .want = {{zoneConstraint, nodeConstraint},
                   {cp({"zone1", 1}, {"zone2", 1}), cp({"node-a", 1}, {"node-x", 1})},
                   {{{"zone1", 1}, {"zone2", 1}}, {{"node-a", 1}, {"node-x", 1}}}},
      },
      {
          .name = "node a impacts topologyKeyToMinPodsMap on node, node x impacts topologyKeyToMinPodsMap on "
                  "zone",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", kFoo),
          .existingPods = {epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo)},
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}})},
          .want = {{zoneConstraint, nodeConstraint},
                   {cp({"zone2", 1}, {"zone1", 3}), cp({"node-a", 1}, {"node-x", 1})},
                   {{{"zone1", 3}, {"zone2", 1}}, {{"node-a", 1}, {"node-b", 2}, {"node-x", 1}}}},
      },
      {
          .name = "Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on zone",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .label("bar", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", kFoo),
          .existingPods = {epod("p-b1", "node-b", kFooBar), epod("p-x1", "node-x", kFooBar),
                           epod("p-x2", "node-x", kBar)},
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}})},
          .want = {{zoneConstraint, tsc(1, "node", mustConvert(barSelector()))},
                   {cp({"zone2", 1}, {"zone1", 2}), cp({"node-a", 0}, {"node-b", 1})},
                   {{{"zone1", 2}, {"zone2", 1}}, {{"node-a", 0}, {"node-b", 1}, {"node-x", 2}}}},
      },
      {
          .name = "Constraints hold different labelSelectors, node a impacts topologyKeyToMinPodsMap on both "
                  "zone and "
                  "node",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .label("bar", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", kFooBar),
          .existingPods = {epod("p-b1", "node-b", kBar), epod("p-x1", "node-x", kFooBar),
                           epod("p-x2", "node-x", kBar)},
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}})},
          .want = {{zoneConstraint, tsc(1, "node", mustConvert(barSelector()))},
                   {cp({"zone1", 1}, {"zone2", 1}), cp({"node-a", 1}, {"node-b", 1})},
                   {{{"zone1", 1}, {"zone2", 1}}, {{"node-a", 1}, {"node-b", 1}, {"node-x", 2}}}},
      },
      {
          .name = "add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .nodeAffinityNotIn("foo", {"bar"})
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
          .existingPods = {epod("p-a2", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .want = {{zoneConstraint}, {cp({"zone2", 1}, {"", INT32_MAX})}, {{{"zone2", 1}}}},
          .enableNodeInclusionPolicy = false,
      },
      {
          .name = "add a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .nodeAffinityNotIn("foo", {"bar"})
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
          .existingPods = {epod("p-a2", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .nodeIdx = 0,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .want = {{zoneConstraint}, {cp({"zone2", 1}, {"", INT32_MAX})}, {{{"zone2", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "add a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}}),
          .existingPods = {epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b2", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .nodeIdx = 1,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .want = {{zoneConstraint}, {cp({"zone1", 1}, {"zone2", 2})}, {{{"zone1", 1}, {"zone2", 2}}}},
          .enableNodeInclusionPolicy = false,
      },
      {
          .name = "add a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}}),
          .existingPods = {epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b2", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .nodeIdx = 1,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .want = {{zoneConstraint}, {cp({"zone1", 1}, {"zone2", 2})}, {{{"zone1", 1}, {"zone2", 2}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "add a label selector not matched pod when with NodeInclusionPolicy enabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-b1", "node-b", {{"zone", "zone2"}}),
          .existingPods = {epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b2", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .nodeIdx = 1,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .want = {{zoneConstraint}, {cp({"zone1", 1}, {"zone2", 1})}, {{{"zone1", 1}, {"zone2", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "add a pod when scheduling taint untolerated pod with NodeInclusionPolicy disabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}}),
          .existingPods = {epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b2", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .nodeIdx = 1,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}, unschedulableTaints()),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}})},
          .want = {{zoneConstraint}, {cp({"zone1", 1}, {"zone2", 2})}, {{{"zone2", 2}, {"zone1", 1}}}},
          .enableNodeInclusionPolicy = false,
      },
      {
          .name = "add a pod when scheduling taint tolerated pod with NodeInclusionPolicy enabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .toleration("node.kubernetes.io/unschedulable")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .addedPod = *epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}}),
          .existingPods = {epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b2", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .nodeIdx = 1,
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}, unschedulableTaints()),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}})},
          .want = {{zoneConstraint}, {cp({"zone1", 1}, {"zone2", 2})}, {{{"zone2", 2}, {"zone1", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    PluginEnv env(tt.existingPods, tt.nodes);
    auto p = env.plugin(listDefaulting(), features(tt.enableNodeInclusionPolicy, false));
    ASSERT_NE(p, nullptr);
    framework::CycleState cs;
    framework::PreFilterResult result;
    const auto preemptor = plugintesting::podInfo(tt.preemptor);
    auto s = p->preFilter(cs, *preemptor, env.lister().list(), result);
    ASSERT_TRUE(s.isSuccess()) << s.toString();
    auto nodeInfo = env.nodeInfo(tt.nodes[tt.nodeIdx]->metadata.name);
    ASSERT_NE(nodeInfo, nullptr);
    s = p->addPod(cs, *preemptor, *plugintesting::podInfo(tt.addedPod), *nodeInfo);
    ASSERT_TRUE(s.isSuccess()) << s.toString();
    const auto* got = cs.read<PreFilterState>();
    ASSERT_NE(got, nullptr);
    expectPreFilterState(tt.want, *got);
  }
}

TEST(PodTopologySpreadFilteringTest, PreFilterStateRemovePod) {
  const auto nodeConstraint = tsc(1, "node", mustConvert(fooSelector()));
  const auto zoneConstraint = tsc(1, "zone", mustConvert(fooSelector()));
  struct Case {
    std::string name;
    api::Pod preemptor;
    std::vector<api::NodePtr> nodes;
    std::vector<api::PodPtr> existingPods;
    int deletedPodIdx = 0;               // reuses existingPods[i] when in range
    std::optional<api::Pod> deletedPod;  // used when deletedPodIdx is out of range
    size_t nodeIdx = 0;                  // which node "deletedPod" belongs to
    WantPreFilterState want;
    bool enableNodeInclusionPolicy = false;
  };
  const std::vector<Case> cases = {
      {
          // A high priority pod may not be scheduled due to node taints or resource shortage, so preemption
          // is triggered.
          .name = "one spreadConstraint on zone, topologyKeyToMinPodsMap unchanged",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo)},
          .deletedPodIdx = 0,  // remove pod "p-a1"
          .nodeIdx = 0,        // node-a
          .want = {{zoneConstraint}, {cp({"zone1", 1}, {"zone2", 1})}, {{{"zone1", 1}, {"zone2", 1}}}},
      },
      {
          .name = "one spreadConstraint on node, topologyKeyToMinPodsMap changed",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo)},
          .deletedPodIdx = 0,  // remove pod "p-a1"
          .nodeIdx = 0,        // node-a
          .want = {{zoneConstraint}, {cp({"zone1", 1}, {"zone2", 2})}, {{{"zone1", 1}, {"zone2", 2}}}},
      },
      {
          .name = "delete an irrelevant pod won't help",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a0", "node-a", kBar), epod("p-a1", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-x1", "node-x", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .deletedPodIdx = 0,  // remove pod "p-a0"
          .nodeIdx = 0,        // node-a
          .want = {{zoneConstraint}, {cp({"zone1", 2}, {"zone2", 2})}, {{{"zone1", 2}, {"zone2", 2}}}},
      },
      {
          .name = "delete a non-existing pod won't help",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo)},
          .deletedPodIdx = -1,
          .deletedPod = *epod("p-a0", "node-a", kBar),
          .nodeIdx = 0,  // node-a
          .want = {{zoneConstraint}, {cp({"zone1", 2}, {"zone2", 2})}, {{{"zone1", 2}, {"zone2", 2}}}},
      },
      {
          .name = "two spreadConstraints",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-x1", "node-x", kFoo),
                           epod("p-x2", "node-x", kFoo)},
          .deletedPodIdx = 3,  // remove pod "p-x1"
          .nodeIdx = 2,        // node-x
          .want = {{zoneConstraint, nodeConstraint},
                   {cp({"zone2", 1}, {"zone1", 3}), cp({"node-b", 1}, {"node-x", 1})},
                   {{{"zone1", 3}, {"zone2", 1}}, {{"node-a", 2}, {"node-b", 1}, {"node-x", 1}}}},
      },
      // The next cases leave deletedPodIdx at its zero value, as upstream does: existingPods[0] is removed.
      {
          .name =
              "remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy disabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .nodeAffinityNotIn("foo", {"bar"})
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .existingPods = {epod("p-a2", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .deletedPod = *epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
          .nodeIdx = 0,
          .want = {{zoneConstraint}, {cp({"zone2", 1}, {"", INT32_MAX})}, {{{"zone2", 1}}}},
          .enableNodeInclusionPolicy = false,
      },
      {
          .name = "remove a pod when scheduling node affinity unmatched pod with NodeInclusionPolicy enabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .nodeAffinityNotIn("foo", {"bar"})
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .existingPods = {epod("p-a2", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .deletedPod = *epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
          .nodeIdx = 0,
          .want = {{zoneConstraint}, {cp({"zone2", 1}, {"", INT32_MAX})}, {{{"zone2", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
      {
          .name = "remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy disabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .existingPods = {epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b2", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .deletedPod = *epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}}),
          .nodeIdx = 1,
          .want = {{zoneConstraint}, {cp({"zone2", 0}, {"zone1", 1})}, {{{"zone2", 0}, {"zone1", 1}}}},
          .enableNodeInclusionPolicy = false,
      },
      {
          .name = "remove a pod when scheduling node affinity matched pod with NodeInclusionPolicy enabled",
          .preemptor = MakePod()
                           .name("p")
                           .label("foo", "")
                           .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                           .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", "bar"}}),
                    nodeL("node-b", {{"zone", "zone2"}, {"node", "node-b"}, {"foo", ""}})},
          .existingPods = {epod("p-a1", "node-a", {{"foo", ""}, {"zone", "zone1"}}),
                           epod("p-b2", "node-b", {{"foo", ""}, {"zone", "zone2"}})},
          .deletedPod = *epod("p-b1", "node-b", {{"foo", ""}, {"zone", "zone2"}}),
          .nodeIdx = 1,
          .want = {{zoneConstraint}, {cp({"zone2", 0}, {"zone1", 1})}, {{{"zone2", 0}, {"zone1", 1}}}},
          .enableNodeInclusionPolicy = true,
      },
  };
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    PluginEnv env(tt.existingPods, tt.nodes);
    auto p = env.plugin(listDefaulting(), features(tt.enableNodeInclusionPolicy, false));
    ASSERT_NE(p, nullptr);
    framework::CycleState cs;
    framework::PreFilterResult result;
    const auto preemptor = plugintesting::podInfo(tt.preemptor);
    auto s = p->preFilter(cs, *preemptor, env.lister().list(), result);
    ASSERT_TRUE(s.isSuccess()) << s.toString();

    api::Pod deletedPod = tt.deletedPod.value_or(api::Pod{});
    if (tt.deletedPodIdx >= 0 && static_cast<size_t>(tt.deletedPodIdx) < tt.existingPods.size()) {
      deletedPod = *tt.existingPods[static_cast<size_t>(tt.deletedPodIdx)];
    }
    auto nodeInfo = env.nodeInfo(tt.nodes[tt.nodeIdx]->metadata.name);
    ASSERT_NE(nodeInfo, nullptr);
    s = p->removePod(cs, *preemptor, *plugintesting::podInfo(deletedPod), *nodeInfo);
    ASSERT_TRUE(s.isSuccess()) << s.toString();
    const auto* got = cs.read<PreFilterState>();
    ASSERT_NE(got, nullptr);
    expectPreFilterState(tt.want, *got);
  }
}

struct FilterCase {
  std::string name;
  api::Pod pod;
  std::vector<api::NodePtr> nodes;
  std::vector<api::PodPtr> existingPods;
  std::map<std::string, framework::Code> wantStatusCode;
  bool enableNodeInclusionPolicy = false;
};

// PreFilter over the snapshot, then Filter on every node (upstream TestSingleConstraint's loop).
void runFilterCases(const std::vector<FilterCase>& cases) {
  for (const auto& tt : cases) {
    SCOPED_TRACE(tt.name);
    PluginEnv env(tt.existingPods, tt.nodes);
    auto p = env.plugin(listDefaulting(), features(tt.enableNodeInclusionPolicy, false));
    ASSERT_NE(p, nullptr);
    framework::CycleState state;
    framework::PreFilterResult result;
    const auto pi = plugintesting::podInfo(tt.pod);
    auto s = p->preFilter(state, *pi, env.lister().list(), result);
    EXPECT_TRUE(s.isSuccess()) << "preFilter failed with status: " << s.toString();
    for (const auto& node : tt.nodes) {
      auto nodeInfo = env.nodeInfo(node->metadata.name);
      ASSERT_NE(nodeInfo, nullptr);
      auto status = p->filter(state, *pi, *nodeInfo);
      if (!tt.wantStatusCode.empty()) {
        EXPECT_EQ(status.code(), tt.wantStatusCode.at(node->metadata.name))
            << "[" << node->metadata.name << "]: got " << status.toString();
      }
      // The reasons are upstream's.
      if (status.code() == framework::Code::Unschedulable) {
        EXPECT_EQ(status.message(), kErrReasonConstraintsNotMatch);
      } else if (status.code() == framework::Code::UnschedulableAndUnresolvable) {
        EXPECT_EQ(status.message(), kErrReasonNodeLabelNotMatch);
      }
    }
  }
}

constexpr framework::Code kSuccess = framework::Code::Success;
constexpr framework::Code kUnschedulable = framework::Code::Unschedulable;
constexpr framework::Code kUnresolvable = framework::Code::UnschedulableAndUnresolvable;

TEST(PodTopologySpreadFilteringTest, SingleConstraint) {
  const std::vector<FilterCase> cases = {
      {
          .name = "no existing pods",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .wantStatusCode =
              {{"node-a", kSuccess}, {"node-b", kSuccess}, {"node-x", kSuccess}, {"node-y", kSuccess}},
      },
      {
          .name = "no existing pods, incoming pod doesn't match itself",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .wantStatusCode =
              {{"node-a", kSuccess}, {"node-b", kSuccess}, {"node-x", kSuccess}, {"node-y", kSuccess}},
      },
      {
          .name = "existing pods in a different namespace do not count",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo, "ns1"), epod("p-b1", "node-a", kFoo, "ns2"),
                           epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kSuccess},
                             {"node-b", kSuccess},
                             {"node-x", kUnschedulable},
                             {"node-y", kUnschedulable}},
      },
      {
          .name = "existing pods do not match null selector",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, kNilSelector)
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo)},
          .wantStatusCode =
              {{"node-a", kSuccess}, {"node-b", kSuccess}, {"node-x", kSuccess}, {"node-y", kSuccess}},
      },
      {
          .name = "pods spread across zones as 3/3, all nodes fit",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .wantStatusCode =
              {{"node-a", kSuccess}, {"node-b", kSuccess}, {"node-x", kSuccess}, {"node-y", kSuccess}},
      },
      {
          // Typos on node labels can cause unexpected behavior.
          .name = "pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zon", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo),
                           epod("p-x1", "node-x", kFoo), epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kSuccess},
                             {"node-b", kUnresolvable},
                             {"node-x", kUnschedulable},
                             {"node-y", kUnschedulable}},
      },
      {
          .name = "pod cannot be scheduled as all nodes don't have label 'rack'",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "rack", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}})},
          .wantStatusCode = {{"node-a", kUnresolvable}, {"node-x", kUnresolvable}},
      },
      {
          .name = "pods spread across nodes as 2/1/0/3, only node-x fits",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
      },
      {
          .name = "pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(2, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kSuccess},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
      },
      {
          // Not a desired case, but it can happen: the placement of the new pod doesn't change the pod
          // distribution of the cluster as the incoming pod doesn't have label "foo".
          .name = "pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
          .pod = MakePod()
                     .name("p")
                     .label("bar", "")
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kSuccess},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
      },
      {
          // Only node-a and node-y are considered, so pods spread as 2/~1~/~0~/3. NodeAffinity doesn't run in
          // this test, so node-b and node-x still fit; that node-a fits proves the logic works.
          .name = "incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityIn("node", {"node-a", "node-y"})
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kSuccess},
                             {"node-b", kSuccess},  // in real case, it's false
                             {"node-x", kSuccess},  // in real case, it's false
                             {"node-y", kUnschedulable}},
      },
      {
          .name = "terminating Pods should be excluded",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}})},
          .existingPods = {MakePod().name("p-a").node("node-a").label("foo", "").terminating().ptr(),
                           epod("p-b", "node-b", kFoo)},
          .wantStatusCode = {{"node-a", kSuccess}, {"node-b", kUnschedulable}},
      },
      {
          // NodeAffinity is not involved, so node-b still fits.
          .name = "incoming pod has nodeAffinity, pods spread as 0/~2~/0/1, hence node-a fits",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityNotIn("node", {"node-b"})
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kSuccess},
                             {"node-b", kSuccess},  // in real case, it's Unschedulable
                             {"node-x", kUnschedulable},
                             {"node-y", kUnschedulable}},
      },
      {
          .name = "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains < minDomains, "
                  "then the "
                  "third node fits",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(2, "node", kDoNotScheduleS, fooSelector(),
                                       4)  // > the number of domains (3)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-c1", "node-c", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable}, {"node-b", kUnschedulable}, {"node-c", kSuccess}},
      },
      {
          .name = "pods spread across nodes as 2/2/1, maxSkew is 2, and the number of domains > minDomains, "
                  "then the "
                  "all nodes fit",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(2, "node", kDoNotScheduleS, fooSelector(),
                                       2)  // < the number of domains (3)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}}),
                    nodeL("node-c", {{"node", "node-c"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-c1", "node-c", kFoo)},
          .wantStatusCode = {{"node-a", kSuccess}, {"node-b", kSuccess}, {"node-c", kSuccess}},
      },
      {
          .name =
              "pods spread across zone as 2/1, maxSkew is 2 and the number of domains < minDomains, then the "
              "third and fourth nodes fit",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(2, "zone", kDoNotScheduleS, fooSelector(),
                                       3)  // > the number of domains (2)
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-b1", "node-a", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kSuccess}},
      },
      {
          .name = "pods spread across zone as 2/1, maxSkew is 2 and the number of domains > minDomains, then "
                  "the all "
                  "nodes fit",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(2, "zone", kDoNotScheduleS, fooSelector(),
                                       1)  // < the number of domains (2)
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-b1", "node-a", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode =
              {{"node-a", kSuccess}, {"node-b", kSuccess}, {"node-x", kSuccess}, {"node-y", kSuccess}},
      },
      {
          // pods spread across node as 1/1/0/~0~
          .name = "NodeAffinityPolicy honored with labelSelectors",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-x", {{"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"node", "node-y"}})},
          .existingPods = {epod("p-b1", "node-a", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kSuccess}},  // with the NodeAffinity plugin disabled node-y succeeds
          .enableNodeInclusionPolicy = true,
      },
      {
          // pods spread across node as 1/1/0/~1~
          .name = "NodeAffinityPolicy ignored with labelSelectors",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector(), std::nullopt, kIgnorePolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-x", {{"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"node", "node-y"}})},
          .existingPods = {epod("p-b1", "node-a", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
          .enableNodeInclusionPolicy = true,
      },
      {
          // pods spread across node as 1/1/0/~0~
          .name = "NodeAffinityPolicy honored with nodeAffinity",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityIn("foo", {""})
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-x", {{"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"node", "node-y"}})},
          .existingPods = {epod("p-b1", "node-a", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kSuccess}},  // with the NodeAffinity plugin disabled node-y succeeds
          .enableNodeInclusionPolicy = true,
      },
      {
          // pods spread across node as 1/1/0/~1~ (upstream repeats this name)
          .name = "NodeAffinityPolicy ignored with labelSelectors",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeAffinityIn("foo", {""})
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector(), std::nullopt, kIgnorePolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-x", {{"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"node", "node-y"}})},
          .existingPods = {epod("p-b1", "node-a", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
          .enableNodeInclusionPolicy = true,
      },
      {
          // pods spread across node as 1/1/0/~0~
          .name = "NodeTaintsPolicy honored",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-x", {{"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"node", "node-y"}}, unschedulableTaints())},
          .existingPods = {epod("p-b1", "node-a", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y",
                              kSuccess}},  // with the TaintToleration plugin disabled node-y succeeds
          .enableNodeInclusionPolicy = true,
      },
      {
          // pods spread across node as 1/1/0/~1~
          .name = "NodeTaintsPolicy ignored",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-x", {{"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"node", "node-y"}}, unschedulableTaints())},
          .existingPods = {epod("p-b1", "node-a", kFoo), epod("p-b2", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
          .enableNodeInclusionPolicy = true,
      },
  };
  runFilterCases(cases);
}

TEST(PodTopologySpreadFilteringTest, MultipleConstraints) {
  const std::vector<FilterCase> cases = {
      {
          // 1. to fulfil "zone" constraint, incoming pod can be placed on any zone (hence any node)
          // 2. to fulfil "node" constraint, incoming pod can be placed on node-x
          // intersection of (1) and (2) returns node-x
          .name = "two Constraints on zone and node, spreads = [3/3, 2/1/0/3]",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
      },
      {
          // 1. to fulfil "zone" constraint, incoming pod can be placed on zone1 (node-a or node-b)
          // 2. to fulfil "node" constraint, incoming pod can be placed on node-x
          // intersection of (1) and (2) returns no node
          .name = "two Constraints on zone and node, spreads = [3/4, 2/1/0/4]",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFoo), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFoo), epod("p-y3", "node-y", kFoo),
                           epod("p-y4", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kUnschedulable},
                             {"node-y", kUnschedulable}},
      },
      {
          // 1. to fulfil "zone" constraint, incoming pod can be placed on zone2 (node-x or node-y)
          // 2. to fulfil "node" constraint, incoming pod can be placed on node-a, node-b or node-x
          // intersection of (1) and (2) returns node-x
          .name = "Constraints hold different labelSelectors, spreads = [1/0, 1/0/0/1]",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-y1", "node-y", kBar)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
      },
      {
          // 1. to fulfil "zone" constraint, incoming pod can be placed on zone2 (node-x or node-y)
          // 2. to fulfil "node" constraint, incoming pod can be placed on node-a or node-b
          // intersection of (1) and (2) returns no node
          .name = "Constraints hold different labelSelectors, spreads = [1/0, 0/0/1/1]",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-x1", "node-x", kBar),
                           epod("p-y1", "node-y", kBar)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kUnschedulable},
                             {"node-y", kUnschedulable}},
      },
      {
          // 1. to fulfil "zone" constraint, incoming pod can be placed on zone1 (node-a or node-b)
          // 2. to fulfil "node" constraint, incoming pod can be placed on node-b or node-x
          // intersection of (1) and (2) returns node-b
          .name = "Constraints hold different labelSelectors, spreads = [2/3, 1/0/0/1]",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-a2", "node-a", kFooBar),
                           epod("p-y1", "node-y", kFoo), epod("p-y2", "node-y", kFooBar),
                           epod("p-y3", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kSuccess},
                             {"node-x", kUnschedulable},
                             {"node-y", kUnschedulable}},
      },
      {
          // 1. pod doesn't match itself on "zone" constraint, so it can be put onto any zone
          // 2. to fulfil "node" constraint, incoming pod can be placed on node-a or node-b
          // intersection of (1) and (2) returns node-a and node-b
          .name =
              "Constraints hold different labelSelectors but pod doesn't match itself on 'zone' constraint",
          .pod = MakePod()
                     .name("p")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, barSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-x1", "node-x", kBar),
                           epod("p-y1", "node-y", kBar)},
          .wantStatusCode = {{"node-a", kSuccess},
                             {"node-b", kSuccess},
                             {"node-x", kUnschedulable},
                             {"node-y", kUnschedulable}},
      },
      {
          // 1. to fulfil "zone" constraint, incoming pod can be placed on any zone (hence any node)
          // 2. to fulfil "node" constraint, incoming pod can be placed on node-b (node-x doesn't have the
          //    required label)
          // intersection of (1) and (2) returns node-b
          .name =
              "two Constraints on zone and node, absence of label 'node' on node-x, spreads = [1/1, 1/0/0/1]",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-y3", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kSuccess},
                             {"node-x", kUnresolvable},
                             {"node-y", kUnschedulable}},
      },
      {
          // 1. to fulfil "zone" constraint, pods spread across zones as 2/~0~
          // 2. to fulfil "node" constraint, pods spread across zones as 1/1/0/~1~
          // intersection of (1) and (2) returns node-x
          .name = "two node inclusion Constraints, zone: honor/ignore, node: ignore/ignore",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector(), std::nullopt, kIgnorePolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}})},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
          .enableNodeInclusionPolicy = true,
      },
      {
          // 1. to fulfil "zone" constraint, pods spread across zones as 2/0
          // 2. to fulfil "node" constraint, pods spread across zones as 1/1/0/~1~
          // intersection of (1) and (2) returns node-x
          .name = "two node inclusion Constraints, zone: honor/honor, node: honor/ignore",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}, {"foo", ""}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}}, unschedulableTaints())},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
          .enableNodeInclusionPolicy = true,
      },
      {
          // 1. to fulfil "zone" constraint, pods spread across zones as 1/~1~
          // 2. to fulfil "node" constraint, pods spread across zones as 1/0/0/~1~
          // intersection of (1) and (2) returns node-x
          .name = "two node inclusion Constraints, zone: honor/ignore, node: honor/ignore",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}, {"foo", ""}},
                          unschedulableTaints())},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kSuccess},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
          .enableNodeInclusionPolicy = true,
      },
      {
          // 1. to fulfil "zone" constraint, pods spread across zones as 1/0
          // 2. to fulfil "node" constraint, pods spread across zones as 1/~1~/0/~1~
          // intersection of (1) and (2) returns node-x
          .name = "two node inclusion Constraints, zone: honor/honor, node: ignore/ignore",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .nodeSelector({{"foo", ""}})
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector(), std::nullopt, std::nullopt,
                                       kHonorPolicy)
                     .spreadConstraint(1, "node", kDoNotScheduleS, fooSelector(), std::nullopt, kIgnorePolicy)
                     .obj(),
          .nodes = {nodeL("node-a", {{"zone", "zone1"}, {"node", "node-a"}, {"foo", ""}}),
                    nodeL("node-b", {{"zone", "zone1"}, {"node", "node-b"}}),
                    nodeL("node-x", {{"zone", "zone2"}, {"node", "node-x"}, {"foo", ""}}),
                    nodeL("node-y", {{"zone", "zone2"}, {"node", "node-y"}, {"foo", ""}},
                          unschedulableTaints())},
          .existingPods = {epod("p-a1", "node-a", kFoo), epod("p-b1", "node-b", kFoo),
                           epod("p-y1", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kUnschedulable}},
          .enableNodeInclusionPolicy = true,
      },
      {
          // 1. to fulfil first "zone" constraint, incoming pod can be placed on zone2 (node-x or node-y)
          // 2. to fulfil second "zone" constraint, incoming pod can be placed on any zone
          // intersection of (1) and (2) returns node-x and node-y
          .name = "two Constraints on zone, spreads = [3/3, 2/1]",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, barSelector())
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFooBar), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFooBar), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFooBar), epod("p-y3", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kSuccess},
                             {"node-y", kSuccess}},
      },
      {
          // 1. to fulfil first "zone" constraint, incoming pod can be placed on zone2 (node-x or node-y)
          // 2. to fulfil second "zone" constraint, incoming pod can be placed on zone1 (node-a or node-b)
          // intersection of (1) and (2) returns no node
          .name = "two Constraints on zone, spreads = [3/4, 2/1]",
          .pod = MakePod()
                     .name("p")
                     .label("foo", "")
                     .label("bar", "")
                     .spreadConstraint(1, "zone", kDoNotScheduleS, barSelector())
                     .spreadConstraint(1, "zone", kDoNotScheduleS, fooSelector())
                     .obj(),
          .nodes = fourNodesTwoZones(),
          .existingPods = {epod("p-a1", "node-a", kFooBar), epod("p-a2", "node-a", kFoo),
                           epod("p-b1", "node-b", kFooBar), epod("p-y1", "node-y", kFoo),
                           epod("p-y2", "node-y", kFooBar), epod("p-y3", "node-y", kFoo),
                           epod("p-y4", "node-y", kFoo)},
          .wantStatusCode = {{"node-a", kUnschedulable},
                             {"node-b", kUnschedulable},
                             {"node-x", kUnschedulable},
                             {"node-y", kUnschedulable}},
      },
  };
  runFilterCases(cases);
}

TEST(PodTopologySpreadFilteringTest, PreFilterDisabled) {
  PluginEnv env({}, {});
  auto p = env.plugin(listDefaulting(), Features{});
  ASSERT_NE(p, nullptr);
  api::Node node;
  auto nodeInfo = plugintesting::nodeInfoWith(node);
  framework::CycleState cycleState;
  auto got = p->filter(cycleState, *plugintesting::podInfo(api::Pod{}), *nodeInfo);
  EXPECT_EQ(got,
            framework::Status::error("reading \"PreFilterPodTopologySpread\" from cycleState: not found"));
}

// Preemption dry runs mutate clones of the state: the original must not see AddPod / RemovePod.
TEST(PodTopologySpreadFilteringTest, CloneIsIndependent) {
  PluginEnv env({epod("p-a1", "node-a", kFoo)},
                {nodeL("node-a", {{"node", "node-a"}}), nodeL("node-b", {{"node", "node-b"}})});
  auto p = env.plugin(listDefaulting(), Features{});
  ASSERT_NE(p, nullptr);
  framework::CycleState cs;
  framework::PreFilterResult result;
  const auto preemptor = plugintesting::podInfo(
      MakePod().name("p").label("foo", "").spreadConstraint(1, "node", kDoNotScheduleS, fooSelector()).obj());
  ASSERT_TRUE(p->preFilter(cs, *preemptor, env.lister().list(), result).isSuccess());
  auto clone = cs.clone();
  ASSERT_TRUE(p->addPod(*clone, *preemptor, *plugintesting::podInfo(*epod("p-b1", "node-b", kFoo)),
                        *env.nodeInfo("node-b"))
                  .isSuccess());
  expectPreFilterState({{tsc(1, "node", mustConvert(fooSelector()))},
                        {cp({"node-b", 0}, {"node-a", 1})},
                        {{{"node-a", 1}, {"node-b", 0}}}},
                       *cs.read<PreFilterState>());
  expectPreFilterState({{tsc(1, "node", mustConvert(fooSelector()))},
                        {cp({"node-a", 1}, {"node-b", 1})},
                        {{{"node-a", 1}, {"node-b", 1}}}},
                       *clone->read<PreFilterState>());
}

}  // namespace
}  // namespace ks::plugins::podtopologyspread
