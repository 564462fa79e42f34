// The Orthanc storage area without Orthanc (orthanc/src, pcwt_orthanc_store): the configuration
// section, the DICOM scan, the container (every byte of a stored file damaged in turn is an
// error or changes nothing decoded, never other bytes; every range reads the original's bytes),
// the store's decisions and its files. Synthetic
// files only, so that the sanitizer build covers all of it.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

extern "C" {
#include "config.h"
#include "container.h"
#include "dicom_scan.h"
#include "storage_files.h"
#include "store.h"
}

#include "orthanc_test_dicom.h"

namespace {

struct Coders {
  pcwt_encoder* enc = pcwt_encoder_create();
  pcwt_decoder* dec = pcwt_decoder_create();
  Coders() { EXPECT_EQ(pcwt_encoder_set_option(enc, PCWT_OPT_PROFILE, PCWT_PROFILE_ENTROPY), PCWT_OK); }
  ~Coders() { pcwt_encoder_destroy(enc); pcwt_decoder_destroy(dec); }
};

Bytes build(const Bytes& dicom, Coders& c)
{
  pco_scan scan;
  char msg[256];
  EXPECT_EQ(pco_dicom_scan(dicom.data(), dicom.size(), &scan, msg, sizeof msg), 1) << msg;
  uint8_t* out = nullptr;
  size_t size = 0;
  EXPECT_EQ(pco_container_build(dicom.data(), dicom.size(), &scan, c.enc, c.dec, &out, &size, msg, sizeof msg), 0) << msg;
  Bytes b(out, out + size);
  std::free(out);
  return b;
}

}  // namespace

TEST(OrthancConfig, DefaultsAndSection)
{
  pco_config cfg;
  char msg[256];
  ASSERT_EQ(pco_config_parse("{ \"StorageDirectory\" : \"/srv/o\" }", &cfg, msg, sizeof msg), 0) << msg;
  EXPECT_EQ(cfg.enable, 0);
  EXPECT_STREQ(cfg.storage_dir, "/srv/o");
  pcwt_encode_params defaults;
  pcwt_encode_params_default(&defaults);
  EXPECT_EQ(cfg.profile, defaults.profile); // the library's default profile, as every tool's
  EXPECT_EQ(cfg.read_plain_files, 1);
  EXPECT_EQ(cfg.deferred, 1);  // the deferred mode is the default (docs/orthanc.md says why)
  EXPECT_EQ(cfg.deferred_threads, 0u);
  EXPECT_EQ(cfg.deferred_idle, 1);
  EXPECT_EQ(cfg.batch_window_us, -1);
  ASSERT_EQ(pco_config_parse("{ \"StorageDirectory\" : \"/srv/o\", // comment\n \"PCWT\" : { \"Enable\" : true, "
                             "\"StorageDirectory\" : \"/srv/p\\u00e9\", \"Profile\" : \"baseline\", \"Backend\" : \"cpu\", "
                             "\"CompressDicom\" : false, \"MinimumPixelBytes\" : 4096, \"ReadPlainFiles\" : false, "
                             "\"Sync\" : false, \"Mode\" : \"immediate\", \"DeferredThreads\" : 3, \"DeferredPriority\" : \"normal\", "
                             "\"BatchWindowMs\" : 1.5 } }", &cfg, msg, sizeof msg), 0) << msg;
  EXPECT_EQ(cfg.enable, 1);
  EXPECT_STREQ(cfg.storage_dir, "/srv/p\xc3\xa9");
  EXPECT_EQ(cfg.profile, PCWT_PROFILE_BASELINE);
  EXPECT_EQ(cfg.backend, PCWT_BACKEND_CPU);
  EXPECT_EQ(cfg.compress_dicom, 0);
  EXPECT_EQ(cfg.minimum_pixel_bytes, 4096u);
  EXPECT_EQ(cfg.read_plain_files, 0);
  EXPECT_EQ(cfg.sync, 0);
  EXPECT_EQ(cfg.deferred, 0);
  EXPECT_EQ(cfg.deferred_threads, 3u);
  EXPECT_EQ(cfg.deferred_idle, 0);
  EXPECT_EQ(cfg.batch_window_us, 1500);
}

