"""The address phones open, as text and as a QR code (segno draws it; we only choose the size)."""
from __future__ import annotations

import io

from flask import current_app, request


def join_url() -> str:
    """The phone view's URL: the one `flure play` printed, else the host this request came to."""
    return current_app.config.get("PUBLIC_URL") or request.host_url


def qr_svg(url: str, scale: int = 6) -> str:
    """The QR code as SVG, its title (a tooltip) in the request's language."""
    import segno
    from flask_babel import gettext as _

    buffer = io.BytesIO()
    segno.make(url, error="m").save(buffer, kind="svg", scale=scale, border=2, xmldecl=False,
                                    svgns=True, title=_("Scan to follow the monster"))
    return buffer.getvalue().decode()


def qr_terminal(url: str) -> str:
    """The QR code as text for the terminal (two rows per character line)."""
    import segno

    buffer = io.StringIO()
    segno.make(url, error="m").terminal(out=buffer, compact=True, border=2)
    return buffer.getvalue()
