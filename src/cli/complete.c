/* complete.c — `hprofan completion bash|zsh|options`: the shell completions
 * and the option tables as lines, written from the commands' tables
 * (git's --git-completion-helper).  completions/hprofan.bash and
 * completions/_hprofan are this output (`make completions`);
 * tests/cli/completion.sh fails when they are stale. */
#include "cli/command.h"
#include "cli/msg.h"

#include <string.h>

/* the commands main.c handles itself, after the table's */
static const char *const extra_commands[][2] = {
	{ "help", "the usage text, or the usage and options of a command" },
	{ "completion", "the completion script of bash or zsh" },
};
#define NEXTRA (sizeof extra_commands / sizeof extra_commands[0])

static const char *kind_name(const struct cli_option *o)
{
	static const char *const k[] = { "flag", "value", "optnum", "optvalue", "choice" };
	return k[o->kind];
}

/* the words completions offer for o's value, space-separated ("" none) */
static const char *value_words(const struct cli_option *o, char *buf, size_t n)
{
	buf[0] = '\0';
	if (o->kind == OPT_CHOICE) {
		size_t len = 0;
		for (const struct cli_choice *c = o->choices; c->name; c++) {
			int w = snprintf(buf + len, n - len, "%s%s", len ? " " : "", c->name);
			if (w < 0 || (size_t)w >= n - len)
				break;
			len += (size_t)w;
		}
	} else if (o->complete) {
		snprintf(buf, n, "%s", o->complete);
	}
	return buf;
}

/* each option o of command c's tables; the completions offer its name and
 * a short alias (-q), not a long one (--output, --folded: accepted, not
 * offered) */
#define EACH_OPTION(c, o) \
	for (const struct cli_option *const *t_ = (c)->options; *t_; t_++) \
		for (const struct cli_option *o = *t_; o->name; o++)

/* whether an option of this name was written before (over all commands, up
 * to command c and option o): each name once in the union lists */
static int seen_before(const struct cli_command *const *upto, const struct cli_option *at, const char *name)
{
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		EACH_OPTION(*c, o) {
			if (c == upto && o == at)
				return 0;
			if (!strcmp(o->name, name))
				return 1;
		}
	return 0;
}

/* ---- options: the tables as lines (the tests read them) ------------------- */

static void write_options(FILE *f)
{
	static const char *const rk[] = { "", "needs", "excludes", "only-with" };
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		fprintf(f, "command\t%s\t%d\t%d\t%s\t%s\t%s\n", (*c)->name, (*c)->min_files, (*c)->max_files,
			(*c)->args ? (*c)->args : (*c)->operands ? (*c)->operands : "-", (*c)->usage, (*c)->summary);
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		EACH_OPTION(*c, o) {
			char spec[256], words[512];
			cli_option_spec(o, spec, sizeof spec);
			value_words(o, words, sizeof words);
			fprintf(f, "option\t%s\t%s\t%s\t%s\t%s\t%s%s%s%s\t%s\n", (*c)->name, o->name,
				o->alias ? o->alias : "-", kind_name(o), spec, o->flags & OPTF_FILE ? "file" : "",
				o->flags & OPTF_DIR ? "dir" : "", o->flags & OPTF_REPEAT ? "repeat" : "",
				o->flags & (OPTF_FILE | OPTF_DIR | OPTF_REPEAT) ? "" : "-", words[0] ? words : "-");
		}
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		for (const struct cli_rule *const *t = (*c)->rules; t && *t; t++)
			for (const struct cli_rule *r = *t; r->kind; r++)
				fprintf(f, "rule\t%s\t%s\t%s\t%s\n", (*c)->name, rk[r->kind], r->a, r->b);
}

/* ---- bash ------------------------------------------------------------------ */

/* the names of the options of every command that satisfy pred, once each */
static void bash_union(FILE *f, const char *var, int (*pred)(const struct cli_option *))
{
	int first = 1;
	fprintf(f, "%s='", var);
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		EACH_OPTION(*c, o) {
			if (!pred(o) || seen_before(c, o, o->name))
				continue;
			fprintf(f, "%s%s", first ? "" : " ", o->name);
			first = 0;
		}
	fputs("'\n", f);
}

