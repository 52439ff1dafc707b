"""The companion web app and the `flure` command (the composition root)."""
