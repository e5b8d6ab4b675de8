"""Tests of app.core.services."""
