// Ports upstream (v1.34.4) volumebinding/assume_cache_test.go (TestAssumePV, TestRestorePV,
// TestBasicPVCache, TestPVCacheWithStorageClasses, TestAssumeUpdatePVCache, TestAssumePVC, TestRestorePVC,
// TestAssumeUpdatePVCCache: every case) and of util/assumecache/assume_cache_test.go what applies to
// our AssumeCache: TestAssume, TestRestore, TestEvents, TestListNoIndexer, TestListWithIndexer.
// AddTestObject / UpdateTestObject / DeleteTestObject are add() / add() / remove(), which is what
// watch() wires the informer's handlers to.
//
// Not ported, and why:
//   - TestEventHandlerConcurrency as such: EventHandlers below checks the order from concurrent writers.
//   - TestAssume "fail-new-bad-object" and TestEvents "nop add" / "nil add" / "nil update" /
//     "nop delete": they pass a non-object (1) or nil, which a typed cache cannot receive.
// The event expectations of TestAssume, TestRestore, TestEvents and TestEventHandlers are in EventHandlers
// (the cache's handlers serve DRA's ResourceClaim cache). Added here: the cache fed by a real informer
// through watch().
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pkg/client/memory/memory_client.h"
#include "pkg/informer/factory.h"
#include "pkg/scheduler/framework/plugins/volumebinding/assume_cache.h"
#include "test/scheduler/framework/plugins/volumebinding/test_utils.h"

namespace ks::volumebinding {
namespace {

using testutil::makePV;
using PVPtr = std::shared_ptr<const api::PersistentVolume>;
using PVCPtr = std::shared_ptr<const api::PersistentVolumeClaim>;

PVPtr pvWithVersion(const std::string& name, const std::string& className, const std::string& version) {
  return makePV(name, className).withVersion(version).ptr();
}

// GetPV returns exactly `expected` (the same object, as upstream's pointer comparison).
::testing::AssertionResult verifyPV(const PVAssumeCache& cache, const std::string& name,
                                    const PVPtr& expected) {
  auto pv = cache.get(name);
  if (!pv.ok()) return ::testing::AssertionFailure() << "get(" << name << "): " << pv.error().message();
  if (pv->get() != expected.get()) {
    return ::testing::AssertionFailure() << "get(" << name << ") returned version "
                                         << (*pv)->metadata.resourceVersion << ", not the expected object";
  }
  return ::testing::AssertionSuccess();
}

// list(storageClassName) returns exactly the objects of `expected` (by name and identity).
void verifyListPVs(const PVAssumeCache& cache, const std::map<std::string, PVPtr>& expected,
                   const std::string& storageClassName) {
  const auto list = cache.list(storageClassName);
  EXPECT_EQ(list.size(), expected.size());
  for (const PVPtr& pv : list) {
    auto it = expected.find(pv->metadata.name);
    if (it == expected.end()) {
      ADD_FAILURE() << "list() returned unexpected PV " << pv->metadata.name;
      continue;
    }
    EXPECT_EQ(it->second.get(), pv.get()) << pv->metadata.name;
  }
}

struct AssumePVScenario {
  std::string name;
  PVPtr oldPV;
  PVPtr newPV;
  bool shouldSucceed;
};

TEST(VolumeBindingAssumeCacheTest, AssumePV) {
  const std::vector<AssumePVScenario> scenarios = {
      {"success-same-version", pvWithVersion("pv1", "", "5"), pvWithVersion("pv1", "", "5"), true},
      {"success-storageclass-same-version", pvWithVersion("pv1", "class1", "5"),
       pvWithVersion("pv1", "class1", "5"), true},
      {"success-new-higher-version", pvWithVersion("pv1", "", "5"), pvWithVersion("pv1", "", "6"), true},
      {"fail-old-not-found", pvWithVersion("pv2", "", "5"), pvWithVersion("pv1", "", "5"), false},
      {"fail-new-lower-version", pvWithVersion("pv1", "", "5"), pvWithVersion("pv1", "", "4"), false},
      {"fail-new-bad-version", pvWithVersion("pv1", "", "5"), pvWithVersion("pv1", "", "a"), false},
      {"fail-old-bad-version", pvWithVersion("pv1", "", "a"), pvWithVersion("pv1", "", "5"), false},
  };
  for (const auto& s : scenarios) {
    SCOPED_TRACE(s.name);
    PVAssumeCache cache;
    cache.add(s.oldPV);
    ASSERT_TRUE(verifyPV(cache, s.oldPV->metadata.name, s.oldPV));

    auto r = cache.assume(s.newPV);
    EXPECT_EQ(r.ok(), s.shouldSucceed) << (r.ok() ? std::string("succeeded") : r.error().message());

    EXPECT_TRUE(verifyPV(cache, s.oldPV->metadata.name, s.shouldSucceed ? s.newPV : s.oldPV));
  }
}

TEST(VolumeBindingAssumeCacheTest, RestorePV) {
  PVAssumeCache cache;
  const PVPtr oldPV = pvWithVersion("pv1", "", "5");
  const PVPtr newPV = pvWithVersion("pv1", "", "5");

  cache.restore("nothing");

  cache.add(oldPV);
  ASSERT_TRUE(verifyPV(cache, oldPV->metadata.name, oldPV));

  cache.restore(oldPV->metadata.name);
  ASSERT_TRUE(verifyPV(cache, oldPV->metadata.name, oldPV));

  auto r = cache.assume(newPV);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(verifyPV(cache, oldPV->metadata.name, newPV));

  cache.restore(oldPV->metadata.name);
  ASSERT_TRUE(verifyPV(cache, oldPV->metadata.name, oldPV));
}

TEST(VolumeBindingAssumeCacheTest, BasicPVCache) {
  PVAssumeCache cache;

  auto missing = cache.get("nothere");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(), "could not find v1.PersistentVolume \"nothere\"");

