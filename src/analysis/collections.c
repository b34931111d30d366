/* collections.c — the size of a JDK or Android collection from its own
 * fields (collections.h): which class is which collection, how each counts
 * its entries, and the checks that keep a hostile field from becoming a size. */
#include "analysis/collections.h"
#include "base/alloc.h"

#include <string.h>

/* how a collection's size is read */
enum how {
	H_INT,        /* an int field (field), bounded by an array's length (bound) or the objects */
	H_FOLLOW,     /* the size of the collection in field (a set's map, a wrapper's list) */
	H_PROPS,      /* Properties: its map's size (JDK 9+), else Hashtable's count */
	H_CHM,        /* ConcurrentHashMap: baseCount + counterCells[*].value */
	H_DEQUE,      /* ArrayDeque: tail - head modulo elements.length */
	H_COW,        /* CopyOnWriteArrayList: the length of array */
	H_SPARSE      /* as H_INT; with mGarbage true, the mValues not the class's DELETED */
};

struct known {
	const char *name;
	int map;
	int how;
	const char *decl;     /* the class declaring field (and bound) */
	const char *field;
	const char *bound;    /* backing arrays, '|' between alternatives; NULL: one object per entry */
};

static const struct known known[] = {
	{ "java.util.HashMap", 1, H_INT, "java.util.HashMap", "size", NULL },
	{ "java.util.LinkedHashMap", 1, H_INT, "java.util.HashMap", "size", NULL },
	{ "java.util.WeakHashMap", 1, H_INT, "java.util.WeakHashMap", "size", NULL },
	{ "java.util.IdentityHashMap", 1, H_INT, "java.util.IdentityHashMap", "size", "table" },
	{ "java.util.TreeMap", 1, H_INT, "java.util.TreeMap", "size", NULL },
	{ "java.util.Properties", 1, H_PROPS, "java.util.Properties", "map", NULL },
	{ "java.util.Hashtable", 1, H_INT, "java.util.Hashtable", "count", NULL },
	{ "java.util.concurrent.ConcurrentHashMap", 1, H_CHM, "java.util.concurrent.ConcurrentHashMap", "baseCount", NULL },
	{ "java.util.LinkedHashSet", 0, H_FOLLOW, "java.util.HashSet", "map", NULL },
	{ "java.util.HashSet", 0, H_FOLLOW, "java.util.HashSet", "map", NULL },
	{ "java.util.TreeSet", 0, H_FOLLOW, "java.util.TreeSet", "m", NULL },
	{ "java.util.ArrayList", 0, H_INT, "java.util.ArrayList", "size", "elementData|array" },
	{ "java.util.Vector", 0, H_INT, "java.util.Vector", "elementCount", "elementData" },
	{ "java.util.LinkedList", 0, H_INT, "java.util.LinkedList", "size", NULL },
	{ "java.util.PriorityQueue", 0, H_INT, "java.util.PriorityQueue", "size", "queue" },
	{ "java.util.ArrayDeque", 0, H_DEQUE, "java.util.ArrayDeque", "elements", NULL },
	{ "java.util.concurrent.CopyOnWriteArrayList", 0, H_COW, "java.util.concurrent.CopyOnWriteArrayList", "array", NULL },
	{ "java.util.concurrent.CopyOnWriteArraySet", 0, H_FOLLOW, "java.util.concurrent.CopyOnWriteArraySet", "al", NULL },
	{ "android.util.ArrayMap", 1, H_INT, "android.util.ArrayMap", "mSize", "mHashes" },
	{ "android.util.ArraySet", 0, H_INT, "android.util.ArraySet", "mSize", "mHashes" },
	{ "android.util.SparseArray", 1, H_SPARSE, "android.util.SparseArray", "mSize", "mKeys" },
	{ "android.util.LongSparseArray", 1, H_SPARSE, "android.util.LongSparseArray", "mSize", "mKeys" },
	{ "android.util.SparseIntArray", 1, H_INT, "android.util.SparseIntArray", "mSize", "mKeys" },
	{ "android.util.SparseLongArray", 1, H_INT, "android.util.SparseLongArray", "mSize", "mKeys" },
	{ "android.util.SparseBooleanArray", 1, H_INT, "android.util.SparseBooleanArray", "mSize", "mKeys" },
	{ "androidx.collection.ArrayMap", 1, H_INT, "androidx.collection.SimpleArrayMap", "mSize", "mHashes" },
	{ "androidx.collection.SimpleArrayMap", 1, H_INT, "androidx.collection.SimpleArrayMap", "mSize", "mHashes" },
	{ "androidx.collection.ArraySet", 0, H_INT, "androidx.collection.ArraySet", "mSize", "mHashes" },
	{ "androidx.collection.SparseArrayCompat", 1, H_SPARSE, "androidx.collection.SparseArrayCompat", "mSize", "mKeys" },
	{ "androidx.collection.LongSparseArray", 1, H_SPARSE, "androidx.collection.LongSparseArray", "mSize", "mKeys" },
};
#define NKNOWN (sizeof known / sizeof known[0])

