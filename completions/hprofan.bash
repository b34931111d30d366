# bash completion for hprofan(1)                              -*- shell-script -*-
#
# Written by `hprofan completion bash` from the commands' option tables
# (`make completions` writes this file; do not edit it by hand).
# `make install` puts it in $(PREFIX)/share/bash-completion/completions/hprofan,
# where bash-completion loads it the first time hprofan is completed; without
# bash-completion, `source` it from ~/.bashrc (or: source <(hprofan completion bash)).
# It uses no bash-completion helper.
#
# Completes the commands, the options of the command on the line (top when
# none is named), the values of the options that have a fixed set, dump
# files (*.hprof, *.hprof.gz, *.bin, *.android-hprof, *.gz and directories),
# any file after an option that takes one, and redact's OUT.

# the commands: the table's, then help and completion
_hprofan_commands='top info dominators roots instances object path browse redact diff trend leaks waste threads sites bitmaps components index report sql idom merge-paths group-by-value refs check mcp serve capture help completion'
_hprofan_table_commands='top info dominators roots instances object path browse redact diff trend leaks waste threads sites bitmaps components index report sql idom merge-paths group-by-value refs check mcp serve capture'
# the options of each command, as `hprofan help COMMAND` lists them (and -h, --help)
_hprofan_options_top='--top --sort --fast --heap --retained-set --group --depth --components --buckets --by-thread --filter --exclude --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_info='--size-model --ref-size --header-size --align --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_dominators='--top --depth --group --components --sort --heap --root --filter --exclude --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_roots='--top --heap --filter --exclude --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_instances='--top --sort --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_object='--top --all-weak --full-path --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_path='--top --all-weak --full-path --size-model --ref-size --header-size --align --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_browse='--components --all-weak --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir -q --quiet -h --help'
_hprofan_options_redact='--mode --names-all --mapping-out --gzip --stats -q --quiet -h --help'
_hprofan_options_diff='--top --fast --group --components --filter --exclude --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_trend='--top --fast --sort-by-time --group --components --filter --exclude --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_leaks='--threshold --big-drop --zombie --zombie-rules --fail-on-leak --full-path --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_waste='--top --min-count --all-weak --full-path --size-model --ref-size --header-size --align --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_threads='--locals --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_sites='--top --depth --bottom-up --flat --collapsed --filter --exclude --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_bitmaps='--out --dump --salvage --max-memory --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_components='--components --top --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_index='--size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --no-index --index-dir -q --quiet -h --help'
_hprofan_options_report='--title --depth --threshold --zombie -o --stats --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir -q --quiet -h --help'
_hprofan_options_sql='--csv --timeout --export --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_idom='--top --skip --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_merge_paths='--top --max-nodes --all-weak --full-path --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_group_by_value='--top --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_refs='--top --level --size-model --ref-size --header-size --align --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_check='--budget --baseline --junit --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir --json -o --stats -q --quiet -h --help'
_hprofan_options_mcp='-q --quiet -h --help'
_hprofan_options_serve='--port --bind --open --workers --size-model --ref-size --header-size --align --weak --roots --dump --salvage --max-memory --mapping --no-index --index-dir -q --quiet -h --help'
_hprofan_options_capture='-o --gz --live --adb --serial -q --quiet -h --help'
# the commands that take more than one dump file, and those that need two
_hprofan_many_files='diff trend index report sql serve'
_hprofan_two_files='diff trend'
# the commands whose second word is a file to write (redact IN OUT)
_hprofan_out_file='redact'
# the options that take a value: the next word, or after '=' in the same word
_hprofan_takes_value='--sort --heap --group --depth --components --filter --exclude --size-model --ref-size --header-size --align --weak --roots --dump --max-memory --mapping --index-dir -o --root --mode --mapping-out --threshold --big-drop --zombie --zombie-rules --min-count --out --title --timeout --export --skip --level --budget --baseline --junit --port --bind --workers --adb --serial'
# the options help writes as --opt=VALUE: offered with the '=' attached
_hprofan_with_equals='--sort --group --size-model --weak --roots --mode --level'
# the options whose value, a number, is optional: the next word only when it is one
_hprofan_optional_number='--top --max-nodes'
# the options whose value is any file, or a directory
_hprofan_file_options='--components --mapping --index-dir -o --mapping-out --zombie-rules --export --budget --baseline --junit'
_hprofan_dir_options='--out'

