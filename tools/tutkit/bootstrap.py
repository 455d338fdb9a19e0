"""Installs what tools/check, tools/tour and tools/exercise need, other than the CUDA Toolkit and Python 3, and
says what it did. tools/check runs this file; tools/tour and tools/exercise (check, measure, verify, grade)
import it.

  meson and ninja   meson >= 1.0.1 and ninja on PATH are used as they are. Otherwise both are installed from
                    PyPI into a project-local virtual environment, .venv/ (ignored by git), and reused from
                    there by every later run. Where no virtual environment can be made, and the command runs
                    as root, Debian's packages (apt-get install meson ninja-build) instead.
  doctest           found as a system header (<doctest/doctest.h>), through pkg-config, or already fetched
                    into subprojects/doctest. Otherwise meson's wrap fetches it (needs network); where that
                    fails and the command runs as root, apt-get install doctest-dev.
Anything that cannot be installed ends the command with one line saying what to run, and exit status 2.

  python3 tools/tutkit/bootstrap.py [--build DIR]   prints `export PATH=...` for a shell to eval
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
VENV = REPO_ROOT / ".venv"
MIN_MESON = (1, 0, 1)
CUDA_BIN_DIRS = [Path(os.environ["CUDA_HOME"]) / "bin"] if os.environ.get("CUDA_HOME") else []
CUDA_BIN_DIRS += [Path("/usr/local/cuda/bin"), Path("/opt/cuda/bin")]


class BootstrapError(Exception):
    """One line saying what is missing and what to run."""


PREFIX = os.environ.get("TUT_TOOL", "bootstrap")  # the command the messages speak for (tools/check, tour, ...)


def say(msg):
    print(f"{PREFIX}: {msg}", file=sys.stderr)


def _version_tuple(text):
    parts = []
    for p in text.strip().split(".")[:3]:
        digits = "".join(c for c in p if c.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts + [0] * (3 - len(parts)))


def _tool_version(exe):
    try:
        out = subprocess.run([str(exe), "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip().splitlines()[-1] if out.returncode == 0 and out.stdout.strip() else None


def _is_root():
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _apt_install(packages):
    """apt-get install as root; True on success."""
    if not _is_root() or not shutil.which("apt-get"):
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    try:
        subprocess.run(["apt-get", "update", "-qq"], env=env, timeout=600, **quiet)
        return subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
                              env=env, timeout=1200, **quiet).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def find_nvcc():
    found = shutil.which("nvcc")
    if found:
        return Path(found)
    for d in CUDA_BIN_DIRS:
        if (d / "nvcc").is_file() and os.access(d / "nvcc", os.X_OK):
            return d / "nvcc"
    return None


def ensure_meson_ninja():
    """(bin dir to put first on PATH or None, message or None)."""
    meson, ninja = shutil.which("meson"), shutil.which("ninja")
    meson_version = _tool_version(meson) if meson else None
    meson_ok = meson_version is not None and _version_tuple(meson_version) >= MIN_MESON
    if meson_ok and ninja:
        return None, None
    venv_bin = VENV / "bin"
    if (venv_bin / "meson").is_file() and (venv_bin / "ninja").is_file():
        return venv_bin, f"using meson {_tool_version(venv_bin / 'meson')} and ninja from .venv (installed by an earlier run)"
    if meson_ok:
        why = "ninja is not on PATH"
    else:
        why = f"meson {meson_version} is older than 1.0.1" if meson_version else "meson is not on PATH"
    say(f"{why}: installing meson and ninja from PyPI into .venv ...")
    try:
        if not (venv_bin / "python").exists():
            subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True, capture_output=True, timeout=300)
        subprocess.run([str(venv_bin / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        "meson>=1.0.1", "ninja"], check=True, capture_output=True, timeout=900)
        if (venv_bin / "meson").is_file() and (venv_bin / "ninja").is_file():
            return venv_bin, (f"installed meson {_tool_version(venv_bin / 'meson')} and ninja "
                              f"{_tool_version(venv_bin / 'ninja')} into .venv (from PyPI; later runs reuse them)")
    except (OSError, subprocess.SubprocessError) as e:
        detail = getattr(e, "stderr", b"") or b""
        detail = detail.decode(errors="replace").strip().splitlines()[-1:] if isinstance(detail, bytes) else []
        say("could not install into .venv" + (f" ({detail[0]})" if detail else ""))
        shutil.rmtree(VENV, ignore_errors=True)
    if _apt_install(["meson", "ninja-build"]) and shutil.which("meson") and shutil.which("ninja"):
        v = _tool_version(shutil.which("meson"))
        if v and _version_tuple(v) >= MIN_MESON:
            return None, f"installed meson {v} and ninja with apt-get"
    raise BootstrapError("meson >= 1.0.1 and ninja are needed: run `python3 -m pip install --user meson ninja` "
                         "(or, as root, `apt-get install meson ninja-build`), then try again")


def _doctest_present():
    dirs = [Path("/usr/include"), Path("/usr/local/include")]
    dirs += [Path(p) for p in os.environ.get("CPATH", "").split(os.pathsep) if p]
    if any((d / "doctest" / "doctest.h").is_file() for d in dirs):
        return True
    if (REPO_ROOT / "subprojects" / "doctest" / "meson.build").is_file():
        return True
    if shutil.which("pkg-config"):
        try:
            return subprocess.run(["pkg-config", "--exists", "doctest"], timeout=30).returncode == 0
        except (OSError, subprocess.SubprocessError):
            return False
    return False


def ensure_doctest(meson):
    """Message or None. `meson`: the command list that runs meson."""
    if _doctest_present():
        return None
    say("doctest not found: fetching it through meson's wrap (needs network) ...")
    try:
        ok = subprocess.run([*meson, "subprojects", "download", "doctest"], cwd=REPO_ROOT, capture_output=True,
                            timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    if ok and (REPO_ROOT / "subprojects" / "doctest" / "meson.build").is_file():
        return "fetched doctest through meson's wrap into subprojects/doctest"
    shutil.rmtree(REPO_ROOT / "subprojects" / "doctest", ignore_errors=True)
    if _apt_install(["doctest-dev"]) and _doctest_present():
        return "the wrap could not fetch doctest (no network?); installed doctest-dev with apt-get"
    raise BootstrapError("doctest is needed and could not be fetched: run `apt-get install doctest-dev` as root "
                         "(or put doctest/doctest.h on CPATH), then try again")


def ensure(build_dir=None, need_doctest=True):
    """Makes meson, ninja and doctest available; returns the environment to run them with. Raises
    BootstrapError with one line when something cannot be installed."""
    env = dict(os.environ)
    path = env.get("PATH", "").split(os.pathsep)
    nvcc = find_nvcc()
    if nvcc is None:
        raise BootstrapError("nvcc not found: install the CUDA Toolkit 12.x or 13.x "
                             "(https://developer.nvidia.com/cuda-downloads) and put its bin/ on PATH")
    if str(nvcc.parent) not in path:
        path.append(str(nvcc.parent))
    bin_dir, msg = ensure_meson_ninja()
    if msg:
        say(msg)
    if bin_dir is not None:
        path.insert(0, str(bin_dir))
    env["PATH"] = os.pathsep.join(p for p in path if p)
    configured = build_dir is not None and (Path(build_dir) / "build.ninja").is_file()
    if need_doctest and not configured:
        meson = [shutil.which("meson", path=env["PATH"]) or "meson"]
        msg = ensure_doctest(meson)
        if msg:
            say(msg)
    return env


def main(argv):
    build = None
    if len(argv) == 2 and argv[0] == "--build":
        build = argv[1]
    elif argv:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        env = ensure(build)
    except BootstrapError as e:
        say(str(e))
        return 2
    print("export PATH=" + "'" + env["PATH"].replace("'", "'\\''") + "'")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
