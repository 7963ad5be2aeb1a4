# rs_embed_files(OUT_C SYMBOL FILES...)
# Writes OUT_C defining `const rs_embedded_file_t SYMBOL[]` (name, text) for every file, terminated by
# {NULL, NULL}. Re-run at build time whenever a file changes.
function(rs_embed_files out_c symbol)
  set(files ${ARGN})
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_c} -DSYMBOL=${symbol} "-DFILES=${files}"
            -P ${PROJECT_SOURCE_DIR}/cmake/EmbedRun.cmake
    DEPENDS ${files} ${PROJECT_SOURCE_DIR}/cmake/EmbedRun.cmake
    COMMENT "Embedding ${symbol}"
    VERBATIM)
endfunction()