TEST(OrthancConfig, RefusedSettingsNamed)
{
  pco_config cfg;
  char msg[256];
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"Profile\" : \"fast\" } }", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(std::string(msg).find("PCWT.Profile 'fast'"), std::string::npos) << msg;
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"Enabled\" : true } }", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(std::string(msg).find("Enabled"), std::string::npos) << msg;
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"Enable\" : \"yes\" } }", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"ReadPlainFiles\" : false } }", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(std::string(msg).find("ReadPlainFiles false needs"), std::string::npos) << msg;
  EXPECT_EQ(pco_config_parse("{ \"PCWT\" : { \"ReadPlainFiles\" : false, \"Mode\" : \"immediate\" } }", &cfg, msg,
                             sizeof msg), 0) << msg;
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"Mode\" : \"later\" } }", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(std::string(msg).find("PCWT.Mode 'later'"), std::string::npos) << msg;
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"DeferredPriority\" : \"low\" } }", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(std::string(msg).find("PCWT.DeferredPriority 'low'"), std::string::npos) << msg;
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"DeferredThreads\" : 2.5 } }", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(std::string(msg).find("DeferredThreads"), std::string::npos) << msg;
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"BatchWindowMs\" : -2 } }", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(std::string(msg).find("BatchWindowMs"), std::string::npos) << msg;
  EXPECT_NE(pco_config_parse("{ \"PCWT\" : { \"Enable\" : true ", &cfg, msg, sizeof msg), 0);
  EXPECT_NE(pco_config_parse(std::string(200, '[').c_str(), &cfg, msg, sizeof msg), 0);  // nesting limit
}

TEST(OrthancScan, CodedAndNot)
{
  char msg[256];
  pco_scan scan;
  Image im;
  Bytes f = makeDicom(im);
  ASSERT_EQ(pco_dicom_scan(f.data(), f.size(), &scan, msg, sizeof msg), 1) << msg;
  EXPECT_EQ(scan.module.rows, 37u);
  EXPECT_EQ(scan.module.number_of_frames, 2u);
  EXPECT_EQ(scan.frame_bytes, 37u * 29u * 2u);
  EXPECT_EQ(scan.pixel_length, 2u * 37u * 29u * 2u);

  Image enc = im;
  enc.encapsulated = true;
  Bytes e = makeDicom(enc);
  EXPECT_EQ(pco_dicom_scan(e.data(), e.size(), &scan, msg, sizeof msg), 0);
  EXPECT_NE(std::string(msg).find("encapsulated"), std::string::npos) << msg;

  Image big = im;
  big.ts = "1.2.840.10008.1.2.2";
  Bytes b = makeDicom(big);
  EXPECT_EQ(pco_dicom_scan(b.data(), b.size(), &scan, msg, sizeof msg), 0);

  Image b32 = im;
  b32.bits = 32;
  b32.stored = 32;
  Bytes w = makeDicom(b32);
  EXPECT_EQ(pco_dicom_scan(w.data(), w.size(), &scan, msg, sizeof msg), 0);

  // every truncation before the end of Pixel Data is "not coded", never an over-read (the
  // sanitizer build checks the reads); what follows Pixel Data is kept verbatim, unparsed
  ASSERT_EQ(pco_dicom_scan(f.data(), f.size(), &scan, msg, sizeof msg), 1);
  for (size_t n = 0; n < scan.pixel_offset + scan.pixel_length; n += 7) {
    Bytes t(f.begin(), f.begin() + long(n));
    EXPECT_EQ(pco_dicom_scan(t.data(), t.size(), &scan, msg, sizeof msg), 0) << n;
  }
}

TEST(OrthancContainer, RoundTripAndRanges)
{
  Coders c;
  for (Image im : {Image{}, Image{64, 48, 8, 8, 3, 1}, Image{5, 3, 8, 8, 1, 3}}) {  // odd total: pad byte
    Bytes f = makeDicom(im);
    Bytes stored = build(f, c);
    ASSERT_TRUE(pco_is_container(stored.data(), stored.size()));
    uint64_t size = 0;
    char msg[256];
    ASSERT_EQ(pco_container_original_size(stored.data(), stored.size(), &size, msg, sizeof msg), 0);
    ASSERT_EQ(size, f.size());
    Bytes back(f.size());
    ASSERT_EQ(pco_container_decode(stored.data(), stored.size(), c.dec, back.data(), back.size(), msg, sizeof msg), 0) << msg;
    EXPECT_EQ(back, f);
    for (size_t start = 0; start < f.size(); start += 97)
      for (size_t len : {size_t(0), size_t(1), size_t(200), f.size() - start}) {
        if (len > f.size() - start) continue;
        Bytes part(len + 1);
        ASSERT_EQ(pco_container_read_range(stored.data(), stored.size(), c.dec, start, part.data(), len, msg, sizeof msg), 0);
        EXPECT_TRUE(std::equal(part.begin(), part.begin() + long(len), f.begin() + long(start)));
      }
    Bytes part(8);
    EXPECT_NE(pco_container_read_range(stored.data(), stored.size(), c.dec, f.size() - 4, part.data(), 8, msg, sizeof msg), 0);
  }
}

