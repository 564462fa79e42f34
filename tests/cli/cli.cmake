# Tests of the pcwt command-line tool: POSIX sh scripts that run the real binary on inputs made
# by pcwt_testgen (a small C helper, so no Python is needed). Included from tests/CMakeLists.txt.
find_program(PCWT_SH sh REQUIRED)

add_executable(pcwt_testgen ${CMAKE_CURRENT_LIST_DIR}/pcwt_testgen.c)
target_compile_options(pcwt_testgen PRIVATE ${PCWT_WARNINGS})

set(_cli_dir ${CMAKE_CURRENT_LIST_DIR})
set(_cli_work ${CMAKE_CURRENT_BINARY_DIR}/cli_work)

# pcwt_cli_test(NAME SCRIPT ARGS...): run SCRIPT with the tool, the helper and a scratch folder.
function(pcwt_cli_test name script)
  add_test(NAME cli_${name}
    COMMAND ${PCWT_SH} ${_cli_dir}/${script} $<TARGET_FILE:pcwt_cli> $<TARGET_FILE:pcwt_testgen>
            ${_cli_work}/${name} ${ARGN})
  set_tests_properties(cli_${name} PROPERTIES LABELS cli TIMEOUT 120)
endfunction()

# Command line: --help, --version, usage errors.
pcwt_cli_test(misc misc.sh ${PROJECT_VERSION})

# Raw round trips, bit-exact: W H C BITS STORED SIGNED garbage|clean [encode options].
pcwt_cli_test(raw_u8         roundtrip_raw.sh 67 45 1  8  8 0 clean)
pcwt_cli_test(raw_u8_low     roundtrip_raw.sh 40 33 1  8  5 0 garbage)
pcwt_cli_test(raw_s8         roundtrip_raw.sh 31 29 1  8  8 1 clean)
pcwt_cli_test(raw_u16        roundtrip_raw.sh 50 41 1 16 16 0 clean)
pcwt_cli_test(raw_s16        roundtrip_raw.sh 53 37 1 16 16 1 clean)
pcwt_cli_test(raw_u12_garbage roundtrip_raw.sh 64 40 1 16 12 0 garbage)
pcwt_cli_test(raw_s12_garbage roundtrip_raw.sh 48 35 1 16 12 1 garbage)
pcwt_cli_test(raw_s12        roundtrip_raw.sh 48 35 1 16 12 1 clean)
pcwt_cli_test(raw_rgb_interleaved roundtrip_raw.sh 33 21 3  8  8 0 clean)
pcwt_cli_test(raw_rgb_planar  roundtrip_raw.sh 33 21 3  8  8 0 clean --planar)
pcwt_cli_test(raw_rgb16_planar roundtrip_raw.sh 17 26 3 16 10 0 garbage --planar)
pcwt_cli_test(raw_1x1        roundtrip_raw.sh  1  1 1  8  8 0 clean)
pcwt_cli_test(raw_1x1_16     roundtrip_raw.sh  1  1 1 16 16 1 clean)
pcwt_cli_test(raw_1xN        roundtrip_raw.sh  1 77 1 16 16 0 clean)
pcwt_cli_test(raw_Nx1        roundtrip_raw.sh 77  1 1  8  8 0 clean)
pcwt_cli_test(raw_2x2        roundtrip_raw.sh  2  2 3  8  8 0 clean)
pcwt_cli_test(raw_odd        roundtrip_raw.sh 37 23 1 16 16 1 clean)
pcwt_cli_test(raw_levels0    roundtrip_raw.sh 37 23 1  8  8 0 clean --levels 0)
# The entropy profile (docs/FORMAT.md Sec. 5).
pcwt_cli_test(raw_entropy_s16 roundtrip_raw.sh 53 37 1 16 16 1 clean --profile entropy)
pcwt_cli_test(raw_entropy_u12_garbage roundtrip_raw.sh 64 40 1 16 12 0 garbage --profile entropy --group 5x3)
pcwt_cli_test(raw_entropy_rgb_planar roundtrip_raw.sh 33 21 3  8  8 0 clean --planar --profile entropy --levels 2)
# The colour transform (docs/FORMAT.md Sec. 2.1): on request in the baseline profile, off on request,
# on by default with the entropy profile (also the plain RGB tests above), never on one component.
pcwt_cli_test(raw_rct_baseline roundtrip_raw.sh 31 19 3 16 12 0 garbage --colour-transform rct)
pcwt_cli_test(raw_rct_off_entropy roundtrip_raw.sh 31 19 3 8 8 0 clean --profile entropy --colour-transform none)
pcwt_cli_test(raw_rct_auto_entropy roundtrip_raw.sh 29 17 3 16 16 1 clean --profile entropy --colour-transform auto)
pcwt_cli_test(raw_rct_grey       roundtrip_raw.sh 29 17 1 16 12 0 garbage --profile entropy --colour-transform rct)
# Modelled low bits (docs/FORMAT.md Sec. 5.3): forced on, forced off.
pcwt_cli_test(raw_low_bits_on  roundtrip_raw.sh 45 39 3 16 12 0 garbage --profile entropy --low-bits on)
pcwt_cli_test(raw_low_bits_off roundtrip_raw.sh 45 39 1 16 16 1 clean --profile entropy --low-bits off)
# The compact profile's value maps (docs/FORMAT.md Sec. 5.5): forced on (with a high-bit plane),
# off, and as the encoder decides on RGB.
pcwt_cli_test(raw_value_map_on  roundtrip_raw.sh 45 39 1 16 12 0 garbage --profile compact --value-map on)
pcwt_cli_test(raw_value_map_off roundtrip_raw.sh 45 39 1 16 16 1 clean --profile compact --value-map off)
pcwt_cli_test(raw_offset_on  roundtrip_raw.sh 45 39 1 16 12 1 garbage --offset on)
pcwt_cli_test(raw_offset_off roundtrip_raw.sh 45 39 1 16 12 0 clean --offset off)
pcwt_cli_test(raw_compact_rgb   roundtrip_raw.sh 33 21 3  8  8 0 clean --planar --profile compact --levels 2)
# The lifting order (docs/FORMAT.md Sec. 3.2): rows first in the entropy profile, columns first in
# the baseline (the other way round from their defaults).
pcwt_cli_test(raw_lifting_rows_entropy roundtrip_raw.sh 45 39 1 16 12 0 garbage --profile entropy --lifting rows)
pcwt_cli_test(raw_lifting_cols_baseline roundtrip_raw.sh 37 41 3 8 8 0 clean --profile baseline --lifting columns)
pcwt_cli_test(raw_levels3    roundtrip_raw.sh 64 48 1 16 12 0 clean --levels 3)
pcwt_cli_test(raw_group4x8   roundtrip_raw.sh 45 39 1  8  8 0 clean --group 4x8)
pcwt_cli_test(raw_group1     roundtrip_raw.sh 20 12 3  8  8 0 clean --group 1x1 --levels 1 --planar)

