# Packaging tests (label packaging), include()d from tests/CMakeLists.txt:
#   packaging.deb      packaging/build-deb.sh builds the Debian package in a tree of its own
#                      (with CUDA when this tree has it), dpkg-deb checks its metadata and
#                      contents, dpkg -x extracts it into a clean prefix, and the installed pcwt,
#                      dcmcpcwt, dcmdpcwt, the preload library (with stock dcmdjpls) and a
#                      consumer project (find_package(dcmpcwt), pkg-config) run on a slice of
#                      samples/ct_study (check_deb.sh).
#   packaging.install  cmake --install of this tree into a temporary prefix, and the consumer
#                      project built and run against it (check_install.sh): the static libpcwt of
#                      a default build, with the CUDA runtime when this tree has CUDA.
#   packaging.exports  nm -D: a shared libpcwt defines pcwt_* and nothing else (check_exports.sh):
#                      libpcwt.so itself in a shared build; in a static build (the default)
#                      pcwt_exports_check, libpcwt.a linked whole into a shared object with
#                      libpcwt's version script, as libpcwt.so is linked. (packaging.deb checks
#                      the packaged libpcwt.so.0 the same way.)
# The others need the DCMTK plugin, dpkg-dev, file and dcmtk (packaging/install-deps.sh test);
# skipped in sanitizer builds (the installed files would need the sanitizer runtimes).
find_program(PCWT_BASH bash REQUIRED)
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT PCWT_SANITIZE)
  get_target_property(_pkg_pcwt_type pcwt TYPE)
  if(_pkg_pcwt_type STREQUAL "SHARED_LIBRARY")
    set(_pkg_exports_lib $<TARGET_FILE:pcwt>)
  else()
    add_library(pcwt_exports_check SHARED ${CMAKE_CURRENT_LIST_DIR}/exports/exports_check.c)
    target_link_libraries(pcwt_exports_check PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,pcwt>")
    target_link_options(pcwt_exports_check PRIVATE "LINKER:--version-script=${PCWT_EXPORT_MAP}")
    set(_pkg_exports_lib $<TARGET_FILE:pcwt_exports_check>)
  endif()
  add_test(NAME packaging.exports COMMAND ${PCWT_BASH} ${CMAKE_CURRENT_LIST_DIR}/check_exports.sh ${_pkg_exports_lib})
  set_tests_properties(packaging.exports PROPERTIES LABELS "packaging;unit" TIMEOUT 60)
endif()

if(NOT PCWT_WITH_DCMTK OR PCWT_SANITIZE)
  return()
endif()

set(_pkg_dir ${CMAKE_CURRENT_LIST_DIR})
set(_pkg_work ${CMAKE_CURRENT_BINARY_DIR}/packaging_work)
set(_pkg_sample ${PROJECT_SOURCE_DIR}/samples/ct_study/01.dcm)

# The package is built as released: with the CUDA backend when this tree has it (nvcc adds about
# a minute on 2 cores); -DPCWT_PACKAGING_TEST_CUDA=OFF builds it CPU-only.
set(PCWT_PACKAGING_TEST_CUDA ${PCWT_WITH_CUDA} CACHE BOOL "packaging.deb: build the package with CUDA")
set(_pkg_deb_args -DPCWT_WITH_CUDA=${PCWT_PACKAGING_TEST_CUDA})
if(PCWT_PACKAGING_TEST_CUDA AND PCWT_WITH_CUDA)
  string(REPLACE ";" "$<SEMICOLON>" _pkg_cuda_archs "${CMAKE_CUDA_ARCHITECTURES}")
  list(APPEND _pkg_deb_args "-DCMAKE_CUDA_COMPILER=${CMAKE_CUDA_COMPILER}"
                            "-DCMAKE_CUDA_ARCHITECTURES=${_pkg_cuda_archs}")
endif()
add_test(NAME packaging.deb
  COMMAND ${PCWT_BASH} ${_pkg_dir}/check_deb.sh ${PROJECT_SOURCE_DIR} ${_pkg_work}/deb ${PROJECT_VERSION}
          ${_pkg_sample} ${_pkg_deb_args})
set_tests_properties(packaging.deb PROPERTIES LABELS packaging TIMEOUT 600
  ENVIRONMENT "CMAKE_BUILD_PARALLEL_LEVEL=2")

set(_pkg_consumer_args "")
if(PCWT_WITH_CUDA)
  get_filename_component(_pkg_cuda_root "${CUDAToolkit_BIN_DIR}" DIRECTORY)
  list(APPEND _pkg_consumer_args "-DCUDAToolkit_ROOT=${_pkg_cuda_root}")
endif()
add_test(NAME packaging.install
  COMMAND ${PCWT_BASH} ${_pkg_dir}/check_install.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR}
          ${_pkg_work}/install ${CMAKE_INSTALL_LIBDIR} ${_pkg_sample} ${_pkg_consumer_args})
set_tests_properties(packaging.install PROPERTIES LABELS packaging TIMEOUT 300)
