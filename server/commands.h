/* ductiled's commands besides serving:
 *   token create [--name NAME] [--user USER] | token list | token revoke ID
 *   admin user add NAME [--admin] | admin user list | admin user disable NAME | enable NAME
 *   admin backup FILE | admin audit [--limit N] [--action A] [--actor NAME] [--target T]
 * The changes they make are recorded in the audit log (audit.h) with the Unix user running
 * them as the actor.
 * They work on the database of the data directory (main.c has opened the store), also while a
 * daemon runs on it. Each returns the exit status: 0 when it did what it says, 1 when there was
 * nothing to do or it failed (the message is on stderr), DT_EXIT_USAGE for a bad command line
 * (the caller prints the usage). */
#ifndef DT_SRV_COMMANDS_H
#define DT_SRV_COMMANDS_H

#define DT_EXIT_USAGE 64

/* token ...: argv[0] is the word after "token". */
int dt_cmd_token(int argc, char **argv);
/* admin ...: argv[0] is the word after "admin". */
int dt_cmd_admin(int argc, char **argv);
/* migrate (no arguments: argc is how many followed it): main.c has opened the store, which
 * applied the pending migrations; this prints the store and its schema version. For operators
 * who migrate a shared PostgreSQL database once before starting (or upgrading) its daemons. */
int dt_cmd_migrate(int argc);

#endif
