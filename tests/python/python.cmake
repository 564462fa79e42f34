# The Python package (python/pcwt, label python), include()d from tests/CMakeLists.txt: pytest
# (Debian's python3-pytest) on Debian's /usr/bin/python3 with pydicom, numpy and cffi, the package
# taken from the source tree (PYTHONPATH) and libpcwt from this build (PCWT_LIBRARY):
#   python.binding   round trips, options, errors, buffer checks (test_binding.py); the cffi
#                    struct layouts against the C compiler's (test_layout.py, pcwt_py_layout)
#   python.damage    truncated and byte-flipped codestreams raise pcwt.Error (test_damage.py)
#   python.corpus    every image of shared/testdata by dcmcpcwt and by pcwt.pydicom.compress read
#                    by pydicom as the original; compress output decoded by dcmdpcwt (test_corpus.py)
#   python.pydicom3  the pydicom 3 decoder plugins (skipped with pydicom 2)
#   python.exports   the libpcwt.so.0 the package loads exports pcwt_* only (packaging's check)
# A missing module is a skip (exit 77, run.py says which). Skipped in sanitizer builds: Python is
# not instrumented, and an instrumented libpcwt loaded into it needs the sanitizer runtimes
# preloaded, which the interpreter and numpy then run under (slow, and leaks reported in them).
if(EXISTS /usr/bin/python3)
  set(_py_python /usr/bin/python3)
else()
  find_program(_py_python NAMES python3)
endif()
set(PCWT_PYTHON_TEST_PYTHON "${_py_python}" CACHE FILEPATH
    "Python 3 with pydicom, numpy, cffi and pytest for the Python tests (Debian's /usr/bin/python3)")

if(PCWT_SANITIZE OR NOT PCWT_PYTHON_LIBRARY)
  add_test(NAME python.skipped COMMAND ${CMAKE_COMMAND} -E echo
    "SKIP: the Python tests need an uninstrumented shared libpcwt (sanitizer build or no shared library)")
  set_tests_properties(python.skipped PROPERTIES LABELS python SKIP_REGULAR_EXPRESSION "SKIP:")
  return()
endif()

add_executable(pcwt_py_layout ${CMAKE_CURRENT_LIST_DIR}/layout.c)
target_link_libraries(pcwt_py_layout PRIVATE pcwt)
target_compile_options(pcwt_py_layout PRIVATE ${PCWT_WARNINGS})

set(_py_env
  "PCWT_LIBRARY=${PCWT_PYTHON_LIBRARY}"
  "PYTHONPATH=${PROJECT_SOURCE_DIR}/python"
  "PYTHONDONTWRITEBYTECODE=1"
  "PCWT_SHARED_DIR=${PCWT_SHARED_DIR}"
  "PCWT_TEST_LAYOUT=$<TARGET_FILE:pcwt_py_layout>")
if(TARGET dcmcpcwt)
  list(APPEND _py_env "PCWT_TEST_DCMCPCWT=$<TARGET_FILE:dcmcpcwt>" "PCWT_TEST_DCMDPCWT=$<TARGET_FILE:dcmdpcwt>")
endif()

function(pcwt_python_test name timeout)
  add_test(NAME python.${name}
    COMMAND ${PCWT_PYTHON_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/run.py ${ARGN}
    WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
  set_tests_properties(python.${name} PROPERTIES LABELS python TIMEOUT ${timeout}
    SKIP_RETURN_CODE 77 ENVIRONMENT "${_py_env}")
endfunction()

pcwt_python_test(binding 120 test_binding.py test_layout.py)
pcwt_python_test(damage 300 test_damage.py)
pcwt_python_test(corpus.dcmcpcwt 600 test_corpus.py -k test_dcmcpcwt)
pcwt_python_test(corpus.compress 600 test_corpus.py -k test_compress)
pcwt_python_test(pydicom3 120 test_pydicom3.py)
add_test(NAME python.exports COMMAND bash ${PROJECT_SOURCE_DIR}/tests/packaging/check_exports.sh ${PCWT_PYTHON_LIBRARY})
set_tests_properties(python.exports PROPERTIES LABELS python TIMEOUT 60)
