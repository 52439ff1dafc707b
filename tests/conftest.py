"""Shared test fixtures (owned by the engine). Area helpers live in tests/<area>_helpers.py."""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared (the spec folder) is not beside the repository")
    return SHARED
