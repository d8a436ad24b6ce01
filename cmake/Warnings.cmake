# Warning flags shared by every target of ours (third-party headers come in as SYSTEM includes).
add_library(ecocompute_warnings INTERFACE)
target_compile_options(ecocompute_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align
                            -Wunused -Woverloaded-virtual -Wimplicit-fallthrough
                            -Wformat=2>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${ECOCOMPUTE_WERROR}>>:-Werror>)
