"""The card-table server: FastAPI + PostgreSQL in front of the pure rules engine (`engine/`)."""
