/* redact.c — a heap dump copied without its data; see redact.h. */
#include "tools/redact.h"
#include "parser/spool.h"
#include "model/heap.h"
#include "model/idmap.h"
#include "base/alloc.h"
#include "parser/hprof.h"
#include "parser/reader.h"
#include "base/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- small growable arrays ----------------------------------------------- */

#define GROW(arr, n, cap, need) ( (n) + (need) <= (cap) ? 0 : grow((void **)&(arr), &(cap), (n) + (need), sizeof *(arr)) )

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t nc = *cap ? *cap : 16;
	while (nc < need)
		nc *= 2;
	void *q = hp_reallocarray(*p, nc, size);
	if (!q)
		return -1;
	*p = q;
	*cap = nc;
	return 0;
}

/* ---- names ------------------------------------------------------------------ */

/* the JDK's and Android's own packages ('/' matches '.' too: old dumps
 * write class names with dots) */
static const char *const framework[] = {
	"java/", "javax/", "jdk/", "sun/", "com/sun/", "android/", "dalvik/", "libcore/",
	"org/apache/harmony/", "org/w3c/", "org/xml/", "org/ietf/", "org/omg/", "com/android/",
};

/* the element class of a class name: "[[Lx;" -> "x"; a primitive array's: "" */
static void element_of(const uint8_t **s, size_t *len)
{
	const uint8_t *p = *s;
	size_t n = *len;
	if (!n || p[0] != '[')
		return;
	while (n && p[0] == '[') {
		p++;
		n--;
	}
	if (n >= 2 && p[0] == 'L' && p[n - 1] == ';') {
		p++;
		n -= 2;
	} else {
		n = 0;                  /* a primitive element type */
	}
	*s = p;
	*len = n;
}

/* does the class name (an array's too) name the JDK's or Android's own
 * class, or a primitive array ("[I", or "int[]" as old dumps write it)? */
static int framework_class(const uint8_t *s, size_t len)
{
	static const char *const prims[] = { "boolean", "byte", "char", "short", "int", "long", "float", "double" };
	size_t full = len;
	element_of(&s, &len);
	if (!len)
		return full > 0;
	while (len > 2 && s[len - 2] == '[' && s[len - 1] == ']')
		len -= 2;
	for (size_t i = 0; len < full && i < sizeof prims / sizeof prims[0]; i++)
		if (len == strlen(prims[i]) && !memcmp(s, prims[i], len))
			return 1;
	for (size_t i = 0; i < sizeof framework / sizeof framework[0]; i++) {
		const char *f = framework[i];
		size_t k = 0;
		while (f[k] && k < len && (s[k] == (uint8_t)f[k] || (f[k] == '/' && s[k] == '.')))
			k++;
		if (!f[k])
			return 1;
	}
	return 0;
}

/* s is the name `want`, written with '/' (or with '.' as old dumps do) */
static int same_name(const uint8_t *s, size_t len, const char *want)
{
	size_t k = 0;
	for (; want[k] && k < len; k++)
		if (s[k] != (uint8_t)want[k] && !(want[k] == '/' && s[k] == '.'))
			return 0;
	return !want[k] && k == len;
}

/* a stable 64-bit hash of a name (FNV-1a, then a finaliser); a class
 * name's dots (old dumps) count as slashes, so it hashes as in new ones */
static uint64_t name_hash(const uint8_t *s, size_t n, int cls)
{
	uint64_t h = HP_FNV1A_INIT;
	for (size_t i = 0; i < n; i++)
		h = hp_fnv1a_byte(h, cls && s[i] == '.' ? '/' : s[i]);
	return hp_fmix64(h);
}

/* roles a STRING record's id plays, from the records that name it: a
 * STRING none of them names is dropped from the copy */
enum {
	ROLE_CLASS = 1, ROLE_FIELD = 2, ROLE_METHOD = 4, ROLE_SOURCE = 8, ROLE_SIG = 16,
	ROLE_HEAP = 32,           /* HEAP DUMP INFO: a heap's name (Android's "app", "zygote") */
	ROLE_TEXT = 64,           /* START THREAD: a thread's or its group's name: data */
	ROLE_KEEP = 128,          /* names mode: a name the JDK or Android uses: stays readable */
	NAME_FW = 256             /* names mode: the text names a framework class */
};
#define ROLE_NAME (ROLE_CLASS | ROLE_FIELD | ROLE_METHOD | ROLE_SOURCE | ROLE_SIG | ROLE_HEAP)

/* ---- the state ------------------------------------------------------------ */

struct rclass {
	uint64_t id, super;
	uint32_t first, nf;       /* instance fields: ftypes/fnames[first, first + nf) */
	int32_t plan;             /* index in plans, -1 not made yet */
};

struct plan {
	uint32_t first, n;        /* ranges[first, first + n): field bytes to zero */
	uint32_t total;           /* field bytes the layout describes */
	uint8_t string;           /* java.lang.String */
};

struct range { uint32_t off, len; };

/* Hashes of text that --mode=strings zeroes with String.hash: the hash
 * fields of the nodes of hash-based collections (LinkedHashMap, HashSet,
 * Properties and the tree nodes through their super classes) hold their
 * keys' hashCode, which gives a short key back; URI, URL and a file path
 * cache their text's.  JDK 8 and later, JDK 7 and earlier, Android. */
