# shellcheck shell=bash
# procs.sh — helpers shared by the hack/ scripts that start and stop local processes. Source it
# after setting $pids (the directory of NAME.pid files) and, for stop_group, $GRACE (seconds).
#   die MSG             print "<script>: MSG" on stderr and exit 1 (<script>: $0 without .sh)
#   step MSG            print MSG with the seconds elapsed since the script started
#   ours NAME PID       PID is alive and still runs the binary NAME (guards against PID reuse)
#   running PID         the process exists and has not exited (a zombie has closed its ports)
#   pid_if_ours NAME    print the recorded PID of NAME when it still runs NAME
#   alive NAME          the recorded PID of NAME still runs NAME (pid_if_ours, silent)
#   port_owner PORT     the PIDs listening on TCP PORT (any address), one per line
#   stop_group NAME...  SIGTERM the recorded processes together, wait up to $GRACE s, SIGKILL
#                       leftovers, remove their pid files
#   on_exit             an EXIT trap (`trap on_exit EXIT`): when the script fails, print the last
#                       30 lines of $logs/$failing.log ($failing: the component being started, if
#                       any), run the script's on_failure when it defines one, and say
#                       "<script>: FAILED after Ns" followed by $failed_hint
#   explain_memcached NS NAME LOG_CMD...
#                       after a timed-out wait, say on stderr why memcached/NAME in NS is not
#                       there yet: its conditions (type=status reason: message), its last 10
#                       events, and the operator's last log lines, which LOG_CMD prints

t0=${t0:-$(date +%s%N)}
elapsed() {
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}
step() { printf '[%6ss] %s\n' "$(elapsed)" "$*"; }
die() { echo "$(basename -- "$0" .sh): $*" >&2; exit 1; }

ours() {
  kill -0 "$2" 2>/dev/null || return 1
  local argv0
  argv0=$(tr '\0' '\n' <"/proc/$2/cmdline" 2>/dev/null | head -n1) || return 1
  [ "$(basename -- "$argv0")" = "$1" ]
}

running() {
  local state
  state=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

pid_if_ours() {
  local pid
  pid=$(cat "$pids/$1.pid" 2>/dev/null || true)
  [[ "$pid" =~ ^[0-9]+$ ]] && ours "$1" "$pid" && echo "$pid"
}

alive() { pid_if_ours "$1" >/dev/null; }

port_owner() { ss -Hltnp "sport = :$1" 2>/dev/null | { grep -o "pid=[0-9]*" || true; } | cut -d= -f2 | sort -u; }

on_exit() {
  local rc=$?
  [ "$rc" -eq 0 ] && return
  if [ -n "${failing:-}" ] && [ -s "${logs:-}/$failing.log" ]; then
    echo "---- last 30 lines of $logs/$failing.log ----" >&2
    tail -n 30 "$logs/$failing.log" >&2
    echo "----" >&2
  fi
  if declare -F on_failure >/dev/null; then on_failure || true; fi
  echo "$(basename -- "$0" .sh): FAILED after $(elapsed)s${failed_hint:-}" >&2
}

stop_group() {
  local name pid
  local -a names=() ids=()
  for name in "$@"; do
    [ -f "$pids/$name.pid" ] || continue
    if pid=$(pid_if_ours "$name"); then
      kill -TERM "$pid" 2>/dev/null || true
      names+=("$name") ids+=("$pid")
    else
      step "$name was not running"
      rm -f "$pids/$name.pid"
    fi
  done
  [ "${#ids[@]}" -gt 0 ] || return 0
  local deadline=$(( $(date +%s%N) / 1000000 + ${GRACE:-10} * 1000 )) i left
  while :; do
    left=0
    for i in "${!ids[@]}"; do
      running "${ids[i]}" && left=1
    done
    [ "$left" = 0 ] && break
    if [ $(( $(date +%s%N) / 1000000 )) -ge "$deadline" ]; then
      for i in "${!ids[@]}"; do
        if running "${ids[i]}"; then
          step "${names[i]} (pid ${ids[i]}) ignored SIGTERM for ${GRACE:-10}s: SIGKILL"
          kill -KILL "${ids[i]}" 2>/dev/null || true
        fi
      done
      sleep 0.2
      break
    fi
    sleep 0.1
  done
  for i in "${!ids[@]}"; do
    rm -f "$pids/${names[i]}.pid"
    step "stopped ${names[i]} (pid ${ids[i]})"
  done
}

explain_memcached() {
  local ns=$1 name=$2
  shift 2
  echo ">> memcached/$name in $ns: conditions" >&2
  "$KUBECTL" get memcached "$name" -n "$ns" \
    -o jsonpath='{range .status.conditions[*]}{"   "}{.type}={.status} {.reason}: {.message}{"\n"}{end}' >&2 || true
  echo ">> memcached/$name in $ns: recent events" >&2
  "$KUBECTL" events -n "$ns" --for "memcached/$name" 2>&1 | tail -n 10 >&2 || true
  echo ">> the operator's last log lines" >&2
  "$@" 2>&1 | tail -n 20 >&2 || true
}
