#!/usr/bin/env python3
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write the files of a new changing module on the resource engine, in the collection's shape.

    scripts/new-module.py DOMAIN NAME        (make new-module DOMAIN=... NAME=...)

Writes the module, its resource in ``plugins/module_utils/DOMAIN/`` (the package is created when the
domain is new), the module's tests (YAML cases for tests/unit/plugins/modules/yaml_cases.py, a
HostGuard bad-input battery, the resource's pure functions) and a changelog fragment. The generated
module works: it keeps named values in files below ``/etc/s390x-network/NAME/`` (states merged,
overridden, deleted, gathered, rendered; check mode, diff, rollback), so that every generated file
passes lint and sanity and every generated test tests something. Each file carries the text
"scaffold example for module NAME" until the example is replaced by the real thing;
tests/unit/collection/test_module_places.py names those files, and every other place the module
still lacks, until then.

Refuses a NAME or DOMAIN that is not a lower-case Python identifier, a NAME that is a module already
(or a Python keyword), and any file that exists.
"""

import argparse
import keyword
import os
import re
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
#: a lower-case Python identifier, short enough for every generated line to stay within 160 characters
IDENTIFIER = re.compile(r"[a-z][a-z0-9_]{0,39}")
MARK = "scaffold example for module"


def _version():
    with open(os.path.join(REPO, "galaxy.yml"), encoding="utf-8") as handle:
        for line in handle:
            match = re.match(r"version:\s*([0-9][0-9A-Za-z.+-]*)\s*$", line)
            if match:
                return match.group(1)
    raise SystemExit("galaxy.yml has no version")


MODULE = '''#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: __NAME__
short_description: Manage named values (the scaffold's example, to be replaced)
version_added: __VERSION__
description:
  - This is the __MARK__ __NAME__.
  - It keeps named values in files below C(/etc/s390x-network/__NAME__/),
    one file per value. Replace this text with what the module manages on the host and how.
  - Resource-module style, O(config) lists the values and O(state) says what to do with them. The module reads the
    host first and changes only what differs.
author:
  - s390x.network contributors (@s390x-network)
extends_documentation_fragment:
  - s390x.network.attributes
options:
  config:
    description:
      - The values, each with its O(config[].name).
    type: list
    elements: dict
    default: []
    suboptions:
      name:
        description:
          - Name of the value, 1 to 32 characters; a lower-case letter, then lower-case letters, digits or C(_).
        type: str
        required: true
      value:
        description:
          - The value, 1 to 64 characters of letters, digits, C(_), C(.), C(:) or C(-).
          - Required for O(state=merged) and O(state=overridden); not used by O(state=deleted).
        type: str
  state:
    description:
      - V(merged) sets the values of O(config) and keeps the others.
      - V(overridden) makes the values exactly O(config) (empty O(config) removes every value).
      - V(deleted) removes the values named in O(config); empty O(config) removes every value.
      - V(gathered) changes nothing and returns the values as RV(gathered).
      - V(rendered) changes nothing, reads nothing and returns the commands for a host without values as RV(rendered).
    type: str
    choices: [merged, overridden, deleted, gathered, rendered]
    default: merged
notes:
  - Changes files below C(/etc), so it needs root.
"""

EXAMPLES = r"""
- name: Set two values, keep the others
  s390x.network.__NAME__:
    config:
      - name: mode
        value: fast
      - name: level
        value: "3"

- name: Exactly these values
  s390x.network.__NAME__:
    state: overridden
    config:
      - name: mode
        value: fast

- name: Read the values
  s390x.network.__NAME__:
    state: gathered
  register: values
"""