/* super chains longer than this are not followed (a collection's subclass
 * is rarely more than a few levels down; a cycle in a hostile dump ends here) */
#define MAX_SUPERS 64
/* CounterCells read at most (the JDK keeps one per processor, a power of two) */
#define MAX_CELLS 65536

int hp_collection_class(const hp_heap *h, uint32_t cls)
{
	for (unsigned step = 0; cls != HP_NONE && cls < h->nclasses && step < MAX_SUPERS; step++) {
		const char *n = hp_class_name(h, cls);
		for (size_t i = 0; i < NKNOWN; i++)
			if (!strcmp(n, known[i].name))
				return (int)i;
		cls = h->classes[cls].super;
	}
	return -1;
}

static void unknown(struct hp_collection *out, const char *why)
{
	out->known = 0;
	out->size = 0;
	out->why = why;
}

static void sized(struct hp_collection *out, uint64_t n)
{
	out->known = 1;
	out->size = n;
	out->why = NULL;
}

/* the object a reference field names, SIZE_MAX when null, absent or not in the dump */
static size_t ref_field(const hp_heap *h, const hp_objread *rd, const struct hp_objdata *o, const char *name,
			const char *decl)
{
	const struct hp_objval *f = hp_objread_field(rd, o, name, decl);
	if (!f || f->type != HP_T_OBJECT || !f->bits)
		return SIZE_MAX;
	return hp_heap_find(h, f->bits);
}

/* the length of the array in field name (one of "a|b"), -1 when there is none */
static int64_t array_field_len(const hp_heap *h, const hp_objread *rd, const struct hp_objdata *o, const char *names,
			       const char *decl)
{
	char one[64];
	for (const char *p = names; *p;) {
		const char *e = strchr(p, '|');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len < sizeof one) {
			memcpy(one, p, len);
			one[len] = '\0';
			size_t v = ref_field(h, rd, o, one, decl);
			if (v != SIZE_MAX && hp_heap_kind(h, v) != HP_OBJ_INSTANCE && hp_heap_kind(h, v) != HP_OBJ_CLASS)
				return h->len[v];
		}
		p += len;
		if (*p)
			p++;
	}
	return -1;
}

static int int_field(const hp_objread *rd, const struct hp_objdata *o, const char *name, const char *decl, int32_t *v)
{
	const struct hp_objval *f = hp_objread_field(rd, o, name, decl);
	if (!f || f->type != HP_T_INT)
		return 0;
	*v = (int32_t)(uint32_t)f->bits;
	return 1;
}

static int long_field(const hp_objread *rd, const struct hp_objdata *o, const char *name, const char *decl, int64_t *v)
{
	const struct hp_objval *f = hp_objread_field(rd, o, name, decl);
	if (!f || f->type != HP_T_LONG)
		return 0;
	*v = (int64_t)f->bits;
	return 1;
}

static int size_of(const hp_heap *h, hp_objread *rd, uint32_t obj, int depth, struct hp_collection *out,
		   struct hp_error *err);

/* the size of the collection field names (a set's map), one level down */
static int follow(const hp_heap *h, hp_objread *rd, const struct hp_objdata *o, const struct known *k, int depth,
		  struct hp_collection *out, struct hp_error *err)
{
	size_t v = ref_field(h, rd, o, k->field, k->decl);
	if (v == SIZE_MAX) {
		unknown(out, "its inner collection is not in the dump");
		return HP_OK;
	}
	if (depth > 0) {
		unknown(out, "its inner collection wraps another");
		return HP_OK;
	}
	struct hp_collection in;
	memset(&in, 0, sizeof in);
	HP_TRY(size_of(h, rd, (uint32_t)v, depth + 1, &in, err));
	if (!in.family)
		unknown(out, "its inner object is no known collection");
	else if (!in.known)
		unknown(out, in.why);
	else
		sized(out, in.size);
	return HP_OK;
}

