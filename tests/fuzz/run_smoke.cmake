# Runs one libFuzzer binary for a bounded time over a fresh copy of its seed corpus (ctest step,
# see fuzz.cmake). Arguments: FUZZER SEEDS CORPUS ARTIFACTS SECONDS OPTIONS (a ;-list).
foreach(_v FUZZER SEEDS CORPUS ARTIFACTS SECONDS)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "run_smoke.cmake: ${_v} not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${CORPUS}")
file(MAKE_DIRECTORY "${CORPUS}" "${ARTIFACTS}")
file(GLOB _seeds "${SEEDS}/*")
if(NOT _seeds)
  message(FATAL_ERROR "run_smoke.cmake: no seeds in ${SEEDS} (did fuzz_make_seeds run?)")
endif()
file(COPY ${_seeds} DESTINATION "${CORPUS}")
list(LENGTH _seeds _n)
message(STATUS "fuzz: ${FUZZER} for ${SECONDS} s, ${_n} seeds, artifacts in ${ARTIFACTS}")
execute_process(
  COMMAND "${FUZZER}" -max_total_time=${SECONDS} ${OPTIONS} "-artifact_prefix=${ARTIFACTS}/"
          "${CORPUS}"
  RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  file(GLOB _art "${ARTIFACTS}/*")
  message(FATAL_ERROR "fuzz: ${FUZZER} failed (exit ${_rc}). Reproducers: ${_art}\n"
                      "Re-run one with: ${FUZZER} <file>")
endif()
