// Events are aggregated into series; a burst is written in full (the events client paces it), not dropped.
#include "pkg/scheduler/event_recorder.h"

#include <gtest/gtest.h>

#include "pkg/client/memory/memory_client.h"
#include "test/support/wrappers.h"

namespace ks::scheduler {
namespace {

using ks::testing::MakePod;

TEST(EventRecorderTest, WritesEventsAsEventsV1) {
  client::MemoryClient api;
  ApiEventRecorder recorder(
      api, EventRecorderOptions{.reportingController = "my-scheduler", .reportingInstance = "host_1"});
  auto pod = MakePod().name("p").namespace_("ns").uid("u1").obj();
  recorder.eventf(podReference(pod), nullptr, "Normal", "Scheduled", "Binding",
                  "Successfully assigned ns/p to n1");
  recorder.flush();
  auto events = api.objects<api::Event>();
  ASSERT_EQ(events.size(), 1u);
  const api::Event& e = *events[0];
  EXPECT_EQ(e.metadata.namespace_, "ns");
  EXPECT_EQ(e.metadata.name.rfind("p.", 0), 0u) << e.metadata.name;
  EXPECT_EQ(e.reason, "Scheduled");
  EXPECT_EQ(e.action, "Binding");
  EXPECT_EQ(e.type, "Normal");
  EXPECT_EQ(e.note, "Successfully assigned ns/p to n1");
  EXPECT_EQ(e.reportingController, "my-scheduler");
  EXPECT_EQ(e.reportingInstance, "host_1");
  EXPECT_EQ(e.regarding.kind, "Pod");
  EXPECT_EQ(e.regarding.uid, "u1");
  EXPECT_FALSE(e.series.has_value());
}

TEST(EventRecorderTest, RepeatsBecomeOneEventWithASeries) {
  client::MemoryClient api;
  ApiEventRecorder recorder(api);
  auto pod = MakePod().name("p").namespace_("ns").uid("u1").obj();
  for (int i = 0; i < 10; ++i) {
    recorder.eventf(podReference(pod), nullptr, "Warning", "FailedScheduling", "Scheduling",
                    "0/3 nodes are available: 3 Insufficient cpu.");
  }
  recorder.flush();
  auto events = api.objects<api::Event>();
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(events[0]->series.has_value());
  EXPECT_EQ(events[0]->series->count, 10);
  // A different message is a different event.
  recorder.eventf(podReference(pod), nullptr, "Warning", "FailedScheduling", "Scheduling",
                  "0/4 nodes are available: 4 Insufficient cpu.");
  recorder.flush();
  EXPECT_EQ(api.objects<api::Event>().size(), 2u);
}

TEST(EventRecorderTest, BurstIsWrittenInFull) {
  // client-go's events broadcaster has no rate limit of its own: each of a burst of distinct events is
  // written (the events client's limiter paces them), none is dropped.
  client::MemoryClient api;
  ApiEventRecorder recorder(api);
  for (int i = 0; i < 500; ++i) {
    auto pod = MakePod().name("p" + std::to_string(i)).namespace_("ns").uid("u" + std::to_string(i)).obj();
    recorder.eventf(podReference(pod), nullptr, "Normal", "Scheduled", "Binding", "assigned");
  }
  recorder.flush();
  EXPECT_EQ(api.objects<api::Event>().size(), 500u);
  EXPECT_EQ(recorder.droppedForTest(), 0u);
}

TEST(EventRecorderTest, ConcurrentRepeatsEndWithTheirFullCount) {
  // Repeats arriving while the create is in flight, from several writers, still end as one Event whose
  // series holds every occurrence.
  client::MemoryClient api;
  ApiEventRecorder recorder(api, EventRecorderOptions{.writers = 8});
  auto pod = MakePod().name("p").namespace_("ns").uid("u1").obj();
  for (int i = 0; i < 300; ++i) {
    recorder.eventf(podReference(pod), nullptr, "Warning", "FailedScheduling", "Scheduling", "no fit");
  }
  recorder.flush();
  auto events = api.objects<api::Event>();
  ASSERT_EQ(events.size(), 1u);
  ASSERT_TRUE(events[0]->series.has_value());
  EXPECT_EQ(events[0]->series->count, 300);
}

TEST(EventRecorderTest, QueueBoundDropsInsteadOfGrowing) {
  client::MemoryClient api;
  // With no room in the queue, events are counted as dropped rather than queued without bound.
  ApiEventRecorder recorder(api, EventRecorderOptions{.maxQueued = 0});
  auto pod = MakePod().name("p").namespace_("ns").uid("u1").obj();
  recorder.eventf(podReference(pod), nullptr, "Normal", "Scheduled", "Binding", "x");
  recorder.flush();
  EXPECT_EQ(recorder.droppedForTest(), 1u);
  EXPECT_TRUE(api.objects<api::Event>().empty());
}

}  // namespace
}  // namespace ks::scheduler
