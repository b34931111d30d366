/*
 * test_paths.c — objects read again from the dump (src/model/objread) and
 * the ways to them (src/analysis/paths), on dumps built byte by byte with
 * tests/helper/hpw whose answers are worked out by hand in the comments:
 *   - shortest paths from GC roots, with the field, element or static each
 *     step goes through; more paths through other referrers; a referrer
 *     reached only through the target left out; a path that exists only
 *     through a WeakReference's referent (absent with HP_WEAK_SKIP, there
 *     with HP_WEAK_FOLLOW); a stack local of a thread;
 *   - a chain of 100,000 links (nothing may recurse) and its dominator chain;
 *   - field values of every type along the super chain, short records,
 *     arrays cut at max_elems, class statics, Android NODATA arrays;
 *   - java.lang.String in the JDK 6, JDK 8, JDK 9+ (LATIN1, UTF16 either
 *     byte order) and ART layouts, surrogates, U+0000, truncation; thread
 *     names as a String and as a char[];
 *   - gzip dumps (restarts, prefetch), a dump changed or cut after it was
 *     read, standard input refused;
 *   - every allocation failing in turn in the path search.
 */
#include "analysis/dominators.h"
#include "analysis/paths.h"
#include "helper/hpw.h"
#include "model/heap.h"
#include "model/objread.h"
#include "model/refs.h"
#include "parser/hprof.h"
#include "parser/reader.h"
#include "base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

/* ---- dumps ------------------------------------------------------------ */

static char tmpdir[512];

static void tmp_init(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/hp-test-paths.XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		exit(2);
	}
}

/* a model of the dump in file `path` (built with objects), or NULL */
static hp_heap *load(const char *path)
{
	struct hp_error err;
	hp_error_clear(&err);
	hp_reader *r = NULL;
	if (hp_reader_open(&r, path, &err) != HP_OK) {
		printf("open %s: %s\n", path, err.msg);
		return NULL;
	}
	struct hp_heap_opts ho;
	hp_heap_opts_init(&ho);
	ho.build_objects = 1;
	hp_heap *h = hp_heap_new(&ho);
	struct hp_sink s;
	hp_heap_sink(h, &s);
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = 0;
	struct hp_stats st;
	int rc = hp_parse(r, &s, &po, &st, &err);
	hp_stats_release(&st);
	hp_reader_free(r);
	if (rc == HP_OK)
		rc = hp_heap_finish(h, &err);
	if (rc != HP_OK) {
		printf("parse %s: %s\n", path, err.msg);
		hp_heap_free(h);
		return NULL;
	}
	return h;
}

static void write_dump(const hpw *w, const char *path, int gz)
{
	if ((gz ? hpw_write_gzip(w, path, 3) : hpw_write_file(w, path)) != 0) {
		perror(path);
		exit(2);
	}
}

static size_t obj(const hp_heap *h, uint64_t id)
{
	size_t v = hp_heap_find(h, id);
	if (v == SIZE_MAX) {
		printf("FAIL: object 0x%llx is not in the model\n", (unsigned long long)id);
		exit(2);
	}
	return v;
}

/* a class: LOAD CLASS + CLASS DUMP (into the open dump) */
struct field { const char *name; uint8_t type; };
struct stat_ { const char *name; uint8_t type; uint64_t value; };

static uint64_t next_sid = 1000;

static uint64_t sid(hpw *w, const char *s)
{
	hpw_string(w, next_sid, s);
	return next_sid++;
}

static uint32_t next_serial = 1;

/* the LOAD CLASS goes before the dump: call with the dump closed */
static void load_class(hpw *w, uint64_t cid, const char *name)
{
	hpw_load_class(w, next_serial++, cid, 0, sid(w, name));
}

static void class_dump(hpw *w, uint64_t cid, uint64_t super, const uint64_t *fsid, const struct field *f, int nf,
		       const uint64_t *ssid, const struct stat_ *s, int ns)
{
	struct hpw_instance_field fl[16];
	struct hpw_static_field sl[16];
	uint32_t size = 0;
	for (int i = 0; i < nf; i++) {
		fl[i].name_sid = fsid[i];
		fl[i].type = f[i].type;
		size += (uint32_t)hpw_type_size(w, f[i].type);
	}
	for (int i = 0; i < ns; i++) {
		sl[i].name_sid = ssid[i];
		sl[i].type = s[i].type;
		sl[i].value = s[i].value;
	}
	struct hpw_class c;
	memset(&c, 0, sizeof c);
	c.class_id = cid;
	c.super_id = super;
	c.instance_size = size;
	c.nfields = (uint16_t)nf;
	c.fields = fl;
	c.nstatics = (uint16_t)ns;
	c.statics = sl;
	hpw_class_dump(w, &c);
}

/* name sids for fields / statics (strings written before the dump opens) */
static void sids(hpw *w, const struct field *f, int nf, uint64_t *out)
{
	for (int i = 0; i < nf; i++)
		out[i] = sid(w, f[i].name);
}

static void ssids(hpw *w, const struct stat_ *s, int ns, uint64_t *out)
{
	for (int i = 0; i < ns; i++)
		out[i] = sid(w, s[i].name);
}

static int streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

/* ---- the graph dump ------------------------------------------------------
 *
 * Classes: Object 0x100; Node 0x120 {next, other: Object; val: int};
 * Holder 0x130 with statics INSTANCE -> A, WEAK -> W, COUNT = 7;
 * java.lang.ref.Reference 0x140 {referent, queue}; WeakReference 0x150
 * extends it; Object[] 0x160; java.lang.Thread 0x170 {name}.
 * Objects:
 *   A 0x1000 Node {next B}            B 0x1010 Node {next ARR, other ARR}
 *   ARR 0x1020 Object[3] {0, D, C}    C 0x1030 Node {other E}
 *   D 0x1040 Node {next C}            E 0x1050 Node {next C}
 *   W 0x1060 WeakReference {referent X}
 *   X 0x1070 Node {next Y}            Y 0x1080 Node
 *   T 0x1090 Thread (ROOT THREAD OBJECT, serial 1)
 *   L 0x10a0 Node (ROOT JAVA FRAME of thread 1, frame 0)
 *   U 0x10b0 Node (no root reaches it)
 * Roots: STICKY CLASS Holder, THREAD OBJECT T, JAVA FRAME L.
 * With referents skipped, BFS depths: Holder 0, A 1, W 1, B 2, ARR 3,
 * D 4, C 4, E 5; X and Y unreached.  The referrers of C are ARR (depth 3),
 * D (4) and E (5, reached only through C).
 */
enum {
	OBJ_C = 0x100, NODE_C = 0x120, HOLDER_C = 0x130, REF_C = 0x140, WEAK_C = 0x150, OARR_C = 0x160,
	THREAD_C = 0x170,
	A = 0x1000, B = 0x1010, ARR = 0x1020, C = 0x1030, D = 0x1040, E = 0x1050, W = 0x1060, X = 0x1070,
	Y = 0x1080, T = 0x1090, L = 0x10a0, U = 0x10b0
};

/* with filler, a byte[filler] after each node (ids 0x20000 + 16 k), so
 * that a gzip reader's window cannot hold the whole dump */
static size_t filler;
static uint64_t filler_id;

static void node(hpw *w, uint64_t id, uint64_t next, uint64_t other, uint32_t val)
{
	hpw_instance_begin(w, id, 0, NODE_C);
	hpw_value(w, HPW_T_OBJECT, next);
	hpw_value(w, HPW_T_OBJECT, other);
	hpw_value(w, HPW_T_INT, val);
	hpw_instance_end(w);
	if (filler) {
		uint8_t *z = calloc(1, filler);
		if (!z)
			abort();
		hpw_prim_array(w, filler_id, 0, HPW_T_BYTE, (uint32_t)filler, z, filler);
		filler_id += 16;
		free(z);
	}
}

static hpw *graph_dump(void)
{
	filler_id = 0x20000;
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 8, 1700000000000ull);
	static const struct field nodef[] = { { "next", HPW_T_OBJECT }, { "other", HPW_T_OBJECT }, { "val", HPW_T_INT } };
	static const struct field reff[] = { { "referent", HPW_T_OBJECT }, { "queue", HPW_T_OBJECT } };
	static const struct field thrf[] = { { "name", HPW_T_OBJECT } };
	static const struct stat_ holds[] = { { "INSTANCE", HPW_T_OBJECT, A }, { "WEAK", HPW_T_OBJECT, W },
					      { "COUNT", HPW_T_INT, 7 } };
	uint64_t nodes[3], refs[2], thrs[1], hs[3];
	sids(w, nodef, 3, nodes);
	sids(w, reff, 2, refs);
	sids(w, thrf, 1, thrs);
	ssids(w, holds, 3, hs);
	load_class(w, OBJ_C, "java/lang/Object");
	load_class(w, NODE_C, "Node");
	load_class(w, HOLDER_C, "Holder");
	load_class(w, REF_C, "java/lang/ref/Reference");
	load_class(w, WEAK_C, "java/lang/ref/WeakReference");
	load_class(w, OARR_C, "[Ljava/lang/Object;");
	load_class(w, THREAD_C, "java/lang/Thread");
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_root_sticky_class(w, HOLDER_C);
	hpw_root_thread_object(w, T, 1, 0);
	hpw_root_java_frame(w, L, 1, 0);
	class_dump(w, OBJ_C, 0, NULL, NULL, 0, NULL, NULL, 0);
	class_dump(w, NODE_C, OBJ_C, nodes, nodef, 3, NULL, NULL, 0);
	class_dump(w, HOLDER_C, OBJ_C, NULL, NULL, 0, hs, holds, 3);
	class_dump(w, REF_C, OBJ_C, refs, reff, 2, NULL, NULL, 0);
	class_dump(w, WEAK_C, REF_C, NULL, NULL, 0, NULL, NULL, 0);
	class_dump(w, OARR_C, OBJ_C, NULL, NULL, 0, NULL, NULL, 0);
	class_dump(w, THREAD_C, OBJ_C, thrs, thrf, 1, NULL, NULL, 0);
	node(w, A, B, 0, 1);
	node(w, B, ARR, ARR, 2);
	uint64_t el[3] = { 0, D, C };
	hpw_obj_array(w, ARR, 0, OARR_C, 3, el);
	node(w, C, 0, E, 3);
	node(w, D, C, 0, 4);
	node(w, E, C, 0, 5);
	hpw_instance_begin(w, W, 0, WEAK_C);
	hpw_value(w, HPW_T_OBJECT, X);      /* Reference.referent */
	hpw_value(w, HPW_T_OBJECT, 0);      /* Reference.queue */
	hpw_instance_end(w);
	node(w, X, Y, 0, 6);
	node(w, Y, 0, 0, 7);
	hpw_instance_begin(w, T, 0, THREAD_C);
	hpw_value(w, HPW_T_OBJECT, 0);
	hpw_instance_end(w);
	node(w, L, 0, 0, 8);
	node(w, U, A, 0, 9);
	hpw_end_dump(w);
	hpw_dump_end(w);
	return w;
}

