# pcwt_transcode_batch (issue 34): JPEG 2000 / HTJ2K codestreams decoded, coded as PCWT and
# verified in one call, against the path through host memory. test_transcode runs on the CPU
# backend (label j2k); test_transcode_gpu, in CUDA builds, on the GPU (label gpu, skipped without a
# device). Their streams: made with opj_compress / ojph_compress, and every JPEG 2000 frame of
# shared/testdata and testdata-jpeg2000 with the synthetic set of the GPU tests, packed by the
# fixture transcode_pack_j2k (tests/gpu/pack_j2k_corpus.py; skipped without pydicom or OpenJPEG's
# tools, the tests then use what they can make) or taken from PCWT_GPU_J2K_CORPUS.
set(_xc_packed ${CMAKE_BINARY_DIR}/transcode-j2k)
add_test(NAME transcode_pack_j2k
  COMMAND sh -c "command -v opj_compress >/dev/null && /usr/bin/python3 -c 'import pydicom, numpy' 2>/dev/null || { echo 'opj_compress or pydicom/numpy (/usr/bin/python3) missing'; exit 77; }; rm -rf '${_xc_packed}' && /usr/bin/python3 '${PROJECT_SOURCE_DIR}/tests/gpu/pack_j2k_corpus.py' '${_xc_packed}'")
set_tests_properties(transcode_pack_j2k PROPERTIES FIXTURES_SETUP transcode_j2k LABELS "j2k;gpu" SKIP_RETURN_CODE 77 TIMEOUT 300)
set(_xc_targets test_transcode)
if(PCWT_WITH_CUDA)
  list(APPEND _xc_targets test_transcode_gpu)
endif()
foreach(_t ${_xc_targets})
  add_executable(${_t} ${CMAKE_CURRENT_LIST_DIR}/test_transcode.cpp)
  target_link_libraries(${_t} PRIVATE pcwt GTest::gtest_main)
  target_include_directories(${_t} PRIVATE ${PROJECT_SOURCE_DIR}/codec/src ${PROJECT_SOURCE_DIR}/tests/j2kt1
                             ${PROJECT_SOURCE_DIR}/tests/gpu)
  target_compile_options(${_t} PRIVATE ${PCWT_WARNINGS})
  target_compile_definitions(${_t} PRIVATE PCWT_TRANSCODE_PACKED="${_xc_packed}")
endforeach()
gtest_discover_tests(test_transcode TEST_PREFIX "transcode." DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS j2k TIMEOUT 600 FIXTURES_REQUIRED transcode_j2k)
if(PCWT_WITH_CUDA)
  target_compile_definitions(test_transcode_gpu PRIVATE PCWT_TRANSCODE_GPU)
  gtest_discover_tests(test_transcode_gpu TEST_PREFIX "transcode_gpu." DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS gpu TIMEOUT 600 FIXTURES_REQUIRED transcode_j2k)
endif()
