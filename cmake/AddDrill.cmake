# add_drill(NUMBER SLUG MINE f SOLUTION f TEST f CAPI f SHAPES "MxN,..." GPU_SHAPES "MxN,..."
#           RTOL r ATOL a SUM_FACTOR k DOT_FACTOR d)   (the manifest's tolerance; the harness compares with it)
#
# For each file under test ("subject": mine/, solutions/, or DRILLS_SUBJECT) it builds
#   <slug>_test-<subject>   the GoogleTest binary (tests/<slug>_test.cu + the subject)
#   <slug>_capi-<subject>   the C ABI library pytest and the timing load with ctypes
# and, once per build, whatever the subject:
#   <slug>_checker          the same tests compiled with DRILLS_CHECKER and linked with no-op stubs
#                           of the contract (tests/support/make_stubs.py) instead of any learner's
#                           file: it confirms the subject's results from the bytes its kernels
#                           produced (tests/support/drills_record.h, drills/pipeline/gtestrun.py)
# The test harness is compiled once per build and shared by every subject.

function(_drills_backend_target target)
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo>)
  if(DRILLS_BACKEND STREQUAL "sim")
    target_compile_definitions(${target} PRIVATE DRILLS_BACKEND_SIM=1)
    drills_sim_target(${target})
  else()
    # One cudart in the process: pytest may load several chapters' libraries side by side.
    set_target_properties(${target} PROPERTIES CUDA_RUNTIME_LIBRARY Shared)
  endif()
endfunction()

function(add_drill number slug)
  cmake_parse_arguments(D "" "MINE;SOLUTION;TEST;CAPI;SHAPES;GPU_SHAPES;RTOL;ATOL;SUM_FACTOR;DOT_FACTOR" "" ${ARGN})

  if(DRILLS_SUBJECT)
    if(NOT DRILLS_PROBLEM STREQUAL "${number}")
      return()
    endif()
    set(subjects subject)
    set(subject_file "${DRILLS_SUBJECT}")
  else()
    set(subjects mine solutions)
    set(mine_file "${CMAKE_SOURCE_DIR}/${D_MINE}")
    set(solutions_file "${CMAKE_SOURCE_DIR}/${D_SOLUTION}")
  endif()

  set(harness ${slug}_harness)
  set(checker_harness ${slug}_checker_harness)
  add_library(${harness} OBJECT "${CMAKE_SOURCE_DIR}/${D_TEST}")
  add_library(${checker_harness} OBJECT "${CMAKE_SOURCE_DIR}/${D_TEST}")
  target_compile_definitions(${checker_harness} PRIVATE DRILLS_CHECKER=1)
  foreach(h IN ITEMS ${harness} ${checker_harness})
    target_include_directories(${h} PRIVATE "${CMAKE_SOURCE_DIR}/tests")
    target_compile_definitions(${h} PRIVATE
      DRILLS_PUBLIC_SHAPES="${D_SHAPES}" DRILLS_GPU_SHAPES="${D_GPU_SHAPES}"
      DRILLS_RTOL=${D_RTOL} DRILLS_ATOL=${D_ATOL} DRILLS_SUM_FACTOR=${D_SUM_FACTOR}
      DRILLS_DOT_FACTOR=${D_DOT_FACTOR})
    target_link_libraries(${h} PRIVATE GTest::gtest)
    _drills_backend_target(${h})
  endforeach()

  # The checker links the contract's stubs, generated from its header, and no learner's file.
  # It runs the cases' host side only (inputs, host references, comparisons) and launches no
  # kernel, so on either backend it links a runtime of its own that needs no GPU and opens no
  # CUDA context (tests/support/drills_checker_cudart.cpp): with the GPU in exclusive-process
  # mode the subject's context is the only one. Its tests are compiled for the subject's backend
  # (the same cases: the GPU-only shapes on a GPU build).
  set(contract "${CMAKE_SOURCE_DIR}/tests/${slug}.h")
  set(stubs "${CMAKE_CURRENT_BINARY_DIR}/${slug}_stubs.cu")
  add_custom_command(OUTPUT "${stubs}"
    COMMAND "${Python3_EXECUTABLE}" "${CMAKE_SOURCE_DIR}/tests/support/make_stubs.py" "${contract}" "${stubs}"
    DEPENDS "${contract}" "${CMAKE_SOURCE_DIR}/tests/support/make_stubs.py" VERBATIM)
  add_executable(${slug}_checker $<TARGET_OBJECTS:${checker_harness}> "${stubs}"
                 "${CMAKE_SOURCE_DIR}/tests/support/drills_checker_main.cu"
                 "${CMAKE_SOURCE_DIR}/tests/support/drills_checker_cudart.cpp"
                 "${CMAKE_SOURCE_DIR}/sim/runtime/errors.cpp")
  target_include_directories(${slug}_checker PRIVATE "${CMAKE_SOURCE_DIR}/tests/support"
                             ${CMAKE_CUDA_TOOLKIT_INCLUDE_DIRECTORIES})
  target_link_libraries(${slug}_checker PRIVATE GTest::gtest)
  set_target_properties(${slug}_checker PROPERTIES CUDA_RUNTIME_LIBRARY None)
  if(DRILLS_BACKEND STREQUAL "sim")
    set_target_properties(${slug}_checker PROPERTIES CUDA_ARCHITECTURES 80-virtual)
  endif()

  set(capi ${slug}_capi_table)
  add_library(${capi} OBJECT "${CMAKE_SOURCE_DIR}/${D_CAPI}" "${CMAKE_SOURCE_DIR}/tests/support/drills_capi.cu")
  target_include_directories(${capi} PRIVATE "${CMAKE_SOURCE_DIR}/tests" "${CMAKE_SOURCE_DIR}/tests/support")
  _drills_backend_target(${capi})

  foreach(subject IN LISTS subjects)
    set(code ${slug}_code-${subject})
    add_library(${code} OBJECT "${${subject}_file}")
    _drills_backend_target(${code})

    add_executable(${slug}_test-${subject} $<TARGET_OBJECTS:${harness}> $<TARGET_OBJECTS:${code}>)
    target_link_libraries(${slug}_test-${subject} PRIVATE GTest::gtest_main GTest::gtest)
    _drills_backend_target(${slug}_test-${subject})

    add_library(${slug}_capi-${subject} SHARED $<TARGET_OBJECTS:${capi}> $<TARGET_OBJECTS:${code}>)
    _drills_backend_target(${slug}_capi-${subject})
  endforeach()

  if(NOT DRILLS_SUBJECT)
    add_test(NAME ${slug}-solutions COMMAND ${slug}_test-solutions)
  endif()
endfunction()
