# Finds the libraries pcwt-bench needs and sets PCWT_BENCH_DEPS_FOUND (and, when something is
# missing, PCWT_BENCH_DEPS_MISSING: what, with the Debian package). Included from
# bench/pcwt_bench/CMakeLists.txt (to build the tool) and tests/bench/bench.cmake (to decide whether
# its tests exist); finding twice is cheap (results are cached).
#
# Targets it makes available: DCMTK::dcmdata, DCMTK::dcmjpeg (DCMTK's CMake config), charls,
# pcwt_bench_openjpeg, pcwt_bench_openjph, pcwt_bench_turbojpeg, and pcwt_bench_jxl when libjxl is found
# (optional).
set(PCWT_BENCH_DEPS_MISSING "")

# target: an imported interface library of the header folder include and the library file library
function(pcwt_bench_import_library target include library)
  add_library(${target} INTERFACE IMPORTED)
  target_include_directories(${target} SYSTEM INTERFACE "${include}")
  target_link_libraries(${target} INTERFACE "${library}")
endfunction()

find_package(DCMTK CONFIG QUIET)
if(NOT DCMTK_FOUND OR NOT TARGET DCMTK::dcmdata OR NOT TARGET DCMTK::dcmjpeg)
  list(APPEND PCWT_BENCH_DEPS_MISSING "DCMTK (libdcmtk-dev)")
endif()

find_package(charls 2.4 CONFIG QUIET)
if(NOT TARGET charls)
  list(APPEND PCWT_BENCH_DEPS_MISSING "CharLS >= 2.4 (libcharls-dev)")
endif()

find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PCWT_BENCH_OPJ QUIET libopenjp2>=2.5)
  pkg_check_modules(PCWT_BENCH_TJ QUIET libturbojpeg)
endif()

# OpenJPEG 2.5 (JPEG 2000).
if(NOT TARGET pcwt_bench_openjpeg)
  find_path(PCWT_BENCH_OPENJPEG_INCLUDE openjpeg.h HINTS ${PCWT_BENCH_OPJ_INCLUDE_DIRS} PATH_SUFFIXES openjpeg-2.5)
  find_library(PCWT_BENCH_OPENJPEG_LIBRARY openjp2 HINTS ${PCWT_BENCH_OPJ_LIBRARY_DIRS})
  if(PCWT_BENCH_OPENJPEG_INCLUDE AND PCWT_BENCH_OPENJPEG_LIBRARY AND EXISTS "${PCWT_BENCH_OPENJPEG_INCLUDE}/opj_config.h")
    file(STRINGS "${PCWT_BENCH_OPENJPEG_INCLUDE}/opj_config.h" _opj_minor REGEX "define OPJ_VERSION_MINOR")
    string(REGEX MATCH "[0-9]+" _opj_minor "${_opj_minor}")
    if(_opj_minor GREATER_EQUAL 5)
      pcwt_bench_import_library(pcwt_bench_openjpeg "${PCWT_BENCH_OPENJPEG_INCLUDE}" "${PCWT_BENCH_OPENJPEG_LIBRARY}")
    endif()
  endif()
endif()
if(NOT TARGET pcwt_bench_openjpeg)
  list(APPEND PCWT_BENCH_DEPS_MISSING "OpenJPEG >= 2.5 (libopenjp2-7-dev)")
endif()

# OpenJPH (HTJ2K). Debian's openjph.pc is empty, so look for the header and library directly.
if(NOT TARGET pcwt_bench_openjph)
  find_path(PCWT_BENCH_OPENJPH_INCLUDE openjph/ojph_codestream.h)
  find_library(PCWT_BENCH_OPENJPH_LIBRARY openjph)
  if(PCWT_BENCH_OPENJPH_INCLUDE AND PCWT_BENCH_OPENJPH_LIBRARY)
    pcwt_bench_import_library(pcwt_bench_openjph "${PCWT_BENCH_OPENJPH_INCLUDE}" "${PCWT_BENCH_OPENJPH_LIBRARY}")
  endif()
endif()
if(NOT TARGET pcwt_bench_openjph)
  list(APPEND PCWT_BENCH_DEPS_MISSING "OpenJPH (libopenjph-dev)")
endif()

# libjpeg-turbo's TurboJPEG API (thumbnails).
if(NOT TARGET pcwt_bench_turbojpeg)
  find_path(PCWT_BENCH_TURBOJPEG_INCLUDE turbojpeg.h HINTS ${PCWT_BENCH_TJ_INCLUDE_DIRS})
  find_library(PCWT_BENCH_TURBOJPEG_LIBRARY turbojpeg HINTS ${PCWT_BENCH_TJ_LIBRARY_DIRS})
  if(PCWT_BENCH_TURBOJPEG_INCLUDE AND PCWT_BENCH_TURBOJPEG_LIBRARY)
    pcwt_bench_import_library(pcwt_bench_turbojpeg "${PCWT_BENCH_TURBOJPEG_INCLUDE}" "${PCWT_BENCH_TURBOJPEG_LIBRARY}")
  endif()
endif()
if(NOT TARGET pcwt_bench_turbojpeg)
  list(APPEND PCWT_BENCH_DEPS_MISSING "TurboJPEG (libturbojpeg0-dev)")
endif()

# libjxl 0.7 (JPEG XL peer): optional; without it the jpegxl codec is reported as not built.
if(NOT TARGET pcwt_bench_jxl AND PkgConfig_FOUND)
  pkg_check_modules(PCWT_BENCH_JXL QUIET IMPORTED_TARGET libjxl>=0.7)
  if(PCWT_BENCH_JXL_FOUND)
    add_library(pcwt_bench_jxl INTERFACE IMPORTED)
    target_link_libraries(pcwt_bench_jxl INTERFACE PkgConfig::PCWT_BENCH_JXL)
  endif()
endif()

# JPEG 2000 decoding is the DICOM plugin's OpenJPEG core (plugin/CMakeLists.txt makes it).
if(NOT TARGET dcmpcwt_j2kcore)
  list(APPEND PCWT_BENCH_DEPS_MISSING "the DCMTK plugin's JPEG 2000 core (PCWT_WITH_DCMTK, OpenJPEG >= 2.5)")
endif()

if(PCWT_BENCH_DEPS_MISSING)
  set(PCWT_BENCH_DEPS_FOUND OFF)
else()
  set(PCWT_BENCH_DEPS_FOUND ON)
endif()