# _hprofan_values COMMAND OPTION: prints the values OPTION takes there (nothing: free text)
_hprofan_values() {
  case $1:$2 in
    top:--sort | dominators:--sort) echo retained shallow count name ;;
    *:--heap) echo app zygote image default ;;
    top:--group | diff:--group | trend:--group) echo package loader component ;;
    *:--size-model) echo vm mat ahat raw visualvm netbeans ;;
    *:--ref-size) echo 4 8 ;;
    *:--align) echo 1 2 4 8 16 32 64 128 256 ;;
    *:--weak) echo follow skip skip-weak ;;
    *:--roots) echo threads all unreachable-as-roots ;;
    *:--dump) echo all ;;
    dominators:--group) echo class package loader component ;;
    instances:--sort) echo retained shallow ;;
    *:--mode) echo values strings names ;;
    *:--gzip) echo 1 2 3 4 5 6 7 8 9 ;;
    *:--level) echo soft weak final phantom ;;
    *:--gz) echo 1 2 3 4 5 6 7 8 9 ;;
  esac
}

# _hprofan_in WORD LIST: true when WORD is one of the words of LIST
_hprofan_in() {
  case " $2 " in *" $1 "*) return 0 ;; esac
  return 1
}

# _hprofan_add_words PREFIX CUR WORDS...: adds to COMPREPLY each word that
# starts with CUR (PREFIX in front of it)
_hprofan_add_words() {
  local prefix=$1 cur=$2 w
  shift 2
  for w in "$@"; do
    [[ $w == "$cur"* ]] && COMPREPLY+=("$prefix$w")
  done
}

# _hprofan_add_files CUR KIND: adds the files starting with CUR; KIND dumps
# keeps directories and the names a heap dump has, KIND any keeps all,
# KIND dirs directories only
_hprofan_add_files() {
  local f
  while IFS= read -r f; do
    if [[ $2 == any || -d $f ]]; then
      COMPREPLY+=("$f")
    elif [[ $2 == dumps ]]; then
      case $f in
        *.hprof | *.hprof.gz | *.bin | *.android-hprof | *.gz) COMPREPLY+=("$f") ;;
      esac
    fi
  done < <(compgen -f -- "$1")
  compopt -o filenames 2>/dev/null
}

