"""The build step of tools/check: runs ninja with its whole output going to a log file, shows the student a
short progress line instead of hundreds of compile lines, and, when the build fails, shows the first failed
target's own error lines and ends with one line that names that target, the meson in use and the log.

  python3 tools/tutkit/buildlog.py --log FILE --meson-version V [--tool NAME] -- ninja -C BUILD [...]

Exit status: ninja's."""

import os
import re
import subprocess
import sys
import time

# ninja prints "[12/383] Compiling Cuda object ..." for each step it starts, and "FAILED: <outputs>" before the
# output of a step that failed; the step's command line follows, then what the compiler printed.
STEP = re.compile(r"^\[(\d+)/(\d+)\] ")
FAILED = re.compile(r"^FAILED: (.*)$")
ERROR_LINE = re.compile(r"(error|fatal)\b", re.I)
SHOWN_ERROR_LINES = 25  # of the first failed step: enough for a compiler's first errors, never a screenful of log


def failed_target(outputs):
    """The target a student would name from a FAILED: line's outputs: meson's object files name the target's
    private folder (dir/name.p/src.o -> dir/name), a library or program names itself."""
    first = outputs.split()[0] if outputs.split() else outputs
    m = re.match(r"^(.*?)(?:\.p)/", first)
    if m:
        target = m.group(1)
        return re.sub(r"/lib([^/]+)\.a$", r"/\1", target)
    return first


last_summary = None  # the one-line summary of the last failed run()


class BuildLog:
    """Reads ninja's output a line at a time: counts the steps and keeps the failed steps' lines."""

    def __init__(self):
        self.done, self.total = 0, 0
        self.failures = []  # [(target, [lines])] in the order ninja reported them
        self._in_failure = False

    def feed(self, line):
        line = line.rstrip("\n")
        m = STEP.match(line)
        if m:
            self.done, self.total = int(m.group(1)), int(m.group(2))
            self._in_failure = False
            return
        m = FAILED.match(line)
        if m:
            self.failures.append((failed_target(m.group(1)), []))
            self._in_failure = True
            return
        if line.startswith("ninja: "):
            self._in_failure = False
            return
        if self._in_failure:
            self.failures[-1][1].append(line)

    def first_error_lines(self):
        """The first failed step's output without its command line (the line that runs the compiler), at
        most SHOWN_ERROR_LINES of it, starting at its first error where the compiler said one."""
        if not self.failures:
            return []
        lines = [ln for ln in self.failures[0][1] if ln.strip()]
        if lines and not ERROR_LINE.search(lines[0]):
            lines = lines[1:]  # the command line
        first_error = next((i for i, ln in enumerate(lines) if ERROR_LINE.search(ln)), 0)
        return lines[first_error:first_error + SHOWN_ERROR_LINES]


def summary_line(tool, log, meson_version, log_path):
    """The last line of a failed build."""
    if log.failures:
        more = f" and {len(log.failures) - 1} more" if len(log.failures) > 1 else ""
        where = f"build failed at {log.failures[0][0]}{more}"
    else:
        where = "build failed before compiling (ninja could not start or load the build)"
    return f"{tool}: {where} (meson {meson_version}); full log: {log_path}"


def run(command, log_path, meson_version, tool="tools/check", out=sys.stdout, err=sys.stderr, env=None,
        print_summary=True):
    """Runs the build; returns its exit status. A failed build prints its first errors and then, unless
    print_summary is False (the caller ends with that line itself: last_summary), the one-line summary."""
    os.makedirs(os.path.dirname(log_path) or ".", exist_ok=True)
    log = BuildLog()
    tty = out.isatty()
    start = time.monotonic()
    last_shown = -1.0
    with open(log_path, "w", encoding="utf-8", errors="replace") as log_file:
        try:
            proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                    errors="replace", bufsize=1, env=env)
        except OSError as e:
            print(f"{tool}: could not run {command[0]}: {e.strerror} (meson {meson_version})", file=err)
            return 127
        for line in proc.stdout:
            log_file.write(line)
            log.feed(line)
            if log.total:
                elapsed = time.monotonic() - start
                # A terminal gets one line that updates; a log (CI, a pipe) one line a minute.
                if tty:
                    out.write(f"\r{tool}: building: {log.done}/{log.total} steps, {elapsed:.0f} s ")
                    out.flush()
                elif elapsed - last_shown >= 60 or log.done == log.total:
                    out.write(f"{tool}: building: {log.done}/{log.total} steps, {elapsed:.0f} s\n")
                    out.flush()
                    last_shown = elapsed
        proc.stdout.close()
        rc = proc.wait()
    if tty and log.total:
        out.write("\n")
    if rc != 0:
        lines = log.first_error_lines()
        if lines:
            print(f"{tool}: the first failed step, {log.failures[0][0]}, printed:", file=err)
            for ln in lines:
                print("  " + ln, file=err)
        global last_summary
        last_summary = summary_line(tool, log, meson_version, log_path)
        if print_summary:
            print(last_summary, file=err)
    else:
        out.write(f"{tool}: built ({log.total} steps, {time.monotonic() - start:.0f} s; log: {log_path})\n"
                  if log.total else f"{tool}: nothing to rebuild\n")
    return rc


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(prog="buildlog.py", description=__doc__.splitlines()[0])
    parser.add_argument("--log", required=True)
    parser.add_argument("--meson-version", default="unknown")
    parser.add_argument("--tool", default="tools/check")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no build command after --")
    return run(command, args.log, args.meson_version, args.tool)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
