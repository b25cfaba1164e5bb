#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The largest configuration SET_CONFIG takes (20-ynl.t), as ynl's JSON:
a 3000 ns threshold for every reason code the module has a slot for (VMX
basic reasons, SVM codes, NPF and the rest from 0x400, SVM_EXIT_ERR) and
a reason filter of the same.
"""
import json

codes = [("vmx", c) for c in range(128)] + \
    [("svm", c) for c in list(range(0x100)) + list(range(0x400, 0x420)) + [0xffffffff]]
print(json.dumps({"config": {
    "reason-threshold": [{"isa": i, "code": c, "threshold-ns": 3000} for i, c in codes],
    "filter-reasons": {"reason": [{"isa": i, "code": c} for i, c in codes]}}}))
