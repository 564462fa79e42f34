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

foreach(_t roundtrip kill damaged migrate config deferred)
  add_test(NAME orthanc.${_t}
    COMMAND ${_pcwt_orthanc_python} ${CMAKE_CURRENT_LIST_DIR}/test_${_t}.py
            --plugin $<TARGET_FILE:pcwt_orthanc> --tool $<TARGET_FILE:pcwt-orthanc-compress>
            --shared ${PCWT_SHARED_DIR} --asan ${_pcwt_orthanc_asan} --work ${CMAKE_CURRENT_BINARY_DIR})
  # RUN_SERIAL: each starts a server and codes on both cores
  set_tests_properties(orthanc.${_t} PROPERTIES LABELS orthanc SKIP_RETURN_CODE 77 TIMEOUT 600 RUN_SERIAL TRUE)
endforeach()

# The storage area without Orthanc: synthetic files, every byte of a container damaged in turn
# (runs in every build, the sanitizer build included).
# The batcher and the deferred mode's coders likewise (test_orthanc_deferred).
foreach(_t test_orthanc_store test_orthanc_deferred)
  add_executable(${_t} ${CMAKE_CURRENT_LIST_DIR}/${_t}.cpp)
  target_link_libraries(${_t} PRIVATE pcwt_orthanc_store GTest::gtest_main)
  target_compile_options(${_t} PRIVATE ${PCWT_WARNINGS})
  gtest_discover_tests(${_t} TEST_PREFIX "orthanc." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS orthanc)
endforeach()

# The plugin driven without Orthanc (a minimal plugin context, N threads calling its storage
# callbacks): runs where Orthanc is not installed (the GPU machine) and in every build.
add_executable(orthanc_harness ${CMAKE_CURRENT_LIST_DIR}/orthanc_harness.c)
target_include_directories(orthanc_harness PRIVATE ${PCWT_ORTHANC_INCLUDE_DIR})
target_link_libraries(orthanc_harness PRIVATE pcwt Threads::Threads ${CMAKE_DL_LIBS}) # pcwt: the GPU check
target_compile_options(orthanc_harness PRIVATE ${PCWT_WARNINGS})
add_dependencies(orthanc_harness pcwt_orthanc)
# The images written: the corpus's native ones, or a folder given (bench/orthanc/
# pack-harness-inputs.py makes one for a machine without the corpus).
set(PCWT_ORTHANC_HARNESS_INPUTS "${PCWT_SHARED_DIR}/testdata/wg04/dicom_unc;${PCWT_SHARED_DIR}/testdata/pydicom-data;${PCWT_SHARED_DIR}/testdata/dcm_qa_ct"
    CACHE STRING "the files or folders orthanc_harness writes in the orthanc.harness.* tests")
set(_pcwt_harness_inputs ${PCWT_ORTHANC_HARNESS_INPUTS})
# orthanc.harness.NAME (label LABEL): the harness with the section's MEMBERS and OPTIONS.
function(pcwt_orthanc_harness_test name label members)
  add_test(NAME orthanc.harness.${name}
    COMMAND orthanc_harness --plugin $<TARGET_FILE:pcwt_orthanc>
            --storage ${CMAKE_CURRENT_BINARY_DIR}/harness-${name} --pcwt "${members}" --threads 8
            --expect-coded --skip-missing --clean ${ARGN} ${_pcwt_harness_inputs})
  set_tests_properties(orthanc.harness.${name} PROPERTIES LABELS ${label} SKIP_RETURN_CODE 77 TIMEOUT 600
                       RUN_SERIAL TRUE)
endfunction()
pcwt_orthanc_harness_test(immediate orthanc [["Mode": "immediate", "Backend": "cpu"]] --expect-log "Mode immediate")
# (the deferred mode's coders at normal priority: at idle priority they would wait while anything
# else keeps the machine busy; orthanc.deferred tests the default)
pcwt_orthanc_harness_test(deferred orthanc [["Mode": "deferred", "Backend": "cpu", "DeferredPriority": "normal"]]
                          --expect-log "Mode deferred" --wait-coded)
pcwt_orthanc_harness_test(batched orthanc [["Mode": "immediate", "Backend": "cpu", "BatchWindowMs": 2]]
                          --expect-log "concurrent writes batched")
# The GPU: concurrent writes batched by default (skip without CUDA or a device).
pcwt_orthanc_harness_test(gpu_batched gpu [["Mode": "immediate", "Backend": "gpu"]]
                          --expect-log "concurrent writes batched" --skip-without-gpu)
pcwt_orthanc_harness_test(gpu_deferred gpu [["Mode": "deferred", "Backend": "gpu", "DeferredPriority": "normal"]]
                          --expect-log "concurrent writes batched" --wait-coded --skip-without-gpu)
