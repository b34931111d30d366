/*
 * mcp.h — hprofan mcp, a Model Context Protocol server over stdio
 * (docs/mcp.md): what its files share.
 *
 *   cmd_mcp.c     the server: newline-delimited JSON-RPC 2.0 on stdin and
 *                 stdout, a poll loop over stdin and its workers' pipes
 *   mcp_tools.c   the tools, made from the command tables: tools/list's
 *                 schemas, and a tools/call's arguments as a command line
 *   mcp_worker.c  a worker: a process forked from the server that keeps
 *                 the sessions of one set of dumps open and runs the
 *                 command lines it is sent through cli_main(), one at a
 *                 time, its stdout and stderr caught
 *
 * The server keeps no session: each call goes to the worker of its key
 * (the FILE paths and the options the sessions are opened under), which
 * is forked on first use; at most MCP_MAX_WORKERS live, the least recently
 * used idle one leaving for a new key.  Cancelling a running call kills
 * its worker.  A worker's memory, crashes and --max-memory are its own.
 *
 * Between server and worker, frames of a struct mcp_frame and its bytes:
 * to the worker MCP_RUN (n argv words, NUL-terminated, in len1 bytes; a
 * progress wanted), from it MCP_PROGRESS (a phase's message in len1
 * bytes) and MCP_DONE (the exit code, stdout's len1 bytes, stderr's len2).
 */
#ifndef HP_CLI_MCP_H
#define HP_CLI_MCP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>
#include "cli/command.h"

#define MCP_MAX_WORKERS 4
/* the longest frame read from the client, and the most a worker's output may be */
#define MCP_MAX_FRAME (16u << 20)
#define MCP_MAX_OUTPUT (1024u << 20)

enum { MCP_RUN = 1, MCP_PROGRESS, MCP_DONE };
struct mcp_frame {
	uint32_t type;
	int32_t code;                 /* RUN: 1 progress wanted; PROGRESS: the phase; DONE: the exit code */
	uint64_t a, b;                /* PROGRESS: done and total (0: not known), monotonic over the call */
	uint32_t len1, len2;          /* the bytes that follow: RUN argv, PROGRESS message, DONE stdout + stderr */
	uint32_t n;                   /* RUN: argv words */
};

/* ---- mcp_tools.c ---------------------------------------------------------- */
/* the command of tool name, NULL when no tool has that name */
const struct cli_command *mcp_tool(const char *name);
/* tools/list's tools, NULL when out of memory */
cJSON *mcp_tools_list(void);
/* A command line for a tools/call of c with arguments args (an object or
 * NULL): *argv (argc words, "hprofan" first, NULL-terminated; freed by
 * mcp_argv_free()) and *key (free(): the worker's, the options sessions
 * are opened under and the files, words ended by NULs, "" last).  -1
 * with why in err when the arguments do not fit the schema. */
int mcp_tool_argv(const struct cli_command *c, const cJSON *args, char ***argv, int *argc, char **key,
		  char *err, size_t n);
void mcp_argv_free(char **argv);
/* for hprofan serve, which makes the arguments from a URL's query: the
 * option a property names (NULL: none, or one no tool takes); whether
 * its value is a number; whether it is one the sessions are opened under
 * (the worker's key); whether prop is a word after the files (*repeat:
 * an array of them) */
const struct cli_option *mcp_tool_option(const struct cli_command *c, const char *prop);
int mcp_option_numeric(const struct cli_option *o);
int mcp_option_of_session(const struct cli_option *o);
int mcp_tool_word(const struct cli_command *c, const char *prop, int *repeat);
/* 1 when two keys of mcp_tool_argv() are the same */
int mcp_key_same(const char *a, const char *b);

/* ---- mcp_worker.c --------------------------------------------------------- */
/* The worker's loop on the pipes to and from the server (fds in, out):
 * runs each MCP_RUN, answers MCP_DONE; returns the exit code when the
 * server closes its end. */
int mcp_worker_run(int in, int out);
/* In a process just forked from parent (a server's pid): it dies with its
 * parent (and ends now if that is gone already), SIGTERM ends it, SIGINT
 * (a terminal's ^C, the server's to take) does not. */
void mcp_worker_child(pid_t parent);
/* all of n bytes read (EINTR retried): 0, else -1 (also at EOF); writing
 * is output.h's cli_write_all() */
int mcp_read_all(int fd, void *p, size_t n);

#endif
