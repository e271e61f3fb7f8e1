"""pagesieve: web page cleaning and structured extraction, from one laptop to a Spark cluster."""

import os as _os

__version__ = "0.1.0"

# When the repository root is on sys.path (python -m ..., pytest with a root conftest) this folder
# shadows the installed package, and the design-card folders (jobs/, models/, ...) would not be found.
# Appending the root lets `pagesieve.jobs` resolve to ./jobs in that case too (see STACK.md, section 8).
_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_root, "setup.py")) and _root not in __path__:
    __path__.append(_root)
