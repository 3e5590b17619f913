"""The public surface is pinned: the Python API and every CLI command with its options.

Growth must be deliberate (httpx's test_exported_members, torchtitan's test_no_new_cli_options):
a new public name or CLI option fails these tests until the expected lists are updated here.
"""

from __future__ import annotations

from typing import Any

import typer

import fabrictwin
from fabrictwin.cli.main import app

PUBLIC_API = {
    "ClusterSpec",
    "DeviceError",
    "FabricTwinError",
    "Infeasible",
    "NotFound",
    "ScenarioSpec",
    "SpecError",
    "__version__",
    "catalog",
    "compare",
    "load_cluster",
    "load_scenario",
    "simulate",
}


def _command_tree(command: Any, prefix: str = "") -> dict[str, list[str]]:
    """Map 'group sub' -> sorted option names (and argument names) of every leaf command."""
    if hasattr(command, "commands"):
        tree: dict[str, list[str]] = {}
        for name, sub in sorted(command.commands.items()):
            tree.update(_command_tree(sub, f"{prefix} {name}".strip()))
        return tree
    names = [opt for param in command.params for opt in (getattr(param, "opts", None) or [param.name])]
    return {prefix: sorted(names)}


def test_the_public_python_api_is_exactly_the_pinned_names():
    assert set(fabrictwin.__all__) == PUBLIC_API


def test_every_public_name_resolves():
    for name in fabrictwin.__all__:
        assert getattr(fabrictwin, name) is not None


def test_the_cli_commands_are_exactly_the_pinned_ones():
    tree = _command_tree(typer.main.get_command(app))
    assert sorted(tree) == [
        "catalog check",
        "catalog list",
        "catalog show",
        "collective",
        "compare",
        "design",
        "doctor",
        "emulator faults",
        "emulator images",
        "emulator serve",
        "fleet discover",
        "fleet inventory",
        "fleet mode set",
        "fleet rollout plan",
        "fleet rollout resume",
        "fleet rollout run",
        "fleet rollout status",
        "policy check",
        "policy deploy",
        "policy show",
        "policy trace",
        "simulate",
        "sweep",
        "web",
    ]


def test_the_main_commands_keep_the_options_users_script_against():
    tree = _command_tree(typer.main.get_command(app))
    expected_subsets = {
        "design": {"--nodes", "--gpus-per-node", "--fabric", "--json", "--csv", "--picture"},
        "collective": {
            "--op",
            "--gpus",
            "--system",
            "--fabric",
            "--algo",
            "--fidelity",
            "--minbytes",
            "--maxbytes",
            "--nodes",
            "--gpus-per-node",
            "--nics-per-node",
            "--transport",
            "--routing",
            "--sharp",
            "--nccl-version",
            "--gpus-per-thread",
            "--json",
        },
        "simulate": {"--json"},
        "compare": {"--vary", "--json"},
        "emulator serve": {"--dpus", "--seed", "--time-scale", "--port"},
        "doctor": {"--from-dir", "--emulator", "--ssh"},
        "policy trace": {"--from", "--to"},
        "web": {"--host", "--port", "--store", "--allow-remote"},
    }
    for command, options in expected_subsets.items():
        missing = options - set(tree[command])
        assert not missing, f"{command} lost {sorted(missing)}"
