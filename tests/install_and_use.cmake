# Installs Duet from BUILD_DIR into WORK_DIR/prefix, builds the out-of-tree app in SOURCE_DIR
# against it with find_package(duet) and duet_add_app(), installs the app into the same prefix,
# moves the whole prefix (Duet and the app must both be relocatable) and runs the app there;
# then builds the app again against the moved prefix, and once with pkg-config (duet.pc).
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/app-build -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
    -DCMAKE_INSTALL_PREFIX=${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/app-build)
run(${CMAKE_COMMAND} --install ${WORK_DIR}/app-build)
file(RENAME ${WORK_DIR}/prefix ${WORK_DIR}/moved)
# The app installed with duet_add_app runs from the moved tree (no absolute RUNPATH).
run(${WORK_DIR}/moved/bin/outoftree)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${WORK_DIR}/moved)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${WORK_DIR}/build/outoftree)
run(${WORK_DIR}/moved/bin/runapp list)
# pkg-config, as a Makefile would use it.
set(ENV{PKG_CONFIG_PATH} ${WORK_DIR}/moved/lib/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs duet OUTPUT_VARIABLE pc RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs duet failed (${rc})")
endif()
separate_arguments(pc UNIX_COMMAND "${pc}")
run(c++ -std=c++20 -DKERNEL_DIR="${SOURCE_DIR}" ${SOURCE_DIR}/main.cpp ${pc} -o ${WORK_DIR}/pc-app)
run(${WORK_DIR}/pc-app)
