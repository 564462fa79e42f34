// recent_cache.h - what the last few kinds of a key give, found by the key's bytes: a batch of
// like frames (series of slices, often alternating) works each kind out once.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

// KeyBytes: the key's bytes that count (its fields, not the padding after the last, which a copy
// may leave unset).
template <typename Key, typename Value, size_t KeyBytes = sizeof(Key)> class RecentCache {
  public:
    static constexpr size_t kMax = 32; // kinds kept; a new one then replaces the oldest
    // The value of k: make(k, value) fills it the first time (an entry's value is reused, so that
    // its vectors keep their memory). The reference stays valid until kMax other kinds come.
    template <typename Make> const Value &of(const Key &k, Make make)
    {
        for (const Entry &e : seen_)
            if (std::memcmp(&k, &e.key, KeyBytes) == 0)
                return e.value;
        if (seen_.empty())
            seen_.reserve(kMax); // the references handed out stay valid while entries are added
        Entry *e;
        if (seen_.size() < kMax) {
            e = &seen_.emplace_back();
        } else {
            e = &seen_[next_];
            next_ = (next_ + 1) % kMax;
        }
        make(k, e->value);
        e->key = k;
        return e->value;
    }

  private:
    static_assert(KeyBytes <= sizeof(Key), "a key's bytes");
    struct Entry {
        Key key;
        Value value;
    };
    std::vector<Entry> seen_;
    size_t next_ = 0; // the entry the next new kind replaces, once kMax are kept
};
