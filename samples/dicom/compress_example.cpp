// compress_example.cpp - the smallest DCMTK application using the PCWT codec: compresses a DICOM
// file to the PCWT transfer syntax, reads it back, decompresses it and checks the pixels.
//
//   compress_example in.dcm out.dcm
//
// Built with the plugin (target dcmpcwt_compress_example). Against an installed PCWT (the Debian
// package, or cmake --install), with CMake (find_package(dcmpcwt), see CMakeLists.txt here):
//   cmake -S samples/dicom -B build-example && cmake --build build-example
// or with pkg-config:
//   c++ -std=c++17 compress_example.cpp $(pkg-config --cflags --libs dcmpcwt)
#include "dcmtk/config/osconfig.h"
#include "dcmtk/dcmdata/dcdatset.h"
#include "dcmtk/dcmdata/dcdeftag.h"

#include "dcmpcwt/dpdecode.h"
#include "dcmpcwt/dpencode.h"
#include "dcmpcwt/dpfilefo.h"
#include "dcmpcwt/dprparam.h"

#include <cstdio>
#include <cstring>
#include <vector>

// The uncompressed Pixel Data of a data set, as bytes.
static bool pixels(DcmDataset *ds, std::vector<Uint8> &out)
{
    if (ds->chooseRepresentation(EXS_LittleEndianExplicit, NULL).bad())
        return false;
    const Uint8 *data = NULL;
    unsigned long count = 0;
    if (ds->findAndGetUint8Array(DCM_PixelData, data, &count).bad() || data == NULL)
        return false;
    out.assign(data, data + count);
    return true;
}

int main(int argc, char *argv[])
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s in.dcm out.dcm\n", argv[0]);
        return 2;
    }
    // 1. enable the codec: two lines (and two for cleanup at the end)
    DPCWTDecoderRegistration::registerCodecs();
    DPCWTEncoderRegistration::registerCodecs();

    int rc = 1;
    {
        // 2. read with DPCWTFileFormat: it knows the private transfer syntax UID
        DPCWTFileFormat in;
        OFCondition c = in.loadFile(argv[1]);
        std::vector<Uint8> original, decoded;
        if (c.bad() || !pixels(in.getDataset(), original)) {
            std::fprintf(stderr, "cannot read %s: %s\n", argv[1], c.text());
        } else {
            // 3. compress and write: the file gets the PCWT UID in (0002,0010)
            DPCWTRepresentationParameter rp;
            c = in.getDataset()->chooseRepresentation(DPCWT_CARRIER_XFER, &rp);
            if (c.good())
                c = in.saveFile(argv[2], DPCWT_CARRIER_XFER);
            if (c.bad()) {
                std::fprintf(stderr, "cannot compress %s: %s\n", argv[1], c.text());
            } else {
                // 4. read it back and decompress
                DPCWTFileFormat check;
                if (check.loadFile(argv[2]).good() && pixels(check.getDataset(), decoded) &&
                    decoded == original) {
                    std::printf("%s: %lu bytes of pixel data, lossless round trip ok (UID %s)\n", argv[2],
                                static_cast<unsigned long>(original.size()), DCMPCWT_TRANSFER_SYNTAX_UID);
                    rc = 0;
                } else {
                    std::fprintf(stderr, "%s does not decode to the original pixels\n", argv[2]);
                }
            }
        }
    }
    DPCWTEncoderRegistration::cleanup();
    DPCWTDecoderRegistration::cleanup();
    return rc;
}
