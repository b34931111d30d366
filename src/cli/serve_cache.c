/* serve_cache.c — the answers of hprofan serve's /api (serve.h), kept by
 * command line.  The sessions do not change while the server runs, so the
 * same command line answers the same document: the first request for it
 * runs it in a worker, those asking for it meanwhile wait for that run, and
 * the later ones get the bytes kept.  The least recently used answers leave
 * when the kept bytes pass the bound.  A dump changed on disk empties it
 * (cmd_serve.c looks before each request). */
#include "cli/serve.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SLOTS 1024

struct entry {
	char *key;
	size_t klen;
	char *body;                   /* NULL while its run is under way */
	size_t len;
	uint64_t used;                /* the clock of its last use */
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t done;
	struct entry *e[CACHE_SLOTS];
	size_t bytes, max;
	uint64_t clock;
} C = { .mu = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER };

void serve_cache_init(size_t max_bytes) { C.max = max_bytes; }

static int find(const char *key, size_t klen)
{
	for (int i = 0; i < CACHE_SLOTS; i++)
		if (C.e[i] && C.e[i]->klen == klen && !memcmp(C.e[i]->key, key, klen))
			return i;
	return -1;
}

static void drop_at(int i)
{
	C.bytes -= C.e[i]->len + C.e[i]->klen;
	free(C.e[i]->key);
	free(C.e[i]->body);
	free(C.e[i]);
	C.e[i] = NULL;
}

/* a free slot, the least recently used answer's if need be; -1: all are runs under way */
static int slot(void)
{
	int lru = -1;
	for (int i = 0; i < CACHE_SLOTS; i++) {
		if (!C.e[i])
			return i;
		if (C.e[i]->body && (lru < 0 || C.e[i]->used < C.e[lru]->used))
			lru = i;
	}
	if (lru >= 0)
		drop_at(lru);
	return lru;
}

int serve_cache_get(const char *key, size_t klen, char **body, size_t *len)
{
	pthread_mutex_lock(&C.mu);
	for (;;) {
		int i = find(key, klen);
		if (i < 0)
			break;
		struct entry *e = C.e[i];
		if (!e->body) {               /* under way: wait for it */
			pthread_cond_wait(&C.done, &C.mu);
			continue;
		}
		e->used = ++C.clock;
		*body = malloc(e->len ? e->len : 1);
		if (*body)
			memcpy(*body, e->body, e->len);
		*len = e->len;
		pthread_mutex_unlock(&C.mu);
		return *body != NULL;
	}
	/* ours to run: the key reserved */
	int i = slot();
	struct entry *e = i < 0 ? NULL : calloc(1, sizeof *e);
	if (e && (e->key = malloc(klen ? klen : 1))) {
		memcpy(e->key, key, klen);
		e->klen = klen;
		e->used = ++C.clock;
		C.e[i] = e;
		C.bytes += klen;
	} else {
		free(e);
	}
	pthread_mutex_unlock(&C.mu);
	return 0;
}

void serve_cache_put(const char *key, size_t klen, const char *body, size_t len)
{
	pthread_mutex_lock(&C.mu);
	int i = find(key, klen);
	if (i >= 0 && !C.e[i]->body) {
		if (len + klen <= C.max / 4 && (C.e[i]->body = malloc(len ? len : 1))) {
			memcpy(C.e[i]->body, body, len);
			C.e[i]->len = len;
			C.bytes += len;
		} else {
			drop_at(i);           /* too big to keep (or no memory): the next request runs it */
		}
		while (C.bytes > C.max) {
			int lru = -1;
			for (int k = 0; k < CACHE_SLOTS; k++)
				if (C.e[k] && C.e[k]->body && (lru < 0 || C.e[k]->used < C.e[lru]->used))
					lru = k;
			if (lru < 0)
				break;
			drop_at(lru);
		}
	}
	pthread_cond_broadcast(&C.done);
	pthread_mutex_unlock(&C.mu);
}

void serve_cache_drop(const char *key, size_t klen)
{
	pthread_mutex_lock(&C.mu);
	int i = find(key, klen);
	if (i >= 0 && !C.e[i]->body)
		drop_at(i);
	pthread_cond_broadcast(&C.done);
	pthread_mutex_unlock(&C.mu);
}

void serve_cache_clear(void)
{
	pthread_mutex_lock(&C.mu);
	for (int i = 0; i < CACHE_SLOTS; i++)
		if (C.e[i] && C.e[i]->body)   /* (a run under way puts its answer; it is the changed dump's) */
			drop_at(i);
	pthread_mutex_unlock(&C.mu);
}

void serve_cache_free(void)
{
	pthread_mutex_lock(&C.mu);
	for (int i = 0; i < CACHE_SLOTS; i++)
		if (C.e[i])
			drop_at(i);
	pthread_mutex_unlock(&C.mu);
}
