// aggregate.cpp - see aggregate.hpp.
#include "aggregate.hpp"

#include <map>

namespace pcwtbench {

Aggregate aggregate_codec(const std::vector<Image> &images, const BenchResults &res, size_t c,
                          const std::vector<size_t> &set)
{
    Aggregate a;
    for (size_t i : set) {
        const CodecResult &r = res.per_image[i][c];
        if (r.status != Status::Ok)
            continue;
        ++a.images;
        a.raw += static_cast<double>(images[i].raw_bytes());
        a.coded += static_cast<double>(r.coded_bytes);
        a.enc_s += r.enc_s;
        a.dec_s += r.dec_s;
        if (r.dev_enc.status == Status::Ok) {
            ++a.dev_enc_images;
            a.dev_enc_raw += r.dev_enc.raw_bytes;
            a.dev_enc_s += r.dev_enc.s;
        }
        if (r.dev_dec.status == Status::Ok) {
            ++a.dev_dec_images;
            a.dev_dec_raw += r.dev_dec.raw_bytes;
            a.dev_dec_s += r.dev_dec.s;
        }
    }
    return a;
}

std::vector<std::pair<std::string, std::vector<size_t>>> by_modality(const std::vector<Image> &images,
                                                                     const std::vector<size_t> &set)
{
    std::map<std::string, std::vector<size_t>> groups;
    for (size_t i : set)
        groups[images[i].modality].push_back(i);
    return {groups.begin(), groups.end()};
}

OutcomeCounts outcome_counts(const std::vector<Image> &images, const BenchResults &res, size_t c)
{
    OutcomeCounts n;
    for (size_t i = 0; i < images.size(); ++i)
        switch (res.per_image[i][c].status) {
        case Status::Ok: ++n.ok; break;
        case Status::NotApplicable: ++n.not_applicable; break;
        case Status::Failed: ++n.failed; break;
        case Status::Mismatch: ++n.mismatch; break;
        case Status::NotRun: break;
        }
    n.failed += res.parallel[c].status == Status::Failed;
    n.mismatch += res.parallel[c].status == Status::Mismatch;
    return n;
}

std::vector<std::pair<size_t, size_t>> not_exact(const std::vector<Image> &images, const BenchResults &res)
{
    std::vector<std::pair<size_t, size_t>> r;
    for (size_t i = 0; i < images.size(); ++i)
        for (size_t c = 0; c < res.codecs.size(); ++c) {
            const Status s = res.per_image[i][c].status;
            if (s != Status::Ok && s != Status::NotRun)
                r.emplace_back(i, c);
        }
    return r;
}

} // namespace pcwtbench
