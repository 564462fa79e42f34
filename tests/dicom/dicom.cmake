# Tests of the DICOM glue (dicom/) and the DCMTK plugin (plugin/), with real DCMTK and real files.
# include()d from tests/CMakeLists.txt when PCWT_WITH_DCMTK is on. Every test name starts with
# "dicom." (ctest -R dicom):
#   dicom.Dicom*         test_dicom_c: pcwt_dicom.h (UID, validation, layout, offset table)
#   dicom.Plugin*        test_dicom_plugin: codecs (test_plugin.cpp), DPCWTFileFormat, frame-wise
#                        decoding, threads (test_plugin_files.cpp)
#   dicom.DicomTools.*   test_dicom_tools: dcmcpcwt/dcmdpcwt conventions, --profile (on synthetic
#                        images and the sample CT study of samples/); DicomHostile.*: hostile
#                        inputs (error, non-zero exit, nothing at the output path); DicomInput.*
#                        (test_tools_input.cpp): Pixel Data length rule, invalid modules,
#                        truncated PCWT files, BitsStored 1 to JPEG-LS
#   dicom.Corpus/*       test_dicom_corpus: every image of shared/testdata (skips when absent)
# The tools tests run stock dcmdjpls/dcmconv/dcmdump (dcmtk), gdcmconv (libgdcm-tools) and
# Debian's /usr/bin/python3 with pydicom (python3-pydicom).

if(EXISTS /usr/bin/python3)
  set(_pcwt_dicom_python /usr/bin/python3)
else()
  find_program(_pcwt_dicom_python NAMES python3)
endif()
set(PCWT_DICOM_TEST_PYTHON "${_pcwt_dicom_python}" CACHE FILEPATH
    "Python 3 with pydicom for the DICOM tests (Debian's /usr/bin/python3)")

find_package(Threads REQUIRED)
find_package(DCMTK CONFIG REQUIRED) # imported targets are visible per directory

# With AddressSanitizer the preload library needs the ASan runtime loaded first in the stock
# (uninstrumented) DCMTK tools: the tests then put it ahead of the library in LD_PRELOAD.
set(_pcwt_dicom_preload_prefix "")
if(PCWT_SANITIZE MATCHES "address")
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE _pcwt_asan_rt OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(EXISTS "${_pcwt_asan_rt}")
    set(_pcwt_dicom_preload_prefix "${_pcwt_asan_rt}:")
  endif()
endif()

# pcwt_dicom_gtest(NAME SOURCES...): a GoogleTest binary whose tests ctest names "dicom.<test>".
function(pcwt_dicom_gtest name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${CMAKE_CURRENT_LIST_DIR})
  target_compile_options(${name} PRIVATE ${PCWT_WARNINGS})
  target_compile_definitions(${name} PRIVATE
    PCWT_SHARED_DIR="${PCWT_SHARED_DIR}"
    PCWT_SAMPLES_DIR="${PROJECT_SOURCE_DIR}/samples"
    DCMCPCWT_PATH="$<TARGET_FILE:dcmcpcwt>"
    DCMDPCWT_PATH="$<TARGET_FILE:dcmdpcwt>"
    PRELOAD_PATH="$<TARGET_FILE:dcmpcwt_preload>"
    PRELOAD_PREFIX="${_pcwt_dicom_preload_prefix}"
    PYTHON_PATH="${PCWT_DICOM_TEST_PYTHON}"
    PYDICOM_CHECK_PATH="${CMAKE_CURRENT_LIST_DIR}/pydicom_check.py")
  gtest_discover_tests(${name} TEST_PREFIX "dicom." DISCOVERY_TIMEOUT 60 NO_PRETTY_VALUES
    PROPERTIES LABELS dicom TIMEOUT 600)
endfunction()

pcwt_dicom_gtest(test_dicom_c ${CMAKE_CURRENT_LIST_DIR}/test_pcwt_dicom.cpp)
target_link_libraries(test_dicom_c PRIVATE pcwt_dicom)

pcwt_dicom_gtest(test_dicom_plugin ${CMAKE_CURRENT_LIST_DIR}/test_plugin.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_plugin_files.cpp ${CMAKE_CURRENT_LIST_DIR}/plugin_test_util.h)
target_link_libraries(test_dicom_plugin PRIVATE dcmpcwt DCMTK::dcmjpeg DCMTK::dcmjpls DCMTK::dcmdata Threads::Threads)

pcwt_dicom_gtest(test_dicom_tools ${CMAKE_CURRENT_LIST_DIR}/test_tools.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_tools_input.cpp)
target_link_libraries(test_dicom_tools PRIVATE dcmpcwt DCMTK::dcmjpeg DCMTK::dcmjpls DCMTK::dcmdata)
add_dependencies(test_dicom_tools dcmcpcwt dcmdpcwt dcmpcwt_preload)

pcwt_dicom_gtest(test_dicom_corpus ${CMAKE_CURRENT_LIST_DIR}/test_corpus.cpp)
target_link_libraries(test_dicom_corpus PRIVATE dcmpcwt DCMTK::dcmjpeg DCMTK::dcmjpls DCMTK::dcmdata)
add_dependencies(test_dicom_corpus dcmcpcwt dcmdpcwt dcmpcwt_preload)

# The C++ example of samples/dicom on a corpus image (when the corpus is there at configure time).
set(_pcwt_dicom_example_input "${PCWT_SHARED_DIR}/testdata/dcm_qa_12bit/12bitSigned_0x0F0F.dcm")
if(EXISTS "${_pcwt_dicom_example_input}")
  add_test(NAME dicom.sample_compress_example
    COMMAND dcmpcwt_compress_example "${_pcwt_dicom_example_input}" "${CMAKE_CURRENT_BINARY_DIR}/compress_example.dcm")
  set_tests_properties(dicom.sample_compress_example PROPERTIES LABELS dicom
    PASS_REGULAR_EXPRESSION "lossless round trip ok")
endif()