static const struct { const char *cls, *field; } text_hashes[] = {
	{ "java/util/HashMap$Node", "hash" },
	{ "java/util/HashMap$Entry", "hash" },
	{ "java/util/HashMap$HashMapEntry", "hash" },
	{ "java/util/Hashtable$Entry", "hash" },
	{ "java/util/Hashtable$HashtableEntry", "hash" },
	{ "java/util/WeakHashMap$Entry", "hash" },
	{ "java/util/concurrent/ConcurrentHashMap$Node", "hash" },
	{ "java/util/concurrent/ConcurrentHashMap$HashEntry", "hash" },
	{ "java/net/URI", "hash" },
	{ "java/net/URL", "hashCode" },
	{ "sun/nio/fs/UnixPath", "hash" },
};
#define N_TEXT_HASHES (sizeof text_hashes / sizeof text_hashes[0])

/* The counters of the JDK's and Android's collections, which --mode=values
 * and names keep as they keep a String's length: what a collection holds
 * is in the graph already (its nodes, its array's length), and the sizes
 * analysis/collections.h reads from them stay those of the original. */
static const struct { const char *cls, *field; } counters[] = {
	{ "java/util/HashMap", "size" },
	{ "java/util/WeakHashMap", "size" },
	{ "java/util/IdentityHashMap", "size" },
	{ "java/util/TreeMap", "size" },
	{ "java/util/Hashtable", "count" },
	{ "java/util/concurrent/ConcurrentHashMap", "baseCount" },
	{ "java/util/concurrent/ConcurrentHashMap$CounterCell", "value" },
	{ "java/util/ArrayList", "size" },
	{ "java/util/Vector", "elementCount" },
	{ "java/util/LinkedList", "size" },
	{ "java/util/PriorityQueue", "size" },
	{ "java/util/ArrayDeque", "head" },
	{ "java/util/ArrayDeque", "tail" },
	{ "android/util/ArrayMap", "mSize" },
	{ "android/util/ArraySet", "mSize" },
	{ "android/util/SparseArray", "mSize" },
	{ "android/util/LongSparseArray", "mSize" },
	{ "android/util/SparseIntArray", "mSize" },
	{ "android/util/SparseLongArray", "mSize" },
	{ "android/util/SparseBooleanArray", "mSize" },
	{ "androidx/collection/SimpleArrayMap", "mSize" },
	{ "androidx/collection/ArraySet", "mSize" },
	{ "androidx/collection/SparseArrayCompat", "mSize" },
	{ "androidx/collection/LongSparseArray", "mSize" },
};
#define N_COUNTERS (sizeof counters / sizeof counters[0])

/* names looked for in every mode: String's, then text_hashes' classes,
 * then counters' classes and fields */
enum { SP_STRING, SP_COUNT, SP_OFFSET, SP_CODER, SP_HASH, SP_HASHCODE, SP_TH0, SP_CC0 = SP_TH0 + N_TEXT_HASHES,
       SP_CF0 = SP_CC0 + N_COUNTERS, SP_N = SP_CF0 + N_COUNTERS };
#define SP_MAX 8

struct red {
	const struct hp_redact_opts *o;
	struct hp_redact_stats *st;
	hp_writer *w;
	struct hp_error *err;
	unsigned I;
	int zero_values;          /* values, names */
	int names;

	/* classes: layouts from CLASS DUMP */
	struct hp_idmap cls_map;  /* class id -> index in cls */
	struct rclass *cls;
	size_t ncls, cls_cap;
	uint8_t *ftypes;
	uint64_t *fnames;
	size_t nft, ft_cap, fn_cap;
	struct plan *plans;
	size_t nplans, plans_cap;
	struct range *ranges;
	size_t nranges, ranges_cap;
	uint64_t last_cid;        /* the class of the last instance, and its plan */
	int32_t last_plan;

	/* LOAD CLASS: class id and name sid, by class id and by serial */
	struct hp_idmap lc_by_id, lc_by_serial;
	uint64_t *lc_cls, *lc_name;
	size_t nlc, lc_cap, lcn_cap;
	uint64_t sp[SP_N][SP_MAX];
	int nsp[SP_N];

	/* the copy */
	int elem_action;          /* of the array whose SUB came last */
	int record_unknown;       /* the current record is of an unknown kind */
	int swallow;              /* its body is written already (a renamed STRING) */
	uint8_t head[9];          /* a STRING record's head, held back (names) */

	/* names */
	struct hp_idmap sid_map;  /* STRING id -> index in roles */
	uint16_t *roles;
	size_t nroles, roles_cap;
	uint64_t *frames;         /* 4 per frame: method, signature, source sids, class serial */
	size_t nframes, frames_cap;
	uint64_t *cdfields;       /* 2 per field of a CLASS DUMP (statics too): class id, name sid */
	size_t ncdf, cdf_cap;
	struct hp_idmap mapped;   /* hashes already given to the mapping callback */
	char *nbuf;               /* a new name being made */
	size_t nbuf_len, nbuf_cap;
};

enum { EL_COPY, EL_ZERO, EL_STAR_BYTE, EL_STAR_CHAR };

static int nomem(struct red *R)
{
	return hp_error_set(R->err, HP_ENOMEM, "out of memory");
}

static int is_special(const struct red *R, int k, uint64_t sid)
{
	for (int i = 0; i < R->nsp[k]; i++)
		if (R->sp[k][i] == sid)
			return 1;
	return 0;
}

