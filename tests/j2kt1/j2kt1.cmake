# The JPEG 2000 tier-1 decoder (codec/src/j2k_t1.c, issue 34) against OpenJPEG on code-blocks made
# at test time with opj_compress (label j2k; the tests skip without libopenjp2-tools).
add_executable(test_j2k_t1 ${CMAKE_CURRENT_LIST_DIR}/test_j2k_t1.cpp)
target_link_libraries(test_j2k_t1 PRIVATE pcwt GTest::gtest_main)
target_include_directories(test_j2k_t1 PRIVATE ${PROJECT_SOURCE_DIR}/codec/src ${CMAKE_CURRENT_LIST_DIR})
gtest_discover_tests(test_j2k_t1 TEST_PREFIX "j2kt1." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS j2k)
