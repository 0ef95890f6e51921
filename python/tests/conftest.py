import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _cli_path():
    env = os.environ.get("SCHEDLAB_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        p = ROOT / "target" / profile / "schedlab"
        if p.exists():
            return str(p)
    return None


@pytest.fixture(scope="session")
def cli():
    """Runs the schedlab CLI (SCHEDLAB_BIN, or the workspace's target/{release,debug}/schedlab)."""
    path = _cli_path()
    if path is None:
        pytest.skip("no schedlab binary: set SCHEDLAB_BIN or `cargo build -p schedlab-cli`")

    def run(*args):
        out = subprocess.run([path, *args], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout

    return run
