// The storage area's concurrency without Orthanc (orthanc/src): concurrent writes gathered into
// batches (batch.h, here on the CPU backend with a window set), and the deferred mode
// (deferred.h): files stored as they came, coded by the background coders, read correctly at
// every moment; a start without the clean-stop marker walks the folder; removals racing with
// the coders leave nothing behind. Synthetic files, so that the sanitizer build covers it. The
// coders run at normal priority here (the plugin's default, idle, would wait for CPU while
// other tests keep the machine busy).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <unistd.h>
#include <utime.h>
#include <vector>

extern "C" {
#include "config.h"
#include "container.h"
#include "deferred.h"
#include "storage_files.h"
#include "store.h"
}

#include "orthanc_test_dicom.h"

namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path root;
  explicit Folder(const std::string& name)
      : root(fs::temp_directory_path() / ("pcwt-orthanc-" + name + "-" + std::to_string(::getpid())))
  {
    fs::remove_all(root);
  }
  ~Folder() { fs::remove_all(root); }
};

pco_store* makeStore(const fs::path& root, int64_t window_us)
{
  pco_config cfg;
  char msg[256];
  EXPECT_EQ(pco_config_parse("{\"PCWT\": {\"Backend\": \"cpu\"}}", &cfg, msg, sizeof msg), 0) << msg;
  std::snprintf(cfg.storage_dir, sizeof cfg.storage_dir, "%s", root.c_str());
  cfg.sync = 0;
  cfg.batch_window_us = window_us;
  pco_store* s = pco_store_create(&cfg, msg, sizeof msg);
  EXPECT_NE(s, nullptr) << msg;
  return s;
}

std::string uuidOf(unsigned i)
{
  char u[40];
  std::snprintf(u, sizeof u, "%08x-0000-4000-8000-%012x", 0xabc00000u + i, i);
  return u;
}

Bytes fileOf(unsigned i)  // each a little different in size, all coded
{
  Image im;
  im.rows = uint16_t(40 + i % 7);
  im.cols = uint16_t(33 + i % 5);
  im.frames = 1 + i % 3;
  return makeDicom(im);
}

// the deferred mode on s: `threads` background coders at normal priority (NULL, a failure said,
// when they cannot start)
pco_deferred* startCoders(pco_store* s, unsigned threads)
{
  char msg[256];
  pco_deferred* d = pco_deferred_start(s, threads, 0, nullptr, nullptr, msg, sizeof msg);
  EXPECT_NE(d, nullptr) << msg;
  return d;
}

// file i stored under uuidOf(i) as a DICOM attachment, as Orthanc stores it
::testing::AssertionResult storeFile(pco_store* s, unsigned i)
{
  const Bytes data = fileOf(i);
  char msg[256];
  const pco_result r = pco_store_write(s, uuidOf(i).c_str(), data.data(), data.size(), 1, msg, sizeof msg);
  if (r == PCO_OK) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "pco_store_write of file " << i << ": " << r << ": " << msg;
}

Bytes readBack(pco_store* s, const std::string& uuid, pco_result* r)
{
  Bytes back;
  char msg[256];
  auto alloc = [](void* user, uint64_t size) -> void* {
    auto* b = static_cast<Bytes*>(user);
    b->resize(size);
    return b->data();
  };
  *r = pco_store_read(s, uuid.c_str(), alloc, &back, msg, sizeof msg);
  return back;
}

bool isContainer(const fs::path& p)
{
  uint8_t* raw = nullptr;
  size_t n = 0;
  int missing = 0;
  char msg[256];
  if (pco_read_file(p.c_str(), &raw, &n, &missing, msg, sizeof msg) != 0) return false;
  bool c = pco_is_container(raw, n) != 0;
  std::free(raw);
  return c;
}

fs::path pathOf(const fs::path& root, const std::string& uuid)
{
  return root / uuid.substr(0, 2) / uuid.substr(2, 2) / uuid;
}

