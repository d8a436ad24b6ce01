# Generates build_info.hpp (our version, the build type, the libllama pin: stable between commits) and
# build_commit.cpp (the git commit, which changes with each one and is compiled once, into util).
execute_process(COMMAND git -C "${CMAKE_SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE ECOCOMPUTE_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE git_rc)
if(NOT git_rc EQUAL 0 OR ECOCOMPUTE_GIT_COMMIT STREQUAL "")
  set(ECOCOMPUTE_GIT_COMMIT "unknown")
endif()
execute_process(COMMAND git -C "${CMAKE_SOURCE_DIR}" status --porcelain --untracked-files=no
                OUTPUT_VARIABLE git_dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT git_dirty STREQUAL "")
  string(APPEND ECOCOMPUTE_GIT_COMMIT "-dirty")
endif()
foreach(flag ECOCOMPUTE_LLAMA_CUDA ECOCOMPUTE_CUDA)
  if(${flag})
    set(${flag}_BOOL true)
  else()
    set(${flag}_BOOL false)
  endif()
endforeach()
configure_file("${CMAKE_SOURCE_DIR}/cmake/build_info.hpp.in"
               "${CMAKE_BINARY_DIR}/generated/ecocompute/build_info.hpp" @ONLY)
configure_file("${CMAKE_SOURCE_DIR}/cmake/build_commit.cpp.in"
               "${CMAKE_BINARY_DIR}/generated/ecocompute/build_commit.cpp" @ONLY)
