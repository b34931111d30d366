/*
 * sql.h — SQL over one session's heap (sql.c), for `hprofan sql`.
 *
 * An in-memory SQLite connection whose tables are virtual: each row is
 * made from the session's model when SQLite asks for it (nothing of the
 * heap is copied into SQLite), from the index when the session has one:
 *   objects(id, class, class_id, kind, shallow, retained, idom, reachable,
 *           root_kinds, heap, length)       one row per object; WHERE id =,
 *                                           class =, class_id = and idom =
 *                                           read only the objects they name
 *   classes(id, name, super_id, loader_id, instances, shallow, retained,
 *           instance_size)                  one row per class; WHERE id =
 *   refs(src, dst, field, idx, kind)        the edges of the reference graph
 *                                           the dominator tree is computed on,
 *                                           each labelled (objread's edge
 *                                           refs: kind strong, soft, weak,
 *                                           final, phantom, static, class,
 *                                           super, loader, local); WHERE
 *                                           src = or dst = read one object's
 *   roots(id, kind, thread_id, frame)       one row per GC root record
 *   strings(id, value, length)              one row per java.lang.String
 *   fields(id, name, type, value, ref,      one row per field of each instance
 *          static)                          and class object (statics); WHERE
 *                                           id = (both) decodes one object
 *   threads(id, serial, name, state, daemon, priority, frames, retained)
 *   frames(thread_id, depth, class, method, signature, file, line)
 *   retained_set(ID)                        the dominator subtree of ID
 * and functions str(id) (a String's, char[]'s or byte[]'s text),
 * field(id, name) (an instance field's or a class's static's value, a
 * reference as its id), instance_of(id, class) (the class or a subclass),
 * size(id), map_get(id, key) and list_get(id, i) (a collection's entries,
 * one entry, one element: analysis/collections.h) and path(id) (the
 * shortest path from a GC root as text).
 * retained, idom, reachable and root_kinds, and refs, need the retained
 * sizes: they are computed (or mapped from the index) the first time a
 * query reads them.
 *
 * The connection answers questions and changes nothing: an authorizer
 * allows reading, functions and the table-listing pragmas only (no
 * ATTACH, no writes, no other pragma), extensions cannot be loaded, and
 * SQLite's own memory is bounded.  A query that runs past the timeout is
 * interrupted (SQLITE_INTERRUPT).
 *
 * Errors: HP_* codes with err filled; SQLite's own come back from its API
 * (sqlite3_errmsg()).
 */
#ifndef HP_SESSION_SQL_H
#define HP_SESSION_SQL_H

#include <sqlite3.h>
#include "base/error.h"
#include "session/session.h"

struct hp_sql_opts {
	double timeout;               /* seconds a statement may run; 0: no limit */
	int64_t heap_limit;           /* bytes SQLite itself may hold; 0: 1 GiB */
};

typedef struct hp_sql hp_sql;

/* Opens the connection over S (borrowed: it must outlive the hp_sql). */
int hp_sql_open(hp_sql **out, hp_session *S, const struct hp_sql_opts *o, struct hp_error *err) HP_MUST_USE;
void hp_sql_close(hp_sql *q);
/* the connection, for sqlite3_prepare_v2() and sqlite3_step() */
sqlite3 *hp_sql_db(hp_sql *q);
/* the timeout starts again: call before each statement */
void hp_sql_arm(hp_sql *q);
/* 1 when the last interruption was the timeout's */
int hp_sql_timed_out(const hp_sql *q);
/* the session error behind the last SQLITE_ERROR from a virtual table
 * (the dump could not be read), code 0 when there was none */
const struct hp_error *hp_sql_error(const hp_sql *q);

/* Writes the tables (objects, classes, refs) into the SQLite database file
 * path (new or empty), with indexes on what the virtual tables look up:
 * SQLITE_OK, else SQLite's code with the message in msg (n bytes; the
 * session's when the dump could not be read: hp_sql_error()). */
int hp_sql_export(hp_sql *q, const char *path, char *msg, size_t n);

#endif