static int takes_value(const struct cli_option *o) { return o->kind == OPT_VALUE || o->kind == OPT_CHOICE; }
static int with_equals(const struct cli_option *o) { return o->kind == OPT_CHOICE; }
static int optional_number(const struct cli_option *o) { return o->kind == OPT_OPTNUM; }
static int any_file(const struct cli_option *o) { return (o->flags & OPTF_FILE) != 0; }
static int a_directory(const struct cli_option *o) { return (o->flags & OPTF_DIR) != 0; }

/* _hprofan_values: a case over COMMAND:OPTION; an option whose words are
 * the same for every command that takes it is one pattern *:OPTION */
static void bash_values(FILE *f)
{
	fputs("# _hprofan_values COMMAND OPTION: prints the values OPTION takes there (nothing: free text)\n"
	      "_hprofan_values() {\n"
	      "  case $1:$2 in\n", f);
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		EACH_OPTION(*c, o) {
			char words[512], other[512];
			if (!value_words(o, words, sizeof words)[0])
				continue;
			/* the first command with these words for this name writes the line */
			int same_all = 1, written = 0;
			for (const struct cli_command *const *d = cli_commands; *d; d++) {
				const char *v;
				const struct cli_option *p = cli_option_find(*d, o->name, &v);
				if (!p || strcmp(p->name, o->name))
					continue;
				value_words(p, other, sizeof other);
				if (strcmp(other, words))
					same_all = 0;
				else if (d < c)
					written = 1;
			}
			if (written)
				continue;
			if (same_all) {
				fprintf(f, "    *:%s) echo %s ;;\n", o->name, words);
				continue;
			}
			fputs("    ", f);
			int first = 1;
			for (const struct cli_command *const *d = cli_commands; *d; d++) {
				const char *v;
				const struct cli_option *p = cli_option_find(*d, o->name, &v);
				if (!p || strcmp(p->name, o->name) || strcmp(value_words(p, other, sizeof other), words))
					continue;
				fprintf(f, "%s%s:%s", first ? "" : " | ", (*d)->name, o->name);
				first = 0;
			}
			fprintf(f, ") echo %s ;;\n", words);
		}
	fputs("  esac\n"
	      "}\n", f);
}

static const char bash_head[] =
	"# bash completion for hprofan(1)                              -*- shell-script -*-\n"
	"#\n"
	"# Written by `hprofan completion bash` from the commands' option tables\n"
	"# (`make completions` writes this file; do not edit it by hand).\n"
	"# `make install` puts it in $(PREFIX)/share/bash-completion/completions/hprofan,\n"
	"# where bash-completion loads it the first time hprofan is completed; without\n"
	"# bash-completion, `source` it from ~/.bashrc (or: source <(hprofan completion bash)).\n"
	"# It uses no bash-completion helper.\n"
	"#\n"
	"# Completes the commands, the options of the command on the line (top when\n"
	"# none is named), the values of the options that have a fixed set, dump\n"
	"# files (*.hprof, *.hprof.gz, *.bin, *.android-hprof, *.gz and directories),\n"
	"# any file after an option that takes one, and redact's OUT.\n"
	"\n";

