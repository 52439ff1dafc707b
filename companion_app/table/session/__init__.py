"""The live table session and what it keeps: the session (``session.py``), its journal
(``journal.py``, a collaborator) over the SQLite store (``store.py``), the public state JSON
(``state.py``) and the broker of live updates to the phones (``events.py``).
"""
