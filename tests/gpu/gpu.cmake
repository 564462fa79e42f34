# GPU backend tests: byte identity with the CPU reference. Labelled "gpu"; they skip (saying why)
# where the build has no CUDA or the machine no device, as on CI.
foreach(_t test_gpu test_gpu_jpegls test_gpu_entropy test_gpu_mqd test_gpu_compact test_gpu_level1
           test_gpu_one_frame test_gpu_ec_pipe test_gpu_chunks test_gpu_offset test_gpu_second_bit)
  add_executable(${_t} ${CMAKE_CURRENT_LIST_DIR}/${_t}.cpp)
  target_link_libraries(${_t} PRIVATE pcwt GTest::gtest_main)
  # recrc.h (tests/) recomputes CRCs with the library's internal pcwt_crc32 (codec/src)
  target_include_directories(${_t} PRIVATE ${PROJECT_SOURCE_DIR}/codec/src ${PROJECT_SOURCE_DIR}/tests)
  gtest_discover_tests(${_t} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu)
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/j2k_gpu.cmake) # JPEG 2000 on the GPU (issue 34)
# host code of the GPU path that needs no device (no label: CI runs it)
pcwt_gtest(test_recent_cache ${CMAKE_CURRENT_LIST_DIR}/test_recent_cache.cpp)
target_include_directories(test_recent_cache PRIVATE ${PROJECT_SOURCE_DIR}/cuda)