/* starts: every object a root names */
static size_t starts_of(const hp_heap *h, uint32_t *out)
{
	size_t n = 0;
	for (size_t i = 0; i < h->nroots; i++) {
		size_t v = hp_heap_find(h, h->roots[i].object);
		if (v != SIZE_MAX)
			out[n++] = (uint32_t)v;
	}
	return n;
}

struct graph_run {
	hp_heap *h;
	struct hp_refs g;
	struct hp_paths P;
};

static int graph_run(struct graph_run *G, const char *path, int weak)
{
	memset(G, 0, sizeof *G);
	struct hp_error err;
	hp_error_clear(&err);
	G->h = load(path);
	if (!G->h)
		return -1;
	struct hp_refs_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.weak = weak;
	int rc = hp_refs_build(G->h, path, &ro, &G->g, &err);
	CHECK(rc == HP_OK, "refs: %s", err.msg);
	if (rc)
		return -1;
	uint32_t starts[16];
	size_t ns = starts_of(G->h, starts);
	rc = hp_paths_bfs(&G->P, &G->g, starts, ns, &err);
	CHECK(rc == HP_OK, "bfs: %s", err.msg);
	return rc ? -1 : 0;
}

static void graph_release(struct graph_run *G)
{
	hp_paths_release(&G->P);
	hp_refs_release(&G->g);
	hp_heap_free(G->h);
}

/* path p of l as ids, "0x130 0x1000 ..." */
static void path_ids(const hp_heap *h, const struct hp_pathlist *l, size_t p, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = l->first[p]; i < l->first[p + 1] && o < n; i++) {
		int k = snprintf(buf + o, n - o, "%s0x%llx", o ? " " : "", (unsigned long long)hp_heap_id(h, l->nodes[i]));
		if (k < 0 || (size_t)k >= n - o)
			break;
		o += (size_t)k;
	}
}

/* The graph retained sizes use (every referent followed) lists the
 * referents it followed; a search leaving them out finds what one over the
 * graph without them finds, and a search with targets stops at the last */
static void test_followed_and_targets(void)
{
	char path[600];
	snprintf(path, sizeof path, "%s/graph-followed.hprof", tmpdir);
	hpw *w = graph_dump();
	write_dump(w, path, 0);
	hpw_free(w);
	struct hp_error err;
	hp_error_clear(&err);
	hp_heap *h = load(path);
	if (!h)
		return;
	struct hp_refs g;
	struct hp_refs_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.weak = HP_WEAK_FOLLOW;
	ro.list_followed = 1;
	int rc = hp_refs_build(h, path, &ro, &g, &err);
	CHECK(rc == HP_OK, "refs: %s", err.msg);
	if (rc) {
		hp_heap_free(h);
		return;
	}
	CHECK(g.nfollowed == 1 && g.followed[0][0] == obj(h, W) && g.followed[0][1] == obj(h, X),
	      "one referent followed and listed: W -> X (%zu)", g.nfollowed);
	uint32_t starts[16];
	size_t ns = starts_of(h, starts);
	struct hp_paths P;
	rc = hp_paths_bfs_skip(&P, &g, starts, ns, NULL, 0, NULL, 0, &err);
	CHECK(rc == HP_OK && P.parent[obj(h, X)] == (uint32_t)obj(h, W) && P.reached == 13,
	      "following referents: X through W, %llu reached", (unsigned long long)P.reached);
	hp_paths_release(&P);
	rc = hp_paths_bfs_skip(&P, &g, starts, ns, (const uint32_t (*)[2])g.followed, g.nfollowed, NULL, 0, &err);
	CHECK(rc == HP_OK && P.parent[obj(h, X)] == HP_PATH_UNSEEN && P.reached == 11,
	      "leaving the listed referents out: X and Y unreached, %llu reached (as with --weak=skip)",
	      (unsigned long long)P.reached);
	hp_paths_release(&P);
	uint32_t tg[2] = { (uint32_t)obj(h, C), (uint32_t)obj(h, C) };
	rc = hp_paths_bfs_skip(&P, &g, starts, ns, (const uint32_t (*)[2])g.followed, g.nfollowed, tg, 2, &err);
	CHECK(rc == HP_OK && hp_paths_depth(&P, obj(h, C)) == 4 && hp_paths_parent(&P, obj(h, E)) == HP_PATH_UNSEEN &&
	      P.reached < 11, "target C: reached at depth %u, the search stopped there (%llu reached, E unseen)",
	      hp_paths_depth(&P, obj(h, C)), (unsigned long long)P.reached);
	/* what it reached, as the whole search (no targets) has it */
	struct hp_paths F;
	if (hp_paths_bfs_skip(&F, &g, starts, ns, (const uint32_t (*)[2])g.followed, g.nfollowed, NULL, 0, &err) ==
	    HP_OK) {
		size_t same = 0, seen = 0;
		for (size_t v = 0; rc == HP_OK && v < h->nobj; v++) {
			if (hp_paths_parent(&P, v) == HP_PATH_UNSEEN)
				continue;
			seen++;
			same += hp_paths_parent(&P, v) == F.parent[v] && hp_paths_depth(&P, v) == F.depth[v];
		}
		CHECK(seen == P.reached && same == seen, "target C: %zu of %zu reached objects with the whole search's parent "
		      "and depth (%llu reached)", same, seen, (unsigned long long)P.reached);
		hp_paths_release(&F);
	}
	hp_paths_release(&P);
	uint32_t bad = (uint32_t)h->nobj;
	rc = hp_paths_bfs_skip(&P, &g, starts, ns, NULL, 0, &bad, 1, &err);
	CHECK(rc == HP_EUSAGE, "a target beyond the graph: %d", rc);
	hp_refs_release(&g);
	hp_heap_free(h);
	unlink(path);
}