RETURN = r"""
before:
  description:
    - Each value of the run before it, with its C(value) under C(persistent), or C(persistent) null where it was not set.
  returned: when O(state) is not V(gathered) or V(rendered)
  type: list
  elements: dict
  sample: [{"persistent": null}]
after:
  description: Each value of the run after it (in check mode, as it would be), in the shape of RV(before).
  returned: when O(state) is not V(gathered) or V(rendered)
  type: list
  elements: dict
  sample: [{"persistent": {"value": "fast"}}]
commands:
  description: What ran (in check mode, what would run), C(write PATH) or C(rm PATH) per file.
  returned: always
  type: list
  elements: str
  sample: ["write /etc/s390x-network/__NAME__/mode"]
drift:
  description:
    - What differs between the parameters and the host, one row per value (C(kind) V(__NAME__),
      C(object) the name, C(scope) V(persistent), C(difference) such as C(missing) or C(value slow -> fast)); after a
      run, what it changed.
  returned: always
  type: list
  elements: dict
gathered:
  description: The values, as O(config).
  returned: when O(state=gathered)
  type: list
  elements: dict
rendered:
  description: The commands for a host that has none of the values.
  returned: when O(state=rendered)
  type: list
  elements: str
rollback:
  description: After a failed change, the commands run to restore the previous files and whether that worked.
  returned: on failure after a change started
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.s390x.network.plugins.module_utils.engine import resource as resource_engine
from ansible_collections.s390x.network.plugins.module_utils.__DOMAIN__.__STEM___resource import STATES, __CLASS__


def main():
    module = AnsibleModule(
        argument_spec=dict(
            config=dict(
                type="list",
                elements="dict",
                default=[],
                options=dict(
                    name=dict(type="str", required=True),
                    value=dict(type="str"),
                ),
            ),
            state=dict(type="str", default="merged", choices=list(STATES)),
        ),
        supports_check_mode=True,
    )
    resource_engine.run(module, __CLASS__(module))


if __name__ == "__main__":
    main()
'''

RESOURCE = '''# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""__NAME__ on the resource engine: named values, one file each in DIRECTORY.

This is the __MARK__ __NAME__. Replace it with the real object: what ``read``
finds on the host, the steps ``plan`` gives, and the rules (with their source) that the checks of
``normalize_config`` follow.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import functools
import os
import re

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.module_utils.engine.resource import Change, Resource, Step

STATES = ("merged", "overridden", "deleted", "gathered", "rendered")
DIRECTORY = "/etc/s390x-network/__NAME__"
NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,31}")
VALUE_RE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


def value_path(name):
    return "%s/%s" % (DIRECTORY, name)


def normalize_config(config, state):
    """``(values, errors)``: name -> value (None for ``deleted``) of ``config``, and what is wrong
    with it (each error names the entry and the field)."""
    values, errors = {}, []
    for index, entry in enumerate(config or []):
        name, value = entry.get("name"), entry.get("value")
        where = "config[%d]" % index
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            errors.append("%s.name: %r is not 1 to 32 of a-z, 0-9, _ starting with a letter" % (where, name))
            continue
        where = "%s (name %s)" % (where, name)
        if name in values:
            errors.append("%s: the name is listed twice" % where)
        if state == "deleted":
            values[name] = None
        elif value is None:
            errors.append("%s.value: required with state %s" % (where, state))
        elif not VALUE_RE.fullmatch(value):
            errors.append("%s.value: %r is not 1 to 64 of A-Z, a-z, 0-9, _ . : -" % (where, value))
        else:
            values[name] = value
    return values, errors


def target_values(state, config, current):
    """The values ``state`` makes of ``current`` (name -> value) with ``config``."""
    if state == "merged":
        return dict(current, **config)
    if state == "overridden":
        return dict(config)
    if state == "deleted":
        return {} if not config else dict((k, v) for k, v in current.items() if k not in config)
    return dict(current)


class __CLASS__(Resource):
    kind = "__NAME__ value"
    drift_kind = "__NAME__"
    scopes = ("persistent",)
    runner_name = "__NAME__"
    restores = "previous files"
    rollback_continues = True

    def __init__(self, module):
        super(__CLASS__, self).__init__(module)
        self.state = self.params["state"]
        self.config = {}
        self.files = host_files.FileChanges(module)

    def validate(self):
        self.config, errors = normalize_config(self.params["config"], self.state)
        return errors

    def render(self):
        return [host_files.change_text(value_path(name), value) for name, value in sorted(self.config.items())]

    def read(self):
        try:
            names = sorted(os.listdir(host_files.path(DIRECTORY)))
        except OSError:
            names = []
        current = {}
        for name in names:
            text = host_files.read_text(value_path(name)) if NAME_RE.fullmatch(name) else None
            if text is not None:
                current[name] = text.strip()
        return current

    def gather(self, current):
        return [{"name": name, "value": value} for name, value in sorted(current.items())]

    def _step(self, name, value):
        content = None if value is None else value + "\\n"
        return Step(
            action=functools.partial(self.files.write, value_path(name), content),
            text=host_files.change_text(value_path(name), content),
            scope="persistent",
        )

    def plan(self, current):
        target = target_values(self.state, self.config, current)
        changes = []
        for name in sorted(set(current) | set(target)):
            want = target.get(name)
            steps = [self._step(name, want)] if current.get(name) != want else []
            changes.append(Change(name, steps, want=want))
        return changes

    def predict(self, current, changes):
        predicted = dict(current)
        for change in changes:
            if change.want is None:
                predicted.pop(change.subject, None)
            else:
                predicted[change.subject] = change.want
        return predicted

    def view(self, state, change):
        value = state.get(change.subject)
        return {"persistent": None if value is None else {"value": value}}

    def rollback(self, before, now, change, ran):
        p = value_path(change.subject)
        if p not in self.files.changed:
            return []  # the write failed before its rename: the file is as it was
        return [
            Step(
                action=functools.partial(self.files.restore, p),
                text=self.files.restore_text(p),
                scope="persistent",
                kind="rollback",
            )
        ]

    def remaining(self, after, change):
        return [self._step(change.subject, change.want)] if after.get(change.subject) != change.want else []
'''

CASES = '''---
# __NAME__: what each state does to the host's files, exact commands, and a second run that
# changes nothing (the __MARK__ __NAME__). Run by tests/unit/plugins/modules/yaml_cases.py.
cases:
  - name: merged writes the values that differ and keeps the others
    host:
      files:
        /etc/s390x-network/__NAME__/mode: "slow\\n"
        /etc/s390x-network/__NAME__/other: "kept\\n"
    params:
      config: [{name: mode, value: fast}, {name: level, value: "3"}]
    expect:
      changed: true
      commands:
        - write /etc/s390x-network/__NAME__/level
        - write /etc/s390x-network/__NAME__/mode
      drift:
        - {kind: __NAME__, object: level, scope: persistent, difference: missing}
        - {kind: __NAME__, object: mode, scope: persistent, difference: value slow -> fast}
      files:
        /etc/s390x-network/__NAME__/mode: "fast\\n"
        /etc/s390x-network/__NAME__/level: "3\\n"
        /etc/s390x-network/__NAME__/other: "kept\\n"
      idempotent: true

  - name: overridden removes what config does not name
    host:
      files:
        /etc/s390x-network/__NAME__/mode: "fast\\n"
        /etc/s390x-network/__NAME__/other: "gone\\n"
    params:
      state: overridden
      config: [{name: mode, value: fast}]
    expect:
      changed: true
      commands: [rm /etc/s390x-network/__NAME__/other]
      files:
        /etc/s390x-network/__NAME__/mode: "fast\\n"
        /etc/s390x-network/__NAME__/other: null
      idempotent: true

  - name: deleted without config removes every value
    host:
      files:
        /etc/s390x-network/__NAME__/mode: "fast\\n"
    params:
      state: deleted
    expect:
      changed: true
      commands: [rm /etc/s390x-network/__NAME__/mode]
      files:
        /etc/s390x-network/__NAME__/mode: null
      idempotent: true

  - name: check mode predicts and writes nothing
    host:
      files:
        /etc/s390x-network/__NAME__/mode: "slow\\n"
    params:
      config: [{name: mode, value: fast}]
    check_mode: true
    expect:
      changed: true
      commands: [write /etc/s390x-network/__NAME__/mode]
      files:
        /etc/s390x-network/__NAME__/mode: "slow\\n"

  - name: gathered returns the values as config
    host:
      files:
        /etc/s390x-network/__NAME__/mode: "fast\\n"
    params:
      state: gathered
    expect:
      changed: false
      gathered: [{name: mode, value: fast}]

  - name: rendered needs no host
    params:
      state: rendered
      config: [{name: mode, value: fast}]
    expect:
      rendered: [write /etc/s390x-network/__NAME__/mode]
      files:
        /etc/s390x-network/__NAME__/mode: null
'''

MODULE_TEST = '''# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""__NAME__ on a fake host: the YAML cases of fixtures/__NAME___*.yml,
and a failure half way, which leaves each value in its old or its new state
(the __MARK__ __NAME__)."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.module_utils.engine import host_files
from ansible_collections.s390x.network.plugins.modules import __NAME__
from ansible_collections.s390x.network.tests.unit.plugins.modules.yaml_cases import cases, run_case


@pytest.mark.parametrize("case", cases("__NAME__"))
def test_yaml_case(run_module, host_root, case):
    run_case(run_module, __NAME__.main, case)


def test_a_failed_write_leaves_each_value_old_or_new(run_module, host_root, monkeypatch):
    directory = host_root / "etc" / "s390x-network" / "__NAME__"
    directory.mkdir(parents=True)
    (directory / "beta").write_text("old\\n")
    write = host_files.write_atomic

    def fail_on_beta(p, content, module=None, mode=host_files.FILE_MODE):
        if p.endswith("/beta"):
            raise OSError(28, "No space left on device")
        return write(p, content, module, mode)

    monkeypatch.setattr(host_files, "write_atomic", fail_on_beta)
    config = [{"name": "alpha", "value": "new"}, {"name": "beta", "value": "new"}]
    result = run_module(__NAME__.main, {"config": config}).result
    host_path = "/etc/s390x-network/__NAME__/"
    assert result["failed"] and result["changed"]
    assert "beta: write " + host_path + "beta failed" in result["msg"]
    assert "No space left on device" in result["msg"]
    assert result["commands"] == ["write " + host_path + "alpha", "write " + host_path + "beta"]
    assert result["rollback"] == {"commands": [], "ok": True, "errors": []}
    assert (directory / "alpha").read_text() == "new\\n"
    assert (directory / "beta").read_text() == "old\\n"
'''

BAD_INPUT_TEST = '''# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""__NAME__, bad input: refused with a message that names the field and what is allowed,
before anything of the host is read (the __MARK__ __NAME__)."""

