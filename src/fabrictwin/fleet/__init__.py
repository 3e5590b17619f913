"""The BlueField fleet control plane.

Start at :mod:`fabrictwin.fleet.service` (one call per CLI command), the planner
(:func:`fabrictwin.fleet.planner.plan_rollout`) and the executor
(:class:`fabrictwin.fleet.executor.Executor`); ``docs/fleet.md`` maps the modules. This package
imports nothing eagerly so that ``fleet.policy`` and ``fleet.doctor`` stay light.
"""
