// A folder of JPEG 2000 input for the JPEG 2000 decoder choice of pcwt-recompress and
// pcwt-storescp (--j2k-decoder): streams made here by opj_compress (signed, unsigned, 8 to 16 bits,
// RGB with the RCT, several frames and fragments, 6 levels, single-frame slices), an HTJ2K file, a
// truncated codestream and, when asked, every JPEG 2000 / HTJ2K file of the corpus.
#ifndef PCWT_TESTS_J2K_FOLDER_H
#define PCWT_TESTS_J2K_FOLDER_H

#include "j2k_test_util.h"

#include <sys/stat.h>

namespace j2k {

// a corpus file copied, writable (the corpus is read-only)
inline void copyCorpusFile(const std::string &from, const std::string &to)
{
    writeBytes(to, readBytes(from));
    chmod(to.c_str(), 0644);
}

// an input folder of JPEG 2000 files; lossless Part 1 frames made here in partOneFrames, HTJ2K in htFrames
struct Folder {
    std::string in;
    std::string corrupt;          // the file with the truncated codestream
    uint64_t partOneFrames = 0;   // lossless Part 1 frames of the files made here
    uint64_t htFrames = 0;        // HTJ2K frames
    uint64_t made = 0;            // files made here (each its own SOP Instance UID), the truncated one too
};

inline std::string makeFolder(const std::string &dir, bool withCorpus, Folder &f)
{
    f.in = dir + "/in";
    fs::create_directories(f.in);
    std::vector<uint8_t> want;
    struct Made { Spec spec; E_TransferSyntax xfer; };
    std::vector<Made> specs;
    Spec a = plainSpec("a_signed16");                  // 2 frames, Basic Offset Table
    specs.push_back({a, EXS_JPEG2000LosslessOnly});
    Spec b = plainSpec("b_unsigned12");
    b.bits = 12;
    b.sgn = false;
    b.frames = 3;
    b.args = {"-n", "6"};
    b.fragmentsPerFrame = 2;
    specs.push_back({b, EXS_JPEG2000});
    Spec c = plainSpec("c_rgb8");
    c.comps = 3;
    c.bits = 8;
    c.sgn = false;
    c.frames = 1;
    c.table = Spec::None;
    specs.push_back({c, EXS_JPEG2000LosslessOnly});
    Spec d = plainSpec("d_ct");
    d.width = 512;
    d.height = 512;
    d.frames = 1;
    d.table = Spec::None;
    specs.push_back({d, EXS_JPEG2000LosslessOnly});
    for (int k = 0; k < 6; ++k) { // more single-frame slices in one batch
        Spec e = plainSpec("e_slice" + std::to_string(k));
        e.bits = 10 + k;
        e.sgn = (k & 1) != 0;
        e.frames = 1;
        e.table = Spec::None;
        specs.push_back({e, EXS_JPEG2000LosslessOnly});
    }
    // each its own SOP Instance UID (pcwt-storescp files instances by it)
    const std::string uidRoot = "1.2.826.0.1.3680043.10.1078.3.";
    for (size_t k = 0; k < specs.size(); ++k)
        specs[k].spec.instance = uidRoot + std::to_string(k + 1);
    for (const Made &m : specs) {
        const std::string err = makeFile(m.spec, m.xfer, dir, f.in + "/" + m.spec.name + ".dcm", want);
        if (!err.empty())
            return m.spec.name + ": " + err;
        f.partOneFrames += m.spec.frames;
    }
    // HTJ2K: lossless, decoded on the GPU as the Part 1 frames (OpenJPEG without it)
    Spec ht = plainSpec("h_htj2k", true);
    ht.instance = uidRoot + "100";
    std::string err = makeFile(ht, DPCWT_HTJ2K_LOSSLESS_XFER, dir, f.in + "/h_htj2k.dcm", want);
    if (!err.empty())
        return "h_htj2k: " + err;
    f.htFrames = ht.frames;
    // a codestream cut short, its headers intact
    Spec t = plainSpec("t_truncated");
    t.instance = uidRoot + "101";
    t.frames = 1;
    t.table = Spec::None;
    std::vector<uint8_t> cs;
    err = encode(t, sourceValues(t, 0), dir, cs);
    if (!err.empty())
        return "t_truncated: " + err;
    cs.resize(cs.size() * 3 / 5);
    f.corrupt = f.in + "/t_truncated.dcm";
    err = writeDicom(t, {cs}, EXS_JPEG2000LosslessOnly, f.corrupt);
    if (!err.empty())
        return err;
    f.made = specs.size() + 2;
    if (withCorpus)
        for (const CorpusFile &cf : j2kCorpus())
            copyCorpusFile(cf.path, f.in + "/corpus_" + cf.name + ".dcm");
    return "";
}

} // namespace j2k

#endif