static const char bash_body[] =
	"\n"
	"# _hprofan_in WORD LIST: true when WORD is one of the words of LIST\n"
	"_hprofan_in() {\n"
	"  case \" $2 \" in *\" $1 \"*) return 0 ;; esac\n"
	"  return 1\n"
	"}\n"
	"\n"
	"# _hprofan_add_words PREFIX CUR WORDS...: adds to COMPREPLY each word that\n"
	"# starts with CUR (PREFIX in front of it)\n"
	"_hprofan_add_words() {\n"
	"  local prefix=$1 cur=$2 w\n"
	"  shift 2\n"
	"  for w in \"$@\"; do\n"
	"    [[ $w == \"$cur\"* ]] && COMPREPLY+=(\"$prefix$w\")\n"
	"  done\n"
	"}\n"
	"\n"
	"# _hprofan_add_files CUR KIND: adds the files starting with CUR; KIND dumps\n"
	"# keeps directories and the names a heap dump has, KIND any keeps all,\n"
	"# KIND dirs directories only\n"
	"_hprofan_add_files() {\n"
	"  local f\n"
	"  while IFS= read -r f; do\n"
	"    if [[ $2 == any || -d $f ]]; then\n"
	"      COMPREPLY+=(\"$f\")\n"
	"    elif [[ $2 == dumps ]]; then\n"
	"      case $f in\n"
	"        *.hprof | *.hprof.gz | *.bin | *.android-hprof | *.gz) COMPREPLY+=(\"$f\") ;;\n"
	"      esac\n"
	"    fi\n"
	"  done < <(compgen -f -- \"$1\")\n"
	"  compopt -o filenames 2>/dev/null\n"
	"}\n"
	"\n"
	"# _hprofan_add_options CUR COMMAND: adds the options of COMMAND that start with CUR\n"
	"_hprofan_add_options() {\n"
	"  local o all_equals=1 cmd=${2:-top}\n"
	"  local list=_hprofan_options_${cmd//-/_}\n"
	"  for o in ${!list}; do\n"
	"    [[ $o == \"$1\"* ]] || continue\n"
	"    if _hprofan_in \"$o\" \"$_hprofan_with_equals\"; then\n"
	"      COMPREPLY+=(\"$o=\")\n"
	"    else\n"
	"      COMPREPLY+=(\"$o\")\n"
	"      all_equals=0\n"
	"    fi\n"
	"  done\n"
	"  # no space after \"--sort=\", unless other options are offered too\n"
	"  ((${#COMPREPLY[@]} && all_equals)) && compopt -o nospace 2>/dev/null\n"
	"  return 0\n"
	"}\n"
	"\n"
	"_hprofan() {\n"
	"  local IFS=$' \\t\\n'\n"
	"  COMPREPLY=()\n"
	"  # The words up to the cursor, the ones bash split at '=' (COMP_WORDBREAKS\n"
	"  # holds it by default) joined again: \"--sort\" \"=\" \"co\" -> \"--sort=co\".\n"
	"  local -a words=()\n"
	"  local i j=-1 w glue=0\n"
	"  for ((i = 0; i <= COMP_CWORD; i++)); do\n"
	"    w=${COMP_WORDS[i]-}\n"
	"    if [[ $w == \"=\" && $j -ge 0 && ${words[j]} == --* && ${words[j]} != *=* ]]; then\n"
	"      words[j]+=\"=\"\n"
	"      glue=1\n"
	"    elif ((glue)); then\n"
	"      words[j]+=$w\n"
	"      glue=0\n"
	"    else\n"
	"      words[++j]=$w\n"
	"    fi\n"
	"  done\n"
	"  local cword=$j cur=${words[j]}\n"
	"\n"
	"  # What precedes the current word: the positional arguments, and whether\n"
	"  # the previous word is an option that wants a value.\n"
	"  local -a pos=()\n"
	"  local want='' dashdash=0\n"
	"  for ((i = 1; i < cword; i++)); do\n"
	"    w=${words[i]}\n"
	"    if [[ -n $want ]]; then\n"
	"      want=''\n"
	"    elif ((dashdash)) || [[ $w == - || $w != -* ]]; then\n"
	"      pos+=(\"$w\")\n"
	"    elif [[ $w == -- ]]; then\n"
	"      dashdash=1\n"
	"    elif _hprofan_in \"$w\" \"$_hprofan_optional_number\"; then\n"
	"      w=${words[i + 1]-}\n"
	"      [[ -n $w && $w != *[!0-9]* ]] && ((i + 1 < cword)) && ((i++))\n"
	"    elif [[ $w != *=* ]] && _hprofan_in \"$w\" \"$_hprofan_takes_value\"; then\n"
	"      want=$w\n"
	"    fi\n"
	"  done\n"
	"\n"
	"  # the command: the first positional word, when it is one (else top)\n"
	"  local cmd=top\n"
	"  if ((${#pos[@]})) && _hprofan_in \"${pos[0]}\" \"$_hprofan_table_commands\"; then\n"
	"    cmd=${pos[0]}\n"
	"  fi\n"
	"\n"
	"  # the value of an option: \"--heap a\", \"--heap=a\"\n"
	"  local opt='' val=$cur prefix=''\n"
	"  if [[ -n $want ]]; then\n"
	"    opt=$want\n"
	"  elif ((!dashdash)) && [[ $cur == --*=* ]]; then\n"
	"    opt=${cur%%=*}\n"
	"    val=${cur#*=}\n"
	"    # bash replaces only the text after the last '=' when '=' breaks words\n"
	"    [[ ${COMP_WORDBREAKS-} == *=* ]] || prefix=$opt=\n"
	"  fi\n"
	"  if [[ -n $opt ]]; then\n"
	"    if _hprofan_in \"$opt\" \"$_hprofan_file_options\"; then\n"
	"      _hprofan_add_files \"$val\" any\n"
	"    elif _hprofan_in \"$opt\" \"$_hprofan_dir_options\"; then\n"
	"      _hprofan_add_files \"$val\" dirs\n"
	"    else\n"
	"      # shellcheck disable=SC2046 # the values are single words\n"
	"      _hprofan_add_words \"$prefix\" \"$val\" $(_hprofan_values \"$cmd\" \"$opt\")\n"
	"    fi\n"
	"    return 0\n"
	"  fi\n"
	"\n"
	"  # an option\n"
	"  if ((!dashdash)) && [[ $cur == -* ]] && [[ ${pos[0]-} != help && ${pos[0]-} != completion ]]; then\n"
	"    _hprofan_add_options \"$cur\" \"$cmd\"\n"
	"    return 0\n"
	"  fi\n"
	"\n"
	"  # a positional argument: [COMMAND] FILE, help COMMAND or completion SHELL\n"
	"  local c\n"
	"  if ((${#pos[@]} == 0)); then\n"
	"    # shellcheck disable=SC2086 # a list of words\n"
	"    _hprofan_add_words '' \"$cur\" $_hprofan_commands\n"
	"    _hprofan_add_files \"$cur\" dumps\n"
	"  elif ((${#pos[@]} == 1)) && [[ ${pos[0]} == help ]]; then\n"
	"    for c in $_hprofan_commands; do\n"
	"      [[ $c != help && $c == \"$cur\"* ]] && COMPREPLY+=(\"$c\")\n"
	"    done\n"
	"  elif ((${#pos[@]} == 1)) && [[ ${pos[0]} == completion ]]; then\n"
	"    _hprofan_add_words '' \"$cur\" bash zsh\n"
	"  elif [[ ${pos[0]} == help || ${pos[0]} == completion ]]; then\n"
	"    :\n"
	"  elif ((${#pos[@]} == 1)) && _hprofan_in \"${pos[0]}\" \"$_hprofan_table_commands\"; then\n"
	"    _hprofan_add_files \"$cur\" dumps\n"
	"  elif ((${#pos[@]} == 2)) && _hprofan_in \"${pos[0]}\" \"$_hprofan_out_file\" && ((!dashdash)) &&\n"
	"       [[ $cur != -* ]]; then\n"
	"    # redact IN OUT: OUT is any file\n"
	"    _hprofan_add_files \"$cur\" any\n"
	"  elif _hprofan_in \"$cmd\" \"$_hprofan_many_files\"; then\n"
	"    # diff, trend, ...: more dump files; options once the files they need are there\n"
	"    _hprofan_add_files \"$cur\" dumps\n"
	"    local need=2\n"
	"    _hprofan_in \"$cmd\" \"$_hprofan_two_files\" && need=3\n"
	"    [[ -z $cur ]] && ((${#pos[@]} >= need)) && ((!dashdash)) && _hprofan_add_options '' \"$cmd\"\n"
	"  elif [[ -z $cur ]] && ((!dashdash)); then\n"
	"    # the file is there: what is left are options\n"
	"    _hprofan_add_options '' \"$cmd\"\n"
	"  fi\n"
	"  return 0\n"
	"}\n"
	"\n"
	"complete -F _hprofan hprofan\n";