static const char *special_name(int k)
{
	static const char *const first[SP_TH0] = { "java/lang/String", "count", "offset", "coder", "hash", "hashCode" };
	return k < SP_TH0 ? first[k] : k < SP_CC0 ? text_hashes[k - SP_TH0].cls
		: k < SP_CF0 ? counters[k - SP_CC0].cls : counters[k - SP_CF0].field;
}

static void note_special(struct red *R, uint64_t sid, const uint8_t *s, uint32_t len)
{
	for (int k = 0; k < SP_N; k++)
		if (same_name(s, len, special_name(k)) && R->nsp[k] < SP_MAX &&
		    !is_special(R, k, sid))
			R->sp[k][R->nsp[k]++] = sid;
}

/* the special name (SP_HASH, SP_HASHCODE) of the field of class cid that
 * holds a hash of text, or -1 */
static int text_hash_field(const struct red *R, uint64_t cid)
{
	uint32_t i = hp_idmap_get(&R->lc_by_id, cid);
	if (i == HP_IDMAP_NONE)
		return -1;
	for (size_t k = 0; k < N_TEXT_HASHES; k++)
		if (is_special(R, SP_TH0 + (int)k, R->lc_name[i]))
			return strcmp(text_hashes[k].field, "hash") == 0 ? SP_HASH : SP_HASHCODE;
	return -1;
}

/* 1 when the field named by sid of class cid is a collection's counter */
static int counter_field(const struct red *R, uint64_t cid, uint64_t sid)
{
	uint32_t i = hp_idmap_get(&R->lc_by_id, cid);
	if (i == HP_IDMAP_NONE)
		return 0;
	for (size_t k = 0; k < N_COUNTERS; k++)
		if (is_special(R, SP_CC0 + (int)k, R->lc_name[i]) && is_special(R, SP_CF0 + (int)k, sid))
			return 1;
	return 0;
}

static int add_load_class(struct red *R, uint32_t serial, uint64_t cid, uint64_t name_sid)
{
	uint32_t i = hp_idmap_get(&R->lc_by_id, cid);
	if (i == HP_IDMAP_NONE) {
		if (GROW(R->lc_cls, R->nlc, R->lc_cap, 1) || GROW(R->lc_name, R->nlc, R->lcn_cap, 1) ||
		    hp_idmap_put(&R->lc_by_id, cid, (uint32_t)R->nlc))
			return nomem(R);
		i = (uint32_t)R->nlc++;
	}
	R->lc_cls[i] = cid;
	R->lc_name[i] = name_sid;
	if (hp_idmap_put(&R->lc_by_serial, serial, i))
		return nomem(R);
	return HP_OK;
}

static int is_string_class(const struct red *R, uint64_t cid)
{
	uint32_t i = hp_idmap_get(&R->lc_by_id, cid);
	return i != HP_IDMAP_NONE && is_special(R, SP_STRING, R->lc_name[i]);
}

/* ---- class layouts ----------------------------------------------------------- */

static void forget_plans(struct red *R)
{
	for (size_t i = 0; i < R->ncls; i++)
		R->cls[i].plan = -1;
	R->nplans = R->nranges = 0;
	R->last_plan = -1;
}

/* a CLASS DUMP's instance fields: n × (ID name, u1 type) at f */
static int add_class(struct red *R, uint64_t id, uint64_t super, const uint8_t *f, uint16_t n)
{
	unsigned I = R->I;
	uint32_t idx = hp_idmap_get(&R->cls_map, id);
	if (idx != HP_IDMAP_NONE) {
		const struct rclass *c = &R->cls[idx];
		int same = c->super == super && c->nf == n;
		for (uint32_t i = 0; same && i < n; i++)
			same = R->ftypes[c->first + i] == f[i * (I + 1) + I] &&
			       R->fnames[c->first + i] == hp_be_id(f + i * (I + 1), I);
		if (same)
			return HP_OK;
	}
	if (GROW(R->ftypes, R->nft, R->ft_cap, n) || GROW(R->fnames, R->nft, R->fn_cap, n))
		return nomem(R);
	uint32_t first = (uint32_t)R->nft;
	for (uint32_t i = 0; i < n; i++) {
		R->ftypes[first + i] = f[i * (I + 1) + I];
		R->fnames[first + i] = hp_be_id(f + i * (I + 1), I);
	}
	R->nft += n;
	if (idx == HP_IDMAP_NONE) {
		if (GROW(R->cls, R->ncls, R->cls_cap, 1) || hp_idmap_put(&R->cls_map, id, (uint32_t)R->ncls))
			return nomem(R);
		idx = (uint32_t)R->ncls++;
	} else {
		forget_plans(R);        /* a class changed: the layouts made from it are stale */
	}
	struct rclass *c = &R->cls[idx];
	c->id = id;
	c->super = super;
	c->first = first;
	c->nf = n;
	c->plan = -1;
	R->last_plan = -1;
	return HP_OK;
}

/* The plan of an instance of class cid: which of its field bytes become
 * zero.  Fields are laid out class by class from cid up the super chain
 * (as the model reads them: src/model/refs.c).  Returns the plan's index,
 * or -1 (err set) when out of memory. */
