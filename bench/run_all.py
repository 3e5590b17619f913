"""Run every benchmark in ``bench/`` one after the other: ``make bench``.

Each ``bench_*.py`` is a standalone script that prints medians and the ratio against a baseline
measured in the same run; this runner only starts them in turn (each in its own process, so one
benchmark's warm caches or threads cannot flatter the next) and reports which failed.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    scripts = sorted(HERE.glob("bench_*.py"))
    failed: list[str] = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        started = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], check=False)
        elapsed = time.perf_counter() - started
        print(f"=== {script.name}: exit {result.returncode} in {elapsed:.1f} s ===", flush=True)
        if result.returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
        return 1
    print(f"\nall {len(scripts)} benchmarks ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
