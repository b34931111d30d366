/*
 * test_retained.c — retained sizes end to end (parse, model, references,
 * dominators, retained, per-class sums, retained sets) on a dump built byte
 * by byte, every figure worked out by hand below.
 *
 * 4-byte ids, Eclipse MAT's size model: header 8, align 8.
 *   Node (fields next, other: 2 refs)  = align(8 + 8)  = 16
 *   Thread (no fields)                 = 8
 *   WeakReference < Reference(referent) = align(align(8 + 4, 4), 8) = 16
 *   class objects: no statics          = 0
 * Graph (roots in brackets):
 *   diamond  [R1] -> A, B;  A -> C;  B -> C      idom A, B, C = R1; R1 retains 64
 *   shared   [G1] -> S;  [G2] -> S               idom S = super-root; G1, G2 retain 16
 *   cycle    [R3] -> X -> Y -> X                 idom X = R3, Y = X; R3 retains 48
 *   weak     [W] WeakReference, referent -> Z    follow: idom Z = W, W retains 32;
 *                                                skip: Z unreachable, W retains 16
 *   thread   T (thread object root, serial 1), L held by a Java frame of thread 1:
 *            roots=threads: idom L = T, T retains 24; roots=all: idom L = super, T 8
 *   U        nothing refers to it: unreachable, retains 0
 * Node's retained size counted once (no Node above in the tree), threads+follow:
 *   R1 64 + G1 16 + G2 16 + S 16 + R3 48 + L 16 + Z 16 = 192.
 * Retained set of {A, B}: C is reached only through them: {A, B, C}, 48 bytes.
 */
#include "analysis/retained.h"
#include "helper/hpw.h"
#include "model/heap.h"
#include "parser/reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;
#define CHECK(cond, ...) do { if (cond) passed++; else { failed++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } } while (0)

enum { OBJ = 0x100, THREAD = 0x110, NODE = 0x120, REF = 0x130, WEAK = 0x140 };
enum { R1 = 0x1000, A, B, C, G1, G2, S, R3, X, Y, W, Z, T, L, U };   /* ids, 4-byte */

static void node(hpw *w, uint64_t id, uint64_t next, uint64_t other)
{
	uint8_t f[8];
	for (int i = 0; i < 4; i++) {
		f[i] = (uint8_t)(next >> (24 - 8 * i));
		f[4 + i] = (uint8_t)(other >> (24 - 8 * i));
	}
	hpw_instance(w, id, 0, NODE, f, 8);
}

static void cls(hpw *w, uint64_t id, uint64_t super, const struct hpw_instance_field *f, uint16_t nf)
{
	struct hpw_class c;
	memset(&c, 0, sizeof c);
	c.class_id = id;
	c.super_id = super;
	c.nfields = nf;
	c.fields = f;
	hpw_class_dump(w, &c);
}

static const char *write_dump(char *path, size_t n, int reversed)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	const char *names[] = { "java/lang/Object", "java/lang/Thread", "Node", "java/lang/ref/Reference",
				"java/lang/ref/WeakReference", "referent", "next", "other" };
	for (int i = 0; i < 8; i++)
		hpw_string(w, (uint64_t)(i + 1), names[i]);
	uint64_t cids[] = { OBJ, THREAD, NODE, REF, WEAK };
	for (int i = 0; i < 5; i++)
		hpw_load_class(w, (uint32_t)(i + 1), cids[i], 0, (uint64_t)(i + 1));
	hpw_start_thread(w, 1, T, 0, 0, 0, 0);
	hpw_begin_dump(w, 0x1C);
	struct hpw_instance_field nf[2] = { { 7, HPW_T_OBJECT }, { 8, HPW_T_OBJECT } };
	struct hpw_instance_field rf[1] = { { 6, HPW_T_OBJECT } };
	cls(w, OBJ, 0, NULL, 0);
	cls(w, THREAD, OBJ, NULL, 0);
	cls(w, NODE, OBJ, nf, 2);
	cls(w, REF, OBJ, rf, 1);
	cls(w, WEAK, REF, NULL, 0);
	hpw_root_jni_global(w, R1, 1);
	hpw_root_jni_global(w, G1, 2);
	hpw_root_jni_global(w, G2, 3);
	hpw_root_jni_global(w, R3, 4);
	hpw_root_jni_global(w, W, 5);
	hpw_root_thread_object(w, T, 1, 0);
	hpw_root_java_frame(w, L, 1, 0);
	/* the objects in id order, or (reversed) backwards: the reference graph
	 * is built another way then (records out of object order) */
	static const uint64_t nodes[][3] = {
		{ R1, A, B }, { A, C, 0 }, { B, C, 0 }, { C, 0, 0 }, { G1, S, 0 }, { G2, S, 0 },
		{ S, 0, 0 }, { R3, X, 0 }, { X, Y, 0 }, { Y, X, 0 }, { W, 0, 0 }, { Z, 0, 0 },
		{ T, 0, 0 }, { L, 0, 0 }, { U, 0, 0 },
	};
	size_t nn = sizeof nodes / sizeof nodes[0];
	for (size_t k = 0; k < nn; k++) {
		const uint64_t *o = nodes[reversed ? nn - 1 - k : k];
		if (o[0] == W) {
			uint8_t wf[4] = { (uint8_t)(Z >> 24), (uint8_t)(Z >> 16), (uint8_t)(Z >> 8), (uint8_t)Z };
			hpw_instance(w, W, 0, WEAK, wf, 4);
		} else if (o[0] == T) {
			hpw_instance(w, T, 0, THREAD, NULL, 0);
		} else {
			node(w, o[0], o[1], o[2]);
		}
	}
	hpw_end_dump(w);
	hpw_dump_end(w);
	const char *t = getenv("TMPDIR");
	snprintf(path, n, "%s/hp-test-retained-XXXXXX", t && *t ? t : "/tmp");
	int fd = mkstemp(path);
	close(fd);
	hpw_write_file(w, path);
	hpw_free(w);
	return path;
}