# PGM/PPM round trips: W H C MAXVAL.
pcwt_cli_test(pgm8   roundtrip_pnm.sh 41 27 1 255)
pcwt_cli_test(pgm16  roundtrip_pnm.sh 41 27 1 65535)
pcwt_cli_test(pgm12  roundtrip_pnm.sh 29 31 1 4095)
pcwt_cli_test(ppm8   roundtrip_pnm.sh 23 19 3 255)
pcwt_cli_test(ppm16  roundtrip_pnm.sh 23 19 3 65535)

# info.
pcwt_cli_test(info info.sh)

# Failures: exit code, one-line message, no output and no temporary file left.
foreach(scenario raw_size missing_input corrupt corrupt_header truncated not_pcwt keep_existing
                 bad_output write_fails pnm_hostile pnm_options pnm_refused)
  pcwt_cli_test(err_${scenario} errors.sh ${scenario})
endforeach()

# Memory budget and header-first reads (issue 37): bombs refused under ulimit -v, --max-memory,
# inputs that are no codestream refused from their first bytes, nothing read past the declared end.
foreach(scenario bomb max_memory zeros stdin_tail)
  pcwt_cli_test(limits_${scenario} limits.sh ${scenario})
  # AddressSanitizer reserves terabytes of address space for its shadow memory, so it cannot start
  # under ulimit -v: the script then sets explicit budgets instead of address-space limits
  if(PCWT_SANITIZE MATCHES "address")
    set_tests_properties(cli_limits_${scenario} PROPERTIES ENVIRONMENT PCWT_TEST_ASAN=1)
  endif()
endforeach()
