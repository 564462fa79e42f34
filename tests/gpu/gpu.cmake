# GPU backend tests: byte identity with the CPU reference. Labelled "gpu"; they skip (saying why)
# where the build has no CUDA or the machine no device, as on CI.
add_executable(test_gpu ${CMAKE_CURRENT_LIST_DIR}/test_gpu.cpp)
target_link_libraries(test_gpu PRIVATE pcwt GTest::gtest_main)
gtest_discover_tests(test_gpu DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu)