/* A chain [root] -> N0 -> N1 -> ... of CHAIN links, every 1,000th one a
 * Link2 (same fields, 16 bytes): the dominator tree is the chain itself, far
 * deeper than any fixed stack.  Hand-worked: retained(Ni) = 16 (CHAIN - i);
 * Node retains 16 CHAIN (N0, nothing above it); Link2 retains what its first
 * one (N1000) does, 16 (CHAIN - 1000): every later Link2 is below it. */
#define CHAIN 100000u
enum { LINK2 = 0x150, CHAIN0 = 0x100000 };

static const char *write_chain(char *path, size_t n)
{
	hpw *w = hpw_new("JAVA PROFILE 1.0.2", 4, 0);
	const char *names[] = { "java/lang/Object", "Node", "Link2", "next", "other" };
	for (int i = 0; i < 5; i++)
		hpw_string(w, (uint64_t)(i + 1), names[i]);
	hpw_load_class(w, 1, OBJ, 0, 1);
	hpw_load_class(w, 2, NODE, 0, 2);
	hpw_load_class(w, 3, LINK2, 0, 3);
	hpw_begin_dump(w, 0x1C);
	struct hpw_instance_field nf[2] = { { 4, HPW_T_OBJECT }, { 5, HPW_T_OBJECT } };
	cls(w, OBJ, 0, NULL, 0);
	cls(w, NODE, OBJ, nf, 2);
	cls(w, LINK2, OBJ, nf, 2);
	hpw_root_jni_global(w, CHAIN0, 1);
	for (uint32_t i = 0; i < CHAIN; i++) {
		uint64_t id = CHAIN0 + 16ull * i, next = i + 1 < CHAIN ? id + 16 : 0;
		uint8_t f[8] = { 0 };
		for (int b = 0; b < 4; b++)
			f[b] = (uint8_t)(next >> (24 - 8 * b));
		hpw_instance(w, id, 0, i && i % 1000 == 0 ? LINK2 : NODE, f, 8);
	}
	hpw_end_dump(w);
	hpw_dump_end(w);
	const char *t = getenv("TMPDIR");
	snprintf(path, n, "%s/hp-test-chain-XXXXXX", t && *t ? t : "/tmp");
	int fd = mkstemp(path);
	close(fd);
	hpw_write_file(w, path);
	hpw_free(w);
	return path;
}

struct run {
	hp_heap *h;
	struct hp_retained R;
	int ok;
};

static void run(struct run *X_, const char *path, int weak, int roots)
{
	memset(X_, 0, sizeof *X_);
	struct hp_error err;
	hp_error_clear(&err);
	struct hp_heap_opts o;
	hp_heap_opts_init(&o);
	o.build_objects = 1;
	o.size_kind = HP_SIZE_MAT;   /* the figures below are MAT's sizes, counted by hand */
	X_->h = hp_heap_new(&o);
	struct hp_sink s;
	hp_heap_sink(X_->h, &s);
	hp_reader *r = NULL;
	struct hp_stats st;
	int rc = hp_reader_open(&r, path, &err);
	if (!rc)
		rc = hp_parse(r, &s, NULL, &st, &err);
	if (!rc)
		rc = hp_heap_finish(X_->h, &err);
	hp_reader_free(r);
	hp_stats_release(&st);
	struct hp_retained_opts ro;
	memset(&ro, 0, sizeof ro);
	ro.weak = weak;
	ro.roots = roots;
	if (!rc)
		rc = hp_retained_compute(X_->h, path, &ro, &X_->R, &err);
	CHECK(rc == HP_OK, "load/compute: %s", err.msg);
	X_->ok = rc == HP_OK;
}

