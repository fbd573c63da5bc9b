# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The flow every changing module shares, so that each module only says what is specific to it.

A module defines a ``Resource`` subclass (how to read the host, validate, plan, guard, predict,
roll back and show its objects) and calls ``run(module, resource)``. The engine owns the order:

1. ``validate()``: every check that needs no host, before anything is read; errors name the field.
2. ``state: rendered``: ``render()`` -> the commands for a host that has nothing yet; host untouched.
3. ``prepare()``: what must happen before the host can be read for planning (loading the kernel
   module that creates the objects); it returns the commands it ran (in check mode, would run).
   Then ``read()`` the host; ``state: gathered``: ``gather()`` -> config entries, nothing changes.
4. ``plan()`` -> ``Change`` objects (one per managed object: its steps and what it should become);
   ``guard()`` may refuse (the management connection, a device in use) before any step runs.
5. ``before`` / ``after``, ``drift`` rows and ``--diff`` from the views of each object in the
   current and the predicted state. ``view()`` has one shape, owned here: ``{"active": {...},
   "persistent": {...}}`` (the scopes in ``scopes``; plain values; None where the object does not
   exist). The engine derives from two views the drift rows, in one wording (``object``: the
   change's label, ``scope``, ``difference``: ``missing``, ``to remove`` or ``key old -> new, ...``;
   ``kind``: ``drift_kind``) and the ``--diff`` text. ``public_view()`` is what ``before``/``after``
   return, when a module documents another shape.
6. Check mode, or nothing to do: exit with the prediction. Otherwise run the steps change by change;
   changes whose steps have the same ``batch_key()`` one by one run together, each step as one
   command (``merge_steps()``: one tool call for several objects instead of one call each). When a
   step fails, ``rollback()`` gives, for each object of that step, the steps that restore its
   previous state; the engine runs them (and, when they fail, ``second_rollback()``: another way to
   the same state) and fails with ``commands`` (what ran), ``rollback`` (what it ran to restore, the
   errors on the way and whether the objects are back) and ``after`` (read back).
7. Read back, warn about any object that ``remaining()`` still finds different, exit.