static void write_bash(FILE *f)
{
	fputs(bash_head, f);
	fputs("# the commands: the table's, then help and completion\n_hprofan_commands='", f);
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		fprintf(f, "%s%s", c == cli_commands ? "" : " ", (*c)->name);
	for (size_t i = 0; i < NEXTRA; i++)
		fprintf(f, " %s", extra_commands[i][0]);
	fputs("'\n_hprofan_table_commands='", f);
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		fprintf(f, "%s%s", c == cli_commands ? "" : " ", (*c)->name);
	fputs("'\n# the options of each command, as `hprofan help COMMAND` lists them (and -h, --help)\n", f);
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		/* (a shell variable: group-by-value's is _hprofan_options_group_by_value) */
		fputs("_hprofan_options_", f);
		for (const char *p = (*c)->name; *p; p++)
			fputc(*p == '-' ? '_' : *p, f);
		fputs("='", f);
		EACH_OPTION(*c, o) {
			if (o->alias && o->alias[1] != '-')
				fprintf(f, "%s ", o->alias);
			fprintf(f, "%s ", o->name);
		}
		fputs("-h --help'\n", f);
	}
	fputs("# the commands that take more than one dump file, and those that need two\n_hprofan_many_files='", f);
	int first = 1;
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		if ((*c)->max_files > 1 && !(*c)->operands) {
			fprintf(f, "%s%s", first ? "" : " ", (*c)->name);
			first = 0;
		}
	fputs("'\n_hprofan_two_files='", f);
	first = 1;
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		if ((*c)->min_files > 1 && !(*c)->operands) {
			fprintf(f, "%s%s", first ? "" : " ", (*c)->name);
			first = 0;
		}
	fputs("'\n# the commands whose second word is a file to write (redact IN OUT)\n_hprofan_out_file='", f);
	first = 1;
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		if ((*c)->operands) {
			fprintf(f, "%s%s", first ? "" : " ", (*c)->name);
			first = 0;
		}
	fputs("'\n# the options that take a value: the next word, or after '=' in the same word\n", f);
	bash_union(f, "_hprofan_takes_value", takes_value);
	fputs("# the options help writes as --opt=VALUE: offered with the '=' attached\n", f);
	bash_union(f, "_hprofan_with_equals", with_equals);
	fputs("# the options whose value, a number, is optional: the next word only when it is one\n", f);
	bash_union(f, "_hprofan_optional_number", optional_number);
	fputs("# the options whose value is any file, or a directory\n", f);
	bash_union(f, "_hprofan_file_options", any_file);
	bash_union(f, "_hprofan_dir_options", a_directory);
	fputc('\n', f);
	bash_values(f);
	fputs(bash_body, f);
}