from __future__ import absolute_import, division, print_function

import pytest

from ansible_collections.s390x.network.plugins.modules import __NAME__
from ansible_collections.s390x.network.tests.unit.plugins.modules.host_guard import HostGuard

CASES = [
    ("name with a capital", {"config": [{"name": "Mode", "value": "x"}]}, ["config[0].name: 'Mode' is not"]),
    ("name with a path", {"config": [{"name": "../x", "value": "x"}]}, ["config[0].name: '../x'"]),
    ("name too long", {"config": [{"name": "a" * 33, "value": "x"}]}, ["config[0].name:"]),
    ("value missing", {"config": [{"name": "mode"}]}, ["config[0] (name mode).value: required with state merged"]),
    ("value with a newline", {"config": [{"name": "mode", "value": "a\\nb"}]}, ["config[0] (name mode).value:"]),
    ("value with a blank", {"config": [{"name": "mode", "value": "a b"}]}, ["(name mode).value: 'a b' is not"]),
    ("value of $()", {"config": [{"name": "mode", "value": "$(id)"}]}, ["(name mode).value:"]),
    ("value too long", {"config": [{"name": "mode", "value": "v" * 65}]}, ["(name mode).value:"]),
    (
        "a name twice",
        {"config": [{"name": "mode", "value": "a"}, {"name": "mode", "value": "b"}]},
        ["config[1] (name mode): the name is listed twice"],
    ),
    ("unknown state", {"state": "replaced"}, ["state", "merged, overridden, deleted, gathered, rendered"]),
]