static void release(struct run *X_)
{
	hp_retained_release(&X_->R);
	hp_heap_free(X_->h);
}

static uint32_t idom_id(const struct run *X_, uint64_t id, uint64_t *out)
{
	size_t v = hp_heap_find(X_->h, id);
	uint32_t d = X_->R.dom.idom[v];
	*out = d < X_->h->nobj ? hp_heap_id(X_->h, d) : 0;
	return d;
}

static uint64_t ret(const struct run *X_, uint64_t id)
{
	return X_->R.retained[hp_heap_find(X_->h, id)];
}

#define IDOM_IS(X_, id, want) do { uint64_t got_; uint32_t d_ = idom_id((X_), (id), &got_); \
	CHECK(d_ < (X_)->h->nobj && got_ == (want), "idom(0x%x) = 0x%llx (%u), want 0x%x", (unsigned)(id), (unsigned long long)got_, d_, (unsigned)(want)); } while (0)
#define IDOM_SUPER(X_, id) do { uint64_t got_; CHECK(idom_id((X_), (id), &got_) == HP_DOM_SUPER, "idom(0x%x) is not the super-root", (unsigned)(id)); } while (0)
#define RET(X_, id, want) CHECK(ret((X_), (id)) == (want), "retained(0x%x) = %llu, want %u", (unsigned)(id), (unsigned long long)ret((X_), (id)), (unsigned)(want))

static void chain_test(void)
{
	char path[600];
	write_chain(path, sizeof path);
	struct run M;
	run(&M, path, HP_WEAK_FOLLOW, HP_ROOTS_THREADS);
	if (M.ok) {
		int idoms = 1, rets = 1;
		for (uint32_t i = 1; i < CHAIN && idoms; i++) {
			uint64_t got;
			idom_id(&M, CHAIN0 + 16ull * i, &got);
			idoms = got == CHAIN0 + 16ull * (i - 1);
		}
		for (uint32_t i = 0; i < CHAIN && rets; i++)
			rets = ret(&M, CHAIN0 + 16ull * i) == 16ull * (CHAIN - i);
		CHECK(idoms, "chain: every link's idom is the link before it");
		CHECK(rets, "chain: retained(Ni) = 16 (CHAIN - i)");
		size_t node = M.h->cls[hp_heap_find(M.h, CHAIN0)];
		size_t link2 = M.h->cls[hp_heap_find(M.h, CHAIN0 + 16ull * 1000)];
		CHECK(M.R.class_retained[node] == 16ull * CHAIN, "chain: Node retains %llu, want %llu",
		      (unsigned long long)M.R.class_retained[node], 16ull * CHAIN);
		CHECK(M.R.class_retained[link2] == 16ull * (CHAIN - 1000), "chain: Link2 retains %llu, want %llu",
		      (unsigned long long)M.R.class_retained[link2], 16ull * (CHAIN - 1000));
		/* MAT's class edges: the links reach the class objects of Node and
		 * Link2, and those java.lang.Object's (their super class); every Node
		 * is below N0 and every Link2 below N1000, so those dominate them */
		CHECK(M.R.reachable == CHAIN + 3, "chain: %llu reachable, want the %u links and 3 class objects",
		      (unsigned long long)M.R.reachable, CHAIN);
		IDOM_IS(&M, NODE, CHAIN0);
		IDOM_IS(&M, LINK2, CHAIN0 + 16ull * 1000);
		IDOM_IS(&M, OBJ, CHAIN0);
	}
	release(&M);
	unlink(path);
}

/* The same dump with its objects written backwards gives the same graph
 * (each object's edges in the same order), tree and sizes. */
