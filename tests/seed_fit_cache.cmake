# shipped_fit_clean's command: empties the run's fit folder (no fit of an earlier build is ever read)
# and, where $ECOCOMPUTE_TEST_FIT_SEED names another folder, copies the model files found there into it.
# scripts/test.sh names the first pass's folder for the sanitizer pass: the same sources' fit of the same
# evidence, made minutes before by the gcc tree. The fit read from a cache is still checked against the
# evidence's digest, so a seed of other evidence is fitted again rather than read.
# Usage: [ECOCOMPUTE_TEST_FIT_SEED=<folder>] cmake -DCACHE=<folder> -P seed_fit_cache.cmake
if(NOT CACHE)
  message(FATAL_ERROR "seed_fit_cache: CACHE (the run's fit folder) is not set")
endif()
file(REMOVE_RECURSE "${CACHE}")
set(SEED "$ENV{ECOCOMPUTE_TEST_FIT_SEED}")
if(NOT SEED)
  return()
endif()
file(GLOB models "${SEED}/model-*.json")
if(NOT models)
  message(FATAL_ERROR "seed_fit_cache: ${SEED} holds no model-*.json (run the first pass before the one it seeds)")
endif()
file(MAKE_DIRECTORY "${CACHE}")
file(COPY ${models} DESTINATION "${CACHE}")
list(LENGTH models n)
message(STATUS "seed_fit_cache: ${n} fit(s) from ${SEED}")
