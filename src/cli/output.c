/* output.c — where results go: tables built in memory and written at once
 * (to -o FILE atomically, else to standard output), and JSON documents. */
#include "cli/cli.h"
#include "cli/command.h"
#include "parser/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* all of text to fd; 0, or -1 with errno */
static int write_all(int fd, const char *text, size_t len)
{
	size_t off = 0;
	while (off < len) {
		ssize_t k = write(fd, text + off, len - off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)k;
	}
	return 0;
}

/*
 * Output files (-o FILE, redact's OUT).  A regular file (or none yet) is
 * replaced atomically: the bytes go to a temporary file beside it, renamed
 * over it at the end, with the mode the file had (a new one: 0666 less the
 * umask, as the shell's > would make it); until then the old file is
 * untouched, and a failed run removes the temporary file.  A symbolic link
 * is written through: its target is replaced, the link stays.  A FIFO, a
 * device or a socket is opened and written as it is (renaming over
 * /dev/null would replace the device with a file).  "-" is standard output.
 */
int cli_ofile_open(struct cli_ofile *o, const char *path)
{
	memset(o, 0, sizeof *o);
	o->fd = -1;
	o->path = path;
	if (!strcmp(path, "-")) {
		o->fd = 1;
		o->direct = 1;
		return EXIT_OK;
	}
	const char *target = path;
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (!(o->real = realpath(path, NULL))) {
			cli_error("cannot write %s: it is a symbolic link whose target cannot be resolved (%s)", path,
				  strerror(errno));
			return EXIT_BAD;
		}
		target = o->real;
	}
	int exists = stat(target, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		cli_error("cannot write %s: it is a directory", path);
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		o->fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (o->fd < 0) {
			cli_error("cannot write %s: %s", path, strerror(errno));
			cli_ofile_abort(o);
			return EXIT_BAD;
		}
		o->direct = 1;
		return EXIT_OK;
	}
	mode_t mask = umask(0);
	umask(mask);
	o->mode = exists ? (st.st_mode & 07777) : (0666 & ~mask);
	size_t n = strlen(target);
	if (!(o->target = hp_strdup(target)) || !(o->tmp = hp_malloc(n + 32))) {
		cli_ofile_abort(o);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	snprintf(o->tmp, n + 32, "%s.tmp.XXXXXX", target);
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0) {
		cli_error("cannot create %s: %s", o->tmp, strerror(errno));
		hp_free(o->tmp);
		o->tmp = NULL;
		cli_ofile_abort(o);
		return EXIT_BAD;
	}
	return EXIT_OK;
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
	if (ok && o->tmp && rename(o->tmp, o->target) != 0)
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
	if (o->tmp)
		unlink(o->tmp);
	hp_free(o->tmp);
	hp_free(o->target);
	free(o->real);
	o->tmp = o->target = o->real = NULL;
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
	if (write_all(o.fd, text, len) != 0) {
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
	char *s = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!s) {
		cli_error("out of memory printing JSON");
		return EXIT_NOMEM;
	}
	size_t n = strlen(s);
	char *t = hp_malloc(cli_json_clean(s, n, NULL) + 2);
	if (!t) {
		cJSON_free(s);
		cli_error("out of memory");
		return EXIT_NOMEM;
	}
	n = cli_json_clean(s, n, t);
	t[n] = '\n';
	t[n + 1] = '\0';
	cJSON_free(s);
	rc = cli_write_output(x, t);
	hp_free(t);
	return rc;
}

/* ---- JSON ------------------------------------------------------------- */

cJSON *json_u64_item(uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	return cJSON_CreateRaw(b);
}

void json_u64(cJSON *obj, const char *key, uint64_t v)
{
	cJSON_AddItemToObject(obj, key, json_u64_item(v));
}

static const char *source_name(int s)
{
	return s == 2 ? "option" : s == 1 ? "inferred" : "default";
}

cJSON *json_size_model(const hp_heap *h)
{
	const struct hp_size_model *m = &h->size;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "name", hp_size_kind_name(m->kind));
	json_u64(j, "id_size", m->id_size);
	json_u64(j, "ref_size", m->ref_size);
	cJSON_AddStringToObject(j, "ref_size_source", source_name(m->ref_source));
	json_u64(j, "header", m->header);
	cJSON_AddStringToObject(j, "header_source", source_name(m->header_source));
	json_u64(j, "array_header", m->array_header);
	json_u64(j, "align", m->align);
	cJSON_AddStringToObject(j, "align_source", source_name(m->align_source));
	json_u64(j, "id_gcd", m->gcd);
	if (m->compressed_evidence)
		json_u64(j, "compressed_refs_evidence_offset", m->compressed_evidence);
	if (m->kind == HP_SIZE_AHAT)
		json_u64(j, "class_instance_size", m->class_instance_size);
	return j;
}

void json_dump_members(cJSON *j, const char *file, hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	cJSON_AddStringToObject(j, "file", file);
	cJSON_AddStringToObject(j, "format", L->stats.header.format);
	json_u64(j, "id_size", L->stats.header.id_size);
	cJSON_AddBoolToObject(j, "partial", L->partial);
	if (L->partial) {
		char msg[1024];
		cli_format_error(file, &L->partial_err, msg, sizeof msg);
		cJSON_AddStringToObject(j, "partial_reason", msg);
	}
	cJSON *m = json_mapping(S);
	if (m)
		cJSON_AddItemToObject(j, "mapping", m);
}

cJSON *json_mapping(hp_session *S)
{
	const char *file = cli_mapping_file();
	if (!file)
		return NULL;
	const struct hp_mapping_stats *M = &hp_session_load_info(S)->mapped;
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "file", file);
	json_u64(m, "classes", M->classes);
	json_u64(m, "fields", M->fields);
	json_u64(m, "frames", M->frames);
	return m;
}

cJSON *json_begin(const struct cli_ctx *x, const char *file, hp_session *S)
{
	const struct hp_load_info *L = hp_session_load_info(S);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "schema", HP_SCHEMA);
	cJSON_AddStringToObject(j, "command", x->cmd->name);
	json_dump_members(j, file, S);
	if (L->stats.parsed_dump >= 0)
		json_u64(j, "dump", (uint64_t)L->stats.parsed_dump);
	return j;
}

const char *roots_policy_name(int p)
{
	return p == HP_ROOTS_ALL ? "all" : p == HP_ROOTS_UNREACHABLE ? "unreachable-as-roots" : "threads";
}

void json_policies(cJSON *j, const struct hp_retained *R)
{
	cJSON_AddStringToObject(j, "weak_policy", hp_weak_policy_name(R->weak));
	cJSON_AddStringToObject(j, "roots_policy", roots_policy_name(R->roots_policy));
}
