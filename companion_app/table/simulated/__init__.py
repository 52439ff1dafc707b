"""The simulated table: simulated players acting on the twin (``simulated.py``) and ``flure play
--demo`` (``demo.py``).
"""
