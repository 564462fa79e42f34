# JPEG 2000 and HTJ2K input (issue 33): the plugin's decoder on streams made at test time with
# opj_compress and ojph_compress (test_j2k_streams.cpp), the corpus's JPEG 2000 files against GDCM
# and OpenJPH, lossy refusal, damaged codestreams, the preload library, pcwt-recompress and
# pcwt-storescp with stock storescu and, for HTJ2K, pcwt-storescu (test_j2k_tools.cpp,
# test_j2k_scp.cpp). include()d from tests/CMakeLists.txt when PCWT_WITH_DCMTK is on; test names start with "j2k." (label j2k). They skip, saying why, without
# the tools (libopenjp2-tools, openjph-tools, libgdcm-tools, dcmtk) or the corpus.
find_package(Threads REQUIRED)
find_package(DCMTK CONFIG REQUIRED)
if(NOT TARGET dcmpcwt_j2kcore)
  message(STATUS "tests: j2k tests not built (the plugin has no JPEG 2000 decoder: OpenJPEG missing)")
  return()
endif()

add_executable(test_j2k ${CMAKE_CURRENT_LIST_DIR}/test_j2k_streams.cpp ${CMAKE_CURRENT_LIST_DIR}/test_j2k_tools.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_j2k_scp.cpp ${CMAKE_CURRENT_LIST_DIR}/test_j2k_library.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_j2k_recompress_decoder.cpp ${CMAKE_CURRENT_LIST_DIR}/test_j2k_scp_decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/j2k_test_util.h ${CMAKE_CURRENT_LIST_DIR}/j2k_folder.h)
target_link_libraries(test_j2k PRIVATE dcmpcwt dcmpcwt_j2kcore DCMTK::dcmjpeg DCMTK::dcmjpls DCMTK::dcmdata GTest::gtest_main
  Threads::Threads)
# the helpers of the DICOM, PACS and recompress tests (processes, decoding, servers, reports)
target_include_directories(test_j2k PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${CMAKE_CURRENT_LIST_DIR}/../dicom
  ${CMAKE_CURRENT_LIST_DIR}/../pacs ${CMAKE_CURRENT_LIST_DIR}/../recompress)
target_compile_options(test_j2k PRIVATE ${PCWT_WARNINGS})
target_compile_definitions(test_j2k PRIVATE
  PCWT_SHARED_DIR="${PCWT_SHARED_DIR}"
  DCMCPCWT_PATH="$<TARGET_FILE:dcmcpcwt>"
  DCMDPCWT_PATH="$<TARGET_FILE:dcmdpcwt>"
  RECOMPRESS_PATH="$<TARGET_FILE:pcwt-recompress>"
  STORESCP_PATH="$<TARGET_FILE:pcwt-storescp>"
  STORESCU_PATH="$<TARGET_FILE:pcwt-storescu>"
  PRELOAD_PATH="$<TARGET_FILE:dcmpcwt_preload>"
  PRELOAD_PREFIX="${_pcwt_dicom_preload_prefix}")
add_dependencies(test_j2k dcmcpcwt dcmdpcwt pcwt-recompress pcwt-storescp pcwt-storescu dcmpcwt_preload)
gtest_discover_tests(test_j2k TEST_PREFIX "j2k." TEST_FILTER "-J2kRecompressGpu.*:J2kScpGpu.*" DISCOVERY_TIMEOUT 60
  NO_PRETTY_VALUES PROPERTIES LABELS j2k TIMEOUT 300)
# pcwt-recompress and pcwt-storescp decoding JPEG 2000 on the GPU (skip without a device)
gtest_discover_tests(test_j2k TEST_PREFIX "j2k." TEST_FILTER "J2kRecompressGpu.*:J2kScpGpu.*" DISCOVERY_TIMEOUT 60
  NO_PRETTY_VALUES PROPERTIES LABELS gpu TIMEOUT 300)
