"""Tunables of the client, named once.

Every default the client uses lives here so that a reader finds them in one place and a
test can refer to them by name.
"""

from __future__ import annotations

# --- HTTP ---------------------------------------------------------------------------
# Codings offered to every platform, best first (httpx decodes each):
# zstd's pages are the smallest and the quickest to decode (docs/performance.md).
ACCEPT_ENCODING = "zstd, gzip, deflate"
# Finite timeouts in seconds. A read of 1000 events takes a few milliseconds on the
# reference platform; 30 s leaves room for a slow network or a busy database.
DEFAULT_CONNECT_TIMEOUT = 5.0
DEFAULT_READ_TIMEOUT = 30.0
DEFAULT_WRITE_TIMEOUT = 30.0
DEFAULT_POOL_TIMEOUT = 10.0


# --- Retries --------------------------------------------------------------------------
DEFAULT_MAX_RETRIES = 4
INITIAL_RETRY_DELAY = 0.5  # seconds; doubled per attempt, then full jitter
MAX_RETRY_DELAY = 8.0  # cap of one backoff sleep
DEFAULT_RETRY_DEADLINE = 60.0  # total seconds a call may spend retrying
MAX_RETRY_AFTER = 30.0  # a longer Retry-After (an SMS or login throttle) is raised, not waited
RETRY_STATUSES = frozenset({429, 502, 503, 504})
# A platform that signals failure only in the body: answers up to this size are looked into
# for a "too many requests" code (failures are a sentence; pages of records are larger).
BODY_FAILURE_MAX_BYTES = 4096

# --- Tokens ---------------------------------------------------------------------------
# Refresh an access token this many seconds before it expires, but never earlier than
# a quarter of its lifetime before (a platform configured with 2 s tokens still works).
TOKEN_REFRESH_MARGIN = 60.0
TOKEN_REFRESH_MARGIN_FRACTION = 0.25
REDIRECT_URI_NONE = "none"  # spec §4.2: the literal given when there is no callback
TOKEN_CACHE_FILENAME = "tokens.json"  # noqa: S105 - a file name, not a secret

# --- Paging ---------------------------------------------------------------------------
MAX_PAGE_SIZE = 1000  # protocol §9
# Bulk reads use the largest page: the client and the platform pay a fixed cost per request.
DEFAULT_PAGE_SIZE = MAX_PAGE_SIZE
# Pages in flight after the first page reveals `total` (opslib/client/_pager.py InFlight): the
# number adapts to the link, up to the cap `concurrency` (default and most: 32, enough for
# a 150 ms link at 20 Mbit/s or 100-row pages at 40 ms; within the platform's rate below).
MAX_CONCURRENCY = 32
DEFAULT_CONCURRENCY = MAX_CONCURRENCY
# The fewest a read starts with (more when its first page's round trip is long: InFlight).
INITIAL_IN_FLIGHT = 4
SLOW_START_GROWTH = 1.125  # slow start goes on while a round's throughput grows this much
# Pages queued beyond what the link and the platform hold (Little's law, see InFlight):
# fewer than QUEUE_LOW, one more in flight; more than QUEUE_HIGH, one fewer. Pages of the
# largest size: a read of smaller pages lets as many rows queue (100-row pages: 10x the pages).
QUEUE_LOW = 2.0
QUEUE_HIGH = 4.0
# Pages a read holds (in flight, and answered ones waiting for their turn) at most, as a
# multiple of its pages in flight: a page answered early does not hold a request back.
PAGES_HELD = 2
# Pages started per second at most: protocol §8's per-token bucket (1000/s, burst 2000).
MAX_PAGE_RATE = 1000.0
# Pages started at once beyond that rate: the most in flight, and their refill as the first is read.
PAGE_RATE_BURST = 2 * MAX_CONCURRENCY
# Statuses that halve the pages in flight: the platform throttles (429) or is overloaded (503).
THROTTLE_STATUSES = frozenset({429, 503})
# A client's connections, sized from its cap: the pages in flight, and the calls of the
# session besides them (a token refresh, another resource's read), kept alive.
EXTRA_CONNECTIONS = 2
# progress=None shows a bar only when a read needs more pages than this.
PROGRESS_MIN_PAGES = 5

# --- Event cache (opslib/client/_event_cache.py) ------------------------------------------
# Closed windows of event records are kept as Parquet under <user cache dir>/events.
CACHE_DIR_ENV = "OPSLIB_CACHE_DIR"  # replaces <user cache dir>/opslib/events
CACHE_WINDOW_MS = 86_400_000  # one cached window: a whole UTC day
# A window is closed once its end is older than now minus this margin: devices report late
# (the `ts` of /device/report), and an hour covers a reconnecting device's backlog.
CACHE_CLOSED_MARGIN_MS = 3_600_000
# Missing windows fetched at once (each window's pages are fetched concurrently too).
CACHE_FETCH_CONCURRENCY = 2
CACHE_READ_THREADS = 2  # cached windows decoded at once (Parquet releases the GIL)
BUILD_THREADS = 2  # columns of a large frame joined at once (Arrow and numpy release the GIL)
# A read of pages smaller than this types their records together, this many rows at once:
# typing costs a fixed time per call and per page joined (100-row pages of a capped platform).
TYPING_BATCH_ROWS = 1000
# A text column whose pages average at least this many rows stays chunked in the frame
# (cached windows); smaller pages are joined, as many small chunks slow every later step.
CHUNKED_STRINGS_MIN_ROWS = 10_000

# --- Dask (opslib/dask.py) ---------------------------------------------------------------
DASK_DEFAULT_PARTITION = "1D"  # one partition per UTC day
# Workers get the driver's access token; refresh it first if it has less left than this.
DASK_TOKEN_MIN_VALIDITY_S = 1800.0
# Without properties=, the property columns come from a sample: the first rows of each
# event type over the range, and the first rows of its last day (one request each).
DASK_SAMPLE_ROWS = 1000
DASK_SAMPLE_LAST_MS = 86_400_000
# Pages of one partition a worker fetches at once (to_dask(concurrency=)).
DASK_PARTITION_CONCURRENCY = 4

# --- Embedded platform ----------------------------------------------------------------
EMBEDDED_DB_FILENAME = "demo.db"
EMBEDDED_DEFAULT_SCALE = "demo"
APP_NAME = "opslib"
