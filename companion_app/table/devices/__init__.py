"""The devices behind typed interfaces: opening them and failing softly (``devices.py``), their
``typing.Protocol``s (``interfaces.py``) and the fakes tests use (``fakes.py``).
"""
