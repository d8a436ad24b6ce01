# The Debian package: `cmake --build build --target package_deb` (or `cpack -G DEB` after the `man`
# target) writes build/ecocompute_<version>_<arch>.deb holding the binary, its libllama (private, under
# /usr/lib/ecocompute, found through the binary's RUNPATH), the shipped data, the built web UI, a
# systemd unit for `serve` and man pages made from --help. tests/package/ installs it in a clean
# Debian root and runs it from the installed paths.
include(GNUInstallDirs)

set(ECOCOMPUTE_PRIVATE_LIBDIR "${CMAKE_INSTALL_LIBDIR}/ecocompute")
# Only the installed copy gets this RUNPATH; the build tree's binary keeps its own to third_party.
set_target_properties(ecocompute PROPERTIES INSTALL_RPATH "$ORIGIN/../${ECOCOMPUTE_PRIVATE_LIBDIR}")

install(TARGETS ecocompute RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
install(DIRECTORY "${ECOCOMPUTE_LLAMA_PREFIX}/lib/" DESTINATION "${ECOCOMPUTE_PRIVATE_LIBDIR}"
        FILES_MATCHING PATTERN "*.so*" PATTERN "cmake" EXCLUDE PATTERN "pkgconfig" EXCLUDE)
install(DIRECTORY "${CMAKE_SOURCE_DIR}/data/" DESTINATION "${CMAKE_INSTALL_DATADIR}/ecocompute/data")
install(DIRECTORY "${CMAKE_SOURCE_DIR}/web/dist/" DESTINATION "${CMAKE_INSTALL_DATADIR}/ecocompute/web/dist"
        OPTIONAL)
install(FILES "${CMAKE_SOURCE_DIR}/packaging/ecocompute.service" DESTINATION lib/systemd/system)
install(FILES "${CMAKE_SOURCE_DIR}/README.md" "${CMAKE_SOURCE_DIR}/LICENSE"
        DESTINATION "${CMAKE_INSTALL_DOCDIR}" OPTIONAL)

# Man pages from the built binary's --help (help2man): a target of their own, run before cpack.
set(ECOCOMPUTE_MAN_DIR "${CMAKE_BINARY_DIR}/man")
add_custom_target(man
  COMMAND "${CMAKE_SOURCE_DIR}/scripts/man_pages.sh" "$<TARGET_FILE:ecocompute>" "${ECOCOMPUTE_MAN_DIR}"
  DEPENDS ecocompute
  COMMENT "Man pages from --help")
install(DIRECTORY "${ECOCOMPUTE_MAN_DIR}/" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" OPTIONAL
        FILES_MATCHING PATTERN "*.1.gz")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ecocompute)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "EcoCompute maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Energy per token of quantized LLM inference, measured from the GPU's counter, and the decision service built on it")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/hongping-zh/quant-energy")
# Dependencies from the shared libraries the binary links (dpkg-shlibdeps); our libllama is private.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${ECOCOMPUTE_LLAMA_PREFIX}/lib")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY "${CMAKE_BINARY_DIR}/package")
include(CPack)

add_custom_target(package_deb
  COMMAND "${CMAKE_CPACK_COMMAND}" -G DEB --config "${CMAKE_BINARY_DIR}/CPackConfig.cmake"
  DEPENDS ecocompute man
  WORKING_DIRECTORY "${CMAKE_BINARY_DIR}"
  COMMENT "Debian package in ${CMAKE_BINARY_DIR}/package")