/* ConcurrentHashMap.sumCount(): baseCount plus every CounterCell's value */
static int chm(const hp_heap *h, hp_objread *rd, const struct hp_objdata *o, const struct known *k,
	       struct hp_collection *out, struct hp_error *err)
{
	int64_t sum;
	if (!long_field(rd, o, "baseCount", k->decl, &sum)) {
		unknown(out, "its baseCount field is absent or not a long");
		return HP_OK;
	}
	size_t cells = ref_field(h, rd, o, "counterCells", k->decl);
	if (cells != SIZE_MAX) {
		if (hp_heap_kind(h, cells) != HP_OBJ_OBJARRAY) {
			unknown(out, "its counterCells is not an array");
			return HP_OK;
		}
		if (h->len[cells] > MAX_CELLS) {
			unknown(out, "its counterCells array is longer than any JVM makes");
			return HP_OK;
		}
		struct hp_objdata a;
		HP_TRY(hp_objread_decode(rd, cells, MAX_CELLS, &a, err));
		int rc = HP_OK;
		for (uint32_t i = 0; i < a.nelems && rc == HP_OK && out->why == NULL; i++) {
			size_t c = a.elems[i] ? hp_heap_find(h, a.elems[i]) : SIZE_MAX;
			if (c == SIZE_MAX || hp_heap_kind(h, c) != HP_OBJ_INSTANCE)
				continue;
			struct hp_objdata cd;
			if ((rc = hp_objread_decode(rd, c, 0, &cd, err)))
				break;
			int64_t val;
			if (!long_field(rd, &cd, "value", NULL, &val))
				unknown(out, "a CounterCell's value is absent or not a long");
			else if (__builtin_add_overflow(sum, val, &sum))
				unknown(out, "its counts overflow");
			hp_objread_release(&cd);
		}
		hp_objread_release(&a);
		if (rc || out->why)
			return rc;
	}
	if (sum < 0)
		sum = 0;       /* as size() says of a count caught mid-update */
	if ((uint64_t)sum > h->nobj)
		unknown(out, "its count is beyond the dump's objects");
	else
		sized(out, (uint64_t)sum);
	return HP_OK;
}

/* ArrayDeque: head and tail index elements; tail - head modulo its length */
static void deque(const hp_heap *h, const hp_objread *rd, const struct hp_objdata *o, const struct known *k,
		  struct hp_collection *out)
{
	int32_t head, tail;
	int64_t n = array_field_len(h, rd, o, "elements", k->decl);
	if (!int_field(rd, o, "head", k->decl, &head) || !int_field(rd, o, "tail", k->decl, &tail)) {
		unknown(out, "its head or tail field is absent or not an int");
		return;
	}
	if (n <= 0) {
		unknown(out, "its elements array is not in the dump");
		return;
	}
	if (head < 0 || tail < 0 || head >= n || tail >= n) {
		unknown(out, "its head or tail is outside its elements array");
		return;
	}
	int64_t s = (int64_t)tail - head;
	sized(out, (uint64_t)(s < 0 ? s + n : s));
}

/* SparseArray with mGarbage: the first mSize values that are not the
 * class's static DELETED (what gc() keeps) */
static int sparse_garbage(const hp_heap *h, hp_objread *rd, const struct hp_objdata *o, const struct known *k,
			  int32_t n, struct hp_collection *out, struct hp_error *err)
{
	size_t vals = ref_field(h, rd, o, "mValues", k->decl);
	uint32_t decl_cls = HP_NONE;
	for (size_t i = 0; i < o->nfields; i++)
		if (!strcmp(hp_class_name(h, o->fields[i].decl), k->decl))
			decl_cls = o->fields[i].decl;
	size_t cobj = decl_cls != HP_NONE ? hp_heap_find(h, h->classes[decl_cls].id) : SIZE_MAX;
	if (vals == SIZE_MAX || hp_heap_kind(h, vals) != HP_OBJ_OBJARRAY || h->len[vals] < (uint32_t)n ||
	    cobj == SIZE_MAX) {
		unknown(out, "it holds deleted entries its mValues cannot tell apart");
		return HP_OK;
	}
	struct hp_objdata c;
	HP_TRY(hp_objread_decode(rd, cobj, 0, &c, err));
	const struct hp_objval *del = hp_objread_field(rd, &c, "DELETED", NULL);
	uint64_t deleted = del && del->type == HP_T_OBJECT ? del->bits : 0;
	hp_objread_release(&c);
	if (!deleted) {
		unknown(out, "it holds deleted entries its mValues cannot tell apart");
		return HP_OK;
	}
	struct hp_objdata a;
	HP_TRY(hp_objread_decode(rd, vals, (uint32_t)n, &a, err));
	uint64_t live = 0;
	for (uint32_t i = 0; i < a.nelems && i < (uint32_t)n; i++)
		live += a.elems[i] != deleted;
	hp_objread_release(&a);
	sized(out, live);
	return HP_OK;
}

