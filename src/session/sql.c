/* sql.c — SQL over one session's heap: SQLite's eponymous virtual tables
 * objects, classes and refs, the functions str() and field(), and the
 * authorizer and limits that keep the connection read-only and bounded
 * (sql.h).  A table's cursor walks object, class or edge numbers: all of
 * them, the few a WHERE constraint names (xBestIndex picks it), or all of
 * them class by class for a GROUP BY or ORDER BY on the class.  Memory:
 * per-class instance counts and shallow sums (16 bytes a class) at open;
 * the session's objects of every class (hp_session_by_class(): 4 bytes an
 * object, made once) the first time a query looks objects up by class or
 * scans class by class; the reverse edges (8 bytes an edge) the first
 * time a query names a dst. */
#include "session/sql.h"
#include "analysis/collections.h"
#include "analysis/paths.h"
#include "analysis/retained.h"
#include "analysis/threads.h"
#include "base/alloc.h"
#include "base/clock.h"
#include "base/text.h"
#include "model/objread.h"
#include "model/refs.h"
#include "parser/hprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hp_sql;
struct tab { struct hp_sql *q; int t; };   /* a table's module aux */

struct hp_sql {
	sqlite3 *db;
	hp_session *S;
	const hp_heap *h;
	const struct hp_retained *R;  /* NULL until a query needs it */
	int R_level;                  /* what R holds: NEED_* (need_R()) */
	hp_objread *rd;               /* the session's, NULL until str() or field() */
	uint64_t *cls_count, *cls_shallow;   /* per class: instances (class objects too), bytes */
	int *cls_name_len;            /* per class: its name's bytes (for SQLite, without a strlen a row) */
	const uint32_t *by_cls_off, *by_cls; /* the session's objects of each class: [off[c], off[c + 1]) */
	uint32_t *cls_order[2];       /* class indexes by (name, id) and by id: the scans in class order */
	const uint32_t *str_objs;     /* the java.lang.String instances (strings), NULL until asked */
	uint32_t *str_owned;          /*   when they are a list of their own (several classes) */
	size_t nstr;
	uint64_t *rev_off, *rev_edge;        /* edges into each object: row numbers of refs */
	uint64_t *cls_bits, *cls_rank;       /* refs' rows with class edges (need_rows()) */
	double timeout, deadline;
	int timed_out;
	int declaring;                /* in a table's xConnect, or exporting: the authorizer allows */
	struct tab tabs[12];          /* each table's module aux (T_N of them) */
	struct hp_threads T;          /* threads and frames: collected the first time (T_done) */
	int T_done;
	struct hp_error err;
};

/* ---- what the tables read lazily ------------------------------------------ */

/* Retained sizes for a query, as much as it needs (from an index, what it
 * does not need is neither read nor checked): the class sums; each
 * object's values (its sizes, dominator as a number, root kinds); the
 * dominator tree (its children lists); the reference graph.  A level is
 * the parts it holds, as bits: what R holds covers a need when it has
 * every bit of it, else both are read together. */
enum { NEED_SUMS = 1, NEED_VALUES = 3, NEED_TREE = 7, NEED_GRAPH = 11, NEED_ALL = 15 };

static int need_R(hp_sql *q, sqlite3_vtab *vt, int level)
{
	if (q->R && (q->R_level & level) == level)
		return SQLITE_OK;
	if (q->R)
		level |= q->R_level;
	hp_error_clear(&q->err);
	int rc = level == NEED_SUMS ? hp_session_retained_sums(q->S, &q->R, &q->err)
		 : level == NEED_VALUES ? hp_session_retained_values(q->S, &q->R, &q->err)
		 : level == NEED_TREE ? hp_session_retained_tree(q->S, &q->R, &q->err)
		 : level == NEED_GRAPH ? hp_session_retained_graph(q->S, &q->R, &q->err)
		 : hp_session_retained(q->S, &q->R, &q->err);
	if (rc != HP_OK) {
		q->R = NULL;
		sqlite3_free(vt->zErrMsg);
		vt->zErrMsg = sqlite3_mprintf("%s", q->err.msg);
		return SQLITE_ERROR;
	}
	q->R_level = level;   /* (a union of two levels is a level: TREE | GRAPH is ALL) */
	return SQLITE_OK;
}

static int need_by_cls(hp_sql *q)
{
	if (q->by_cls)
		return SQLITE_OK;
	hp_error_clear(&q->err);
	int rc = hp_session_by_class(q->S, &q->by_cls_off, &q->by_cls, &q->err);
	if (rc == HP_OK)
		return SQLITE_OK;
	q->by_cls_off = q->by_cls = NULL;
	return rc == HP_ENOMEM ? SQLITE_NOMEM : SQLITE_CORRUPT;
}

static int by_name(const void *a, const void *b, void *ctx)
{
	const hp_heap *h = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(hp_class_name(h, x), hp_class_name(h, y));
	if (c)
		return c;
	return h->classes[x].id < h->classes[y].id ? -1 : h->classes[x].id > h->classes[y].id;
}

static int by_id(const void *a, const void *b, void *ctx)
{
	const hp_heap *h = ctx;
	uint64_t x = h->classes[*(const uint32_t *)a].id, y = h->classes[*(const uint32_t *)b].id;
	return x < y ? -1 : x > y;
}

/* the classes in the order of a scan grouped by class (k 0) or class_id (1) */
static int need_order(hp_sql *q, int k)
{
	if (q->cls_order[k])
		return SQLITE_OK;
	int rc = need_by_cls(q);
	if (rc != SQLITE_OK)
		return rc;
	const hp_heap *h = q->h;
	uint32_t *o = hp_reallocarray(NULL, h->nclasses ? h->nclasses : 1, sizeof *o);
	if (!o)
		return SQLITE_NOMEM;
	for (size_t i = 0; i < h->nclasses; i++)
		o[i] = (uint32_t)i;
	qsort_r(o, h->nclasses, sizeof *o, k ? by_id : by_name, (void *)h);
	q->cls_order[k] = o;
	return SQLITE_OK;
}

/* The rows of refs: every edge, each object's in its order (its class
 * edge first; refs.h), the objects in their order.  The class edges are
 * not in the graph's adj[]: a bit per object says who has one, and a count
 * per 64 objects how many below, so that row_of() is the graph's offset
 * plus a rank. */
static int need_rows(hp_sql *q)
{
	const struct hp_refs *r = &q->R->refs;
	if (q->cls_bits || !r->class_obj)
		return SQLITE_OK;
	size_t nw = r->n / 64 + 1;
	uint64_t *bits = hp_calloc(nw, sizeof *bits), *rank = hp_reallocarray(NULL, nw, sizeof *rank);
	if (!bits || !rank) {
		hp_free_all(bits, rank);
		return SQLITE_NOMEM;
	}
	for (size_t v = 0; v < r->n; v++)
		if (hp_refs_class_edge(r, v) != HP_NONE)
			bits[v / 64] |= (uint64_t)1 << (v % 64);
	uint64_t below = 0;
	for (size_t w = 0; w < nw; w++) {
		rank[w] = below;
		below += (uint64_t)__builtin_popcountll(bits[w]);
	}
	q->cls_bits = bits;
	q->cls_rank = rank;
	return SQLITE_OK;
}

static int row_has_class(const hp_sql *q, size_t v)
{
	return q->cls_bits && (q->cls_bits[v / 64] >> (v % 64) & 1);
}

/* the first row of object v's edges (v = n: the rows' count) */
static uint64_t row_of(const hp_sql *q, size_t v)
{
	uint64_t a = hp_refs_off(&q->R->refs, v);
	if (!q->cls_bits)
		return a;
	unsigned b = v % 64;
	return a + q->cls_rank[v / 64] + (b ? (uint64_t)__builtin_popcountll(q->cls_bits[v / 64] & (((uint64_t)1 << b) - 1)) : 0);
}

/* where row `row` of src's goes */
static uint32_t row_dst(const hp_sql *q, size_t src, uint64_t row)
{
	const struct hp_refs *r = &q->R->refs;
	uint64_t k = row - row_of(q, src);
	if (row_has_class(q, src)) {
		if (k == 0)
			return hp_refs_class_edge(r, src);
		k--;
	}
	return r->adj[hp_refs_off(r, src) + k];
}

static int need_rev(hp_sql *q)
{
	if (q->rev_edge)
		return SQLITE_OK;
	const struct hp_refs *r = &q->R->refs;
	uint64_t ne = row_of(q, r->n);
	uint64_t *off = hp_calloc(r->n + 2, sizeof *off);
	uint64_t *e = hp_reallocarray(NULL, ne ? ne : 1, sizeof *e);
	if (!off || !e) {
		hp_free_all(off, e);
		return SQLITE_NOMEM;
	}
	for (size_t v = 0; v < r->n; v++) {
		struct hp_edges it = hp_refs_edges(r, v);
		for (uint32_t w; hp_edges_next(&it, &w);)
			off[w + 2]++;
	}
	for (size_t v = 0; v < r->n; v++)
		off[v + 2] += off[v + 1];
	uint64_t k = 0;
	for (size_t v = 0; v < r->n; v++) {
		struct hp_edges it = hp_refs_edges(r, v);
		for (uint32_t w; hp_edges_next(&it, &w); k++)
			e[off[w + 1]++] = k;
	}
	q->rev_off = off;
	q->rev_edge = e;
	return SQLITE_OK;
}

/* ---- the tables -----------------------------------------------------------
 * A cursor walks row numbers: lo..hi, or list[0..nlist) (borrowed, or own
 * when owned is set). */
enum { T_OBJECTS, T_CLASSES, T_REFS, T_ROOTS, T_STRINGS, T_FIELDS, T_RETAINED_SET, T_THREADS, T_FRAMES, T_ENTRIES,
       T_N };
_Static_assert(T_N <= 12, "hp_sql.tabs holds every table");

struct vtab {
	sqlite3_vtab base;
	hp_sql *q;
	int t;
};

