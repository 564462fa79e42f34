# Per-stage tests of the CPU codec (they include codec/src internals) and API tests.
pcwt_gtest(test_unit
  ${CMAKE_CURRENT_LIST_DIR}/test_dwt53.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_mqd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_element.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_group.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_container.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_roundtrip.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_verify.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_entropy_profile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_range_coder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_colour_transform.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_limits.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_value_map.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_value_map_codec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_offset.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_level1_filter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_second_bit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_ec_device_path.cpp)
# The device path compiled for the host stores through the device's vector types, as CUDA does.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/test_ec_device_path.cpp PROPERTIES
                            COMPILE_OPTIONS -fno-strict-aliasing)

# pcwt_*_set_device: what every build does (DeviceApi.*), and on a CUDA machine coding on every
# device (GpuDevice.*, label gpu, skipped without a device).
add_executable(test_device ${CMAKE_CURRENT_LIST_DIR}/test_device.cpp)
target_link_libraries(test_device PRIVATE pcwt GTest::gtest_main)
target_include_directories(test_device PRIVATE ${PROJECT_SOURCE_DIR}/tests)
gtest_discover_tests(test_device TEST_FILTER "DeviceApi.*" DISCOVERY_TIMEOUT 60)
gtest_discover_tests(test_device TEST_FILTER "GpuDevice.*" DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu)

# The memory-limit tests again with the GPU backend forced (label gpu; they skip without a device).
add_test(NAME gpu.Limits.MemoryLimitOnGpu COMMAND test_unit
         --gtest_filter=Limits.MemoryLimitRefusesBeforeDecoding:Limits.BatchTotalIsChecked)
set_tests_properties(gpu.Limits.MemoryLimitOnGpu PROPERTIES LABELS gpu
                     ENVIRONMENT PCWT_BACKEND=gpu SKIP_REGULAR_EXPRESSION "GPU test skipped")