size_t countFiles(const fs::path& root, const char* mark)
{
  size_t n = 0;
  if (!fs::exists(root)) return 0;
  for (auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && e.path().filename().string().find(mark) != std::string::npos) ++n;
  return n;
}

}  // namespace

TEST(OrthancBatch, ConcurrentWritesShareBatches)
{
  Folder f("batch");
  pco_store* s = makeStore(f.root, 50000);  // a 50 ms window: the threads below meet in it
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(pco_store_batching(s), 1);
  const unsigned n = 8;
  std::atomic<unsigned> ready{0};
  std::vector<std::thread> threads;
  std::vector<pco_result> results(n, PCO_ERR_IO);
  unsigned long long frames = 0;
  for (unsigned i = 0; i < n; ++i) {
    frames += fileOf(i).size() ? 1 + i % 3 : 0;
    threads.emplace_back([&, i] {
      Bytes d = fileOf(i);
      ready++;
      while (ready < n) std::this_thread::yield();
      char msg[256];
      results[i] = pco_store_write(s, uuidOf(i).c_str(), d.data(), d.size(), 1, msg, sizeof msg);
    });
  }
  for (auto& t : threads) t.join();
  unsigned long long batches = 0, coded = 0;
  pco_store_batch_counts(s, &batches, &coded);
  EXPECT_EQ(coded, frames);
  EXPECT_LT(batches, n);  // writes shared calls
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_EQ(results[i], PCO_OK) << i;
    EXPECT_TRUE(isContainer(pathOf(f.root, uuidOf(i)))) << i;
    pco_result r;
    EXPECT_EQ(readBack(s, uuidOf(i), &r), fileOf(i)) << i;
    EXPECT_EQ(r, PCO_OK);
  }
  pco_store_destroy(s);
}

TEST(OrthancDeferred, StoredAsTheyCameThenCoded)
{
  Folder f("deferred");
  pco_store* s = makeStore(f.root, 0);
  ASSERT_NE(s, nullptr);
  pco_deferred* d = startCoders(s, 2);
  ASSERT_NE(d, nullptr);
  const unsigned n = 12;
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_TRUE(storeFile(s, i));
    for (unsigned j = 0; j <= i; ++j) {  // every file reads back at every moment, coded or not
      pco_result r;
      EXPECT_EQ(readBack(s, uuidOf(j), &r), fileOf(j)) << j;
      EXPECT_EQ(r, PCO_OK);
    }
  }
  ASSERT_EQ(pco_deferred_wait_idle(d, 60000), 1);
  pco_deferred_counts c;
  pco_deferred_get_counts(d, &c);
  EXPECT_EQ(c.queued, n);
  EXPECT_EQ(c.coded, n);
  EXPECT_EQ(c.failed, 0u);
  EXPECT_LT(c.bytes_after, c.bytes_before);
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_TRUE(isContainer(pathOf(f.root, uuidOf(i)))) << i;
    pco_result r;
    EXPECT_EQ(readBack(s, uuidOf(i), &r), fileOf(i)) << i;
  }
  EXPECT_EQ(countFiles(f.root, PCO_TEMP_MARK), 0u);
  pco_deferred_stop(d);
  EXPECT_TRUE(fs::exists(f.root / PCO_DEFERRED_CLEAN));  // nothing was left to do
  pco_store_destroy(s);
}

