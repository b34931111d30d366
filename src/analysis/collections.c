/* collections.c — the size of a JDK or Android collection from its own
 * fields (collections.h): which class is which collection, how each counts
 * its entries, and the checks that keep a hostile field from becoming a size. */
#include "analysis/collections.h"

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
