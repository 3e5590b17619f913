"""The doctor: read a host's command outputs and name the cause, with the evidence line and the fix.

Sources: a folder of saved outputs (:func:`from_dir`), a live host over SSH (:func:`from_ssh`),
or the emulator's host views (:func:`fabrictwin.fleet.doctor.collect.from_emulator`).
"""

from fabrictwin.fleet.doctor.diagnose import Diagnosis, diagnose
from fabrictwin.fleet.doctor.rules import Finding
from fabrictwin.fleet.doctor.views import KNOWN_VIEWS, Views, from_dir, from_ssh

__all__ = ["KNOWN_VIEWS", "Diagnosis", "Finding", "Views", "diagnose", "from_dir", "from_ssh"]
