/* output.c — where results go: tables built in memory and written at once
 * (to -o FILE atomically, else to standard output), and JSON documents. */
#include "cli/output.h"
#include "base/dir.h"
#include "cli/command.h"
#include "cli/msg.h"
#include "cli/format.h"
#include "cli/load.h"
#include "base/text.h"
#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_write_all(int fd, const void *p, size_t n)
{
	const char *b = p;
	while (n) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Output files (-o FILE, redact's OUT and --mapping-out, bitmaps' --out
 * files).  A regular file (or none yet) is replaced atomically: the bytes
 * go to a temporary file made new (O_CREAT|O_EXCL|O_NOFOLLOW) in the
 * directory that holds the name, relative to that directory opened once,
 * and are renamed over the name within it at the end (renameat: a link
 * swapped in meanwhile is replaced, not followed), with the mode the file
 * had if it was ours (else 0666 less the umask, as the shell's > would
 * make it); until then the old file is untouched, and a failed run
 * removes the temporary file.  A FIFO, a device or a socket is opened and
 * written as it is (renaming over /dev/null would replace the device with
 * a file).  "-" is standard output.
 *
 * A symbolic link that -o FILE names is written through (its target is
 * replaced, the link stays): it is read one link at a time, each relative
 * to the directory holding it, but never in a directory where another
 * user can plant or swap a name: sticky (as /tmp), writable by others, or
 * owned by someone who is neither the user nor root.  The kernel's
 * protected_symlinks refuses to follow another user's link in a sticky
 * directory; resolving the link here (realpath) would bypass it and let
 * whoever can write the directory choose the file replaced, so such a
 * link is refused.  Files a command makes inside a directory
 * (cli_ofile_create()) follow no link at all.
 */

#define MAX_LINKS 40              /* as the kernel's ELOOP */

/* 1 when another user can plant, swap or own a name in the directory */
static int shared_dir(int dir)
{
	struct stat d;
	if (fstat(dir, &d) != 0)
		return 1;
	return (d.st_mode & (S_ISVTX | S_IWOTH)) || (d.st_uid != geteuid() && d.st_uid != 0);
}

/* the text of the link name in dir (hp_free()), or NULL and errno */
static char *read_link(int dir, const char *name)
{
	for (size_t cap = 256; cap <= 65536; cap *= 2) {
		char *t = hp_malloc(cap);
		if (!t) {
			errno = ENOMEM;
			return NULL;
		}
		ssize_t k = readlinkat(dir, name, t, cap);
		if (k < 0) {
			int e = errno;
			hp_free(t);
			errno = e;
			return NULL;
		}
		if ((size_t)k < cap) {
			t[k] = '\0';
			if (!k) {
				hp_free(t);
				errno = ENOENT;
				return NULL;
			}
			return t;
		}
		hp_free(t);
	}
	errno = ENAMETOOLONG;
	return NULL;
}

static mode_t umask_now(void)
{
	mode_t mask = umask(0);
	umask(mask);
	return mask;
}

/* NAME.tmp.XXXXXX made new in dir (which o owns from here on) for a file
 * to be renamed to name at commit */
static int begin_tmp(struct cli_ofile *o, int dir, const char *name, unsigned mode)
{
	static uint64_t seq;
	size_t n = strlen(name) + 16;
	o->mode = mode;
	if (!(o->target = hp_strdup(name))) {
		close(dir);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	o->dir = dir;                 /* open while o->target is set */
	if (!(o->tmp = hp_malloc(n))) {
		cli_ofile_abort(o);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	/* the suffix needs to be unlikely, not secret: O_EXCL makes a name
	 * someone else made first a retry, never a file shared with them */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t x = (uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^ (uint64_t)getpid() << 40;
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	for (int tries = 0; tries < 100; tries++) {
		uint64_t z = x + ++seq * 0x9e3779b97f4a7c15ULL;
		z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ z >> 27) * 0x94d049bb133111ebULL;
		z ^= z >> 31;
		char sfx[7];
		for (int i = 0; i < 6; i++, z /= 62)
			sfx[i] = digits[z % 62];
		sfx[6] = '\0';
		snprintf(o->tmp, n, "%s.tmp.%s", name, sfx);
		o->fd = openat(dir, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);
		if (o->fd >= 0 || errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		cli_error("cannot create a temporary file beside %s: %s", o->path, strerror(errno));
		hp_free(o->tmp);
		o->tmp = NULL;
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	return EXIT_OK;
}

static void ofile_init(struct cli_ofile *o, const char *path)
{
	memset(o, 0, sizeof *o);
	o->fd = -1;
	o->dir = -1;
	o->path = path;
}

int cli_ofile_open(struct cli_ofile *o, const char *path)
{
	ofile_init(o, path);
	if (!strcmp(path, "-")) {
		o->fd = 1;
		o->direct = 1;
		return EXIT_OK;
	}
	char *name = NULL;            /* the link text base points into, after the first link */
	const char *base;
	int dir = hp_open_parent(AT_FDCWD, path, &base);
	struct stat st;
	int exists = 0, follow = 0;
	for (int hops = 0; dir >= 0; hops++) {
		if (fstatat(dir, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT)
				goto fail;
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			exists = 1;
			break;
		}
		if (shared_dir(dir)) {
			if (!name)
				cli_error("cannot write %s: it is a symbolic link in a directory others can write (sticky, "
					  "writable by others, or another user's), and -o follows no link there: name its target",
					  path);
			else
				cli_error("cannot write %s: it leads to %s, a symbolic link in a directory others can write "
					  "(sticky, writable by others, or another user's), and -o follows no link there: name its target",
					  path, name);
			goto out;
		}
		if (hops == MAX_LINKS) {
			errno = ELOOP;
			goto fail;
		}
		struct stat t;
		if (fstatat(dir, base, &t, 0) == 0 && !S_ISREG(t.st_mode) && !S_ISDIR(t.st_mode)) {
			/* a link to a FIFO or a device (/dev/stdout): written in
			 * place, the kernel following the link */
			st = t;
			exists = follow = 1;
			break;
		}
		char *text = read_link(dir, base);
		if (!text)
			goto fail;
		int next = hp_open_parent(dir, text, &base);
		int e = errno;
		close(dir);
		hp_free(name);
		name = text;
		dir = next;
		errno = e;
	}
	if (dir < 0)
		goto fail;
	if (exists && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto fail;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		int fd = openat(dir, base, O_WRONLY | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
		if (fd < 0)
			goto fail;
		struct stat f;
		if (fstat(fd, &f) != 0 || S_ISREG(f.st_mode)) {
			close(fd);
			cli_error("cannot write %s: it changed from a FIFO or device into a file while being opened", path);
			goto out;
		}
		close(dir);
		hp_free(name);
		o->fd = fd;
		o->direct = 1;
		return EXIT_OK;
	}
	unsigned mode = exists && st.st_uid == geteuid() ? (unsigned)(st.st_mode & 0777) : (unsigned)(0666 & ~umask_now());
	int rc = begin_tmp(o, dir, base, mode);
	hp_free(name);
	return rc;
fail:
	cli_error("cannot write %s: %s", path, strerror(errno));
out:
	if (dir >= 0)
		close(dir);
	hp_free(name);
	return EXIT_BAD;
}

int cli_ofile_create(struct cli_ofile *o, int dir, const char *name, const char *path)
{
	ofile_init(o, path);
	struct stat st;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			cli_error("cannot write %s: a symbolic link is there, and hprofan follows none in a directory it "
				  "writes files into", path);
			return EXIT_BAD;
		}
		if (!S_ISREG(st.st_mode)) {
			cli_error("cannot write %s: it is not a regular file", path);
			return EXIT_BAD;
		}
	} else if (errno != ENOENT) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		return EXIT_BAD;
	}
	int d = fcntl(dir, F_DUPFD_CLOEXEC, 0);
	if (d < 0) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		return EXIT_BAD;
	}
	return begin_tmp(o, d, name, (unsigned)(0666 & ~umask_now()));
}

int cli_ofile_commit(struct cli_ofile *o)
{
	int ok = 1;
	if (o->fd == 1 && o->direct) {
		o->fd = -1;
		cli_ofile_abort(o);
		return EXIT_OK;
	}
	if (o->tmp) {
		if (fsync(o->fd) != 0 && errno != EINVAL)
			ok = 0;
		if (ok && fchmod(o->fd, o->mode) != 0)
			ok = 0;
	}
	if (close(o->fd) != 0)
		ok = 0;
	o->fd = -1;
	if (ok && o->tmp && renameat(o->dir, o->tmp, o->dir, o->target) != 0)
		ok = 0;
	if (!ok) {
		cli_error("cannot write %s: %s", o->path, strerror(errno));
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	hp_free(o->tmp);
	o->tmp = NULL;
	cli_ofile_abort(o);
	return EXIT_OK;
}

void cli_ofile_abort(struct cli_ofile *o)
{
	if (o->fd >= 0 && o->fd != 1)
		close(o->fd);
	o->fd = -1;
	if (o->target) {
		if (o->tmp)
			unlinkat(o->dir, o->tmp, 0);
		close(o->dir);
	}
	o->dir = -1;
	hp_free(o->tmp);
	hp_free(o->target);
	o->tmp = o->target = NULL;
}

/* -o FILE: the text, atomically (cli_ofile_open), or standard output */
int cli_write_output(const struct cli_ctx *x, const char *text)
{
	const char *path = x->c->output;
	size_t len = strlen(text);
	if (!path || strcmp(path, "-") == 0) {
		if (fputs(text, stdout) == EOF || fflush(stdout) == EOF) {
			cli_error("cannot write to standard output: %s", strerror(errno));
			return EXIT_BAD;
		}
		return EXIT_OK;
	}
	struct cli_ofile o;
	int rc = cli_ofile_open(&o, path);
	if (rc)
		return rc;
	if (cli_write_all(o.fd, text, len) != 0) {
		cli_error("cannot write %s: %s", path, strerror(errno));
		cli_ofile_abort(&o);
		return EXIT_BAD;
	}
	return cli_ofile_commit(&o);
}

FILE *cli_text_begin(struct cli_out *o)
{
	memset(o, 0, sizeof *o);
	o->f = open_memstream(&o->buf, &o->len);
	if (!o->f)
		cli_error("out of memory");
	return o->f;
}

int cli_text_end(const struct cli_ctx *x, struct cli_out *o, int rc)
{
	if (o->f && fclose(o->f) != 0 && rc == EXIT_OK) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
	}
	o->f = NULL;
	if (rc == EXIT_OK && !o->buf) {
		cli_error("out of memory");
		rc = EXIT_NOMEM;
	}
	if (rc == EXIT_OK)
		rc = cli_write_output(x, o->buf);
	free(o->buf);
	o->buf = NULL;
	return rc;
}

char *cli_json_text(const cJSON *doc, int pretty, size_t *len)
{
	char *s = pretty ? cJSON_Print(doc) : cJSON_PrintUnformatted(doc);
	if (!s) {
		cli_error("out of memory printing JSON");
		return NULL;
	}
	size_t n = strlen(s);
	char *t = hp_malloc(hp_text_json_clean(s, n, NULL) + 2);
	if (!t) {
		cJSON_free(s);
		cli_error("out of memory");
		return NULL;
	}
	n = hp_text_json_clean(s, n, t);
	cJSON_free(s);
	if (pretty)
		t[n++] = '\n';
	t[n] = '\0';
	if (len)
		*len = n;
	return t;
}

int cli_json_end(const struct cli_ctx *x, cJSON *doc, int rc)
{
	if (rc != EXIT_OK) {
		cJSON_Delete(doc);
		return rc;
	}
	if (!doc) {
		cli_error("out of memory building JSON");
		return EXIT_NOMEM;
	}
	char *t = cli_json_text(doc, 1, NULL);
	cJSON_Delete(doc);
	if (!t)
		return EXIT_NOMEM;
	rc = cli_write_output(x, t);
	hp_free(t);
	return rc;
}

/* ---- JSON ------------------------------------------------------------- */

cJSON *cli_json_u64_item(uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	return cJSON_CreateRaw(b);
}

void cli_json_u64(cJSON *obj, const char *key, uint64_t v)
{
	cJSON_AddItemToObject(obj, key, cli_json_u64_item(v));
}

static const char *source_name(int s)
{
	return s == 2 ? "option" : s == 1 ? "inferred" : "default";
}

cJSON *cli_json_size_model(const hp_heap *h)
{
	const struct hp_size_model *m = &h->size;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", hp_size_kind_name(m->kind));
	cli_json_u64(j, "id_size", m->id_size);
	cli_json_u64(j, "ref_size", m->ref_size);
	cJSON_AddStringToObject(j, "ref_size_source", source_name(m->ref_source));
	cli_json_u64(j, "header", m->header);
	cJSON_AddStringToObject(j, "header_source", source_name(m->header_source));
	cli_json_u64(j, "array_header", m->array_header);
	cli_json_u64(j, "align", m->align);
	cJSON_AddStringToObject(j, "align_source", source_name(m->align_source));
	cli_json_u64(j, "id_gcd", m->gcd);
	if (m->compressed_evidence)
		cli_json_u64(j, "compressed_refs_evidence_offset", m->compressed_evidence);
	if (m->kind == HP_SIZE_AHAT)
		cli_json_u64(j, "class_instance_size", m->class_instance_size);
	return j;
}

void cli_json_dump_members(cJSON *j, const char *file, hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	cJSON_AddStringToObject(j, "file", file);
	cJSON_AddStringToObject(j, "format", L->stats.header.format);
	cli_json_u64(j, "id_size", L->stats.header.id_size);
	cJSON_AddBoolToObject(j, "partial", L->partial);
	if (L->partial) {
		char msg[1024];
		cli_format_error(file, &L->partial_err, msg, sizeof msg);
		cJSON_AddStringToObject(j, "partial_reason", msg);
	}
	cJSON *m = cli_json_mapping(S);
	if (m)
		cJSON_AddItemToObject(j, "mapping", m);
}

cJSON *cli_json_mapping(hp_session *S)
{
	const char *file = cli_mapping_file();
	if (!file)
		return NULL;
	const struct hp_mapping_stats *M = &hp_session_load_info(S)->mapped;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "file", file);
	cli_json_u64(m, "classes", M->classes);
	cli_json_u64(m, "fields", M->fields);
	cli_json_u64(m, "frames", M->frames);
	return m;
}

cJSON *cli_json_begin(const struct cli_ctx *x, const char *file, hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "schema", HP_SCHEMA);
	cJSON_AddStringToObject(j, "command", x->cmd->name);
	cli_json_dump_members(j, file, S);
	if (x->c->dump_index < 0)
		cJSON_AddBoolToObject(j, "dump_all", 1);   /* --dump all: every heap dump, merged */
	else if (L->stats.parsed_dump >= 0)
		cli_json_u64(j, "dump", (uint64_t)L->stats.parsed_dump);
	return j;
}

