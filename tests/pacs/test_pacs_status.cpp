// pcwt-storescp's failure statuses (docs/pacs.md) come from the reason the engine (archive/lib) gives a
// failed file, never from the text of its message, which is for people and may be reworded: the
// mapping is checked with messages that say the opposite of the reason, and real failures of the
// engine (each made on purpose, on data sets built here: no corpus needed) must carry the reason
// of the step where they happened. No processes, no network.
#include "dcmtk/config/osconfig.h"

#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcpixel.h"
#include "dcmtk/dcmdata/dcpixseq.h"
#include "dcmtk/dcmdata/dcpxitem.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "dcmtk/dcmnet/dimse.h"

#include "dcmpcwt/dpencode.h"
#include "dpapps.h"
#include "engine.h"
#include "ingest.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

// every reason and the status a sender must get for it (docs/pacs.md)
struct Row {
    DPRC_Reason reason;
    Uint16 status;
};
const Row kTable[] = {
    {DPRCR_none, STATUS_STORE_Refused_OutOfResources},
    {DPRCR_io, STATUS_STORE_Refused_OutOfResources},
    {DPRCR_memory, STATUS_STORE_Refused_OutOfResources},
    {DPRCR_corruptInput, STATUS_STORE_Error_CannotUnderstand},
    {DPRCR_pixelData, STATUS_STORE_Error_DataSetDoesNotMatchSOPClass},
    {DPRCR_encodeFailed, DPSCP_STATUS_ProcessingFailure},
    {DPRCR_verifyFailed, DPSCP_STATUS_ProcessingFailure},
    {DPRCR_internal, DPSCP_STATUS_ProcessingFailure},
    {DPRCR_unsupported, STATUS_STORE_Error_CannotUnderstand},
    {DPRCR_lossySyntax, STATUS_STORE_Error_CannotUnderstand},
    {DPRCR_changed, STATUS_STORE_Refused_OutOfResources},
};

// the beginnings of the engine's messages that the status was once read from, and worse
const char *const kMessages[] = {
    "",
    "cannot encode: libpcwt: out of memory",
    "verification failed: decoded pixel data differs from the original",
    "cannot read DICOM data (truncated or corrupt file?): Premature end of stream",
    "cannot decode the pixel data (corrupt or truncated?): ",
    "unreadable file: cannot read: Input/output error",
    "cannot write /stage/x: No space left on device",
    "Pixel Data has 100 bytes, the image pixel module declares 512",
};

DPRCResult failed(DPRC_Reason reason, const char *message)
{
    DPRCResult r;
    r.status = reason == DPRCR_unsupported || reason == DPRCR_lossySyntax ? DPRCST_unsupported
             : reason == DPRCR_changed ? DPRCST_skippedChanged : DPRCST_failed;
    r.reason = reason;
    r.message = message;
    return r;
}

} // namespace

// each reason gets its status whatever its message says; the same message gets every status
TEST(PacsStatus, MappingByReasonNotByMessage)
{
    for (const Row &row : kTable)
        for (const char *message : kMessages)
            EXPECT_EQ(DPSCPFailureStatus(failed(row.reason, message)), row.status)
                << DPRCReasonName(row.reason) << " with the message \"" << message << "\"";
    // the table above is every reason: DPRCR_changed is the last
    EXPECT_EQ(sizeof kTable / sizeof kTable[0], static_cast<size_t>(DPRCR_changed) + 1);
}

