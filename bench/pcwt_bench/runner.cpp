// runner.cpp - see runner.hpp.
#include "runner.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "roundtrip_check.hpp"
#include "thread_pool.hpp"
#include "timing.hpp"

namespace pcwtbench {

const char *status_word(Status s)
{
    switch (s) {
    case Status::Ok:
        return "ok";
    case Status::NotApplicable:
        return "n/a";
    case Status::Failed:
        return "FAIL";
    case Status::Mismatch:
        return "MISMATCH";
    case Status::NotRun:
        break;
    }
    return "-";
}

namespace {

void loud_mismatch(const std::string &codec, const std::string &what, const std::string &detail)
{
    std::fprintf(stderr,
                 "\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"
                 "!!! ROUND TRIP MISMATCH: %s on %s: %s\n"
                 "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n",
                 codec.c_str(), what.c_str(), detail.c_str());
}

// Testing aid (--inject-mismatch): flip the lowest bit of the first word.
void maybe_inject(bool inject, ByteBuffer &out)
{
    if (inject && !out.empty())
        out.data()[0] ^= 1u;
}

// Device-resident measurements of a GPU codec (nothing for a CPU codec: NotRun) over `set`, one
// frame or the whole set, whose end-to-end codestreams are coded[i]. Errors of the device-resident
// entry points leave the figure n/a with the reason; codestreams the device encoder gives back are
// compared byte for byte with the end-to-end ones (a difference is a MISMATCH).
void measure_device(const std::vector<const Image *> &set, const std::vector<const ByteBuffer *> &coded, Codec &codec,
                    const Options &opt, const std::string &what, DeviceTime &enc, DeviceTime &dec)
{
    if (!codec.info().gpu || set.empty())
        return;
    // Encode: the frames the device encoder takes.
    std::string why = codec.device_encode_unavailable();
    std::vector<const Image *> eset;
    std::vector<size_t> eidx;
    std::string left_out;
    if (why.empty()) {
        for (size_t i = 0; i < set.size(); ++i) {
            const std::string no = codec.device_cannot_encode(*set[i]);
            if (no.empty()) {
                eset.push_back(set[i]);
                eidx.push_back(i);
            } else if (left_out.empty()) {
                left_out = no;
            }
        }
        if (eset.empty())
            why = left_out;
    }
    if (!why.empty()) {
        enc.status = Status::NotApplicable;
        enc.message = why;
    } else {
        try {
            std::vector<ByteBuffer> streams;
            enc.s = codec.device_encode(eset, opt.repeats, streams);
            enc.images = eset.size();
            for (const Image *img : eset)
                enc.raw_bytes += static_cast<double>(img->raw_bytes());
            enc.status = Status::Ok;
            if (eset.size() < set.size())
                enc.message = "over the " + std::to_string(eset.size()) + " of " + std::to_string(set.size()) +
                              " frames the device encoder takes (" + left_out + ")";
            if (codec.device_encode_gives_streams())
                for (size_t k = 0; k < eset.size() && enc.status == Status::Ok; ++k) {
                    const ByteBuffer &a = streams[k], &b = *coded[eidx[k]];
                    if (a.size() != b.size() || (a.size() && std::memcmp(a.data(), b.data(), a.size()) != 0)) {
                        enc.status = Status::Mismatch;
                        enc.message = eset[k]->name + ": the device-resident codestream (" + std::to_string(a.size()) +
                                      " bytes) differs from the end-to-end one (" + std::to_string(b.size()) +
                                      " bytes)";
                        loud_mismatch(codec.info().id, what + " (device-resident encode)", enc.message);
                    }
                }
        } catch (const std::exception &e) {
            enc = DeviceTime{};
            enc.status = Status::NotApplicable;
            enc.message = e.what();
        }
    }
    // Decode: the end-to-end codestreams.
    why = codec.device_decode_unavailable();
    if (!why.empty()) {
        dec.status = Status::NotApplicable;
        dec.message = why;
        return;
    }
    try {
        std::vector<ByteBuffer> out;
        dec.s = codec.device_decode(set, coded, out, opt.repeats);
        dec.images = set.size();
        for (const Image *img : set)
            dec.raw_bytes += static_cast<double>(img->raw_bytes());
        dec.status = Status::Ok;
    } catch (const std::exception &e) {
        dec = DeviceTime{};
        dec.status = Status::NotApplicable;
        dec.message = e.what();
    }
}

// Every codec on one image, on one thread. The codecs' runs alternate (a run of each codec, then
// the next run of each), so that a machine whose speed drifts, as a shared virtual machine's does,
// slows them alike: timing one codec's runs and then the next codec's moved their speed ratios by
// several percent from one run of the benchmark to the next.
std::vector<CodecResult> measure_image(const Image &img, const std::vector<std::unique_ptr<Codec>> &codecs,
                                       const std::vector<std::unique_ptr<CodecSession>> &sessions,
                                       const std::vector<std::string> &session_error, const Options &opt,
                                       const std::vector<CodecInfo> &infos)
{
    const size_t nc = codecs.size();
    std::vector<CodecResult> row(nc);
    std::vector<ByteBuffer> coded(nc), out(nc);
    std::vector<std::vector<double>> te(nc), td(nc);
    std::vector<char> live(nc, 0);
    for (size_t c = 0; c < nc; ++c) {
        if (!sessions[c]) {
            row[c].status = Status::Failed;
            row[c].message = session_error[c];
            continue;
        }
        const std::string why = codecs[c]->cannot_code(img);
        if (!why.empty()) {
            row[c].status = Status::NotApplicable;
            row[c].message = why;
            continue;
        }
        live[c] = 1;
    }
    const auto fail = [&](size_t c, const std::exception &e) {
        row[c].status = Status::Failed;
        row[c].message = e.what();
        live[c] = 0;
    };
    const unsigned runs = opt.warmup + opt.repeats;
    for (unsigned k = 0; k < runs; ++k) {
        for (size_t c = 0; c < nc; ++c) {
            if (!live[c])
                continue;
            try {
                const double t0 = now_seconds();
                sessions[c]->encode(img, coded[c]);
                const double t1 = now_seconds();
                if (k >= opt.warmup)
                    te[c].push_back(t1 - t0);
            } catch (const std::exception &e) {
                fail(c, e);
            }
        }
    }
    for (unsigned k = 0; k < runs; ++k) {
        for (size_t c = 0; c < nc; ++c) {
            if (!live[c])
                continue;
            try {
                std::memset(out[c].resize(img.raw_bytes()), 0xA5, img.raw_bytes());
                const double t0 = now_seconds();
                sessions[c]->decode(img, coded[c].data(), coded[c].size(), out[c]);
                const double t1 = now_seconds();
                maybe_inject(opt.inject_mismatch == infos[c].id, out[c]);
                std::string detail;
                if (!same_words(img, out[c], detail)) {
                    row[c].status = Status::Mismatch;
                    row[c].message = detail;
                    loud_mismatch(infos[c].id, img.name, detail);
                    live[c] = 0;
                    continue;
                }
                if (k >= opt.warmup)
                    td[c].push_back(t1 - t0);
            } catch (const std::exception &e) {
                fail(c, e);
            }
        }
    }
    for (size_t c = 0; c < nc; ++c) {
        if (!live[c])
            continue;
        CodecResult &r = row[c];
        r.status = Status::Ok;
        r.coded_bytes = coded[c].size();
        r.enc_s = median_of(te[c]);
        r.dec_s = median_of(td[c]);
        measure_device({&img}, {&coded[c]}, *codecs[c], opt, img.name, r.dev_enc, r.dev_dec);
    }
    return row;
}

std::string parallel_mode(const Codec &codec, unsigned threads)
{
    const std::string pool = std::to_string(threads) + " threads";
    if (!codec.batches()) // encode / decode
        return codec.batch_decodes() ? pool + " / GPU batch" : pool;
    return codec.batch_decodes() ? "GPU batch" : "GPU batch / " + pool;
}

void progress_line(const Options &opt, size_t k, size_t n, const Image &img, const std::vector<CodecInfo> &infos,
                   const std::vector<CodecResult> &row)
{
    if (!opt.progress)
        return;
    std::string line = "[" + std::to_string(k + 1) + "/" + std::to_string(n) + "] " + img.name + ":";
    for (size_t c = 0; c < row.size(); ++c) {
        char buf[64];
        if (row[c].status == Status::Ok)
            std::snprintf(buf, sizeof buf, " %s %.2f", infos[c].id.c_str(),
                          static_cast<double>(img.raw_bytes()) / static_cast<double>(row[c].coded_bytes));
        else
            std::snprintf(buf, sizeof buf, " %s %s", infos[c].id.c_str(), status_word(row[c].status));
        line += buf;
    }
    std::fprintf(stderr, "%s\n", line.c_str());
}

// The whole set on all threads (or one GPU batch) for one codec.
ParallelResult measure_parallel(const std::vector<const Image *> &set, Codec &codec, ThreadPool &pool,
                                const Options &opt, bool inject)
{
    ParallelResult r;
    r.images = set.size();
    for (const Image *img : set)
        r.raw_bytes += static_cast<double>(img->raw_bytes());
    r.mode = parallel_mode(codec, pool.size());
    const bool benc = codec.batches(), bdec = codec.batch_decodes();
    const size_t n = set.size();
    std::vector<ByteBuffer> coded(n), out(n);
    std::vector<double> te, td;
    const unsigned runs = opt.warmup + opt.repeats;
    try {
        std::vector<std::unique_ptr<CodecSession>> sessions;
        if (!benc || !bdec)
            for (unsigned w = 0; w < pool.size(); ++w)
                sessions.push_back(codec.open_session());
        for (unsigned k = 0; k < runs; ++k) {
            const double t0 = now_seconds();
            if (benc)
                codec.encode_batch(set, coded);
            else
                pool.run(n, [&](size_t t, unsigned w) { sessions[w]->encode(*set[t], coded[t]); });
            const double t1 = now_seconds();
            if (k >= opt.warmup)
                te.push_back(t1 - t0);
        }
        for (unsigned k = 0; k < runs; ++k) {
            for (size_t t = 0; t < n; ++t)
                std::memset(out[t].resize(set[t]->raw_bytes()), 0xA5, set[t]->raw_bytes());
            const double t0 = now_seconds();
            if (bdec)
                codec.decode_batch(set, coded, out);
            else
                pool.run(n, [&](size_t t, unsigned w) {
                    sessions[w]->decode(*set[t], coded[t].data(), coded[t].size(), out[t]);
                });
            const double t1 = now_seconds();
            for (size_t t = 0; t < n; ++t) {
                maybe_inject(inject, out[t]);
                std::string detail;
                if (!same_words(*set[t], out[t], detail)) {
                    r.status = Status::Mismatch;
                    r.message = set[t]->name + ": " + detail;
                    loud_mismatch(codec.info().id, "the whole set (" + r.mode + ")", r.message);
                    return r;
                }
            }
            if (k >= opt.warmup)
                td.push_back(t1 - t0);
        }
    } catch (const std::exception &e) {
        r.status = Status::Failed;
        r.message = e.what();
        return r;
    }
    r.status = Status::Ok;
    r.enc_s = median_of(te);
    r.dec_s = median_of(td);
    std::vector<const ByteBuffer *> streams;
    for (const ByteBuffer &b : coded)
        streams.push_back(&b);
    measure_device(set, streams, codec, opt, "the whole set", r.dev_enc, r.dev_dec);
    return r;
}

size_t device_mismatches(const DeviceTime &enc, const DeviceTime &dec)
{
    return (enc.status == Status::Mismatch) + (dec.status == Status::Mismatch);
}

} // namespace

BenchResults run_benchmark(const std::vector<Image> &images, const std::vector<std::unique_ptr<Codec>> &codecs,
                           const Options &opt)
{
    BenchResults res;
    for (const auto &c : codecs)
        res.codecs.push_back(c->info());
    const size_t nc = codecs.size();

    // Single thread, image by image.
    std::vector<std::unique_ptr<CodecSession>> sessions(nc);
    std::vector<std::string> session_error(nc);
    for (size_t c = 0; c < nc; ++c) {
        try {
            sessions[c] = codecs[c]->open_session();
        } catch (const std::exception &e) {
            session_error[c] = e.what();
        }
    }
    res.per_image.resize(images.size());
    for (size_t i = 0; i < images.size(); ++i) {
        res.per_image[i] = measure_image(images[i], codecs, sessions, session_error, opt, res.codecs);
        for (const CodecResult &r : res.per_image[i]) {
            res.mismatches += (r.status == Status::Mismatch) + device_mismatches(r.dev_enc, r.dev_dec);
            res.failures += r.status == Status::Failed;
        }
        progress_line(opt, i, images.size(), images[i], res.codecs, res.per_image[i]);
    }
    sessions.clear();

    // The images every codec coded exactly: aggregates and the whole-set measurement use these.
    for (size_t i = 0; i < images.size(); ++i) {
        bool all = nc > 0;
        for (size_t c = 0; c < nc; ++c)
            all = all && res.per_image[i][c].status == Status::Ok;
        if (all)
            res.common.push_back(i);
    }

    res.parallel.resize(nc);
    if (!opt.parallel || res.common.empty())
        return res;
    // Largest frames first, so that the threads finish at about the same time.
    std::vector<const Image *> set;
    for (size_t i : res.common)
        set.push_back(&images[i]);
    std::stable_sort(set.begin(), set.end(),
                     [](const Image *a, const Image *b) { return a->raw_bytes() > b->raw_bytes(); });
    ThreadPool pool(opt.threads);
    for (size_t c = 0; c < nc; ++c) {
        if (opt.progress)
            std::fprintf(stderr, "whole set, %zu frames: %s on %s...\n", set.size(), res.codecs[c].id.c_str(),
                         parallel_mode(*codecs[c], pool.size()).c_str());
        res.parallel[c] = measure_parallel(set, *codecs[c], pool, opt, opt.inject_mismatch == res.codecs[c].id);
        res.mismatches += (res.parallel[c].status == Status::Mismatch) +
                          device_mismatches(res.parallel[c].dev_enc, res.parallel[c].dev_dec);
        res.failures += res.parallel[c].status == Status::Failed;
    }
    return res;
}

} // namespace pcwtbench
