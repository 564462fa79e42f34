# GPU JPEG 2000 decoding (issue 34): pcwt_gpu_j2k_decode_batch against the CPU path and OpenJPEG
# (test_gpu_j2k), and pcwt_j2k_decode_jobs cutting a batch into groups that overlap tier-2 with
# the device (test_gpu_j2k_groups). They call the backend directly (gpu_backend.h), which only a
# CUDA build has; label gpu, skipped without a device.
if(PCWT_WITH_CUDA)
  foreach(t test_gpu_j2k test_gpu_j2k_groups)
    add_executable(${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.cpp)
    target_link_libraries(${t} PRIVATE pcwt GTest::gtest_main)
    target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR}/codec/src ${PROJECT_SOURCE_DIR}/tests
                               ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/tests/j2kt1)
    gtest_discover_tests(${t} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu TIMEOUT 600)
  endforeach()
endif()
