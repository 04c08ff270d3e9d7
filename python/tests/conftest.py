"""Fixtures of the dfscope Python tests: the CLI binary to compare with, generated traces, and the
corpus of real traces (../shared/traces from the checkout's parent; tests that need it skip when
it is absent)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli() -> str:
    """The dfscope binary of the same build (ctest passes it as DFSCOPE_CLI)."""
    path = os.environ.get("DFSCOPE_CLI") or str(ROOT / "build" / "dfscope")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no dfscope binary at {path}: set DFSCOPE_CLI")
    return path


@pytest.fixture(scope="session")
def corpus() -> Path:
    path = Path(os.environ.get("DFS_TRACES") or ROOT.parent / "shared" / "traces")
    if not path.is_dir():
        pytest.skip(f"the trace corpus is not at {path} (tests on real traces skipped)")
    return path


def gen(cli: str, out: Path, *args: str) -> Path:
    subprocess.run([cli, "gen", "-q", "-o", str(out), *args], check=True)
    return out


@pytest.fixture(scope="session")
def small(cli: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated DLIO-like run: 4 ranks of DFTracer v1, 4 MB."""
    return gen(cli, tmp_path_factory.mktemp("small"), "--format", "v1", "--ranks", "4", "--size", "4M", "--seed", "1")


@pytest.fixture(scope="session")
def kineto_small(cli: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated ResNet-50 run as Chrome JSON (Kineto-like), 2 ranks, 2 MB."""
    return gen(cli, tmp_path_factory.mktemp("kineto"), "--format", "chrome", "--workload", "resnet50", "--ranks", "2",
               "--size", "2M", "--seed", "2")
