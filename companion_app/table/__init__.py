"""The table domain: the live session, its SQLite journal, the devices it drives, the camera readings."""
