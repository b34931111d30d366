/* load.c — sessions for the commands: the table of what the CLI keeps per
 * session, a session opened under the common options (its progress line,
 * its index's place, its spool's directory, --mapping read once), its
 * index written and its close.  The getters and their errors are in
 * load_errors.c, the progress line in load_progress.c, the index's place
 * in load_place.c, the memory budget and --max-memory's report in
 * load_memory.c, --stats in load_stats.c. */
#include "cli/load_state.h"
#include "cli/command.h"
#include "cli/msg.h"

#include "session/index.h"
#include "base/text.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the entries, allocated as sessions open (an entry is some 9 KiB: a
 * table of them all would be 2.3 MiB of zeros every run maps, and a leak
 * checker scans) */
static struct cli_sess *sessions[MAX_SESSIONS];

struct cli_sess *cli_sess_of(const hp_session *S)
{
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i] && sessions[i]->s == S)
			return sessions[i];
	return NULL;
}

/* cs's slot emptied */
static void sess_release(struct cli_sess *cs)
{
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i] == cs) {
			hp_free(cs);
			sessions[i] = NULL;
			return;
		}
}

void cli_progress_stop(hp_session *S)
{
	struct cli_sess *cs = cli_sess_of(S);
	if (cs)
		cli_progress_end(&cs->p);
}

/* ---- --mapping ---------------------------------------------------------- */

/* read once, for every dump of the command */
static hp_mapping *mapping;
static const char *mapping_file;

const char *cli_mapping_file(void) { return mapping_file; }

static void mapping_free(void)
{
	hp_mapping_free(mapping);
}

/* "FILE:LINE: what" for a bad line, as --components FILE says */
static int mapping_load(const char *file)
{
	if (mapping)
		return EXIT_OK;
	struct hp_error err;
	hp_error_clear(&err);
	size_t line;
	int rc = hp_mapping_read(&mapping, file, &line, &err);
	if (rc == HP_ENOMEM) {
		if (!cli_limit_hit(file))
			cli_error("--mapping %s: out of memory", file);
		return EXIT_NOMEM;
	}
	if (rc && line) {
		cli_error("%s:%zu: %s", file, line, err.msg);
		return EXIT_USAGE;
	}
	if (rc) {
		cli_error("--mapping %s: %s", file, err.msg);
		return EXIT_USAGE;
	}
	mapping_file = file;
	atexit(mapping_free);
	return EXIT_OK;
}

/* the mapping named nothing of the dump: say so once */
void cli_mapping_note(hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	struct cli_sess *cs = cli_sess_of(S);
	const struct hp_mapping_stats *M = &L->mapped;
	if (!mapping || !cs || cs->map_warned || M->classes || M->fields || M->frames)
		return;
	cs->map_warned = 1;
	cli_warn("--mapping %s: no class, field or stack frame of %s is in it (a mapping of another build?); "
		 "names are as in the dump", mapping_file, hp_session_path(S));
}

/* ---- sessions --------------------------------------------------------- */

static int keep_open;

void cli_sessions_keep(int on) { keep_open = on; }

void cli_sessions_free(void)
{
	for (int i = 0; i < MAX_SESSIONS; i++)
		if (sessions[i] && sessions[i]->s && sessions[i]->kept) {
			hp_session_free(sessions[i]->s);
			sess_release(sessions[i]);
		}
}

void cli_sessions_prepare(void)
{
	for (int i = 0; i < MAX_SESSIONS; i++) {
		const struct cli_sess *k = sessions[i];
		hp_session *S = k ? k->s : NULL;
		if (!S || !k->kept || k->in_use)
			continue;
		const struct hp_retained *R;
		const uint32_t *off, *objs;
		struct hp_error err;
		hp_error_clear(&err);
		/* (a failure is said by the first call that asks) */
		if (hp_session_retained(S, &R, &err) == HP_OK && hp_session_by_class(S, &off, &objs, &err) == HP_OK)
			hp_error_clear(&err);
		cli_progress_stop(S);
	}
}

