# The GPU benchmark (bench_gpu.cpp): built with the CUDA backend and CharLS.
if(PCWT_WITH_CUDA)
  add_executable(pcwt_bench_gpu ${CMAKE_CURRENT_LIST_DIR}/bench_gpu.cpp)
  target_link_libraries(pcwt_bench_gpu PRIVATE pcwt ${_pcwt_bench_charls} Threads::Threads)
  target_include_directories(pcwt_bench_gpu PRIVATE ${PROJECT_SOURCE_DIR}/codec/src)
endif()
