# Run with cmake -P: turns one binary file into a C++ source holding it as a byte array.
#   -DINPUT=<file> -DOUTPUT=<file.cpp> -DSYMBOL=<C identifier>
# The array is 64-byte aligned (the driver reads fatbin headers in place, and over-alignment
# is free) and extern, so the table in cuda_fatbin_table.cpp can refer to it.
foreach(var INPUT OUTPUT SYMBOL)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "embed_fatbin.cmake: ${var} is not set")
  endif()
endforeach()
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR size "${hex_length} / 2")
if(size EQUAL 0)
  message(FATAL_ERROR "embed_fatbin.cmake: ${INPUT} is empty")
endif()
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n" bytes "${bytes}")
get_filename_component(input_name "${INPUT}" NAME)
# Written directly (not copy-if-different): the command runs only when the fatbin changed,
# and a stale timestamp would make it run on every build.
file(WRITE "${OUTPUT}"
  "// Generated from ${input_name} by backends/cuda/embed_fatbin.cmake; do not edit.\n"
  "#include <cstddef>\n"
  "namespace duet::cuda::embedded {\n"
  "alignas(64) extern const unsigned char ${SYMBOL}[] = {\n${bytes}\n};\n"
  "extern const std::size_t ${SYMBOL}_size = ${size};\n"
  "} // namespace duet::cuda::embedded\n")