namespace {

struct Codecs : public ::testing::Environment {
    void SetUp() override
    {
        DPCWTRegisterDecoders(OFstatic_cast(unsigned long, 1) << 30, OFFalse);
        DPCWTEncoderRegistration::registerCodecs();
    }
    void TearDown() override
    {
        DPCWTEncoderRegistration::cleanup();
        DPCWTCleanupDecoders();
    }
};
const ::testing::Environment *const kCodecs = ::testing::AddGlobalTestEnvironment(new Codecs);

// a temporary folder, removed with everything in it
struct TempDir {
    std::string path;
    TempDir()
    {
        char tmpl[] = "/tmp/pcwt-status-XXXXXX";
        const char *p = mkdtemp(tmpl);
        path = p ? p : "";
    }
    ~TempDir()
    {
        std::error_code ec;
        if (!path.empty())
            fs::remove_all(path, ec);
    }
};

// a new secondary capture instance's image pixel module, without Pixel Data: rows x columns,
// one unsigned MONOCHROME2 sample of `bits` bits
void putImageModule(DcmDataset *ds, Uint16 rows, Uint16 columns, Uint16 bits)
{
    char uid[100];
    ds->putAndInsertString(DCM_SOPClassUID, UID_SecondaryCaptureImageStorage);
    ds->putAndInsertString(DCM_SOPInstanceUID, dcmGenerateUniqueIdentifier(uid, SITE_INSTANCE_UID_ROOT));
    ds->putAndInsertString(DCM_PhotometricInterpretation, "MONOCHROME2");
    ds->putAndInsertUint16(DCM_Rows, rows);
    ds->putAndInsertUint16(DCM_Columns, columns);
    ds->putAndInsertUint16(DCM_SamplesPerPixel, 1);
    ds->putAndInsertUint16(DCM_BitsAllocated, bits);
    ds->putAndInsertUint16(DCM_BitsStored, bits);
    ds->putAndInsertUint16(DCM_HighBit, static_cast<Uint16>(bits - 1));
    ds->putAndInsertUint16(DCM_PixelRepresentation, 0);
}

// a secondary capture image: rows x columns, one sample of `bits` bits, Pixel Data of `bytes`
// bytes (a pattern), in Explicit VR Little Endian
bool writeImage(const std::string &path, Uint16 rows, Uint16 columns, Uint16 bits, size_t bytes)
{
    DcmFileFormat ff;
    DcmDataset *ds = ff.getDataset();
    putImageModule(ds, rows, columns, bits);
    std::vector<Uint16> w((bytes + 1) / 2);
    for (size_t i = 0; i < w.size(); ++i)
        w[i] = static_cast<Uint16>((i * 37) & 0xfff);
    ds->putAndInsertUint16Array(DCM_PixelData, w.data(), static_cast<unsigned long>(w.size()));
    return ff.saveFile(path.c_str(), EXS_LittleEndianExplicit).good();
}

// an 8-bit image in JPEG Baseline whose one fragment is not JPEG data
bool writeBrokenJpeg(const std::string &path)
{
    DcmFileFormat ff;
    DcmDataset *ds = ff.getDataset();
    putImageModule(ds, 16, 16, 8);
    DcmPixelSequence *seq = new DcmPixelSequence(DCM_PixelSequenceTag);
    seq->insert(new DcmPixelItem(DCM_PixelItemTag)); // empty offset table
    DcmPixelItem *frag = new DcmPixelItem(DCM_PixelItemTag);
    std::vector<Uint8> junk(64);
    for (size_t i = 0; i < junk.size(); ++i)
        junk[i] = static_cast<Uint8>(i * 13 + 1);
    junk[0] = 0xFF;
    junk[1] = 0xD8; // SOI, then nothing a JPEG decoder can use
    frag->putUint8Array(junk.data(), static_cast<unsigned long>(junk.size()));
    seq->insert(frag);
    DcmPixelData *pd = new DcmPixelData(DCM_PixelData);
    pd->putOriginalRepresentation(EXS_JPEGProcess1, nullptr, seq);
    ds->insert(pd, OFTrue);
    return ff.saveFile(path.c_str(), EXS_JPEGProcess1).good();
}

// the engine's steps on one received file as pcwt-storescp runs them (into a staging folder)
DPRCResult store(const std::string &file, const std::string &stage, const std::string &fault = "",
                 bool acceptLossy = false)
{
    DPRCEntry entry;
    entry.path = file;
    entry.rel = "out.dcm";
    entry.size = 0;
    entry.symlink = false;
    DPRCOptions opt;
    opt.target = DPRCT_pcwt;
    opt.outputDir = stage;
    opt.acceptLossy = acceptLossy;
    opt.testFault = fault;
    DPRCJob job;
    if (DPRCPrepare(job, entry, opt, 0))
        DPRCFinish(job, opt, 0);
    return job.result;
}

#define EXPECT_OUTCOME(r, st, why, code)                                                            \
    do {                                                                                            \
        EXPECT_EQ((r).status, st) << (r).message;                                                   \
        EXPECT_EQ((r).reason, why) << DPRCReasonName((r).reason) << ": " << (r).message;            \
        EXPECT_EQ(DPSCPFailureStatus(r), code) << DPSCPStatusText(DPSCPFailureStatus(r));           \
    } while (0)

} // namespace

