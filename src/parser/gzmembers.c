/*
 * gzmembers.c — hp_gzm (gzmembers.h): two threads inflate a jcmd -gz
 * file's members ahead into a ring of four slots; the reader's thread
 * takes them in order.
 *
 * Slots hold members by sequence number, slot seq % NSLOT.  A thread
 * claims the next sequence number while fewer than NSLOT are held: its
 * member starts where the one before ended when that is known (inflated),
 * else at the next member header after that one's start (looked for in
 * the file, under the lock).  The taker checks that each member starts
 * where the one it took before ended; the first that does not, failed, or
 * is not there ends it all.  The threads own their slot from the claim to
 * its end (done or failed); the taker owns slot `take` once it is done,
 * until it frees it.
 */
#include "parser/gzmembers.h"
#include "parser/inflate.h"
#include "base/alloc.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#define NSLOT 4
#define NWORK 2
#define IN_CAP (256u << 10)

enum { S_FREE, S_BUSY, S_DONE, S_FAIL, S_NONE };

struct slot {
	uint64_t seq;               /* the member's sequence number; UINT64_MAX: none yet */
	int state;                  /* S_*; S_FREE after S_DONE: taken (at, end kept) */
	uint64_t at, end;           /* compressed: where it starts, where it ended */
	uint8_t *out;               /* block + 1 bytes: more than block is too large */
	size_t len;
};

struct worker {
	hp_gzm *g;
	pthread_t th;
	int started;
	hp_inflate *z;
	uint8_t *in;                /* IN_CAP bytes of the file */
};

struct hp_gzm {
	int fd;
	uint64_t size;
	size_t block;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct slot s[NSLOT];
	uint64_t first;             /* where member 0 starts */
	uint64_t claim, take;       /* the next to claim; the one being taken */
	size_t pos;                 /* bytes of it taken */
	int claim_end;              /* no more claims: a member failed or none is left */
	int stop;                   /* read without the lock by a thread that looks or inflates */
	int running;
	struct worker w[NWORK];
};

size_t hp_gzm_signature(const uint8_t *b, size_t n, size_t *block)
{
	static const char key[] = "HPROF BLOCKSIZE=";
	const size_t kl = sizeof key - 1;
	*block = 0;
	/* ID1 ID2 CM=8 FLG=FCOMMENT MTIME(4) XFL OS, then the comment */
	if (n < 10 + kl + 2 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8 || b[3] != 0x10 ||
	    b[4] || b[5] || b[6] || b[7] || memcmp(b + 10, key, kl) != 0)
		return 0;
	uint64_t v = 0;
	size_t i = 10 + kl;
	for (; i < n && i < HP_GZM_SIG_MAX && b[i] >= '0' && b[i] <= '9'; i++) {
		v = v * 10 + (uint64_t)(b[i] - '0');
		if (v > (4u << 20))
			return 0;
	}
	if (i == 10 + kl || i >= n || i >= HP_GZM_SIG_MAX || b[i] != 0 || v < (4u << 10))
		return 0;
	*block = (size_t)v;
	return i + 1;
}

static int stopped(hp_gzm *g)
{
	return __atomic_load_n(&g->stop, __ATOMIC_RELAXED);
}

