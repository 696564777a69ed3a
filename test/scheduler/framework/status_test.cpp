#include "pkg/scheduler/framework/status.h"

#include <gtest/gtest.h>

namespace ks::framework {
namespace {

TEST(StatusTest, DefaultIsSuccessWithoutAllocation) {
  Status s;
  EXPECT_TRUE(s.isSuccess());
  EXPECT_EQ(s.code(), Code::Success);
  EXPECT_TRUE(s.reasons().empty());
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.plugin(), "");
  EXPECT_FALSE(s.asError().has_value());
  EXPECT_EQ(sizeof(Status), sizeof(void*));
  EXPECT_EQ(Status(Code::Success), Status());
}

// Upstream TestStatus.
TEST(StatusTest, CodesMessagesAndErrors) {
  struct Case {
    std::string name;
    Status status;
    Code expectedCode;
    std::string expectedMessage;
    bool expectedIsSuccess;
    bool expectedAsError;
  };
  std::vector<Case> cases;
  cases.push_back({"success status", Status(Code::Success), Code::Success, "", true, false});
  cases.push_back(
      {"error status", Status(Code::Error, "unknown error"), Code::Error, "unknown error", false, true});
  cases.push_back({"error status with multiple reasons",
                   Status(Code::Error, std::vector<std::string>{"a", "b"}), Code::Error, "a, b", false,
                   true});
  cases.push_back({"nil status", Status(), Code::Success, "", true, false});
  cases.push_back({"wait status", Status(Code::Wait, "w"), Code::Wait, "w", false, false});
  cases.push_back({"skip status", Status(Code::Skip), Code::Skip, "", false, false});
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.status.code(), c.expectedCode);
    EXPECT_EQ(c.status.message(), c.expectedMessage);
    EXPECT_EQ(c.status.isSuccess(), c.expectedIsSuccess);
    auto err = c.status.asError();
    EXPECT_EQ(err.has_value(), c.expectedAsError);
    if (err) {
      EXPECT_EQ(err->message(), c.expectedMessage);
    }
  }
}

TEST(StatusTest, IsRejected) {
  EXPECT_TRUE(Status(Code::Unschedulable).isRejected());
  EXPECT_TRUE(Status(Code::UnschedulableAndUnresolvable).isRejected());
  EXPECT_TRUE(Status(Code::Pending).isRejected());
  EXPECT_FALSE(Status(Code::Error).isRejected());
  EXPECT_FALSE(Status(Code::Wait).isRejected());
  EXPECT_FALSE(Status(Code::Skip).isRejected());
  EXPECT_FALSE(Status().isRejected());
}

// Upstream TestPreFilterResultMerge lives in interface_test; code names follow upstream's String().
TEST(StatusTest, CodeNames) {
  EXPECT_EQ(codeName(Code::Success), "Success");
  EXPECT_EQ(codeName(Code::Error), "Error");
  EXPECT_EQ(codeName(Code::Unschedulable), "Unschedulable");
  EXPECT_EQ(codeName(Code::UnschedulableAndUnresolvable), "UnschedulableAndUnresolvable");
  EXPECT_EQ(codeName(Code::Wait), "Wait");
  EXPECT_EQ(codeName(Code::Skip), "Skip");
  EXPECT_EQ(codeName(Code::Pending), "Pending");
}

TEST(StatusTest, FromErrorKeepsError) {
  Status s = Status::fromError(Error("boom"));
  EXPECT_EQ(s.code(), Code::Error);
  EXPECT_EQ(s.reasons(), std::vector<std::string>{"boom"});
  ASSERT_TRUE(s.asError().has_value());
  EXPECT_EQ(s.asError()->message(), "boom");
  EXPECT_NE(s, Status(Code::Error, "boom"));  // a wrapped error is part of equality, as upstream
  EXPECT_EQ(s, Status::error("boom"));
}

TEST(StatusTest, PluginAndCopy) {
  Status s = Status(Code::Unschedulable, "r1").withPlugin("P");
  s.appendReason("r2");
  Status c = s;
  EXPECT_EQ(c, s);
  EXPECT_EQ(c.plugin(), "P");
  EXPECT_EQ(c.message(), "r1, r2");
  c.setPlugin("Q");
  EXPECT_NE(c, s);
  EXPECT_EQ(s.toString(), "Unschedulable: r1, r2 (plugin P)");
  Status moved = std::move(c);
  EXPECT_EQ(moved.plugin(), "Q");
}

}  // namespace
}  // namespace ks::framework
