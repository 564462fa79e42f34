# The GPU benchmark (bench_gpu.cpp): built with the CUDA backend and CharLS.
if(PCWT_WITH_CUDA)
  add_executable(pcwt_bench_gpu ${CMAKE_CURRENT_LIST_DIR}/bench_gpu.cpp)
  target_link_libraries(pcwt_bench_gpu PRIVATE pcwt ${_pcwt_bench_charls} Threads::Threads)
  target_include_directories(pcwt_bench_gpu PRIVATE ${PROJECT_SOURCE_DIR}/codec/src)
  # --codec j2k: JPEG 2000 decoding against OpenJPEG 2.5 (bench_gpu_j2k.cpp), where it is found
  find_path(PCWT_BENCH_OPJ_INCLUDE_DIR openjpeg.h PATH_SUFFIXES openjpeg-2.5 NO_CACHE)
  find_library(PCWT_BENCH_OPJ_LIB openjp2 NO_CACHE)
  if(PCWT_BENCH_OPJ_INCLUDE_DIR AND PCWT_BENCH_OPJ_LIB)
    target_sources(pcwt_bench_gpu PRIVATE ${CMAKE_CURRENT_LIST_DIR}/bench_gpu_j2k.cpp)
    target_include_directories(pcwt_bench_gpu PRIVATE ${PCWT_BENCH_OPJ_INCLUDE_DIR})
    target_link_libraries(pcwt_bench_gpu PRIVATE ${PCWT_BENCH_OPJ_LIB})
    target_compile_definitions(pcwt_bench_gpu PRIVATE PCWT_BENCH_J2K)
  endif()
endif()
# Its corpus loader on unreadable codestreams (tests/bench/test_bench_gpu_bad_corpus.py; no GPU).
if(PCWT_WITH_CUDA AND PCWT_BUILD_TESTS)
  find_program(_pcwt_bench_gpu_python NAMES python3 REQUIRED)
  add_test(NAME bench_gpu_bad_corpus
    COMMAND "${_pcwt_bench_gpu_python}" "${PROJECT_SOURCE_DIR}/tests/bench/test_bench_gpu_bad_corpus.py"
            $<TARGET_FILE:pcwt_bench_gpu> "${CMAKE_CURRENT_BINARY_DIR}/bench_gpu_bad_corpus")
  set_tests_properties(bench_gpu_bad_corpus PROPERTIES LABELS bench TIMEOUT 120)
endif()
