# Writes OUT: a C string NAME holding the bytes of FILE (schema/postgresql/compat.sql).
file(READ ${FILE} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
file(WRITE ${OUT}.tmp "/* Generated from ${FILE} by server/embed_file.cmake; do not edit. */\nconst char ${NAME}[] = {${hex} 0};\n")
file(RENAME ${OUT}.tmp ${OUT})