static ssize_t pread_some(int fd, uint8_t *dst, size_t n, uint64_t off)
{
	for (;;) {
		ssize_t k = pread(fd, dst, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		return k;
	}
}

/* a member header as the VM writes them at p (HDR_LEN bytes): deflate,
 * no field but maybe a comment (the first members'), MTIME 0 */
#define HDR_LEN 8
static int is_header(const uint8_t *p)
{
	return p[0] == 0x1f && p[1] == 0x8b && p[2] == 8 && (p[3] == 0 || p[3] == 0x10) &&
	       !p[4] && !p[5] && !p[6] && !p[7];
}

/* where the first member header after `from` starts, looked for with the
 * worker's buffer; UINT64_MAX: none before the end */
static uint64_t find_header(struct worker *w, uint64_t from)
{
	hp_gzm *g = w->g;
	while (from < g->size && !stopped(g)) {
		ssize_t k = pread_some(g->fd, w->in, IN_CAP, from);
		if (k < HDR_LEN)
			break;
		const uint8_t *p = w->in, *e = w->in + k - (HDR_LEN - 1);
		while (p < e && (p = memchr(p, 0x1f, (size_t)(e - p))) != NULL) {
			if (is_header(p))
				return from + (uint64_t)(p - w->in);
			p++;
		}
		from += (uint64_t)k - (HDR_LEN - 1);
	}
	return UINT64_MAX;
}

/* Inflates the member at s->at whole into s->out: 1 when it ended (its
 * trailer checked) within the block, else 0. */
static int inflate_member(struct worker *w, struct slot *s)
{
	hp_gzm *g = w->g;
	hp_inflate *z = w->z;
	uint64_t pos = s->at;
	hp_inflate_reset(z);
	z->avail_in = 0;
	z->next_out = s->out;
	z->avail_out = g->block + 1;
	int eof = 0;
	for (;;) {
		if (stopped(g))
			return 0;
		if (z->avail_in == 0 && !eof) {
			ssize_t k = pread_some(g->fd, w->in, IN_CAP, pos);
			if (k < 0)
				return 0;         /* a read error: the reader says */
			eof = k == 0;         /* then what the inflater holds, if anything */
			z->next_in = w->in;
			z->avail_in = (size_t)k;
			pos += (uint64_t)k;
		}
		if (z->avail_out == 0)
			return 0;                 /* larger than a block */
		size_t before_out = z->avail_out;
		const char *why;
		int rc = hp_inflate_step(z, &why);
		if (rc == HP_INFLATE_END) {
			s->len = g->block + 1 - z->avail_out;
			s->end = pos - z->avail_in;
			return s->len <= g->block;
		}
		if (rc == HP_INFLATE_BAD || (eof && z->avail_out == before_out))
			return 0;                 /* corrupt, or cut short: the reader says */
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	hp_gzm *g = w->g;
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (!g->stop && !g->claim_end && g->claim >= g->take + NSLOT)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->stop || g->claim_end)
			break;
		uint64_t seq = g->claim, at = g->first;
		if (seq > 0) {
			const struct slot *p = &g->s[(seq - 1) % NSLOT];
			if (p->state == S_DONE || p->state == S_FREE)
				at = p->end;
			else if (p->state == S_BUSY)
				at = find_header(w, p->at + 1);
			else {
				g->claim_end = 1;
				break;
			}
		}
		struct slot *s = &g->s[seq % NSLOT];
		s->seq = seq;
		s->at = at;
		s->len = 0;
		g->claim++;
		if (at >= g->size) {
			s->state = S_NONE;
			g->claim_end = 1;
			pthread_cond_broadcast(&g->cv);
			break;
		}
		s->state = S_BUSY;
		pthread_mutex_unlock(&g->mu);
		int ok = inflate_member(w, s);
		pthread_mutex_lock(&g->mu);
		s->state = ok ? S_DONE : S_FAIL;
		if (!ok)
			g->claim_end = 1;
		pthread_cond_broadcast(&g->cv);
	}
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return NULL;
}
/* the buffers and the inflaters, and g */
static void free_all(struct hp_gzm *g)
{
	for (int i = 0; i < NSLOT; i++)
		hp_free(g->s[i].out);
	for (int i = 0; i < NWORK; i++) {
		hp_free(g->w[i].in);
		hp_inflate_free(g->w[i].z);
	}
	hp_free(g);
}


hp_gzm *hp_gzm_new(int fd, uint64_t file_size, size_t block, int kind)
{
	if (block == 0)
		return NULL;
	hp_gzm *g = hp_calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->fd = fd;
	g->size = file_size;
	g->block = block;
	for (int i = 0; i < NSLOT; i++) {
		g->s[i].seq = UINT64_MAX;
		if (!(g->s[i].out = hp_malloc(block + 1)))
			goto fail;
	}
	for (int i = 0; i < NWORK; i++) {
		struct hp_error err;
		g->w[i].g = g;
		if (!(g->w[i].in = hp_malloc(IN_CAP)) || hp_inflate_new(&g->w[i].z, kind, &err) != HP_OK)
			goto fail;
	}
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	return g;
fail:
	free_all(g);
	return NULL;
}

int hp_gzm_start(hp_gzm *g, uint64_t at)
{
	if (g->running || g->take)
		return 0;
	g->first = at;
	int n = 0;
	for (int i = 0; i < NWORK; i++)
		if (pthread_create(&g->w[i].th, NULL, work, &g->w[i]) == 0) {
			g->w[i].started = 1;
			n++;
		}
	g->running = 1;
	if (!n) {
		g->running = 0;
		return 0;
	}
	return 1;
}

int hp_gzm_take(hp_gzm *g, uint8_t *dst, size_t n, size_t *got, uint64_t *at, int *done)
{
	*got = 0;
	*done = 0;
	if (!g->running)
		return 0;
	struct slot *s = &g->s[g->take % NSLOT];
	pthread_mutex_lock(&g->mu);
	while (s->seq != g->take || s->state == S_BUSY) {
		if (g->claim_end && s->seq != g->take)
			break;                    /* never to be claimed */
		pthread_cond_wait(&g->cv, &g->mu);
	}
	int ok = s->seq == g->take && s->state == S_DONE && s->at == *at;
	pthread_mutex_unlock(&g->mu);
	if (!ok) {
		hp_gzm_stop(g);
		return 0;
	}
	size_t k = s->len - g->pos;
	if (k > n)
		k = n;
	memcpy(dst, s->out + g->pos, k);
	g->pos += k;
	*got = k;
	if (g->pos == s->len) {
		*at = s->end;
		*done = 1;
		g->pos = 0;
		pthread_mutex_lock(&g->mu);
		s->state = S_FREE;
		g->take++;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
	}
	return 1;
}

void hp_gzm_stop(hp_gzm *g)
{
	if (!g || !g->running)
		return;
	pthread_mutex_lock(&g->mu);
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	for (int i = 0; i < NWORK; i++)
		if (g->w[i].started) {
			pthread_join(g->w[i].th, NULL);
			g->w[i].started = 0;
		}
	g->running = 0;
}

void hp_gzm_free(hp_gzm *g)
{
	if (!g)
		return;
	hp_gzm_stop(g);
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free_all(g);
}
