#include "pkg/informer/store.h"

#include <gtest/gtest.h>

#include "pkg/api/core.h"

namespace ks::informer {
namespace {

std::shared_ptr<const api::Pod> pod(const std::string& ns, const std::string& name,
                                    const std::string& node = "") {
  auto p = std::make_shared<api::Pod>();
  p->metadata.namespace_ = ns;
  p->metadata.name = name;
  p->spec.nodeName = node;
  return p;
}

std::vector<std::string> nodeNameIndex(const api::Pod& p) {
  if (p.spec.nodeName.empty()) return {};
  return {p.spec.nodeName};
}

std::vector<std::string> namesOf(const std::vector<std::shared_ptr<const api::Pod>>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(p->metadata.name);
  return out;
}

using V = std::vector<std::string>;

TEST(StoreTest, KeysAndBasicOperations) {
  Store<api::Pod> s;
  EXPECT_EQ(s.upsert(pod("ns", "a")), nullptr);
  auto old = s.upsert(pod("ns", "a", "n1"));
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(old->spec.nodeName, "");
  EXPECT_EQ(s.get("ns/a")->spec.nodeName, "n1");
  EXPECT_EQ(s.get("a"), nullptr);

  api::Node n;
  n.metadata.name = "node-1";
  EXPECT_EQ(objectKey(n), "node-1");

  s.upsert(pod("ns", "b"));
  EXPECT_EQ(s.listKeys(), (V{"ns/a", "ns/b"}));
  EXPECT_EQ(s.size(), 2u);
  EXPECT_NE(s.remove("ns/a"), nullptr);
  EXPECT_EQ(s.remove("ns/a"), nullptr);
  EXPECT_EQ(namesOf(s.list()), (V{"b"}));

  auto previous = s.replace({pod("x", "c"), pod("x", "d")});
  ASSERT_EQ(previous.size(), 1u);
  EXPECT_TRUE(previous.contains("ns/b"));
  EXPECT_EQ(s.listKeys(), (V{"x/c", "x/d"}));
}

TEST(StoreTest, Indexers) {
  Store<api::Pod> s;
  s.upsert(pod("ns1", "a", "n1"));
  // Added after data: existing objects are indexed.
  ASSERT_TRUE(s.addIndexer("nodeName", nodeNameIndex).ok());
  ASSERT_TRUE(s.addIndexer(std::string(kNamespaceIndex), metaNamespaceIndexFunc<api::Pod>).ok());
  EXPECT_FALSE(s.addIndexer("nodeName", nodeNameIndex).ok());

  s.upsert(pod("ns1", "b", "n1"));
  s.upsert(pod("ns2", "c", "n2"));
  s.upsert(pod("ns2", "d"));
  EXPECT_EQ(namesOf(s.byIndex("nodeName", "n1").value()), (V{"a", "b"}));
  EXPECT_EQ(namesOf(s.byIndex("namespace", "ns2").value()), (V{"c", "d"}));

  // Moving an object moves its index entries.
  s.upsert(pod("ns1", "b", "n2"));
  EXPECT_EQ(namesOf(s.byIndex("nodeName", "n1").value()), (V{"a"}));
  EXPECT_EQ(s.indexKeys("nodeName", "n2").value(), (V{"ns1/b", "ns2/c"}));

  s.remove("ns2/c");
  EXPECT_EQ(s.indexKeys("nodeName", "n2").value(), (V{"ns1/b"}));
  EXPECT_TRUE(s.byIndex("nodeName", "n9").value().empty());

  auto missing = s.byIndex("nope", "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "Index with name nope does not exist");

  s.replace({pod("ns3", "e", "n1")});
  EXPECT_EQ(namesOf(s.byIndex("nodeName", "n1").value()), (V{"e"}));
  EXPECT_TRUE(s.byIndex("nodeName", "n2").value().empty());
  EXPECT_TRUE(s.byIndex("namespace", "ns1").value().empty());
}

}  // namespace
}  // namespace ks::informer
