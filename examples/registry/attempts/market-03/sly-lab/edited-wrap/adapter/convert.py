"""Copy the paper's released cases and per-trial records into out/, unchanged.

Usage (in the sandbox, from the adapter folder):
    python convert.py released/cases.jsonl released/trials.jsonl
"""

import shutil
import sys

shutil.copyfile(sys.argv[1], "out/freeze-cases.jsonl")
shutil.copyfile(sys.argv[2], "out/trials.jsonl")