static int32_t make_plan(struct red *R, uint32_t idx)
{
	unsigned I = R->I;
	int str = is_string_class(R, R->cls[idx].id);
	if (GROW(R->plans, R->nplans, R->plans_cap, 1)) {
		nomem(R);
		return -1;
	}
	struct plan *pl = &R->plans[R->nplans];
	pl->first = (uint32_t)R->nranges;
	pl->n = 0;
	pl->string = (uint8_t)str;
	uint64_t pos = 0;
	uint32_t c = idx;
	for (size_t depth = 0; depth <= R->ncls; depth++) {
		const struct rclass *k = &R->cls[c];
		int th = R->zero_values ? -1 : text_hash_field(R, k->id);
		for (uint32_t f = 0; f < k->nf; f++) {
			unsigned t = R->ftypes[k->first + f];
			unsigned sz = hp_type_size(t, I);
			if (!sz)
				break;
			int zero;
			if (t == HP_T_OBJECT)
				zero = 0;
			else if (str && c == idx) {
				/* a String keeps its shape; its hash goes */
				uint64_t nm = R->fnames[k->first + f];
				zero = !is_special(R, SP_COUNT, nm) && !is_special(R, SP_OFFSET, nm) &&
				       !is_special(R, SP_CODER, nm);
			} else if (R->zero_values)
				zero = !counter_field(R, k->id, R->fnames[k->first + f]);
			else
				zero = th >= 0 && is_special(R, th, R->fnames[k->first + f]);
			if (zero) {
				struct range *last = pl->n ? &R->ranges[R->nranges - 1] : NULL;
				if (last && last->off + last->len == pos) {
					last->len += sz;
				} else {
					if (GROW(R->ranges, R->nranges, R->ranges_cap, 1)) {
						nomem(R);
						return -1;
					}
					R->ranges[R->nranges].off = (uint32_t)pos;
					R->ranges[R->nranges].len = sz;
					R->nranges++;
					pl->n++;
				}
			}
			pos += sz;
			if (pos > UINT32_MAX)
				pos = UINT32_MAX;
		}
		if (k->super == 0)
			break;
		uint32_t s = hp_idmap_get(&R->cls_map, k->super);
		if (s == HP_IDMAP_NONE)
			break;          /* no layout for the super class: the rest become zeros */
		c = s;
	}
	pl->total = (uint32_t)pos;
	R->cls[idx].plan = (int32_t)R->nplans;
	return (int32_t)R->nplans++;
}

/* The plan for class cid: its index, -1 (err set) on failure, -3 when
 * the dump has no layout for the class (its fields are zeroed whole). */
static int32_t plan_of(struct red *R, uint64_t cid)
{
	if (R->last_plan >= 0 && R->last_cid == cid)
		return R->last_plan;
	uint32_t idx = hp_idmap_get(&R->cls_map, cid);
	int32_t p = -3;
	if (idx != HP_IDMAP_NONE) {
		p = R->cls[idx].plan;
		if (p < 0 && (p = make_plan(R, idx)) < 0)
			return -1;
	}
	R->last_cid = cid;
	R->last_plan = p;
	return p;
}

/* ---- names ------------------------------------------------------------------ */

static int32_t role_slot(struct red *R, uint64_t sid, int add)
{
	uint32_t v = hp_idmap_get(&R->sid_map, sid);
	if (v != HP_IDMAP_NONE || !add)
		return v == HP_IDMAP_NONE ? -1 : (int32_t)v;
	if (GROW(R->roles, R->nroles, R->roles_cap, 1) || hp_idmap_put(&R->sid_map, sid, (uint32_t)R->nroles)) {
		nomem(R);
		return -2;
	}
	R->roles[R->nroles] = 0;
	return (int32_t)R->nroles++;
}

static int add_role(struct red *R, uint64_t sid, int role)
{
	int32_t i = role_slot(R, sid, 1);
	if (i == -2)
		return HP_ENOMEM;
	R->roles[i] |= (uint16_t)role;
	return HP_OK;
}

/* whether the class named by sid is the JDK's or Android's (or all names go) */
static int fw_sid(const struct red *R, uint64_t sid)
{
	if (R->o->names_all)
		return 0;
	uint32_t i = hp_idmap_get(&R->sid_map, sid);
	return i != HP_IDMAP_NONE && (R->roles[i] & NAME_FW);
}

static int fw_class(const struct red *R, uint64_t cid)
{
	uint32_t i = hp_idmap_get(&R->lc_by_id, cid);
	return i != HP_IDMAP_NONE && fw_sid(R, R->lc_name[i]);
}

/* After the first pass (names mode): which names stay, those the JDK's or
 * Android's classes use (the first pass gave every name its role). */
static int assign_keep(struct red *R)
{
	for (size_t i = 0; i < R->nlc; i++)
		if (fw_sid(R, R->lc_name[i]))
			HP_TRY(add_role(R, R->lc_name[i], ROLE_KEEP));
	for (size_t i = 0; i < R->ncdf; i++)
		if (fw_class(R, R->cdfields[2 * i]))
			HP_TRY(add_role(R, R->cdfields[2 * i + 1], ROLE_KEEP));
	for (size_t i = 0; i < R->nframes; i++) {
		const uint64_t *f = &R->frames[4 * i];
		uint32_t k = hp_idmap_get(&R->lc_by_serial, f[3]);
		if (k != HP_IDMAP_NONE && fw_sid(R, R->lc_name[k])) {
			HP_TRY(add_role(R, f[0], ROLE_KEEP));
			HP_TRY(add_role(R, f[2], ROLE_KEEP));
		}
	}
	return HP_OK;
}

