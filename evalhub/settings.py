"""EvalHub settings: one file, driven by environment variables (see the table in README.md).

With no variables set, EvalHub runs embedded: SQLite and a filesystem Celery broker under var/.
DATABASE_URL and CELERY_BROKER_URL switch to PostgreSQL and Redis/RabbitMQ for production.
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, "").strip() or default


def env_bool(name: str, default: bool = False) -> bool:
    value = env_str(name)
    if not value:
        return default
    return value.lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = env_str(name)
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {value!r}") from None


def names_a_pool(argv: list[str]) -> bool:
    """Whether a command line chooses Celery's worker pool: `-P x`, `-Px`, `--pool x` or `--pool=x`."""
    return any(arg in ("-P", "--pool") or arg.startswith(("-P", "--pool=")) for arg in argv[1:])


def env_list(name: str, default: list[str]) -> list[str]:
    value = env_str(name)
    return [item.strip() for item in value.split(",") if item.strip()] if value else default


BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("EVALHUB_VAR_DIR", str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)


def install_secret_key(var_dir: Path) -> str:
    """This install's own signing key, made once and kept in var/secret_key (readable by its owner only).

    The web app, the worker and every `manage.py` command in another shell read the same file, so sessions and
    the secrets stored under a key derived from it stay readable whichever process started first.
    """
    path = var_dir / "secret_key"
    if not path.exists():
        # An install made before this file existed signed with the fixed development key of those versions, and
        # its stored secrets are encrypted under a key derived from it: it keeps that key, so nothing is lost
        # (delete var/secret_key and enter the secrets again to move to a random one).
        legacy = (var_dir / "evalhub.sqlite3").exists()
        key = "django-insecure-evalhub-development-only" if legacy else secrets.token_urlsafe(50)
        # Write it whole under another name, then link it in: a process starting at the same moment either
        # wins the link or reads the winner's complete key, never half of one.
        fd, draft = tempfile.mkstemp(dir=var_dir, prefix=".secret_key.")  # mode 0600
        with os.fdopen(fd, "w") as file:
            file.write(key)
        try:
            os.link(draft, path)
        except FileExistsError:
            pass
        finally:
            os.unlink(draft)
    return path.read_text().strip()


DEBUG = env_bool("DEBUG")
LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"]
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", LOOPBACK_HOSTS)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY:
    # An install that answers only on this machine (the defaults `make run` uses) works in any shell with nothing
    # exported; one that answers other hosts is a deployment, and a deployment's key is chosen by its operator.
    if not DEBUG and set(ALLOWED_HOSTS) - set(LOOPBACK_HOSTS):
        raise ImproperlyConfigured(
            f"SECRET_KEY is not set. This install answers {', '.join(ALLOWED_HOSTS)} (ALLOWED_HOSTS), so it needs "
            "a long random SECRET_KEY in the environment. Without ALLOWED_HOSTS, or with DEBUG=1, EvalHub keeps "
            "a key of its own in var/secret_key."
        )
    SECRET_KEY = install_secret_key(VAR_DIR)

CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "ninja",  # the API docs' Swagger UI, served from our own static files
    "evalhub",
    "runs",
    "scorers",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Every page requires login unless its view is marked @login_not_required.
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "evalhub.urls"
WSGI_APPLICATION = "evalhub.wsgi.application"

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
                "runs.context_processors.quota",
            ],
        },
    },
]

# Database: SQLite under var/ unless DATABASE_URL says otherwise (postgres://… uses psycopg 3).
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'evalhub.sqlite3'}"),
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, for the test database: worker processes started by tests must see the same data.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
    # WAL and a busy timeout let the web process and the worker write the same file without "database is locked".
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(exist_ok=True)  # WhiteNoise serves from here in production (after collectstatic).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

# Production hardening. Behind a TLS-terminating proxy set SECURE_PROXY_SSL_HEADER_ENABLED=1.
if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True
    if env_bool("SECURE_PROXY_SSL_HEADER_ENABLED"):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}

# Celery: the filesystem broker under var/ unless CELERY_BROKER_URL names redis:// or amqp://.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    BROKER_DIR = VAR_DIR / "broker"
    (BROKER_DIR / "queue").mkdir(parents=True, exist_ok=True)
    (BROKER_DIR / "control").mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # How often an idle worker looks for new messages (kombu's default is 1 s): a run starts within this.
        "polling_interval": 0.05,
    }
