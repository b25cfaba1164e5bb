#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the kernel's YNL CLI with python3-yaml's C loader (20-ynl.t: ynl).

usage: ynl_run.py CLI.PY ARGS...

Runs CLI.PY (tools/net/ynl/cli.py) with ARGS as python3 CLI.PY ARGS
would, but with yaml.safe_load reading through libyaml: the same
documents as the pure-Python loader cli.py calls, in a tenth of the
parsing time, which under emulation is seconds a call.
"""
import os
import runpy
import sys

import yaml

yaml.safe_load = lambda s: yaml.load(s, Loader=yaml.CSafeLoader)
sys.argv = sys.argv[1:]
# Where python3 CLI.PY would look first: CLI.PY's directory, not this one's.
sys.path[0] = os.path.dirname(sys.argv[0])
runpy.run_path(sys.argv[0], run_name="__main__")