  std::map<std::string, PVPtr> pvs;
  for (int i = 0; i < 10; ++i) {
    PVPtr pv = pvWithVersion("test-pv" + std::to_string(i), "", "1");
    pvs[pv->metadata.name] = pv;
    cache.add(pv);
  }
  verifyListPVs(cache, pvs, "");

  const PVPtr updatedPV = pvWithVersion("test-pv3", "", "2");
  pvs[updatedPV->metadata.name] = updatedPV;
  cache.add(updatedPV);
  verifyListPVs(cache, pvs, "");

  const PVPtr deletedPV = pvs["test-pv7"];
  pvs.erase(deletedPV->metadata.name);
  cache.remove(deletedPV->metadata.name);
  verifyListPVs(cache, pvs, "");
}

TEST(VolumeBindingAssumeCacheTest, PVCacheWithStorageClasses) {
  PVAssumeCache cache;

  std::map<std::string, PVPtr> pvs1;
  for (int i = 0; i < 10; ++i) {
    PVPtr pv = pvWithVersion("test-pv" + std::to_string(i), "class1", "1");
    pvs1[pv->metadata.name] = pv;
    cache.add(pv);
  }
  std::map<std::string, PVPtr> pvs2;
  for (int i = 0; i < 10; ++i) {
    PVPtr pv = pvWithVersion("test2-pv" + std::to_string(i), "class2", "1");
    pvs2[pv->metadata.name] = pv;
    cache.add(pv);
  }
  verifyListPVs(cache, pvs1, "class1");
  verifyListPVs(cache, pvs2, "class2");

  const PVPtr updatedPV = pvWithVersion("test-pv3", "class1", "2");
  pvs1[updatedPV->metadata.name] = updatedPV;
  cache.add(updatedPV);
  verifyListPVs(cache, pvs1, "class1");
  verifyListPVs(cache, pvs2, "class2");

  const PVPtr deletedPV = pvs1["test-pv7"];
  pvs1.erase(deletedPV->metadata.name);
  cache.remove(deletedPV->metadata.name);
  verifyListPVs(cache, pvs1, "class1");
  verifyListPVs(cache, pvs2, "class2");
}

TEST(VolumeBindingAssumeCacheTest, AssumeUpdatePVCache) {
  PVAssumeCache cache;
  const std::string pvName = "test-pv0";

  const PVPtr pv = pvWithVersion(pvName, "", "1");
  cache.add(pv);
  ASSERT_TRUE(verifyPV(cache, pvName, pv));

  auto assumed = std::make_shared<api::PersistentVolume>(*pv);
  assumed->spec.claimRef = api::ObjectReference{};
  assumed->spec.claimRef->name = "test-claim";
  const PVPtr newPV = assumed;
  auto r = cache.assume(newPV);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(verifyPV(cache, pvName, newPV));

  // The informer delivering the old version again does not drop the assumption.
  cache.add(pv);
  ASSERT_TRUE(verifyPV(cache, pvName, newPV));
}

PVCPtr makeClaim(const std::string& name, const std::string& version, const std::string& ns) {
  auto c = std::make_shared<api::PersistentVolumeClaim>();
  c->metadata.name = name;
  c->metadata.namespace_ = ns;
  c->metadata.resourceVersion = version;
  return c;
}

std::string claimKey(const PVCPtr& pvc) {
  return pvc->metadata.namespace_ + "/" + pvc->metadata.name;
}

::testing::AssertionResult verifyPVC(const PVCAssumeCache& cache, const std::string& key,
                                     const PVCPtr& expected) {
  auto pvc = cache.get(key);
  if (!pvc.ok()) return ::testing::AssertionFailure() << "get(" << key << "): " << pvc.error().message();
  if (pvc->get() != expected.get()) {
    return ::testing::AssertionFailure() << "get(" << key << ") returned version "
                                         << (*pvc)->metadata.resourceVersion << ", not the expected object";
  }
  return ::testing::AssertionSuccess();
}

struct AssumePVCScenario {
  std::string name;
  PVCPtr oldPVC;
  PVCPtr newPVC;
  bool shouldSucceed;
};

TEST(VolumeBindingAssumeCacheTest, AssumePVC) {
  const std::vector<AssumePVCScenario> scenarios = {
      {"success-same-version", makeClaim("pvc1", "5", "ns1"), makeClaim("pvc1", "5", "ns1"), true},
      {"success-new-higher-version", makeClaim("pvc1", "5", "ns1"), makeClaim("pvc1", "6", "ns1"), true},
      {"fail-old-not-found", makeClaim("pvc2", "5", "ns1"), makeClaim("pvc1", "5", "ns1"), false},
      {"fail-new-lower-version", makeClaim("pvc1", "5", "ns1"), makeClaim("pvc1", "4", "ns1"), false},
      {"fail-new-bad-version", makeClaim("pvc1", "5", "ns1"), makeClaim("pvc1", "a", "ns1"), false},
      {"fail-old-bad-version", makeClaim("pvc1", "a", "ns1"), makeClaim("pvc1", "5", "ns1"), false},
  };
  for (const auto& s : scenarios) {
    SCOPED_TRACE(s.name);
    PVCAssumeCache cache;
    cache.add(s.oldPVC);
    ASSERT_TRUE(verifyPVC(cache, claimKey(s.oldPVC), s.oldPVC));

    auto r = cache.assume(s.newPVC);
    EXPECT_EQ(r.ok(), s.shouldSucceed) << (r.ok() ? std::string("succeeded") : r.error().message());

    EXPECT_TRUE(verifyPVC(cache, claimKey(s.oldPVC), s.shouldSucceed ? s.newPVC : s.oldPVC));
  }
}

TEST(VolumeBindingAssumeCacheTest, RestorePVC) {
  PVCAssumeCache cache;
  const PVCPtr oldPVC = makeClaim("pvc1", "5", "ns1");
  const PVCPtr newPVC = makeClaim("pvc1", "5", "ns1");

  cache.restore("nothing");

  cache.add(oldPVC);
  ASSERT_TRUE(verifyPVC(cache, claimKey(oldPVC), oldPVC));

  cache.restore(claimKey(oldPVC));
  ASSERT_TRUE(verifyPVC(cache, claimKey(oldPVC), oldPVC));

  auto r = cache.assume(newPVC);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(verifyPVC(cache, claimKey(oldPVC), newPVC));

  cache.restore(claimKey(oldPVC));
  ASSERT_TRUE(verifyPVC(cache, claimKey(oldPVC), oldPVC));
}

TEST(VolumeBindingAssumeCacheTest, AssumeUpdatePVCCache) {
  PVCAssumeCache cache;
  const PVCPtr pvc = makeClaim("test-pvc0", "1", "test-ns");
  cache.add(pvc);
  ASSERT_TRUE(verifyPVC(cache, claimKey(pvc), pvc));

  auto assumed = std::make_shared<api::PersistentVolumeClaim>(*pvc);
  assumed->metadata.annotations[std::string(volume::kAnnSelectedNode)] = "test-node";
  const PVCPtr newPVC = assumed;
  auto r = cache.assume(newPVC);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(verifyPVC(cache, claimKey(pvc), newPVC));

  cache.add(pvc);
  ASSERT_TRUE(verifyPVC(cache, claimKey(pvc), newPVC));
}

// --- util/assumecache/assume_cache_test.go, over the generic cache. ---

using TestCache = AssumeCache<api::PersistentVolumeClaim>;

// get() and getAPIObj() return exactly these objects.
::testing::AssertionResult verify(const TestCache& cache, const std::string& key,
                                  const PVCPtr& expectedObject, const PVCPtr& expectedAPIObject) {
  auto obj = cache.get(key);
  if (!obj.ok()) return ::testing::AssertionFailure() << "get(" << key << "): " << obj.error().message();
  if (obj->get() != expectedObject.get()) {
    return ::testing::AssertionFailure()
           << "get(" << key << ") returned version " << (*obj)->metadata.resourceVersion;
  }
  auto apiObj = cache.getAPIObj(key);
  if (!apiObj.ok())
    return ::testing::AssertionFailure() << "getAPIObj(" << key << "): " << apiObj.error().message();
  if (apiObj->get() != expectedAPIObject.get()) {
    return ::testing::AssertionFailure()
           << "getAPIObj(" << key << ") returned version " << (*apiObj)->metadata.resourceVersion;
  }
  return ::testing::AssertionSuccess();
}

// list(index) holds exactly `expected`, in any order.
void verifyList(const TestCache& cache, std::vector<PVCPtr> expected, const std::string& index = "") {
  auto actual = cache.list(index);
  auto byKey = [](const PVCPtr& a, const PVCPtr& b) { return claimKey(a) < claimKey(b); };
  std::sort(expected.begin(), expected.end(), byKey);
  std::sort(actual.begin(), actual.end(), byKey);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_EQ(actual[i].get(), expected[i].get()) << claimKey(expected[i]);
  }
}

