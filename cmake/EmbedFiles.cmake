# duet_embed_files(OUTPUT out.cpp SYMBOL name FILES f1 f2 ...)
# Generates a C++ file defining `const duet::EmbeddedFile name[]` and `name_count` holding
# the files' bytes, regenerated whenever one of them changes.
set(DUET_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_files_script.cmake)

function(duet_embed_files)
  cmake_parse_arguments(E "" "OUTPUT;SYMBOL" "FILES" ${ARGN})
  add_custom_command(
    OUTPUT ${E_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${E_OUTPUT} -DSYMBOL=${E_SYMBOL} "-DFILES=${E_FILES}"
            -P ${DUET_EMBED_SCRIPT}
    DEPENDS ${E_FILES} ${DUET_EMBED_SCRIPT}
    COMMENT "Embedding ${E_SYMBOL}"
    VERBATIM)
endfunction()