static int same_opts(const struct hp_session_opts *a, const struct hp_session_opts *b)
{
	return a->size_kind == b->size_kind && a->ref_size == b->ref_size && a->header_size == b->header_size &&
	       a->align == b->align && a->dump_index == b->dump_index && a->salvage == b->salvage &&
	       a->weak == b->weak && a->roots == b->roots && a->need_dump == b->need_dump &&
	       a->mapping == b->mapping && a->index_any_policy == b->index_any_policy &&
	       !a->index_path == !b->index_path && (!a->index_path || !strcmp(a->index_path, b->index_path)) &&
	       !strcmp(a->spool_dir, b->spool_dir);
}

/* the same file still: a regular file not replaced nor changed since */
static int same_file(const struct cli_sess *k, const struct stat *st, int st_ok)
{
	if (!k->st_ok || !st_ok)
		return k->st_ok == st_ok;
	if (k->st.st_dev != st->st_dev || k->st.st_ino != st->st_ino)
		return 0;
	return !S_ISREG(st->st_mode) || (k->st.st_size == st->st_size &&
					  k->st.st_mtim.tv_sec == st->st_mtim.tv_sec &&
					  k->st.st_mtim.tv_nsec == st->st_mtim.tv_nsec);
}

/* the session kept for file under so (cs: the entry being filled, its
 * index and spool in so), or NULL; one kept for a file since changed is
 * freed */
static struct cli_sess *kept_session(const struct cli_sess *cs, const char *file,
				     const struct hp_session_opts *so, const struct stat *st, int st_ok)
{
	for (int i = 0; i < MAX_SESSIONS; i++) {
		struct cli_sess *k = sessions[i];
		if (!k || k == cs || !k->s || !k->kept || k->in_use || strcmp(hp_session_path(k->s), file))
			continue;
		struct hp_session_opts a = k->so, b = *so;
		a.index_path = k->index[0] ? k->index : NULL;
		b.index_path = cs->index[0] ? cs->index : NULL;
		a.spool_dir = k->spool;
		b.spool_dir = cs->spool;
		if (!same_opts(&a, &b))
			continue;
		if (!same_file(k, st, st_ok)) {
			hp_session_free(k->s);
			sess_release(k);
			continue;
		}
		return k;
	}
	return NULL;
}