cJSON *cli_json_begin_heap(const struct cli_ctx *x, hp_session *S, const hp_heap *h, const struct hp_retained *R)
{
	cJSON *j = cli_json_begin(x, hp_session_path(S), S);
	cJSON_AddItemToObject(j, "size_model", cli_json_size_model(h));
	if (R)
		cli_json_policies(j, R);
	return j;
}

const char *cli_roots_policy_name(int p)
{
	return p == HP_ROOTS_ALL ? "all" : p == HP_ROOTS_UNREACHABLE ? "unreachable-as-roots" : "threads";
}

void cli_json_policies(cJSON *j, const struct hp_retained *R)
{
	cJSON_AddStringToObject(j, "weak_policy", hp_weak_policy_name(R->weak));
	cJSON_AddStringToObject(j, "roots_policy", cli_roots_policy_name(R->roots_policy));
}

/* ---- native sizes and the heaps' split (top, info, dominators, ...) ----- */

static const char *split_heap_name(const hp_heap *h, unsigned i)
{
	const char *n = i < h->nheaps ? hp_heap_name(h, i) : "";
	return n[0] ? n : "default";
}

void cli_text_heap_split(FILE *f, const hp_heap *h, const struct hp_native *N, int heap)
{
	if (!N || !N->split_done)
		return;
	char a[32], b[32], c[32], d[32], nm[256];
	for (unsigned i = 0; i < HP_MAX_HEAPS; i++) {
		const struct hp_native_heap *s = &N->heaps[i];
		if ((!s->java && !s->native) || (heap >= 0 && (unsigned)heap != i))
			continue;
		fprintf(f, "heap %s: Java %s, native %s; held by GC roots: Java %s, native %s\n",
			hp_text_safe(split_heap_name(h, i), nm, sizeof nm), cli_fmt_bytes(s->java, a, sizeof a),
			cli_fmt_bytes(s->native, b, sizeof b), cli_fmt_bytes(s->held_java, c, sizeof c),
			cli_fmt_bytes(s->held_native, d, sizeof d));
	}
}