# _hprofan_add_options CUR COMMAND: adds the options of COMMAND that start with CUR
_hprofan_add_options() {
  local o all_equals=1 cmd=${2:-top}
  local list=_hprofan_options_${cmd//-/_}
  for o in ${!list}; do
    [[ $o == "$1"* ]] || continue
    if _hprofan_in "$o" "$_hprofan_with_equals"; then
      COMPREPLY+=("$o=")
    else
      COMPREPLY+=("$o")
      all_equals=0
    fi
  done
  # no space after "--sort=", unless other options are offered too
  ((${#COMPREPLY[@]} && all_equals)) && compopt -o nospace 2>/dev/null
  return 0
}

_hprofan() {
  local IFS=$' \t\n'
  COMPREPLY=()
  # The words up to the cursor, the ones bash split at '=' (COMP_WORDBREAKS
  # holds it by default) joined again: "--sort" "=" "co" -> "--sort=co".
  local -a words=()
  local i j=-1 w glue=0
  for ((i = 0; i <= COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]-}
    if [[ $w == "=" && $j -ge 0 && ${words[j]} == --* && ${words[j]} != *=* ]]; then
      words[j]+="="
      glue=1
    elif ((glue)); then
      words[j]+=$w
      glue=0
    else
      words[++j]=$w
    fi
  done
  local cword=$j cur=${words[j]}

  # What precedes the current word: the positional arguments, and whether
  # the previous word is an option that wants a value.
  local -a pos=()
  local want='' dashdash=0
  for ((i = 1; i < cword; i++)); do
    w=${words[i]}
    if [[ -n $want ]]; then
      want=''
    elif ((dashdash)) || [[ $w == - || $w != -* ]]; then
      pos+=("$w")
    elif [[ $w == -- ]]; then
      dashdash=1
    elif _hprofan_in "$w" "$_hprofan_optional_number"; then
      w=${words[i + 1]-}
      [[ -n $w && $w != *[!0-9]* ]] && ((i + 1 < cword)) && ((i++))
    elif [[ $w != *=* ]] && _hprofan_in "$w" "$_hprofan_takes_value"; then
      want=$w
    fi
  done

  # the command: the first positional word, when it is one (else top)
  local cmd=top
  if ((${#pos[@]})) && _hprofan_in "${pos[0]}" "$_hprofan_table_commands"; then
    cmd=${pos[0]}
  fi

  # the value of an option: "--heap a", "--heap=a"
  local opt='' val=$cur prefix=''
  if [[ -n $want ]]; then
    opt=$want
  elif ((!dashdash)) && [[ $cur == --*=* ]]; then
    opt=${cur%%=*}
    val=${cur#*=}
    # bash replaces only the text after the last '=' when '=' breaks words
    [[ ${COMP_WORDBREAKS-} == *=* ]] || prefix=$opt=
  fi
  if [[ -n $opt ]]; then
    if _hprofan_in "$opt" "$_hprofan_file_options"; then
      _hprofan_add_files "$val" any
    elif _hprofan_in "$opt" "$_hprofan_dir_options"; then
      _hprofan_add_files "$val" dirs
    else
      # shellcheck disable=SC2046 # the values are single words
      _hprofan_add_words "$prefix" "$val" $(_hprofan_values "$cmd" "$opt")
    fi
    return 0
  fi

  # an option
  if ((!dashdash)) && [[ $cur == -* ]] && [[ ${pos[0]-} != help && ${pos[0]-} != completion ]]; then
    _hprofan_add_options "$cur" "$cmd"
    return 0
  fi

  # a positional argument: [COMMAND] FILE, help COMMAND or completion SHELL
  local c
  if ((${#pos[@]} == 0)); then
    # shellcheck disable=SC2086 # a list of words
    _hprofan_add_words '' "$cur" $_hprofan_commands
    _hprofan_add_files "$cur" dumps
  elif ((${#pos[@]} == 1)) && [[ ${pos[0]} == help ]]; then
    for c in $_hprofan_commands; do
      [[ $c != help && $c == "$cur"* ]] && COMPREPLY+=("$c")
    done
  elif ((${#pos[@]} == 1)) && [[ ${pos[0]} == completion ]]; then
    _hprofan_add_words '' "$cur" bash zsh
  elif [[ ${pos[0]} == help || ${pos[0]} == completion ]]; then
    :
  elif ((${#pos[@]} == 1)) && _hprofan_in "${pos[0]}" "$_hprofan_table_commands"; then
    _hprofan_add_files "$cur" dumps
  elif ((${#pos[@]} == 2)) && _hprofan_in "${pos[0]}" "$_hprofan_out_file" && ((!dashdash)) &&
       [[ $cur != -* ]]; then
    # redact IN OUT: OUT is any file
    _hprofan_add_files "$cur" any
  elif _hprofan_in "$cmd" "$_hprofan_many_files"; then
    # diff, trend, ...: more dump files; options once the files they need are there
    _hprofan_add_files "$cur" dumps
    local need=2
    _hprofan_in "$cmd" "$_hprofan_two_files" && need=3
    [[ -z $cur ]] && ((${#pos[@]} >= need)) && ((!dashdash)) && _hprofan_add_options '' "$cmd"
  elif [[ -z $cur ]] && ((!dashdash)); then
    # the file is there: what is left are options
    _hprofan_add_options '' "$cmd"
  fi
  return 0
}

complete -F _hprofan hprofan
