// FitError messages as upstream's FitError.Error() builds them (framework/types_test.go cases).
#include "pkg/scheduler/framework/fit_error.h"

#include <gtest/gtest.h>

namespace ks::framework {
namespace {


Status unschedulable(std::vector<std::string> reasons) {
  return Status(Code::Unschedulable, std::move(reasons));
}

TEST(FitErrorTest, CountsReasonsPerNodeAndSortsAsStrings) {
  FitError fe;
  fe.numAllNodes = 12;
  for (int i = 0; i < 10; ++i)
    fe.diagnosis.nodeToStatus.set("cpu" + std::to_string(i), unschedulable({"Insufficient cpu"}));
  fe.diagnosis.nodeToStatus.set("a1", unschedulable({"node(s) didn't match Pod's node affinity/selector"}));
  fe.diagnosis.nodeToStatus.set("a2", unschedulable({"node(s) didn't match Pod's node affinity/selector"}));
  // "10 ..." sorts before "2 ..." as strings, as upstream.
  EXPECT_EQ(
      fe.message(),
      "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.");
}

TEST(FitErrorTest, MultipleReasonsOnOneNodeCountSeparately) {
  FitError fe;
  fe.numAllNodes = 2;
  fe.diagnosis.nodeToStatus.set("n1", unschedulable({"Insufficient cpu", "Insufficient memory"}));
  fe.diagnosis.nodeToStatus.set("n2", unschedulable({"Insufficient memory"}));
  EXPECT_EQ(fe.message(), "0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory.");
}

TEST(FitErrorTest, AbsentNodesCountWithAbsentStatus) {
  FitError fe;
  fe.numAllNodes = 5;
  fe.diagnosis.nodeToStatus.setAbsentNodesStatus(
      Status(Code::UnschedulableAndUnresolvable,
             std::vector<std::string>{"node(s) didn't satisfy plugin(s) [NodeAffinity]"}));
  fe.diagnosis.nodeToStatus.set("n1", unschedulable({"node(s) had untolerated taint(s)"}));
  EXPECT_EQ(fe.message(),
            "0/5 nodes are available: 1 node(s) had untolerated taint(s), 4 node(s) didn't satisfy plugin(s) "
            "[NodeAffinity].");
}

TEST(FitErrorTest, PreFilterMessageReplacesNodeReasonsAndPostFilterAppends) {
  FitError fe;
  fe.numAllNodes = 3;
  fe.diagnosis.preFilterMsg = "node(s) didn't match pod topology spread constraints";
  fe.diagnosis.nodeToStatus.setAbsentNodesStatus(
      Status(Code::UnschedulableAndUnresolvable, std::vector<std::string>{fe.diagnosis.preFilterMsg}));
  // Preemption's message carries its own final "." (F19: nothing is appended after it).
  fe.diagnosis.postFilterMsg =
      "preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
  EXPECT_EQ(fe.message(),
            "0/3 nodes are available: node(s) didn't match pod topology spread constraints. preemption: 0/3 "
            "nodes are "
            "available: 3 No preemption victims found for incoming pod.");
}

TEST(FitErrorTest, DiagnosisRecordsRejectingPlugins) {
  Diagnosis d;
  d.addPluginStatus(unschedulable({"x"}).withPlugin("A"));
  d.addPluginStatus(Status(Code::Pending, std::vector<std::string>{"y"}).withPlugin("B"));
  d.addPluginStatus(Status::error("boom").withPlugin("C"));
  d.addPluginStatus(unschedulable({"z"}));  // no plugin
  EXPECT_EQ(d.unschedulablePlugins, (std::set<std::string>{"A", "B"}));
  EXPECT_EQ(d.pendingPlugins, (std::set<std::string>{"B"}));
}

TEST(FitErrorTest, TruncatesLongMessages) {
  std::string longMsg(2000, 'x');
  std::string t = truncateMessage(longMsg);
  EXPECT_EQ(t.size(), 1024u);
  EXPECT_EQ(t.substr(1020), " ...");
  EXPECT_EQ(truncateMessage("short"), "short");
}

}  // namespace
}  // namespace ks::framework
