/* sysprops.c — system properties from the heap (sysprops.h). */
#include "analysis/sysprops.h"
#include "base/alloc.h"

#include <string.h>

/* the object a reference field of obj names, SIZE_MAX when none */
static size_t ref_field(hp_objread *rd, const hp_heap *h, size_t obj, const char *name, struct hp_error *err,
			int *rc)
{
	struct hp_objdata d;
	*rc = hp_objread_decode(rd, obj, 0, &d, err);
	if (*rc)
		return SIZE_MAX;
	const struct hp_objval *v = hp_objread_field(rd, &d, name, NULL);
	size_t r = v && v->type == HP_T_OBJECT && v->bits ? hp_heap_find(h, v->bits) : SIZE_MAX;
	hp_objread_release(&d);
	return r;
}

/* the text of a String object, NULL when it is none */
static char *text_of(hp_objread *rd, const hp_heap *h, size_t obj, struct hp_error *err, int *rc)
{
	*rc = HP_OK;
	if (obj == SIZE_MAX || !hp_objread_is_string(h, obj))
		return NULL;
	struct hp_text t;
	*rc = hp_objread_text(rd, obj, 256, &t, err);
	if (*rc || !t.utf8) {
		hp_objread_text_release(&t);
		return NULL;
	}
	char *s = hp_strdup(t.utf8);
	hp_objread_text_release(&t);
	if (!s)
		*rc = HP_ENOMEM;
	return s;
}

int hp_sysprops_get(hp_objread *rd, const hp_heap *h, const char *const *keys, char **values, size_t n,
		    struct hp_error *err)
{
	for (size_t i = 0; i < n; i++)
		values[i] = NULL;
	/* java.lang.System.props */
	uint64_t props_id = 0;
	for (size_t k = 0; k < h->nclasses && !props_id; k++) {
		const struct hp_class *c = &h->classes[k];
		if (!c->dumped || strcmp(hp_class_name(h, k), "java.lang.System"))
			continue;
		const struct hp_static *st = hp_class_static(h, k, "props", HP_T_OBJECT);
		if (st)
			props_id = st->value;
	}
	size_t props = props_id ? hp_heap_find(h, props_id) : SIZE_MAX;
	if (props == SIZE_MAX || hp_heap_kind(h, props) != HP_OBJ_INSTANCE)
		return HP_OK;
	int rc;
	/* JDK 9+: the entries are in a ConcurrentHashMap; before: Hashtable's */
	size_t map = ref_field(rd, h, props, "map", err, &rc);
	if (rc)
		return rc;
	size_t table = ref_field(rd, h, map != SIZE_MAX ? map : props, "table", err, &rc);
	if (rc)
		return rc;
	if (table == SIZE_MAX || hp_heap_kind(h, table) != HP_OBJ_OBJARRAY)
		return HP_OK;
	struct hp_objdata t;
	if ((rc = hp_objread_decode(rd, table, UINT32_MAX, &t, err)))
		return rc;
	size_t walked = 0, found = 0;
	for (uint32_t b = 0; b < t.nelems && found < n && walked < HP_SYSPROPS_MAX_NODES; b++) {
		size_t node = t.elems[b] ? hp_heap_find(h, t.elems[b]) : SIZE_MAX;
		while (node != SIZE_MAX && hp_heap_kind(h, node) == HP_OBJ_INSTANCE && walked++ < HP_SYSPROPS_MAX_NODES) {
			struct hp_objdata d;
			if ((rc = hp_objread_decode(rd, node, 0, &d, err)))
				goto out;
			const struct hp_objval *kv = hp_objread_field(rd, &d, "key", NULL);
			const struct hp_objval *vv = hp_objread_field(rd, &d, "val", NULL);
			if (!vv)
				vv = hp_objread_field(rd, &d, "value", NULL);
			const struct hp_objval *nx = hp_objread_field(rd, &d, "next", NULL);
			size_t ko = kv && kv->type == HP_T_OBJECT && kv->bits ? hp_heap_find(h, kv->bits) : SIZE_MAX;
			size_t vo = vv && vv->type == HP_T_OBJECT && vv->bits ? hp_heap_find(h, vv->bits) : SIZE_MAX;
			size_t next = nx && nx->type == HP_T_OBJECT && nx->bits ? hp_heap_find(h, nx->bits) : SIZE_MAX;
			hp_objread_release(&d);
			char *key = text_of(rd, h, ko, err, &rc);
			if (rc)
				goto out;
			for (size_t i = 0; key && i < n; i++) {
				if (values[i] || strcmp(key, keys[i]))
					continue;
				values[i] = text_of(rd, h, vo, err, &rc);
				if (rc) {
					hp_free(key);
					goto out;
				}
				found++;
			}
			hp_free(key);
			node = next;
		}
	}
out:
	hp_objread_release(&t);
	if (rc)
		for (size_t i = 0; i < n; i++) {
			hp_free(values[i]);
			values[i] = NULL;
		}
	return rc;
}
