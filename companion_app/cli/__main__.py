"""``python -m companion_app.cli``: the same ``flure`` command without the installed script."""
import sys

from . import main

sys.exit(main())
