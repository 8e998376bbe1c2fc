# The card-table server. `python -m app` migrates the database (Alembic, to head), seeds it and
# serves on CARDTABLE_HOST:CARDTABLE_PORT; DATABASE_URL must name a PostgreSQL server (see
# docker-compose.yml), so the embedded PostgreSQL is never started inside the container.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    MALLOC_ARENA_MAX=2 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    CARDTABLE_HOST=0.0.0.0 \
    CARDTABLE_PORT=8000

WORKDIR /srv/cardtable

# Dependencies first, in their own layer: they change far less often than the code.
COPY pyproject.toml ./
RUN mkdir app engine && touch app/__init__.py engine/__init__.py \
    && pip install -e . \
    && rm -rf app engine

COPY alembic.ini ./
COPY migrations ./migrations
COPY seeds ./seeds
COPY engine ./engine
# The server's modules compiled with the engine (engine/_mode.py SERVER_MODULES) and their packages;
# the rest of the server comes after the build, so changing it does not compile again.
COPY app/__init__.py ./app/
COPY app/live/__init__.py app/live/wire.py app/live/snapshots.py ./app/live/
# Compile the engine's hot modules (and those two) with mypyc (engine/build.py): the compiler and
# gcc live only inside this step. If compiling fails the step says so and everything runs from its
# sources.
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends gcc libc6-dev >/dev/null \
    && pip install -q "mypy>=2.0" \
    && python -m engine.build \
    && pip uninstall -q -y mypy librt pathspec ast-serialize \
    && apt-get purge -y -qq gcc libc6-dev >/dev/null && apt-get autoremove -y -qq >/dev/null \
    && rm -rf /var/lib/apt/lists/* build
COPY app ./app
COPY static ./static

RUN useradd --system --uid 10001 --no-create-home cardtable
USER cardtable

EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ[\"CARDTABLE_PORT\"]}/api/games', timeout=2)"

CMD ["python", "-m", "app"]
