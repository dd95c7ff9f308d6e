#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Render a device dictionary for lava-run as lava-server would for a job:
its device type from lava-server's device-types, the job's context as
template variables; then check it with LAVA's device schema.

  render.py DICT.jinja2 JOB.yaml [EXTRA_OPTION...] > device.yaml

EXTRA_OPTIONs go after the job's extra_options (this machine's own, e.g.
its QMP socket). LAVA_DEVICE_TYPES overrides the device-types folder.
"""
import os
import sys

import yaml
from jinja2 import FileSystemLoader
from jinja2.sandbox import SandboxedEnvironment
from lava_common.schemas.device import validate

DEVICE_TYPES = os.environ.get(
    "LAVA_DEVICE_TYPES", "/usr/share/lava-server/device-types"
)


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[2]) as f:
        context = dict(yaml.safe_load(f).get("context", {}))
    context["extra_options"] = context.get("extra_options", []) + argv[3:]
    if not os.path.isfile(os.path.join(DEVICE_TYPES, "qemu.jinja2")):
        sys.exit("render: no qemu.jinja2 in %s (lava-server's)" % DEVICE_TYPES)
    # lava_scheduler_app/environment.py: the server's own environment
    env = SandboxedEnvironment(
        loader=FileSystemLoader([DEVICE_TYPES]), autoescape=False, trim_blocks=True
    )
    with open(argv[1]) as f:
        text = env.from_string(f.read()).render(**context)
    validate(yaml.safe_load(text))
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv)
