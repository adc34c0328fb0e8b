"""Copy the paper's released per-trial records into out/trials.jsonl, unchanged.

Usage (in the sandbox, from the adapter folder): python convert.py released/trials.jsonl
"""

import shutil
import sys

shutil.copyfile(sys.argv[1], "out/trials.jsonl")