struct cursor {
	sqlite3_vtab_cursor base;
	uint64_t i, hi;               /* the range walked, or the list's position and length */
	const uint32_t *list32;       /* object numbers */
	const uint64_t *list64;       /* edge numbers */
	uint32_t *owned;
	const uint32_t *order;        /* a scan in class order: the classes, then each one's objects */
	struct hp_objdata od;         /* fields: the object being read (od.fields NULL: none) */
	size_t f;                     /*   and its field */
	size_t p, np;                 /*   the class of order[] being read, of np */
	struct hp_objref *lab;        /* refs: how lab_src holds each of its edges (NULL: not read) */
	struct hp_entry *ents;        /* entries: the collection's, i .. hi of them */
	int ents_map;                 /*   1 a map's (a key each), else a list's or set's */
	size_t lab_src;
	uint64_t row;                 /* the current row number */
};

static const char *const schemas[] = {
	[T_OBJECTS] = "CREATE TABLE x(id INTEGER, class TEXT, class_id INTEGER, kind TEXT, shallow INTEGER, "
		      "retained INTEGER, idom INTEGER, reachable INTEGER, root_kinds TEXT, heap TEXT, length INTEGER)",
	[T_CLASSES] = "CREATE TABLE x(id INTEGER, name TEXT, super_id INTEGER, loader_id INTEGER, instances INTEGER, "
		      "shallow INTEGER, retained INTEGER, instance_size INTEGER)",
	[T_REFS] = "CREATE TABLE x(src INTEGER, dst INTEGER, field TEXT, idx INTEGER, kind TEXT)",
	[T_ROOTS] = "CREATE TABLE x(id INTEGER, kind TEXT, thread_id INTEGER, frame INTEGER)",
	[T_STRINGS] = "CREATE TABLE x(id INTEGER, value TEXT, length INTEGER)",
	[T_FIELDS] = "CREATE TABLE x(id INTEGER, name TEXT, type TEXT, value, ref INTEGER, static INTEGER)",
	/* retained_set(ID): a table-valued function, ID its hidden column */
	[T_RETAINED_SET] = "CREATE TABLE x(id INTEGER, of HIDDEN)",
	[T_THREADS] = "CREATE TABLE x(id INTEGER, serial INTEGER, name TEXT, state TEXT, daemon INTEGER, priority INTEGER, "
		      "frames INTEGER, retained INTEGER)",
	[T_FRAMES] = "CREATE TABLE x(thread_id INTEGER, depth INTEGER, class TEXT, method TEXT, signature TEXT, file TEXT, "
		     "line INTEGER)",
	/* entries(ID): a collection's, ID its hidden column */
	[T_ENTRIES] = "CREATE TABLE x(idx INTEGER, key, value INTEGER, of HIDDEN)",
};
enum { TH_ID, TH_SERIAL, TH_NAME, TH_STATE, TH_DAEMON, TH_PRIORITY, TH_FRAMES, TH_RETAINED };
enum { FR_THREAD, FR_DEPTH, FR_CLASS, FR_METHOD, FR_SIGNATURE, FR_FILE, FR_LINE };
enum { RT_ID, RT_KIND, RT_THREAD, RT_FRAME };
enum { S_ID, S_VALUE, S_LENGTH };
enum { F_ID, F_NAME, F_TYPE, F_VALUE, F_REF, F_STATIC };
enum { O_ID, O_CLASS, O_CLASS_ID, O_KIND, O_SHALLOW, O_RETAINED, O_IDOM, O_REACHABLE, O_ROOT_KINDS, O_HEAP,
       O_LENGTH };
enum { C_ID, C_NAME, C_SUPER, C_LOADER, C_INSTANCES, C_SHALLOW, C_RETAINED, C_INSTANCE_SIZE };
enum { R_SRC, R_DST, R_FIELD, R_IDX, R_KIND };

/* xBestIndex's plans: idxNum is the column of an equality it uses + 1, 0 a
 * full scan, IDX_BY_NAME / IDX_BY_ID a full scan class by class */
enum { IDX_BY_NAME = 100, IDX_BY_ID };
static const int keyed[T_N][4] = {
	[T_OBJECTS] = { O_ID, O_CLASS_ID, O_CLASS, O_IDOM },
	[T_CLASSES] = { C_ID, -1, -1, -1 },
	[T_REFS] = { R_SRC, R_DST, -1, -1 },
	[T_ROOTS] = { -1, -1, -1, -1 },
	[T_STRINGS] = { S_ID, -1, -1, -1 },
	[T_FIELDS] = { F_ID, -1, -1, -1 },
	[T_RETAINED_SET] = { 1, -1, -1, -1 },
	[T_THREADS] = { -1, -1, -1, -1 },
	[T_FRAMES] = { -1, -1, -1, -1 },
	[T_ENTRIES] = { 3, -1, -1, -1 },
};

/* each table's module is the same; its aux says which table (hp_sql.tabs) */
static int connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **msg)
{
	(void)argc;
	(void)argv;
	(void)msg;
	struct tab *tb = aux;
	hp_sql *q = tb->q;
	int was = q->declaring;
	q->declaring = 1;             /* (the authorizer lets the table's own CREATE through) */
	int rc = sqlite3_declare_vtab(db, schemas[tb->t]);
	q->declaring = was;
	if (rc != SQLITE_OK)
		return rc;
	struct vtab *v = sqlite3_malloc(sizeof *v);
	if (!v)
		return SQLITE_NOMEM;
	memset(v, 0, sizeof *v);
	v->q = q;
	v->t = tb->t;
	*out = &v->base;
	return SQLITE_OK;
}

static int disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int best_index(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	const struct vtab *v = (const struct vtab *)vt;
	int best = -1, bestk = 4;
	for (int i = 0; i < ix->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ix->aConstraint[i];
		if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		for (int k = 0; k < bestk; k++)
			if (keyed[v->t][k] == c->iColumn) {
				best = i;
				bestk = k;
				break;
			}
	}
	const hp_heap *h = v->q->h;
	double rows = v->t == T_CLASSES ? (double)h->nclasses : v->t == T_ROOTS ? (double)h->nroots :
		      v->t == T_FIELDS ? (double)h->nobj * 50 : v->t == T_STRINGS ? (double)h->nobj * 10 :
		      (double)h->nobj * (v->t == T_REFS ? 3 : 1);
	if (best < 0 && (v->t == T_RETAINED_SET || v->t == T_ENTRIES)) {
		/* (no plan without the object: SQLite says "no query solution") */
		return SQLITE_CONSTRAINT;
	}
	if (best < 0) {
		ix->idxNum = 0;
		ix->estimatedCost = rows;
		ix->estimatedRows = (sqlite3_int64)rows;
		/* GROUP BY, ORDER BY or DISTINCT on class or class_id alone: a
		 * scan class by class delivers it, with no sorter of every row */
		if (v->t == T_OBJECTS && ix->nOrderBy == 1 && !ix->aOrderBy[0].desc &&
		    (ix->aOrderBy[0].iColumn == O_CLASS || ix->aOrderBy[0].iColumn == O_CLASS_ID)) {
			ix->idxNum = ix->aOrderBy[0].iColumn == O_CLASS ? IDX_BY_NAME : IDX_BY_ID;
			ix->orderByConsumed = 1;
		}
		return SQLITE_OK;
	}
	ix->idxNum = ix->aConstraint[best].iColumn + 1;
	ix->aConstraintUsage[best].argvIndex = 1;
	ix->aConstraintUsage[best].omit = 1;
	/* an id names one row; a class or a dominator, some */
	double few = bestk == 0 ? 1 : 100;
	ix->estimatedCost = few;
	ix->estimatedRows = (sqlite3_int64)few;
	if (bestk == 0 && v->t != T_REFS)
		ix->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
	return SQLITE_OK;
}

static int open_cursor(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	(void)vt;
	struct cursor *c = sqlite3_malloc(sizeof *c);
	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*out = &c->base;
	return SQLITE_OK;
}

