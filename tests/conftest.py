"""Shared test fixtures (owned by the engine). Area helpers live in tests/<area>_helpers.py."""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


# A test's id is put in the environment (PYTEST_CURRENT_TEST) of every process it spawns; Linux
# refuses an environment string over 128 KiB (E2BIG), so a huge parameter must get a short id.
MAX_ID_LENGTH = 300


def pytest_collection_modifyitems(items):
    long_ids = [item.nodeid[:80] + "…" for item in items if len(item.nodeid) > MAX_ID_LENGTH]
    if long_ids:
        raise pytest.UsageError(f"test ids longer than {MAX_ID_LENGTH} characters (give the parameters "
                                f"short ids=): {long_ids}")


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared (the spec folder) is not beside the repository")
    return SHARED