int cli_session(struct cli_ctx *x, const char *file, hp_session **S)
{
	struct hp_session_opts so;
	hp_session_opts_init(&so);
	const struct cli_common *c = x->c;
	so.size_kind = c->size_kind;
	so.ref_size = c->ref_size;
	so.header_size = c->header_size;
	so.align = c->align;
	so.dump_index = c->dump_index;
	so.salvage = c->salvage;
	so.weak = c->weak;
	so.roots = c->roots;
	if (c->mapping) {
		int rc = mapping_load(c->mapping);
		if (rc)
			return rc;
		so.mapping = mapping;
	}
	/* info describes any HPROF file; every other command needs a heap dump */
	so.need_dump = strcmp(x->cmd->name, "info") != 0;
	if (!strcmp(x->cmd->name, "sites"))
		so.need_dump = 2;            /* the agent's tables without a heap dump */
	int slot = 0;
	while (slot < MAX_SESSIONS && sessions[slot] && sessions[slot]->s)
		slot++;
	if (slot == MAX_SESSIONS) {
		cli_error("%s: too many dumps at once (at most %d)", file, MAX_SESSIONS);
		return EXIT_USAGE;
	}
	if (!sessions[slot] && !(sessions[slot] = hp_malloc(sizeof *sessions[slot]))) {
		cli_error("%s: out of memory", file);
		return EXIT_NOMEM;
	}
	struct cli_sess *cs = sessions[slot];
	memset(cs, 0, sizeof *cs);
	cs->p.enabled = !c->quiet && isatty(2);
	cs->p.name = hp_text_safe(file, cs->name, sizeof cs->name);
	cs->c = c;
	cs->need_dump = so.need_dump;
	so.progress = cli_progress_cb;
	so.progress_ud = &cs->p;
	/* the index: not under a memory limit (the limit is about building
	 * the model), not under --mapping (the names it puts back are in the
	 * model: an index written so would show them to runs without it, and
	 * a mapped model is not renamed), not when told so */
	const char *off = getenv("HPROFAN_NO_INDEX");
	char note[3 * PATH_MAX];
	note[0] = '\0';
	if (!c->no_index && !c->max_memory && !c->mapping && !(off && *off && strcmp(off, "0") != 0) &&
	    cli_index_place(file, c->index_dir, cs->index, sizeof cs->index, note, sizeof note) == 0)
		so.index_path = cs->index;
	else
		cs->index[0] = '\0';
	if (note[0])
		cli_error("%s", note);
	so.index_any_policy = strcmp(x->cmd->name, "index") == 0;   /* hprofan index --weak=...: as asked */
	/* a gzip dump's inflated bytes and a pipe's are kept for the passes
	 * after the first: in $TMPDIR, else beside the index, else in /tmp */
	const char *tmp = getenv("TMPDIR");
	if (tmp && *tmp)
		snprintf(cs->spool, sizeof cs->spool, "%s", tmp);
	else if (cs->index[0] && strrchr(cs->index, '/'))
		snprintf(cs->spool, sizeof cs->spool, "%.*s", (int)(strrchr(cs->index, '/') - cs->index), cs->index);
	else
		snprintf(cs->spool, sizeof cs->spool, "/tmp");
	if (!cs->spool[0])
		snprintf(cs->spool, sizeof cs->spool, "/");
	so.spool_dir = cs->spool;
	struct stat st;
	int st_ok = 0;
	if (keep_open) {
		st_ok = stat(file, &st) == 0;
		struct cli_sess *k = kept_session(cs, file, &so, &st, st_ok);
		if (k) {
			k->c = c;
			k->in_use = 1;
			k->warned = k->map_warned = k->spool_warned = k->untrusted_said = 0;
			sess_release(cs);
			*S = k->s;
			return EXIT_OK;
		}
	}
	struct hp_error err;
	hp_error_clear(&err);
	if (hp_session_open(S, file, &so, &err)) {
		sess_release(cs);
		cli_error("%s: out of memory", file);
		return EXIT_NOMEM;
	}
	cs->s = *S;
	if (keep_open) {
		cs->kept = cs->in_use = 1;
		cs->so = so;
		cs->st = st;
		cs->st_ok = st_ok;
	}
	return EXIT_OK;
}

int cli_session_write_index(hp_session *S, uint64_t *bytes)
{
	struct cli_sess *cs = cli_sess_of(S);
	const char *why, *what = NULL;
	if (cs && cs->index[0] && !cs->untrusted_said && hp_session_index_state(S, &why) == HP_INDEX_UNTRUSTED) {
		/* (it was trusted when placed: changed since) */
		cli_error("index %s is not trusted (%s): not used", cs->index, why);
		cs->untrusted_said = 1;
	}
	if (!cs || !cs->index[0] || !hp_session_index_pending(S))
		return 0;
	switch (hp_session_index_state(S, &why)) {
	case HP_INDEX_STALE: what = "stale"; break;
	case HP_INDEX_VERSION_MISMATCH: what = "of another version"; break;
	case HP_INDEX_TRUNCATED: what = "truncated"; break;
	case HP_INDEX_CORRUPT: what = "corrupt"; break;
	case HP_INDEX_IOERR: what = "unreadable"; break;
	default: break;
	}
	if (what)
		cli_error("index %s is %s (%s): rebuilding", cs->index, what, why);
	struct hp_error err;
	hp_error_clear(&err);
	uint64_t b = 0;
	if (hp_session_write_index(S, &b, &err) != HP_OK) {
		cli_warn("%s: no index written: %s", hp_session_path(S), err.msg);
		return 0;
	}
	if (bytes)
		*bytes = b;
	return 1;
}

void cli_session_close(hp_session *S)
{
	struct cli_sess *cs = cli_sess_of(S);
	if (cs) {
		cli_progress_end(&cs->p);
		cli_session_write_index(S, NULL);
		if (cs->kept) {
			cs->in_use = 0;
			return;
		}
		sess_release(cs);
	}
	hp_session_free(S);
}