struct AssumeScenario {
  std::string name;
  PVCPtr oldObj;
  PVCPtr newObj;
  std::string expectErr;  // empty: success; "*": any error
};

TEST(AssumeCacheTest, Assume) {
  const std::vector<AssumeScenario> scenarios = {
      {"success-same-version", makeClaim("pvc1", "5", ""), makeClaim("pvc1", "5", ""), ""},
      {"success-new-higher-version", makeClaim("pvc1", "5", ""), makeClaim("pvc1", "6", ""), ""},
      {"fail-old-not-found", makeClaim("pvc2", "5", ""), makeClaim("pvc1", "5", ""),
       "could not find TestObject \"pvc1\""},
      {"fail-new-lower-version", makeClaim("pvc1", "5", ""), makeClaim("pvc1", "4", ""), "*"},
      {"fail-new-bad-version", makeClaim("pvc1", "5", ""), makeClaim("pvc1", "a", ""), "*"},
      {"fail-old-bad-version", makeClaim("pvc1", "a", ""), makeClaim("pvc1", "5", ""), "*"},
  };
  for (const auto& s : scenarios) {
    SCOPED_TRACE(s.name);
    TestCache cache("TestObject");
    cache.add(s.oldObj);
    ASSERT_TRUE(verify(cache, s.oldObj->metadata.name, s.oldObj, s.oldObj));

    auto r = cache.assume(s.newObj);
    if (s.expectErr.empty()) {
      EXPECT_TRUE(r.ok()) << r.error().message();
    } else {
      ASSERT_FALSE(r.ok());
      if (s.expectErr != "*") {
        EXPECT_EQ(r.error().message(), s.expectErr);
      }
    }
    EXPECT_TRUE(verify(cache, s.oldObj->metadata.name, s.expectErr.empty() ? s.newObj : s.oldObj, s.oldObj));
  }
}

