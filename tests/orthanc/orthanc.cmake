# Tests of the Orthanc storage plugin (orthanc/): each script starts Debian's Orthanc
# (/usr/sbin/Orthanc) itself on free loopback ports with a temporary configuration and
# libpcwt_orthanc, and skips (exit 77, "Skipped") where Orthanc, the corpus or pydicom is missing.
# Label orthanc; names start with "orthanc.". Under AddressSanitizer, Orthanc (not instrumented)
# runs with the sanitizer's runtime preloaded so that it can load the instrumented plugin.
if(NOT TARGET pcwt_orthanc)
  return()
endif()
if(EXISTS /usr/bin/python3)
  set(_pcwt_orthanc_python /usr/bin/python3) # Debian's, with pydicom
else()
  find_program(_pcwt_orthanc_python NAMES python3 REQUIRED)
endif()
set(_pcwt_orthanc_asan 0)
if(PCWT_SANITIZE MATCHES "address")
  set(_pcwt_orthanc_asan 1)
endif()

foreach(_t roundtrip kill damaged migrate config)
  add_test(NAME orthanc.${_t}
    COMMAND ${_pcwt_orthanc_python} ${CMAKE_CURRENT_LIST_DIR}/test_${_t}.py
            --plugin $<TARGET_FILE:pcwt_orthanc> --tool $<TARGET_FILE:pcwt-orthanc-compress>
            --shared ${PCWT_SHARED_DIR} --asan ${_pcwt_orthanc_asan} --work ${CMAKE_CURRENT_BINARY_DIR})
  # RUN_SERIAL: each starts a server and codes on both cores
  set_tests_properties(orthanc.${_t} PROPERTIES LABELS orthanc SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE)
endforeach()

# The storage area without Orthanc: synthetic files, every byte of a container damaged in turn
# (runs in every build, the sanitizer build included).
add_executable(test_orthanc_store ${CMAKE_CURRENT_LIST_DIR}/test_orthanc_store.cpp)
target_link_libraries(test_orthanc_store PRIVATE pcwt_orthanc_store GTest::gtest_main)
target_compile_options(test_orthanc_store PRIVATE ${PCWT_WARNINGS})
gtest_discover_tests(test_orthanc_store TEST_PREFIX "orthanc." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS orthanc)
