/*
 * dir.h — the directory a file name lives in, opened: names looked up or
 * made relative to that descriptor later stay in that directory, whatever
 * is renamed above it meanwhile (the index's and -o's atomic writes, the
 * trust checks on their directories).
 */
#ifndef HP_BASE_DIR_H
#define HP_BASE_DIR_H

/* The directory part of name (relative to the directory at, or AT_FDCWD)
 * opened as a directory (O_PATH where the system has it, close-on-exec),
 * and *base its last part (a pointer into name); "dir/" and a last part
 * "." or ".." name no file: -1 with errno EISDIR.  -1 and errno when it
 * cannot be opened (ENOMEM when the name's copy cannot be made). */
int hp_open_parent(int at, const char *name, const char **base);

#endif