static void test_graph_paths(void)
{
	char path[600], got[600];
	snprintf(path, sizeof path, "%s/graph.hprof", tmpdir);
	hpw *w = graph_dump();
	write_dump(w, path, 0);
	hpw_free(w);
	struct hp_error err;
	hp_error_clear(&err);

	struct graph_run G;
	if (graph_run(&G, path, HP_WEAK_SKIP))
		return;
	hp_heap *h = G.h;
	struct hp_pathlist l;

	/* C: the BFS path Holder -> A -> B -> ARR -> C, then one through D; E's
	 * only way in is through C itself, so it gives no path */
	int rc = hp_paths_shortest(&G.P, &G.g, (uint32_t)obj(h, C), 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 2, "paths to C: rc %d, %zu paths", rc, l.npaths);
	if (rc == HP_OK && l.npaths == 2) {
		path_ids(h, &l, 0, got, sizeof got);
		CHECK(streq(got, "0x130 0x1000 0x1010 0x1020 0x1030"), "path 1 to C: %s", got);
		path_ids(h, &l, 1, got, sizeof got);
		CHECK(streq(got, "0x130 0x1000 0x1010 0x1020 0x1040 0x1030"), "path 2 to C: %s", got);
	}
	hp_paths_list_release(&l);
	CHECK(G.P.depth[obj(h, C)] == 4 && G.P.depth[obj(h, E)] == 5 && G.P.depth[obj(h, HOLDER_C)] == 0,
	      "depths C %u E %u", G.P.depth[obj(h, C)], G.P.depth[obj(h, E)]);
	/* k = 1: the BFS path only */
	rc = hp_paths_shortest(&G.P, &G.g, (uint32_t)obj(h, C), 1, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 1 && l.first[1] == 5, "one path to C: %zu", l.npaths);
	hp_paths_list_release(&l);

	/* the referrers of C, in object order */
	uint32_t *r;
	size_t nr;
	rc = hp_paths_referrers(&G.g, (uint32_t)obj(h, C), &r, &nr, &err);
	CHECK(rc == HP_OK && nr == 3 && hp_heap_id(h, r[0]) == ARR && hp_heap_id(h, r[1]) == D && hp_heap_id(h, r[2]) == E,
	      "referrers of C: %zu", nr);
	free(r);
	/* B holds ARR twice (next and other): one referrer */
	rc = hp_paths_referrers(&G.g, (uint32_t)obj(h, ARR), &r, &nr, &err);
	CHECK(rc == HP_OK && nr == 1 && hp_heap_id(h, r[0]) == B, "referrers of ARR: %zu", nr);
	free(r);

	/* X only through W.referent: no path; U: nothing reaches it */
	rc = hp_paths_shortest(&G.P, &G.g, (uint32_t)obj(h, X), 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 0, "X without weak referents: %zu paths", l.npaths);
	hp_paths_list_release(&l);
	rc = hp_paths_shortest(&G.P, &G.g, (uint32_t)obj(h, U), 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 0 && G.P.parent[obj(h, U)] == HP_PATH_UNSEEN, "U: %zu paths", l.npaths);
	hp_paths_list_release(&l);
	/* L is a root itself: a path of one object */
	rc = hp_paths_shortest(&G.P, &G.g, (uint32_t)obj(h, L), 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 1 && l.first[1] == 1 && hp_heap_id(h, l.nodes[0]) == L, "L: %zu paths", l.npaths);
	hp_paths_list_release(&l);
	/* Holder, T, L, and what Holder reaches without W's referent */
	CHECK(G.P.reached == 11, "reached %llu, want 11", (unsigned long long)G.P.reached);
	/* bad target */
	rc = hp_paths_shortest(&G.P, &G.g, (uint32_t)h->nobj, 5, &l, &err);
	CHECK(rc == HP_EUSAGE, "target beyond n: %d", rc);

	/* how each step refers to the next */
	hp_objread *f;
	rc = hp_objread_open(&f, h, path, &err);
	CHECK(rc == HP_OK, "objread: %s", err.msg);
	if (rc == HP_OK) {
		struct hp_objref ref;
		rc = hp_objread_find_ref(f, obj(h, HOLDER_C), obj(h, A), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_STATIC && streq(ref.name, "INSTANCE") &&
		      streq(hp_class_name(h, ref.decl), "Holder"), "Holder -> A: kind %d %s", ref.kind, ref.name);
		rc = hp_objread_find_ref(f, obj(h, A), obj(h, B), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_FIELD && streq(ref.name, "next") && ref.count == 1 &&
		      streq(hp_class_name(h, ref.decl), "Node"), "A -> B: kind %d %s", ref.kind, ref.name);
		rc = hp_objread_find_ref(f, obj(h, B), obj(h, ARR), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_FIELD && streq(ref.name, "next") && ref.count == 2,
		      "B -> ARR: kind %d %s count %llu", ref.kind, ref.name, (unsigned long long)ref.count);
		rc = hp_objread_find_ref(f, obj(h, ARR), obj(h, C), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_ELEMENT && ref.index == 2, "ARR -> C: kind %d [%llu]", ref.kind,
		      (unsigned long long)ref.index);
		rc = hp_objread_find_ref(f, obj(h, ARR), obj(h, D), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_ELEMENT && ref.index == 1, "ARR -> D: [%llu]",
		      (unsigned long long)ref.index);
		rc = hp_objread_find_ref(f, obj(h, W), obj(h, X), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_FIELD && streq(ref.name, "referent") &&
		      streq(hp_class_name(h, ref.decl), "java.lang.ref.Reference"), "W -> X: %d %s", ref.kind, ref.name);
		rc = hp_objread_find_ref(f, obj(h, T), obj(h, L), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_LOCAL && ref.root_kind == HP_ROOT_JAVA_FRAME && ref.frame == 0,
		      "T -> L: kind %d", ref.kind);
		rc = hp_objread_find_ref(f, obj(h, A), obj(h, NODE_C), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_CLASS, "A -> its class: kind %d", ref.kind);
		rc = hp_objread_find_ref(f, obj(h, NODE_C), obj(h, OBJ_C), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_SUPER, "Node -> Object: kind %d", ref.kind);
		rc = hp_objread_find_ref(f, obj(h, A), obj(h, Y), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_NONE && ref.count == 0, "A -> Y: kind %d", ref.kind);
		hp_objread_free(f);
	}
	graph_release(&G);

	/* with every referent followed, X and Y are reached through W */
	if (graph_run(&G, path, HP_WEAK_FOLLOW))
		return;
	h = G.h;
	rc = hp_paths_shortest(&G.P, &G.g, (uint32_t)obj(h, X), 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 1, "X following referents: %zu paths", l.npaths);
	if (l.npaths == 1) {
		path_ids(h, &l, 0, got, sizeof got);
		CHECK(streq(got, "0x130 0x1060 0x1070"), "path to X: %s", got);
	}
	hp_paths_list_release(&l);
	rc = hp_paths_shortest(&G.P, &G.g, (uint32_t)obj(h, Y), 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 1 && l.first[1] == 4, "Y following referents: %zu paths", l.npaths);
	hp_paths_list_release(&l);
	CHECK(G.P.reached == 13, "reached %llu, want 13", (unsigned long long)G.P.reached);
	graph_release(&G);
}

/* ---- a chain of 100,000 links ------------------------------------------ */

