# The source layout (check_layout.sh): codec/ never includes a cuda/ header, and no source file is
# over 800 lines.
add_test(NAME layout_codec_includes_no_cuda
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_layout.sh ${PROJECT_SOURCE_DIR} includes)
add_test(NAME layout_file_lengths
  COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/check_layout.sh ${PROJECT_SOURCE_DIR} lengths)
