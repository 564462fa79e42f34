# libFuzzer targets for libpcwt (included from tests/CMakeLists.txt when PCWT_BUILD_FUZZERS=ON).
#
#   fuzz_decode     untrusted codestream -> pcwt_read_header / pcwt_decode (fuzz_decode.c)
#   fuzz_roundtrip  arbitrary image + parameters -> encode -> decode, bit-exact (fuzz_roundtrip.c)
#   fuzz_j2k        untrusted JPEG 2000 codestream -> the library's JPEG 2000 decoder: markers,
#                   tier-2 packets, tier-1 (fuzz_j2k.c; seeds from make_j2k_seeds.sh)
#   fuzz_dicom      the DICOM rules in C (dicom/: pixel-module validation, the Pixel Data length
#                   rule, frame layout, Basic Offset Table), without DCMTK
#   fuzz_dicom_file the DCMTK carrier read: bytes as a DICOM file through DPCWTFileFormat, the
#                   plugin's decoders (PCWT, and JPEG 2000/HTJ2K: its seeds include corpus JPEG 2000
#                   files) whole image and frame-wise, and its encoder (fuzz_dicom_file.cc);
#                   only with PCWT_WITH_DCMTK
#   pcwt_fuzz_make_seeds  writes the seed corpora (valid codestreams of small synthetic images)
#   pcwt_fuzz_make_dicom_seeds  the DICOM files fuzz_dicom_file starts from
#
# Configure with clang and sanitizers, e.g. (what tests/fuzz/run_fuzz.sh does):
#   CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DPCWT_BUILD_FUZZERS=ON \
#     -DPCWT_SANITIZE=address,undefined -DPCWT_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
# The top level applies -fsanitize=${PCWT_SANITIZE} to everything; here only -fsanitize=fuzzer
# (targets) and -fsanitize=fuzzer-no-link (coverage instrumentation of the fuzzed library) are added.
#
# ctest: fuzz_make_seeds (fixture), then fuzz_decode_smoke and fuzz_roundtrip_smoke run each
# fuzzer for PCWT_FUZZ_SECONDS / PCWT_FUZZ_ROUNDTRIP_SECONDS over a fresh copy of the seeds.
# A crash leaves its reproducer in <build>/tests/fuzz/artifacts/ (re-run: fuzz_decode FILE).

if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "PCWT_BUILD_FUZZERS=ON needs clang (libFuzzer); CMAKE_C_COMPILER_ID is "
                      "'${CMAKE_C_COMPILER_ID}'. Configure with CC=clang CXX=clang++.")
endif()
if(NOT PCWT_SANITIZE MATCHES "address")
  message(WARNING "fuzz: PCWT_SANITIZE='${PCWT_SANITIZE}'; fuzz with -DPCWT_SANITIZE=address,undefined "
                  "or memory errors go unnoticed")
endif()

set(PCWT_FUZZ_SECONDS 60 CACHE STRING "Seconds fuzz_decode_smoke runs the decoder fuzzer")
set(PCWT_FUZZ_ROUNDTRIP_SECONDS 30 CACHE STRING "Seconds fuzz_roundtrip_smoke runs the round-trip fuzzer")
set(PCWT_FUZZ_DICOM_SECONDS 30 CACHE STRING "Seconds fuzz_dicom_smoke runs the DICOM fuzzer")
set(PCWT_FUZZ_J2K_SECONDS 30 CACHE STRING "Seconds fuzz_j2k_smoke runs the JPEG 2000 decoder fuzzer")
set(PCWT_FUZZ_DICOM_FILE_SECONDS 30 CACHE STRING "Seconds fuzz_dicom_file_smoke runs the DICOM file fuzzer")

# --- The library as fuzzed -----------------------------------------------------------------------
# A second copy of libpcwt, built from the same sources with the same settings as target pcwt,
# plus:
#  * PCWT_FUZZING_SKIP_CRC: the library then skips CRC comparison (header and payloads), so that
#    mutated codestreams reach the parsing and decoding behind the checksums. This switch must only
#    ever exist in fuzzer builds: it is set here, in PCWT_BUILD_FUZZERS=ON builds, and nowhere else.
#    It is put on this copy rather than on target pcwt itself so that the normal library of the
#    same build tree (GoogleTest suite, CLI) keeps verifying CRCs and its tests stay meaningful.
#  * -fsanitize=fuzzer-no-link: coverage instrumentation, without which libFuzzer sees no
#    feedback from the library code.
get_target_property(_pcwt_src_dir pcwt SOURCE_DIR)
get_target_property(_pcwt_sources pcwt SOURCES)
set(_pcwt_fuzz_sources)
foreach(_s IN LISTS _pcwt_sources)
  if(NOT _s MATCHES "\\.c$")
    continue() # C sources only (no CUDA / headers)
  endif()
  if(NOT IS_ABSOLUTE "${_s}")
    set(_s "${_pcwt_src_dir}/${_s}")
  endif()
  list(APPEND _pcwt_fuzz_sources "${_s}")