/* hp_path_gap(): what a path of len nodes shown by head and tail leaves out */
static void test_gap(void)
{
	static const struct { size_t len, head, tail, at, n; } t[] = {
		{ 0, 10, 10, 0, 0 }, { 1, 10, 10, 1, 0 }, { 21, 10, 10, 21, 0 },     /* whole: 21 = 10 + 10 + 1 */
		{ 22, 10, 10, 10, 2 }, { 1000001, 10, 10, 10, 999981 },
		{ 7, 2, 4, 7, 0 }, { 8, 2, 4, 2, 2 },                                  /* waste's line */
		{ 5, 0, 0, 1, 3 },                                                       /* 0 is 1: both ends kept */
		{ 1000, HP_PATH_WHOLE, HP_PATH_WHOLE, 1000, 0 }, { 1000, 10, HP_PATH_WHOLE, 1000, 0 },
		{ SIZE_MAX, SIZE_MAX - 1, 1, SIZE_MAX, 0 }, { SIZE_MAX, SIZE_MAX / 2, SIZE_MAX / 2, SIZE_MAX, 0 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct hp_path_gap g = hp_path_gap(t[i].len, t[i].head, t[i].tail);
		CHECK(g.at == t[i].at && g.n == t[i].n && g.first == HP_PATH_UNSEEN && g.last == HP_PATH_UNSEEN,
		      "hp_path_gap(%zu, %zu, %zu): at %zu, n %zu; want %zu, %zu", t[i].len, t[i].head, t[i].tail, g.at, g.n,
		      t[i].at, t[i].n);
	}
	/* a search tree whose parent and depth do not chain is an error, not a read past it */
	uint32_t parent[4] = { HP_PATH_START, 0, 7, 1 }, depth[4] = { 0, 1, 2, 1 }, dst[4];
	struct hp_paths P = { .n = 4, .parent = parent, .depth = depth };
	struct hp_error err;
	hp_error_clear(&err);
	struct hp_path_gap g = hp_path_gap(3, 10, 10);
	CHECK(hp_paths_tree_cut(&P, 2, &g, dst, &err) == HP_ECORRUPT, "a parent past the tables: %s", err.msg);
	g = hp_path_gap(2, 10, 10);
	CHECK(hp_paths_tree_cut(&P, 3, &g, dst, &err) == HP_ECORRUPT, "a parent at the same depth: %s", err.msg);
	g = hp_path_gap(2, 10, 10);
	CHECK(hp_paths_tree_cut(&P, 1, &g, dst, &err) == HP_OK && dst[0] == 0 && dst[1] == 1, "a tree that chains: %s",
	      err.msg);
}

static void test_chain(void)
{
	enum { N = 100000 };
	const uint64_t base = 0x100000;
	char path[600];
	snprintf(path, sizeof path, "%s/chain.hprof", tmpdir);
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	static const struct field nodef[] = { { "next", HPW_T_OBJECT }, { "other", HPW_T_OBJECT }, { "val", HPW_T_INT } };
	uint64_t nodes[3];
	sids(w, nodef, 3, nodes);
	load_class(w, OBJ_C, "java/lang/Object");
	load_class(w, NODE_C, "Node");
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_root_jni_global(w, base, 1);
	class_dump(w, OBJ_C, 0, NULL, NULL, 0, NULL, NULL, 0);
	class_dump(w, NODE_C, OBJ_C, nodes, nodef, 3, NULL, NULL, 0);
	for (uint32_t i = 0; i < N; i++)
		node(w, base + 16ull * i, i + 1 < N ? base + 16ull * (i + 1) : 0, 0, i);
	hpw_end_dump(w);
	hpw_dump_end(w);
	write_dump(w, path, 0);
	hpw_free(w);

	struct graph_run G;
	if (graph_run(&G, path, HP_WEAK_SKIP))
		return;
	hp_heap *h = G.h;
	struct hp_error err;
	hp_error_clear(&err);
	uint32_t last = (uint32_t)obj(h, base + 16ull * (N - 1));
	CHECK(G.P.depth[last] == N - 1, "depth of the last link %u", G.P.depth[last]);
	struct hp_pathlist l;
	int rc = hp_paths_shortest(&G.P, &G.g, last, 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 1 && l.first[1] == N, "chain: %zu paths of %zu", l.npaths,
	      l.npaths ? l.first[1] : 0);
	int order = 1;
	for (size_t i = 0; rc == HP_OK && l.npaths && i < N; i++)
		if (hp_heap_id(h, l.nodes[i]) != base + 16ull * i)
			order = 0;
	CHECK(order, "the chain's path is the chain");
	hp_paths_list_release(&l);
	/* cut to its first 3 and last 2 links: the gap is the N - 5 between */
	rc = hp_paths_shortest_cut(&G.P, &G.g, last, 5, 3, 2, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 1 && l.first[1] == 5 && l.gap[0].at == 3 && l.gap[0].n == N - 5 &&
	      hp_heap_id(h, l.gap[0].first) == base + 48 && hp_heap_id(h, l.gap[0].last) == base + 16ull * (N - 3),
	      "the chain cut: %zu nodes kept, a gap of %zu from %zu", l.npaths ? l.first[1] : 0,
	      l.npaths ? l.gap[0].n : 0, l.npaths ? l.gap[0].at : 0);
	if (rc == HP_OK && l.npaths == 1 && l.first[1] == 5) {
		static const unsigned at[5] = { 0, 1, 2, N - 2, N - 1 };
		int kept = 1;
		for (size_t i = 0; i < 5; i++)
			kept &= hp_heap_id(h, l.nodes[i]) == base + 16ull * at[i];
		CHECK(kept, "the chain cut keeps links 0, 1, 2, N-2 and N-1");
	}
	hp_paths_list_release(&l);

	/* the dominator chain of the last link: every link before it */
	struct hp_dom d;
	uint32_t root = (uint32_t)obj(h, base);
	CHECK(G.g.off32 && !G.g.off, "the graph's offsets were narrowed to 32 bits");
	{
		/* widen and narrow again: the same offsets each way */
		uint32_t *keep = malloc((G.g.n + 1) * sizeof *keep);
		if (!keep)
			abort();
		memcpy(keep, G.g.off32, (G.g.n + 1) * sizeof *keep);
		int same = hp_refs_widen(&G.g) == HP_OK && G.g.off && !G.g.off32;
		for (size_t v = 0; same && v <= G.g.n; v++)
			same = G.g.off[v] == keep[v] && hp_refs_off(&G.g, v) == keep[v];
		same = same && hp_refs_narrow(&G.g) == HP_OK && G.g.off32 && !G.g.off &&
		       !memcmp(G.g.off32, keep, (G.g.n + 1) * sizeof *keep);
		CHECK(same, "refs offsets: widen then narrow changed them");
		free(keep);
	}
	rc = hp_dom_compute32(&d, (uint32_t)h->nobj, G.g.off32, G.g.adj, &root, 1, &err);
	CHECK(rc == HP_OK, "dominators: %s", err.msg);
	if (rc == HP_OK) {
		uint32_t *c;
		size_t nc;
		rc = hp_paths_dom_chain(&d, last, &c, &nc, &err);
		CHECK(rc == HP_OK && nc == N - 1 && hp_heap_id(h, c[0]) == base + 16ull * (N - 2) && hp_heap_id(h, c[nc - 1]) == base,
		      "dominator chain: %zu", nc);
		free(c);
		rc = hp_paths_dom_chain(&d, root, &c, &nc, &err);
		CHECK(rc == HP_OK && nc == 0, "the root's dominator chain: %zu", nc);
		free(c);
		/* cut: the 2 nearest (links N-2, N-3) and the farthest (link 0) */
		struct hp_path_gap gap;
		rc = hp_paths_dom_chain_cut(&d, last, 2, 1, &c, &nc, &gap, &err);
		CHECK(rc == HP_OK && nc == 3 && gap.at == 2 && gap.n == N - 4 && hp_heap_id(h, c[0]) == base + 16ull * (N - 2) &&
		      hp_heap_id(h, c[1]) == base + 16ull * (N - 3) && hp_heap_id(h, c[2]) == base &&
		      hp_heap_id(h, gap.first) == base + 16ull * (N - 4) && hp_heap_id(h, gap.last) == base + 16,
		      "dominator chain cut: %zu kept, a gap of %zu from %zu", nc, gap.n, gap.at);
		free(c);
		hp_dom_release(&d);
	}

	/* field names along the chain */
	hp_objread *f;
	rc = hp_objread_open(&f, h, path, &err);
	CHECK(rc == HP_OK, "objread: %s", err.msg);
	if (rc == HP_OK) {
		struct hp_objref ref;
		rc = hp_objread_find_ref(f, obj(h, base + 16ull * (N - 2)), last, &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_FIELD && streq(ref.name, "next"), "last link: %d", ref.kind);
		hp_objread_free(f);
	}
	graph_release(&G);
}

/* ---- decoding ----------------------------------------------------------- */

/* Base 0x200 {l: long, z: boolean}; Sub 0x210 extends Base {b: byte,
 * c: char, s: short, i: int, f: float, d: double, o: Object}: 1 + 2 + 2 +
 * 4 + 4 + 8 + 4 (4-byte ids) + 8 + 1 = 34 field bytes.  Statics on Sub:
 * K = 42 (int), PI = 3.25 (double bits), SELF -> the Sub instance. */
enum { BASE_C = 0x200, SUB_C = 0x210, IARR_C = 0x220, SUBI = 0x3000, SHORT = 0x3010, IARR = 0x3020,
       LARR = 0x3030, OARR = 0x3040, NOD = 0x3050, EMPTYOA = 0x3060 };

static void test_decode(void)
{
	char path[600];
	snprintf(path, sizeof path, "%s/decode.hprof", tmpdir);
	hpw *w = hpw_new("JAVA PROFILE 1.0.3", 4, 0);
	static const struct field basef[] = { { "l", HPW_T_LONG }, { "z", HPW_T_BOOLEAN } };
	static const struct field subf[] = { { "b", HPW_T_BYTE }, { "c", HPW_T_CHAR }, { "s", HPW_T_SHORT },
					     { "i", HPW_T_INT }, { "f", HPW_T_FLOAT }, { "d", HPW_T_DOUBLE },
					     { "o", HPW_T_OBJECT } };
	static const struct stat_ subs[] = { { "K", HPW_T_INT, 42 }, { "PI", HPW_T_DOUBLE, 0x400a000000000000ull },
					     { "SELF", HPW_T_OBJECT, SUBI } };
	uint64_t bs[2], ss[7], st[3];
	sids(w, basef, 2, bs);
	sids(w, subf, 7, ss);
	ssids(w, subs, 3, st);
	uint64_t heap_sid = sid(w, "app");
	load_class(w, OBJ_C, "java/lang/Object");
	load_class(w, BASE_C, "Base");
	load_class(w, SUB_C, "Sub");
	load_class(w, OARR_C, "[Ljava/lang/Object;");
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	hpw_heap_info(w, 'A', heap_sid);
	class_dump(w, OBJ_C, 0, NULL, NULL, 0, NULL, NULL, 0);
	class_dump(w, BASE_C, OBJ_C, bs, basef, 2, NULL, NULL, 0);
	class_dump(w, SUB_C, BASE_C, ss, subf, 7, st, subs, 3);
	class_dump(w, OARR_C, OBJ_C, NULL, NULL, 0, NULL, NULL, 0);
	hpw_instance_begin(w, SUBI, 0, SUB_C);
	hpw_value(w, HPW_T_BYTE, 0xfe);                 /* -2 */
	hpw_value(w, HPW_T_CHAR, 0x00e5);               /* å */
	hpw_value(w, HPW_T_SHORT, 0x8000);              /* -32768 */
	hpw_value(w, HPW_T_INT, 0xffffffffu);           /* -1 */
	hpw_value(w, HPW_T_FLOAT, hpw_float_bits(1.5f));
	hpw_value(w, HPW_T_DOUBLE, hpw_double_bits(-0.25));
	hpw_value(w, HPW_T_OBJECT, IARR);
	hpw_value(w, HPW_T_LONG, 0x8000000000000001ull);
	hpw_value(w, HPW_T_BOOLEAN, 1);
	hpw_instance_end(w);
	/* a record shorter than the layout: b, c and half of s */
	hpw_instance_begin(w, SHORT, 0, SUB_C);
	hpw_value(w, HPW_T_BYTE, 7);
	hpw_value(w, HPW_T_CHAR, 'q');
	hpw_value(w, HPW_T_BYTE, 0);
	hpw_instance_end(w);
	uint64_t iv[5] = { 1, 0xffffffffu, 3, 4, 5 };
	hpw_prim_array_values(w, IARR, 0, HPW_T_INT, 5, iv);
	uint64_t lv[2] = { 0x0102030405060708ull, 0xffffffffffffffffull };
	hpw_prim_array_values(w, LARR, 0, HPW_T_LONG, 2, lv);
	uint64_t ov[4] = { SUBI, 0, IARR, 0x9999 };
	hpw_obj_array(w, OARR, 0, OARR_C, 4, ov);
	hpw_obj_array(w, EMPTYOA, 0, OARR_C, 0, NULL);
	hpw_prim_array_nodata(w, NOD, 0, HPW_T_BYTE, 100);
	hpw_end_dump(w);
	hpw_dump_end(w);
	write_dump(w, path, 0);
	hpw_free(w);

	hp_heap *h = load(path);
	if (!h)
		return;
	struct hp_error err;
	hp_error_clear(&err);
	hp_objread *f;
	int rc = hp_objread_open(&f, h, path, &err);
	CHECK(rc == HP_OK, "objread: %s", err.msg);
	if (rc) {
		hp_heap_free(h);
		return;
	}
	struct hp_objdata d;
	rc = hp_objread_decode(f, obj(h, SUBI), 10, &d, &err);
	CHECK(rc == HP_OK && d.kind == HP_OBJ_INSTANCE && d.nfields == 9 && d.field_bytes == 34 &&
	      d.layout_bytes == 34, "Sub: rc %d, %zu fields, %u bytes", rc, d.nfields, d.field_bytes);
	if (rc == HP_OK && d.nfields == 9) {
		static const char *const names[] = { "b", "c", "s", "i", "f", "d", "o", "l", "z" };
		static const char *const decl[] = { "Sub", "Sub", "Sub", "Sub", "Sub", "Sub", "Sub", "Base", "Base" };
		const uint64_t bits[] = { 0xfe, 0xe5, 0x8000, 0xffffffffu, hpw_float_bits(1.5f),
					  hpw_double_bits(-0.25), IARR, 0x8000000000000001ull, 1 };
		for (int i = 0; i < 9; i++)
			CHECK(streq(d.fields[i].name, names[i]) && streq(hp_class_name(h, d.fields[i].decl), decl[i]) &&
			      d.fields[i].bits == bits[i], "field %d: %s.%s = 0x%llx", i,
			      hp_class_name(h, d.fields[i].decl), d.fields[i].name, (unsigned long long)d.fields[i].bits);
		const struct hp_objval *v = hp_objread_field(f, &d, "l", "Base");
		CHECK(v && v->type == HP_T_LONG && v->bits == 0x8000000000000001ull, "field l of Base");
		CHECK(hp_objread_field(f, &d, "l", "Sub") == NULL, "no field l declared by Sub");
		CHECK(hp_objread_field(f, &d, "nope", NULL) == NULL, "no field nope");
	}
	hp_objread_release(&d);

	rc = hp_objread_decode(f, obj(h, SHORT), 10, &d, &err);
	CHECK(rc == HP_OK && d.nfields == 2 && d.field_bytes == 4 && d.layout_bytes == 34 && d.fields[1].bits == 'q',
	      "short record: %zu fields, %u of %u bytes", d.nfields, d.field_bytes, d.layout_bytes);
	hp_objread_release(&d);

	rc = hp_objread_decode(f, obj(h, IARR), 3, &d, &err);
	CHECK(rc == HP_OK && d.kind == HP_OBJ_PRIMARRAY && d.length == 5 && d.nelems == 3 && d.elem_type == HP_T_INT &&
	      d.elems[0] == 1 && d.elems[1] == 0xffffffffu && d.elems[2] == 3, "int[5] cut at 3: %u of %u", d.nelems,
	      d.length);
	hp_objread_release(&d);
	rc = hp_objread_decode(f, obj(h, LARR), 100, &d, &err);
	CHECK(rc == HP_OK && d.nelems == 2 && d.elems[0] == 0x0102030405060708ull && d.elems[1] == UINT64_MAX,
	      "long[2]");
	hp_objread_release(&d);
	rc = hp_objread_decode(f, obj(h, OARR), 100, &d, &err);
	CHECK(rc == HP_OK && d.kind == HP_OBJ_OBJARRAY && d.elem_type == HP_T_OBJECT && d.nelems == 4 &&
	      d.elems[0] == SUBI && d.elems[1] == 0 && d.elems[3] == 0x9999, "Object[4]");
	hp_objread_release(&d);
	rc = hp_objread_decode(f, obj(h, EMPTYOA), 100, &d, &err);
	CHECK(rc == HP_OK && d.length == 0 && d.nelems == 0, "Object[0]");
	hp_objread_release(&d);
	rc = hp_objread_decode(f, obj(h, NOD), 100, &d, &err);
	CHECK(rc == HP_OK && d.nodata && d.length == 100 && d.nelems == 0, "NODATA byte[100]");
	hp_objread_release(&d);
	struct hp_text t;
	rc = hp_objread_text(f, obj(h, NOD), 0, &t, &err);
	CHECK(rc == HP_OK && !t.utf8 && t.why, "NODATA has no text");
	hp_objread_text_release(&t);

	rc = hp_objread_decode(f, obj(h, SUB_C), 10, &d, &err);
	CHECK(rc == HP_OK && d.kind == HP_OBJ_CLASS && d.nfields == 3 && streq(hp_class_name(h, d.class_of), "Sub") &&
	      streq(d.fields[0].name, "K") && d.fields[0].bits == 42 && d.fields[1].bits == 0x400a000000000000ull &&
	      d.fields[2].type == HP_T_OBJECT && d.fields[2].bits == SUBI, "class Sub statics: %zu", d.nfields);
	hp_objread_release(&d);
	rc = hp_objread_decode(f, h->nobj, 10, &d, &err);
	CHECK(rc == HP_EUSAGE, "object beyond the table: %d", rc);
	hp_objread_free(f);
	hp_heap_free(h);
}

/* ---- strings ------------------------------------------------------------ */

enum layout { JDK6, JDK8, JDK9, JDK9_BE, ART };
enum { STR_C = 0x400, CARR_C = 0x410, BARR_C = 0x420, UTF16_C = 0x430, THR_C = 0x440 };

struct sdef {
	const char *want;          /* UTF-8 expected, NULL: undecodable */
	size_t want_len;
	const uint16_t *chars;     /* UTF-16 units, or NULL for latin1 */
	const char *latin1;
	size_t n;
	int offset, count;         /* JDK6 only; -1: whole */
};

static uint64_t next_id;

/* writes one String (and its array) in the layout; returns the String's id */
static uint64_t string(hpw *w, enum layout lay, const struct sdef *s)
{
	uint64_t sid_ = next_id, aid = next_id + 0x100;
	next_id += 0x200;
	int latin1 = s->latin1 != NULL;
	uint64_t vals[64];
	if (lay == JDK9 || lay == JDK9_BE || (lay == ART && latin1)) {
		/* byte[]: latin1 as is, UTF16 in the chosen order */
		size_t nb = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (latin1) {
				vals[nb++] = (uint8_t)s->latin1[i];
			} else if (lay == JDK9_BE) {
				vals[nb++] = s->chars[i] >> 8;
				vals[nb++] = s->chars[i] & 0xff;
			} else {
				vals[nb++] = s->chars[i] & 0xff;
				vals[nb++] = s->chars[i] >> 8;
			}
		}
		hpw_prim_array_values(w, aid, 0, HPW_T_BYTE, (uint32_t)nb, vals);
	} else {
		for (size_t i = 0; i < s->n; i++)
			vals[i] = latin1 ? (uint8_t)s->latin1[i] : s->chars[i];
		hpw_prim_array_values(w, aid, 0, HPW_T_CHAR, (uint32_t)s->n, vals);
	}
	hpw_instance_begin(w, sid_, 0, STR_C);
	switch (lay) {
	case JDK6:   /* value, offset, count, hash */
		hpw_value(w, HPW_T_OBJECT, aid);
		hpw_value(w, HPW_T_INT, s->offset < 0 ? 0 : (uint64_t)s->offset);
		hpw_value(w, HPW_T_INT, s->count < 0 ? s->n : (uint64_t)s->count);
		hpw_value(w, HPW_T_INT, 0);
		break;
	case JDK8:   /* value, hash */
		hpw_value(w, HPW_T_OBJECT, aid);
		hpw_value(w, HPW_T_INT, 0);
		break;
	case JDK9:
	case JDK9_BE:  /* value, coder, hash */
		hpw_value(w, HPW_T_OBJECT, aid);
		hpw_value(w, HPW_T_BYTE, latin1 ? 0 : 1);
		hpw_value(w, HPW_T_INT, 0);
		break;
	case ART:    /* count, hash, value (added by the dumper) */
		hpw_value(w, HPW_T_INT, (s->n << 1) | (latin1 ? 0 : 1));
		hpw_value(w, HPW_T_INT, 0);
		hpw_value(w, HPW_T_OBJECT, s->n ? aid : sid_ + 8);
		break;
	}
	hpw_instance_end(w);
	return sid_;
}

