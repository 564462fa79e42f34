// corpus_gtest.hpp - the corpus manifest in GoogleTest cases: where the manifest and shared/testdata
// are, the manifest loaded once, and REQUIRE_CORPUS(), which skips a case when the corpus is absent.
// Shared by the corpus round-trip test and the JPEG-LS corpus test.
//
// Environment overrides: PCWT_CORPUS_MANIFEST (manifest.tsv), PCWT_CORPUS_TESTDATA (testdata dir).
#ifndef PCWT_CORPUS_GTEST_HPP
#define PCWT_CORPUS_GTEST_HPP

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <string>

#include "corpus_manifest.hpp"

#ifndef PCWT_CORPUS_MANIFEST
#define PCWT_CORPUS_MANIFEST PCWT_BINARY_DIR "/corpus/manifest.tsv"
#endif

namespace pcwt_corpus {

inline std::string env_or(const char *name, const char *fallback)
{
    const char *v = std::getenv(name);
    return (v != nullptr && v[0] != '\0') ? std::string(v) : std::string(fallback);
}

inline std::string testdata_dir() { return env_or("PCWT_CORPUS_TESTDATA", PCWT_SHARED_DIR "/testdata"); }
inline std::string manifest_path() { return env_or("PCWT_CORPUS_MANIFEST", PCWT_CORPUS_MANIFEST); }

inline bool is_dir(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

inline const Manifest &manifest()
{
    static const Manifest m = load_manifest(manifest_path());
    return m;
}

} // namespace pcwt_corpus

// Skips the calling test when the corpus is absent here, fails it when the corpus exists but the
// manifest is missing, malformed or empty.
#define REQUIRE_CORPUS()                                                                           \
    do {                                                                                           \
        if (!pcwt_corpus::is_dir(pcwt_corpus::testdata_dir()))                                     \
            GTEST_SKIP() << "shared/testdata not found at " << pcwt_corpus::testdata_dir()         \
                         << ", corpus tests skipped";                                              \
        const pcwt_corpus::Manifest &m_ = pcwt_corpus::manifest();                                 \
        ASSERT_TRUE(m_.found) << "manifest " << pcwt_corpus::manifest_path()                       \
                              << " not found although " << pcwt_corpus::testdata_dir()             \
                              << " exists: the corpus_export fixture should have written it";      \
        if (m_.skipped)                                                                            \
            GTEST_SKIP() << "corpus export skipped here: " << m_.status_line;                      \
        ASSERT_EQ(m_.error, "");                                                                   \
        ASSERT_FALSE(m_.frames.empty()) << "manifest " << pcwt_corpus::manifest_path()             \
                                        << " lists no frame although "                             \
                                        << pcwt_corpus::testdata_dir() << " exists";               \
    } while (0)

#endif