TEST(OrthancContainer, EveryDamagedByteIsAnError)
{
  Coders c;
  Image im{9, 7, 16, 12, 1, 1};
  Bytes f = makeDicom(im);
  Bytes stored = build(f, c);
  Bytes back(f.size());
  char msg[256];
  // A changed bit is an error or, where it changes nothing of what is decoded (a few bits of a
  // deflate stream do not), the original itself: never other bytes.
  size_t errors = 0;
  for (size_t i = 0; i < stored.size(); ++i) {
    Bytes bad = stored;
    bad[i] ^= 0x01;
    std::fill(back.begin(), back.end(), 0);
    if (pco_container_decode(bad.data(), bad.size(), c.dec, back.data(), back.size(), msg, sizeof msg) != 0) ++errors;
    else EXPECT_EQ(back, f) << "byte " << i << " of " << stored.size() << " decoded to other bytes";
  }
  EXPECT_GT(errors, stored.size() * 9 / 10);
  for (size_t n = 0; n < stored.size(); ++n)
    EXPECT_NE(pco_container_decode(stored.data(), n, c.dec, back.data(), back.size(), msg, sizeof msg), 0) << n;
}

TEST(OrthancStore, DecisionsFilesAndRemoval)
{
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("pcwt-orthanc-store-" + std::to_string(::getpid()));
  fs::remove_all(root);
  pco_config cfg;
  char msg[256];
  ASSERT_EQ(pco_config_parse("{}", &cfg, msg, sizeof msg), 0);
  std::snprintf(cfg.storage_dir, sizeof cfg.storage_dir, "%s", root.c_str());
  cfg.sync = 0;
  pco_store* s = pco_store_create(&cfg, msg, sizeof msg);
  ASSERT_NE(s, nullptr) << msg;

  const char* uuid = "0123abcd-0000-1111-2222-333344445555";
  Bytes dicom = makeDicom(Image{});
  Bytes tiny = makeDicom(Image{2, 2, 8, 8, 1, 1});  // coding would not make it smaller
  Bytes json = text("{ \"a\" : 1 }");
  Bytes lookalike(PCO_MAGIC, PCO_MAGIC + PCO_MAGIC_LENGTH);  // a plain file beginning with the magic
  lookalike.insert(lookalike.end(), 100, 7);
  struct Case { const Bytes* data; int dicom; bool container; } cases[] = {
      {&dicom, 1, true}, {&json, 0, false}, {&dicom, 0, false}, {&lookalike, 0, true}, {&tiny, 1, false}};
  for (const Case& k : cases) {
    ASSERT_EQ(pco_store_write(s, uuid, k.data->data(), k.data->size(), k.dicom, msg, sizeof msg), PCO_OK) << msg;
    fs::path p = root / "01" / "23" / uuid;
    ASSERT_TRUE(fs::exists(p));
    uint8_t* raw = nullptr;
    size_t rawSize = 0;
    int missing = 0;
    ASSERT_EQ(pco_read_file(p.c_str(), &raw, &rawSize, &missing, msg, sizeof msg), 0);
    EXPECT_EQ(pco_is_container(raw, rawSize) != 0, k.container);
    std::free(raw);
    Bytes back;
    auto alloc = [](void* user, uint64_t size) -> void* {
      auto* b = static_cast<Bytes*>(user);
      b->resize(size);
      return b->data();
    };
    ASSERT_EQ(pco_store_read(s, uuid, alloc, &back, msg, sizeof msg), PCO_OK) << msg;
    EXPECT_EQ(back, *k.data);
    Bytes part(5);
    ASSERT_EQ(pco_store_read_range(s, uuid, 3, part.data(), part.size(), msg, sizeof msg), PCO_OK) << msg;
    EXPECT_TRUE(std::equal(part.begin(), part.end(), k.data->begin() + 3));
    ASSERT_EQ(pco_store_remove(s, uuid, msg, sizeof msg), PCO_OK) << msg;
    EXPECT_FALSE(fs::exists(root / "01"));  // empty folders go with the last file
  }
  Bytes back;
  auto alloc = [](void* user, uint64_t size) -> void* { static_cast<Bytes*>(user)->resize(size); return static_cast<Bytes*>(user)->data(); };
  EXPECT_EQ(pco_store_read(s, uuid, alloc, &back, msg, sizeof msg), PCO_ERR_MISSING);
  for (const char* bad : {"../../../../etc/passwd", "0123ABCD-0000-1111-2222-333344445555", "", "0123abcd/0000-1111-2222-333344445555"})
    EXPECT_EQ(pco_store_write(s, bad, json.data(), json.size(), 0, msg, sizeof msg), PCO_ERR_REFUSED) << bad;
  pco_store_destroy(s);

  cfg.read_plain_files = 0;  // a plain file refused when plain files are not to be read
  s = pco_store_create(&cfg, msg, sizeof msg);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(pco_store_write(s, uuid, json.data(), json.size(), 0, msg, sizeof msg), PCO_OK);
  EXPECT_EQ(pco_store_read(s, uuid, alloc, &back, msg, sizeof msg), PCO_ERR_REFUSED);
  Bytes part(4);
  EXPECT_EQ(pco_store_read_range(s, uuid, 0, part.data(), part.size(), msg, sizeof msg), PCO_ERR_REFUSED);
  pco_store_destroy(s);
  fs::remove_all(root);
}