static void check_text(hp_objread *f, const hp_heap *h, uint64_t id, const struct sdef *s, const char *what)
{
	struct hp_text t;
	struct hp_error err;
	hp_error_clear(&err);
	int rc = hp_objread_text(f, obj(h, id), 0, &t, &err);
	if (!s->want) {
		CHECK(rc == HP_OK && !t.utf8 && t.why, "%s: want no text, got %s", what, t.utf8 ? t.utf8 : "(none)");
	} else {
		size_t wl = s->want_len ? s->want_len : strlen(s->want);
		CHECK(rc == HP_OK && t.utf8 && t.len == wl && memcmp(t.utf8, s->want, wl) == 0 && !t.truncated,
		      "%s: got \"%s\" (%zu bytes; %s), want \"%s\"", what, t.utf8 ? t.utf8 : "", t.len,
		      t.why ? t.why : "-", s->want);
	}
	hp_objread_text_release(&t);
}

static void test_strings(enum layout lay, const char *lname)
{
	char path[600], what[200];
	snprintf(path, sizeof path, "%s/strings-%s.hprof", tmpdir, lname);
	hpw *w = hpw_new(lay == ART ? "JAVA PROFILE 1.0.3" : "JAVA PROFILE 1.0.2", 4, 0);
	static const struct field f6[] = { { "value", HPW_T_OBJECT }, { "offset", HPW_T_INT }, { "count", HPW_T_INT },
					   { "hash", HPW_T_INT } };
	static const struct field f8[] = { { "value", HPW_T_OBJECT }, { "hash", HPW_T_INT } };
	static const struct field f9[] = { { "value", HPW_T_OBJECT }, { "coder", HPW_T_BYTE }, { "hash", HPW_T_INT } };
	static const struct field fa[] = { { "count", HPW_T_INT }, { "hash", HPW_T_INT }, { "value", HPW_T_OBJECT } };
	static const struct field thr[] = { { "name", HPW_T_OBJECT }, { "priority", HPW_T_INT } };
	static const struct stat_ u16[] = { { "HI_BYTE_SHIFT", HPW_T_INT, 8 }, { "LO_BYTE_SHIFT", HPW_T_INT, 0 } };
	const struct field *sf = lay == JDK6 ? f6 : lay == JDK8 ? f8 : lay == ART ? fa : f9;
	int nsf = lay == JDK6 ? 4 : lay == JDK8 ? 2 : 3;
	uint64_t ss[4], ts[2], us[2];
	sids(w, sf, nsf, ss);
	sids(w, thr, 2, ts);
	ssids(w, u16, 2, us);
	load_class(w, OBJ_C, "java/lang/Object");
	load_class(w, STR_C, "java/lang/String");
	load_class(w, THR_C, "java/lang/Thread");
	if (lay == JDK9_BE)
		load_class(w, UTF16_C, "java/lang/StringUTF16");
	hpw_begin_dump(w, HPW_TAG_HEAP_DUMP_SEGMENT);
	class_dump(w, OBJ_C, 0, NULL, NULL, 0, NULL, NULL, 0);
	class_dump(w, STR_C, OBJ_C, ss, sf, nsf, NULL, NULL, 0);
	class_dump(w, THR_C, OBJ_C, ts, thr, 2, NULL, NULL, 0);
	if (lay == JDK9_BE)
		class_dump(w, UTF16_C, OBJ_C, NULL, NULL, 0, us, u16, 2);

	static const uint16_t hello[] = { 'h', 'e', 'l', 'l', 'o' };
	static const uint16_t fanark[] = { 'F', 0xe5, 'n', 'a', 'r', 'k' };
	static const uint16_t smile[] = { 0xd83d, 0xde00, '!' };            /* U+1F600 */
	static const uint16_t lone[] = { 0xd800, 'x', 0xdc00 };            /* unpaired both ways */
	static const uint16_t nul[] = { 'a', 0, 'b' };
	static const uint16_t ctl[] = { 'a', 0x1b, '[', '"', '\\', 0x85 };
	static const uint16_t sub[] = { 'x', 'x', 'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', 'y', 'y' };
	const struct sdef defs[] = {
		{ "hello", 0, hello, NULL, 5, -1, -1 },
		{ "F\xc3\xa5nark", 0, fanark, NULL, 6, -1, -1 },
		{ "F\xc3\xa5nark", 0, NULL, "F\xe5nark", 6, -1, -1 },
		{ "\xf0\x9f\x98\x80!", 0, smile, NULL, 3, -1, -1 },
		{ "\xef\xbf\xbdx\xef\xbf\xbd", 0, lone, NULL, 3, -1, -1 },
		{ "a\0b", 3, nul, NULL, 3, -1, -1 },
		{ "a\x1b[\"\\\xc2\x85", 0, ctl, NULL, 6, -1, -1 },
		{ "", 0, NULL, "", 0, -1, -1 },
	};
	size_t nd = sizeof defs / sizeof defs[0];
	uint64_t ids[16];
	next_id = 0x10000;
	for (size_t i = 0; i < nd; i++)
		ids[i] = string(w, lay, &defs[i]);
	/* JDK 6: a substring through offset/count; a count beyond the array
	 * gives what the array holds from offset 8 on */
	const struct sdef s6 = { "hello world", 0, sub, NULL, 15, 2, 11 };
	const struct sdef s6b = { "worldyy", 0, sub, NULL, 15, 8, 100 };
	uint64_t id6 = lay == JDK6 ? string(w, lay, &s6) : 0;
	uint64_t id6b = lay == JDK6 ? string(w, lay, &s6b) : 0;
	/* a String whose value is null, and whose value is not in the dump */
	uint64_t nullv = next_id, missing = next_id + 0x10;
	next_id += 0x100;
	for (int k = 0; k < 2; k++) {
		hpw_instance_begin(w, k ? missing : nullv, 0, STR_C);
		for (int i = 0; i < nsf; i++)
			hpw_value(w, sf[i].type, sf[i].type == HPW_T_OBJECT ? (k ? 0x7777000 : 0) : sf[i].type == HPW_T_INT ? 3 : 0);
		hpw_instance_end(w);
	}
	/* threads: named by a String; by a char[] (JDK 6 and before); unnamed */
	const uint64_t t1 = 0x50000, t2 = 0x50010, t3 = 0x50020, tname = 0x50100;
	static const uint16_t mainc[] = { 'm', 'a', 'i', 'n' };
	uint64_t mv[4];
	for (int i = 0; i < 4; i++)
		mv[i] = mainc[i];
	hpw_prim_array_values(w, tname, 0, HPW_T_CHAR, 4, mv);
	uint64_t tvals[3] = { ids[0], tname, 0 };
	const uint64_t tids[3] = { t1, t2, t3 };
	for (int i = 0; i < 3; i++) {
		hpw_instance_begin(w, tids[i], 0, THR_C);
		hpw_value(w, HPW_T_OBJECT, tvals[i]);
		hpw_value(w, HPW_T_INT, 5);
		hpw_instance_end(w);
		hpw_root_thread_object(w, tids[i], (uint32_t)i + 1, 0);
	}
	hpw_end_dump(w);
	hpw_dump_end(w);
	write_dump(w, path, 0);
	hpw_free(w);

	hp_heap *h = load(path);
	if (!h)
		return;
	struct hp_error err;
	hp_error_clear(&err);
	hp_objread *f;
	int rc = hp_objread_open(&f, h, path, &err);
	CHECK(rc == HP_OK, "objread: %s", err.msg);
	if (rc) {
		hp_heap_free(h);
		return;
	}
	for (size_t i = 0; i < nd; i++) {
		snprintf(what, sizeof what, "%s string %zu", lname, i);
		CHECK(hp_objread_is_string(h, obj(h, ids[i])), "%s is a String", what);
		check_text(f, h, ids[i], &defs[i], what);
	}
	if (lay == JDK6) {
		check_text(f, h, id6, &s6, "JDK 6 substring");
		check_text(f, h, id6b, &s6b, "JDK 6 count beyond the array");
	}
	const struct sdef none = { NULL, 0, NULL, NULL, 0, -1, -1 };
	snprintf(what, sizeof what, "%s null value", lname);
	check_text(f, h, nullv, &none, what);
	snprintf(what, sizeof what, "%s value not in the dump", lname);
	check_text(f, h, missing, &none, what);

	/* truncation: 3 characters of "hello" */
	struct hp_text t;
	rc = hp_objread_text(f, obj(h, ids[0]), 3, &t, &err);
	CHECK(rc == HP_OK && t.utf8 && streq(t.utf8, "hel") && t.truncated && t.chars == 5, "%s: hello cut at 3: %s",
	      lname, t.utf8 ? t.utf8 : "-");
	hp_objread_text_release(&t);
	/* a char[] is text too; a Thread is not */
	rc = hp_objread_text(f, obj(h, tname), 0, &t, &err);
	CHECK(rc == HP_OK && streq(t.utf8, "main"), "char[] as text");
	hp_objread_text_release(&t);
	rc = hp_objread_text(f, obj(h, t1), 0, &t, &err);
	CHECK(rc == HP_OK && !t.utf8 && streq(t.why, "not a java.lang.String"), "a Thread is no String");
	hp_objread_text_release(&t);

	rc = hp_objread_thread_name(f, obj(h, t1), 0, &t, &err);
	CHECK(rc == HP_OK && streq(t.utf8, "hello"), "%s: thread named by a String: %s", lname, t.utf8 ? t.utf8 : t.why);
	hp_objread_text_release(&t);
	rc = hp_objread_thread_name(f, obj(h, t2), 0, &t, &err);
	CHECK(rc == HP_OK && streq(t.utf8, "main"), "%s: thread named by a char[]", lname);
	hp_objread_text_release(&t);
	rc = hp_objread_thread_name(f, obj(h, t3), 0, &t, &err);
	CHECK(rc == HP_OK && !t.utf8 && t.why, "%s: thread without a name", lname);
	hp_objread_text_release(&t);
	rc = hp_objread_thread_name(f, obj(h, ids[0]), 0, &t, &err);
	CHECK(rc == HP_OK && !t.utf8, "%s: a String has no thread name", lname);
	hp_objread_text_release(&t);
	hp_objread_free(f);
	hp_heap_free(h);
}

