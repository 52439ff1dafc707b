"""The web layer: the Flask app factory, its API and pages, security, live events and the server."""