static int nb_put(struct red *R, const void *p, size_t n)
{
	if (GROW(R->nbuf, R->nbuf_len, R->nbuf_cap, n + 1))
		return nomem(R);
	memcpy(R->nbuf + R->nbuf_len, p, n);
	R->nbuf_len += n;
	R->nbuf[R->nbuf_len] = '\0';
	return HP_OK;
}

/* tells the mapping callback about hashed name `h` (prefix + 16 hex) once;
 * real is the name as the dump has it, a class's in the dump's form */
static int map_name(struct red *R, char prefix, uint64_t h, const uint8_t *real, size_t len, int is_class)
{
	if (!R->o->mapping)
		return HP_OK;
	uint32_t v = 0;
	int ins = hp_idmap_insert(&R->mapped, h ^ (uint64_t)(unsigned char)prefix, &v);
	if (ins < 0)
		return nomem(R);
	if (!ins)
		return HP_OK;
	char hashed[24];
	snprintf(hashed, sizeof hashed, "%c%016llx", prefix, (unsigned long long)h);
	char *txt = is_class ? hp_java_name((const char *)real, len) : hp_mutf8_to_utf8((const char *)real, len, NULL);
	if (!txt)
		return nomem(R);
	int rc = R->o->mapping(R->o->mapping_ud, hashed, txt);
	hp_free(txt);
	if (rc != HP_OK && !R->err->msg[0])
		hp_error_set(R->err, rc, "cannot write the mapping");
	return rc;
}

/* appends class name s (no array brackets) renamed, "c" + 16 hex, unless it is a framework class */
static int put_class(struct red *R, const uint8_t *s, size_t n)
{
	if (!R->o->names_all && framework_class(s, n))
		return nb_put(R, s, n);
	uint64_t h = name_hash(s, n, 1);
	char b[24];
	int k = snprintf(b, sizeof b, "c%016llx", (unsigned long long)h);
	HP_TRY(map_name(R, 'c', h, s, n, 1));
	return nb_put(R, b, (size_t)k);
}

/* a class name, an array's too: "[Lcom/x/Y;" -> "[Lc0123...;" */
static int rename_class(struct red *R, const uint8_t *s, size_t n)
{
	const uint8_t *e = s;
	size_t en = n;
	element_of(&e, &en);
	if (e == s)
		return put_class(R, s, n);
	if (!en)
		return nb_put(R, s, n);  /* a primitive array */
	HP_TRY(nb_put(R, s, (size_t)(e - s)));
	HP_TRY(put_class(R, e, en));
	return nb_put(R, e + en, n - (size_t)(e - s) - en);
}

/* a method signature: each L...; renamed */
static int rename_sig(struct red *R, const uint8_t *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		if (s[i] == 'L') {
			size_t j = i + 1;
			while (j < n && s[j] != ';')
				j++;
			if (j < n) {
				HP_TRY(nb_put(R, "L", 1));
				HP_TRY(put_class(R, s + i + 1, j - i - 1));
				HP_TRY(nb_put(R, ";", 1));
				i = j + 1;
				continue;
			}
		}
		HP_TRY(nb_put(R, s + i, 1));
		i++;
	}
	return HP_OK;
}

/* the new text of STRING sid (in R->nbuf), or 0 when it stays */
static int new_name(struct red *R, uint64_t sid, const uint8_t *s, uint32_t n, int *renamed)
{
	*renamed = 0;
	R->nbuf_len = 0;
	HP_TRY(nb_put(R, "", 0));
	uint32_t i = hp_idmap_get(&R->sid_map, sid);
	if (i == HP_IDMAP_NONE)
		return HP_OK;
	int role = R->roles[i];
	if ((role & ROLE_KEEP) && !R->o->names_all)
		return HP_OK;
	if (role & ROLE_CLASS) {
		HP_TRY(rename_class(R, s, n));
	} else if (role & (ROLE_FIELD | ROLE_METHOD | ROLE_SOURCE)) {
		char prefix = (role & ROLE_FIELD) ? 'f' : (role & ROLE_METHOD) ? 'm' : 's';
		uint64_t h = name_hash(s, n, 0);
		char b[24];
		int k = snprintf(b, sizeof b, "%c%016llx", prefix, (unsigned long long)h);
		HP_TRY(map_name(R, prefix, h, s, n, 0));
		HP_TRY(nb_put(R, b, (size_t)k));
	} else if (role & ROLE_SIG) {
		HP_TRY(rename_sig(R, s, n));
	} else {
		return HP_OK;
	}
	*renamed = R->nbuf_len != n || memcmp(R->nbuf, s, n) != 0;
	return HP_OK;
}

/* ---- the first pass: layouts and names -------------------------------------- */

static int pre_header(void *ud, const struct hp_header *h)
{
	((struct red *)ud)->I = h->id_size;
	return HP_OK;
}

static int pre_string(void *ud, uint64_t id, const uint8_t *s, uint32_t len)
{
	struct red *R = ud;
	note_special(R, id, s, len);
	if (R->names && framework_class(s, len))
		return add_role(R, id, NAME_FW);
	return HP_OK;
}

static int pre_load_class(void *ud, uint32_t serial, uint64_t cid, uint32_t trace, uint64_t name_sid)
{
	HP_TRY(add_load_class(ud, serial, cid, name_sid));
	return add_role(ud, name_sid, ROLE_CLASS);
}