static int size_of(const hp_heap *h, hp_objread *rd, uint32_t obj, int depth, struct hp_collection *out,
		   struct hp_error *err)
{
	memset(out, 0, sizeof *out);
	if (obj >= h->nobj || hp_heap_kind(h, obj) != HP_OBJ_INSTANCE)
		return HP_OK;
	int ki = hp_collection_class(h, h->cls[obj]);
	if (ki < 0)
		return HP_OK;
	const struct known *k = &known[ki];
	out->family = k->name;
	out->map = k->map;
	struct hp_objdata o;
	HP_TRY(hp_objread_decode(rd, obj, 0, &o, err));
	int rc = HP_OK;
	int32_t n;
	switch (k->how) {
	case H_FOLLOW:
		rc = follow(h, rd, &o, k, depth, out, err);
		break;
	case H_PROPS:
		if (ref_field(h, rd, &o, "map", k->decl) != SIZE_MAX)
			rc = follow(h, rd, &o, k, depth, out, err);
		else if (!int_field(rd, &o, "count", "java.util.Hashtable", &n) || n < 0)
			unknown(out, "its count field is absent, not an int or negative");
		else if ((uint64_t)n > h->nobj)
			unknown(out, "its count is beyond the dump's objects");
		else
			sized(out, (uint64_t)n);
		break;
	case H_CHM:
		rc = chm(h, rd, &o, k, out, err);
		break;
	case H_DEQUE:
		deque(h, rd, &o, k, out);
		break;
	case H_COW: {
		size_t a = ref_field(h, rd, &o, k->field, k->decl);
		if (a == SIZE_MAX || hp_heap_kind(h, a) != HP_OBJ_OBJARRAY)
			unknown(out, "its array is not in the dump");
		else
			sized(out, h->len[a]);
		break;
	}
	default: {   /* H_INT, H_SPARSE */
		if (!int_field(rd, &o, k->field, k->decl, &n)) {
			unknown(out, "its size field is absent or not an int");
			break;
		}
		if (n < 0) {
			unknown(out, "its size field is negative");
			break;
		}
		if (k->bound) {
			int64_t cap = array_field_len(h, rd, &o, k->bound, k->decl);
			if (cap < 0) {
				unknown(out, "its backing array is not in the dump");
				break;
			}
			if (n > cap) {
				unknown(out, "its size is beyond its backing array");
				break;
			}
		} else if ((uint64_t)n > h->nobj) {
			unknown(out, "its size is beyond the dump's objects");
			break;
		}
		const struct hp_objval *g = k->how == H_SPARSE ? hp_objread_field(rd, &o, "mGarbage", k->decl) : NULL;
		if (g && g->type == HP_T_BOOLEAN && g->bits)
			rc = sparse_garbage(h, rd, &o, k, n, out, err);
		else
			sized(out, (uint64_t)n);
		break;
	}
	}
	hp_objread_release(&o);
	return rc;
}

int hp_collection_of(const hp_heap *h, hp_objread *rd, uint32_t obj, struct hp_collection *out, struct hp_error *err)
{
	return size_of(h, rd, obj, 0, out, err);
}

/* ---- entries: hp_collection_walk() -------------------------------------- */

enum walk_how {
	W_CHAINS,     /* a table of nodes chained by next (HashMap, Hashtable, WeakHashMap, ConcurrentHashMap) */
	W_FOLLOW,     /* the collection in field (a set's map: its keys are the elements) */
	W_PROPS,      /* Properties: its map (JDK 9+), else Hashtable's own table */
	W_PAIRS,      /* an array of key, value, key, value... (IdentityHashMap, ArrayMap, Map.of) */
	W_ARRAY,      /* an array's first count elements (count NULL: all of it, null slots skipped) */
	W_DEQUE,      /* ArrayDeque: from head to tail, around the array's end */
	W_LINKED,     /* LinkedList: first, then each node's next */
	W_TREE,       /* TreeMap: root, each entry's left and right, in order */
	W_SPARSE,     /* SparseArray: mKeys (int[] or long[]) with mValues */
	W_TWO         /* List.of(a, b), Set.of(a, b): e0 and e1 (ImmutableCollections.EMPTY: none) */
};

struct walkable {
	const char *name;
	int how, map;
	const char *array;    /* the field of the table, array or first node ("a|b" alternatives) */
	const char *count;    /* W_ARRAY, W_PAIRS: the int field of the count (pairs for W_PAIRS) */
	const char *key, *value, *next;   /* W_CHAINS: the node's fields */
	int holes;            /* W_ARRAY, W_PAIRS: a null slot is no entry (a hash table's) */
};