else:
    # Time limits below stay under this, so a long run is never redelivered while it still executes.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_TASK_DEFAULT_QUEUE = env_str("EVALHUB_CELERY_QUEUE", "evalhub")
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A run spends nearly all its time waiting on the model and the MCP server, so one worker process carries many at
# once on threads (each run has its own event loop: runs/pipeline.py) rather than one per forked process. This is
# what `celery -A evalhub worker` starts with no flags; `--pool`/`--concurrency` override it. Celery reads
# `--pool prefork` as "no --pool given" once a pool is configured (celery.bin.worker.WorkersPool.convert) and would
# start threads anyway, so the default is configured only when the command line names no pool.
CELERY_WORKER_POOL = None if names_a_pool(sys.argv) else "threads"
EVALHUB_WORKER_CONCURRENCY = env_int("EVALHUB_WORKER_CONCURRENCY", 64)
if EVALHUB_WORKER_CONCURRENCY < 1:
    raise ImproperlyConfigured(f"EVALHUB_WORKER_CONCURRENCY must be at least 1, got {EVALHUB_WORKER_CONCURRENCY}")
CELERY_WORKER_CONCURRENCY = EVALHUB_WORKER_CONCURRENCY
# How many such processes `manage.py worker` starts (runs/worker_processes.py): 0, the default, is one per core,
# as a process's harness work runs under its one GIL.
EVALHUB_WORKER_PROCESSES = env_int("EVALHUB_WORKER_PROCESSES", 0)
if EVALHUB_WORKER_PROCESSES < 0:
    raise ImproperlyConfigured(
        f"EVALHUB_WORKER_PROCESSES must be 0 (one per core) or more, got {EVALHUB_WORKER_PROCESSES}"
    )
CELERY_TASK_SOFT_TIME_LIMIT = 1500
CELERY_TASK_TIME_LIMIT = 1800
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# Cache: the API's rate limits must be shared by every web process, so never per-process memory. Redis when
# EVALHUB_CACHE_URL (or a redis:// broker) names one, else a table in the database (`manage.py createcachetable`).
# Sharing the broker's Redis database is safe as long as nothing clears the whole cache: `cache.clear()` is a
# FLUSHDB there and would drop every queued run.
EVALHUB_CACHE_URL = env_str(
    "EVALHUB_CACHE_URL", CELERY_BROKER_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://")) else ""
)
if EVALHUB_CACHE_URL.startswith(("redis://", "rediss://")):
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": EVALHUB_CACHE_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "evalhub_cache"}}

# Product limits.
EVALHUB_DAILY_RUN_QUOTA = env_int("EVALHUB_DAILY_RUN_QUOTA", 100)
# Where finished runs' traces are pushed (OTLP over HTTP: a collector, Langfuse, Phoenix, Jaeger); empty: nowhere.
# The headers ("Authorization=Bearer …,x-team=evals") are secrets: read here, never logged or shown.
EVALHUB_OTLP_ENDPOINT = env_str("EVALHUB_OTLP_ENDPOINT", "")
EVALHUB_OTLP_HEADERS = {
    key.strip(): value.strip()
    for key, _, value in (item.partition("=") for item in env_str("EVALHUB_OTLP_HEADERS").split(","))
    if key.strip() and value.strip()
}
# API requests per minute, per API key and per logged-in user.
EVALHUB_API_RATE_LIMIT = env_int("EVALHUB_API_RATE_LIMIT", 600)
# Seconds a page (and by default the API) waits for Inspect or a provider Test before answering "still working"
# and updating live: the call goes on in the background (evalhub/background.py) while the web process serves others.
EVALHUB_WEB_WAIT_SECONDS = env_int("EVALHUB_WEB_WAIT_SECONDS", 3)
# How many of those background calls (Inspect, Test, direct tool tests; 20 places per web process) one user may
# have at once; 0 means half of them. More answer 429 saying to wait for one to end.
EVALHUB_BACKGROUND_SLOTS_PER_USER = env_int("EVALHUB_BACKGROUND_SLOTS_PER_USER", 0)
# How many stdio servers' commands one web process runs at once for Inspect, tool tests and re-syncs (anyone may
# call staff's stdio servers; each call starts the command on this host). More are refused with a 429.
EVALHUB_WEB_STDIO_PROCESSES = env_int("EVALHUB_WEB_STDIO_PROCESSES", 4)
# The live event stream (GET /api/v1/events): how many recent events are kept for clients resuming with
# Last-Event-ID, and how many streams one web process serves at once (each holds a thread while it is open; run the
# WSGI server with at least this many threads, see README; one thread per process reads the table for all of them:
# runs/events/tail.py), and how many of
# those one user may hold (so one script or a dozen open tabs cannot take them all).
EVALHUB_EVENTS_KEPT = env_int("EVALHUB_EVENTS_KEPT", 10_000)
EVALHUB_EVENT_STREAMS = env_int("EVALHUB_EVENT_STREAMS", 16)
EVALHUB_EVENT_STREAMS_PER_USER = env_int("EVALHUB_EVENT_STREAMS_PER_USER", 4)
# Evals a server ships (evals/list): how many an inspection keeps per server, and how large each may be (bytes of
# compact JSON); the rest is reported, not stored (evalhub.mcp_client.server_evals.capped).
EVALHUB_SHIPPED_EVALS_MAX = env_int("EVALHUB_SHIPPED_EVALS_MAX", 500)
EVALHUB_SHIPPED_EVAL_MAX_BYTES = env_int("EVALHUB_SHIPPED_EVAL_MAX_BYTES", 65_536)
if min(EVALHUB_SHIPPED_EVALS_MAX, EVALHUB_SHIPPED_EVAL_MAX_BYTES) < 1:
    raise ImproperlyConfigured("EVALHUB_SHIPPED_EVALS_MAX and EVALHUB_SHIPPED_EVAL_MAX_BYTES must be at least 1")
