#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check LAVA job definitions with LAVA's own strict schema, as lava-server
does on submission (lava_common.schemas.validate, strict: no unknown key).

  validate.py JOB.yaml...
"""
import sys

import yaml
from lava_common.schemas import validate
from voluptuous import Invalid


def main(paths):
    if not paths:
        sys.exit(__doc__)
    bad = 0
    for path in paths:
        try:
            with open(path) as f:
                validate(yaml.safe_load(f), strict=True, extra_context_variables=[])
            print("%s: valid" % path)
        except (Invalid, yaml.YAMLError, OSError) as exc:
            print("%s: INVALID: %s" % (path, exc))
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
