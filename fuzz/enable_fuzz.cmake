# Included after project() (CMAKE_PROJECT_INCLUDE) by fuzz/run_fuzz.sh: adds fuzz/ once every library
# target of the project exists.
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL add_subdirectory "${CMAKE_SOURCE_DIR}/fuzz"
               "${CMAKE_BINARY_DIR}/fuzz")
