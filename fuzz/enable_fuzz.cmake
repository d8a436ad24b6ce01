# Included after project() (CMAKE_PROJECT_INCLUDE) by fuzz/run_fuzz.sh: defines the fuzz target once every
# library target of the project exists (a deferred call may not add a subdirectory, so it includes a file).
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL include "${CMAKE_SOURCE_DIR}/fuzz/fuzz_targets.cmake")
