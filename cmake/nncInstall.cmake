#===- cmake/nncInstall.cmake - what `cmake --install` installs -*- cmake -*-===//
#
# The two libraries of the C API (libnnc_runtime: nnc-c/runtime.h, no
# compiler; libnnc: nnc-c/compiler.h, over libnnc_runtime), their headers,
# nnc-run, and a CMake config package so that other projects use them with
#
#   find_package(nnc 0.1 REQUIRED)
#   target_link_libraries(app PRIVATE nnc::runtime)  # or nnc::nnc
#
# Included from the top-level CMakeLists.txt after the targets exist.
#
#===----------------------------------------------------------------------===//

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The version of the C API (NNC_API_VERSION_* in nnc-c/runtime.h).
file(STRINGS ${PROJECT_SOURCE_DIR}/include/nnc-c/runtime.h nnc_version_lines
     REGEX "^#define NNC_API_VERSION_(MAJOR|MINOR|PATCH) ")
foreach(part MAJOR MINOR PATCH)
  string(REGEX REPLACE ".*NNC_API_VERSION_${part} ([0-9]+).*" "\\1"
         NNC_VERSION_${part} "${nnc_version_lines}")
endforeach()
set(NNC_VERSION
    "${NNC_VERSION_MAJOR}.${NNC_VERSION_MINOR}.${NNC_VERSION_PATCH}")

set(NNC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/nnc)

set_target_properties(nnc_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(NNCCAPI PROPERTIES EXPORT_NAME nnc)
install(TARGETS nnc_runtime NNCCAPI
        EXPORT nncTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS nnc-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The runtime's glue libraries, opened next to libnnc_runtime.so at run
# time (oneDNN convolutions, Gloo collectives), where they were built.
foreach(glue nnc_dnnl nnc_gloo)
  if(TARGET ${glue})
    install(TARGETS ${glue} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  endif()
endforeach()
install(FILES ${PROJECT_SOURCE_DIR}/include/nnc-c/runtime.h
              ${PROJECT_SOURCE_DIR}/include/nnc-c/compiler.h
              ${PROJECT_SOURCE_DIR}/include/nnc-c/nnc.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/nnc-c)

install(EXPORT nncTargets NAMESPACE nnc:: DESTINATION ${NNC_INSTALL_CMAKEDIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/nncConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/nncConfig.cmake
  INSTALL_DESTINATION ${NNC_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/nncConfigVersion.cmake
  VERSION ${NNC_VERSION}
  # Before 1.0 a new minor version may break the API.
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/nncConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/nncConfigVersion.cmake
        DESTINATION ${NNC_INSTALL_CMAKEDIR})