// a sound image is stored, without a reason
TEST(PacsStatus, EngineStoresSoundImage)
{
    TempDir t;
    ASSERT_FALSE(t.path.empty());
    const std::string in = t.path + "/in.dcm";
    ASSERT_TRUE(writeImage(in, 16, 16, 16, 16 * 16 * 2));
    const DPRCResult r = store(in, t.path + "/stage");
    EXPECT_EQ(r.status, DPRCST_done) << r.message;
    EXPECT_EQ(r.reason, DPRCR_none);
}

// each failure carries the reason of its step, and pcwt-storescp's status follows from it
TEST(PacsStatus, EngineFailuresCarryTheirReason)
{
    TempDir t;
    ASSERT_FALSE(t.path.empty());
    const std::string stage = t.path + "/stage";

    // the staged file is gone: the file system's (ours), 0xA700
    DPRCResult r = store(t.path + "/missing.dcm", stage);
    EXPECT_OUTCOME(r, DPRCST_failed, DPRCR_io, STATUS_STORE_Refused_OutOfResources);

    // Pixel Data shorter than the module declares (DPCWTIsPixelDataLengthError): 0xA900
    const std::string shortPixels = t.path + "/short.dcm";
    ASSERT_TRUE(writeImage(shortPixels, 16, 16, 16, 100));
    r = store(shortPixels, stage);
    EXPECT_OUTCOME(r, DPRCST_failed, DPRCR_pixelData, STATUS_STORE_Error_DataSetDoesNotMatchSOPClass);

    // a data set that ends in the middle of its Pixel Data: 0xC000
    const std::string truncated = t.path + "/truncated.dcm";
    ASSERT_TRUE(writeImage(truncated, 64, 64, 16, 64 * 64 * 2));
    fs::resize_file(truncated, fs::file_size(truncated) - 4000);
    r = store(truncated, stage);
    EXPECT_OUTCOME(r, DPRCST_failed, DPRCR_corruptInput, STATUS_STORE_Error_CannotUnderstand);

    // compressed pixel data that does not decode (--accept-lossy decodes it): 0xC000
    const std::string jpeg = t.path + "/broken-jpeg.dcm";
    ASSERT_TRUE(writeBrokenJpeg(jpeg));
    r = store(jpeg, stage, "", true);
    EXPECT_OUTCOME(r, DPRCST_failed, DPRCR_corruptInput, STATUS_STORE_Error_CannotUnderstand);

    // the copy does not decode to the original's samples (a bit flipped in what it is compared
    // with): a retry would not help, 0x0110
    const std::string sound = t.path + "/sound.dcm";
    ASSERT_TRUE(writeImage(sound, 16, 16, 16, 16 * 16 * 2));
    r = store(sound, stage, "original");
    EXPECT_OUTCOME(r, DPRCST_failed, DPRCR_verifyFailed, DPSCP_STATUS_ProcessingFailure);

    // the staging folder cannot be made (a file in its way): ours, 0xA700
    const std::string blocker = t.path + "/blocker";
    std::ofstream(blocker) << "x";
    r = store(sound, blocker + "/stage");
    EXPECT_OUTCOME(r, DPRCST_failed, DPRCR_io, STATUS_STORE_Refused_OutOfResources);
}

// what cannot be coded: a lossy syntax is told apart (pcwt-storescp stores it as received even
// with --reject-unsupported), any other gets 0xC000 with --reject-unsupported
TEST(PacsStatus, EngineUnsupportedReasons)
{
    TempDir t;
    ASSERT_FALSE(t.path.empty());
    const std::string stage = t.path + "/stage";

    const std::string jpeg = t.path + "/lossy.dcm";
    ASSERT_TRUE(writeBrokenJpeg(jpeg));
    DPRCResult r = store(jpeg, stage);
    EXPECT_OUTCOME(r, DPRCST_unsupported, DPRCR_lossySyntax, STATUS_STORE_Error_CannotUnderstand);

    // 32-bit samples: PCWT codes up to 16
    const std::string wide = t.path + "/wide.dcm";
    ASSERT_TRUE(writeImage(wide, 8, 8, 32, 8 * 8 * 4));
    r = store(wide, stage);
    EXPECT_OUTCOME(r, DPRCST_unsupported, DPRCR_unsupported, STATUS_STORE_Error_CannotUnderstand);
}
