// j2k_batch_checks_gpu.h - the host's checks of a JPEG 2000 GPU batch (j2k_batch.h) before anything of
// it is uploaded (j2k_decode_gpu.cu): nothing on the device then reads or writes outside its buffers.
// A failed check throws Failure with the message written to err.
#pragma once

#include "pcwt.h"

extern "C" {
#include "j2k_batch.h"
}

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace j2k_checks {

struct Failure {
    pcwt_status st;
};

// Writes the message (fmt with a and b) to err and throws Failure{st}.
[[noreturn]] void fail(pcwt_status st, char *err, size_t es, const char *fmt, size_t a, unsigned b = 0);

// The frame's fields against the batch's lists; its output size.
uint64_t check_frame(const pcwt_j2k_batch *b, size_t i, char *err, size_t es);

// The chunk's coefficient range [lo, hi): its frames' tile-components.
void coef_range(const pcwt_j2k_batch *b, const std::vector<size_t> &frames, uint64_t &lo, uint64_t &hi);

// The chunk's code-blocks (frame k's batch code-blocks from[k] .. into cb[at[k] ..]) rebased to the
// chunk's coefficients [lo, hi) and checked, their keys (cost, bytes), and idx: their order,
// heaviest first, ties in chunk order.
void checked_and_sorted(const pcwt_j2k_batch *b, const std::vector<size_t> &from, const std::vector<size_t> &at,
                        uint64_t lo, uint64_t hi, std::vector<pcwt_j2k_cblk> &cb,
                        std::vector<std::pair<uint64_t, uint64_t>> &key, std::vector<size_t> &idx, char *err,
                        size_t es);

} // namespace j2k_checks