TEST(OrthancDeferred, StartWalksTheFolderUnlessStoppedClean)
{
  Folder f("walk");
  pco_store* s = makeStore(f.root, 0);
  ASSERT_NE(s, nullptr);
  char msg[256];
  // Files stored as they came before a crash (never coded), and a temporary file a killed
  // writer left an hour ago.
  const unsigned n = 6;
  for (unsigned i = 0; i < n; ++i) {
    Bytes data = fileOf(i);
    ASSERT_EQ(pco_write_atomic(pathOf(f.root, uuidOf(i)).c_str(), data.data(), data.size(), 0, msg, sizeof msg), 0);
  }
  fs::path stale = pathOf(f.root, uuidOf(0)).parent_path() / ("." + uuidOf(0) + PCO_TEMP_MARK "abcdef");
  { std::FILE* t = std::fopen(stale.c_str(), "wb"); ASSERT_NE(t, nullptr); std::fputs("left over", t); std::fclose(t); }
  struct utimbuf old = {time(nullptr) - 3600, time(nullptr) - 3600};
  ASSERT_EQ(utime(stale.c_str(), &old), 0);

  pco_deferred* d = startCoders(s, 1);
  ASSERT_NE(d, nullptr);
  ASSERT_EQ(pco_deferred_wait_idle(d, 60000), 1);
  pco_deferred_counts c;
  pco_deferred_get_counts(d, &c);
  EXPECT_EQ(c.walked, 1);
  EXPECT_EQ(c.coded, n);
  EXPECT_FALSE(fs::exists(stale));
  for (unsigned i = 0; i < n; ++i) EXPECT_TRUE(isContainer(pathOf(f.root, uuidOf(i)))) << i;
  pco_deferred_stop(d);
  ASSERT_TRUE(fs::exists(f.root / PCO_DEFERRED_CLEAN));

  // After a clean stop the next start does not walk (and removes the marker at once, so that a
  // crash from then on makes the start after it walk).
  Bytes extra = fileOf(n);
  ASSERT_EQ(pco_write_atomic(pathOf(f.root, uuidOf(n)).c_str(), extra.data(), extra.size(), 0, msg, sizeof msg), 0);
  d = startCoders(s, 1);
  ASSERT_NE(d, nullptr);
  EXPECT_FALSE(fs::exists(f.root / PCO_DEFERRED_CLEAN));
  ASSERT_EQ(pco_deferred_wait_idle(d, 60000), 1);
  pco_deferred_get_counts(d, &c);
  EXPECT_EQ(c.walked, 0);
  EXPECT_FALSE(isContainer(pathOf(f.root, uuidOf(n))));  // written behind the plugin's back
  pco_deferred_stop(d);
  pco_store_destroy(s);
}

TEST(OrthancDeferred, RemovalsRacingTheCodersLeaveNothing)
{
  Folder f("race");
  pco_store* s = makeStore(f.root, 0);
  ASSERT_NE(s, nullptr);
  char msg[256];
  pco_deferred* d = startCoders(s, 2);
  ASSERT_NE(d, nullptr);
  const unsigned n = 30;
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_TRUE(storeFile(s, i));
    if (i % 2) {
      ASSERT_EQ(pco_store_remove(s, uuidOf(i).c_str(), msg, sizeof msg), PCO_OK) << msg;
    }
  }
  ASSERT_EQ(pco_deferred_wait_idle(d, 60000), 1);
  for (unsigned i = 0; i < n; ++i) {
    pco_result r;
    Bytes back = readBack(s, uuidOf(i), &r);
    if (i % 2) {
      EXPECT_EQ(r, PCO_ERR_MISSING) << i;  // a removed file is not brought back
    } else {
      EXPECT_EQ(r, PCO_OK) << i;
      EXPECT_EQ(back, fileOf(i)) << i;
    }
  }
  EXPECT_EQ(countFiles(f.root, PCO_TEMP_MARK), 0u);
  for (unsigned i = 0; i < n; i += 2) ASSERT_EQ(pco_store_remove(s, uuidOf(i).c_str(), msg, sizeof msg), PCO_OK);
  pco_deferred_stop(d);
  // every attachment folder went with its last file
  size_t dirs = 0;
  for (auto& e : fs::directory_iterator(f.root)) dirs += e.is_directory();
  EXPECT_EQ(dirs, 0u);
  pco_store_destroy(s);
}