static const struct walkable walkable[] = {
	{ "java.util.HashMap", W_CHAINS, 1, "table", NULL, "key", "value", "next", 0 },
	{ "java.util.WeakHashMap", W_CHAINS, 1, "table", NULL, "referent", "value", "next", 0 },
	{ "java.util.IdentityHashMap", W_PAIRS, 1, "table", NULL, NULL, NULL, NULL, 1 },
	{ "java.util.TreeMap", W_TREE, 1, "root", NULL, "key", "value", NULL, 0 },
	{ "java.util.Properties", W_PROPS, 1, "map", NULL, "key", "value", "next", 0 },
	{ "java.util.Hashtable", W_CHAINS, 1, "table", NULL, "key", "value", "next", 0 },
	{ "java.util.concurrent.ConcurrentHashMap", W_CHAINS, 1, "table", NULL, "key", "val", "next", 0 },
	{ "java.util.HashSet", W_FOLLOW, 0, "map", NULL, NULL, NULL, NULL, 0 },
	{ "java.util.TreeSet", W_FOLLOW, 0, "m", NULL, NULL, NULL, NULL, 0 },
	{ "java.util.ArrayList", W_ARRAY, 0, "elementData|array", "size", NULL, NULL, NULL, 0 },
	{ "java.util.Vector", W_ARRAY, 0, "elementData", "elementCount", NULL, NULL, NULL, 0 },
	{ "java.util.PriorityQueue", W_ARRAY, 0, "queue", "size", NULL, NULL, NULL, 0 },
	{ "java.util.LinkedList", W_LINKED, 0, "first", NULL, NULL, "item", "next", 0 },
	{ "java.util.ArrayDeque", W_DEQUE, 0, "elements", NULL, NULL, NULL, NULL, 0 },
	{ "java.util.concurrent.CopyOnWriteArrayList", W_ARRAY, 0, "array", NULL, NULL, NULL, NULL, 0 },
	{ "java.util.concurrent.CopyOnWriteArraySet", W_FOLLOW, 0, "al", NULL, NULL, NULL, NULL, 0 },
	{ "java.util.Arrays$ArrayList", W_ARRAY, 0, "a", NULL, NULL, NULL, NULL, 0 },
	{ "java.util.ImmutableCollections$ListN", W_ARRAY, 0, "elements", NULL, NULL, NULL, NULL, 0 },
	{ "java.util.ImmutableCollections$SetN", W_ARRAY, 0, "elements", NULL, NULL, NULL, NULL, 1 },
	{ "java.util.ImmutableCollections$MapN", W_PAIRS, 1, "table", NULL, NULL, NULL, NULL, 1 },
	{ "java.util.ImmutableCollections$List12", W_TWO, 0, NULL, NULL, NULL, NULL, NULL, 0 },
	{ "java.util.ImmutableCollections$Set12", W_TWO, 0, NULL, NULL, NULL, NULL, NULL, 0 },
	{ "android.util.ArrayMap", W_PAIRS, 1, "mArray", "mSize", NULL, NULL, NULL, 0 },
	{ "android.util.ArraySet", W_ARRAY, 0, "mArray", "mSize", NULL, NULL, NULL, 0 },
	{ "androidx.collection.SimpleArrayMap", W_PAIRS, 1, "mArray", "mSize", NULL, NULL, NULL, 0 },
	{ "androidx.collection.ArraySet", W_ARRAY, 0, "mArray", "mSize", NULL, NULL, NULL, 0 },
	{ "android.util.SparseArray", W_SPARSE, 1, "mKeys", "mSize", NULL, "mValues", NULL, 0 },
	{ "android.util.LongSparseArray", W_SPARSE, 1, "mKeys", "mSize", NULL, "mValues", NULL, 0 },
	{ "androidx.collection.SparseArrayCompat", W_SPARSE, 1, "mKeys", "mSize", NULL, "mValues", NULL, 0 },
	{ "androidx.collection.LongSparseArray", W_SPARSE, 1, "mKeys", "mSize", NULL, "mValues", NULL, 0 },
};
#define NWALKABLE (sizeof walkable / sizeof walkable[0])

struct walk {
	const hp_heap *h;
	hp_objread *rd;
	hp_entry_fn *fn;
	void *ud;
	uint64_t index;       /* entries given so far */
	uint64_t steps;       /* records read: a cycle in a hostile dump ends at the objects' count */
	int stop;             /* fn said so */
	int keys;             /* a set's map: its keys are the set's elements */
	struct hp_error *err;
};