/* ---- zsh ------------------------------------------------------------------- */

/* s for a zsh single-quoted word, each of the characters in esc (and '\')
 * backslash-quoted for _arguments; '\n' becomes a space */
static void zput(FILE *f, const char *s, const char *esc)
{
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else if (*s == '\n')
			fputc(' ', f);
		else {
			if (*s == '\\' || strchr(esc, *s))
				fputc('\\', f);
			fputc(*s, f);
		}
	}
}

/* one _arguments spec for option name (o's name or short alias) */
static void zspec(FILE *f, const struct cli_option *o, const char *name)
{
	char help[1024];
	cli_option_help(o, help, sizeof help);
	fputc('\'', f);
	if (o->alias && o->alias[1] != '-')
		fprintf(f, "(%s %s)", o->alias, o->name);
	if (o->flags & OPTF_REPEAT)
		fputc('*', f);
	fputs(name, f);
	int lng = name[1] == '-';
	switch (o->kind) {
	case OPT_OPTNUM:
	case OPT_OPTVALUE:
		fputs("=-", f);
		break;
	case OPT_VALUE:
	case OPT_CHOICE:
		if (lng)
			fputc('=', f);
		break;
	}
	fputc('[', f);
	zput(f, help, "[]:");
	fputc(']', f);
	if (o->kind != OPT_FLAG) {
		fputs(o->kind == OPT_OPTNUM || o->kind == OPT_OPTVALUE ? "::" : ":", f);
		zput(f, o->arg ? o->arg : o->name + 2, ":");
		fputc(':', f);
		char words[512];
		int notes = 0;
		for (const struct cli_choice *c = o->kind == OPT_CHOICE ? o->choices : NULL; c && c->name; c++)
			notes |= c->note != NULL;
		if (o->flags & OPTF_DIR)
			fputs("_files -/", f);
		else if (o->flags & OPTF_FILE)
			fputs("_files", f);
		else if (notes) {
			fputs("((", f);
			for (const struct cli_choice *c = o->choices; c->name; c++) {
				fprintf(f, "%s%s", c == o->choices ? "" : " ", c->name);
				if (c->note) {
					fputs("\\:\"", f);
					zput(f, c->note, "\"$`:");
					fputc('"', f);
				}
			}
			fputs("))", f);
		} else if (value_words(o, words, sizeof words)[0]) {
			fprintf(f, "(%s)", words);
		} else {
			fputc(' ', f);
		}
	}
	fputc('\'', f);
}

