/* SQL migrations embedded at build time from schema/migrations/NNN_name.sql (see
 * embed_migrations.cmake). To change the schema, add the next NNN_name.sql: never edit a
 * migration that has shipped. The store applies, in order, every migration whose version is
 * above the database's PRAGMA user_version, each in its own transaction. */
#ifndef DT_SRV_MIGRATIONS_H
#define DT_SRV_MIGRATIONS_H

typedef struct dt_migration {
  int version;
  const char *name;
  const char *sql;
} dt_migration;

/* Terminated by an entry with version 0. */
extern const dt_migration dt_migrations[];

#endif
