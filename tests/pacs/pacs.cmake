# Tests of PACS ingestion (archive/apps/storescp, archive/apps/storescu): pcwt-storescp and
# pcwt-storescu as real processes on loopback (127.0.0.1, free ports picked at run time) with
# stock DCMTK storescu/storescp (dcmtk package); they skip when the corpus or the stock tools are
# absent. include()d from tests/CMakeLists.txt when PCWT_WITH_DCMTK is on. Test names start with
# "pacs." (ctest -R pacs); label pacs.

find_package(Threads REQUIRED)
find_package(DCMTK CONFIG REQUIRED) # imported targets are visible per directory

add_executable(test_pacs ${CMAKE_CURRENT_LIST_DIR}/test_pacs.cpp ${CMAKE_CURRENT_LIST_DIR}/test_pacs_service.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_pacs_verify.cpp ${CMAKE_CURRENT_LIST_DIR}/pacs_util.h)
# (dcmnet: test_pacs_service.cpp holds an association open as a stalled sender)
target_link_libraries(test_pacs PRIVATE dcmpcwt DCMTK::dcmnet DCMTK::dcmjpeg DCMTK::dcmjpls DCMTK::dcmdata
  GTest::gtest_main Threads::Threads)
# dicom_test_util.h (processes, temporary folders, decoding, attribute comparison)
target_include_directories(test_pacs PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../dicom)
target_compile_options(test_pacs PRIVATE ${PCWT_WARNINGS})
target_compile_definitions(test_pacs PRIVATE
  PCWT_SHARED_DIR="${PCWT_SHARED_DIR}"
  STORESCP_PATH="$<TARGET_FILE:pcwt-storescp>"
  STORESCU_PATH="$<TARGET_FILE:pcwt-storescu>"
  DCMCPCWT_PATH="$<TARGET_FILE:dcmcpcwt>"
  PRELOAD_PATH="" PRELOAD_PREFIX="") # dicom_test_util.h's preloadEnv() is not used here
add_dependencies(test_pacs pcwt-storescp pcwt-storescu dcmcpcwt)
gtest_discover_tests(test_pacs TEST_PREFIX "pacs." TEST_FILTER "-PacsGpu.*" DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS pacs TIMEOUT 120 RUN_SERIAL TRUE)
# the GPU's verification by default (skips without a device)
gtest_discover_tests(test_pacs TEST_PREFIX "pacs." TEST_FILTER "PacsGpu.*" DISCOVERY_TIMEOUT 60
  PROPERTIES LABELS gpu TIMEOUT 120 RUN_SERIAL TRUE)

# pcwt-storescp's failure statuses from the reasons the engine gives (test_pacs_status.cpp): the
# mapping (archive/lib/ingest.cc) and the engine (pcwt_archive) linked in, no processes, no corpus
add_executable(test_pacs_status ${CMAKE_CURRENT_LIST_DIR}/test_pacs_status.cpp)
target_link_libraries(test_pacs_status PRIVATE pcwt_archive dcmpcwt DCMTK::dcmnet DCMTK::dcmjpeg DCMTK::dcmjpls
  DCMTK::dcmdata GTest::gtest_main Threads::Threads)
target_compile_options(test_pacs_status PRIVATE ${PCWT_WARNINGS})
gtest_discover_tests(test_pacs_status TEST_PREFIX "pacs." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS pacs TIMEOUT 120)
