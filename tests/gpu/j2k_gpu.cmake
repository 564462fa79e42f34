# GPU JPEG 2000 decoding (issue 34): pcwt_gpu_j2k_decode_batch against the CPU path and OpenJPEG.
# It calls the backend directly (gpu_backend.h), which only a CUDA build has; label gpu, skipped
# without a device.
if(PCWT_WITH_CUDA)
  add_executable(test_gpu_j2k ${CMAKE_CURRENT_LIST_DIR}/test_gpu_j2k.cpp)
  target_link_libraries(test_gpu_j2k PRIVATE pcwt GTest::gtest_main)
  target_include_directories(test_gpu_j2k PRIVATE ${PROJECT_SOURCE_DIR}/codec/src ${PROJECT_SOURCE_DIR}/tests
                             ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/tests/j2kt1)
  gtest_discover_tests(test_gpu_j2k DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu TIMEOUT 600)
endif()
# pcwt_j2k_decode_jobs cutting a batch into groups (tier-2 beside the device), against the CPU route
if(PCWT_WITH_CUDA)
  add_executable(test_gpu_j2k_groups ${CMAKE_CURRENT_LIST_DIR}/test_gpu_j2k_groups.cpp)
  target_link_libraries(test_gpu_j2k_groups PRIVATE pcwt GTest::gtest_main)
  target_include_directories(test_gpu_j2k_groups PRIVATE ${PROJECT_SOURCE_DIR}/codec/src ${PROJECT_SOURCE_DIR}/tests
                             ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/tests/j2kt1)
  gtest_discover_tests(test_gpu_j2k_groups DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu TIMEOUT 600)
endif()
