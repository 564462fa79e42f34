# Tests of pcwt-recompress (archive/apps/recompress): real processes on copies of shared/testdata
# in temporary trees; they skip when the corpus is absent. include()d from tests/CMakeLists.txt
# when PCWT_WITH_DCMTK is on. Test names start with "recompress." (ctest -R recompress); label
# recompress. dcmmkdir (dcmtk) makes the DICOMDIR file set when it is installed.

find_package(Threads REQUIRED)
find_package(DCMTK CONFIG REQUIRED) # imported targets are visible per directory

add_executable(test_recompress ${CMAKE_CURRENT_LIST_DIR}/test_recompress.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_recompress_pipeline.cpp ${CMAKE_CURRENT_LIST_DIR}/test_recompress_safety.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_recompress_verify.cpp ${CMAKE_CURRENT_LIST_DIR}/test_recompress_devices.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_recompress_pools.cpp
  ${CMAKE_CURRENT_LIST_DIR}/recompress_util.h)
# (pcwt_archive: the verification's sample, archive/lib/sample.h, drawn as the tool draws it)
target_link_libraries(test_recompress PRIVATE pcwt_archive dcmpcwt DCMTK::dcmjpeg DCMTK::dcmjpls DCMTK::dcmdata
  GTest::gtest_main Threads::Threads)
# dicom_test_util.h (processes, temporary folders, decoding, attribute comparison)
target_include_directories(test_recompress PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../dicom)
target_compile_options(test_recompress PRIVATE ${PCWT_WARNINGS})
target_compile_definitions(test_recompress PRIVATE
  PCWT_SHARED_DIR="${PCWT_SHARED_DIR}"
  RECOMPRESS_PATH="$<TARGET_FILE:pcwt-recompress>"
  DCMDPCWT_PATH="$<TARGET_FILE:dcmdpcwt>"
  PRELOAD_PATH="" PRELOAD_PREFIX="") # dicom_test_util.h's preloadEnv() is not used here
add_dependencies(test_recompress pcwt-recompress dcmdpcwt)
gtest_discover_tests(test_recompress TEST_PREFIX "recompress." TEST_FILTER "-RecompressGpu.*" DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS recompress TIMEOUT 300)
# the GPU's verification by default (skips without a device)
gtest_discover_tests(test_recompress TEST_PREFIX "recompress." TEST_FILTER "RecompressGpu.*" DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS gpu TIMEOUT 300)

# docs/recompress.md's Slurm job array and Kubernetes indexed Job, run for every shard index they
# produce on a copy of corpus files: every file in exactly one shard, recompressed once
add_test(NAME recompress.cluster_docs
  COMMAND bash "${CMAKE_CURRENT_LIST_DIR}/check_cluster_docs.sh" "$<TARGET_FILE:pcwt-recompress>"
          "${PROJECT_SOURCE_DIR}/docs/recompress.md" "${PCWT_SHARED_DIR}/testdata"
          "${CMAKE_CURRENT_BINARY_DIR}/cluster_docs")
set_tests_properties(recompress.cluster_docs PROPERTIES LABELS recompress SKIP_RETURN_CODE 77 TIMEOUT 300)
