"""Shared fixtures: every test gets a fresh default graph."""

import pytest

import flowrt as fr


@pytest.fixture(autouse=True)
def _fresh_default_graph():
    fr.reset_default_graph()
    yield
    fr.reset_default_graph()


pytest_plugins = ["pytester"]