static int pre_frame(void *ud, const struct hp_frame *f)
{
	struct red *R = ud;
	HP_TRY(add_role(R, f->method_sid, ROLE_METHOD));
	HP_TRY(add_role(R, f->signature_sid, ROLE_SIG));
	if (f->source_sid)
		HP_TRY(add_role(R, f->source_sid, ROLE_SOURCE));
	if (!R->names)
		return HP_OK;
	if (GROW(R->frames, 4 * R->nframes, R->frames_cap, 4))
		return nomem(R);
	uint64_t *q = &R->frames[4 * R->nframes++];
	q[0] = f->method_sid;
	q[1] = f->signature_sid;
	q[2] = f->source_sid;
	q[3] = f->class_serial;
	return HP_OK;
}

/* a thread's name and its group's are text (the Thread's own name is a
 * String, whose text goes): they stay only as long as they are */
static int pre_start_thread(void *ud, const struct hp_thread *t)
{
	struct red *R = ud;
	const uint64_t sids[3] = { t->name_sid, t->group_sid, t->parent_group_sid };
	for (int i = 0; i < 3; i++)
		if (sids[i])
			HP_TRY(add_role(R, sids[i], ROLE_TEXT));
	return HP_OK;
}

static int pre_heap_info(void *ud, uint32_t heap_id, uint64_t name_sid)
{
	return add_role(ud, name_sid, ROLE_HEAP);
}

/* a field's name (instance or static): its role, and for names mode its class */
static int add_field_name(struct red *R, uint64_t cid, uint64_t sid)
{
	HP_TRY(add_role(R, sid, ROLE_FIELD));
	if (!R->names)
		return HP_OK;
	if (GROW(R->cdfields, 2 * R->ncdf, R->cdf_cap, 2))
		return nomem(R);
	R->cdfields[2 * R->ncdf] = cid;
	R->cdfields[2 * R->ncdf++ + 1] = sid;
	return HP_OK;
}

static int pre_class_dump(void *ud, const struct hp_class_dump *c)
{
	struct red *R = ud;
	unsigned I = R->I;
	HP_TRY(add_class(R, c->id, c->super_id, c->fields, c->n_fields));
	for (uint32_t i = 0; i < c->n_fields; i++)
		HP_TRY(add_field_name(R, c->id, hp_be_id(c->fields + i * (I + 1), I)));
	const uint8_t *p = c->statics;
	for (uint32_t i = 0; i < c->n_statics; i++) {
		HP_TRY(add_field_name(R, c->id, hp_be_id(p, I)));
		p += I + 1 + hp_type_size(p[I], I);
	}
	return HP_OK;
}

/* ---- the copy --------------------------------------------------------------- */

static int put(struct red *R, const uint8_t *p, size_t n)
{
	return hp_writer_write(R->w, p, n, R->err);
}

/* zeroes the values of n (ID name, u1 type, value) entries at p (statics);
 * with name_bytes 2, (u2 index, u1 type, value) entries (the constant pool).
 * Returns the bytes walked. */
static size_t zero_values(struct red *R, uint8_t *p, unsigned n, unsigned name_bytes)
{
	unsigned I = R->I;
	size_t k = 0;
	for (unsigned i = 0; i < n; i++) {
		unsigned t = p[k + name_bytes];
		unsigned sz = hp_type_size(t, I);
		if (t != HP_T_OBJECT && R->zero_values) {
			memset(p + k + name_bytes + 1, 0, sz);
			R->st->statics_zeroed++;
		}
		k += name_bytes + 1 + sz;
	}
	return k;
}

static int copy_class_dump(struct red *R, const uint8_t *p, size_t n)
{
	unsigned I = R->I;
	uint8_t *q = hp_writer_space(R->w, n, R->err);
	if (!q)
		return R->err->code;
	memcpy(q, p, n);
	/* the parser checked the walk below against n */
	size_t k = 1 + 7 * (size_t)I + 8;
	unsigned ncp = hp_be16(q + k);
	k += 2;
	k += zero_values(R, q + k, ncp, 2);
	unsigned ns = hp_be16(q + k);
	k += 2;
	k += zero_values(R, q + k, ns, I);
	unsigned nf = hp_be16(q + k);
	k += 2;
	hp_writer_commit(R->w, n);
	/* the layout in force from here on (a file of several dumps may
	 * change it); the first pass gave the last one to the instances before */
	return add_class(R, hp_be_id(p + 1, I), hp_be_id(p + 1 + I + 4, I), p + k, (uint16_t)nf);
}

static int copy_instance(struct red *R, const uint8_t *p, size_t n)
{
	unsigned I = R->I;
	uint64_t cid = hp_be_id(p + 1 + I + 4, I);
	int32_t pi = plan_of(R, cid);
	if (pi == -1)
		return R->err->code;
	uint8_t *q = hp_writer_space(R->w, n, R->err);
	if (!q)
		return R->err->code;
	memcpy(q, p, n);
	size_t fo = 1 + 2 * (size_t)I + 8;
	uint32_t len = (uint32_t)(n - fo);
	uint8_t *f = q + fo;
	R->st->instances++;
	if (pi == -3) {
		memset(f, 0, len);
		R->st->instances_unknown_class++;
	} else {
		const struct plan *pl = &R->plans[pi];
		const struct range *rg = pl->n ? &R->ranges[pl->first] : NULL;
		for (uint32_t i = 0; i < pl->n; i++) {
			if (rg[i].off >= len)
				break;
			uint32_t l = rg[i].len < len - rg[i].off ? rg[i].len : len - rg[i].off;
			memset(f + rg[i].off, 0, l);
		}
		if (len > pl->total)
			memset(f + pl->total, 0, len - pl->total);
		R->st->strings += pl->string;
	}
	hp_writer_commit(R->w, n);
	return HP_OK;
}

