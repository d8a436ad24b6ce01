# The libFuzzer targets (clang only). Included by fuzz/CMakeLists.txt, or, deferred to the end of the
# top-level configure, by fuzz/enable_fuzz.cmake (fuzz/run_fuzz.sh).
#   energy_json_fuzzer  an uploaded energy.json through every upload check
#   gguf_fuzzer         a model file through our GGUF checks and llama.cpp's loader (in a child)
#   make_gguf_seeds     writes the GGUF fuzzer's small seed models
add_executable(energy_json_fuzzer "${CMAKE_SOURCE_DIR}/fuzz/energy_json_fuzzer.cpp")
target_link_libraries(energy_json_fuzzer PRIVATE ecocompute_server)
target_link_options(energy_json_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)

add_executable(gguf_fuzzer "${CMAKE_SOURCE_DIR}/fuzz/gguf_fuzzer.cpp")
target_link_libraries(gguf_fuzzer PRIVATE ecocompute_engine)
target_link_options(gguf_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)

add_executable(make_gguf_seeds "${CMAKE_SOURCE_DIR}/fuzz/make_gguf_seeds.cpp")
target_link_libraries(make_gguf_seeds PRIVATE ecocompute_modelgen)
target_link_options(make_gguf_seeds PRIVATE -fsanitize=address,undefined)

set_target_properties(energy_json_fuzzer gguf_fuzzer make_gguf_seeds PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz")
