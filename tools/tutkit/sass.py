"""Reading SASS: where cuobjdump is, and `cuobjdump -sass` output split into functions. Used by the
chapters' instruction checks (03, 04), which run as host tests without a GPU."""
import os
import re
import shutil


def find_cuobjdump(nvcc):
    """$CUOBJDUMP, the cuobjdump next to nvcc, or the one on PATH; None if there is none."""
    for c in (os.environ.get("CUOBJDUMP"), os.path.join(os.path.dirname(nvcc), "cuobjdump"),
              shutil.which("cuobjdump")):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def sass_functions(text):
    """{(arch, mangled name): body} from `cuobjdump -sass`."""
    functions, arch, name, lines = {}, "?", None, []
    for line in text.splitlines():
        m_arch = re.search(r"code for (sm_\d+\w*)", line)
        m_fn = re.search(r"Function : (\S+)", line)
        if m_arch or m_fn:
            if name:
                functions[(arch, name)] = "\n".join(lines)
            name, lines = None, []
            if m_arch:
                arch = m_arch.group(1)
            if m_fn:
                name = m_fn.group(1)
        elif name:
            lines.append(line)
    if name:
        functions[(arch, name)] = "\n".join(lines)
    return functions
