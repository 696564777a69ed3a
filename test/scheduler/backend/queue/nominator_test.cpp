#include "pkg/scheduler/backend/queue/nominator.h"

#include <gtest/gtest.h>

#include "test/support/wrappers.h"

namespace ks::queue {
namespace {

using ks::testing::MakePod;

framework::PodInfoPtr info(const api::PodPtr& p) {
  return framework::PodInfo::create(p);
}

TEST(NominatorTest, OverrideNoopAndMove) {
  Nominator n;
  auto p = MakePod().name("p").namespace_("ns").uid("u1").ptr();
  n.addNominatedPod(info(p), {"n1", framework::NominatingMode::Override});
  EXPECT_EQ(n.nominatedNodeFor("u1"), "n1");
  n.addNominatedPod(info(p), {"n2", framework::NominatingMode::Override});
  EXPECT_TRUE(n.nominatedPodsForNode("n1").empty());
  ASSERT_EQ(n.nominatedPodsForNode("n2").size(), 1u);
  // Noop takes status.nominatedNodeName.
  auto q = MakePod().name("q").namespace_("ns").uid("u2").nominatedNodeName("n3").ptr();
  n.addNominatedPod(info(q), {});
  EXPECT_EQ(n.nominatedNodeFor("u2"), "n3");
  n.deleteNominatedPodIfExists(*q);
  EXPECT_EQ(n.nominatedNodeFor("u2"), "");
}

TEST(NominatorTest, BoundPodsAreNotNominated) {
  Nominator n;
  auto p = MakePod().name("p").namespace_("ns").uid("u1").node("n0").ptr();
  n.addNominatedPod(info(p), {"n1", framework::NominatingMode::Override});
  EXPECT_TRUE(n.nominatedPodsForNode("n1").empty());
}

TEST(NominatorTest, UpdateKeepsSchedulerNominationUntilApiReflectsIt) {
  Nominator n;
  auto v1 = MakePod().name("p").namespace_("ns").uid("u1").ptr();
  n.addNominatedPod(info(v1), {"n1", framework::NominatingMode::Override});
  auto v2 = MakePod().name("p").namespace_("ns").uid("u1").label("a", "b").ptr();
  n.updateNominatedPod(*v1, info(v2));
  EXPECT_EQ(n.nominatedNodeFor("u1"), "n1");
  auto v3 = MakePod().name("p").namespace_("ns").uid("u1").nominatedNodeName("n2").ptr();
  n.updateNominatedPod(*v2, info(v3));
  EXPECT_EQ(n.nominatedNodeFor("u1"), "n2");
}

}  // namespace
}  // namespace ks::queue
