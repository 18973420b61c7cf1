# Builds every app in EXAMPLES_DIR against an installed Duet, as a user would: installs Duet
# from BUILD_DIR into WORK_DIR/prefix, then per example: find_package(duet) + duet_add_app (C++17),
# run on the default device; run under Oclgrind when OCLGRIND_VENDORS (a vendors folder holding
# only Oclgrind's ICD) is given, failing on its reports; and built again with pkg-config (duet.pc)
# and run. Each example checks its own output and exits nonzero when it is wrong.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
  set(run_output "${out}${err}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
set(ENV{PKG_CONFIG_PATH} ${WORK_DIR}/prefix/lib/pkgconfig)
execute_process(COMMAND pkg-config --cflags --libs duet OUTPUT_VARIABLE pc RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs duet failed (${rc})")
endif()
separate_arguments(pc UNIX_COMMAND "${pc}")
# Built from the installed copies (share/duet/examples), as a user finds them.
foreach(ex saxpy block_sum transpose)
  set(src ${WORK_DIR}/prefix/share/duet/examples/${ex})
  if(NOT EXISTS ${src}/CMakeLists.txt OR NOT EXISTS ${EXAMPLES_DIR}/${ex}/CMakeLists.txt)
    message(FATAL_ERROR "example ${ex} is not installed under share/duet/examples")
  endif()
  run(${CMAKE_COMMAND} -S ${src} -B ${WORK_DIR}/${ex} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${ex})
  run(${WORK_DIR}/${ex}/${ex})
  if(OCLGRIND_VENDORS)
    run(${CMAKE_COMMAND} -E env OCL_ICD_VENDORS=${OCLGRIND_VENDORS} OCL_ICD_FILENAMES=
        OCLGRIND_DATA_RACES=1 OCLGRIND_UNINITIALIZED=1 ${WORK_DIR}/${ex}/${ex} opencl)
    if(run_output MATCHES "Invalid read|Invalid write|data race|Uninitialized value|Work-group divergence")
      message(FATAL_ERROR "Oclgrind reported an error in ${ex}")
    endif()
  endif()
  run(c++ -std=c++17 -DEXAMPLE_DIR="${src}" ${src}/main.cpp ${pc} -o ${WORK_DIR}/${ex}-pc)
  run(${WORK_DIR}/${ex}-pc)
endforeach()
# duet_cuda.cuh, the kernel-side header, is installed beside the API's headers and compiles
# in an offline nvcc build of a kernel that uses it (where nvcc is found).
if(NOT EXISTS ${WORK_DIR}/prefix/include/duet_cuda.cuh)
  message(FATAL_ERROR "duet_cuda.cuh is not installed under include/")
endif()
find_program(NVCC nvcc PATHS /usr/local/cuda/bin NO_CACHE)
if(NVCC)
  file(WRITE ${WORK_DIR}/offline.cu "#include \"duet_cuda.cuh\"
extern \"C\" __global__ void offline(const float* in, float* out, duet_local_t tmp_arg) {
    float* tmp = DUET_LOCAL(float, tmp_arg);
    tmp[threadIdx.x] = in[duet_global_id(0)];
    __syncthreads();
    out[duet_global_id(0)] = tmp[blockDim.x - 1 - threadIdx.x];
}
")
  run(${NVCC} -c -arch=sm_90 -I${WORK_DIR}/prefix/include ${WORK_DIR}/offline.cu
      -o ${WORK_DIR}/offline.o)
endif()
message("examples: all correct")
