# OpenBLAS, optional: the native matmul reference of runapp (apps/native/sgemm.cpp) and
# bench/openblas_sgemm. Found through pkg-config (openblas.pc, Debian's libopenblas-dev), else
# FindBLAS with BLA_VENDOR=OpenBLAS and cblas.h. Defines the INTERFACE target duet_openblas
# (empty when not found) and DUET_OPENBLAS_FOUND_ANY.
#
#   -DDUET_OPENBLAS=OFF          build without it (the native matmul is then a blocked C++ loop)
#   -DDUET_BUNDLE_OPENBLAS=ON    copy the OpenBLAS library runapp links and the libraries it
#                                needs (libgfortran, libquadmath) into the build's lib/, for a build
#                                carried to a machine without them (runapp's RPATH finds them)
option(DUET_OPENBLAS "Use OpenBLAS for the native matmul reference when found" ON)
option(DUET_BUNDLE_OPENBLAS "Copy libopenblas and its run-time libraries into the build's lib/" OFF)

add_library(duet_openblas INTERFACE)
set(DUET_OPENBLAS_FOUND_ANY FALSE)
if(DUET_OPENBLAS)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(DUET_OPENBLAS QUIET IMPORTED_TARGET openblas)
  endif()
  if(DUET_OPENBLAS_FOUND)
    target_link_libraries(duet_openblas INTERFACE PkgConfig::DUET_OPENBLAS)
    set(DUET_OPENBLAS_FOUND_ANY TRUE)
    set(DUET_OPENBLAS_WHAT "OpenBLAS ${DUET_OPENBLAS_VERSION} (pkg-config)")
  else()
    set(BLA_VENDOR OpenBLAS)
    find_package(BLAS QUIET)
    find_path(DUET_OPENBLAS_CBLAS_INCLUDE cblas.h PATH_SUFFIXES openblas openblas-pthread)
    if(BLAS_FOUND AND DUET_OPENBLAS_CBLAS_INCLUDE)
      target_include_directories(duet_openblas INTERFACE ${DUET_OPENBLAS_CBLAS_INCLUDE})
      target_link_libraries(duet_openblas INTERFACE ${BLAS_LIBRARIES})
      set(DUET_OPENBLAS_FOUND_ANY TRUE)
      set(DUET_OPENBLAS_WHAT "OpenBLAS ${BLAS_LIBRARIES} (FindBLAS)")
    endif()
  endif()
endif()

if(DUET_OPENBLAS_FOUND_ANY)
  target_compile_definitions(duet_openblas INTERFACE DUET_HAVE_OPENBLAS=1)
  message(STATUS "native matmul reference: ${DUET_OPENBLAS_WHAT}")
else()
  message(STATUS "native matmul reference: blocked C++ loop (OpenBLAS not found or "
                 "DUET_OPENBLAS=OFF; apt-get install libopenblas-dev)")
endif()

if(DUET_BUNDLE_OPENBLAS)
  if(NOT DUET_OPENBLAS_FOUND_ANY OR NOT DUET_OPENBLAS_FOUND)
    message(FATAL_ERROR "DUET_BUNDLE_OPENBLAS=ON needs OpenBLAS found through pkg-config "
                        "(apt-get install libopenblas-dev)")
  endif()
  # The library's soname file, then what it needs that a machine without gfortran lacks.
  find_library(DUET_OPENBLAS_SO NAMES libopenblas.so.0 PATHS ${DUET_OPENBLAS_LIBRARY_DIRS}
               NO_DEFAULT_PATH)
  if(NOT DUET_OPENBLAS_SO)
    message(FATAL_ERROR "DUET_BUNDLE_OPENBLAS: no libopenblas.so.0 in ${DUET_OPENBLAS_LIBRARY_DIRS}")
  endif()
  set(bundle ${DUET_OPENBLAS_SO})
  foreach(dep libgfortran.so.5 libquadmath.so.0)
    find_library(DUET_BUNDLE_${dep} NAMES ${dep})
    if(DUET_BUNDLE_${dep})
      list(APPEND bundle ${DUET_BUNDLE_${dep}})
    endif()
  endforeach()
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/lib)
  foreach(f ${bundle})
    get_filename_component(name ${f} NAME)
    file(REAL_PATH ${f} real)
    file(COPY_FILE ${real} ${CMAKE_BINARY_DIR}/lib/${name} ONLY_IF_DIFFERENT)
  endforeach()
  # DT_RPATH rather than DT_RUNPATH on what links OpenBLAS: the loader then also searches
  # runapp's $ORIGIN/../lib for libopenblas's own dependencies (libgfortran).
  target_link_options(duet_openblas INTERFACE -Wl,--disable-new-dtags)
  message(STATUS "DUET_BUNDLE_OPENBLAS: copied ${bundle} into ${CMAKE_BINARY_DIR}/lib")
endif()
