# The library's JPEG 2000 decoder (codec/src/j2k_*.c, issue 34): streams made at test time with
# opj_compress decoded through pcwt_decode against the source and opj_decompress, unsupported
# features refused, damaged streams refused without over-reads (label j2k; skips without
# libopenjp2-tools).
add_executable(test_j2k_decoder ${CMAKE_CURRENT_LIST_DIR}/test_j2k_decoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_j2k_decoder_refuse.cpp ${CMAKE_CURRENT_LIST_DIR}/test_j2k_tier2_threads.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_j2k_ht.cpp)
target_link_libraries(test_j2k_decoder PRIVATE pcwt GTest::gtest_main)
target_include_directories(test_j2k_decoder PRIVATE ${PROJECT_SOURCE_DIR}/codec/src ${CMAKE_CURRENT_LIST_DIR}
  ${CMAKE_CURRENT_LIST_DIR}/../j2kt1)
target_compile_options(test_j2k_decoder PRIVATE ${PCWT_WARNINGS})
target_compile_definitions(test_j2k_decoder PRIVATE PCWT_CLI_PATH="$<TARGET_FILE:pcwt_cli>")
add_dependencies(test_j2k_decoder pcwt_cli)
gtest_discover_tests(test_j2k_decoder TEST_PREFIX "j2kdec." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS j2k TIMEOUT 300)
# j2k_ht_vlc.h is what j2k_ht_vlc_gen.py (the CxtVLC codewords of T.814 Annex C) generates
add_test(NAME j2k_ht_vlc_table
  COMMAND sh -c "command -v python3 >/dev/null || { echo 'python3 missing'; exit 77; }; python3 '${PROJECT_SOURCE_DIR}/codec/src/j2k_ht_vlc_gen.py' | cmp - '${PROJECT_SOURCE_DIR}/codec/src/j2k_ht_vlc.h'")
set_tests_properties(j2k_ht_vlc_table PROPERTIES LABELS j2k SKIP_RETURN_CODE 77)
