"""The Setup page's work (``setup.py``) and the checks shared with ``flure doctor`` (``checks.py``).
"""
