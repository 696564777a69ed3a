// Ports upstream plugins/defaultbinder/default_binder_test.go against the in-memory API.
#include <gtest/gtest.h>

#include "pkg/client/memory/memory_client.h"
#include "pkg/scheduler/framework/plugins/defaultbinder/default_binder.h"
#include "test/scheduler/framework/plugins/testing/fake_handle.h"
#include "test/support/wrappers.h"

namespace ks::plugins::defaultbinder {
namespace {

using ks::testing::MakePod;

constexpr const char* kTestNode = "foohost.kubernetes.mydomain.com";

TEST(DefaultBinderTest, Successful) {
  client::MemoryClient api;
  auto created = api.create<api::Pod>(MakePod().name("foo").namespace_("ns").obj());
  ASSERT_TRUE(created.ok());
  plugintesting::FakeHandle h;
  h.setClient(&api);
  auto p = DefaultBinder::create(nullptr, h);
  ASSERT_TRUE(p.ok());
  auto* binder = dynamic_cast<framework::BindPlugin*>(p->get());
  ASSERT_NE(binder, nullptr);
  framework::CycleState state;
  auto status = binder->bind(state, *plugintesting::podInfo(*created), kTestNode);
  EXPECT_TRUE(status.isSuccess()) << status.toString();
  auto got = api.get<api::Pod>("ns", "foo");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->spec.nodeName, kTestNode);
  EXPECT_EQ(api.callCount(client::Operation::Bind), 1);
}

TEST(DefaultBinderTest, BindingError) {
  client::MemoryClient api;
  auto created = api.create<api::Pod>(MakePod().name("foo").namespace_("ns").obj());
  ASSERT_TRUE(created.ok());
  api.injectFailures(client::Operation::Bind, 1, client::ApiError(500, "InternalError", "binding error"));
  plugintesting::FakeHandle h;
  h.setClient(&api);
  DefaultBinder binder(h);
  framework::CycleState state;
  auto status = binder.bind(state, *plugintesting::podInfo(*created), kTestNode);
  EXPECT_EQ(status.code(), framework::Code::Error);
  EXPECT_EQ(status.message(), "binding error");
}

TEST(DefaultBinderTest, BindsWithPodUID) {
  // The binding carries the pod's UID: a recreated pod with the same name is not bound by mistake.
  client::MemoryClient api;
  auto created = api.create<api::Pod>(MakePod().name("foo").namespace_("ns").obj());
  ASSERT_TRUE(created.ok());
  api::Pod stale = *created;
  stale.metadata.uid = "some-other-uid";
  plugintesting::FakeHandle h;
  h.setClient(&api);
  DefaultBinder binder(h);
  framework::CycleState state;
  auto status = binder.bind(state, *plugintesting::podInfo(stale), kTestNode);
  EXPECT_EQ(status.code(), framework::Code::Error);
}

TEST(DefaultBinderTest, NoClient) {
  plugintesting::FakeHandle h;
  DefaultBinder binder(h);
  framework::CycleState state;
  EXPECT_EQ(binder.bind(state, *plugintesting::podInfo(MakePod().name("foo").obj()), kTestNode).code(),
            framework::Code::Error);
}

}  // namespace
}  // namespace ks::plugins::defaultbinder