void cli_json_native(cJSON *j, const hp_heap *h, const struct hp_native *N)
{
	if (!N || !(hp_heap_android(h) || N->has_registry || N->shallow))
		return;
	cJSON *o = cJSON_AddObjectToObject(j, "native");
	cli_json_u64(o, "total", N->total);
	cli_json_u64(o, "cleaners", N->cleaners);
	cli_json_u64(o, "registered", N->registered);
	cli_json_u64(o, "owners", N->owners);
	if (N->retained)
		cli_json_u64(o, "reachable", N->held_native);
	if (N->why_none)
		cJSON_AddStringToObject(o, "none_because", N->why_none);
}

void cli_json_heap_split(cJSON *j, const hp_heap *h, const struct hp_native *N, int heap)
{
	if (!N || !N->split_done)
		return;
	cJSON *arr = cJSON_AddArrayToObject(j, "heap_split");
	for (unsigned i = 0; i < HP_MAX_HEAPS; i++) {
		const struct hp_native_heap *s = &N->heaps[i];
		if ((!s->java && !s->native) || (heap >= 0 && (unsigned)heap != i))
			continue;
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "heap", split_heap_name(h, i));
		cli_json_u64(e, "java", s->java);
		cli_json_u64(e, "native", s->native);
		cli_json_u64(e, "held_java", s->held_java);
		cli_json_u64(e, "held_native", s->held_native);
		cJSON_AddItemToArray(arr, e);
	}
}
