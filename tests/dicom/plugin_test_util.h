// Helpers of the in-process plugin tests (test_plugin.cpp, test_plugin_files.cpp): an image
// description from its pixel module, an item's SOP Instance UID.
#ifndef PCWT_TESTS_DICOM_PLUGIN_TEST_UTIL_H
#define PCWT_TESTS_DICOM_PLUGIN_TEST_UTIL_H

#include "dicom_test_util.h"

namespace dt {

inline ImageSpec spec(uint16_t rows, uint16_t cols, uint16_t spp, uint16_t ba, uint16_t bs, uint16_t pr,
                      const char *pi, int frames = 1, ImageSpec::Fill fill = ImageSpec::Smooth, uint16_t planar = 0)
{
    ImageSpec s;
    s.rows = rows;
    s.columns = cols;
    s.spp = spp;
    s.ba = ba;
    s.bs = bs;
    s.hb = static_cast<uint16_t>(bs - 1);
    s.pr = pr;
    s.photometric = pi;
    s.frames = frames;
    s.fill = fill;
    s.planar = planar;
    return s;
}

inline std::string sopInstanceUID(DcmItem *ds)
{
    OFString v;
    ds->findAndGetOFString(DCM_SOPInstanceUID, v);
    return v.c_str();
}

} // namespace dt

#endif