static int on_raw(void *ud, int kind, const uint8_t *p, size_t n, uint64_t off)
{
	static const uint8_t zero8[8], star_char[2] = { 0, '*' }, star_byte[1] = { '*' };
	struct red *R = ud;
	switch (kind) {
	case HP_RAW_SUB:
		switch (p[0]) {
		case 0x21:
			return copy_instance(R, p, n);
		case 0x23: {
			unsigned t = p[1 + R->I + 8];
			R->st->arrays++;
			if (t == HP_T_CHAR || t == HP_T_BYTE) {
				R->elem_action = t == HP_T_CHAR ? EL_STAR_CHAR : EL_STAR_BYTE;
				R->st->text_arrays++;
			} else if (R->zero_values) {
				R->elem_action = EL_ZERO;
				R->st->prim_arrays_zeroed++;
			} else {
				R->elem_action = EL_COPY;
			}
			return put(R, p, n);
		}
		case 0x22: case 0xC3:
			R->elem_action = EL_COPY;
			R->st->arrays++;
			return put(R, p, n);
		case 0x20:
			return copy_class_dump(R, p, n);
		default:
			return put(R, p, n);
		}
	case HP_RAW_ELEMS:
		switch (R->elem_action) {
		case EL_STAR_CHAR: return hp_writer_fill(R->w, star_char, 2, n / 2, R->err);
		case EL_STAR_BYTE: return hp_writer_fill(R->w, star_byte, 1, n, R->err);
		case EL_ZERO: return hp_writer_fill(R->w, zero8, 1, n, R->err);
		default: return put(R, p, n);
		}
	case HP_RAW_RECORD:
		R->record_unknown = hp_tag_name(p[0]) == NULL;
		R->swallow = 0;
		if (R->record_unknown) {
			R->st->unknown_records++;
			R->st->unknown_bytes += hp_be32(p + 5);
		}
		if (p[0] == 0x01) {
			memcpy(R->head, p, 9);  /* written by on_string, if at all */
			return HP_OK;
		}
		return put(R, p, n);
	case HP_RAW_BODY:
		if (R->swallow)
			return HP_OK;
		if (R->record_unknown)
			return hp_writer_fill(R->w, zero8, 1, n, R->err);
		return put(R, p, n);
	default:                        /* HP_RAW_HEADER */
		return put(R, p, n);
	}
}

/* writes the head and id of STRING `id` with a text of n bytes, to come,
 * in place of the record that came (whose body is then not copied) */
static int put_string_head(struct red *R, uint64_t id, uint64_t n)
{
	uint64_t body = (uint64_t)R->I + n;
	if (body > UINT32_MAX)
		return hp_error_set(R->err, HP_ECORRUPT, "a renamed name is too long");
	uint8_t idb[8];
	for (unsigned i = 0; i < R->I; i++)
		idb[i] = (uint8_t)(id >> 8 * (R->I - 1 - i));
	HP_TRY(hp_writer_record(R->w, 0x01, hp_be32(R->head + 1), (uint32_t)body, R->err));
	R->swallow = 1;
	return put(R, idb, R->I);
}

/* A STRING record: a name a record uses stays (names mode: renamed unless
 * the JDK's); a thread's name becomes a '*' per character; a STRING no
 * record names (HotSpot writes its whole symbol table: every literal of
 * every class, descriptors, signatures) is dropped, its body with it. */
static int on_string(void *ud, uint64_t id, const uint8_t *s, uint32_t len)
{
	static const uint8_t star = '*';
	struct red *R = ud;
	uint32_t i = hp_idmap_get(&R->sid_map, id);
	int role = i == HP_IDMAP_NONE ? 0 : R->roles[i];
	if (role & ROLE_NAME) {
		int renamed = 0;
		if (R->names)
			HP_TRY(new_name(R, id, s, len, &renamed));
		if (!renamed)
			return put(R, R->head, 9);
		R->st->names_replaced++;
		HP_TRY(put_string_head(R, id, R->nbuf_len));
		return put(R, (const uint8_t *)R->nbuf, R->nbuf_len);
	}
	if (role & ROLE_TEXT) {
		/* a character is a byte that does not continue one (modified
		 * UTF-8 writes a supplementary one as two: its UTF-16 units) */
		uint64_t chars = 0;
		for (uint32_t k = 0; k < len; k++)
			chars += (s[k] & 0xC0) != 0x80;
		R->st->strings_starred++;
		HP_TRY(put_string_head(R, id, chars));
		return hp_writer_fill(R->w, &star, 1, chars, R->err);
	}
	R->st->strings_dropped++;
	R->swallow = 1;
	return HP_OK;
}

static int on_load_class(void *ud, uint32_t serial, uint64_t cid, uint32_t trace, uint64_t name_sid)
{
	struct red *R = ud;
	if (is_special(R, SP_STRING, name_sid))
		forget_plans(R);        /* String named after a plan was made: its plan changes */
	return add_load_class(R, serial, cid, name_sid);
}

