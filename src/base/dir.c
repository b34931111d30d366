/* dir.c — opening the directory of a file name (dir.h). */
#include "base/dir.h"
#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#ifdef O_PATH
#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

int hp_open_parent(int at, const char *name, const char **base)
{
	const char *slash = strrchr(name, '/');
	const char *b = slash ? slash + 1 : name;
	if (!*b || !strcmp(b, ".") || !strcmp(b, "..")) {
		errno = EISDIR;
		return -1;
	}
	*base = b;
	if (!slash)
		return openat(at, ".", DIR_FLAGS);
	size_t n = (size_t)(slash - name) + 1;   /* with the slash: "/" stays the root */
	char *d = hp_malloc(n + 1);
	if (!d) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(d, name, n);
	d[n] = '\0';
	int fd = openat(at, d, DIR_FLAGS);
	int e = errno;
	hp_free(d);
	errno = e;
	return fd;
}