static int close_cursor(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	hp_objread_release(&c->od);
	hp_free_all(c->owned, c->lab, c->ents);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* a scan in class order: on to the next class with objects when this one is done */
static void next_class(struct cursor *c, const hp_sql *q)
{
	while (c->i >= c->hi && c->p < c->np) {
		uint32_t k = c->order[c->p++];
		c->i = q->by_cls_off[k];
		c->hi = q->by_cls_off[k + 1];
	}
}

static void cursor_row(struct cursor *c)
{
	if (c->list32)
		c->row = c->i < c->hi ? c->list32[c->i] : 0;
	else if (c->list64)
		c->row = c->i < c->hi ? c->list64[c->i] : 0;
	else
		c->row = c->i;
}

/* an object's number from its id (an integer), or SIZE_MAX */
static size_t object_of(const hp_heap *h, sqlite3_value *a)
{
	if (sqlite3_value_type(a) != SQLITE_INTEGER)
		return SIZE_MAX;
	return hp_heap_find(h, (uint64_t)sqlite3_value_int64(a));
}

/* a class's index from its class object's id, or SIZE_MAX */
static size_t class_of(const hp_heap *h, sqlite3_value *a)
{
	if (sqlite3_value_type(a) != SQLITE_INTEGER)
		return SIZE_MAX;
	size_t k = hp_idmap_get(&h->class_map, (uint64_t)sqlite3_value_int64(a));
	return k == HP_IDMAP_NONE ? SIZE_MAX : k;
}

static int by_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* the objects of the classes marked in want, by number, into the
 * cursor's own list: one pass over the class column (a one-shot query
 * naming a class: cheaper than the session's list of every class, which
 * the bench dump's one-class count took from 0.39 to 0.55 s) */
static int objects_scanned(hp_sql *q, struct cursor *c, const uint8_t *want)
{
	const hp_heap *h = q->h;
	size_t n = 0;
	for (size_t v = 0; v < h->nobj; v++)
		n += want[h->cls[v]];
	uint32_t *list = hp_reallocarray(NULL, n ? n : 1, sizeof *list);
	if (!list)
		return SQLITE_NOMEM;
	n = 0;
	for (size_t v = 0; v < h->nobj; v++)
		if (want[h->cls[v]])
			list[n++] = (uint32_t)v;
	c->owned = list;
	c->list32 = list;
	c->hi = n;
	return SQLITE_OK;
}

/* the objects of the classes marked in want (h->nclasses bytes), by
 * number: one class's are the session's list (hp_session_by_class()),
 * several classes' a list of the cursor's own; when the session has no
 * list yet and this query has made none, objects_scanned() */
static int objects_of(hp_sql *q, struct cursor *c, const uint8_t *want)
{
	const hp_heap *h = q->h;
	if (!q->by_cls && !hp_session_by_class_made(q->S))
		return objects_scanned(q, c, want);
	int rc = need_by_cls(q);
	if (rc != SQLITE_OK)
		return rc;
	const uint32_t *off = q->by_cls_off;
	size_t n = 0, parts = 0, one = 0;
	for (size_t k = 0; k < h->nclasses; k++)
		if (want[k]) {
			n += off[k + 1] - off[k];
			parts++;
			one = k;
		}
	if (parts == 1) {
		c->list32 = q->by_cls + off[one];
		c->hi = n;
		return SQLITE_OK;
	}
	uint32_t *list = hp_reallocarray(NULL, n ? n : 1, sizeof *list);
	if (!list)
		return SQLITE_NOMEM;
	n = 0;
	for (size_t k = 0; k < h->nclasses; k++)
		if (want[k]) {
			memcpy(list + n, q->by_cls + off[k], (off[k + 1] - off[k]) * sizeof *list);
			n += off[k + 1] - off[k];
		}
	qsort(list, n, sizeof *list, by_u32);
	c->owned = list;
	c->list32 = list;
	c->hi = n;
	return SQLITE_OK;
}

/* the objects of every class named s (one per class loader), or of the
 * class whose class object is id k (s NULL) */
static int objects_named(hp_sql *q, struct cursor *c, const char *s, size_t k)
{
	const hp_heap *h = q->h;
	uint8_t *want = hp_calloc(h->nclasses ? h->nclasses : 1, 1);
	if (!want)
		return SQLITE_NOMEM;
	int any = 0;
	for (size_t i = 0; i < h->nclasses; i++)
		if (s ? !strcmp(hp_class_name(h, i), s) : i == k)
			want[i] = 1, any = 1;
	int rc = any ? objects_of(q, c, want) : SQLITE_OK;
	hp_free(want);
	return rc;
}

/* the session's object reader into q->rd (once): HP_OK, else q->err says why */
static int open_rd(hp_sql *q)
{
	if (q->rd)
		return HP_OK;
	hp_error_clear(&q->err);
	if (hp_session_objread(q->S, &q->rd, &q->err) != HP_OK) {
		q->rd = NULL;
		return q->err.code ? q->err.code : HP_EIO;
	}
	return HP_OK;
}

static void vt_error(sqlite3_vtab *vt, const char *msg)
{
	sqlite3_free(vt->zErrMsg);
	vt->zErrMsg = sqlite3_mprintf("%s", msg);
}

/* fields: from the cursor's object on, the first with fields, decoded
 * (instances: theirs; class objects: the statics); SQLITE_OK at the end too */
static int fields_settle(struct cursor *c, hp_sql *q, sqlite3_vtab *vt)
{
	const hp_heap *h = q->h;
	hp_objread_release(&c->od);
	memset(&c->od, 0, sizeof c->od);
	c->f = 0;
	if (c->i < c->hi && open_rd(q) != HP_OK) {
		vt_error(vt, q->err.msg);
		return SQLITE_ERROR;
	}
	for (; c->i < c->hi; c->i++) {
		size_t v = (size_t)c->i;
		int kind = hp_heap_kind(h, v);
		if (kind != HP_OBJ_INSTANCE && kind != HP_OBJ_CLASS)
			continue;
		hp_error_clear(&q->err);
		if (hp_objread_decode(q->rd, v, 0, &c->od, &q->err) != HP_OK) {
			vt_error(vt, q->err.msg);
			return SQLITE_ERROR;
		}
		if (c->od.nfields)
			break;
		hp_objread_release(&c->od);
		memset(&c->od, 0, sizeof c->od);
	}
	c->row = c->i * 65536;
	return SQLITE_OK;
}

/* entries: each of a collection's, into the cursor's own list */
struct gather {
	struct hp_entry *e;
	size_t n, cap;
	int nomem;
};

static int gather_entry(void *ud, const struct hp_entry *e)
{
	struct gather *g = ud;
	if (g->n == g->cap) {
		struct hp_entry *t = hp_grow(g->e, &g->cap, g->n + 1, 64, sizeof *t);
		if (!t)
			return g->nomem = 1;
		g->e = t;
	}
	g->e[g->n++] = *e;
	return 0;
}

static int entries_of(hp_sql *q, struct cursor *c, sqlite3_vtab *vt, size_t v)
{
	if (open_rd(q) != HP_OK) {
		vt_error(vt, q->err.msg);
		return SQLITE_ERROR;
	}
	struct gather g = { 0 };
	int map;
	hp_error_clear(&q->err);
	int rc = hp_collection_walk(q->h, q->rd, (uint32_t)v, gather_entry, &g, &map, &q->err);
	if (rc != HP_OK || g.nomem) {
		hp_free(g.e);
		if (g.nomem)
			return SQLITE_NOMEM;
		vt_error(vt, q->err.msg);
		return SQLITE_ERROR;
	}
	hp_free(c->ents);
	c->ents = g.e;
	c->ents_map = map == 1;
	c->hi = map < 0 ? 0 : g.n;
	return SQLITE_OK;
}

/* retained_set: the dominator subtree of v, v first, into the cursor's own
 * list (a stack of its own: as deep as the tree, never the C stack) */
static int subtree_of(hp_sql *q, struct cursor *c, uint32_t v)
{
	const struct hp_retained *R = q->R;
	if (R->dom.idom[v] == HP_DOM_UNREACHABLE)
		return SQLITE_OK;
	size_t n = 0, cap = 0, sn = 1, scap = 64;
	uint32_t *list = NULL, *stack = hp_reallocarray(NULL, scap, sizeof *stack);
	if (!stack)
		return SQLITE_NOMEM;
	stack[0] = v;
	while (sn) {
		uint32_t u = stack[--sn];
		if (n == cap) {
			uint32_t *t = hp_grow(list, &cap, n + 1, 1024, sizeof *list);
			if (!t)
				goto nomem;
			list = t;
		}
		list[n++] = u;
		uint32_t a = R->child_off[u], b = R->child_off[u + 1];
		if (sn + (b - a) > scap) {
			uint32_t *t = hp_grow(stack, &scap, sn + (b - a), 64, sizeof *stack);
			if (!t)
				goto nomem;
			stack = t;
		}
		for (uint32_t k = b; k > a; k--)
			stack[sn++] = R->children[k - 1];
	}
	hp_free(stack);
	c->owned = list;
	c->list32 = list;
	c->hi = n;
	return SQLITE_OK;
nomem:
	hp_free_all(list, stack);
	return SQLITE_NOMEM;
}

/* threads and frames: the dump's threads as the threads command finds them
 * (their Thread objects' fields read; retained sizes only when asked) */
static int need_threads(hp_sql *q, sqlite3_vtab *vt)
{
	if (q->T_done)
		return SQLITE_OK;
	hp_error_clear(&q->err);
	if (open_rd(q) != HP_OK || hp_threads_collect(q->h, NULL, q->rd, &q->T, &q->err) != HP_OK) {
		vt_error(vt, q->err.msg);
		return SQLITE_ERROR;
	}
	q->T_done = 1;
	return SQLITE_OK;
}

/* frames: from thread c->i on, the first with a frame at c->f */
static void frames_settle(struct cursor *c, const hp_sql *q)
{
	while (c->i < c->hi && c->f >= q->T.t[c->i].nframes) {
		c->i++;
		c->f = 0;
	}
	c->row = c->i * 65536 + c->f;
}

static int need_strings(hp_sql *q)
{
	if (q->str_objs)
		return SQLITE_OK;
	struct cursor tmp;
	memset(&tmp, 0, sizeof tmp);
	int rc = objects_named(q, &tmp, "java.lang.String", 0);
	if (rc != SQLITE_OK)
		return rc;
	if (!tmp.list32 && !(tmp.owned = hp_calloc(1, sizeof *tmp.owned)))
		return SQLITE_NOMEM;
	q->str_owned = tmp.owned;
	q->str_objs = tmp.list32 ? tmp.list32 : tmp.owned;
	q->nstr = tmp.hi;
	return SQLITE_OK;
}

static int filter(sqlite3_vtab_cursor *cur, int idx, const char *idxs, int argc, sqlite3_value **argv)
{
	(void)idxs;
	(void)argc;
	struct cursor *c = (struct cursor *)cur;
	struct vtab *v = (struct vtab *)cur->pVtab;
	hp_sql *q = v->q;
	const hp_heap *h = q->h;
	hp_free(c->owned);
	c->owned = NULL;
	c->list32 = NULL;
	c->list64 = NULL;
	c->order = NULL;
	c->i = c->hi = 0;
	int rc = SQLITE_OK, col = idx - 1;
	if (idx == IDX_BY_NAME || idx == IDX_BY_ID) {
		if ((rc = need_order(q, idx == IDX_BY_ID)) != SQLITE_OK)
			return rc;
		c->order = q->cls_order[idx == IDX_BY_ID];
		c->p = 0;
		c->np = h->nclasses;
		c->list32 = q->by_cls;
		next_class(c, q);
		cursor_row(c);
		return SQLITE_OK;
	}
	if (v->t == T_REFS && ((rc = need_R(q, cur->pVtab, NEED_GRAPH)) != SQLITE_OK || (rc = need_rows(q)) != SQLITE_OK))
		return rc;
	if (v->t == T_ROOTS) {
		c->hi = h->nroots;
	} else if (v->t == T_STRINGS) {
		if ((rc = need_strings(q)) != SQLITE_OK)
			return rc;
		if (idx == 0) {
			c->list32 = q->str_objs;
			c->hi = q->nstr;
		} else {
			size_t o = object_of(h, argv[0]);
			c->i = o;
			c->hi = o != SIZE_MAX && hp_objread_is_string(h, o) ? o + 1 : 0;
		}
	} else if (v->t == T_THREADS || v->t == T_FRAMES) {
		if ((rc = need_threads(q, cur->pVtab)) != SQLITE_OK)
			return rc;
		c->hi = q->T.n;
		c->f = 0;
		if (v->t == T_FRAMES) {
			frames_settle(c, q);
			return SQLITE_OK;
		}
	} else if (v->t == T_ENTRIES) {
		size_t o = object_of(h, argv[0]);
		if (o != SIZE_MAX && (rc = entries_of(q, c, cur->pVtab, o)) != SQLITE_OK)
			return rc;
	} else if (v->t == T_RETAINED_SET) {
		if ((rc = need_R(q, cur->pVtab, NEED_TREE)) != SQLITE_OK)
			return rc;
		size_t o = object_of(h, argv[0]);
		if (o != SIZE_MAX && (rc = subtree_of(q, c, (uint32_t)o)) != SQLITE_OK)
			return rc;
	} else if (v->t == T_FIELDS) {
		size_t o = idx ? object_of(h, argv[0]) : 0;
		c->i = idx && o == SIZE_MAX ? 0 : o;
		c->hi = idx ? (o == SIZE_MAX ? 0 : o + 1) : h->nobj;
		return fields_settle(c, q, cur->pVtab);
	} else if (idx == 0) {
		c->hi = v->t == T_CLASSES ? h->nclasses : v->t == T_OBJECTS ? h->nobj : row_of(q, q->R->refs.n);
	} else if (v->t == T_OBJECTS && col == O_ID) {
		size_t o = object_of(h, argv[0]);
		c->i = o == SIZE_MAX ? 0 : o;
		c->hi = o == SIZE_MAX ? 0 : o + 1;
	} else if (v->t == T_OBJECTS && col == O_CLASS) {
		const unsigned char *name = sqlite3_value_text(argv[0]);
		if (name && (rc = objects_named(q, c, (const char *)name, 0)) != SQLITE_OK)
			return rc;
	} else if (v->t == T_OBJECTS && col == O_CLASS_ID) {
		size_t k = class_of(h, argv[0]);
		if (k != SIZE_MAX && (rc = objects_named(q, c, NULL, k)) != SQLITE_OK)
			return rc;
	} else if (v->t == T_OBJECTS && col == O_IDOM) {
		if ((rc = need_R(q, cur->pVtab, NEED_TREE)) != SQLITE_OK)
			return rc;
		size_t o = object_of(h, argv[0]);
		c->list32 = q->R->children;
		c->i = o == SIZE_MAX ? 0 : q->R->child_off[o];
		c->hi = o == SIZE_MAX ? 0 : q->R->child_off[o + 1];
	} else if (v->t == T_CLASSES) {
		size_t k = class_of(h, argv[0]);
		c->i = k == SIZE_MAX ? 0 : k;
		c->hi = k == SIZE_MAX ? 0 : k + 1;
	} else if (col == R_SRC) {
		size_t o = object_of(h, argv[0]);
		c->i = o == SIZE_MAX ? 0 : row_of(q, o);
		c->hi = o == SIZE_MAX ? 0 : row_of(q, o + 1);
	} else {
		if ((rc = need_rev(q)) != SQLITE_OK)
			return rc;
		size_t o = object_of(h, argv[0]);
		c->list64 = q->rev_edge;
		c->i = o == SIZE_MAX ? 0 : q->rev_off[o];
		c->hi = o == SIZE_MAX ? 0 : q->rev_off[o + 1];
	}
	cursor_row(c);
	return SQLITE_OK;
}

static int next(sqlite3_vtab_cursor *cur)
{
	struct cursor *c = (struct cursor *)cur;
	if (((const struct vtab *)cur->pVtab)->t == T_FIELDS) {
		if (++c->f < c->od.nfields) {
			c->row++;
			return SQLITE_OK;
		}
		c->i++;
		return fields_settle(c, ((const struct vtab *)cur->pVtab)->q, cur->pVtab);
	}
	if (((const struct vtab *)cur->pVtab)->t == T_FRAMES) {
		c->f++;
		frames_settle(c, ((const struct vtab *)cur->pVtab)->q);
		return SQLITE_OK;
	}
	c->i++;
	if (c->order)
		next_class(c, ((const struct vtab *)cur->pVtab)->q);
	cursor_row(c);
	return SQLITE_OK;
}

static int eof(sqlite3_vtab_cursor *cur)
{
	const struct cursor *c = (const struct cursor *)cur;
	return c->i >= c->hi;
}

static int rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *out)
{
	*out = (sqlite3_int64)((const struct cursor *)cur)->row;
	return SQLITE_OK;
}