Every changing module returns the same fields: ``changed``, ``commands``, ``before``, ``after``,
``drift`` (and ``diff`` with ``--diff``); ``rendered`` and ``gathered`` for those states.
"""

import os
import shlex

from ansible_collections.s390x.network.plugins.module_utils.engine import drift_text

#: the scopes a view may have
SCOPES = ("active", "persistent")


def render_argv(argv):
    """A command line as shown in ``commands``: the program by its name, arguments shell-quoted."""
    return " ".join(shlex.quote(a) for a in [os.path.basename(argv[0])] + list(argv[1:]))


class Step(object):
    """One command (``argv``, run with LC_ALL=C) or one action (a callable that raises OSError).

    ``scope``: active | persistent | both. ``disruptive``: takes the object's interface down, now or
    at the next boot. ``kind``: what the step does (configure, offline, deconfigure, rollback ...).
    An action that is several commands whose exact form is known only when it runs (a PCI address
    that appears after power-on) shows ``texts`` before it runs and sets ``ran`` to what it ran.
    """

    def __init__(
        self, argv=None, action=None, text=None, scope="both", disruptive=False, kind="change", subject=None, texts=None
    ):
        if (argv is None) == (action is None):
            raise ValueError("a step has either argv or action")
        self.argv = list(argv) if argv is not None else None
        self.action = action
        self._text = text
        self._texts = list(texts) if texts is not None else None
        self.ran = None
        self.error = None  # the exception of a failed action
        self.scope = scope
        self.disruptive = disruptive
        self.kind = kind
        self.subject = subject

    @property
    def command(self):
        """The step as shown in ``commands``: the program by its name, arguments shell-quoted."""
        if self._text is not None:
            return self._text
        return render_argv(self.argv)

    @property
    def commands(self):
        """What the step shows in ``commands`` before it runs (after it ran: ``ran`` when set)."""
        return self._texts if self._texts is not None else [self.command]

    def __repr__(self):
        return "Step(%r, %s, %s%s)" % (self.command, self.kind, self.scope, ", disruptive" if self.disruptive else "")


class Change(object):
    """What one managed object gets: its steps and what it should become (``want``, module-defined)."""

    def __init__(self, subject, steps, want=None, label=None):
        self.subject = subject
        self.steps = list(steps)
        self.want = want
        self.label = label or subject
        for step in self.steps:
            if step.subject is None:
                step.subject = subject


class ResourceError(Exception):
    """Ends the module with ``msg``; ``extra`` goes into the result."""

    def __init__(self, msg, **extra):
        super(ResourceError, self).__init__(msg)
        self.msg = msg
        self.extra = extra


class Resource(object):
    """Hooks a module implements. ``module`` is the AnsibleModule; ``params`` its parameters."""

    #: the object kind, first word of every message (qeth device, zpci ...)
    kind = "object"
    #: the ``kind`` of every drift row, as the drift report shows it (qeth, zpci, sysctl ...)
    drift_kind = None
    #: the scopes of ``view()``, a tuple of SCOPES
    scopes = None
    #: what runs the steps, for the "still differs after ... ran" warning
    runner_name = "the module"
    #: what a rollback restores, for the failure message
    restores = "previous state"
    #: run every rollback step even after one fails (independent objects such as sysctls); by
    #: default the rollback stops at the first failing step (the next ones depend on it)
    rollback_continues = False
    #: exceptions of a step's action that make the step fail (anything else is a bug and propagates)
    step_errors = (IOError, OSError)

    def __init__(self, module):
        self.module = module
        self.params = module.params

    # -- no host -------------------------------------------------------------------------------
    def validate(self):
        """Errors found without the host (list of str)."""
        return []

    def render(self):
        """Commands for a host that has none of the objects yet (state rendered)."""
        raise ResourceError("state rendered is not supported")

    # -- host ----------------------------------------------------------------------------------
    def prepare(self):
        """Commands run (in check mode, that would run) before ``read()``; raise ResourceError to
        stop. Must not change anything in check mode."""
        return []

    def read(self):
        """The host's current state (module-defined)."""
        raise NotImplementedError

    def gather(self, current):
        raise ResourceError("state gathered is not supported")

    def plan(self, current):
        """Changes (list of Change) that bring the host where the parameters want it.

        Raise ResourceError for problems found on the host (a device that does not exist)."""
        raise NotImplementedError

    def guard(self, current, changes):
        """Raise ResourceError to refuse the plan before any step runs."""

    def predict(self, current, changes):
        """The state the steps would leave (used in check mode and for ``after`` before applying)."""
        raise NotImplementedError

    def view(self, state, change):
        """``change``'s object in ``state``: ``{scope: {key: plain value} or None}`` for each scope of
        ``scopes`` (None: the object does not exist there); what ``drift`` and ``--diff`` show."""
        raise NotImplementedError

    def public_view(self, state, change):
        """One ``before``/``after`` entry as returned (default: the view)."""
        return self.view(state, change)

    def views(self, state, changes):
        """``before``/``after`` as returned: one public view per change unless a module returns its
        whole table (the views ``drift`` compares are still per change)."""
        return [self.public_view(state, c) for c in changes]

    def drift(self, before, after, change):
        """Rows ``(object, scope, difference)`` between two views of one object."""
        return drift_text.view_drift(change.label, before, after, self.scopes)

    def unplanned_drift(self, state):
        """Rows ``(object, scope, difference)`` for what differs but no change can fix in this run
        (an object that is missing on the host and was skipped)."""
        return []

    def diff_text(self, state, changes):
        """Text for ``--diff``: one block per object, ``key: value`` lines per scope."""
        return "".join(drift_text.view_text(c.label, self.view(state, c), self.scopes) for c in changes)

    def diff(self, before_state, after_state, changes):
        """The ``diff`` result (a dict, or a list of dicts, one per file)."""
        return {
            "before": self.diff_text(before_state, changes),
            "after": self.diff_text(after_state, changes),
            "before_header": "%s (before)" % self.kind,
            "after_header": "%s (after)" % self.kind,
        }

    def extras(self, state, changes, failed=False):
        """Module-specific result fields for the host in ``state`` (after the run, or predicted)."""
        return {}

    def batch_key(self, step):
        """A key under which this step may run as one command with the steps of other changes that
        have the same key (``merge_steps``); None: it runs on its own (the default for every step)."""
        return None

    def merge_steps(self, steps):
        """One step that does what ``steps`` (one per change, equal ``batch_key``) do."""
        raise NotImplementedError

    def begin(self, changes):
        """Called right before the first step of ``changes`` runs: remember what their rollback needs."""

    def rollback(self, before, now, change, ran):
        """Steps that restore ``change``'s object from ``now`` to ``before``; ``ran``: the steps of
        the change that ran, the failed one last."""
        return []

    def second_rollback(self, before, now, change):
        """Steps of a second way to restore ``change``'s object when the rollback steps failed."""
        return []

    def remaining(self, after, change):
        """Steps still needed after the run (the engine warns when there are any)."""
        return []

    def close(self):
        """Release what ``read()`` opened (a connection); runs however the module ends."""

    def run_step(self, step):
        """Run one step; returns (rc, stdout, stderr)."""
        if step.argv is not None:
            return self.module.run_command(step.argv, environ_update={"LC_ALL": "C"})
        try:
            step.action()
        except self.step_errors as exc:
            step.error = exc
            return 1, "", self.error_text(exc)
        return 0, "", ""

    def error_text(self, exc):
        """The ``stderr`` of a failed action."""
        return str(exc)

    def failure_message(self, change, step, rc, out, err):
        detail = "\n".join(x.strip() for x in (err or "", out or "") if x and x.strip())
        return "%s %s: %s failed (exit code %s)%s" % (
            self.kind,
            change.label,
            step.command,
            rc,
            ": " + detail if detail else "",
        )


