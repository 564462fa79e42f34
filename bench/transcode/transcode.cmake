# bench_transcode (bench_transcode.cpp): JPEG 2000 recompressed on one GPU through host memory
# against pcwt_transcode_batch, in one run (issue 34). CUDA builds only.
if(PCWT_WITH_CUDA)
  add_executable(bench_transcode ${CMAKE_CURRENT_LIST_DIR}/bench_transcode.cpp)
  target_link_libraries(bench_transcode PRIVATE pcwt)
  target_compile_options(bench_transcode PRIVATE ${PCWT_WARNINGS})
endif()
