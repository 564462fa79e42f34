// random_band.h - a random band of the entropy profile for the group coder tests: an MQD tree whose
// references and coefficients agree with their MQDs as a transform's would (random sizes, class,
// top level or not, exact or not, sparse or dense, modelled low bits or not).
#pragma once

extern "C" {
#include "ec_model.h"
}
#include "test_util.h"

#include <cstdint>
#include <vector>

struct RandomBand {
    uint32_t mr, mc; // element rows and columns
    uint32_t pc;     // parent columns
    int top, exact, qmax;
    std::vector<int8_t> parent, mqd;
    std::vector<int32_t> coef;
    pcwt_ec_band b;

    explicit RandomBand(Rng &rng)
    {
        mr = 1 + rng.below(40);
        mc = 1 + rng.below(40);
        top = rng.below(4) == 0;
        exact = top || rng.below(2);
        qmax = static_cast<int>(rng.below(20)) - 1;
        const uint32_t pr = (mr + 1) / 2;
        pc = (mc + 1) / 2;
        parent.resize(size_t(pr) * pc);
        mqd.resize(size_t(mr) * mc);
        coef.resize(size_t(4) * mr * mc);
        const int sparse = static_cast<int>(rng.below(3)); // more elements of MQD -1
        for (auto &v : parent)
            v = static_cast<int8_t>(static_cast<int>(rng.below(17)) - 1);
        for (uint32_t x = 0; x < mr; x++)
            for (uint32_t y = 0; y < mc; y++) {
                const int r = top ? qmax : parent[size_t(x / 2) * pc + y / 2];
                int m = r < 0 || static_cast<int>(rng.below(4)) < sparse
                            ? -1
                            : r - static_cast<int>(rng.below(uint32_t(r) + 2));
                m = m < -1 ? -1 : m;
                mqd[size_t(x) * mc + y] = static_cast<int8_t>(m);
                const uint32_t must = exact && m >= 0 ? rng.below(4) : 4; // one coefficient reaches m
                for (uint32_t k = 0; k < 4; k++) {
                    int q = m < 0 ? -1 : static_cast<int>(rng.below(uint32_t(m) + 2)) - 1;
                    if (k == must)
                        q = m;
                    int32_t a = q < 0 ? 0 : int32_t((1u << q) | (rng.next() & ((1u << q) - 1u)));
                    if (rng.below(2))
                        a = -a;
                    coef[size_t(2 * x + k / 2) * (2 * mc) + 2 * y + k % 2] = a;
                }
            }
        b.coef = coef.data();
        b.mqd = mqd.data();
        b.parent = top ? nullptr : parent.data();
        b.cols = 2 * mc;
        b.mcols = mc;
        b.pcols = top ? 0 : pc;
        b.qmax = qmax;
        b.cls = static_cast<int>(rng.below(PCWT_EC_CLASSES));
        b.exact = exact;
        b.low = static_cast<int>(rng.below(2));
    }
    RandomBand(const RandomBand &) = delete;
    RandomBand &operator=(const RandomBand &) = delete;
};