/* ---- gzip, changed files, pipes ------------------------------------------ */

/* hp_objread_on_restart()'s copy: the plain file, and how often it was asked for */
struct copy_ask { const char *path; int calls; };

static const char *copy_path(void *ud)
{
	struct copy_ask *a = ud;
	a->calls++;
	return a->path;
}

static void test_gzip(void)
{
	char plain[600], gz[600];
	snprintf(plain, sizeof plain, "%s/graph2.hprof", tmpdir);
	snprintf(gz, sizeof gz, "%s/graph2.hprof.gz", tmpdir);
	filler = 2u << 20;          /* twice the reader's first buffer */
	hpw *w = graph_dump();
	write_dump(w, plain, 0);
	write_dump(w, gz, 1);
	hpw_free(w);
	hp_heap *h = load(gz);
	if (!h)
		return;
	struct hp_error err;
	hp_error_clear(&err);
	hp_objread *f;
	int rc = hp_objread_open(&f, h, gz, &err);
	CHECK(rc == HP_OK, "objread gzip: %s", err.msg);
	if (rc) {
		hp_heap_free(h);
		return;
	}
	/* backwards through the file: each record before the last read is a restart */
	const uint64_t order[] = { U, L, C, A };
	struct hp_objdata d;
	for (size_t i = 0; i < 4; i++) {
		rc = hp_objread_decode(f, obj(h, order[i]), 10, &d, &err);
		CHECK(rc == HP_OK && d.nfields == 3 && d.fields[2].bits == (order[i] == U ? 9 : order[i] == L ? 8 :
										order[i] == C ? 3 : 1),
		      "gzip decode 0x%llx: %s", (unsigned long long)order[i], err.msg);
		hp_objread_release(&d);
	}
	CHECK(hp_objread_restarts(f) == 3, "gzip restarts %llu, want 3", (unsigned long long)hp_objread_restarts(f));
	/* read again: from the cache */
	rc = hp_objread_decode(f, obj(h, U), 10, &d, &err);
	hp_objread_release(&d);
	CHECK(rc == HP_OK && hp_objread_restarts(f) == 3, "cached: restarts %llu", (unsigned long long)hp_objread_restarts(f));
	struct hp_text t;
	rc = hp_objread_thread_name(f, obj(h, T), 0, &t, &err);
	CHECK(rc == HP_OK && !t.utf8, "T has a null name");
	hp_objread_text_release(&t);
	hp_objread_free(f);

	/* a prefetch of everything, in any order: one forward pass */
	rc = hp_objread_open(&f, h, gz, &err);
	if (rc == HP_OK) {
		uint32_t all[64];
		size_t n = 0;
		for (size_t i = h->nobj; i-- > 0 && n < 64;)
			all[n++] = (uint32_t)i;
		rc = hp_objread_prefetch_text(f, all, n, &err);
		CHECK(rc == HP_OK, "prefetch: %s", err.msg);
		for (size_t i = h->nobj; rc == HP_OK && i-- > 0;) {
			rc = hp_objread_decode(f, i, 10, &d, &err);
			hp_objread_release(&d);
		}
		struct hp_objref ref;
		if (rc == HP_OK)
			rc = hp_objread_find_ref(f, obj(h, ARR), obj(h, C), &ref, &err);
		CHECK(rc == HP_OK && ref.kind == HP_REF_ELEMENT && ref.index == 2, "gzip ARR -> C");
		CHECK(rc == HP_OK && hp_objread_restarts(f) == 0, "after prefetch: rc %d, restarts %llu", rc,
		      (unsigned long long)hp_objread_restarts(f));
		hp_objread_free(f);
	}

	/* backwards again, with an uncompressed copy offered: asked for once
	 * when restarting would inflate past the budget, and read from then
	 * on; within the budget the stream is started again */
	for (int budget = 0; budget < 2; budget++) {
		rc = hp_objread_open(&f, h, gz, &err);
		CHECK(rc == HP_OK, "objread gzip (copy): %s", err.msg);
		if (rc)
			break;
		struct copy_ask ask = { plain, 0 };
		hp_objread_on_restart(f, budget ? UINT64_MAX : 0, copy_path, &ask);
		for (size_t i = 0; i < 4 && rc == HP_OK; i++) {
			rc = hp_objread_decode(f, obj(h, order[i]), 10, &d, &err);
			CHECK(rc == HP_OK && d.nfields == 3 && d.fields[2].bits == (order[i] == U ? 9 : order[i] == L ? 8 :
											order[i] == C ? 3 : 1),
			      "gzip decode 0x%llx (copy): %s", (unsigned long long)order[i], err.msg);
			hp_objread_release(&d);
		}
		if (budget)
			CHECK(ask.calls == 0 && hp_objread_restarts(f) == 3, "within the budget: %d calls, %llu restarts",
			      ask.calls, (unsigned long long)hp_objread_restarts(f));
		else
			CHECK(ask.calls == 1 && hp_objread_restarts(f) == 0, "past the budget: %d calls, %llu restarts",
			      ask.calls, (unsigned long long)hp_objread_restarts(f));
		hp_objread_free(f);
	}

	/* the gzip file gone after a read: a restart cannot open it, an error
	 * each time it is needed, never a crash */
	rc = hp_objread_open(&f, h, gz, &err);
	if (rc == HP_OK) {
		char moved[640];
		snprintf(moved, sizeof moved, "%s.moved", gz);
		rc = hp_objread_decode(f, obj(h, U), 10, &d, &err);
		hp_objread_release(&d);
		CHECK(rc == HP_OK && rename(gz, moved) == 0, "gone: first read %d", rc);
		for (int k = 0; k < 2; k++) {
			hp_error_clear(&err);
			rc = hp_objread_decode(f, obj(h, A), 10, &d, &err);
			hp_objread_release(&d);
			CHECK(rc != HP_OK && err.msg[0], "gone: read %d: rc %d, %s", k, rc, err.msg);
		}
		CHECK(rename(moved, gz) == 0, "gone: put back");
		rc = hp_objread_decode(f, obj(h, A), 10, &d, &err);
		CHECK(rc == HP_OK && d.nfields == 3 && d.fields[2].bits == 1, "back: read again: %s", err.msg);
		hp_objread_release(&d);
		hp_objread_free(f);
	}

	/* the plain file changes after it was read: another dump in its place */
	hp_heap *hp = load(plain);
	if (hp) {
		hpw *w2 = hpw_new("JAVA PROFILE 1.0.2", 8, 0);
		hpw_string(w2, 1, "filler that moves every record");
		struct hp_objdata d2;
		for (int k = 0; k < 2; k++) {
			if (k == 0) {
				hpw *g = graph_dump();
				size_t len;
				const uint8_t *bytes = hpw_data(g, &len);
				/* the same dump shifted by a STRING record */
				hpw_bytes(w2, bytes + 31, len - 31);
				hpw_free(g);
				write_dump(w2, plain, 0);
			} else {
				/* cut short before the last records */
				hpw *g = graph_dump();
				size_t len;
				const uint8_t *bytes = hpw_data(g, &len);
				FILE *fp = fopen(plain, "wb");
				if (!fp || fwrite(bytes, 1, (size_t)hp_heap_offset(hp, obj(hp, U)) + 3, fp) == 0 || fclose(fp))
					exit(2);
				hpw_free(g);
			}
			hp_error_clear(&err);
			rc = hp_objread_open(&f, hp, plain, &err);
			CHECK(rc == HP_OK, "objread changed file: %s", err.msg);
			if (rc)
				continue;
			rc = hp_objread_decode(f, obj(hp, U), 10, &d2, &err);
			CHECK(rc == HP_ECORRUPT && strstr(err.msg, "has the dump changed since it was read?"),
			      "changed file %d: rc %d, %s", k, rc, err.msg);
			hp_objread_release(&d2);
			hp_objread_free(f);
		}
		hpw_free(w2);
		hp_heap_free(hp);
	}
	filler = 0;
	rc = hp_objread_open(&f, h, "-", &err);
	CHECK(rc == HP_EUSAGE && f == NULL && strstr(err.msg, "standard input"), "stdin: rc %d", rc);
	rc = hp_objread_open(&f, h, "/nonexistent/dump.hprof", &err);
	CHECK(rc == HP_EIO && f == NULL, "missing file: rc %d", rc);
	hp_heap_free(h);
}

