#!/bin/sh
# The compiled gateway (dist/main.js, from `npm run build`) as `npm start` and the Docker image
# run it, with the memory settings measured at 100,000 moving partitions (README, "Memory"):
#
# - --heap-growing-percent=30: after a full collection V8 lets the old generation grow 30 % past
#   the live data before the next one. Left to itself it allows up to 4x when its heap limit is
#   the machine's default, and a 100k start allocates fast enough to get it: ~600 MiB RSS for
#   ~90 MiB live. No limit is set, so retained reassignments can never run the heap out. (With
#   the worker thread, GATEWAY_WORKER_HEAP_GROWING_PERCENT can lower it when the worker starts.)
# - --max-semi-space-size=16: a 32 MiB young generation instead of 64 MiB (V8 also adds the
#   young generation's size to the old generation's allowance).
# - MALLOC_MMAP_THRESHOLD_=65536: glibc gives each allocation of 64 KiB or more (Kafka answers,
#   request bodies, Buffers) its own mapping, returned when freed; by default it raises the
#   threshold after the first large free and keeps ~100 MiB in its heap at the high mark.
# - MALLOC_ARENA_MAX=2: glibc's malloc arenas (one per thread that allocates, up to 8 per core:
#   the worker thread, V8's GC and compiler helpers, libuv's pool) at most two. At 100,000 moving
#   partitions with the worker thread the arenas held ~40 MiB at the RSS peak, ~28 with two;
#   the gateway's RSS 364-391 MiB in eight runs against 366-426 in eighteen, its CPU the same
#   (docs/worker-thread.md, eighteenth session).
#
# With the reassignment worker thread (GATEWAY_WORKER_THREAD, docs/worker-thread.md) the HTTP
# thread holds no reassignment state and allocates little: --max-semi-space-size=2 there (the
# worker's young generation is set apart, src/worker/supervisor.ts); 16 MiB there is ~28 MiB of
# RSS for nothing at 100,000 partitions. Since node's flags are fixed when it starts,
# GATEWAY_WORKER_THREAD=auto (the default) is decided here, before node starts, by
# dist/worker/size-probe.js: the cluster's partition count against
# GATEWAY_WORKER_THREAD_MIN_PARTITIONS, as the gateway would decide it (src/worker/choice.ts).
# When the probe cannot tell (Kafka not answering), the gateway decides itself, with the
# in-process flags.
#
# GATEWAY_NODE_FLAGS replaces the node flags (empty: Node's and V8's defaults); an
# MALLOC_MMAP_THRESHOLD_ or MALLOC_ARENA_MAX already set is kept. exec: node is the process that receives SIGTERM
# (PID 1 in the image), so requests in flight drain (SHUTDOWN_TIMEOUT_MS). The working directory
# stays the caller's (relative paths in the configuration keep their meaning).
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_-65536}"
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX-2}"
FLAGS_IN_PROCESS="--heap-growing-percent=30 --max-semi-space-size=16"
FLAGS_WORKER_THREAD="--heap-growing-percent=30 --max-semi-space-size=2"
DIST="$(dirname "$0")/../dist"
case "$(printf '%s' "${GATEWAY_WORKER_THREAD-}" | tr 'A-Z' 'a-z' | tr -d ' ')" in
  on | true | 1) FLAGS="$FLAGS_WORKER_THREAD" ;;
  off | false | 0) FLAGS="$FLAGS_IN_PROCESS" ;;
  *)
    FLAGS="$FLAGS_IN_PROCESS"
    CHOICE="$(node "$DIST/worker/size-probe.js" 2>/dev/null)"
    case "$CHOICE" in
      on\ *)
        FLAGS="$FLAGS_WORKER_THREAD"
        export GATEWAY_WORKER_THREAD=on GATEWAY_WORKER_THREAD_REASON="${CHOICE#on }"
        ;;
      off\ *) export GATEWAY_WORKER_THREAD=off GATEWAY_WORKER_THREAD_REASON="${CHOICE#off }" ;;
    esac
    ;;
esac
# Unquoted on purpose: the flags are words.
# shellcheck disable=SC2086
exec node ${GATEWAY_NODE_FLAGS-$FLAGS} "$DIST/main.js" "$@"
