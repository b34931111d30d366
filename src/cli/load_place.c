/* load_place.c — where a dump's index goes: beside the dump, under
 * $HPROFAN_INDEX_DIR or in the user's cache, only where it may be trusted
 * (and the note when a place was passed over). */
#include "cli/load_state.h"

#include "session/index.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the index's place --------------------------------------------------- */

/* mkdir -p, the last directory private (the cache may say what dumps the
 * user looked at) */
static int make_dirs(const char *dir)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
		return -1;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0700) != 0 && errno != EEXIST)
		return -1;
	struct stat st;
	return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* a directory we may write to: access() says so and so do its mode bits
 * (which root's access() ignores: a read-only corpus stays untouched) */
int cli_dir_writable(const char *dir)
{
	struct stat st;
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0222) && access(dir, W_OK) == 0;
}

/* the index named name in the user's cache ($XDG_CACHE_HOME/hprofan, else
 * ~/.cache/hprofan, made 0700), into out: 0 when it may be used there,
 * else -1 (why in why when the cache is not trusted) */
static int cache_place(const char *name, char *out, size_t n, char *why, size_t why_len)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char cache[PATH_MAX];
	int w;
	why[0] = '\0';
	if (xdg && *xdg == '/')
		w = snprintf(cache, sizeof cache, "%s/hprofan", xdg);
	else if (home && *home)
		w = snprintf(cache, sizeof cache, "%s/.cache/hprofan", home);
	else
		return -1;
	if (w <= 0 || (size_t)w >= sizeof cache || make_dirs(cache) != 0 ||
	    (w = snprintf(out, n, "%s/%s", cache, name)) <= 0 || (size_t)w >= n)
		return -1;
	int t = hp_index_place(out, NULL, why, why_len);
	return t == HP_INDEX_OK || t == HP_INDEX_MISSING ? 0 : -1;
}

/* Where the index of file goes, into out: in dir_opt (--index-dir) when
 * given, else in $HPROFAN_INDEX_DIR when set, else beside the dump when its directory is writable, else in the user's
 * cache; but only where it may be trusted (hp_index_place(): the user's or
 * root's, and no one else can write it), else in the cache.  note (when
 * not NULL) gets a line to say so when a place was passed over: always for
 * --index-dir and $HPROFAN_INDEX_DIR, which the user chose, beside the dump only when
 * something is there (a dump in a directory others can write has its
 * index in the cache without a word).  0, or -1: no index. */
int cli_index_place(const char *file, const char *dir_opt, char *out, size_t n, char *note, size_t note_len)
{
	if (note)
		note[0] = '\0';
	struct stat st;
	if (strcmp(file, "-") == 0 || stat(file, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	char *abs = realpath(file, NULL);
	if (!abs)
		return -1;
	/* the name in a shared directory: the dump's, and a hash of its
	 * absolute path (FNV-1a) so that two a.hprof do not meet */
	uint64_t hsh = 0xcbf29ce484222325ull;
	for (const char *p = abs; *p; p++)
		hsh = (hsh ^ (unsigned char)*p) * 0x100000001b3ull;
	const char *slash = strrchr(abs, '/');
	const char *base = slash ? slash + 1 : abs;
	char dir[PATH_MAX], name[NAME_MAX + 64], first[PATH_MAX + 64], why[256], cwhy[256];
	snprintf(dir, sizeof dir, "%.*s", slash && slash != abs ? (int)(slash - abs) : 1, abs);
	snprintf(name, sizeof name, "%s.%016llx.hprofan-index", base, (unsigned long long)hsh);
	const char *env = dir_opt && *dir_opt ? dir_opt : getenv("HPROFAN_INDEX_DIR");
	int w, exists = 0, chosen = 0;
	first[0] = '\0';
	if (env && *env) {
		chosen = 1;
		if (make_dirs(env) != 0 || (w = snprintf(first, sizeof first, "%s/%s", env, name)) <= 0 ||
		    (size_t)w >= sizeof first) {
			free(abs);
			return -1;   /* (no place: none, rather than one the user did not choose) */
		}
	} else if (cli_dir_writable(dir)) {
		if ((w = snprintf(first, sizeof first, "%s.hprofan-index", abs)) <= 0 || (size_t)w >= sizeof first)
			first[0] = '\0';
	}
	free(abs);
	int t = HP_INDEX_MISSING;
	if (first[0]) {
		t = hp_index_place(first, &exists, why, sizeof why);
		if (t == HP_INDEX_OK || t == HP_INDEX_MISSING)
			return (size_t)snprintf(out, n, "%s", first) < n ? 0 : -1;
	}
	int rc = cache_place(name, out, n, cwhy, sizeof cwhy);
	if (!note)
		return rc;
	const char *what = t == HP_INDEX_UNTRUSTED ? "not trusted" : "unreadable";
	if (first[0] && (chosen || exists)) {
		if (!rc)
			snprintf(note, note_len, "index %s is %s (%s): using %s", first, what, why, out);
		else
			snprintf(note, note_len, "index %s is %s (%s): no index%s%s", first, what, why,
				 cwhy[0] ? ", nor the cache's: " : "", cwhy);
	} else if (rc && cwhy[0]) {
		snprintf(note, note_len, "index %s is not trusted (%s): no index", out, cwhy);
	}
	return rc;
}

int cli_index_path(const char *file, const char *dir_opt, char *out, size_t n)
{
	return cli_index_place(file, dir_opt, out, n, NULL, 0);
}
