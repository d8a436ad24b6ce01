# The libFuzzer targets (clang only). Included by fuzz/CMakeLists.txt, or, deferred to the end of the
# top-level configure, by fuzz/enable_fuzz.cmake (fuzz/run_fuzz.sh).
#   energy_json_fuzzer          an uploaded energy.json through every upload check
#   report_consistency_fuzzer   JSON through the report reader and the consistency checker (no schema first)
#   query_text_fuzzer           the free-text question and model-name readers
#   http_request_fuzzer         raw bytes as an HTTP request: Beast's parser, the target, the input readers
#   mcp_frame_fuzzer            bytes as the MCP server's stdin: framing, JSON-RPC, the tools' arguments
#   gguf_fuzzer                 a model file through our GGUF checks and llama.cpp's loader (in a child)
#   make_gguf_seeds             writes the GGUF fuzzer's small seed models
foreach(target_and_library IN ITEMS energy_json:ecocompute_server report_consistency:ecocompute_report
                                    query_text:ecocompute_data http_request:ecocompute_server mcp_frame:ecocompute_mcp)
  string(REPLACE ":" ";" pair "${target_and_library}")
  list(GET pair 0 name)
  list(GET pair 1 library)
  add_executable(${name}_fuzzer "${CMAKE_SOURCE_DIR}/fuzz/${name}_fuzzer.cpp")
  target_link_libraries(${name}_fuzzer PRIVATE ${library})
  target_link_options(${name}_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)
  set_target_properties(${name}_fuzzer PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz")
endforeach()

add_executable(gguf_fuzzer "${CMAKE_SOURCE_DIR}/fuzz/gguf_fuzzer.cpp")
target_link_libraries(gguf_fuzzer PRIVATE ecocompute_engine)
target_link_options(gguf_fuzzer PRIVATE -fsanitize=fuzzer,address,undefined)

add_executable(make_gguf_seeds "${CMAKE_SOURCE_DIR}/fuzz/make_gguf_seeds.cpp")
target_link_libraries(make_gguf_seeds PRIVATE ecocompute_modelgen)
target_link_options(make_gguf_seeds PRIVATE -fsanitize=address,undefined)

set_target_properties(gguf_fuzzer make_gguf_seeds PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/fuzz")

# The decision model's numeric code is no hostile-input surface (its inputs are read and checked by the
# modules the targets above fuzz) and its coverage instrumentation, in the sanitizer tree the tests share,
# made one fit of the shipped evidence take 437 s inside the loaded test pass (101 s alone without it on
# the same 2-core machine, 2026-12-05): it is compiled without it.
target_compile_options(ecocompute_decide PRIVATE -fno-sanitize=fuzzer-no-link)