static void result_id(sqlite3_context *ctx, uint64_t id)
{
	if (id)
		sqlite3_result_int64(ctx, (sqlite3_int64)id);
	else
		sqlite3_result_null(ctx);
}

static const char *const kind_names[] = { "instance", "object array", "primitive array", "class" };

/* "thread, JNI global": the kinds of a root bit set */
static void result_root_kinds(sqlite3_context *ctx, unsigned bits)
{
	char buf[512];
	size_t o = 0;
	buf[0] = '\0';
	for (int k = 0; k < HP_ROOT_NKINDS && k < 16; k++)
		if (bits & (1u << k)) {
			int m = snprintf(buf + o, sizeof buf - o, "%s%s", o ? ", " : "", hp_root_kind_name(k));
			if (m < 0 || (size_t)m >= sizeof buf - o)
				break;
			o += (size_t)m;
		}
	if (o)
		sqlite3_result_text(ctx, buf, (int)o, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

/* (each column reads only its own arrays: a scan of every object touches
 * no more memory than the columns it asks for) */
static int object_column(hp_sql *q, sqlite3_vtab *vt, size_t v, int col, sqlite3_context *ctx)
{
	const hp_heap *h = q->h;
	int kind, rc;
	switch (col) {
	case O_ID: sqlite3_result_int64(ctx, (sqlite3_int64)hp_heap_id(h, v)); break;
	case O_CLASS:
		sqlite3_result_text(ctx, hp_class_name(h, h->cls[v]), q->cls_name_len[h->cls[v]], SQLITE_STATIC);
		break;
	case O_CLASS_ID: result_id(ctx, h->classes[h->cls[v]].id); break;
	case O_KIND: sqlite3_result_text(ctx, kind_names[hp_heap_kind(h, v) & 3], -1, SQLITE_STATIC); break;
	case O_SHALLOW: sqlite3_result_int64(ctx, (sqlite3_int64)hp_heap_shallow(h, v)); break;
	case O_HEAP:
		if (hp_heap_android(h) && hp_heap_heap(h, v) < h->nheaps)
			sqlite3_result_text(ctx, hp_heap_name(h, hp_heap_heap(h, v)), -1, SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		break;
	case O_LENGTH:
		kind = hp_heap_kind(h, v);
		if (kind == HP_OBJ_OBJARRAY || kind == HP_OBJ_PRIMARRAY)
			sqlite3_result_int64(ctx, h->len[v]);
		else
			sqlite3_result_null(ctx);
		break;
	case O_RETAINED:
		if ((rc = need_R(q, vt, NEED_VALUES)) != SQLITE_OK)
			return rc;
		sqlite3_result_int64(ctx, (sqlite3_int64)q->R->retained[v]);
		break;
	case O_ROOT_KINDS:
		if ((rc = need_R(q, vt, NEED_VALUES)) != SQLITE_OK)
			return rc;
		result_root_kinds(ctx, q->R->root_kinds ? q->R->root_kinds[v] : 0);
		break;
	default: {
		if ((rc = need_R(q, vt, NEED_VALUES)) != SQLITE_OK)
			return rc;
		uint32_t d = q->R->dom.idom[v];
		if (col == O_REACHABLE)
			sqlite3_result_int(ctx, d != HP_DOM_UNREACHABLE);
		else if (d == HP_DOM_UNREACHABLE || d == HP_DOM_SUPER || d >= h->nobj)
			sqlite3_result_null(ctx);   /* (values: the dominator not checked an object) */
		else
			sqlite3_result_int64(ctx, (sqlite3_int64)hp_heap_id(h, d));
	}
	}
	return SQLITE_OK;
}

static int class_column(hp_sql *q, sqlite3_vtab *vt, size_t i, int col, sqlite3_context *ctx)
{
	const struct hp_class *k = &q->h->classes[i];
	int rc;
	switch (col) {
	case C_ID: result_id(ctx, k->id); break;
	case C_NAME: sqlite3_result_text(ctx, hp_class_name(q->h, i), q->cls_name_len[i], SQLITE_STATIC); break;
	case C_SUPER: result_id(ctx, k->super_id); break;
	case C_LOADER: result_id(ctx, k->loader_id); break;
	case C_INSTANCES: sqlite3_result_int64(ctx, (sqlite3_int64)q->cls_count[i]); break;
	case C_SHALLOW: sqlite3_result_int64(ctx, (sqlite3_int64)q->cls_shallow[i]); break;
	case C_INSTANCE_SIZE: sqlite3_result_int64(ctx, (sqlite3_int64)k->inst_size); break;
	default:
		if ((rc = need_R(q, vt, NEED_SUMS)) != SQLITE_OK)
			return rc;
		sqlite3_result_int64(ctx, (sqlite3_int64)q->R->class_retained[i]);
	}
	return SQLITE_OK;
}

static void result_value(sqlite3_context *ctx, const struct hp_objval *f);

static int root_column(hp_sql *q, size_t i, int col, sqlite3_context *ctx)
{
	const hp_heap *h = q->h;
	const struct hp_root_rec *r = &h->roots[i];
	uint32_t t;
	switch (col) {
	case RT_ID: sqlite3_result_int64(ctx, (sqlite3_int64)r->object); break;
	case RT_KIND: sqlite3_result_text(ctx, hp_root_kind_name(r->kind), -1, SQLITE_STATIC); break;
	case RT_THREAD:
		t = r->has_thread ? hp_idmap_get(&h->thread_map, r->thread_serial) : HP_IDMAP_NONE;
		if (t != HP_IDMAP_NONE && t < h->nthreads)
			result_id(ctx, h->threads[t].object_id);
		else
			sqlite3_result_null(ctx);
		break;
	default:
		if (r->has_thread && (r->kind == HP_ROOT_JAVA_FRAME || r->kind == HP_ROOT_JNI_LOCAL) && r->frame != UINT32_MAX)
			sqlite3_result_int64(ctx, r->frame);
		else
			sqlite3_result_null(ctx);
	}
	return SQLITE_OK;
}

static int string_column(hp_sql *q, sqlite3_vtab *vt, size_t v, int col, sqlite3_context *ctx)
{
	if (col == S_ID) {
		sqlite3_result_int64(ctx, (sqlite3_int64)hp_heap_id(q->h, v));
		return SQLITE_OK;
	}
	if (open_rd(q) != HP_OK) {
		vt_error(vt, q->err.msg);
		return SQLITE_ERROR;
	}
	struct hp_text t = { 0 };
	hp_error_clear(&q->err);
	if (hp_objread_text(q->rd, v, 0, &t, &q->err) != HP_OK) {
		vt_error(vt, q->err.msg);
		return SQLITE_ERROR;
	}
	if (!t.utf8)
		sqlite3_result_null(ctx);
	else if (col == S_VALUE)
		sqlite3_result_text(ctx, t.utf8, (int)(t.len < INT32_MAX ? t.len : INT32_MAX), SQLITE_TRANSIENT);
	else
		sqlite3_result_int64(ctx, (sqlite3_int64)t.chars);
	hp_objread_text_release(&t);
	return SQLITE_OK;
}

static int field_column(hp_sql *q, const struct cursor *c, int col, sqlite3_context *ctx)
{
	const struct hp_objval *f = &c->od.fields[c->f];
	switch (col) {
	case F_ID: sqlite3_result_int64(ctx, (sqlite3_int64)hp_heap_id(q->h, c->i)); break;
	case F_NAME: sqlite3_result_text(ctx, f->name ? f->name : "?", -1, SQLITE_TRANSIENT); break;
	case F_TYPE: {
		const char *t = f->type == HP_T_OBJECT ? "object" : hp_type_name(f->type);
		sqlite3_result_text(ctx, t ? t : "?", -1, SQLITE_STATIC);
		break;
	}
	case F_VALUE:
		if (f->type == HP_T_OBJECT)
			sqlite3_result_null(ctx);
		else
			result_value(ctx, f);
		break;
	case F_REF:
		if (f->type == HP_T_OBJECT)
			result_id(ctx, f->bits);
		else
			sqlite3_result_null(ctx);
		break;
	default: sqlite3_result_int(ctx, c->od.kind == HP_OBJ_CLASS);
	}
	return SQLITE_OK;
}

/* a thread's id: its Thread object's, else the one its record names */
static void result_thread(sqlite3_context *ctx, const hp_heap *h, const struct hp_thread_info *t)
{
	if (t->obj != SIZE_MAX)
		sqlite3_result_int64(ctx, (sqlite3_int64)hp_heap_id(h, t->obj));
	else
		result_id(ctx, h->threads[t->rec].object_id);
}

static int thread_column(hp_sql *q, sqlite3_vtab *vt, const struct hp_thread_info *t, int col, sqlite3_context *ctx)
{
	const hp_heap *h = q->h;
	int rc;
	switch (col) {
	case TH_ID:
		result_thread(ctx, h, t);
		break;
	case TH_SERIAL: sqlite3_result_int64(ctx, t->serial); break;
	case TH_NAME: {
		struct hp_text x = { 0 };
		hp_error_clear(&q->err);
		if (t->obj == SIZE_MAX) {
			sqlite3_result_null(ctx);
		} else if (hp_objread_thread_name(q->rd, t->obj, 0, &x, &q->err) != HP_OK) {
			vt_error(vt, q->err.msg);
			return SQLITE_ERROR;
		} else if (x.utf8) {
			sqlite3_result_text(ctx, x.utf8, (int)(x.len < INT32_MAX ? x.len : INT32_MAX), SQLITE_TRANSIENT);
		} else {
			sqlite3_result_null(ctx);
		}
		hp_objread_text_release(&x);
		break;
	}
	case TH_STATE:
		if (t->state)
			sqlite3_result_text(ctx, t->state, -1, SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		break;
	case TH_DAEMON:
	case TH_PRIORITY: {
		int x = col == TH_DAEMON ? t->daemon : t->priority;
		if (x >= 0)
			sqlite3_result_int(ctx, x);
		else
			sqlite3_result_null(ctx);
		break;
	}
	case TH_FRAMES: sqlite3_result_int64(ctx, t->nframes); break;
	default:
		if (t->obj == SIZE_MAX) {
			sqlite3_result_null(ctx);
			break;
		}
		if ((rc = need_R(q, vt, NEED_VALUES)) != SQLITE_OK)
			return rc;
		sqlite3_result_int64(ctx, (sqlite3_int64)q->R->retained[t->obj]);
	}
	return SQLITE_OK;
}

/* a name from the dump's string table, NULL when it has none */
static void result_sid(sqlite3_context *ctx, const hp_heap *h, uint64_t sid)
{
	uint32_t n = 0;
	const char *s = sid ? hp_heap_string(h, sid, &n) : NULL;
	if (s)
		sqlite3_result_text(ctx, s, (int)n, SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
}

static int frame_column(hp_sql *q, const struct hp_thread_info *t, uint32_t depth, int col, sqlite3_context *ctx)
{
	const hp_heap *h = q->h;
	const struct hp_frame *fr = hp_trace_frame(h, t->trace, depth);
	uint32_t k;
	switch (col) {
	case FR_THREAD:
		result_thread(ctx, h, t);
		break;
	case FR_DEPTH: sqlite3_result_int64(ctx, depth); break;
	case FR_CLASS:
		k = fr ? hp_idmap_get(&h->serial_map, fr->class_serial) : HP_IDMAP_NONE;
		if (k != HP_IDMAP_NONE && k < h->nclasses)
			sqlite3_result_text(ctx, hp_class_name(h, k), q->cls_name_len[k], SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		break;
	case FR_METHOD: if (fr) result_sid(ctx, h, fr->method_sid); else sqlite3_result_null(ctx); break;
	case FR_SIGNATURE: if (fr) result_sid(ctx, h, fr->signature_sid); else sqlite3_result_null(ctx); break;
	case FR_FILE: if (fr) result_sid(ctx, h, fr->source_sid); else sqlite3_result_null(ctx); break;
	default:
		if (fr && fr->line > 0)
			sqlite3_result_int64(ctx, fr->line);
		else
			sqlite3_result_null(ctx);
	}
	return SQLITE_OK;
}

/* the object whose edges hold row e (the last v with row_of(v) <= e) */
static size_t edge_src(const hp_sql *q, uint64_t e)
{
	size_t lo = 0, hi = q->R->refs.n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (row_of(q, mid) <= e)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* how src holds each of its edges, into the cursor (once per src) */
static int ref_labels(hp_sql *q, struct cursor *c, sqlite3_vtab *vt, size_t src)
{
	const struct hp_refs *r = &q->R->refs;
	if (c->lab && c->lab_src == src)
		return SQLITE_OK;
	hp_free(c->lab);
	c->lab = NULL;
	uint64_t a = hp_refs_off(r, src), b = hp_refs_off(r, src + 1);   /* (the class edge is not
									      among them: labelled without the record) */
	if (open_rd(q) != HP_OK) {
		vt_error(vt, q->err.msg);
		return SQLITE_ERROR;
	}
	c->lab = hp_reallocarray(NULL, b > a ? (size_t)(b - a) : 1, sizeof *c->lab);
	if (!c->lab)
		return SQLITE_NOMEM;
	hp_error_clear(&q->err);
	if (hp_objread_edge_refs(q->rd, src, r->adj + a, (size_t)(b - a), c->lab, &q->err) != HP_OK) {
		hp_free(c->lab);
		c->lab = NULL;
		vt_error(vt, q->err.msg);
		return SQLITE_ERROR;
	}
	c->lab_src = src;
	return SQLITE_OK;
}

/* refs' kinds: what the referent field of each reference kind
 * (hp_refs_reference_kind()) is called, and the other links */
static const char *const referent_kinds[] = { "strong", "soft", "weak", "final", "phantom", "final" };

static int ref_column(hp_sql *q, struct cursor *c, sqlite3_vtab *vt, int col, sqlite3_context *ctx)
{
	size_t src = edge_src(q, c->row);
	if (col == R_SRC || col == R_DST) {
		sqlite3_result_int64(ctx, (sqlite3_int64)hp_heap_id(q->h, col == R_SRC ? src : row_dst(q, src, c->row)));
		return SQLITE_OK;
	}
	uint64_t a = row_of(q, src);
	if (row_has_class(q, src) && c->row == a) {
		if (col == R_KIND)
			sqlite3_result_text(ctx, "class", -1, SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	int rc = ref_labels(q, c, vt, src);
	if (rc != SQLITE_OK)
		return rc;
	if (row_has_class(q, src))
		a++;
	const struct hp_objref *o = &c->lab[c->row - a];
	if (col == R_FIELD) {
		if (o->name)
			sqlite3_result_text(ctx, o->name, -1, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(ctx);
	} else if (col == R_IDX) {
		if (o->kind == HP_REF_ELEMENT)
			sqlite3_result_int64(ctx, (sqlite3_int64)o->index);
		else
			sqlite3_result_null(ctx);
	} else {
		int rk = o->kind == HP_REF_FIELD && o->name && !strcmp(o->name, "referent") ?
			 hp_refs_reference_kind(q->h, q->h->cls[src]) : 0;
		const char *k = o->kind == HP_REF_STATIC ? "static" : o->kind == HP_REF_SUPER ? "super" :
				o->kind == HP_REF_LOADER ? "loader" : o->kind == HP_REF_LOCAL ? "local" :
				o->kind == HP_REF_CLASS ? "class" : o->kind == HP_REF_NONE ? "unknown" :
				referent_kinds[rk >= 0 && rk <= 5 ? rk : 0];
		sqlite3_result_text(ctx, k, -1, SQLITE_STATIC);
	}
	return SQLITE_OK;
}

static int column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	const struct cursor *c = (const struct cursor *)cur;
	struct vtab *v = (struct vtab *)cur->pVtab;
	hp_sql *q = v->q;
	if (v->t == T_OBJECTS)
		return object_column(q, cur->pVtab, (size_t)c->row, col, ctx);
	if (v->t == T_CLASSES)
		return class_column(q, cur->pVtab, (size_t)c->row, col, ctx);
	if (v->t == T_ROOTS)
		return root_column(q, (size_t)c->row, col, ctx);
	if (v->t == T_STRINGS)
		return string_column(q, cur->pVtab, (size_t)c->row, col, ctx);
	if (v->t == T_FIELDS)
		return field_column(q, c, col, ctx);
	if (v->t == T_RETAINED_SET) {
		sqlite3_result_int64(ctx, (sqlite3_int64)hp_heap_id(q->h, c->row));
		return SQLITE_OK;
	}
	if (v->t == T_ENTRIES) {
		const struct hp_entry *e = &c->ents[c->i];
		if (col == 0)
			sqlite3_result_int64(ctx, (sqlite3_int64)e->index);
		else if (col == 1 && c->ents_map && e->key_type)
			sqlite3_result_int64(ctx, (sqlite3_int64)e->key_bits);
		else if (col == 1 && c->ents_map)
			result_id(ctx, e->key);
		else if (col == 2)
			result_id(ctx, e->value);
		else
			sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	if (v->t == T_THREADS)
		return thread_column(q, cur->pVtab, &q->T.t[c->row], col, ctx);
	if (v->t == T_FRAMES)
		return frame_column(q, &q->T.t[c->i], (uint32_t)c->f, col, ctx);
	return ref_column(q, (struct cursor *)cur, cur->pVtab, col, ctx);
}

static const sqlite3_module module = {
	.iVersion = 1, .xConnect = connect, .xBestIndex = best_index, .xDisconnect = disconnect,
	.xOpen = open_cursor, .xClose = close_cursor, .xFilter = filter, .xNext = next, .xEof = eof,
	.xColumn = column, .xRowid = rowid,
};
static const char *const module_names[T_N] = { "objects", "classes", "refs", "roots", "strings", "fields",
					       "retained_set", "threads", "frames", "entries" };

/* ---- functions ------------------------------------------------------------ */

static hp_objread *reader(hp_sql *q, sqlite3_context *ctx)
{
	if (open_rd(q) != HP_OK) {
		sqlite3_result_error(ctx, q->err.msg, -1);
		return NULL;
	}
	return q->rd;
}

/* a function's instance argument: the reader, with *v the instance; NULL
 * with the result set (NULL for no instance, or the error) */
static hp_objread *instance_arg(hp_sql *q, sqlite3_context *ctx, sqlite3_value *a, size_t *v)
{
	*v = object_of(q->h, a);
	if (*v == SIZE_MAX || hp_heap_kind(q->h, *v) != HP_OBJ_INSTANCE) {
		sqlite3_result_null(ctx);
		return NULL;
	}
	return reader(q, ctx);
}

/* str(id): the text of a String, a char[] or a byte[]; NULL for others */
static void fn_str(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	hp_sql *q = sqlite3_user_data(ctx);
	size_t v = object_of(q->h, argv[0]);
	if (v == SIZE_MAX) {
		sqlite3_result_null(ctx);
		return;
	}
	hp_objread *rd = reader(q, ctx);
	if (!rd)
		return;
	struct hp_text t = { 0 };
	hp_error_clear(&q->err);
	if (hp_objread_text(rd, v, 0, &t, &q->err) != HP_OK) {
		sqlite3_result_error(ctx, q->err.msg, -1);
		return;
	}
	if (t.utf8)
		sqlite3_result_text(ctx, t.utf8, (int)(t.len < INT32_MAX ? t.len : INT32_MAX), SQLITE_TRANSIENT);
	else
		sqlite3_result_null(ctx);
	hp_objread_text_release(&t);
}

/* a primitive field's value as SQL: numbers, a char as its text, a
 * boolean 0 or 1 */
static void result_value(sqlite3_context *ctx, const struct hp_objval *f)
{
	uint64_t b = f->bits;
	switch (f->type) {
	case HP_T_FLOAT: {
		/* as the shortest decimal that reads back as the same float:
		 * 9.4, not 9.39999961853027 */
		uint32_t u = (uint32_t)b;
		float x;
		memcpy(&x, &u, sizeof x);
		char t[32];
		hp_text_real(t, sizeof t, x, 1);
		double d = strtod(t, NULL);
		sqlite3_result_double(ctx, d);
		break;
	}
	case HP_T_DOUBLE: {
		double x;
		memcpy(&x, &b, sizeof x);
		sqlite3_result_double(ctx, x);
		break;
	}
	case HP_T_CHAR: {
		char u[4];
		unsigned c = (unsigned)(b & 0xffff);
		int n = c < 0x80 ? (u[0] = (char)c, 1) : c < 0x800 ?
			(u[0] = (char)(0xc0 | c >> 6), u[1] = (char)(0x80 | (c & 63)), 2) :
			(u[0] = (char)(0xe0 | c >> 12), u[1] = (char)(0x80 | ((c >> 6) & 63)), u[2] = (char)(0x80 | (c & 63)), 3);
		sqlite3_result_text(ctx, u, n, SQLITE_TRANSIENT);
		break;
	}
	case HP_T_BOOLEAN: sqlite3_result_int(ctx, b != 0); break;
	case HP_T_BYTE: sqlite3_result_int64(ctx, (int8_t)(uint8_t)b); break;
	case HP_T_SHORT: sqlite3_result_int64(ctx, (int16_t)(uint16_t)b); break;
	case HP_T_INT: sqlite3_result_int64(ctx, (int32_t)(uint32_t)b); break;
	default: sqlite3_result_int64(ctx, (sqlite3_int64)b); break;
	}
}

/* field(id, name): an instance field's value (the nearest class's when
 * names repeat) or a class object's static, a reference as the id it
 * holds; NULL when there is none */
static void fn_field(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	hp_sql *q = sqlite3_user_data(ctx);
	size_t v;
	const unsigned char *name = sqlite3_value_text(argv[1]);
	v = object_of(q->h, argv[0]);
	int kind = v == SIZE_MAX ? -1 : hp_heap_kind(q->h, v);
	if (!name || (kind != HP_OBJ_INSTANCE && kind != HP_OBJ_CLASS)) {
		sqlite3_result_null(ctx);
		return;
	}
	hp_objread *rd = reader(q, ctx);
	if (!rd)
		return;
	struct hp_objdata o;
	hp_error_clear(&q->err);
	if (hp_objread_decode(rd, v, 0, &o, &q->err) != HP_OK) {
		sqlite3_result_error(ctx, q->err.msg, -1);
		return;
	}
	const struct hp_objval *f = hp_objread_field(rd, &o, (const char *)name, NULL);
	if (!f)
		sqlite3_result_null(ctx);
	else if (f->type == HP_T_OBJECT)
		result_id(ctx, f->bits);
	else
		result_value(ctx, f);
	hp_objread_release(&o);
}

/* instance_of(id, name): 1 when the object's class is name or extends it
 * (a class object: java.lang.Class), 0 when not, NULL for no object */
static void fn_instance_of(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	hp_sql *q = sqlite3_user_data(ctx);
	const hp_heap *h = q->h;
	size_t v = object_of(h, argv[0]);
	const unsigned char *name = sqlite3_value_text(argv[1]);
	if (v == SIZE_MAX || !name) {
		sqlite3_result_null(ctx);
		return;
	}
	int is = 0;
	uint32_t c = h->cls[v];
	/* a chain longer than the class table is a loop in a forged dump */
	for (size_t hops = 0; c != HP_NONE && c < h->nclasses && hops <= h->nclasses && !is; hops++) {
		is = !strcmp(hp_class_name(h, c), (const char *)name);
		c = h->classes[c].super;
	}
	sqlite3_result_int(ctx, is);
}

/* size(id): the number of entries of a JDK or Android collection (as
 * object and leaks give it); NULL for other objects and when it is unknown */
static void fn_size(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	hp_sql *q = sqlite3_user_data(ctx);
	size_t v;
	hp_objread *rd = instance_arg(q, ctx, argv[0], &v);
	if (!rd)
		return;
	struct hp_collection c;
	hp_error_clear(&q->err);
	if (hp_collection_of(q->h, rd, (uint32_t)v, &c, &q->err) != HP_OK) {
		sqlite3_result_error(ctx, q->err.msg, -1);
		return;
	}
	if (c.family && c.known)
		sqlite3_result_int64(ctx, (sqlite3_int64)c.size);
	else
		sqlite3_result_null(ctx);
}

/* map_get() and list_get(): what the walk looks for, and what it found */
struct lookup {
	hp_sql *q;
	sqlite3_value *key;           /* map_get: the key asked for */
	int64_t at;                   /* list_get: the position */
	int found;
	uint64_t value;
	int rc;                       /* an error reading a key (q->err) */
};

/* 1 when class c is or extends the class named name */
static int extends(const hp_heap *h, uint32_t c, const char *name)
{
	for (size_t hops = 0; c != HP_NONE && c < h->nclasses && hops <= h->nclasses; hops++) {
		if (!strcmp(hp_class_name(h, c), name))
			return 1;
		c = h->classes[c].super;
	}
	return 0;
}

/* whether an entry's key is the key asked for: NULL the null key; a number
 * a SparseArray's key or a boxed Integer, Long, Short, Byte or Character
 * of that value; a text a String with that text or an enum constant of
 * that name */
static int key_is(struct lookup *L, const struct hp_entry *e)
{
	hp_sql *q = L->q;
	const hp_heap *h = q->h;
	int t = sqlite3_value_type(L->key);
	if (t == SQLITE_NULL)
		return !e->key_type && !e->key;
	if (e->key_type)
		return t == SQLITE_INTEGER && (int64_t)e->key_bits == sqlite3_value_int64(L->key);
	size_t k = e->key ? hp_heap_find(h, e->key) : SIZE_MAX;
	if (k == SIZE_MAX || hp_heap_kind(h, k) != HP_OBJ_INSTANCE)
		return 0;
	const char *cn = hp_class_name(h, h->cls[k]);
	struct hp_objdata o;
	int is = 0;
	if (t == SQLITE_INTEGER) {
		static const char *const boxes[] = { "java.lang.Integer", "java.lang.Long", "java.lang.Short",
						     "java.lang.Byte", "java.lang.Character" };
		size_t b = 0;
		while (b < sizeof boxes / sizeof *boxes && strcmp(cn, boxes[b]))
			b++;
		if (b == sizeof boxes / sizeof *boxes)
			return 0;
		if ((L->rc = hp_objread_decode(q->rd, k, 0, &o, &q->err)) != HP_OK)
			return 0;
		const struct hp_objval *f = hp_objread_field(q->rd, &o, "value", NULL);
		int64_t x = !f ? 0 : f->type == HP_T_INT ? (int32_t)(uint32_t)f->bits : f->type == HP_T_SHORT ?
			    (int16_t)(uint16_t)f->bits : f->type == HP_T_BYTE ? (int8_t)(uint8_t)f->bits :
			    f->type == HP_T_CHAR ? (int64_t)(f->bits & 0xffff) : (int64_t)f->bits;
		is = f && x == sqlite3_value_int64(L->key);
		hp_objread_release(&o);
		return is;
	}
	if (t != SQLITE_TEXT)
		return 0;
	size_t str = k;
	if (!hp_objread_is_string(h, k)) {
		if (!extends(h, h->cls[k], "java.lang.Enum"))
			return 0;
		if ((L->rc = hp_objread_decode(q->rd, k, 0, &o, &q->err)) != HP_OK)
			return 0;
		const struct hp_objval *f = hp_objread_field(q->rd, &o, "name", "java.lang.Enum");
		str = f && f->type == HP_T_OBJECT && f->bits ? hp_heap_find(h, f->bits) : SIZE_MAX;
		hp_objread_release(&o);
		if (str == SIZE_MAX)
			return 0;
	}
	struct hp_text x = { 0 };
	if ((L->rc = hp_objread_text(q->rd, str, 0, &x, &q->err)) != HP_OK)
		return 0;
	const unsigned char *want = sqlite3_value_text(L->key);
	size_t n = (size_t)sqlite3_value_bytes(L->key);
	is = x.utf8 && want && x.len == n && !memcmp(x.utf8, want, n);
	hp_objread_text_release(&x);
	return is;
}

static int on_key(void *ud, const struct hp_entry *e)
{
	struct lookup *L = ud;
	if (key_is(L, e)) {
		L->found = 1;
		L->value = e->value;
	}
	return L->found || L->rc != HP_OK;
}

static int on_index(void *ud, const struct hp_entry *e)
{
	struct lookup *L = ud;
	if ((int64_t)e->index == L->at) {
		L->found = 1;
		L->value = e->value;
	}
	return L->found;
}

/* map_get(id, key) and list_get(id, i): the walk, its answer as an id */
static void walk_for(sqlite3_context *ctx, sqlite3_value *obj, struct lookup *L, int want_map)
{
	hp_sql *q = L->q;
	size_t v = object_of(q->h, obj);
	if (v == SIZE_MAX || !reader(q, ctx)) {
		if (v == SIZE_MAX)
			sqlite3_result_null(ctx);
		return;
	}
	int map;
	hp_error_clear(&q->err);
	int rc = hp_collection_walk(q->h, q->rd, (uint32_t)v, want_map ? on_key : on_index, L, &map, &q->err);
	if (rc == HP_OK)
		rc = L->rc;
	if (rc != HP_OK)
		sqlite3_result_error(ctx, q->err.msg, -1);
	else if (L->found && map == want_map && L->value)
		result_id(ctx, L->value);
	else
		sqlite3_result_null(ctx);
}

/* map_get(id, key): the value a JDK or Android map holds for key (its id;
 * NULL when it holds none, the value is null, or id is no map) */
static void fn_map_get(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct lookup L = { .q = sqlite3_user_data(ctx), .key = argv[1] };
	walk_for(ctx, argv[0], &L, 1);
}

/* list_get(id, i): element i (from 0) of a list, queue, set (in its
 * iteration order) or object array, as an id; NULL past its end */
static void fn_list_get(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct lookup L = { .q = sqlite3_user_data(ctx), .at = sqlite3_value_int64(argv[1]) };
	if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER || L.at < 0) {
		sqlite3_result_null(ctx);
		return;
	}
	walk_for(ctx, argv[0], &L, 0);
}

/* "class LeakyCache @0xfd6824d8", "java.util.HashMap @0xfd6bf400" */
static void path_node(sqlite3_str *t, const hp_heap *h, uint32_t v)
{
	if (hp_heap_kind(h, v) == HP_OBJ_CLASS) {
		uint32_t k = hp_idmap_get(&h->class_map, hp_heap_id(h, v));
		sqlite3_str_appendf(t, "class %s", k == HP_IDMAP_NONE ? "?" : hp_class_name(h, k));
	} else {
		sqlite3_str_appendf(t, "%s", h->cls[v] == HP_NONE ? "?" : hp_class_name(h, h->cls[v]));
	}
	sqlite3_str_appendf(t, " @0x%llx", (unsigned long long)hp_heap_id(h, v));
}

/* " .next", " [3]", " (super)": how a path's node holds the next one */
static void path_via(sqlite3_str *t, const struct hp_objref *r)
{
	switch (r->kind) {
	case HP_REF_FIELD:
	case HP_REF_STATIC: sqlite3_str_appendf(t, " .%s", r->name ? r->name : "?"); break;
	case HP_REF_ELEMENT: sqlite3_str_appendf(t, " [%llu]", (unsigned long long)r->index); break;
	case HP_REF_SUPER: sqlite3_str_appendf(t, " (super)"); break;
	case HP_REF_LOADER: sqlite3_str_appendf(t, " (loader)"); break;
	case HP_REF_LOCAL: sqlite3_str_appendf(t, " (local: %s)", hp_root_kind_name(r->root_kind)); break;
	case HP_REF_CLASS: sqlite3_str_appendf(t, " (class)"); break;
	default: break;
	}
	sqlite3_str_appendf(t, " -> ");
}

/* path(id): the shortest path from a GC root to id as one line of text
 * (the path command's first path: weak referents left out), its root's
 * kinds after the first node; a path of more than 21 nodes as its first 10
 * and last 10 with the count between; NULL when no root reaches id */
static void fn_path(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	hp_sql *q = sqlite3_user_data(ctx);
	const hp_heap *h = q->h;
	size_t v = object_of(h, argv[0]);
	const struct hp_pathsearch *ps;
	hp_error_clear(&q->err);
	if (v == SIZE_MAX) {
		sqlite3_result_null(ctx);
		return;
	}
	if (!reader(q, ctx))
		return;
	if (hp_session_paths(q->S, 0, &ps, &q->err) != HP_OK) {
		sqlite3_result_error(ctx, q->err.msg, -1);
		return;
	}
	const struct hp_paths *P = &ps->P;
	if (hp_paths_parent(P, v) == HP_PATH_UNSEEN) {
		sqlite3_result_null(ctx);
		return;
	}
	size_t len = (size_t)hp_paths_depth(P, v) + 1;
	struct hp_path_gap g = hp_path_gap(len, HP_PATH_HEAD, HP_PATH_TAIL);
	uint32_t *nodes = hp_reallocarray(NULL, len - g.n, sizeof *nodes);
	if (!nodes) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	int rc = hp_paths_tree_cut(P, (uint32_t)v, &g, nodes, &q->err);
	sqlite3_str *t = sqlite3_str_new(q->db);
	for (size_t i = 0; i < len - g.n && rc == HP_OK; i++) {
		if (i == 0) {
			path_node(t, h, nodes[0]);
			unsigned bits = 0;
			for (size_t r = 0; r < h->nroots; r++)
				if (h->roots[r].object == hp_heap_id(h, nodes[0]) && h->roots[r].kind < 16)
					bits |= 1u << h->roots[r].kind;
			for (int k = 0, n = 0; k < 16; k++)
				if (bits & (1u << k))
					sqlite3_str_appendf(t, "%s%s", n++ ? ", " : " [", hp_root_kind_name(k));
			if (bits)
				sqlite3_str_appendf(t, "]");
			continue;
		}
		int after_gap = g.n && i == g.at;
		struct hp_objref r;
		if (after_gap) {
			struct hp_objref r0;
			if ((rc = hp_objread_find_ref(q->rd, nodes[i - 1], g.first, &r0, &q->err)) != HP_OK)
				break;
			path_via(t, &r0);
			sqlite3_str_appendf(t, "... %llu more ...", (unsigned long long)g.n);
		}
		if ((rc = hp_objread_find_ref(q->rd, after_gap ? g.last : nodes[i - 1], nodes[i], &r, &q->err)) != HP_OK)
			break;
		path_via(t, &r);
		path_node(t, h, nodes[i]);
	}
	hp_free(nodes);
	char *text = sqlite3_str_finish(t);
	if (rc != HP_OK)
		sqlite3_result_error(ctx, q->err.msg, -1);
	else if (!text)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text(ctx, text, -1, SQLITE_TRANSIENT);
	sqlite3_free(text);
}

/* ---- read-only, bounded ---------------------------------------------------- */

static int authorize(void *aux, int action, const char *a, const char *b, const char *db, const char *trigger)
{
	(void)db;
	(void)trigger;
	if (((const hp_sql *)aux)->declaring)
		return SQLITE_OK;
	switch (action) {
	case SQLITE_SELECT:
	case SQLITE_READ:
	case SQLITE_FUNCTION:
	case SQLITE_RECURSIVE:
		return SQLITE_OK;
	case SQLITE_PRAGMA:
		/* the pragmas that list what there is, and nothing that sets */
		if (!b && a && (!strcmp(a, "table_info") || !strcmp(a, "table_xinfo") || !strcmp(a, "table_list") ||
				!strcmp(a, "function_list") || !strcmp(a, "module_list")))
			return SQLITE_OK;
		if (b && a && (!strcmp(a, "table_info") || !strcmp(a, "table_xinfo")))
			return SQLITE_OK;
		return SQLITE_DENY;
	default:
		return SQLITE_DENY;
	}
}

static int progress(void *aux)
{
	hp_sql *q = aux;
	if (q->timeout > 0 && hp_now() > q->deadline) {
		q->timed_out = 1;
		return 1;
	}
	return 0;
}

int hp_sql_open(hp_sql **out, hp_session *S, const struct hp_sql_opts *o, struct hp_error *err)
{
	*out = NULL;
	hp_sql *q = hp_calloc(1, sizeof *q);
	if (!q)
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	q->S = S;
	q->timeout = o->timeout;
	int rc = hp_session_model(S, &q->h, err);
	if (rc != HP_OK) {
		hp_free(q);
		return rc;
	}
	const hp_heap *h = q->h;
	q->cls_count = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *q->cls_count);
	q->cls_shallow = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *q->cls_shallow);
	q->cls_name_len = hp_calloc(h->nclasses ? h->nclasses : 1, sizeof *q->cls_name_len);
	if (!q->cls_count || !q->cls_shallow || !q->cls_name_len) {
		hp_sql_close(q);
		return hp_error_set(err, HP_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < h->nclasses; i++) {
		size_t n = strlen(hp_class_name(h, i));
		q->cls_name_len[i] = n < INT32_MAX ? (int)n : INT32_MAX;
	}
	for (size_t i = 0; i < h->nrows; i++)
		if (h->rows[i].cls < h->nclasses) {
			q->cls_count[h->rows[i].cls] += h->rows[i].count + h->rows[i].class_objs;
			q->cls_shallow[h->rows[i].cls] += h->rows[i].shallow;
		}
	sqlite3_hard_heap_limit64(o->heap_limit > 0 ? o->heap_limit : (int64_t)1 << 30);
	/* (":memory:" without SQLITE_OPEN_MEMORY, which --export's attached
	 * file would inherit) */
	if (sqlite3_open_v2(":memory:", &q->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		rc = hp_error_set(err, HP_ENOMEM, "cannot open SQLite: %s", q->db ? sqlite3_errmsg(q->db) : "out of memory");
		hp_sql_close(q);
		return rc;
	}
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL);
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
	sqlite3_db_config(q->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
	sqlite3_limit(q->db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(q->db, SQLITE_LIMIT_LENGTH, 64 << 20);
	int src = SQLITE_OK;
	for (int t = 0; t < T_N && src == SQLITE_OK; t++) {
		q->tabs[t] = (struct tab){ q, t };
		src = sqlite3_create_module(q->db, module_names[t], &module, &q->tabs[t]);
	}
	if (src == SQLITE_OK)
		src = sqlite3_create_function(q->db, "str", 1, SQLITE_UTF8, q, fn_str, NULL, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_create_function(q->db, "field", 2, SQLITE_UTF8, q, fn_field, NULL, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_create_function(q->db, "instance_of", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, q,
					      fn_instance_of, NULL, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_create_function(q->db, "size", 1, SQLITE_UTF8, q, fn_size, NULL, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_create_function(q->db, "map_get", 2, SQLITE_UTF8, q, fn_map_get, NULL, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_create_function(q->db, "list_get", 2, SQLITE_UTF8, q, fn_list_get, NULL, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_create_function(q->db, "path", 1, SQLITE_UTF8, q, fn_path, NULL, NULL);
	/* the listing pragmas' tables made once, before the authorizer, which
	 * would refuse the schema change that makes them */
	if (src == SQLITE_OK)
		src = sqlite3_exec(q->db, "SELECT 1 FROM pragma_table_info('objects'), pragma_table_xinfo('objects'), "
				   "pragma_table_list, pragma_function_list, pragma_module_list LIMIT 0", NULL, NULL, NULL);
	if (src == SQLITE_OK)
		src = sqlite3_set_authorizer(q->db, authorize, q);
	if (src != SQLITE_OK) {
		rc = hp_error_set(err, HP_ENOMEM, "cannot set up SQLite: %s", sqlite3_errmsg(q->db));
		hp_sql_close(q);
		return rc;
	}
	sqlite3_progress_handler(q->db, 10000, progress, q);
	*out = q;
	return HP_OK;
}

void hp_sql_close(hp_sql *q)
{
	if (!q)
		return;
	if (q->db)
		sqlite3_close_v2(q->db);
	if (q->T_done)
		hp_threads_release(&q->T);
	hp_free_all(q->str_owned, q->cls_count, q->cls_shallow, q->cls_name_len, q->cls_order[0], q->cls_order[1], q->rev_off,
		    q->rev_edge, q->cls_bits, q->cls_rank, q);
}

sqlite3 *hp_sql_db(hp_sql *q) { return q->db; }

void hp_sql_arm(hp_sql *q)
{
	q->timed_out = 0;
	q->deadline = hp_now() + q->timeout;
}

int hp_sql_timed_out(const hp_sql *q) { return q->timed_out; }

const struct hp_error *hp_sql_error(const hp_sql *q) { return &q->err; }

/* ---- --export --------------------------------------------------------------
 * The tables copied into a database file: typed columns, the look-ups'
 * indexes, written with the journal off (the caller renames the file into
 * place once this returns HP_OK). */
static const char *const export_sql[] = {
	"PRAGMA out.journal_mode = OFF",
	"PRAGMA out.synchronous = OFF",
	"CREATE TABLE out.classes(id INTEGER, name TEXT, super_id INTEGER, loader_id INTEGER, instances INTEGER, "
	"shallow INTEGER, retained INTEGER, instance_size INTEGER)",
	"INSERT INTO out.classes SELECT * FROM main.classes",
	"CREATE TABLE out.objects(id INTEGER PRIMARY KEY, class TEXT, class_id INTEGER, kind TEXT, shallow INTEGER, "
	"retained INTEGER, idom INTEGER, reachable INTEGER, root_kinds TEXT, heap TEXT, length INTEGER)",
	"INSERT INTO out.objects SELECT * FROM main.objects ORDER BY id",
	"CREATE TABLE out.refs(src INTEGER, dst INTEGER, field TEXT, idx INTEGER, kind TEXT)",
	"INSERT INTO out.refs SELECT * FROM main.refs",
	"CREATE TABLE out.roots(id INTEGER, kind TEXT, thread_id INTEGER, frame INTEGER)",
	"INSERT INTO out.roots SELECT * FROM main.roots",
	"CREATE TABLE out.strings(id INTEGER PRIMARY KEY, value TEXT, length INTEGER)",
	"INSERT INTO out.strings SELECT * FROM main.strings ORDER BY id",
	"CREATE TABLE out.fields(id INTEGER, name TEXT, type TEXT, value, ref INTEGER, static INTEGER)",
	"INSERT INTO out.fields SELECT * FROM main.fields",
	"CREATE TABLE out.threads(id INTEGER, serial INTEGER, name TEXT, state TEXT, daemon INTEGER, priority INTEGER, "
	"frames INTEGER, retained INTEGER)",
	"INSERT INTO out.threads SELECT * FROM main.threads",
	"CREATE TABLE out.frames(thread_id INTEGER, depth INTEGER, class TEXT, method TEXT, signature TEXT, file TEXT, "
	"line INTEGER)",
	"INSERT INTO out.frames SELECT * FROM main.frames",
	"CREATE INDEX out.classes_id ON classes(id)",
	"CREATE INDEX out.classes_name ON classes(name)",
	"CREATE INDEX out.objects_class_id ON objects(class_id)",
	"CREATE INDEX out.objects_idom ON objects(idom)",
	"CREATE INDEX out.refs_src ON refs(src)",
	"CREATE INDEX out.refs_dst ON refs(dst)",
	"CREATE INDEX out.roots_id ON roots(id)",
	"CREATE INDEX out.fields_id ON fields(id)",
	"CREATE INDEX out.fields_ref ON fields(ref)",
	"CREATE INDEX out.threads_id ON threads(id)",
	"CREATE INDEX out.frames_thread_id ON frames(thread_id)",
};

int hp_sql_export(hp_sql *q, const char *path, char *msg, size_t n)
{
	int rc = SQLITE_OK;
	sqlite3_stmt *st = NULL;
	q->declaring = 1;
	sqlite3_limit(q->db, SQLITE_LIMIT_ATTACHED, 1);
	rc = sqlite3_prepare_v2(q->db, "ATTACH ?1 AS out", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(q->db);
	sqlite3_finalize(st);
	int attached = rc == SQLITE_OK;
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof export_sql / sizeof *export_sql; i++) {
		hp_sql_arm(q);
		rc = sqlite3_exec(q->db, export_sql[i], NULL, NULL, NULL);
	}
	if (rc != SQLITE_OK)
		snprintf(msg, n, "%s", q->err.code ? q->err.msg : sqlite3_errmsg(q->db));
	if (attached && sqlite3_exec(q->db, "DETACH out", NULL, NULL, NULL) != SQLITE_OK && rc == SQLITE_OK) {
		snprintf(msg, n, "%s", sqlite3_errmsg(q->db));
		rc = SQLITE_ERROR;
	}
	sqlite3_limit(q->db, SQLITE_LIMIT_ATTACHED, 0);
	q->declaring = 0;
	return rc;
}