static int emit(struct walk *w, const struct hp_entry *e0)
{
	struct hp_entry e = *e0;
	e.index = w->index++;
	if (w->fn(w->ud, &e))
		w->stop = 1;
	return HP_OK;
}

static int emit_ids(struct walk *w, uint64_t key, uint64_t value)
{
	struct hp_entry e;
	memset(&e, 0, sizeof e);
	e.key = w->keys ? 0 : key;
	e.value = w->keys ? key : value;
	return emit(w, &e);
}

/* decodes an object the walk goes through; 0 when it is none (null, not in
 * the dump, of another kind, or the walk's records are spent) */
static int step(struct walk *w, size_t v, int kind, uint32_t max_elems, struct hp_objdata *o, int *rc)
{
	*rc = HP_OK;
	if (v == SIZE_MAX || hp_heap_kind(w->h, v) != kind || w->steps++ > w->h->nobj)
		return 0;
	*rc = hp_objread_decode(w->rd, v, max_elems, o, w->err);
	return *rc == HP_OK;
}

/* the first of the '|' alternatives in names that is a reference field set in o */
static size_t ref_alt(const hp_heap *h, const hp_objread *rd, const struct hp_objdata *o, const char *names)
{
	char one[64];
	for (const char *p = names; *p;) {
		const char *e = strchr(p, '|');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		size_t v = SIZE_MAX;
		if (len < sizeof one) {
			memcpy(one, p, len);
			one[len] = '\0';
			v = ref_field(h, rd, o, one, NULL);
		}
		if (v != SIZE_MAX)
			return v;
		p += len + (e != NULL);
	}
	return SIZE_MAX;
}

static uint64_t id_field(const hp_objread *rd, const struct hp_objdata *o, const char *name)
{
	const struct hp_objval *f = hp_objread_field(rd, o, name, NULL);
	return f && f->type == HP_T_OBJECT ? f->bits : 0;
}

static int walk_of(struct walk *w, uint32_t obj, int depth);

/* the walkable class obj is or extends (an index), -1 for none */
static int walk_kind(const hp_heap *h, uint32_t obj)
{
	if (obj >= h->nobj || hp_heap_kind(h, obj) != HP_OBJ_INSTANCE)
		return -1;
	uint32_t cls = h->cls[obj];
	for (unsigned s = 0; cls != HP_NONE && cls < h->nclasses && s < MAX_SUPERS; s++) {
		for (size_t i = 0; i < NWALKABLE; i++)
			if (!strcmp(hp_class_name(h, cls), walkable[i].name))
				return (int)i;
		cls = h->classes[cls].super;
	}
	return -1;
}

/* W_CHAINS: every bucket's chain; a ConcurrentHashMap's TreeBin leads to
 * its nodes (first), a ForwardingNode (a resize under way) is passed over */
static int walk_chains(struct walk *w, size_t table, const struct walkable *k)
{
	const hp_heap *h = w->h;
	struct hp_objdata t;
	int rc;
	if (!step(w, table, HP_OBJ_OBJARRAY, UINT32_MAX, &t, &rc))
		return rc;
	for (uint32_t b = 0; b < t.nelems && !w->stop && rc == HP_OK; b++) {
		size_t node = t.elems[b] ? hp_heap_find(h, t.elems[b]) : SIZE_MAX;
		struct hp_objdata d;
		while (!w->stop && step(w, node, HP_OBJ_INSTANCE, 0, &d, &rc)) {
			const char *cn = hp_class_name(h, d.cls);
			size_t len = strlen(cn);
			if (len >= 7 && !strcmp(cn + len - 7, "TreeBin")) {
				node = ref_field(h, w->rd, &d, "first", NULL);
			} else if (len >= 14 && !strcmp(cn + len - 14, "ForwardingNode")) {
				node = SIZE_MAX;
			} else {
				rc = emit_ids(w, id_field(w->rd, &d, k->key), id_field(w->rd, &d, k->value));
				node = ref_field(h, w->rd, &d, k->next, NULL);
			}
			hp_objread_release(&d);
		}
	}
	hp_objread_release(&t);
	return rc;
}

/* W_PAIRS and W_ARRAY: the first n slots of an array (n < 0: all, nulls
 * skipped), in pairs for a map */
