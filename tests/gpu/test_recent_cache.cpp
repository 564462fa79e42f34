// RecentCache (cuda/recent_cache.h), the GPU batch path's cache of frame kinds: host code only,
// tested without a device.
#include "recent_cache.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>

namespace {

struct Key {
    uint32_t a, b;
    uint32_t ignored; // past the key's bytes
};
using Cache = RecentCache<Key, int, offsetof(Key, b) + sizeof(uint32_t)>;

} // namespace

TEST(RecentCache, MakesEachKindOnceAndIgnoresTheBytesPastTheKey)
{
    Cache c;
    int made = 0;
    auto make = [&](const Key &k, int &v) {
        made++;
        v = int(k.a * 100 + k.b);
    };
    EXPECT_EQ(c.of(Key{1, 2, 0}, make), 102);
    EXPECT_EQ(c.of(Key{3, 4, 0}, make), 304);
    EXPECT_EQ(c.of(Key{1, 2, 7}, make), 102);
    EXPECT_EQ(c.of(Key{3, 4, 9}, make), 304);
    EXPECT_EQ(c.of(Key{1, 3, 0}, make), 103);
    EXPECT_EQ(made, 3);
}

TEST(RecentCache, KeepsTheLastKindsAndReplacesTheOldest)
{
    Cache c;
    int made = 0;
    auto make = [&](const Key &k, int &v) {
        made++;
        v = int(k.a);
    };
    const int *first = &c.of(Key{0, 0, 0}, make);
    for (uint32_t i = 1; i < Cache::kMax; i++)
        c.of(Key{i, 0, 0}, make);
    EXPECT_EQ(*first, 0); // still where it was after kMax kinds
    EXPECT_EQ(made, int(Cache::kMax));
    for (uint32_t i = 0; i < Cache::kMax; i++)
        EXPECT_EQ(c.of(Key{i, 0, 0}, make), int(i));
    EXPECT_EQ(made, int(Cache::kMax));
    EXPECT_EQ(c.of(Key{Cache::kMax, 0, 0}, make), int(Cache::kMax)); // replaces kind 0
    EXPECT_EQ(made, int(Cache::kMax) + 1);
    EXPECT_EQ(c.of(Key{1, 0, 0}, make), 1); // kept
    EXPECT_EQ(made, int(Cache::kMax) + 1);
    EXPECT_EQ(c.of(Key{0, 0, 0}, make), 0); // made again, replacing kind 1
    EXPECT_EQ(made, int(Cache::kMax) + 2);
    EXPECT_EQ(c.of(Key{1, 0, 0}, make), 1);
    EXPECT_EQ(made, int(Cache::kMax) + 3);
}
