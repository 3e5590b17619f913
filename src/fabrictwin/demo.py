"""``make demo``: the main job on the embedded defaults."""

from __future__ import annotations


def main() -> None:
    print("fabrictwin demo: under construction")


if __name__ == "__main__":
    main()
