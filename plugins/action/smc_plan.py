# -*- coding: utf-8 -*-
# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action smc_plan: the smc role's plan for one host, computed on the controller.

An action rather than a filter: the strategy imports a task's action plugin in the main process
before it forks the workers, so the planning code (and the CPC model code it imports here, at the
top) is compiled once per run instead of once per host; a filter is imported in every worker.
"""

from __future__ import annotations

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.plugins.action import ActionBase

from ansible_collections.s390x.network.plugins.plugin_utils.cpc_host import host_view
from ansible_collections.s390x.network.plugins.plugin_utils.plain_data import plain
from ansible_collections.s390x.network.plugins.plugin_utils.smc_role_plan import RolePlanError, role_plan

ARGUMENT_SPEC = dict(
    cpc=dict(type="raw"),
    host=dict(type="str"),
    partition=dict(type="str", default=""),
    roce_fids=dict(type="raw"),
    smcr=dict(type="raw"),
    ism_fids=dict(type="raw"),
    protocol=dict(type="str", default="smcd", choices=["smcd", "smcr"]),
    services=dict(type="list", elements="raw", default=[]),
    dropin_name=dict(type="str", required=True),
    pnet_config=dict(type="list", elements="raw", default=[]),
    pnet_state=dict(type="str", default="merged", choices=["merged", "overridden", "deleted"]),
    pnet_boot_unit=dict(type="bool", default=True),
    smcr_interface=dict(type="str", default=""),
    smcr_pnet_id=dict(type="str", default=""),
    rmem=dict(type="raw"),
    wmem=dict(type="raw"),
    tcp_rmem_min=dict(type="raw"),
    tcp_rmem_max=dict(type="raw"),
    tcp_wmem_min=dict(type="raw"),
    tcp_wmem_max=dict(type="raw"),
    raise_core_mem_max=dict(type="bool", default=True),
    settings=dict(type="dict", default={}),
    smcr_max_send_wr=dict(type="raw"),
    smcr_max_recv_wr=dict(type="raw"),
    install_packages=dict(type="bool", default=True),
    ueids=dict(type="raw", default=[]),
    ueid_state=dict(type="str", default="merged", choices=["merged", "overridden", "deleted"]),
    seid=dict(type="str", default="unchanged", choices=["enabled", "disabled", "unchanged"]),
)
# raw options where null means "not given"; "{{ none }}" renders as "" before ansible-core 2.19
# (the sizes and TCP limits: smc_role_plan.sysctl_args takes "" as none)
_NULLABLE = ("cpc", "roce_fids", "smcr", "ism_fids")
_PLAN_OPTIONS = tuple(name for name in ARGUMENT_SPEC if name not in ("cpc", "host", "partition"))


class ActionModule(ActionBase):
    """Returns the plan (``roce``, ``ism``, ``services``, ``functions``, ``sysctl``, ``steps``) or
    fails naming every wrong field."""

    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        task_vars = task_vars or {}
        raw = dict(self._task.args)
        if "cpc" not in raw:
            # the host's cpc variable, templated here: the role passes no "{{ cpc | default(none) }}",
            # whose filter would load every filter plugin in each host's worker
            raw["cpc"] = self._templar.template(task_vars["cpc"]) if "cpc" in task_vars else None
        # plain data first: the validator deep-copies its input, and a tagged CPC model copies slowly
        validation = ArgumentSpecValidator(ARGUMENT_SPEC).validate(plain(raw))
        if validation.error_messages:
            raise AnsibleActionFail("smc_plan: %s" % "; ".join(validation.error_messages))
        args = validation.validated_parameters
        for name in _NULLABLE:
            if args[name] == "":
                args[name] = None  # a templated null on ansible-core before 2.19
        host = args["host"] or task_vars.get("inventory_hostname")
        cpc = args["cpc"]
        if cpc is not None and not isinstance(cpc, dict):
            raise AnsibleActionFail("cpc: expected the CPC model (a dict), got %s" % type(cpc).__name__)
        view = host_view(cpc, str(host), partition=args["partition"] or None)
        try:
            plan = role_plan(view, dict((name, args[name]) for name in _PLAN_OPTIONS))
        except RolePlanError as exc:
            raise AnsibleActionFail(str(exc))
        result.update(plan)
        result["changed"] = False
        return result