static int walk_slots(struct walk *w, size_t arr, int64_t n, int pairs, uint64_t null_key)
{
	struct hp_objdata a;
	int rc;
	if (!step(w, arr, HP_OBJ_OBJARRAY, UINT32_MAX, &a, &rc))
		return rc;
	uint64_t end = n < 0 ? a.nelems : (uint64_t)n * (pairs ? 2 : 1);
	if (end > a.nelems)
		end = a.nelems;   /* a count beyond the array: what the array holds */
	for (uint64_t i = 0; i + (pairs ? 1 : 0) < end && !w->stop && rc == HP_OK; i += pairs ? 2 : 1) {
		uint64_t key = a.elems[i];
		if (n < 0 && !key)
			continue;
		if (pairs)
			rc = emit_ids(w, key == null_key && key ? 0 : key, a.elems[i + 1]);
		else
			rc = emit_ids(w, 0, key);
	}
	hp_objread_release(&a);
	return rc;
}

/* W_TREE: in order, with a stack of the left spine (never the C stack) */
static int walk_tree(struct walk *w, size_t root, const struct walkable *k)
{
	const hp_heap *h = w->h;
	size_t n = 0, cap = 0, v = root;
	uint32_t *stack = NULL;
	int rc = HP_OK;
	while (rc == HP_OK && !w->stop && (v != SIZE_MAX || n)) {
		struct hp_objdata d;
		if (v != SIZE_MAX) {
			if (!step(w, v, HP_OBJ_INSTANCE, 0, &d, &rc))
				break;
			size_t left = ref_field(h, w->rd, &d, "left", NULL);
			hp_objread_release(&d);
			uint32_t *t = n < cap ? stack : hp_grow(stack, &cap, n + 1, 64, sizeof *stack);
			if (!t) {
				rc = hp_error_set(w->err, HP_ENOMEM, "out of memory");
				break;
			}
			stack = t;
			stack[n++] = (uint32_t)v;
			v = left;
			continue;
		}
		v = stack[--n];
		if ((rc = hp_objread_decode(w->rd, v, 0, &d, w->err)) != HP_OK)
			break;
		rc = emit_ids(w, id_field(w->rd, &d, k->key), id_field(w->rd, &d, k->value));
		v = ref_field(h, w->rd, &d, "right", NULL);
		hp_objread_release(&d);
	}
	hp_free(stack);
	return rc;
}

/* W_SPARSE: int or long keys, object values, the first mSize of each but
 * those holding the class's static DELETED (removed, not yet compacted) */
static int walk_sparse(struct walk *w, uint32_t obj, size_t keys, size_t vals, int32_t n)
{
	const hp_heap *h = w->h;
	struct hp_objdata kd, vd;
	int rc;
	if (keys == SIZE_MAX || hp_heap_kind(h, keys) != HP_OBJ_PRIMARRAY)
		return HP_OK;
	uint64_t deleted = 0;
	uint32_t c = h->cls[obj];
	for (size_t hops = 0; c != HP_NONE && c < h->nclasses && hops <= h->nclasses && !deleted; hops++) {
		const struct hp_static *s = hp_class_static(h, c, "DELETED", HP_T_OBJECT);
		deleted = s ? s->value : 0;
		c = h->classes[c].super;
	}
	if (!step(w, keys, HP_OBJ_PRIMARRAY, (uint32_t)n, &kd, &rc))
		return rc;
	if (!step(w, vals, HP_OBJ_OBJARRAY, (uint32_t)n, &vd, &rc)) {
		hp_objread_release(&kd);
		return rc;
	}
	if (kd.elem_type == HP_T_INT || kd.elem_type == HP_T_LONG)
		for (uint32_t i = 0; i < kd.nelems && i < vd.nelems && !w->stop && rc == HP_OK; i++) {
			if (deleted && vd.elems[i] == deleted)
				continue;
			struct hp_entry e;
			memset(&e, 0, sizeof e);
			e.key_type = kd.elem_type;
			e.key_bits = kd.elem_type == HP_T_INT ? (uint64_t)(int64_t)(int32_t)(uint32_t)kd.elems[i] : kd.elems[i];
			e.value = vd.elems[i];
			rc = emit(w, &e);
		}
	hp_objread_release(&kd);
	hp_objread_release(&vd);
	return rc;
}

/* ImmutableCollections.EMPTY, List.of(a)'s missing second element */
static uint64_t immutable_empty(const hp_heap *h)
{
	for (size_t k = 0; k < h->nclasses; k++)
		if (h->classes[k].dumped && !strcmp(hp_class_name(h, k), "java.util.ImmutableCollections")) {
			const struct hp_static *s = hp_class_static(h, k, "EMPTY", HP_T_OBJECT);
			return s ? s->value : 0;
		}
	return 0;
}

