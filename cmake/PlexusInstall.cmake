# What `cmake --install` puts where (GNUInstallDirs):
#   lib/libplexus.so*, bin/plexus, include/plexus/ (core, dispatcher and SDK headers)
#   lib/cmake/Plexus/     the Plexus package: Plexus::plexus for applications
#   lib/cmake/PlexusSDK/  the PlexusSDK package: PlexusSDK::headers and plexus_add_plugin()
#   lib/pkgconfig/plexus.pc
#   lib/plexus/plugins/   plugins and manifests (by plexus_add_plugin(... INSTALL))
#   share/plexus/sdk/     the vendor guide and the toydev template
# Included last by the top-level CMakeLists, when every target exists.
include(CMakePackageConfigHelpers)

set(PLEXUS_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake)
set(PLEXUS_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/plexus/plugins)

# ---- libplexus and the Plexus package ----------------------------------------
# The public headers use C++20 (std::span, designated initializers).
target_compile_features(plexus_core_interface INTERFACE cxx_std_20)
install(TARGETS plexus plexus_core_interface EXPORT PlexusTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/ ${PROJECT_SOURCE_DIR}/dispatcher/include/
  ${PROJECT_SOURCE_DIR}/autograd/include/ ${PROJECT_SOURCE_DIR}/nn/include/
  ${PROJECT_SOURCE_DIR}/optim/include/ ${PROJECT_SOURCE_DIR}/graph/include/
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(EXPORT PlexusTargets NAMESPACE Plexus:: FILE PlexusTargets.cmake
  DESTINATION ${PLEXUS_INSTALL_CMAKEDIR}/Plexus)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/PlexusConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/PlexusConfig.cmake
  INSTALL_DESTINATION ${PLEXUS_INSTALL_CMAKEDIR}/Plexus
  PATH_VARS PLEXUS_INSTALL_PLUGINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/PlexusConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
# The plugin directory exists even before any plugin is installed into it.
install(DIRECTORY DESTINATION ${PLEXUS_INSTALL_PLUGINDIR})
install(FILES ${PROJECT_BINARY_DIR}/package/PlexusConfig.cmake
  ${PROJECT_BINARY_DIR}/package/PlexusConfigVersion.cmake
  DESTINATION ${PLEXUS_INSTALL_CMAKEDIR}/Plexus)

# ---- the plexus CLI -------------------------------------------------------------
file(RELATIVE_PATH bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
if(TARGET plexus-cli)
  set_target_properties(plexus-cli PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}")
  install(TARGETS plexus-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET plexus-conformance)
  set_target_properties(plexus-conformance PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}")
  install(TARGETS plexus-conformance RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
# plexus::distributed (when MPI was found): the CLI links it to list the
# communication backends. Not exported in the Plexus package yet: its users
# would also need MPI's CMake targets.
if(TARGET plexus-distributed)
  install(TARGETS plexus-distributed LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/distributed/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.h")
endif()
# `plexus bench` runs the plexus-bench installed beside it.
if(TARGET plexus-bench)
  set_target_properties(plexus-bench PROPERTIES INSTALL_RPATH "$ORIGIN/${bin_to_lib}")
  install(TARGETS plexus-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# ---- the PlexusSDK package: headers and plexus_add_plugin, nothing to link ----
plexus_abi_version(${PROJECT_SOURCE_DIR}/sdk/include PLEXUS_ABI_VERSION)
install(TARGETS plexus_sdk_headers EXPORT PlexusSDKTargets)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT PlexusSDKTargets NAMESPACE PlexusSDK:: FILE PlexusSDKTargets.cmake
  DESTINATION ${PLEXUS_INSTALL_CMAKEDIR}/PlexusSDK)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/PlexusSDKConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/PlexusSDKConfig.cmake
  INSTALL_DESTINATION ${PLEXUS_INSTALL_CMAKEDIR}/PlexusSDK
  PATH_VARS CMAKE_INSTALL_BINDIR)
# The package version is the ABI version: find_package(PlexusSDK 1.N) accepts
# SDK 1.M for M >= N, as hosts accept plugins.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/PlexusSDKConfigVersion.cmake
  VERSION ${PLEXUS_ABI_VERSION} COMPATIBILITY SameMajorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/package/PlexusSDKConfig.cmake
  ${PROJECT_BINARY_DIR}/package/PlexusSDKConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/PlexusPluginTools.cmake
  DESTINATION ${PLEXUS_INSTALL_CMAKEDIR}/PlexusSDK)
install(FILES ${PROJECT_SOURCE_DIR}/sdk/VENDOR_GUIDE.md
  DESTINATION ${CMAKE_INSTALL_DATADIR}/plexus/sdk)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/template ${PROJECT_SOURCE_DIR}/sdk/examples
  DESTINATION ${CMAKE_INSTALL_DATADIR}/plexus/sdk)

# ---- pkg-config ------------------------------------------------------------------
# Paths relative to the .pc file, so the install prefix can move.
file(RELATIVE_PATH PLEXUS_PC_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" PLEXUS_PC_PREFIX "${PLEXUS_PC_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/plexus.pc.in ${PROJECT_BINARY_DIR}/package/plexus.pc
  @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/plexus.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