@pytest.mark.parametrize("what,args,fragments", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("check_mode", [False, True])
def test_bad_input_is_refused_before_the_host_is_read(monkeypatch, run_module, what, args, fragments, check_mode):
    HostGuard(monkeypatch, run_module).refuses(__NAME__.main, args, fragments, check_mode=check_mode)
'''

RESOURCE_TEST = '''# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pure parts of __DOMAIN__/__STEM___resource.py,
the __MARK__ __NAME__."""

from __future__ import absolute_import, division, print_function

from ansible_collections.s390x.network.plugins.module_utils.__DOMAIN__.__STEM___resource import (
    normalize_config,
    target_values,
)


def test_normalize_config_keeps_the_values_and_names_each_wrong_entry():
    values, errors = normalize_config(
        [{"name": "mode", "value": "fast"}, {"name": "9x", "value": "y"}, {"name": "level"}], "merged"
    )
    assert values == {"mode": "fast"}
    assert errors == [
        "config[1].name: '9x' is not 1 to 32 of a-z, 0-9, _ starting with a letter",
        "config[2] (name level).value: required with state merged",
    ]


def test_deleted_needs_no_value():
    assert normalize_config([{"name": "mode"}], "deleted") == ({"mode": None}, [])


def test_each_state_makes_its_target_of_the_host():
    current = {"mode": "slow", "other": "kept"}
    assert target_values("merged", {"mode": "fast"}, current) == {"mode": "fast", "other": "kept"}
    assert target_values("overridden", {"mode": "fast"}, current) == {"mode": "fast"}
    assert target_values("deleted", {"other": None}, current) == {"mode": "slow"}
    assert target_values("deleted", {}, current) == {}
'''

FRAGMENT = '''---
minor_changes:
  - __NAME__ - new module (the __MARK__
    __NAME__; say here what the module manages and which role calls it).
'''


def files_of(domain, name):
    """(relative path, template) of every file the scaffold writes for ``name`` in ``domain``."""
    stem = name[len(domain) + 1 :] if name.startswith(domain + "_") else name
    out = [
        ("plugins/modules/%s.py" % name, MODULE),
        ("plugins/module_utils/%s/%s_resource.py" % (domain, stem), RESOURCE),
        ("tests/unit/plugins/modules/test_%s.py" % name, MODULE_TEST),
        ("tests/unit/plugins/modules/test_%s_bad_input.py" % name, BAD_INPUT_TEST),
        ("tests/unit/plugins/modules/fixtures/%s_cases.yml" % name, CASES),
        ("tests/unit/plugins/module_utils/test_%s_%s_resource.py" % (domain, stem), RESOURCE_TEST),
        ("changelogs/fragments/%s.yml" % name, FRAGMENT),
    ]
    if not os.path.isdir(os.path.join(REPO, "plugins", "module_utils", domain)):
        out.insert(1, ("plugins/module_utils/%s/__init__.py" % domain, ""))
    return stem, out


def class_name(name):
    return "".join(part.capitalize() for part in name.split("_")) + "Values"


def problems(domain, name):
    """Why ``domain``/``name`` cannot be scaffolded (empty: it can)."""
    found = []
    for what, value in (("DOMAIN", domain), ("NAME", name)):
        if not IDENTIFIER.fullmatch(value):
            found.append(
                "%s %r is not a lower-case Python identifier of 1 to 40 characters (a-z, then a-z, 0-9, _)"
                % (what, value)
            )
        elif keyword.iskeyword(value):
            found.append("%s %r is a Python keyword" % (what, value))
    if found:
        return found
    if os.path.exists(os.path.join(REPO, "plugins", "modules", name + ".py")):
        return ["NAME %r: plugins/modules/%s.py is a module already" % (name, name)]
    if domain == "engine":
        found.append("DOMAIN 'engine' is the resource engine, not a domain")
    for rel, _template in files_of(domain, name)[1]:
        if os.path.exists(os.path.join(REPO, rel)) and not rel.endswith("__init__.py"):
            found.append("%s exists" % rel)
    return found


def render(domain, name):
    """(relative path, text) of every file of the new module."""
    stem, files = files_of(domain, name)
    words = {
        "__MARK__": MARK,
        "__NAME__": name,
        "__DOMAIN__": domain,
        "__STEM__": stem,
        "__CLASS__": class_name(name),
        "__VERSION__": _version(),
    }
    out = []
    for rel, template in files:
        text = template
        for word, value in words.items():
            text = text.replace(word, value)
        out.append((rel, _black(text) if rel.endswith(".py") and text else text))
    return out


def _black(text):
    """``text`` laid out by black with the tree's settings (what depends on the length of the names)."""
    import black  # the development venv's formatter, the one `make lint` checks with

    config = black.parse_pyproject_toml(os.path.join(REPO, "pyproject.toml"))
    mode = black.Mode(
        line_length=config["line_length"], string_normalization=not config.get("skip_string_normalization", False)
    )
    return black.format_str(text, mode=mode)


def write(domain, name):
    written = []
    for rel, text in render(domain, name):
        path = os.path.join(REPO, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "x", encoding="utf-8") as handle:
            handle.write(text)
        written.append(rel)
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("domain", help="module_utils package of the module (new or existing)")
    parser.add_argument("name", help="module name")
    args = parser.parse_args(argv)
    found = problems(args.domain, args.name)
    if found:
        for line in found:
            print("new-module: %s" % line, file=sys.stderr)
        return 2
    for rel in write(args.domain, args.name):
        print("wrote %s" % rel)
    print(
        "next: .venv/bin/python -m pytest -q -p no:cacheprovider --import-mode=importlib "
        "tests/unit/collection/test_module_places.py -k %s   (what the module still lacks)" % args.name
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
