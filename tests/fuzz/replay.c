/*
 * replay.c — main() for a fuzz target without libFuzzer: runs the target
 * once on every file named on the command line (directories are walked one
 * level deep) and prints "N passed, 0 failed".  Linked with one fuzz_*.c
 * under ASan/UBSan by `make check`, which replays tests/fuzz/corpus/ and
 * tests/fuzz/regressions/; a crash, leak or sanitizer report fails the run.
 */
#include "fuzz.h"

#include <dirent.h>
#include <sys/stat.h>

static int n_files;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	size_t got;
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", path);
		return 1;
	}
	if (getenv("REPLAY_VERBOSE"))
		fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	n_files++;
	return 0;
}

static int run_path(const char *path, int depth)
{
	struct stat sb;
	if (stat(path, &sb) != 0) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(sb.st_mode))
		return run_file(path);
	if (depth > 1)
		return 0;
	struct dirent **names;
	int k = scandir(path, &names, NULL, alphasort);
	if (k < 0) {
		perror(path);
		return 1;
	}
	int rc = 0;
	for (int i = 0; i < k; i++) {
		if (names[i]->d_name[0] != '.') {
			char sub[4096];
			snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
			rc |= run_path(sub, depth + 1);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	for (int i = 1; i < argc; i++)
		rc |= run_path(argv[i], 0);
	printf("%d passed, %d failed\n", rc ? n_files : n_files, rc ? 1 : 0);
	return rc;
}
