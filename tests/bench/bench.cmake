# Tests of pcwt-bench (bench/pcwt_bench): the tool run on generated images and on a few corpus
# images (CPU codecs), its CSV, JSON and HTML checked by test_pcwt_bench.py. Included from
# tests/CMakeLists.txt; only when pcwt-bench is built (PCWT_BUILD_BENCH and all its libraries).
#   bench_tool_usage      option errors exit 2, --help works
#   bench_tool_raw_pgm    raw (2 frames), PGM 8/16-bit, PPM in a directory: every codec lossless,
#                         the words read are the words written (--save-frames), a bad raw reported;
#                         the device-resident columns (dev_*) empty / n/a without GPU codecs, and the
#                         default codec set: GPU codecs listed as not run without a device, or with
#                         one lossless with device-resident figures
#   bench_tool_mismatch   an injected decode error is reported as MISMATCH, lossless=false, exit 1
#   bench_tool_corpus     CT, multi-frame MR, RGB, JPEG-LS, JPEG 2000, JPEG lossless corpus files
#                         plus corrupted inputs: rows, ratios, HTML well-formed with every image
#                         (skipped when shared/testdata is absent)
#   bench_tool_options    --levels, --group, --lifting, --profile reach libpcwt; the Markdown report
#   bench_tool_jpegxl     the JPEG XL peer on generated 2-16 bit images (signed, RGB): lossless, the
#                         effort reaches libjxl, mismatches caught (skipped when built without libjxl)
#   bench_tool_wg04       --wg04 on one thread: 10 frames, sign from the DICOM originals, known ratios
#                         (skipped when shared/testdata is absent)
if(NOT PCWT_BUILD_BENCH)
  return()
endif()
include(${PROJECT_SOURCE_DIR}/bench/pcwt_bench/pcwt_bench_deps.cmake)
if(NOT PCWT_BENCH_DEPS_FOUND)
  message(STATUS "tests: pcwt-bench tests not added (pcwt-bench is not built)")
  return()
endif()

# Standard-library Python only; Debian's interpreter (a pyenv python3 on PATH may be anything).
if(EXISTS /usr/bin/python3)
  set(_pcwt_bench_python /usr/bin/python3)
else()
  find_program(_pcwt_bench_python NAMES python3 REQUIRED)
endif()

set(_pcwt_bench_work "${CMAKE_CURRENT_BINARY_DIR}/bench_work")
foreach(mode usage raw_pgm mismatch corpus options wg04 jpegxl)
  add_test(NAME bench_tool_${mode}
    COMMAND "${_pcwt_bench_python}" "${CMAKE_CURRENT_LIST_DIR}/test_pcwt_bench.py" ${mode}
            --tool $<TARGET_FILE:pcwt-bench>
            --work "${_pcwt_bench_work}/${mode}"
            --testdata "${PCWT_SHARED_DIR}/testdata")
  set_tests_properties(bench_tool_${mode} PROPERTIES LABELS bench SKIP_RETURN_CODE 77 TIMEOUT 300)
endforeach()

# jpeg2000-gpu (libpcwt's JPEG 2000 decoder on the GPU) against the openjpeg codec on the same
# codestreams, word for word (test_pcwt_bench_j2k_gpu.py); label gpu, skips without a device
add_test(NAME bench_tool_j2k_gpu
  COMMAND "${_pcwt_bench_python}" "${CMAKE_CURRENT_LIST_DIR}/test_pcwt_bench_j2k_gpu.py"
          --tool $<TARGET_FILE:pcwt-bench>
          --work "${_pcwt_bench_work}/j2k_gpu"
          --testdata "${PCWT_SHARED_DIR}/testdata")
set_tests_properties(bench_tool_j2k_gpu PROPERTIES LABELS gpu SKIP_RETURN_CODE 77 TIMEOUT 300)