static void reversed_test(const char *path)
{
	char rpath[600];
	write_dump(rpath, sizeof rpath, 1);
	for (int roots = HP_ROOTS_THREADS; roots <= HP_ROOTS_ALL; roots++) {
		struct run F, Bk;
		run(&F, path, HP_WEAK_FOLLOW, roots);
		run(&Bk, rpath, HP_WEAK_FOLLOW, roots);
		if (F.ok && Bk.ok) {
			int same = F.h->nobj == Bk.h->nobj && F.R.refs.nedges == Bk.R.refs.nedges;
			for (size_t v = 0; same && v <= F.h->nobj; v++)
				same = hp_refs_off(&F.R.refs, v) == hp_refs_off(&Bk.R.refs, v);
			for (uint64_t e = 0; same && e < F.R.refs.nedges; e++)
				same = F.R.refs.adj[e] == Bk.R.refs.adj[e];
			for (size_t v = 0; same && v < F.h->nobj; v++)
				same = F.R.dom.idom[v] == Bk.R.dom.idom[v] && F.R.retained[v] == Bk.R.retained[v];
			CHECK(same, "objects written backwards (roots policy %d): another graph or tree", roots);
			CHECK(F.R.refs.nedges > 0 && F.R.refs.thread_edges == (roots == HP_ROOTS_THREADS),
			      "the graph has %llu edges, %llu from threads", (unsigned long long)F.R.refs.nedges,
			      (unsigned long long)F.R.refs.thread_edges);
		}
		release(&F);
		release(&Bk);
	}
	unlink(rpath);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		fprintf(stderr, "usage: test_retained (no arguments)\n");
		return 2;
	}
	char path[600];
	write_dump(path, sizeof path, 0);
	struct run M;

	chain_test();
	reversed_test(path);

	/* Eclipse MAT's conventions: every reference, thread-local roots held by threads */
	run(&M, path, HP_WEAK_FOLLOW, HP_ROOTS_THREADS);
	if (M.ok) {
		CHECK(M.h->size.header == 8 && M.h->size.align == 8, "size model: header %u align %u", M.h->size.header, M.h->size.align);
		IDOM_IS(&M, A, R1);
		IDOM_IS(&M, B, R1);
		IDOM_IS(&M, C, R1);
		RET(&M, R1, 64);
		RET(&M, A, 16);
		IDOM_SUPER(&M, S);
		RET(&M, G1, 16);
		RET(&M, G2, 16);
		RET(&M, S, 16);
		IDOM_IS(&M, X, R3);
		IDOM_IS(&M, Y, X);
		RET(&M, R3, 48);
		RET(&M, X, 32);
		IDOM_IS(&M, Z, W);
		RET(&M, W, 32);
		IDOM_IS(&M, L, T);
		RET(&M, T, 24);
		CHECK(M.R.dom.idom[hp_heap_find(M.h, U)] == HP_DOM_UNREACHABLE, "U reachable");
		RET(&M, U, 0);
		size_t node_cls = M.h->cls[hp_heap_find(M.h, R1)];
		CHECK(M.R.class_retained[node_cls] == 192, "Node retained once: %llu, want 192",
		      (unsigned long long)M.R.class_retained[node_cls]);
		/* the retained set of {A, B} is {A, B, C} */
		uint8_t *in = calloc(M.h->nobj, 1);
		in[hp_heap_find(M.h, A)] = in[hp_heap_find(M.h, B)] = 1;
		uint64_t objs = 0, bytes = 0;
		struct hp_error err;
		hp_error_clear(&err);
		CHECK(hp_retained_set(M.h, &M.R, in, &objs, &bytes, &err) == HP_OK, "retained set");
		CHECK(objs == 3 && bytes == 48, "retained set of A, B: %llu objects %llu bytes, want 3, 48",
		      (unsigned long long)objs, (unsigned long long)bytes);
		free(in);
		/* a thread retains its locals: the Java-frame kind retains nothing alone */
		CHECK(M.R.kinds[HP_ROOT_THREAD_OBJECT].retained == 24, "thread object kind retains %llu",
		      (unsigned long long)M.R.kinds[HP_ROOT_THREAD_OBJECT].retained);
		CHECK(M.R.joint == 16, "joint = %llu, want 16 (S)", (unsigned long long)M.R.joint);
	}
	release(&M);

	/* VisualVM's: weak referents are not references; every root under the super-root */
	run(&M, path, HP_WEAK_SKIP, HP_ROOTS_ALL);
	if (M.ok) {
		CHECK(M.R.dom.idom[hp_heap_find(M.h, Z)] == HP_DOM_UNREACHABLE, "Z is reachable through a weak referent");
		RET(&M, W, 16);
		IDOM_SUPER(&M, L);
		RET(&M, T, 8);
		RET(&M, L, 16);
		RET(&M, R1, 64);
	}
	release(&M);

	/* ahat's: soft followed, weak not: Z is only weakly held, so unreachable too */
	run(&M, path, HP_WEAK_SKIP_WEAK, HP_ROOTS_ALL);
	if (M.ok)
		CHECK(M.R.dom.idom[hp_heap_find(M.h, Z)] == HP_DOM_UNREACHABLE, "skip-weak follows a weak referent");
	release(&M);

	unlink(path);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
