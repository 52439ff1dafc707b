"""Shared test fixtures (owned by the engine). Area helpers live in tests/<area>_helpers.py."""
from pathlib import Path

import pytest

from browser_helpers import browser  # noqa: F401 - the headless Chromium fixture, for every test file

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


# A test's id is put in the environment (PYTEST_CURRENT_TEST) of every process it spawns; Linux
# refuses an environment string over 128 KiB (E2BIG), so a huge parameter must get a short id.
MAX_ID_LENGTH = 300


# The fast tier, `pytest -m "not slow and not browser"` (README), leaves these out; the full suite runs
# them.  Marked here, in one place, rather than in each file: ``browser`` is every test that uses the
# headless Chromium fixture (tests/browser_helpers.py); ``slow`` the modules and single tests below,
# found with --durations: whole games played out, real `flure` processes and systemd tools, sets of
# rendered or "outside" pictures, cameras read for seconds.
SLOW_MODULES = frozenset({
    "test_simulated_demo", "test_vision_eval", "test_game_playout", "test_web_load", "test_fuzz_api",
    "test_fuzz_files", "test_web_play", "test_engine_scenarios", "test_vision_outside", "test_vision_explain",
    "test_deploy_install", "test_vision_reader_synthetic", "test_vision_nothing_changed",
    "test_vision_outside_nostickers",
})
SLOW_TESTS = frozenset({
    "test_i18n_error_words.py::test_the_exposure_note_of_a_camera_that_ignores_it_in_each_language",
    "test_deploy_doctor.py::test_an_empty_picture_is_no_board",
    "test_web_session.py::test_a_seeded_game_played_through_the_api_with_undos_matches_the_engine",
    "test_vision_synthetic_optics.py::test_truth_corners_match_cv2_aruco_over_random_poses_and_lenses",
    "test_vision_reader_pools.py::test_pools_with_pieces_on_them_random_probe_never_read_wrong",
    "test_vision_stickers.py::test_png_pages_are_a4_at_300_dpi",
    "test_vision_stickers.py::test_sizes_changed_in_the_scheme_file_are_printed",
    "test_web_journal.py::test_a_draw_retried_after_a_kill_9_plays_once",
    "test_web_journal.py::test_flure_play_on_a_damaged_journal_starts_and_says_so",
    "test_web_journal.py::test_a_game_row_without_live_steps_starts_without_a_game_instead_of_crashing",
    "test_phone_camera_nostickers.py::test_flure_play_with_a_phone_and_a_pieces_file_reads_the_phones_frames_"
    "without_stickers",
})


def stale_slow_names() -> list[str]:
    """SLOW_MODULES and SLOW_TESTS entries naming a file or test that is no longer there (renamed?)."""
    here = Path(__file__).resolve().parent
    stale = [m for m in SLOW_MODULES if not (here / f"{m}.py").is_file()]
    for name in SLOW_TESTS:
        file, test = name.split("::")
        if not (here / file).is_file() or f"def {test}(" not in (here / file).read_text(encoding="utf-8"):
            stale.append(name)
    return sorted(stale)


def pytest_collection_modifyitems(items):
    stale = stale_slow_names()
    if stale:
        raise pytest.UsageError(f"tests/conftest.py marks as slow what is not there (renamed?): {stale}")
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if item.path.stem in SLOW_MODULES or f"{item.path.name}::{getattr(item, 'originalname', item.name)}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
    long_ids = [item.nodeid[:80] + "…" for item in items if len(item.nodeid) > MAX_ID_LENGTH]
    if long_ids:
        raise pytest.UsageError(f"test ids longer than {MAX_ID_LENGTH} characters (give the parameters "
                                f"short ids=): {long_ids}")


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared (the spec folder) is not beside the repository")
    return SHARED
