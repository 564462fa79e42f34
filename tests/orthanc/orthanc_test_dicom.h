// orthanc_test_dicom.h - synthetic Part 10 files for the storage area's tests (explicit VR
// little endian, a pixel module, native pixel data that PCWT codes).
#ifndef PCWT_ORTHANC_TEST_DICOM_H
#define PCWT_ORTHANC_TEST_DICOM_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<uint8_t>;

inline void put16(Bytes& b, uint16_t v) { b.push_back(uint8_t(v)); b.push_back(uint8_t(v >> 8)); }
inline void put32(Bytes& b, uint32_t v) { put16(b, uint16_t(v)); put16(b, uint16_t(v >> 16)); }

// one explicit VR little endian element
inline void element(Bytes& b, uint16_t g, uint16_t e, const char* vr, const Bytes& value, bool undefined = false)
{
  put16(b, g); put16(b, e);
  b.push_back(uint8_t(vr[0])); b.push_back(uint8_t(vr[1]));
  const bool longVr = std::strchr("OB OW SQ UN UT", vr[0]) && std::string("OBOWSQUNUT").find(vr) != std::string::npos;
  if (longVr) { put16(b, 0); put32(b, undefined ? 0xFFFFFFFFu : uint32_t(value.size())); }
  else put16(b, uint16_t(value.size()));
  b.insert(b.end(), value.begin(), value.end());
}
inline Bytes us(uint16_t v) { Bytes b; put16(b, v); return b; }
inline Bytes text(const std::string& s) { Bytes b(s.begin(), s.end()); if (b.size() % 2) b.push_back(' '); return b; }

struct Image {
  uint16_t rows = 37, cols = 29, bits = 16, stored = 12, spp = 1;
  unsigned frames = 2;
  std::string ts = "1.2.840.10008.1.2.1";
  bool sequence = true;  // an undefined-length sequence before the pixel module
  bool encapsulated = false;
};

inline Bytes makeDicom(const Image& im)
{
  Bytes f(132, 0);
  std::memcpy(&f[128], "DICM", 4);
  Bytes tsv = text(im.ts);
  if (tsv.back() == ' ') tsv.back() = 0;
  element(f, 0x0002, 0x0010, "UI", tsv);
  element(f, 0x0008, 0x0060, "CS", text("CT"));
  if (im.sequence) {
    Bytes item;  // an item of undefined length holding one element, then the delimiters
    put16(item, 0xFFFE); put16(item, 0xE000); put32(item, 0xFFFFFFFFu);
    element(item, 0x0008, 0x0100, "SH", text("X1"));
    put16(item, 0xFFFE); put16(item, 0xE00D); put32(item, 0);
    put16(item, 0xFFFE); put16(item, 0xE0DD); put32(item, 0);
    element(f, 0x0008, 0x1032, "SQ", item, true);
  }
  element(f, 0x0028, 0x0002, "US", us(im.spp));
  element(f, 0x0028, 0x0004, "CS", text(im.spp == 3 ? "RGB" : "MONOCHROME2"));
  if (im.spp == 3) element(f, 0x0028, 0x0006, "US", us(0));
  element(f, 0x0028, 0x0008, "IS", text(std::to_string(im.frames)));
  element(f, 0x0028, 0x0010, "US", us(im.rows));
  element(f, 0x0028, 0x0011, "US", us(im.cols));
  element(f, 0x0028, 0x0100, "US", us(im.bits));
  element(f, 0x0028, 0x0101, "US", us(im.stored));
  element(f, 0x0028, 0x0102, "US", us(uint16_t(im.stored - 1)));
  element(f, 0x0028, 0x0103, "US", us(0));
  size_t n = size_t(im.rows) * im.cols * im.spp * (im.bits / 8) * im.frames;
  Bytes pixels(n + (n % 2));
  uint32_t x = 12345;
  for (size_t i = 0; i < n; ++i) { x = x * 1103515245u + 12345u; pixels[i] = uint8_t(i / 7 + (x >> 28)); }
  if (im.bits == 16) for (size_t i = 1; i < n; i += 2) pixels[i] &= 0x0F;  // 12 bits stored
  element(f, 0x7FE0, 0x0010, im.bits == 8 ? "OB" : "OW", pixels, im.encapsulated);
  element(f, 0xFFFC, 0xFFFC, "OB", Bytes(6, 0));  // trailing padding kept verbatim
  return f;
}

}  // namespace

#endif