TEST(AssumeCacheTest, Restore) {
  TestCache cache("TestObject");
  const PVCPtr oldObj = makeClaim("pvc1", "5", "");
  const PVCPtr newObj = makeClaim("pvc1", "5", "");

  // empty cache
  cache.restore("nothing");

  // initial update
  cache.add(oldObj);
  ASSERT_TRUE(verify(cache, "pvc1", oldObj, oldObj));

  // initial Restore
  cache.restore("pvc1");
  ASSERT_TRUE(verify(cache, "pvc1", oldObj, oldObj));

  // Assume
  auto r = cache.assume(newObj);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_TRUE(verify(cache, "pvc1", newObj, oldObj));

  // second Restore
  cache.restore("pvc1");
  ASSERT_TRUE(verify(cache, "pvc1", oldObj, oldObj));
}

TEST(AssumeCacheTest, Events) {
  TestCache cache("TestObject");
  const PVCPtr oldObj = makeClaim("pvc1", "5", "");
  const PVCPtr newObj = makeClaim("pvc1", "6", "");
  const std::string key = "pvc1";

  cache.add(oldObj);
  ASSERT_TRUE(verify(cache, key, oldObj, oldObj));

  // initial update
  cache.add(newObj);
  ASSERT_TRUE(verify(cache, key, newObj, newObj));

  // nop update: an older version is ignored
  cache.add(oldObj);
  ASSERT_TRUE(verify(cache, key, newObj, newObj));

  // delete: by key, whatever version the deleted object had
  cache.remove(key);
  auto r = cache.get(key);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message(), "could not find TestObject \"pvc1\"");
}

