# Per-stage tests of the CPU codec (they include codec/src internals) and API tests.
pcwt_gtest(test_unit
  ${CMAKE_CURRENT_LIST_DIR}/test_dwt53.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_mqd.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_element.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_group.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_container.cpp
  ${CMAKE_CURRENT_LIST_DIR}/test_roundtrip.cpp)
