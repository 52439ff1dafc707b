"""The camera path: the worker that watches the table (``watcher.py``), the pure judge of an update
against the game (``judge.py``), the loop that keeps the effects and the one gate (``loop.py``),
readings against the game (``readings.py``), the last frame (``frames.py``) and the phone camera
(``phone_camera.py``).
"""