TEST(AssumeCacheTest, ListNoIndexer) {
  TestCache cache("TestObject");
  std::vector<PVCPtr> objs;
  for (int i = 0; i < 10; ++i) {
    PVCPtr obj = makeClaim("test-pvc" + std::to_string(i), "1", "");
    objs.push_back(obj);
    cache.add(obj);
  }
  {
    SCOPED_TRACE("after add");
    verifyList(cache, objs);
  }

  const PVCPtr updatedObj = makeClaim("test-pvc3", "2", "");
  objs[3] = updatedObj;
  cache.add(updatedObj);
  {
    SCOPED_TRACE("after update");
    verifyList(cache, objs);
  }

  const PVCPtr deletedObj = objs[7];
  objs.erase(objs.begin() + 7);
  cache.remove(deletedObj->metadata.name);  // namespace "": the key is the name
  {
    SCOPED_TRACE("after delete");
    verifyList(cache, objs);
  }
}

TEST(AssumeCacheTest, ListWithIndexer) {
  TestCache cache("TestObject",
                  [](const api::PersistentVolumeClaim& obj) { return obj.metadata.namespace_; });
  const std::string ns = "ns1";
  std::vector<PVCPtr> objs;
  for (int i = 0; i < 10; ++i) {
    PVCPtr obj = makeClaim("test-pvc" + std::to_string(i), "1", ns);
    objs.push_back(obj);
    cache.add(obj);
  }
  for (int i = 0; i < 10; ++i) cache.add(makeClaim("test-pvc" + std::to_string(i), "1", "ns2"));
  {
    SCOPED_TRACE("after add");
    verifyList(cache, objs, ns);
  }

  const PVCPtr updatedObj = makeClaim("test-pvc3", "2", ns);
  objs[3] = updatedObj;
  cache.add(updatedObj);
  {
    SCOPED_TRACE("after update");
    verifyList(cache, objs, ns);
  }

  const PVCPtr deletedObj = objs[7];
  objs.erase(objs.begin() + 7);
  cache.remove(claimKey(deletedObj));
  {
    SCOPED_TRACE("after delete");
    verifyList(cache, objs, ns);
  }
}

// Added: watch() keeps the cache in step with an informer (adds, updates, deletes), and an informer
// update of the object replaces an assumed version only when it is newer.
TEST(AssumeCacheTest, WatchInformer) {
  client::MemoryClient client;
  informer::SharedInformerFactory factory(client);
  PVCAssumeCache cache;
  cache.watch(factory.persistentVolumeClaims());

  api::PersistentVolumeClaim claim;
  claim.metadata.name = "pvc1";
  claim.metadata.namespace_ = "ns1";
  auto created = client.create(claim);
  ASSERT_TRUE(created.ok()) << created.error().message();

  factory.start();
  ASSERT_TRUE(factory.waitForCacheSync(std::chrono::seconds(10)));

  // Polls until `done` holds (the informer delivers on its own thread).
  auto eventually = [](const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
  };
  auto versionIs = [&](const std::string& rv, bool api) {
    return [&cache, rv, api] {
      auto obj = api ? cache.getAPIObj("ns1/pvc1") : cache.get("ns1/pvc1");
      return obj.ok() && (*obj)->metadata.resourceVersion == rv;
    };
  };
  ASSERT_TRUE(eventually(versionIs(created->metadata.resourceVersion, true)));

  // Assume a version with the selected node; the API object stays as the informer delivered it.
  auto assumed = std::make_shared<api::PersistentVolumeClaim>(*created);
  assumed->metadata.annotations[std::string(volume::kAnnSelectedNode)] = "node1";
  ASSERT_TRUE(cache.assume(assumed).ok());
  EXPECT_EQ((*cache.get("ns1/pvc1"))->metadata.annotations.count(std::string(volume::kAnnSelectedNode)), 1U);

  // An API update (newer) replaces both versions.
  api::PersistentVolumeClaim next = *created;
  next.metadata.labels["l"] = "v";
  auto updated = client.update(next);
  ASSERT_TRUE(updated.ok()) << updated.error().message();
  ASSERT_TRUE(eventually(versionIs(updated->metadata.resourceVersion, false)));
  EXPECT_EQ((*cache.get("ns1/pvc1"))->metadata.annotations.count(std::string(volume::kAnnSelectedNode)), 0U);
  EXPECT_TRUE(eventually(versionIs(updated->metadata.resourceVersion, true)));

  auto removed = client.remove<api::PersistentVolumeClaim>("ns1", "pvc1");
  ASSERT_TRUE(removed.ok()) << removed.error().message();
  EXPECT_TRUE(eventually([&] { return !cache.get("ns1/pvc1").ok(); }));
  factory.stop();
}

