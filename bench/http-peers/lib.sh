# bench/http-peers/lib.sh: what the wrk benchmarks share (sourced by revisions.sh, auth.sh and
# floor.sh): ports, processes, the wrk script of one JSON-RPC POST, a session, a run.
#
# Needs WORK (a scratch directory), CONNECTIONS, DURATION and THREADS set by the caller.

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_port() {
  for _ in $(seq 1 200); do
    if python3 -c "import socket; socket.create_connection(('127.0.0.1',$1),0.2)" 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# Starts CMD... in the background, its pid in PIDS and in LAST_PID.
start() {
  "$@" >/dev/null 2>&1 &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
}

# A session (2025-11-25) on URL: its Mcp-Session-Id.
open_session() {
  local url="$1" headers id
  headers="$(curl -s -D - -o /dev/null "$url" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}')"
  id="$(tr -d '\r' <<<"$headers" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: *//p')"
  [[ -n "$id" ]] || { echo "no session from $url" >&2; return 1; }
  curl -s -o /dev/null "$url" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H "Mcp-Session-Id: $id" -H 'MCP-Protocol-Version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
  echo "$id"
}

# A wrk script that POSTs BODY with HEADERS (name=value words) and counts answers without
# `"value":3`; every request gets its own id (`"id":1,` in BODY is replaced per request).
script() { # file body headers...
  local file="$1" body="$2"
  shift 2
  {
    echo 'wrk.method = "POST"'
    printf 'wrk.body = [==[%s]==]\n' "$body"
    echo 'wrk.headers["Content-Type"] = "application/json"'
    echo 'wrk.headers["Accept"] = "application/json, text/event-stream"'
    for header in "$@"; do
      printf 'wrk.headers["%s"] = "%s"\n' "${header%%=*}" "${header#*=}"
    done
    cat <<'LUA'
local template = wrk.body
local next_id = 0
function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)") or "0", 16))
  next_id = math.random(1, 1000000) * 1000000
end
function request()
  next_id = next_id + 1
  return wrk.format(nil, nil, nil, (template:gsub('"id":1,', '"id":' .. next_id .. ',', 1)))
end
local bad = 0
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"value":3', 1, true) then bad = bad + 1 end
end
function done(summary, latency, requests)
  io.write(string.format("RESULT %d %.1f %.3f %d %.3f\n", summary.requests,
    summary.requests / (summary.duration / 1e6), latency:percentile(99) / 1000, bad,
    latency:percentile(50) / 1000))
end
LUA
  } >"$file"
}

# The peak RSS (VmHWM) of PID, in MiB.
peak_rss() { awk '/^VmHWM/ {printf "%.1f", $2 / 1024}' "/proc/$1/status"; }

# One wrk run: prints "LABEL requests calls/s p99_ms bad p50_ms [peak_rss_MiB]".
run() { # label url script [pid]
  local out rss=""
  out="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" -s "$3" "$2")"
  echo "$out" | sed 's/^/  /' >&2
  if [[ -n "${4:-}" ]]; then rss=" $(peak_rss "$4")"; fi
  grep '^RESULT' <<<"$out" | sed "s/^RESULT/$1/; s/\$/$rss/"
}
