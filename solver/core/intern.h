/* DT_INTERN marks a function shared by the files of one folder of libductile and by no one
 * else: it is declared only in that folder's *_internal.h and hidden from the symbols a shared
 * build exports. */
#ifndef DT_CORE_INTERN_H
#define DT_CORE_INTERN_H

#define DT_INTERN __attribute__((visibility("hidden")))

#endif