/* ---- referrers against a brute force ----------------------------------- */

/* Random graphs with empty edge lists, repeated edges and self-loops, some
 * longer than the 16-entry blocks the scan compares at once: for every
 * target, hp_paths_referrers() lists each object with an edge to it once,
 * in object order, with 64-bit and with 32-bit offsets. */
static void test_referrers_random(void)
{
	uint64_t seed = 0x5eed;
	int bad = 0, graphs = 0;
	for (int gi = 0; gi < 40 && !bad; gi++, graphs++) {
		uint32_t n = 1 + (uint32_t)(gi * 7 % 97);
		uint64_t *off = calloc((size_t)n + 1, sizeof *off);
		uint32_t *off32 = calloc((size_t)n + 1, sizeof *off32);
		uint32_t *adj = malloc(((size_t)n * 40 + 1) * sizeof *adj);
		if (!off || !off32 || !adj)
			abort();
		uint64_t m = 0;
		for (uint32_t v = 0; v < n; v++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			uint32_t deg = (uint32_t)(seed >> 33) % 4 == 0 ? (uint32_t)(seed >> 40) % 40 : (uint32_t)(seed >> 40) % 3;
			for (uint32_t j = 0; j < deg; j++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				adj[m++] = (uint32_t)(seed >> 35) % n;
			}
			off[v + 1] = m;
		}
		for (uint32_t v = 0; v <= n; v++)
			off32[v] = (uint32_t)off[v];
		for (int width = 0; width < 2 && !bad; width++) {
			struct hp_refs g;
			memset(&g, 0, sizeof g);
			g.n = n;
			g.nedges = m;
			g.adj = adj;
			if (width)
				g.off32 = off32;
			else
				g.off = off;
			for (uint32_t t = 0; t < n && !bad; t++) {
				uint32_t *r;
				size_t nr;
				struct hp_error err;
				hp_error_clear(&err);
				if (hp_paths_referrers(&g, t, &r, &nr, &err) != HP_OK) {
					bad = 1;
					break;
				}
				size_t k = 0;
				for (uint32_t v = 0; v < n && !bad; v++) {
					int has = 0;
					for (uint64_t e = off[v]; e < off[v + 1]; e++)
						has |= adj[e] == t;
					if (has && (k >= nr || r[k++] != v))
						bad = 1;
				}
				if (k != nr)
					bad = 1;
				if (bad)
					printf("referrers: graph %d (n %u), target %u, %s offsets: %zu listed\n", gi, n, t,
					       width ? "32-bit" : "64-bit", nr);
				hp_free(r);
			}
		}
		free(off);
		free(off32);
		free(adj);
	}
	CHECK(!bad, "referrers of every object of %d random graphs match a brute force", graphs);
}

