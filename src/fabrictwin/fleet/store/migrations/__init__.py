"""Alembic migrations of the fleet store, shipped as package data."""
