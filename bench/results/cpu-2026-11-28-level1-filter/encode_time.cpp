// Encode one raw frame alternately with level1-filter 53 and auto, one thread; median ms of each.
#include "pcwt.h"
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
int main(int argc, char **argv) {
  if (argc < 6) return 2;
  FILE *f = fopen(argv[1], "rb"); std::vector<uint8_t> s; int c; while ((c = fgetc(f)) != EOF) s.push_back((uint8_t)c); fclose(f);
  pcwt_image_desc d{}; d.width = atoi(argv[2]); d.height = atoi(argv[3]); d.components = 1; d.bits_allocated = 16; d.bits_stored = atoi(argv[4]); d.is_signed = atoi(argv[5]);
  int reps = argc > 6 ? atoi(argv[6]) : 21;
  pcwt_encoder *e[2]; std::vector<double> t[2]; size_t sz[2] = {0, 0};
  for (int k = 0; k < 2; k++) { e[k] = pcwt_encoder_create(); pcwt_encode_params p; pcwt_encode_params_default(&p); p.backend = PCWT_BACKEND_CPU; p.level1_filter = k ? PCWT_LEVEL1_AUTO : PCWT_LEVEL1_53; if (pcwt_encoder_set_params(e[k], &p)) return 3; }
  std::vector<uint8_t> out(pcwt_encode_bound(&d));
  for (int r = 0; r < reps; r++) for (int k = 0; k < 2; k++) {
    auto a = std::chrono::steady_clock::now(); size_t n = 0;
    if (pcwt_encode(e[k], &d, s.data(), s.size(), out.data(), out.size(), &n)) return 4;
    t[k].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count()); sz[k] = n; }
  for (int k = 0; k < 2; k++) { std::sort(t[k].begin(), t[k].end()); printf("%s: median %.2f ms (min %.2f), %zu bytes\n", k ? "auto" : "53  ", t[k][t[k].size() / 2], t[k][0], sz[k]); }
}
