# The card-table server. `python -m app` migrates the database (Alembic, to head), seeds it and
# serves on CARDTABLE_HOST:CARDTABLE_PORT; DATABASE_URL must name a PostgreSQL server (see
# docker-compose.yml), so the embedded PostgreSQL is never started inside the container.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
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
COPY app ./app
COPY static ./static

RUN useradd --system --uid 10001 --no-create-home cardtable
USER cardtable

EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ[\"CARDTABLE_PORT\"]}/api/games', timeout=2)"

CMD ["python", "-m", "app"]