def drift_rows(resource, before_state, after_state, changes):
    found = []
    for change in changes:
        before, after = resource.view(before_state, change), resource.view(after_state, change)
        found.extend(resource.drift(before, after, change))
    found.extend(resource.unplanned_drift(after_state))
    return [
        {"kind": resource.drift_kind, "object": obj, "scope": scope, "difference": difference}
        for obj, scope, difference in found
    ]


def _ran(step):
    return step.ran if step.ran is not None else step.commands


def _read_after_failure(resource):
    """The host after a failed step, None when it cannot be read either."""
    try:
        return resource.read()
    except ResourceError:
        return None


def _batches(resource, changes):
    """The changes with steps, grouped to run together: changes whose steps have equal batch keys,
    step by step, form one group (in the order of each group's first change); a change with a step
    that has no key is a group of its own."""
    groups, by_keys = [], {}
    for change in changes:
        if not change.steps:
            continue
        keys = tuple(resource.batch_key(s) for s in change.steps)
        if any(k is None for k in keys):
            groups.append([change])
            continue
        if keys not in by_keys:
            by_keys[keys] = []
            groups.append(by_keys[keys])
        by_keys[keys].append(change)
    return groups


def _group_steps(resource, group):
    if len(group) == 1:
        return list(group[0].steps)
    return [resource.merge_steps([c.steps[i] for c in group]) for i in range(len(group[0].steps))]


def _restore(resource, before, group, index):
    """Put each object of ``group`` back after its step ``index`` failed; the ``rollback`` result."""
    rollback = {"commands": [], "ok": True, "errors": []}
    now = _read_after_failure(resource)
    for change in group:
        ok = True
        rsteps = resource.rollback(before, now, change, change.steps[: index + 1]) if now is not None else []
        for rstep in rsteps:
            rrc, rout, rerr = resource.run_step(rstep)
            rollback["commands"].extend(_ran(rstep))
            if rrc != 0:
                ok = False
                rollback["errors"].append(resource.failure_message(change, rstep, rrc, rout, rerr))
                if not resource.rollback_continues:
                    break
        if not ok:
            again = _read_after_failure(resource)
            fallback = resource.second_rollback(before, again, change) if again is not None else []
            for rstep in fallback:
                rrc, rout, rerr = resource.run_step(rstep)
                rollback["commands"].extend(_ran(rstep))
                if rrc != 0:
                    rollback["errors"].append(resource.failure_message(change, rstep, rrc, rout, rerr))
                    break
            else:
                ok = bool(fallback)
        rollback["ok"] = rollback["ok"] and ok
        if len(group) > 1 and not ok:
            now = _read_after_failure(resource)
    return rollback