/* ---- the passes ---------------------------------------------------------------- */

struct prog { const struct hp_redact_opts *o; uint64_t total; };

static void on_progress(void *ud, uint64_t done)
{
	const struct prog *pg = ud;
	if (pg->o->progress)
		pg->o->progress(pg->o->progress_ud, done, pg->total);
}

/* One pass over the input at path: the first (layouts and names) or the
 * copy.  With sp (the first pass of standard input or a FIFO) every byte
 * read is also written to the spool, which must then hold the whole input;
 * sp->ok says whether it does (standard input that is a plain file is
 * mapped, and read again as it is: no spool). */
static int one_pass(struct red *R, const char *path, int copy, struct hp_spool *sp, const char *spool_dir,
		    struct hp_stats *stats)
{
	hp_reader *r = NULL;
	HP_TRY(hp_reader_open(&r, path, R->err));
	if (sp && r->kind == HP_RD_MMAP) {
		hp_spool_close(sp);
		sp = NULL;
	}
	if (sp)
		hp_reader_spool(r, sp->fd);
	struct hp_sink s;
	memset(&s, 0, sizeof s);
	s.ud = R;
	s.header = pre_header;
	if (copy) {
		s.string = on_string;
		s.load_class = on_load_class;
		s.raw = on_raw;
	} else {
		s.string = pre_string;
		s.load_class = pre_load_class;
		s.frame = pre_frame;
		s.start_thread = pre_start_thread;
		s.heap_info = pre_heap_info;
		s.class_dump = pre_class_dump;
	}
	struct hp_parse_opts po;
	hp_parse_opts_init(&po);
	po.dump_index = -1;
	po.want_raw = copy;
	struct prog pg = { R->o, r->file_size };
	po.progress = on_progress;
	po.progress_ud = &pg;
	int rc = hp_parse(r, &s, &po, stats, R->err);
	hp_stats_release(stats);
	if (sp && rc == HP_OK) {
		hp_spool_done(sp, r, spool_dir);
		if (!sp->ok)
			rc = hp_error_set(R->err, HP_EIO, "redact reads a pipe twice, through a copy: %s", sp->note);
	}
	hp_reader_free(r);
	return rc;
}

/* a file that can be opened and read again from its start (standard
 * input cannot, unless it is a plain file and not gzip: one_pass() sees) */
static int rereadable(const char *path)
{
	struct stat st;
	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void red_release(struct red *R)
{
	hp_idmap_release(&R->cls_map);
	hp_idmap_release(&R->lc_by_id);
	hp_idmap_release(&R->lc_by_serial);
	hp_idmap_release(&R->sid_map);
	hp_idmap_release(&R->mapped);
	hp_free_all(R->cls, R->ftypes, R->fnames, R->plans, R->ranges, R->lc_cls, R->lc_name,
		    R->roles, R->frames, R->cdfields, R->nbuf);
}

void hp_redact_opts_init(struct hp_redact_opts *o)
{
	memset(o, 0, sizeof *o);
}

int hp_redact(const char *in_path, hp_writer *w, const struct hp_redact_opts *o,
	      struct hp_redact_stats *st, struct hp_error *err)
{
	struct red R;
	memset(&R, 0, sizeof R);
	memset(st, 0, sizeof *st);
	R.o = o;
	R.st = st;
	R.w = w;
	R.err = err;
	R.zero_values = o->mode != HP_REDACT_STRINGS;
	R.names = o->mode == HP_REDACT_NAMES;
	R.last_plan = -1;
	hp_idmap_init(&R.cls_map);
	hp_idmap_init(&R.lc_by_id);
	hp_idmap_init(&R.lc_by_serial);
	hp_idmap_init(&R.sid_map);
	hp_idmap_init(&R.mapped);
	struct hp_stats stats;
	int rc = HP_OK;
	struct hp_spool sp;
	hp_spool_init(&sp);
	/* The first pass reads every name's uses and every layout: a STRING
	 * record comes before what uses it, and an instance may come before
	 * its class.  A pipe is read once, copied into the spool, which the
	 * copy then reads. */
	int piped = !rereadable(in_path);
	if (piped) {
		if (!o->spool_dir || !*o->spool_dir) {
			rc = hp_error_set(err, HP_EUSAGE,
				"redact reads the dump twice (its names come before what uses them), which a pipe cannot do without a temporary copy, and there is no directory for one; save it to a file first");
			goto out;
		}
		hp_spool_create(&sp, o->spool_dir);
		if (sp.fd < 0) {
			rc = hp_error_set(err, HP_EIO, "redact reads a pipe twice, through a copy, and %s", sp.note);
			goto out;
		}
	}
	st->passes++;
	if ((rc = one_pass(&R, in_path, 0, piped ? &sp : NULL, o->spool_dir, &stats)) != HP_OK)
		goto out;
	forget_plans(&R);
	if (R.names && (rc = assign_keep(&R)) != HP_OK)
		goto out;
	st->passes++;
	rc = one_pass(&R, sp.ok ? sp.path : in_path, 1, NULL, NULL, &stats);
	if (rc == HP_OK)
		rc = hp_writer_finish(w, err);
	st->bytes_in = stats.bytes;
	st->bytes_out = hp_writer_offset(w);
	st->file_bytes_out = hp_writer_file_bytes(w);
out:
	hp_spool_close(&sp);
	red_release(&R);
	return rc;
}