static const char zsh_head[] =
	"#compdef hprofan\n"
	"# zsh completion for hprofan(1).\n"
	"#\n"
	"# Written by `hprofan completion zsh` from the commands' option tables\n"
	"# (`make completions` writes this file; do not edit it by hand).\n"
	"# `make install` puts it in $(PREFIX)/share/zsh/site-functions/_hprofan;\n"
	"# that directory must be in $fpath before compinit runs (it is for /usr and\n"
	"# /usr/local on most systems).  To try it from the source tree:\n"
	"#   fpath=(/path/to/hprofan/completions $fpath); autoload -Uz compinit; compinit\n"
	"\n";

static const char zsh_body[] =
	"\n"
	"# the command on the line: the first word that names one (top when none does)\n"
	"local cmd=top w\n"
	"for w in ${words[2,CURRENT-1]}; do\n"
	"  [[ $w == -* ]] && continue\n"
	"  if (( ${+hprofan_cmdopts[$w]} )); then\n"
	"    cmd=$w\n"
	"    break\n"
	"  fi\n"
	"done\n"
	"\n"
	"local -a specs\n"
	"for w in ${=hprofan_cmdopts[$cmd]}; do\n"
	"  specs+=(\"${hprofan_optspec[$cmd:$w]}\")\n"
	"done\n"
	"\n"
	"local curcontext=$curcontext state state_descr line ret=1\n"
	"local -A opt_args\n"
	"\n"
	"_arguments -S -C : $specs \\\n"
	"  '(- *)'{-h,--help}'[print the usage text]' \\\n"
	"  '(- *)--version[print the version]' \\\n"
	"  '1: :->first' \\\n"
	"  '2:: :->second' \\\n"
	"  '3:: :->third' \\\n"
	"  '*:: :->more' && ret=0\n"
	"\n"
	"local -a dump_glob=(-g '*.(hprof|hprof.gz|bin|android-hprof|gz)(-.)')\n"
	"case $state in\n"
	"  first)  # a command or the dump file\n"
	"    _describe -t commands command hprofan_commands && ret=0\n"
	"    _files $dump_glob && ret=0\n"
	"    ;;\n"
	"  second)  # after help, a command; after completion, a shell; after a command, the dump file\n"
	"    if [[ $line[1] == help ]]; then\n"
	"      local -a others=(${hprofan_commands:#help:*})\n"
	"      _describe -t commands command others && ret=0\n"
	"    elif [[ $line[1] == completion ]]; then\n"
	"      compadd bash zsh && ret=0\n"
	"    elif (( ${hprofan_commands[(I)${(b)line[1]}:*]} )); then\n"
	"      _files $dump_glob && ret=0\n"
	"    fi\n"
	"    ;;\n"
	"  third|more)  # redact IN OUT: OUT is any file; diff, trend, ... take more dump files\n"
	"    if [[ $state == third ]] && (( ${hprofan_out_file[(Ie)$line[1]]} )); then\n"
	"      _files && ret=0\n"
	"    elif (( ${hprofan_many_files[(Ie)$line[1]]} )); then\n"
	"      _files $dump_glob && ret=0\n"
	"    fi\n"
	"    ;;\n"
	"esac\n"
	"\n"
	"return ret\n";