/* ---- class edges taken last ------------------------------------------- */

/* A graph with class edges (refs.h) made by hand: classes 0, 1, 2 with class
 * objects 4, 5 and none; 5 is of class 1 itself (no edge to itself).
 *   0 -> 1, 2          0 is the start (class 2: no class edge)
 *   1 -> <4>, 3        <4>: the class edge, first
 *   2 -> <4>
 *   3 -> 5             5 is reached without a class edge, though 4's leads to it
 *   4 -> <5>, 6        6 only through class object 4, which only class edges reach
 *   7 -> <4>, 4        7 holds 4 by a field too (and is unreachable)
 * The class edges are implicit: adj[] holds the others only.
 * Round 0 reaches 0 1 2 3 5; round 1 the class object 4 through 1 (the
 * first of its depth), then 6: 7 objects, 2 through a class edge. */
static void test_class_edges(void)
{
	static uint64_t off[] = { 0, 2, 3, 3, 4, 5, 5, 5, 6 };
	static uint32_t adj[] = { 1, 2, 3, 5, 6, 4 };
	static uint32_t obj_cls[] = { 2, 0, 0, 2, 1, 1, 2, 0 };
	static uint32_t class_obj[] = { 4, 5, HP_NONE };
	struct hp_refs g;
	memset(&g, 0, sizeof g);
	g.n = 8;
	g.off = off;
	g.adj = adj;
	g.nedges = 6;
	g.class_obj = class_obj;
	g.obj_cls = obj_cls;
	g.nclasses = 3;
	g.nclass_edges = 4;
	CHECK(hp_refs_class_edge(&g, 1) == 4 && hp_refs_class_edge(&g, 5) == HP_NONE &&
	      hp_refs_class_edge(&g, 0) == HP_NONE && hp_refs_class_edge(&g, 7) == 4 && hp_refs_degree(&g, 7) == 2 &&
	      hp_refs_degree(&g, 2) == 1 && hp_refs_degree(&g, 5) == 0 && hp_refs_total(&g) == 10,
	      "class edges: the first edge of an object whose class has a class object, never to itself");
	{
		struct hp_edges it = hp_refs_edges(&g, 7);
		uint32_t w1 = 0, w2 = 0, w3 = 0;
		int k = hp_edges_next(&it, &w1) + hp_edges_next(&it, &w2) + hp_edges_next(&it, &w3);
		CHECK(k == 2 && w1 == 4 && w2 == 4, "7's edges: its class edge, then its field (%d: %u %u)", k, w1, w2);
	}
	/* an object marked in class_gap has none */
	static uint8_t gap[] = { 0x02, 0 };
	g.class_gap = gap;
	g.class_gap_bytes = sizeof gap;
	CHECK(hp_refs_class_edge(&g, 1) == HP_NONE && hp_refs_class_edge(&g, 2) == 4 && hp_refs_degree(&g, 1) == 1,
	      "class_gap: object 1 has no class edge");
	g.class_gap = NULL;
	g.class_gap_bytes = 0;
	struct hp_error err;
	hp_error_clear(&err);
	struct hp_paths P;
	uint32_t start = 0;
	int rc = hp_paths_bfs(&P, &g, &start, 1, &err);
	CHECK(rc == HP_OK, "bfs: %s", err.msg);
	if (rc)
		return;
	CHECK(P.reached == 7 && P.through_class == 2, "reached %llu, %llu through a class edge; want 7, 2",
	      (unsigned long long)P.reached, (unsigned long long)P.through_class);
	CHECK(P.parent[5] == 3 && P.depth[5] == 3, "5 through 3 (not 4's class edge): parent %u", P.parent[5]);
	CHECK(P.parent[4] == 1 && P.depth[4] == 2 && P.parent[6] == 4 && P.depth[6] == 3,
	      "4 through 1's class edge, 6 through 4: parents %u %u", P.parent[4], P.parent[6]);
	CHECK(P.parent[7] == HP_PATH_UNSEEN, "7 is reached");
	struct hp_pathlist l;
	rc = hp_paths_shortest(&P, &g, 6, 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 1 && l.first[1] == 4 && l.nodes[0] == 0 && l.nodes[1] == 1 && l.nodes[2] == 4 &&
	      l.nodes[3] == 6, "the path to 6: 0 1 4 6 (%zu paths)", l.npaths);
	hp_paths_list_release(&l);
	/* 4's other referrer 2 holds it only as its class: no second path */
	rc = hp_paths_shortest(&P, &g, 4, 5, &l, &err);
	CHECK(rc == HP_OK && l.npaths == 1, "paths to 4: %zu, want 1", l.npaths);
	hp_paths_list_release(&l);

	struct hp_holders H;
	rc = hp_paths_holders(&g, 4, &H, &err);
	CHECK(rc == HP_OK && H.n == 1 && H.obj[0] == 7 && H.through_class == 2 && !H.class_listed,
	      "holders of 4: %zu (through class %llu, listed %d), want 7 alone and 2 through their class", H.n,
	      (unsigned long long)H.through_class, H.class_listed);
	hp_paths_holders_release(&H);
	rc = hp_paths_holders(&g, 5, &H, &err);
	CHECK(rc == HP_OK && H.n == 1 && H.obj[0] == 3 && H.through_class == 1 && !H.class_listed,
	      "holders of 5: %zu, want 3 and 1 through its class", H.n);
	hp_paths_holders_release(&H);
	rc = hp_paths_holders(&g, 6, &H, &err);
	CHECK(rc == HP_OK && H.n == 1 && H.obj[0] == 4 && H.through_class == 0, "holders of 6: %zu", H.n);
	hp_paths_holders_release(&H);
	/* without 7, only objects of its class hold 4: they are the list */
	g.n = 7;
	g.nedges = 8;
	rc = hp_paths_holders(&g, 4, &H, &err);
	CHECK(rc == HP_OK && H.n == 2 && H.obj[0] == 1 && H.obj[1] == 2 && H.through_class == 2 && H.class_listed,
	      "holders of 4 without 7: %zu, listed %d", H.n, H.class_listed);
	hp_paths_holders_release(&H);
	g.n = 8;
	g.nedges = 10;
	uint32_t *r;
	size_t nr;
	rc = hp_paths_referrers(&g, 4, &r, &nr, &err);
	CHECK(rc == HP_OK && nr == 3 && r[0] == 1 && r[1] == 2 && r[2] == 7, "referrers of 4: %zu, want 1 2 7", nr);
	hp_free(r);
	hp_paths_release(&P);
}

/* ---- allocation failure ------------------------------------------------- */

/* the graph: 0 -> 1 -> 2 -> 3, 0 -> 3, 4 -> 3 (4 unreachable); path search
 * to 3 from 0 with two paths wanted.  Exit 0 for HP_ENOMEM with an empty
 * result, 1 for the right answer, 2 otherwise. */
static int fault_child(void)
{
	static uint64_t off[] = { 0, 2, 3, 4, 4, 5 };
	static uint32_t adj[] = { 1, 3, 2, 3, 3 };
	struct hp_refs g;
	memset(&g, 0, sizeof g);
	g.n = 5;
	g.off = off;
	g.adj = adj;
	g.nedges = 5;
	struct hp_paths P;
	struct hp_pathlist l;
	struct hp_error err;
	hp_error_clear(&err);
	uint32_t start = 0;
	int rc = hp_paths_bfs(&P, &g, &start, 1, &err);
	if (rc == HP_ENOMEM)
		return P.parent == NULL && strstr(err.msg, "out of memory") ? 0 : 2;
	if (rc)
		return 2;
	rc = hp_paths_shortest(&P, &g, 3, 3, &l, &err);
	int code = 2;
	if (rc == HP_ENOMEM && l.nodes == NULL && l.first == NULL)
		code = 0;
	else if (rc == HP_OK && l.npaths == 2 && l.first[1] == 2 && l.first[2] == 6 && l.nodes[5] == 3 && l.nodes[4] == 2)
		code = 1;
	hp_paths_list_release(&l);
	hp_paths_release(&P);
	return code;
}

static void test_alloc_failure(void)
{
	int first_ok = 0, bad = 0;
	for (int k = 1; k <= 20 && !first_ok; k++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0) {
			CHECK(0, "fork failed");
			return;
		}
		if (pid == 0) {
			char buf[16];
			snprintf(buf, sizeof buf, "%d", k);
			setenv("HPROFAN_FAIL_ALLOC", buf, 1);
			exit(fault_child());
		}
		int st = 0;
		waitpid(pid, &st, 0);
		int code = WIFEXITED(st) ? WEXITSTATUS(st) : 200;
		if (code == 1)
			first_ok = k;
		else if (code != 0) {
			printf("HPROFAN_FAIL_ALLOC=%d: child exit %d\n", k, code);
			bad++;
		}
	}
	CHECK(bad == 0, "%d allocation failures not handled cleanly", bad);
	CHECK(first_ok > 3, "the path search succeeded with allocation %d failing", first_ok);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_paths (no arguments)\n");
		return 2;
	}
	test_alloc_failure();   /* first: the children must start with no allocation made */
	tmp_init();
	test_graph_paths();
	test_followed_and_targets();
	test_referrers_random();
	test_class_edges();
	test_gap();
	test_chain();
	test_decode();
	test_strings(JDK6, "jdk6");
	test_strings(JDK8, "jdk8");
	test_strings(JDK9, "jdk9");
	test_strings(JDK9_BE, "jdk9-be");
	test_strings(ART, "art");
	test_gzip();
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("warning: could not remove %s\n", tmpdir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