endforeach()
add_library(pcwt_fuzzlib STATIC ${_pcwt_fuzz_sources})
foreach(_prop INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS)
  get_target_property(_v pcwt ${_prop})
  if(_v)
    set_property(TARGET pcwt_fuzzlib PROPERTY ${_prop} "${_v}")
  endif()
endforeach()
get_target_property(_v pcwt INTERFACE_INCLUDE_DIRECTORIES)
set_property(TARGET pcwt_fuzzlib PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${_v}")
get_target_property(_v pcwt LINK_LIBRARIES)
if(_v)
  # Imported targets (ZLIB::ZLIB, ...) found in codec/ are not visible from this directory:
  # find their packages again here.
  foreach(_lib IN LISTS _v)
    if(_lib MATCHES "^([A-Za-z0-9_]+)::" AND NOT TARGET "${_lib}")
      set(_pkg "${CMAKE_MATCH_1}")
      if(_pkg STREQUAL "CUDA")
        set(_pkg CUDAToolkit)
      endif()
      find_package(${_pkg} REQUIRED)
    endif()
  endforeach()
  target_link_libraries(pcwt_fuzzlib PUBLIC ${_v})
endif()
target_compile_definitions(pcwt_fuzzlib PRIVATE PCWT_FUZZING_SKIP_CRC)
target_compile_options(pcwt_fuzzlib PRIVATE -fsanitize=fuzzer-no-link)

# --- Fuzzers and seed tool -----------------------------------------------------------------------
foreach(_f fuzz_decode fuzz_roundtrip fuzz_j2k)
  add_executable(${_f} ${CMAKE_CURRENT_LIST_DIR}/${_f}.c)
  target_link_libraries(${_f} PRIVATE pcwt_fuzzlib)
  target_compile_options(${_f} PRIVATE ${PCWT_WARNINGS} -fsanitize=fuzzer)
  target_link_options(${_f} PRIVATE -fsanitize=fuzzer)
endforeach()

# fuzz_dicom: the sources of pcwt_dicom (dicom/) compiled in with coverage, against the fuzzed library
set(_pcwt_dicom_dir "${PROJECT_SOURCE_DIR}/dicom")
add_executable(fuzz_dicom ${CMAKE_CURRENT_LIST_DIR}/fuzz_dicom.c
  ${_pcwt_dicom_dir}/src/pixel_module.c ${_pcwt_dicom_dir}/src/frame_layout.c
  ${_pcwt_dicom_dir}/src/offset_table.c)
target_include_directories(fuzz_dicom PRIVATE ${_pcwt_dicom_dir}/include)
target_link_libraries(fuzz_dicom PRIVATE pcwt_fuzzlib)
target_compile_options(fuzz_dicom PRIVATE ${PCWT_WARNINGS} -fsanitize=fuzzer)
target_link_options(fuzz_dicom PRIVATE -fsanitize=fuzzer)

# fuzz_dicom_file: the DCMTK carrier read (fuzz_dicom_file.cc). The plugin's sources (target
# dcmpcwt) and dicom/ compiled again into dcmpcwt_fuzzlib, with coverage and against pcwt_fuzzlib
# (CRC skipped); DCMTK is the system's (not instrumented). Needs PCWT_WITH_DCMTK.
if(TARGET dcmpcwt)
  if(NOT TARGET DCMTK::dcmdata)
    find_package(DCMTK CONFIG REQUIRED) # imported in plugin/ only when PCWT_WITH_DCMTK was given
  endif()
  get_target_property(_dp_src_dir dcmpcwt SOURCE_DIR)
  get_target_property(_dp_sources dcmpcwt SOURCES)
  set(_dp_fuzz_sources ${_pcwt_dicom_dir}/src/pixel_module.c ${_pcwt_dicom_dir}/src/frame_layout.c
    ${_pcwt_dicom_dir}/src/offset_table.c)
  foreach(_s IN LISTS _dp_sources)
    if(_s MATCHES "\\.cc$")
      if(NOT IS_ABSOLUTE "${_s}")
        set(_s "${_dp_src_dir}/${_s}")
      endif()
      list(APPEND _dp_fuzz_sources "${_s}")
    endif()
  endforeach()
  add_library(dcmpcwt_fuzzlib STATIC ${_dp_fuzz_sources})
  foreach(_prop INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS)
    get_target_property(_v dcmpcwt ${_prop})
    if(_v)
      set_property(TARGET dcmpcwt_fuzzlib PROPERTY ${_prop} "${_v}")
    endif()
  endforeach()
  target_include_directories(dcmpcwt_fuzzlib PUBLIC ${_dp_src_dir}/include ${_pcwt_dicom_dir}/include)
  target_link_libraries(dcmpcwt_fuzzlib PUBLIC pcwt_fuzzlib DCMTK::dcmdata DCMTK::oflog DCMTK::ofstd
    ${CMAKE_DL_LIBS})
  target_compile_options(dcmpcwt_fuzzlib PRIVATE -fsanitize=fuzzer-no-link)
  # the JPEG 2000 decoder's OpenJPEG core (the plugin's copy compiled here expects it when built
  # with OpenJPEG): JPEG 2000 and HTJ2K files reach DPCWTJ2KDecoder through the same registration
  if(TARGET dcmpcwt_j2kcore)
    target_link_libraries(dcmpcwt_fuzzlib PUBLIC dcmpcwt_j2kcore)
  endif()

  add_executable(fuzz_dicom_file ${CMAKE_CURRENT_LIST_DIR}/fuzz_dicom_file.cc)
  target_link_libraries(fuzz_dicom_file PRIVATE dcmpcwt_fuzzlib)
  target_compile_options(fuzz_dicom_file PRIVATE ${PCWT_WARNINGS} -fsanitize=fuzzer)
  target_link_options(fuzz_dicom_file PRIVATE -fsanitize=fuzzer)

  add_executable(pcwt_fuzz_make_dicom_seeds ${CMAKE_CURRENT_LIST_DIR}/make_dicom_seeds.cc)
  target_link_libraries(pcwt_fuzz_make_dicom_seeds PRIVATE dcmpcwt) # the normal plugin (CRC written)
  target_compile_options(pcwt_fuzz_make_dicom_seeds PRIVATE ${PCWT_WARNINGS})
else()
  message(STATUS "fuzz: PCWT_WITH_DCMTK is OFF (DCMTK not found): no fuzz_dicom_file target")
endif()

# fuzz_roundtrip also checks the JPEG-LS fallback encoder against CharLS when CharLS is present.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PCWT_FUZZ_CHARLS QUIET IMPORTED_TARGET charls)
endif()
if(TARGET PkgConfig::PCWT_FUZZ_CHARLS)
  target_link_libraries(fuzz_roundtrip PRIVATE PkgConfig::PCWT_FUZZ_CHARLS)
  target_compile_definitions(fuzz_roundtrip PRIVATE PCWT_FUZZ_HAVE_CHARLS)
else()
  message(STATUS "fuzz: CharLS not found; fuzz_roundtrip checks JPEG-LS output without decoding it")
endif()

add_executable(pcwt_fuzz_make_seeds ${CMAKE_CURRENT_LIST_DIR}/make_seeds.c)
target_link_libraries(pcwt_fuzz_make_seeds PRIVATE pcwt) # the normal library (CRC written as usual)
target_compile_options(pcwt_fuzz_make_seeds PRIVATE ${PCWT_WARNINGS})

# --- ctest ---------------------------------------------------------------------------------------
set(_fuzz_dir "${CMAKE_CURRENT_BINARY_DIR}/fuzz")
file(MAKE_DIRECTORY "${_fuzz_dir}")
add_test(NAME fuzz_make_seeds
  COMMAND pcwt_fuzz_make_seeds "${_fuzz_dir}/seeds_decode" "${_fuzz_dir}/seeds_roundtrip"
          "${_fuzz_dir}/seeds_dicom")
set_tests_properties(fuzz_make_seeds PROPERTIES FIXTURES_SETUP pcwt_fuzz_seeds LABELS fuzz)

# Options common to both runs: -malloc_limit_mb reports any single allocation above 256 MB (far
# more than a 2^22-sample image needs), -timeout flags inputs slower than 10 s.
set(_fuzz_common -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 -print_final_stats=1)
add_test(NAME fuzz_make_j2k_seeds COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/make_j2k_seeds.sh "${_fuzz_dir}/seeds_j2k")
set_tests_properties(fuzz_make_j2k_seeds PROPERTIES FIXTURES_SETUP pcwt_fuzz_seeds LABELS fuzz)
foreach(_f decode roundtrip dicom j2k)
  if(_f STREQUAL "decode")
    set(_secs ${PCWT_FUZZ_SECONDS})
  elseif(_f STREQUAL "j2k")
    set(_secs ${PCWT_FUZZ_J2K_SECONDS})
  elseif(_f STREQUAL "dicom")
    set(_secs ${PCWT_FUZZ_DICOM_SECONDS})
  else()
    set(_secs ${PCWT_FUZZ_ROUNDTRIP_SECONDS})
  endif()
  math(EXPR _timeout "${_secs} * 2 + 120")
  add_test(NAME fuzz_${_f}_smoke
    COMMAND ${CMAKE_COMMAND}
      -DFUZZER=$<TARGET_FILE:fuzz_${_f}>
      -DSEEDS=${_fuzz_dir}/seeds_${_f}
      -DCORPUS=${_fuzz_dir}/corpus_${_f}
      -DARTIFACTS=${_fuzz_dir}/artifacts
      -DSECONDS=${_secs}
      "-DOPTIONS=${_fuzz_common}"
      -P ${CMAKE_CURRENT_LIST_DIR}/run_smoke.cmake)
  set_tests_properties(fuzz_${_f}_smoke PROPERTIES
    FIXTURES_REQUIRED pcwt_fuzz_seeds
    LABELS fuzz
    TIMEOUT ${_timeout}
    ENVIRONMENT "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1;ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:symbolize=1")
endforeach()

# fuzz_dicom_file: its own seeds (DICOM files from pcwt_fuzz_make_dicom_seeds). -malloc_limit_mb
# holds DCMTK too: an element larger than the input is refused by its parser before allocation.
if(TARGET fuzz_dicom_file)
  add_test(NAME fuzz_make_dicom_file_seeds
    COMMAND pcwt_fuzz_make_dicom_seeds "${_fuzz_dir}/seeds_dicom_file")
  set_tests_properties(fuzz_make_dicom_file_seeds PROPERTIES FIXTURES_SETUP pcwt_fuzz_dicom_file_seeds
    LABELS fuzz)
  # JPEG 2000 seeds: the corpus's small JPEG 2000 files (a J2K codestream, a JP2 file, colour)
  set(_j2k_seeds)
  foreach(_f OsirixFake16BitsStoredFakeSpacing.dcm ELSCINT1_JP2vsJ2K.dcm US1_J2KI.dcm)
    if(EXISTS "${PCWT_SHARED_DIR}/testdata-jpeg2000/${_f}")
      list(APPEND _j2k_seeds "${PCWT_SHARED_DIR}/testdata-jpeg2000/${_f}")
    endif()
  endforeach()
  if(_j2k_seeds AND TARGET dcmpcwt_j2kcore)
    add_test(NAME fuzz_copy_j2k_dicom_file_seeds
      COMMAND ${CMAKE_COMMAND} -E copy ${_j2k_seeds} "${_fuzz_dir}/seeds_dicom_file/")
    set_tests_properties(fuzz_copy_j2k_dicom_file_seeds PROPERTIES FIXTURES_SETUP pcwt_fuzz_dicom_file_seeds
      DEPENDS fuzz_make_dicom_file_seeds LABELS fuzz)
  endif()
  math(EXPR _timeout "${PCWT_FUZZ_DICOM_FILE_SECONDS} * 2 + 120")
  add_test(NAME fuzz_dicom_file_smoke
    COMMAND ${CMAKE_COMMAND}
      -DFUZZER=$<TARGET_FILE:fuzz_dicom_file>
      -DSEEDS=${_fuzz_dir}/seeds_dicom_file
      -DCORPUS=${_fuzz_dir}/corpus_dicom_file
      -DARTIFACTS=${_fuzz_dir}/artifacts
      -DSECONDS=${PCWT_FUZZ_DICOM_FILE_SECONDS}
      "-DOPTIONS=${_fuzz_common}"
      -P ${CMAKE_CURRENT_LIST_DIR}/run_smoke.cmake)
  set_tests_properties(fuzz_dicom_file_smoke PROPERTIES
    FIXTURES_REQUIRED pcwt_fuzz_dicom_file_seeds
    LABELS fuzz
    TIMEOUT ${_timeout}
    ENVIRONMENT "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1;ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:symbolize=1")
endif()