# Calibration (scorers/calibration): a scorer version is `calibrated` once at least MIN_REVIEWS of the runs it
# scored were reviewed by people and its Cohen's κ against them reaches MIN_KAPPA. GATE_JUDGES: "all" lets every
# gating judge decide a run's verdict; "calibrated" makes a judge that is not calibrated advisory (shown, never
# deciding) unless an experiment chose otherwise.
EVALHUB_CALIBRATION_MIN_REVIEWS = env_int("EVALHUB_CALIBRATION_MIN_REVIEWS", 20)
if EVALHUB_CALIBRATION_MIN_REVIEWS < 1:
    raise ImproperlyConfigured(
        f"EVALHUB_CALIBRATION_MIN_REVIEWS must be at least 1, got {EVALHUB_CALIBRATION_MIN_REVIEWS}"
    )
_min_kappa = env_str("EVALHUB_CALIBRATION_MIN_KAPPA", "0.6")
try:
    EVALHUB_CALIBRATION_MIN_KAPPA = float(_min_kappa)
except ValueError:
    EVALHUB_CALIBRATION_MIN_KAPPA = float("nan")
if not -1 <= EVALHUB_CALIBRATION_MIN_KAPPA <= 1:
    raise ImproperlyConfigured(f"EVALHUB_CALIBRATION_MIN_KAPPA must be a number from -1 to 1, got {_min_kappa!r}")
EVALHUB_GATE_JUDGES = env_str("EVALHUB_GATE_JUDGES", "all")
if EVALHUB_GATE_JUDGES not in ("all", "calibrated"):
    raise ImproperlyConfigured(f'EVALHUB_GATE_JUDGES must be "all" or "calibrated", got {EVALHUB_GATE_JUDGES!r}')
# Key for secrets stored in the database; derived from SECRET_KEY when unset (then rotating SECRET_KEY means
# re-entering stored tokens and API keys).
EVALHUB_SECRETS_KEY = env_str("EVALHUB_SECRETS_KEY")
# Environment variables a secret may reference as ${NAME}: names, or prefixes ending in * (MCP_*). Empty: none.
# EvalHub's own settings are refused whatever this says (evalhub.vault.PROTECTED_ENV_NAMES).
EVALHUB_SECRET_ENV_ALLOWLIST = env_list("EVALHUB_SECRET_ENV_ALLOWLIST", [])
# Where users reach this install: exported suite files point editors at its JSON Schema there.
EVALHUB_PUBLIC_URL = env_str("EVALHUB_PUBLIC_URL", "http://localhost:8000").rstrip("/")
# Whether servers added by non-staff users may reach loopback and private-network addresses (staff's always may;
# link-local and cloud metadata addresses are refused for everyone). See evalhub.outbound.
EVALHUB_ALLOW_PRIVATE_URLS = env_bool("EVALHUB_ALLOW_PRIVATE_URLS")