static int walk_of(struct walk *w, uint32_t obj, int depth)
{
	const hp_heap *h = w->h;
	if (hp_heap_kind(h, obj) == HP_OBJ_OBJARRAY)
		return walk_slots(w, obj, h->len[obj], 0, 0);
	int ki = walk_kind(h, obj);
	struct hp_objdata o;
	int rc;
	if (ki < 0 || !step(w, obj, HP_OBJ_INSTANCE, 0, &o, &rc))
		return HP_OK;
	const struct walkable *k = &walkable[ki];
	size_t a = k->array ? ref_alt(h, w->rd, &o, k->array) : SIZE_MAX;
	int32_t n = -1;
	if (k->count && (!int_field(w->rd, &o, k->count, NULL, &n) || n < 0))
		n = 0;        /* no count: nothing can be told to be in it */
	rc = HP_OK;
	switch (k->how) {
	case W_CHAINS:
		rc = walk_chains(w, a, k);
		break;
	case W_PROPS:
		if (a != SIZE_MAX && depth == 0)
			rc = walk_of(w, (uint32_t)a, depth + 1);
		else
			rc = walk_chains(w, ref_field(h, w->rd, &o, "table", NULL), k);
		break;
	case W_FOLLOW:
		if (a != SIZE_MAX && depth == 0) {
			/* a set's elements are its map's keys (or its list's elements) */
			int ik = walk_kind(h, (uint32_t)a);
			w->keys = ik >= 0 && walkable[ik].map;
			rc = walk_of(w, (uint32_t)a, depth + 1);
			w->keys = 0;
		}
		break;
	case W_PAIRS: {
		/* IdentityHashMap's null key is its NULL_KEY object */
		uint64_t null_key = 0;
		if (!strcmp(k->name, "java.util.IdentityHashMap")) {
			const struct hp_static *s = NULL;
			for (uint32_t c = h->cls[obj], i = 0; c != HP_NONE && c < h->nclasses && i < MAX_SUPERS && !s; i++) {
				if (!strcmp(hp_class_name(h, c), k->name))
					s = hp_class_static(h, c, "NULL_KEY", HP_T_OBJECT);
				c = h->classes[c].super;
			}
			null_key = s ? s->value : 0;
		}
		rc = walk_slots(w, a, k->holes ? -1 : n, 1, null_key);
		break;
	}
	case W_ARRAY:
		rc = walk_slots(w, a, k->holes ? -1 : k->count ? (int64_t)n : a != SIZE_MAX ? (int64_t)h->len[a] : 0, 0, 0);
		break;
	case W_DEQUE: {
		int32_t head, tail;
		struct hp_objdata e;
		if (int_field(w->rd, &o, "head", NULL, &head) && int_field(w->rd, &o, "tail", NULL, &tail) &&
		    step(w, a, HP_OBJ_OBJARRAY, UINT32_MAX, &e, &rc)) {
			int64_t len = e.nelems;
			if (head >= 0 && tail >= 0 && head < len && tail < len)
				for (int64_t i = head; i != tail && !w->stop && rc == HP_OK; i = (i + 1) % len)
					rc = emit_ids(w, 0, e.elems[i]);
			hp_objread_release(&e);
		}
		break;
	}
	case W_LINKED: {
		struct hp_objdata d;
		while (!w->stop && rc == HP_OK && step(w, a, HP_OBJ_INSTANCE, 0, &d, &rc)) {
			rc = emit_ids(w, 0, id_field(w->rd, &d, k->value));
			a = ref_field(h, w->rd, &d, k->next, NULL);
			hp_objread_release(&d);
		}
		break;
	}
	case W_TREE:
		rc = walk_tree(w, a, k);
		break;
	case W_SPARSE:
		rc = walk_sparse(w, obj, a, ref_field(h, w->rd, &o, k->value, NULL), n);
		break;
	case W_TWO: {
		uint64_t empty = immutable_empty(h), e0 = id_field(w->rd, &o, "e0"), e1 = id_field(w->rd, &o, "e1");
		if (e0 && e0 != empty)
			rc = emit_ids(w, 0, e0);
		if (rc == HP_OK && !w->stop && e1 && e1 != empty)
			rc = emit_ids(w, 0, e1);
		break;
	}
	}
	hp_objread_release(&o);
	return rc;
}

int hp_collection_walk(const hp_heap *h, hp_objread *rd, uint32_t obj, hp_entry_fn *fn, void *ud, int *map,
		       struct hp_error *err)
{
	int ki = walk_kind(h, obj);
	*map = obj < h->nobj && hp_heap_kind(h, obj) == HP_OBJ_OBJARRAY ? 0 : ki >= 0 ? walkable[ki].map : -1;
	if (*map < 0)
		return HP_OK;
	struct walk w = { .h = h, .rd = rd, .fn = fn, .ud = ud, .err = err };
	return walk_of(&w, obj, 0);
}