// Handlers see the cache's view: a replay of the current objects, then adds, updates (assume and restore
// included, not a not-newer informer update) and deletes, in order; a handler may read the cache.
TEST(AssumeCacheTest, EventHandlers) {
  AssumeCache<api::PersistentVolume> cache("v1.PersistentVolume");
  const PVPtr pv1 = pvWithVersion("pv1", "", "1");
  cache.add(pv1);
  std::vector<std::string> events;
  informer::EventHandlerFuncs<api::PersistentVolume> h;
  h.onAdd = [&](const PVPtr& obj, bool initial) {
    // Reading the cache from a handler must not deadlock.
    EXPECT_TRUE(cache.get(obj->metadata.name).ok());
    events.push_back("add " + obj->metadata.name + "@" + obj->metadata.resourceVersion + (initial ? " initial" : ""));
  };
  h.onUpdate = [&](const PVPtr& o, const PVPtr& n) {
    events.push_back("update " + n->metadata.name + " " + o->metadata.resourceVersion + "->" +
                     n->metadata.resourceVersion);
  };
  h.onDelete = [&](const informer::DeletedObject<api::PersistentVolume>& d) {
    events.push_back("delete " + d.key + "@" + d.object->metadata.resourceVersion);
  };
  cache.addEventHandler(std::move(h));
  cache.add(pvWithVersion("pv2", "", "1"));
  cache.add(pvWithVersion("pv1", "", "2"));
  ASSERT_TRUE(cache.assume(pvWithVersion("pv1", "", "3")).ok());
  cache.add(pvWithVersion("pv1", "", "3"));  // not newer than the assumed one: no event
  cache.restore("pv1");
  cache.restore("pv1");  // nothing assumed any more: no event
  cache.remove("pv2");
  cache.remove("pv2");  // gone already: no event
  EXPECT_EQ(events, (std::vector<std::string>{"add pv1@1 initial", "add pv2@1", "update pv1 1->2", "update pv1 2->3",
                                              "update pv1 3->2", "delete pv2@1"}));
}

// Events from several writing threads reach a handler one at a time, each object's in order.
TEST(AssumeCacheTest, EventHandlerOrderUnderConcurrency) {
  AssumeCache<api::PersistentVolume> cache("v1.PersistentVolume");
  std::mutex mu;
  std::map<std::string, std::vector<int>> versions;
  std::atomic<int> active{0};
  informer::EventHandlerFuncs<api::PersistentVolume> h;
  auto record = [&](const PVPtr& obj) {
    EXPECT_EQ(active.fetch_add(1), 0) << "handler called concurrently";
    {
      std::lock_guard lock(mu);
      versions[obj->metadata.name].push_back(std::stoi(obj->metadata.resourceVersion));
    }
    active.fetch_sub(1);
  };
  h.onAdd = [&](const PVPtr& obj, bool) { record(obj); };
  h.onUpdate = [&](const PVPtr&, const PVPtr& obj) { record(obj); };
  cache.addEventHandler(std::move(h));
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&cache, t] {
      for (int v = 1; v <= 200; ++v) cache.add(pvWithVersion("pv" + std::to_string(t), "", std::to_string(v)));
    });
  }
  for (auto& w : writers) w.join();
  for (int t = 0; t < 4; ++t) {
    const auto& got = versions["pv" + std::to_string(t)];
    ASSERT_EQ(got.size(), 200u);
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
  }
}

}  // namespace
}  // namespace ks::volumebinding
