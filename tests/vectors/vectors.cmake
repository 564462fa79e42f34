# Reference vectors generated once from shared/reference/pcwt_ref.py by gen_vectors.py (see
# README.md). The test reads every *.vec file in this directory at run time; no Python needed.
file(GLOB PCWT_VECTOR_FILES CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/*.vec")
pcwt_gtest(test_vectors ${CMAKE_CURRENT_LIST_DIR}/test_vectors.cpp)
target_compile_definitions(test_vectors PRIVATE PCWT_VECTOR_DIR="${CMAKE_CURRENT_LIST_DIR}")
target_compile_options(test_vectors PRIVATE ${PCWT_WARNINGS})
# Rebuild (and so rediscover the per-vector tests) when a vector is added, removed or changed.
set_property(SOURCE ${CMAKE_CURRENT_LIST_DIR}/test_vectors.cpp APPEND PROPERTY
  OBJECT_DEPENDS ${PCWT_VECTOR_FILES})
