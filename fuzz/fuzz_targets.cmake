# The libFuzzer target for the energy.json parser + validator (clang only). Included by fuzz/CMakeLists.txt,
# or, deferred to the end of the top-level configure, by fuzz/enable_fuzz.cmake (fuzz/run_fuzz.sh).
add_executable(energy_json_fuzzer "${CMAKE_SOURCE_DIR}/fuzz/energy_json_fuzzer.cpp")
target_link_libraries(energy_json_fuzzer PRIVATE ecocompute_server)
target_link_options(energy_json_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
set_target_properties(energy_json_fuzzer PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz")