def run(module, resource):
    """Run ``resource`` for ``module`` and exit (exit_json / fail_json)."""
    try:
        _run(module, resource)
    finally:
        resource.close()


def _run(module, resource):
    state = module.params.get("state")
    errors = resource.validate()
    if errors:
        module.fail_json(msg="; ".join(errors))
    try:
        if state == "rendered":
            module.exit_json(changed=False, rendered=resource.render(), commands=[], drift=[])
        prepared = list(resource.prepare()) if state != "gathered" else []
        current = resource.read()
        if state == "gathered":
            module.exit_json(changed=False, gathered=resource.gather(current), commands=[], drift=[])
        changes = resource.plan(current)
        resource.guard(current, changes)
    except ResourceError as exc:
        module.fail_json(msg=exc.msg, **exc.extra)

    predicted = resource.predict(current, changes)
    runs = [(group, _group_steps(resource, group)) for group in _batches(resource, changes)]
    steps = [s for dummy, group_steps in runs for s in group_steps]
    result = dict(
        changed=bool(steps or prepared),
        commands=prepared + [t for s in steps for t in s.commands],
        before=resource.views(current, changes),
        drift=drift_rows(resource, current, predicted, changes),
    )
    if module._diff:
        result["diff"] = resource.diff(current, predicted, changes)
    if module.check_mode or not steps:
        result["after"] = resource.views(predicted, changes)
        result.update(resource.extras(predicted, changes))
        module.exit_json(**result)

    executed = list(prepared)
    completed = bool(prepared)  # something changed before the failing group began
    for group, group_steps in runs:
        resource.begin(group)
        for index, step in enumerate(group_steps):
            rc, out, err = resource.run_step(step)
            executed.extend(_ran(step))
            if rc == 0:
                continue
            rollback = _restore(resource, current, group, index)
            after_state = _read_after_failure(resource)
            target = (
                group[0] if len(group) == 1 else Change(group[0].subject, [], label=", ".join(c.label for c in group))
            )
            msg = resource.failure_message(target, step, rc, out, err)
            if rollback["commands"]:
                msg += "; %s %s (%s)" % (
                    resource.restores,
                    "restored" if rollback["ok"] else "NOT restored",
                    "; ".join(rollback["commands"]),
                )
            # Changed unless this was the first group and it is back where it was (or its first
            # step failed and left nothing to put back).
            restored = rollback["ok"] and (bool(rollback["commands"]) or index == 0)
            result.update(
                changed=completed or not restored,
                commands=executed,
                rollback=rollback,
                after=resource.views(after_state, changes) if after_state is not None else None,
            )
            if after_state is not None:
                result.update(resource.extras(after_state, changes, failed=True))
            module.fail_json(msg=msg, rc=rc, stdout=out, stderr=err, **result)
        completed = True

    try:
        after_state = resource.read()
    except ResourceError as exc:
        result.update(commands=executed, msg="the run succeeded but reading back failed: %s" % exc.msg)
        module.fail_json(**result)
    result["after"] = resource.views(after_state, changes)
    result["commands"] = executed
    result["drift"] = drift_rows(resource, current, after_state, changes)
    for change in changes:
        if not change.steps:
            continue
        left = resource.remaining(after_state, change)
        if left:
            module.warn(
                "%s %s still differs after %s ran; the next run would run: %s"
                % (resource.kind, change.label, resource.runner_name, "; ".join(t for s in left for t in s.commands))
            )
    if "diff" in result:
        result["diff"] = resource.diff(current, after_state, changes)
    result.update(resource.extras(after_state, changes))
    module.exit_json(**result)
