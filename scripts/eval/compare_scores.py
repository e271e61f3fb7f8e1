"""One method against the better of its peers, per benchmark, with a paired bootstrap interval on the gap.

The code and its description are in pagesieve.eval.compare_scores (eval/compare_scores.py), where the tests import it.

    .venv/bin/python scripts/eval/compare_scores.py report/scores.csv --method blocknet \
        --against trafilatura,readability
"""

import sys

from pagesieve.eval.compare_scores import main

if __name__ == "__main__":
    sys.exit(main())