static void write_zsh(FILE *f)
{
	fputs(zsh_head, f);
	fputs("# the commands, NAME:SUMMARY\nlocal -a hprofan_commands\nhprofan_commands=(\n", f);
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		fprintf(f, "  '%s:", (*c)->name);
		zput(f, (*c)->summary, "");
		fputs("'\n", f);
	}
	for (size_t i = 0; i < NEXTRA; i++)
		fprintf(f, "  '%s:%s'\n", extra_commands[i][0], extra_commands[i][1]);
	fputs(")\n\n# the commands that take more than one dump file; those whose second word is a file to write\n"
	      "local -a hprofan_many_files=(", f);
	int first = 1;
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		if ((*c)->max_files > 1 && !(*c)->operands) {
			fprintf(f, "%s%s", first ? "" : " ", (*c)->name);
			first = 0;
		}
	fputs(")\nlocal -a hprofan_out_file=(", f);
	first = 1;
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		if ((*c)->operands) {
			fprintf(f, "%s%s", first ? "" : " ", (*c)->name);
			first = 0;
		}
	fputs(")\n\n# the options of each command, as `hprofan help COMMAND` lists them\n"
	      "local -A hprofan_cmdopts\nhprofan_cmdopts=(\n", f);
	for (const struct cli_command *const *c = cli_commands; *c; c++) {
		fprintf(f, "  %s '", (*c)->name);
		first = 1;
		EACH_OPTION(*c, o) {
			if (o->alias && o->alias[1] != '-') {
				fprintf(f, "%s%s", first ? "" : " ", o->alias);
				first = 0;
			}
			fprintf(f, "%s%s", first ? "" : " ", o->name);
			first = 0;
		}
		fputs("'\n", f);
	}
	fputs(")\n\n# each command's options in _arguments' syntax, by COMMAND:OPTION\n"
	      "local -A hprofan_optspec\nhprofan_optspec=(\n", f);
	for (const struct cli_command *const *c = cli_commands; *c; c++)
		EACH_OPTION(*c, o) {
			if (o->alias && o->alias[1] != '-') {
				fprintf(f, "  %s:%s ", (*c)->name, o->alias);
				zspec(f, o, o->alias);
				fputc('\n', f);
			}
			fprintf(f, "  %s:%s ", (*c)->name, o->name);
			zspec(f, o, o->name);
			fputc('\n', f);
		}
	fputs(")\n", f);
	fputs(zsh_body, f);
}

int cli_completion(const char *what)
{
	if (cli_tables_check())
		return EXIT_BAD;
	if (!strcmp(what, "bash"))
		write_bash(stdout);
	else if (!strcmp(what, "zsh"))
		write_zsh(stdout);
	else if (!strcmp(what, "options"))
		write_options(stdout);
	else
		return cli_usage_error(NULL, "completion: no such shell: %s (bash or zsh)", what);
	if (fflush(stdout) || ferror(stdout)) {
		cli_error("standard output: write error");
		return EXIT_BAD;
	}
	return EXIT_OK;
}
